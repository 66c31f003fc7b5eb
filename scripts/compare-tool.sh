#!/usr/bin/env bash
# Compares the aesgcmsiv tool at two commits on one machine in one run: both are packed and
# installed as dotnet tools (what users run), then each repetition runs every command with tool A
# and right after it with tool B, alternating which goes first, so that a change in the machine's
# load hits both alike. Commands: encrypt and decrypt of a random file (1 GiB) to /dev/null and file
# to file, at each record size, at the default --threads. Prints raw lines and, per command, the
# median MB/s of each tool, the median of the per-repetition ratios B/A (above 1: B is faster) and
# each tool's largest peak RSS (/usr/bin/time's "Maximum resident set size").
#
# Usage: [SIZE=1G] [FILES=1] scripts/compare-tool.sh REV_A REV_B DIR [REPETITIONS] [RECORD_SIZES] [CODING]
#   SIZE          the plaintext file's size for head -c (default 1G; DIR holds about four times it)
#   FILES         0: only the runs to /dev/null (what the cryptography and the overlap cost, without
#                 the storage's share, which varies most from run to run)
#   REV_A, REV_B  commits (REV_B may be "worktree": the checkout as it is)
#   DIR           where the files go (deleted at the end); e.g. /dev/shm
#   REPETITIONS   default 9
#   RECORD_SIZES  default "65536 4096"
#   CODING        default gcmsiv
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
rev_a=${1:?usage: compare-tool.sh REV_A REV_B DIR [REPETITIONS] [RECORD_SIZES] [CODING]}
rev_b=${2:?usage}
dir=${3:?usage}
reps=${4:-9}
sizes=${5:-65536 4096}
coding=${6:-gcmsiv}
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

work=$(mktemp -d "$dir/aesgcmsiv-compare.XXXXXX")
build=$(mktemp -d)
raw=$build/raw
trap 'rm -rf "$work"; git -C "$repo" worktree remove --force "$build/src-a" 2>/dev/null || true; git -C "$repo" worktree remove --force "$build/src-b" 2>/dev/null || true; rm -rf "$build"' EXIT

# install LABEL REV: packs the tool at REV under a version of its own (so the NuGet cache cannot hand
# one tool's package to the other) and installs it into $build/tools-LABEL.
install() {
  local label=$1 rev=$2 src
  if [ "$rev" = worktree ]; then
    src=$repo
  else
    src=$build/src-$label
    git -C "$repo" worktree add --detach -q "$src" "$rev"
  fi
  dotnet pack "$src/Tool" -c Release -o "$build/feed-$label" -p:Version="0.0.0-compare$label" --nologo -v q > /dev/null
  NUGET_PACKAGES=$build/nuget-$label dotnet tool install --tool-path "$build/tools-$label" \
    --add-source "$build/feed-$label" Cryptography.AesGcmSiv.Tool --version "0.0.0-compare$label" > /dev/null
}
install a "$rev_a"
install b "$rev_b"
a=$build/tools-a/aesgcmsiv
b=$build/tools-b/aesgcmsiv

head -c "${SIZE:-1G}" /dev/urandom > "$work/plain"
"$a" keygen "$work/key"
bytes=$(stat -c %s "$work/plain")

# timed LABEL NAME RS COMMAND...: one raw line "LABEL NAME RS SECONDS PEAK_KB"
timed() {
  local label=$1 name=$2 rs=$3
  shift 3
  /usr/bin/time -f "%e %M" -o "$work/time" "$@"
  echo "$label $name $rs $(cat "$work/time")" | tee -a "$raw"
}

# one LABEL TOOL RS: every command once with one tool
one() {
  local label=$1 tool=$2 rs=$3
  timed "$label" encrypt-null "$rs" sh -c '"$@" > /dev/null' sh "$tool" encrypt -k "$work/key" -c "$coding" -r "$rs" "$work/plain"
  timed "$label" decrypt-null "$rs" sh -c '"$@" > /dev/null' sh "$tool" decrypt -k "$work/key" -c "$coding" "$work/sealed-$rs"
  [ "${FILES:-1}" = 0 ] && return
  timed "$label" encrypt-file "$rs" "$tool" encrypt -k "$work/key" -c "$coding" -r "$rs" -f "$work/plain" "$work/out"
  rm -f "$work/out"
  timed "$label" decrypt-file "$rs" "$tool" decrypt -k "$work/key" -c "$coding" -f "$work/sealed-$rs" "$work/out"
  cmp "$work/plain" "$work/out"
  rm -f "$work/out"
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A: $rev_a ($(git -C "$repo" rev-parse --short "$([ "$rev_a" = worktree ] && echo HEAD || echo "$rev_a")")), B: $rev_b; runtime: $(dotnet --list-runtimes | grep NETCore.App | tail -1); dir: $dir ($(df --output=fstype "$dir" | tail -1))"
for rs in $sizes; do
  "$a" encrypt -k "$work/key" -c "$coding" -r "$rs" -f "$work/plain" "$work/sealed-$rs"
done
for rep in $(seq "$reps"); do
  for rs in $sizes; do
    if [ $((rep % 2)) -eq 1 ]; then
      one A "$a" "$rs"; one B "$b" "$rs"
    else
      one B "$b" "$rs"; one A "$a" "$rs"
    fi
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$raw" "$bytes" <<'EOF'
import statistics, sys
from collections import defaultdict
rows = [line.split() for line in open(sys.argv[1])]
size = int(sys.argv[2])
times = defaultdict(list)
peaks = defaultdict(int)
for label, name, rs, seconds, peak in rows:
    times[(name, int(rs), label)].append(float(seconds))
    peaks[(name, int(rs), label)] = max(peaks[(name, int(rs), label)], int(peak))
print("| rs | command | A median MB/s | B median MB/s | B/A (median of the repetitions' ratios) | B faster in | peak RSS MiB A / B |")
print("|---|---|---|---|---|---|---|")
for (name, rs) in sorted({(n, r) for n, r, _ in times}, key=lambda k: (-k[1], k[0])):
    ta, tb = times[(name, rs, "A")], times[(name, rs, "B")]
    ratios = [x / y for x, y in zip(ta, tb)]
    mbs = lambda t: size / statistics.median(t) / 1e6
    peak = lambda label: peaks[(name, rs, label)] / 1024
    print(f"| {rs} | {name} | {mbs(ta):.0f} | {mbs(tb):.0f} | {statistics.median(ratios):.3f} | {sum(r > 1 for r in ratios)} of {len(ratios)} | {peak('A'):.1f} / {peak('B'):.1f} |")
EOF
