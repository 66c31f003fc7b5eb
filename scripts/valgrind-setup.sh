#!/usr/bin/env bash
# Installs Debian's valgrind (memcheck and its client-request header) when missing, as root; otherwise
# says how. For the secret-flow checks (scripts/secret-flow.sh, scripts/secret-flow-mono.sh).
# Usage: bash scripts/valgrind-setup.sh        (exit 2: missing and not root)
set -euo pipefail
if ! command -v valgrind > /dev/null || [ ! -f /usr/include/valgrind/memcheck.h ]; then
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind > /dev/null
  else
    echo "valgrind not found: install it (Debian: apt-get install valgrind)" >&2
    exit 2
  fi
fi
