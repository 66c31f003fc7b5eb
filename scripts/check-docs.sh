#!/usr/bin/env bash
# Checks the built documentation site (_site/, from scripts/build-docs.sh) as a reader would. It
# serves _site/ on 127.0.0.1 (python3's http.server, on a free port; stopped on exit), because the
# DocFX modern template loads its navigation and search index with fetch and a web worker, then:
#   1. headless Chromium (Debian's chromium, driven by playwright-core from scripts/docs-check/)
#      opens the start page, the AesGcmSiv class page, every guide (docs/*.md) and every benchmark
#      page (docs/benchmarks.md, docs/reports/**.md); a console error, an uncaught script error, a
#      failed load or a request that leaves 127.0.0.1 fails the check; a screenshot of each page
#      is written to SCREENSHOT_DIR;
#   2. types "AesGcmSiv" into the site's search box: the results must list the class page;
#   3. linkchecker follows every link of every page and fails on a broken internal one (a missing
#      page, image or anchor); links to other sites are not fetched (CI has no internet). Its
#      report is written to SCREENSHOT_DIR/linkchecker.txt.
# Before that, the benchmark report pages (docs/reports/) must be what scripts/benchmark_report.py
# writes from their data, and every link of README.md (the package's readme) into the published site, and the
# package's project URL (DocsSiteUrl in Cryptography/Cryptography.csproj), must name a page of _site/;
# README.md may have no relative link (it is the package's readme too, and breaks on nuget.org).
# API pages are found through DocFX's _site/xrefmap.yml (by uid), never by a hard-coded file name,
# so a type that moves to another namespace needs no change here.
#
# Usage: scripts/check-docs.sh SCREENSHOT_DIR
#
# Needs chromium, linkchecker, python3 and node/npm (Debian packages); when one is missing and
# this runs as root it installs them with apt-get and says so. playwright-core comes from the npm
# registry at the version locked in scripts/docs-check/package-lock.json (`npm ci`; it downloads
# no browser).
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
command -v python3 >/dev/null || missing+=(python3)
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

# The AesGcmSiv class page, as DocFX's cross-reference map names it.
class_page=$(python3 - <<'PY'
import re
text = open("_site/xrefmap.yml", encoding="utf-8").read()
m = re.search(r"^- uid: Cryptography\.AesGcmSiv\n(?:  .*\n)*?  href: (\S+)", text, re.M)
print(m.group(1) if m else "")
PY
)
[ -n "$class_page" ] || { echo "check-docs: _site/xrefmap.yml has no uid Cryptography.AesGcmSiv" >&2; exit 1; }

