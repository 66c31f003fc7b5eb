#!/usr/bin/env bash
# Builds the documentation site into _site/ (git-ignored) with DocFX, from docfx.json: the guides
# in docs/ in the order of docs/toc.yml, the API reference from the library's XML documentation
# comments (every public type and member, grouped by namespace), the benchmark reports and charts
# (docs/benchmarks.md, docs/reports/), the modern template and its offline search index.
# DocFX warnings are errors (--warningsAsErrors): a broken link, an unresolved cross-reference or
# a malformed doc comment fails the build.
#
# Usage: scripts/build-docs.sh          (from anywhere; then scripts/check-docs.sh, or serve _site/)
#
# DocFX is the `docfx` dotnet tool at the version pinned in .config/dotnet-tools.json; this
# restores it (`dotnet tool restore`) from the NuGet feed. The metadata step builds
# Cryptography/Cryptography.csproj, so the .NET 10 SDK is all it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every guide must be on the site in reading order: docs/toc.yml names each docs/*.md.
for md in docs/*.md; do
  name=$(basename "$md")
  grep -qE "href: $name$" docs/toc.yml || { echo "build-docs: $md is not in docs/toc.yml" >&2; exit 1; }
done

dotnet tool restore >/dev/null
rm -rf _site api/*.yml api/.manifest
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# `docfx docfx.json` runs both steps: metadata (api/*.yml from the XML doc comments), then build.
if ! dotnet docfx docfx.json --warningsAsErrors 2>&1 | tee "$log"; then
  echo "build-docs: DocFX failed or reported warnings (treated as errors):" >&2
  grep -E ": (warning|error)" "$log" >&2 || true
  exit 1
fi
pages=$(find _site -name '*.html' -not -name 'toc.html' | wc -l)
api=$(find _site/api -name '*.html' -not -name 'toc.html' | wc -l)
echo "build-docs: site written to _site/: $pages pages ($api in the API reference); start page _site/index.html"
