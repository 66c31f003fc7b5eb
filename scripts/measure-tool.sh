#!/usr/bin/env bash
# Measures the aesgcmsiv tool on a 1 GiB file against the library's in-memory throughput at the
# same record size (Benchmarks --stream-throughput, Benchmarks/StreamThroughput.cs: the library's
# stream classes, memory to memory, at their default parallelism; it also reports the batch calls
# at the tool's default --threads), for docs/tool.md. The tool is packed and installed as a dotnet tool first, so what is
# measured is what users run. Each repetition runs, in this order: bench, encrypt file->file, decrypt
# file->file, encrypt file->/dev/null, decrypt file->/dev/null (at the tool's default --threads, every
# processor), the same two with --threads 1 ("-1-thread" rows, when that differs), and dd of
# the same file with fsync (what the storage alone allows; the tool also fsyncs before its rename).
# Wall time includes the process start; the same commands on an empty input measure that fixed cost,
# and the "less start" rows divide 1 GiB by the median time less the median fixed cost. Peak memory is /usr/bin/time's "Maximum resident set size".
#
# Usage: scripts/measure-tool.sh DIR [REPETITIONS] [RECORD_SIZES] [CODING]
#   DIR           where the 1 GiB files go (deleted at the end); e.g. /tmp (disk) or /dev/shm (tmpfs)
#   REPETITIONS   default 3; the summary gives the median and the range
#   RECORD_SIZES  default "65536 4096"
#   CODING        default gcmsiv
# Prints raw lines and a summary table; needs python3 and GNU time (/usr/bin/time).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: measure-tool.sh DIR [REPETITIONS] [RECORD_SIZES] [CODING]}
reps=${2:-3}
sizes=${3:-65536 4096}
coding=${4:-gcmsiv}
threads=$(nproc)   # the tool's default --threads
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

work=$(mktemp -d "$dir/aesgcmsiv-measure.XXXXXX")
raw=$(mktemp)
install=$(mktemp -d)
trap 'rm -rf "$work" "$raw" "$install"' EXIT

# The tool as users get it: packed and installed as a dotnet tool (on x64 Linux, the ReadyToRun package).
tool_version=$(sed -n 's:.*<Version>\(.*\)</Version>.*:\1:p' "$repo/Tool/Tool.csproj")
dotnet pack "$repo/Tool" -c Release -o "$install/feed" --nologo -v q >/dev/null
dotnet tool install --tool-path "$install/tools" --add-source "$install/feed" Cryptography.AesGcmSiv.Tool --version "$tool_version" >/dev/null
tool=("$install/tools/aesgcmsiv")
dotnet build "$repo/Benchmarks" -c Release --nologo -v q >/dev/null
bench=(dotnet "$repo/Benchmarks/bin/Release/net10.0/Benchmarks.dll" --stream-throughput)

head -c 1G /dev/urandom > "$work/plain"
"${tool[@]}" keygen "$work/key"
: > "$work/empty"
"${tool[@]}" encrypt -k "$work/key" -c "$coding" "$work/empty" "$work/empty.sealed"
bytes=$(stat -c %s "$work/plain")

