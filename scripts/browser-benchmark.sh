#!/usr/bin/env bash
# The browser benchmark in one command: publishes Browser/BrowserHost, runs its /bench page in
# Debian's headless Chromium (Browser/run.mjs), and writes the report (Browser/report.mjs).
#
#   scripts/browser-benchmark.sh [report.md] [rounds]      default Browser/benchmark-report.md, 9 rounds
#
# Installs what it lacks as .ci/browser does (chromium with apt-get as root, npm ci). Takes about a
# minute of Chromium time at 9 rounds; keep the machine otherwise quiet for numbers worth reading.
set -euo pipefail
cd "$(dirname "$0")/.."
report=${1:-Browser/benchmark-report.md}
rounds=${2:-9}
work=$(mktemp -d)
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

# Only what is missing (as .ci/browser: NodeSource's nodejs carries npm, and Debian's npm conflicts with it).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v node > /dev/null || missing+=(nodejs)
command -v npm > /dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update > /dev/null && apt-get install -y --no-install-recommends "${missing[@]}" > /dev/null
fi
(cd Browser && npm ci --no-audit --no-fund > /dev/null)
dotnet publish Browser/BrowserHost -c Release -o "$work/publish" > "$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; exit 1; }

BENCH_QUERY="?rounds=$rounds&profile=1&impl=AesGcmSiv,BouncyCastle,noble,webcrypto" node Browser/run.mjs bench "$work/publish/wwwroot" "$work/bench.json"

commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- Cryptography Browser || commit="$commit (with uncommitted changes in Cryptography/ or Browser/)"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
cpu="$cpu $(nproc) cores visible, $(uname -m) $(uname -r)"
noble=$(node -p "require('./Browser/node_modules/@noble/ciphers/package.json').version")
bc=$(grep -oE 'BouncyCastle.Cryptography" Version="[^"]+' Browser/BrowserHost/BrowserHost.csproj | grep -oE '[0-9.]+$')
python3 - "$work/bench.json" "$noble" "$bc" << 'PY'
import json, sys
path, noble, bc = sys.argv[1:]
data = json.load(open(path))
data["peers"] = f"BouncyCastle.Cryptography {bc} (GcmSivBlockCipher, same app), @noble/ciphers {noble} (gcmsiv), WebCrypto AES-GCM"
data["bouncyCastleVersion"] = bc
json.dump(data, open(path, "w"), indent=2)
PY
mkdir -p "$(dirname "$report")"
node Browser/report.mjs "$work/bench.json" "$commit" "$cpu" > "$report"
cp "$work/bench.json" "${report%.md}.json"
echo "report written to $report (raw results ${report%.md}.json)"
