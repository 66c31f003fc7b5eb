#!/usr/bin/env bash
# Checks the built documentation site (_site/, from scripts/build-docs.sh) as a reader would:
#   1. headless Chromium (Debian's chromium, driven by playwright-core from scripts/docs-check/)
#      opens the start page, the AesGcmSiv class page and every guide (docs/*.md) from file://;
#      any console error, uncaught script error or failed local load fails the check, and a
#      screenshot of each page is written to SCREENSHOT_DIR;
#   2. linkchecker follows every link of every page of the site and fails on a broken internal one
#      (a missing page, image or anchor); links to other sites are not fetched. Its report is
#      written to SCREENSHOT_DIR/linkchecker.txt.
#
# Usage: scripts/check-docs.sh SCREENSHOT_DIR
#
# Needs chromium, linkchecker and node/npm (Debian packages); when one is missing and this runs
# as root it installs them with apt-get and says so. playwright-core comes from the npm registry
# at the version locked in scripts/docs-check/package-lock.json (`npm ci`; it downloads no browser).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: scripts/check-docs.sh SCREENSHOT_DIR" >&2
  exit 2
fi
shots=$(realpath -m "$1")   # relative to where it was called from
cd "$(dirname "$0")/.."
[ -f _site/index.html ] || { echo "check-docs: no _site/index.html; run scripts/build-docs.sh first" >&2; exit 1; }

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v linkchecker >/dev/null || missing+=(linkchecker)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "check-docs: installing ${missing[*]} with apt-get" >&2
    apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null \
      || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
  else
    echo "check-docs: needs ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

# playwright-core only: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD keeps any install hook from fetching a browser.
if [ ! -d scripts/docs-check/node_modules/playwright-core ]; then
  (cd scripts/docs-check && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi

# The pages a reader lands on: the start page, the main type, and every guide.
pages=(index.html classCryptography_1_1AesGcmSiv.html)
for md in docs/*.md; do
  name=$(basename "$md" .md)
  [ "$name" = index ] || pages+=("$name.html")
done

mkdir -p "$shots"
status=0
echo "== headless Chromium: ${#pages[@]} pages, screenshots in $shots"
node scripts/docs-check/check.mjs _site "$shots" "${pages[@]}" || status=1

echo "== linkchecker: every internal link and anchor of the site"
config=$(mktemp)
# As root, linkchecker drops to user nobody, which may not be able to read the checkout (under
# /root, say): it checks a world-readable copy of the site instead.
copy=$(mktemp -d)
trap 'rm -rf "$config" "$copy"' EXIT
cp -r _site "$copy/site"
chmod -R a+rX "$copy"
cat > "$config" <<'CFG'
[filtering]
# Links leaving the site (the RFCs, learn.microsoft.com) are not fetched: CI has no internet.
ignore=
  ^https?:
  ^mailto:
[AnchorCheck]
CFG
# Every page is a start URL: Doxygen's menus and navigation tree are built by scripts, which
# linkchecker does not run, so not every page is reachable through static links alone. A missing
# file is an error; a missing anchor is a warning (AnchorCheck), and counts as a failure here too.
linkchecker --config="$config" --no-status --recursion-level=1 --threads=4 \
  $(for f in "$copy"/site/*.html; do printf 'file://%s ' "$f"; done) > "$shots/linkchecker.txt" 2>&1 || true
summary=$(grep -E "links? in [0-9]+ URLs? checked" "$shots/linkchecker.txt" || true)
if [ -z "$summary" ] || ! grep -qE " 0 warnings found.* 0 errors found" <<<"$summary"; then
  grep -vE "^INFO|^WARNING linkcheck.check .*dropping privileges" "$shots/linkchecker.txt" | tail -n 60
  echo "check-docs: broken links or anchors (or linkchecker did not finish), see above" >&2
  status=1
else
  echo "$summary"
fi

[ $status -eq 0 ] && echo "check-docs: ok"
exit $status
