#!/usr/bin/env bash
# The netstandard2.0 build's speed under Mono against BouncyCastle 2.7.0 (MonoBenchmark/): installs
# Mono when missing (.ci/mono-setup), builds the net472 runner and runs it; prints the CPU and a
# markdown table (docs/platforms.md has a run). Usage: bash scripts/mono-benchmark.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bash "$repo/.ci/mono-setup"
dotnet build "$repo/MonoBenchmark" -c Release --nologo > /dev/null
echo "// cpu: $(lscpu | sed -n 's/^Model name: *//p'), family $(lscpu | sed -n 's/^CPU family: *//p') model $(lscpu | sed -n 's/^Model: *//p'); $(mono --version | head -n 1)"
mono "$repo/MonoBenchmark/bin/Release/net472/Benchmarks.exe"
