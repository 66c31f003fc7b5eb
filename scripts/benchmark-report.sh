#!/usr/bin/env bash
# Writes one platform's benchmark report: docs/reports/<platform>/ with results.csv (the runner's
# rows), runtime.txt (what the process saw) and index.md (the machine, runtime, backend, peers'
# versions, commit, the CPU, and a table with each row's ratio to the fastest other AES-GCM-SIV, with
# AES-GCM as context, labelled as another algorithm), then redraws the comparison page
# docs/reports/index.md and its chart docs/reports/comparison.png from every report there
# (scripts/benchmark_report.py). The ratios are the CPU's: on an Intel x64 machine the folder is
# docs/reports/<platform>-intel (any vendor other than AMD gets its own suffix), so a run there adds
# an Intel report beside the AMD ones instead of replacing them.
#
# Usage: scripts/benchmark-report.sh PLATFORM [--quick]
#   x64-jit-vpclmulqdq   x64 JIT, the widest backend (AesNiVpclmulqdq where the CPU has VPCLMULQDQ)
#   x64-jit-pclmulqdq    x64 JIT with DOTNET_EnableAVX2=0: the AesNiPclmulqdq backend
#   x64-jit-portable     x64 JIT with DOTNET_EnableAES=0: the constant-time portable backend (the
#                        peers lose AES-NI too where they take it from .NET: BouncyCastle)
#   x64-aot              x64 Native AOT: the runner published with PublishAot=true, as a user's
#                        app would be by default (code for the baseline x64 instruction sets)
#   x64-aot-native       the same with IlcInstructionSet=native: compiled for this CPU's
#                        instruction sets (a file that may not run on an older CPU)
#   arm64-jit            linux-arm64 JIT, run on an ARM64 machine (not emulated: qemu times mean nothing)
#   browser              Chromium, Blazor WebAssembly: scripts/browser-benchmark.sh (Browser/), its AES-256
#                        cells in the same columns (peers: BouncyCastle in the same app, @noble/ciphers,
#                        WebCrypto AES-GCM, the browser's native code for another algorithm)
#   x64-mono             Mono (Debian's mono-complete, installed by .ci/mono-setup): the netstandard2.0
#                        build in a net472 app, MonoBenchmark/ (BenchmarkDotNet's Mono toolchain does not
#                        run here), timed in the thread's CPU time; peer: BouncyCastle in the same process.
#                        AES-128 beside it (results-aes128.csv, on its page only)
#   x64                  the five .NET x64 reports above (x64-jit-* and x64-aot*), one after the other
#   compare              only redraw the comparison page and chart from the reports present
# --quick measures fewer and shorter samples (a smoke run; the page says so).
#
# The runner is BenchmarkReport/ (a Stopwatch loop over the same peers as Benchmarks/: .NET's AesGcm,
# BoringSSL's AES-GCM-SIV, libsodium's AES-256-GCM, BouncyCastle's GcmSivBlockCipher), AES-256,
# encrypt and decrypt, 64 B to 64 KiB. About 40 s per platform. Needs the .NET 10 SDK, python3 with
# matplotlib (Debian's python3-matplotlib) and, for the BoringSSL rows, scripts/benchmark-peers.sh
# (root); the script installs the last two with apt-get when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."

platform=${1:-}
quick=
[ "${2:-}" = "--quick" ] && quick=1
case "$platform" in
  x64-jit-vpclmulqdq|x64-jit-pclmulqdq|x64-jit-portable|x64-aot|x64-aot-native|x64-mono|arm64-jit|browser|x64|compare) ;;
  *) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "benchmark-report: installing python3-matplotlib with apt-get" >&2
    apt-get install -y --no-install-recommends python3-matplotlib >/dev/null \
      || { apt-get update >/dev/null && apt-get install -y --no-install-recommends python3-matplotlib >/dev/null; }
  else
    echo "benchmark-report: needs matplotlib: sudo apt-get install python3-matplotlib" >&2
    exit 1
  fi
fi

