#!/usr/bin/env bash
# Secret-flow check under Mono: scripts/secret-flow.sh's check (docs/testing.md, "Secret flow under
# valgrind") on the code Mono's JIT makes of the netstandard2.0 build. Builds ConstantTime.Mono (the
# same SecretFlow.cs, for net472), runs `mono --jitmap ConstantTime.exe --secret-flow` under valgrind's
# memcheck with the keys and plaintexts marked undefined, and checks every report with
# scripts/secret_flow_check_mono.py, which names the JIT's code from the map --jitmap writes.
#
# Usage: scripts/secret-flow-mono.sh [work-dir]        (exit 0: no leak found; 1: a report or a failure)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-ConstantTime.Mono/bin/secret-flow}")

bash scripts/valgrind-setup.sh
bash .ci/mono-setup

rm -rf "$work"
mkdir -p "$work"
dotnet build ConstantTime.Mono -c Release > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; exit 1; }
bin=ConstantTime.Mono/bin/Release/net472
gcc -O2 -shared -fPIC -o "$bin/libsecretflow.so" ConstantTime/native/secretflow.c

# Mono finds libsecretflow.so beside the program through LD_LIBRARY_PATH; --jitmap writes
# /tmp/perf-PID.map, PID being the process valgrind runs mono in (the one its XML names).
LD_LIBRARY_PATH="$PWD/$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" valgrind --tool=memcheck --leak-check=no --error-limit=no \
  --num-callers=6 --xml=yes --xml-file="$work/memcheck.xml" mono --jitmap "$bin/ConstantTime.exe" --secret-flow | tee "$work/run.log"
pid=$(grep -oE "<pid>[0-9]+</pid>" "$work/memcheck.xml" | head -n 1 | tr -dc 0-9)
mv "/tmp/perf-$pid.map" "$work/jit.map"
python3 scripts/secret_flow_check_mono.py "$work/memcheck.xml" "$work/jit.map"
