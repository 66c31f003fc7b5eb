#!/usr/bin/env bash
# Builds the documentation site into _site/ (git-ignored): the API reference of the public surface
# of Cryptography/ from its XML doc comments, plus the guides in docs/*.md, with Doxygen.
# Configuration: docs/doxygen/ (Doxyfile, DoxygenLayout.xml, filter.py). Doxygen warnings are
# errors (WARN_AS_ERROR = FAIL_ON_WARNINGS): a broken reference fails the build.
#
# Usage: scripts/build-docs.sh          (from anywhere; open _site/index.html)
#
# Needs doxygen (Debian: doxygen 1.9.4), doxygen-awesome-css (the theme) and python3 (the input
# filter). When one is missing and this runs as root, it installs them with apt-get and says so;
# otherwise it stops and names the command to run.
set -euo pipefail
cd "$(dirname "$0")/.."

theme=/usr/share/doxygen-awesome-css/doxygen-awesome.css
if ! command -v doxygen >/dev/null || [ ! -f "$theme" ] || ! command -v python3 >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "build-docs: installing doxygen, doxygen-awesome-css and python3 with apt-get" >&2
    apt-get install -y --no-install-recommends doxygen doxygen-awesome-css python3 >/dev/null \
      || { apt-get update >/dev/null && apt-get install -y --no-install-recommends doxygen doxygen-awesome-css python3 >/dev/null; }
  else
    echo "build-docs: needs doxygen, doxygen-awesome-css and python3: sudo apt-get install doxygen doxygen-awesome-css python3" >&2
    exit 1
  fi
fi

# Every guide must be on the site and in the DocFX table of contents, in both cases by name.
for md in docs/*.md; do
  name=$(basename "$md")
  grep -qE "^INPUT .*docs/$name( |$)" docs/doxygen/Doxyfile || { echo "build-docs: $md is not in INPUT of docs/doxygen/Doxyfile" >&2; exit 1; }
  grep -qE "href: $name$" docs/toc.yml || { echo "build-docs: $md is not in docs/toc.yml" >&2; exit 1; }
done

rm -rf _site
mkdir -p _site
# Doxygen prints only warnings (QUIET = YES); with FAIL_ON_WARNINGS it exits non-zero after any.
if ! doxygen docs/doxygen/Doxyfile; then
  echo "build-docs: doxygen reported warnings (treated as errors); see above" >&2
  exit 1
fi
echo "build-docs: site written to _site/ (start page: _site/index.html)"
