#!/usr/bin/env bash
# Secret-flow check: no branch and no memory index in the compiled code depends on a key or a
# plaintext (docs/testing.md, "Secret flow under valgrind"). Publishes ConstantTime as Native AOT
# (machine code, no JIT), runs its --secret-flow mode under valgrind's memcheck with the secrets
# marked undefined, and checks every report with scripts/secret_flow_check.py: the control's must be
# there, decryption's one branch on its verified/rejected result is allowed, anything else fails.
#
# Usage: scripts/secret-flow.sh [work-dir]        (exit 0: no leak found; 1: a report or a failure)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-ConstantTime/bin/secret-flow}")

bash scripts/valgrind-setup.sh

rm -rf "$work"
mkdir -p "$work/bin"
# Symbols kept (function names in valgrind's reports, and for objdump), DWARF left out: valgrind 3.19
# cannot read the DWARF 5 of the runtime's objects.
dotnet publish ConstantTime -c Release -r linux-x64 -p:PublishAot=true -p:NativeDebugSymbols=false \
  -p:StripSymbols=false -o "$work/bin" --nologo > "$work/publish.log" 2>&1 || { tail -n 30 "$work/publish.log"; exit 1; }
gcc -O2 -shared -fPIC -o "$work/bin/libsecretflow.so" ConstantTime/native/secretflow.c

valgrind --tool=memcheck --leak-check=no --error-limit=no --num-callers=6 --xml=yes --xml-file="$work/memcheck.xml" \
  "$work/bin/ConstantTime" --secret-flow | tee "$work/run.log"
python3 scripts/secret_flow_check.py "$work/memcheck.xml" "$work/bin/ConstantTime"