if [ "$platform" = compare ]; then
  exec /usr/bin/python3 scripts/benchmark_report.py compare docs/reports
fi
if [ "$platform" = x64 ]; then
  for p in x64-jit-vpclmulqdq x64-jit-pclmulqdq x64-jit-portable x64-aot x64-aot-native; do
    "$0" "$p" ${quick:+--quick}
  done
  exit 0
fi

arch=$(uname -m)
case "$platform" in
  x64-*) [ "$arch" = x86_64 ] || { echo "benchmark-report: $platform needs an x86_64 machine (this is $arch)" >&2; exit 1; } ;;
  arm64-*) [ "$arch" = aarch64 ] || { echo "benchmark-report: $platform needs an aarch64 machine (this is $arch); under qemu only correctness means anything (.ci/arm64)" >&2; exit 1; } ;;
esac

if [ "$(id -u)" -eq 0 ] && [ "$platform" != browser ] && [ "$platform" != x64-mono ]; then
  bash scripts/benchmark-peers.sh || echo "benchmark-report: BoringSSL could not be installed; its rows are left out" >&2
fi

# One CPU's ratios are not another's: reports from a vendor other than AMD (this project's machine,
# whose reports keep the plain names) go to a folder of their own.
vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
suffix=
case "$vendor" in
  ""|AuthenticAMD) ;;
  GenuineIntel) suffix=-intel ;;
  *) suffix=-$(echo "$vendor" | tr '[:upper:]' '[:lower:]' | tr -cd 'a-z0-9') ;;
esac
out=docs/reports/$platform$suffix
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runner_args=(--out "$work/run")
[ -n "$quick" ] && runner_args+=(--samples 5 --sample-ms 30)
knob=
case "$platform" in
  x64-jit-pclmulqdq) knob=DOTNET_EnableAVX2=0 ;;
  x64-jit-portable) knob=DOTNET_EnableAES=0 ;;
esac

if [ "$platform" = x64-mono ]; then
  # The Mono runner writes results.csv (AES-256), results-aes128.csv and runtime.txt itself.
  bash .ci/mono-setup
  echo "== building MonoBenchmark (Release, net472)"
  dotnet build MonoBenchmark -c Release > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; exit 1; }
  echo "== running $platform ($(mono --version | head -n 1))"
  mono MonoBenchmark/bin/Release/net472/Benchmarks.exe "${runner_args[@]}" --key-bits 256,128
elif [ "$platform" = browser ]; then
  # The browser runner's own report (Browser/benchmark-report.md) is written too; its AES-256 cells
  # become this report's rows, the same columns as BenchmarkReport's.
  mkdir -p "$work/run"
  bash scripts/browser-benchmark.sh "$work/browser/report.md" "$([ -n "$quick" ] && echo 3 || echo 9)"
  /usr/bin/python3 - "$work/browser/report.json" "$work/run" << 'PY'
import json, sys
data = json.load(open(sys.argv[1]))
names = {"AesGcmSiv": f"AesGcmSiv ({data['activeBackend']})", "AesGcmSiv/Portable": "AesGcmSiv (Portable)",
         "BouncyCastle": "BouncyCastle", "noble": "@noble/ciphers", "webcrypto": "WebCrypto AES-GCM"}
with open(f"{sys.argv[2]}/results.csv", "w") as out:
    out.write("operation,size,implementation,ns_per_op,gb_per_s,min_ns,max_ns\n")
    for cell in data["cells"]:
        if cell["keyBits"] != 256:
            continue
        ns = cell["medianNs"]
        out.write(f"{cell['operation'].capitalize()},{cell['size']},{names.get(cell['implementation'], cell['implementation'])},"
                  f"{ns:.1f},{cell['size'] / ns:.3f},{min(cell['samplesNs']):.1f},{max(cell['samplesNs']):.1f}\n")