# timed NAME RS COMMAND...: one raw line "NAME RS SECONDS PEAK_KB"
timed() {
  local name=$1 rs=$2
  shift 2
  /usr/bin/time -f "%e %M" -o "$work/time" "$@"
  echo "$name $rs $(cat "$work/time")" | tee -a "$raw"
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tool: $(readlink "$install/tools/aesgcmsiv" | sed 's:.*/tools/net10.0/::')"
echo "runtime: $(dotnet --list-runtimes | grep NETCore.App | tail -1); commit: $(git -C "$repo" rev-parse --short HEAD); dir: $dir ($(df --output=fstype "$dir" | tail -1)); threads: $threads"
for rep in $(seq "$reps"); do
  for rs in $sizes; do
    "${bench[@]}" --coding "$coding" --record-size "$rs" --size "$bytes" --threads "$threads" | tee "$work/bench"
    # "encrypt in-memory ..." -> encrypt-memory; "encrypt-batch threads=N ..." -> encrypt-batch
    awk -v rs="$rs" '{ name = ($1 ~ /-batch$/) ? $1 : $1 "-memory"; for (i = 1; i <= NF; i++) if ($i ~ /^seconds=/) { split($i, s, "="); print name, rs, s[2], 0 } }' "$work/bench" >> "$raw"
    timed encrypt-file "$rs" "${tool[@]}" encrypt -k "$work/key" -c "$coding" -r "$rs" -f "$work/plain" "$work/sealed"
    timed decrypt-file "$rs" "${tool[@]}" decrypt -k "$work/key" -c "$coding" -f "$work/sealed" "$work/opened"
    cmp "$work/plain" "$work/opened"
    rm -f "$work/opened"
    # The fixed cost (process start, key, self-test, first batch): the same commands on an empty input.
    timed encrypt-start "$rs" sh -c '"$@" > /dev/null' sh "${tool[@]}" encrypt -k "$work/key" -c "$coding" -r "$rs" "$work/empty"
    timed decrypt-start "$rs" sh -c '"$@" > /dev/null' sh "${tool[@]}" decrypt -k "$work/key" -c "$coding" "$work/empty.sealed"
    timed encrypt-null "$rs" sh -c '"$@" > /dev/null' sh "${tool[@]}" encrypt -k "$work/key" -c "$coding" -r "$rs" "$work/plain"
    timed decrypt-null "$rs" sh -c '"$@" > /dev/null' sh "${tool[@]}" decrypt -k "$work/key" -c "$coding" "$work/sealed"
    if [ "$threads" != 1 ]; then
      timed encrypt-null-1-thread "$rs" sh -c '"$@" > /dev/null' sh "${tool[@]}" encrypt -t 1 -k "$work/key" -c "$coding" -r "$rs" "$work/plain"
      timed decrypt-null-1-thread "$rs" sh -c '"$@" > /dev/null' sh "${tool[@]}" decrypt -t 1 -k "$work/key" -c "$coding" "$work/sealed"
    fi
    timed dd-fsync "$rs" dd if="$work/plain" of="$work/copy" bs=1M conv=fsync status=none
    rm -f "$work/copy" "$work/sealed"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$raw" "$bytes" <<'PY'
import collections, statistics, sys
raw, size = sys.argv[1], int(sys.argv[2])
runs = collections.defaultdict(list)
for line in open(raw):
    name, rs, seconds, peak = line.split()
    runs[(int(rs), name)].append((float(seconds), int(peak)))
print(f"\n{'rs':>6} {'measurement':<20} {'median MB/s':>11} {'range MB/s':>13} {'vs memory':>9} {'peak RSS MiB':>12}")
for rs in sorted({k[0] for k in runs}, reverse=True):
    for name in ["encrypt-memory", "encrypt-batch", "encrypt-file", "encrypt-null", "encrypt-null-1-thread",
                 "decrypt-memory", "decrypt-batch", "decrypt-file", "decrypt-null", "decrypt-null-1-thread", "dd-fsync"]:
        if (rs, name) not in runs: continue
        speeds = [size / s / 1e6 for s, _ in runs[(rs, name)]]
        op = name.split("-")[0]
        memory = statistics.median(size / s / 1e6 for s, _ in runs.get((rs, op + "-memory"), [(1, 0)]))
        ratio = f"{statistics.median(speeds) / memory:.0%}" if op in ("encrypt", "decrypt") and not name.endswith(("memory", "batch")) else ""
        peak = max(p for _, p in runs[(rs, name)]) / 1024
        shown = f"{peak:.1f}" if peak else ""
        print(f"{rs:>6} {name:<20} {statistics.median(speeds):>11.0f} {min(speeds):>6.0f}-{max(speeds):<6.0f} {ratio:>9} {shown:>12}")
        if name in ("encrypt-null", "decrypt-null") and (rs, op + "-start") in runs:
            # Throughput without the fixed cost: 1 GiB over (median time - median time for an empty input).
            start = statistics.median(s for s, _ in runs[(rs, op + "-start")])
            steady = size / (statistics.median(s for s, _ in runs[(rs, name)]) - start) / 1e6
            print(f"{rs:>6} {name + ' less start':<20} {steady:>11.0f} {'':>13} {steady / memory:>9.0%} {'':>12}   (start: median {start:.2f} s)")
PY
