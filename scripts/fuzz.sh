#!/usr/bin/env bash
# Fuzzes the library with AFL++ through SharpFuzz (Fuzz/README.md).
#
#   scripts/fuzz.sh <target> <seconds> [findings folder]
#   scripts/fuzz.sh smoke <seconds per target> [findings folder]    every target in turn (CI)
#
# Targets: decode, header, open, keyfile, differential; and all, which fuzzes every one of them in one
# afl-fuzz run (byte 0 picks the target), for machines with fewer cores than targets. Builds Fuzz/ (Release) into
# <findings>/bin, instruments the library and the tool there with `sharpfuzz`, replays the seed
# corpus (Fuzz/seeds/<target>) outside afl-fuzz, then runs afl-fuzz for <seconds> with
# <findings>/<target> as its output folder (default Fuzz/findings/, ignored by git). Prints afl's
# figures and exits 1 when afl-fuzz saved a crash (a failed check) or a hang. apt-get installs afl++
# and `dotnet tool restore` sharpfuzz when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
target=$1
seconds=$2
out=$(realpath -m "${3:-Fuzz/findings}")
targets="decode header open keyfile differential"

if ! command -v afl-fuzz > /dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq afl++ > /dev/null
  else
    echo "afl-fuzz not found: install AFL++ (Debian: apt-get install afl++)" >&2
    exit 2
  fi
fi
dotnet tool restore > /dev/null

# Build into a folder of its own: instrumenting rewrites the library in place, and nothing else
# should pick up the instrumented copy.
bin=$out/bin
rm -rf "$bin"
dotnet publish Fuzz -c Release -o "$bin" --nologo -v quiet > "$out.publish.log" 2>&1 || { cat "$out.publish.log"; exit 1; }
rm -f "$out.publish.log"
# The seeds are replayed on a copy left uninstrumented: instrumented code runs only under afl-fuzz.
rm -rf "$out/replay" && cp -r "$bin" "$out/replay"
dotnet tool run sharpfuzz "$bin/Cryptography.AesGcmSiv.dll" > /dev/null
dotnet tool run sharpfuzz "$bin/aesgcmsiv.dll" Cryptography.Tool.KeyFile Cryptography.Tool.Errors > /dev/null

# AFL++ settings for a shared machine in a container: no CPU-frequency or core_pattern checks
# (crashes are exceptions here, not signals), no pinning to a core, and dotnet itself is not an
# instrumented binary (the instrumentation is in the assemblies it loads, which SharpFuzz reports).
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 AFL_SKIP_BIN_CHECK=1
export AFL_NO_UI=1

run() {
  local target=$1 dir=$out/$1
  dotnet "$out/replay/Fuzz.dll" "$target" --replay "Fuzz/seeds/$target" | tail -n 1 || return 1
  # The fork-server handshake with the first input written late, as afl-fuzz may do (the script says
  # why): the target's first run must still see that input.
  python3 scripts/fuzz-handshake-check.py "$bin" "$target" "$(find "Fuzz/seeds/$target" -type f | sort | head -n 1)" | tail -n 1 || return 1
  rm -rf "$dir"
  # -t: a generous per-input limit (ms); the first inputs include the JIT's work, and the machine is
  # shared. -m none: .NET reserves far more address space than afl's default limit.
  FUZZ_COUNTS=$dir/counts timeout $((seconds + 120)) afl-fuzz -i "Fuzz/seeds/$target" -o "$dir" -t 5000 -m none -V "$seconds" \
    -- dotnet "$bin/Fuzz.dll" "$target" > "$dir.log" 2>&1 || { tail -n 30 "$dir.log"; echo "afl-fuzz failed for $target" >&2; return 1; }
  local stats=$dir/default/fuzzer_stats
  local crashes hangs
  crashes=$(awk -F' *: *' '$1 == "saved_crashes" { print $2 }' "$stats")
  hangs=$(awk -F' *: *' '$1 == "saved_hangs" { print $2 }' "$stats")
  awk -F' *: *' -v t="$target" '
    $1 == "start_time" { start = $2 } $1 == "last_update" { end = $2 } $1 == "run_time" { run = $2 }
    $1 == "execs_done" { execs = $2 } $1 == "execs_per_sec" { rate = $2 } $1 == "corpus_count" { paths = $2 }
    $1 == "edges_found" { edges = $2 } $1 == "bitmap_cvg" { cvg = $2 }
    $1 == "saved_crashes" { crashes = $2 } $1 == "saved_hangs" { hangs = $2 }
    END { printf "fuzz %s: %s s, %s execs (%s/s), %s paths, %s edges (%s), %s crashes, %s hangs, start %s end %s\n", t, run, execs, rate, paths, edges, cvg, crashes, hangs, start, end }' "$stats"
  if [ "${crashes:-1}" -ne 0 ] || [ "${hangs:-1}" -ne 0 ]; then
    echo "afl-fuzz saved crashes or hangs for $target: $dir/default/crashes, $dir/default/hangs" >&2
    echo "replay one with: dotnet $out/replay/Fuzz.dll $target --replay <file>" >&2
    return 1
  fi
}

status=0
if [ "$target" = smoke ]; then
  for t in $targets; do
    run "$t" || status=1
  done
else
  run "$target" || status=1
fi
exit $status
