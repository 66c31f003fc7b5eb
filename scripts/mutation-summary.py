#!/usr/bin/env python3
"""Mutation score per folder and per file of Cryptography/, from a Stryker.NET JSON report.

    scripts/mutation-summary.py [StrykerOutput/<date>/reports/mutation-report.json] [--list]

Without a path, the newest report under StrykerOutput/. --list also prints every mutant that
survived, timed out or had no coverage, with its line, for the hand check docs/testing.md asks for.

Counts only the mutants the run tested (Killed, Timeout, Survived, NoCoverage); compile errors and
the ones a filter left out are not mutants of this run. The score is Stryker's: detected (killed
or timed out) over detected plus undetected (survived or no coverage). "killed %" leaves timeouts
out of the detected: a timeout is a loop that no longer ends or a test host that hung, and Stryker
cannot tell which.
"""
import collections
import glob
import json
import os
import sys

TESTED = ("Killed", "Timeout", "Survived", "NoCoverage")


def folder_of(path):
    relative = path.split("Cryptography/", 1)[-1]
    return relative.split("/", 1)[0] if "/" in relative else "(root)"


def row(name, counts):
    killed, timeout, survived, nocov = (counts[s] for s in TESTED)
    total = killed + timeout + survived + nocov
    if total == 0:
        return None
    score = 100.0 * (killed + timeout) / total
    killed_only = 100.0 * killed / total
    return f"| {name} | {total} | {killed} | {timeout} | {survived} | {nocov} | {score:.1f}% | {killed_only:.1f}% |"


def main(argv):
    listing = "--list" in argv
    paths = [a for a in argv if not a.startswith("--")]
    path = paths[0] if paths else (sorted(glob.glob("StrykerOutput/*/reports/mutation-report.json")) or [None])[-1]
    if path is None or not os.path.exists(path):
        sys.exit("no report: run scripts/mutation-test.sh first, or name its mutation-report.json")
    report = json.load(open(path, encoding="utf-8"))

    folders = collections.defaultdict(collections.Counter)
    files = {}
    for name, data in sorted(report["files"].items()):
        counts = collections.Counter(m["status"] for m in data["mutants"])
        if not any(counts[s] for s in TESTED):
            continue
        short = name.split("Cryptography/", 1)[-1]
        files[short] = (counts, data)
        folders[folder_of(name)].update({s: counts[s] for s in TESTED})

    header = "| {} | tested | killed | timeout | survived | no coverage | score | killed % |\n|---|---|---|---|---|---|---|---|"
    print(header.format("folder"))
    for folder in sorted(folders):
        print(row(f"`{folder}`", folders[folder]))
    print()
    print(header.format("file"))
    for short, (counts, _) in files.items():
        print(row(f"`{short}`", counts))

    if listing:
        print()
        for short, (_, data) in files.items():
            lines = data["source"].split("\n")
            for m in data["mutants"]:
                if m["status"] in ("Survived", "Timeout", "NoCoverage"):
                    line = m["location"]["start"]["line"]
                    print(f"{short}:{line} {m['status']} {m['mutatorName']}: {lines[line - 1].strip()[:100]} => {(m.get('replacement') or '')[:80]}")


if __name__ == "__main__":
    main(sys.argv[1:])
