#!/usr/bin/env bash
# Mutation testing of the library with Stryker.NET (dotnet-stryker, pinned in .config/dotnet-tools.json)
# and the NUnit suite in Tests/ (the LargeMemory category left out: minutes per run, and covered by the
# rest at smaller sizes). Figures and the surviving mutants: docs/testing.md.
#
#   scripts/mutation-test.sh                          the files stryker-config.json names (the parsers,
#                                                     the public type, RFC 8452's composition, the nonce history)
#   scripts/mutation-test.sh 'Internal/**/*.cs' ...   files under Cryptography/ matching these globs instead
#   scripts/mutation-test.sh --since main             only the files changed since main (for CI or a review)
#   scripts/mutation-test.sh --tests <filter> ...      with a test-case filter of its own instead of the config's
#                                                     (a subset of the suite: each mutant's run is shorter, and
#                                                     what it kills is a lower bound on what the suite kills)
#   scripts/mutation-test.sh --concurrency 2 ...       two test sessions at once (the default, 1, leaves a core free)
#   scripts/mutation-test.sh --core ...                with the subset in scripts/mutation-core-tests.txt: about 10 s of
#                                                     tests (API, vectors, tamper, stack, seal, the record layer's
#                                                     classes but not its pipeline, HTTP or race tests), the runs
#                                                     docs/testing.md reports for GcmSiv.cs and the parsers
#   scripts/mutation-test.sh --subset <name> ...       with the subset in scripts/mutation-<name>-tests.txt (--core is
#                                                     --subset core); the staged whole-folder runs use internal-fast
#                                                     then internal-wide, content-encoding-fast then -wide; primitives
#                                                     (vectors, Wycheproof, hardware against portable) first for the
#                                                     AES and POLYVAL files; content-encoding-contracts over what the
#                                                     record layer's stages left
#
# A whole folder runs in two stages (docs/testing.md, "Staged runs"): a fast subset over every
# mutant, then a wider one over what the first left undetected, which scripts/mutation-summary.py
# names as patterns with character spans; then the summary merges the two reports:
#
#   scripts/mutation-test.sh --concurrency 2 --subset internal-fast 'Internal/*.cs' 'AesGcmSiv*.cs'
#   scripts/mutation-test.sh --concurrency 2 --subset internal-wide $(scripts/mutation-summary.py --undetected <first report>)
#   scripts/mutation-summary.py <first report> <second report>
#
# Output: StrykerOutput/<date>/reports/mutation-report.html and .json (ignored by git), and a
# per-file table on stdout. Runs one test session at a time, niced: it takes hours over all of
# Cryptography/ on two cores (every mutant of the AES and POLYVAL code runs most of the suite).
set -euo pipefail
cd "$(dirname "$0")/.."
dotnet tool restore > /dev/null

args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --since) args+=(--since:"${2:?branch or commit}"); shift 2 ;;
    --tests) args+=(--test-case-filter "${2:?test-case filter}"); shift 2 ;;
    --core) shift; set -- --subset core "$@" ;;
    --subset) args+=(--test-case-filter "$(tr -d '\n' < "scripts/mutation-${2:?subset name}-tests.txt")"); shift 2 ;;
    --concurrency) args+=(--concurrency "${2:?number of test sessions at once}"); shift 2 ;;
    *) break ;;
  esac
done
for glob in "$@"; do
  args+=(--mutate "**/$glob")
done

out=$PWD/StrykerOutput
cd Tests
nice -n 15 dotnet tool run dotnet-stryker --config-file ../stryker-config.json --output "$out/$(date -u +%Y%m%d-%H%M%S)" "${args[@]}"