with open(f"{sys.argv[2]}/runtime.txt", "w") as out:
    out.write(f"runtime: {data['runtime']} (Blazor WebAssembly: interpreter and jiterpreter, {data['browser']})\n")
    out.write(f"os: {data['os']} ({data['architecture']}); Vector128 accelerated: {data['vector128Accelerated']}, PackedSimd: {data['packedSimd']}\n")
    out.write(f"aesgcmsiv_backend: {data['activeBackend']}\n")
    out.write(f"bouncycastle: BouncyCastle.Cryptography {data['bouncyCastleVersion']} (GcmSivBlockCipher)\n")
    out.write(f"peers: {data['peers']}\n")
PY
else
if [ "$platform" = x64-aot ] || [ "$platform" = x64-aot-native ]; then
  ilc=()
  [ "$platform" = x64-aot-native ] && { ilc=(-p:IlcInstructionSet=native); knob="IlcInstructionSet=native (publish property)"; }
  echo "== publishing BenchmarkReport with Native AOT (linux-x64) ${ilc[*]}"
  dotnet publish BenchmarkReport -c Release -r linux-x64 -p:PublishAot=true "${ilc[@]}" -o "$work/aot" > "$work/publish.log" 2>&1 \
    || { tail -n 30 "$work/publish.log"; exit 1; }
  command=("$work/aot/BenchmarkReport")
else
  echo "== building BenchmarkReport (Release)"
  dotnet build BenchmarkReport -c Release > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; exit 1; }
  command=(dotnet BenchmarkReport/bin/Release/net10.0/BenchmarkReport.dll)
fi

echo "== running $platform${knob:+ ($knob)}"
case "$knob" in
  DOTNET_*) env "$knob" "${command[@]}" "${runner_args[@]}" ;;
  *) "${command[@]}" "${runner_args[@]}" ;;
esac
fi

# What the runner cannot see from inside: the CPU, the OS release, the native peers' packages,
# the commit.
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
cpu_id=$(awk -F': ' '/^cpu family/ && !f { f = $2 } /^model\t/ && !m { m = $2 } /^stepping/ && !s { s = $2 } END { if (f != "") printf "family %s, model %s, stepping %s", f, m, s }' /proc/cpuinfo || true)
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'aes|pclmulqdq|avx2|vaes|vpclmulqdq|avx512f' | tr '\n' ' ' || true)
{
  echo "platform: $platform"
  echo "cpu: ${cpu:-unknown}${cpu_id:+ ($cpu_id)}; $(nproc) logical processors visible; ISA flags: ${flags% }"
  echo "os_release: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
  echo "knob: ${knob:-none}"
  if [ "$platform" = x64-mono ]; then
    echo "mono_package: $(dpkg-query -W -f='mono-complete ${Version}' mono-complete 2>/dev/null || echo unknown)"
  else
    echo "openssl: $(openssl version 2>/dev/null || dpkg-query -W -f='libssl3 ${Version}' libssl3 2>/dev/null || echo unknown)"
    echo "boringssl_package: $(dpkg-query -W -f='android-libboringssl ${Version}' android-libboringssl 2>/dev/null || echo 'not installed')"
  fi
  echo "sdk: $(dotnet --version)"
  [ "$platform" = browser ] && echo "mode: $([ -n "$quick" ] && echo 'quick (3 interleaved rounds)' || echo 'standard (9 interleaved rounds, medians)')"
  echo "commit: $(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- . ':!docs/reports' || echo ' (with uncommitted changes)')"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  [ "$platform" = browser ] || echo "mode: $([ -n "$quick" ] && echo 'quick (5 samples of 30 ms per case)' || echo 'standard (9 samples of 60 ms per case)')"
} >> "$work/run/runtime.txt"

rm -rf "$out"
mkdir -p "$out"
cp "$work/run/results.csv" "$work/run/runtime.txt" "$out/"
[ -f "$work/run/results-aes128.csv" ] && cp "$work/run/results-aes128.csv" "$out/"
/usr/bin/python3 scripts/benchmark_report.py platform "$out"
/usr/bin/python3 scripts/benchmark_report.py compare docs/reports
echo "benchmark-report: wrote $out/ and docs/reports/index.md"
