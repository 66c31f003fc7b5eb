#!/usr/bin/env bash
# Measures the aesgcmsiv tool's start-up, JIT against Native AOT, for docs/tool.md: the fixed cost
# of a file command (process start, key file, self-test, header), timed as an encrypt of an empty
# file to /dev/null. Two builds of the same commit:
#   jit  the dotnet tool as users install it on x64 Linux (packed, installed; the ReadyToRun package)
#   aot  `dotnet publish Tool -c Release -p:PublishProfile=aot` (one native file)
# Runs alternate (jit, aot, jit, aot, ...) so drift on a shared machine hits both alike; prints
# every run and the median and range of each. Usage: scripts/measure-startup.sh [RUNS]  (default 21)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-21}
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tool_version=$(sed -n 's:.*<Version>\(.*\)</Version>.*:\1:p' "$repo/Tool/Tool.csproj")
dotnet pack "$repo/Tool" -c Release -o "$work/feed" --nologo -v q > /dev/null
dotnet tool install --tool-path "$work/jit" --add-source "$work/feed" Cryptography.AesGcmSiv.Tool --version "$tool_version" > /dev/null
dotnet publish "$repo/Tool" -c Release -p:PublishProfile=aot -p:PublishDir="$work/aot/" --nologo -v q > /dev/null

"$work/jit/aesgcmsiv" keygen "$work/key"
: > "$work/empty"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runtime: $(dotnet --list-runtimes | grep NETCore.App | tail -1); commit: $(git -C "$repo" rev-parse --short HEAD)"
echo "aot file: $(stat -c %s "$work/aot/aesgcmsiv") bytes"
for i in $(seq "$runs"); do
  for kind in jit aot; do
    start=$(date +%s%N)
    "$work/$kind/aesgcmsiv" encrypt -k "$work/key" "$work/empty" > /dev/null
    echo "$kind $(( ($(date +%s%N) - start) / 1000 ))"
  done
done | tee "$work/raw"
python3 - "$work/raw" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    kind, us = line.split()
    times.setdefault(kind, []).append(int(us) / 1000)
for kind, ms in times.items():
    print(f"{kind}: median {statistics.median(ms):.1f} ms, range {min(ms):.1f}-{max(ms):.1f} ms, {len(ms)} runs")
PY