# The pages a reader lands on: the start page, the main type, every guide, every benchmark page.
pages=(index.html "$class_page")
for md in docs/*.md; do
  name=$(basename "$md" .md)
  [ "$name" = index ] || pages+=("docs/$name.html")
done
if [ -d docs/reports ]; then
  while IFS= read -r md; do pages+=("${md%.md}.html"); done < <(find docs/reports -name '*.md' | sort)
fi

# The package's project URL and the README's links into the published site (DocsSiteUrl in
# Cryptography/Cryptography.csproj) must name pages this site has.
echo "== links to the published site from README.md and the package"
python3 - <<'PY' || exit 1
import os, re, sys
csproj = open("Cryptography/Cryptography.csproj", encoding="utf-8").read()
m = re.search(r"<DocsSiteUrl>([^<]+)</DocsSiteUrl>", csproj)
if not m:
    sys.exit("check-docs: no DocsSiteUrl in Cryptography/Cryptography.csproj")
base = m.group(1)
readme = open("README.md", encoding="utf-8").read()
# README.md is also the package's readme on nuget.org, where no file sits beside it: a relative link
# (docs/blazor.md, scripts/README.md) breaks there. Every link goes to the site or another address.
relative = [target for target in re.findall(r"\]\(([^)\s]+)\)", readme) if not re.match(r"^(https?://|mailto:|#)", target)]
for target in relative:
    print(f"check-docs: README.md links to {target}, relative, which breaks on the package page: link to {base}...", file=sys.stderr)
links = re.findall(re.escape(base) + r"[^\s)\"'<>]*", readme)
links.append(base)  # PackageProjectUrl
bad = []
for url in sorted(set(links)):
    rel = url[len(base):].split("#")[0]
    if rel == "" or rel.endswith("/"):
        rel += "index.html"
    if not os.path.isfile(os.path.join("_site", rel)):
        bad.append(url)
for url in bad:
    print(f"check-docs: {url} names no page of _site/", file=sys.stderr)
print(f"{len(set(links)) - len(bad)} of {len(set(links))} links to {base} name pages of the site")
sys.exit(1 if bad or relative else 0)
PY

# The benchmark report pages are what scripts/benchmark_report.py writes from the committed
# results.csv and runtime.txt: nothing on them is edited by hand.
if [ -d docs/reports ]; then
  echo "== benchmark report pages against their data"
  if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
      apt-get install -y --no-install-recommends python3-matplotlib >/dev/null \
        || { apt-get update >/dev/null && apt-get install -y --no-install-recommends python3-matplotlib >/dev/null; }
    fi
  fi
  redrawn=$(mktemp -d)
  cp -r docs/reports "$redrawn/reports"
  for dir in "$redrawn"/reports/*/; do
    [ -f "$dir/results.csv" ] && /usr/bin/python3 scripts/benchmark_report.py platform "$dir"
  done
  /usr/bin/python3 scripts/benchmark_report.py compare "$redrawn/reports"
  stale=0
  while IFS= read -r page; do
    rel=${page#"$redrawn"/reports/}
    if ! cmp -s "$page" "docs/reports/$rel"; then
      echo "check-docs: docs/reports/$rel differs from what scripts/benchmark_report.py writes from its data" >&2
      stale=1
    fi
  done < <(find "$redrawn/reports" -name index.md)
  rm -rf "$redrawn"
  [ $stale -eq 0 ] || exit 1
  echo "benchmark report pages match their data ($(find docs/reports -name results.csv | wc -l) reports)"
fi

# Serve the site on a free port of 127.0.0.1 only.
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
python3 -u -m http.server 0 --bind 127.0.0.1 --directory _site > "$work/server.log" 2>&1 &
server_pid=$!
port=
for _ in $(seq 50); do
  port=$(grep -oE 'port [0-9]+' "$work/server.log" | head -n 1 | cut -d' ' -f2 || true)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "check-docs: the local server did not start" >&2; cat "$work/server.log" >&2; exit 1; }
base="http://127.0.0.1:$port/"

mkdir -p "$shots"
status=0
echo "== headless Chromium: ${#pages[@]} pages and the site search, served at $base; screenshots in $shots"
node scripts/docs-check/check.mjs "$base" "$shots" "$class_page" "${pages[@]}" || status=1

echo "== linkchecker: every internal link and anchor of the site"
cat > "$work/linkcheckerrc" <<CFG
[filtering]
# Links leaving the site (the RFCs, learn.microsoft.com) are not fetched: CI has no internet.
ignore=
  ^https?://(?!127\.0\.0\.1:$port/)
  ^mailto:
[AnchorCheck]
CFG
# Every page is a start URL: the navigation bar and the side navigation are built by scripts from
# toc.json, which linkchecker does not run, so not every page is reachable through static links
# alone. A missing page or file is an error; a missing anchor is a warning (AnchorCheck), and
# counts as a failure here too.
mapfile -t all < <(cd _site && find . -name '*.html' | sed 's|^\./||' | sort)
linkchecker --config="$work/linkcheckerrc" --no-status --recursion-level=1 --threads=4 \
  "${all[@]/#/$base}" > "$shots/linkchecker.txt" 2>&1 || true
summary=$(grep -E "links? in [0-9]+ URLs? checked" "$shots/linkchecker.txt" || true)
if [ -z "$summary" ] || ! grep -qE " 0 warnings found.* 0 errors found" <<<"$summary"; then
  grep -vE "^INFO|^WARNING linkcheck.check .*dropping privileges" "$shots/linkchecker.txt" | tail -n 60
  echo "check-docs: broken links or anchors (or linkchecker did not finish), see above" >&2
  status=1
else
  echo "linkchecker: ${#all[@]} pages as start URLs; $summary"
fi

[ $status -eq 0 ] && echo "check-docs: ok"
exit $status
