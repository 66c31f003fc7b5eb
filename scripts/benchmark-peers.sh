#!/usr/bin/env bash
# Installs the native peers the benchmark suite measures that do not come from NuGet: BoringSSL's
# AES-GCM-SIV, from Debian's android-libboringssl (libcrypto.so.0 under /usr/lib/<triplet>/android/).
# libsodium (the `libsodium` package) and BouncyCastle come with `dotnet restore`. Needs root (CI is);
# does nothing when the library is already there. Usage: bash scripts/benchmark-peers.sh
set -euo pipefail
triplet=$(gcc -dumpmachine 2> /dev/null || echo "$(uname -m)-linux-gnu")
if [ -e "/usr/lib/$triplet/android/libcrypto.so.0" ]; then
  exit 0
fi
echo "installing android-libboringssl"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
{
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq android-libboringssl
} > "$log" 2>&1 || { tail -n 20 "$log"; exit 1; }
