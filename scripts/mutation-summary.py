#!/usr/bin/env python3
"""Mutation score per folder and per file of Cryptography/, from Stryker.NET JSON reports.

    scripts/mutation-summary.py [report.json ...] [--list] [--undetected]

Without a path, the newest report under StrykerOutput/. --list also prints every mutant that
survived, timed out or had no coverage, with its line, for the hand check docs/testing.md asks for.

Counts only the mutants the run tested (Killed, Timeout, Survived, NoCoverage); compile errors and
the ones a filter left out are not mutants of this run. The score is Stryker's: detected (killed
or timed out) over detected plus undetected (survived or no coverage). "killed %" leaves timeouts
out of the detected: a timeout is a loop that no longer ends or a test host that hung, and Stryker
cannot tell which.

Staged runs. A mutant of the AES and POLYVAL code, or of the record layer, is covered by hundreds
of tests, and the slow ones make a whole-folder run test a few mutants a minute. So a folder runs
in stages (docs/testing.md, "Staged runs"): first with a fast subset of the tests, then again with
a larger subset over only the mutants the first left undetected. --undetected prints those
mutants as `--mutate` patterns with character spans (Stryker.NET's `<glob>{start..end}`), to pass
to scripts/mutation-test.sh. Given several reports, this script merges them in order: a mutant a
later report detected counts as detected (and one a report's tests covered stays "survived", not
"no coverage", when a later, smaller subset covers it no more). A test that fails in a subset fails
in the whole suite, so the merged score is what the suite would give, short of the tests no subset
ran; but Stryker counts a timeout as detected, and on a loaded machine an equivalent mutant can
time out (docs/testing.md, "The AES and POLYVAL files").
"""
import collections
import glob
import json
import os
import sys

TESTED = ("Killed", "Timeout", "Survived", "NoCoverage")
UNDETECTED = ("Survived", "NoCoverage")


def folder_of(short):
    return short.split("/", 1)[0] if "/" in short else "(root)"


def row(name, counts):
    killed, timeout, survived, nocov = (counts[s] for s in TESTED)
    total = killed + timeout + survived + nocov
    if total == 0:
        return None
    score = 100.0 * (killed + timeout) / total
    killed_only = 100.0 * killed / total
    return f"| {name} | {total} | {killed} | {timeout} | {survived} | {nocov} | {score:.1f}% | {killed_only:.1f}% |"


def key(m):
    """A mutant's identity across runs: its place, its mutator and what it puts there."""
    start, end = m["location"]["start"], m["location"]["end"]
    return (start["line"], start["column"], end["line"], end["column"], m["mutatorName"], m.get("replacement"))


def load(paths):
    """file -> (source, {key: mutant}), the first report's mutants with later reports' verdicts on the
    ones it left undetected."""
    files = {}
    for path in paths:
        report = json.load(open(path, encoding="utf-8"))
        for name, data in report["files"].items():
            short = name.split("Cryptography/", 1)[-1]
            source, mutants = files.get(short, ("", {}))
            # A report carries the source only of the files it mutated (the rest get a placeholder).
            if data["mutants"] and not mutants:
                source = data["source"]
            files[short] = (source, mutants)
            for m in data["mutants"]:
                k = key(m)
                if m["status"] not in TESTED:
                    continue
                # A later report's verdict replaces an undetected one, except that a mutant some
                # report's tests covered (survived) stays covered when a smaller subset reaches
                # none of its tests (no coverage).
                if k not in mutants or (mutants[k]["status"] in UNDETECTED
                                        and not (mutants[k]["status"] == "Survived" and m["status"] == "NoCoverage")):
                    mutants[k] = m
    return files


def spans(source, mutants):
    """Character spans (0-based, end exclusive, one character of slack each side) of these mutants."""
    starts = [0]
    for line in source.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    for m in mutants:
        start, end = m["location"]["start"], m["location"]["end"]
        yield (max(0, starts[start["line"] - 1] + start["column"] - 2), starts[end["line"] - 1] + end["column"])


def main(argv):
    listing = "--list" in argv
    undetected = "--undetected" in argv
    paths = [a for a in argv if not a.startswith("--")]
    if not paths:
        paths = sorted(glob.glob("StrykerOutput/*/reports/mutation-report.json"))[-1:]
    missing = [p for p in paths if not os.path.exists(p)]
    if not paths or missing:
        sys.exit("no report: run scripts/mutation-test.sh first, or name its mutation-report.json")
    files = {short: v for short, v in sorted(load(paths).items()) if v[1]}

    if undetected:
        for short, (source, mutants) in files.items():
            left = [m for m in mutants.values() if m["status"] in UNDETECTED]
            if left:
                print(short + "".join(f"{{{a}..{b}}}" for a, b in sorted(set(spans(source, left)))))
        return

    folders = collections.defaultdict(collections.Counter)
    counts = {}
    for short, (_, mutants) in files.items():
        counts[short] = collections.Counter(m["status"] for m in mutants.values())
        folders[folder_of(short)].update(counts[short])

    header = "| {} | tested | killed | timeout | survived | no coverage | score | killed % |\n|---|---|---|---|---|---|---|---|"
    print(header.format("folder"))
    for folder in sorted(folders):
        print(row(f"`{folder}`", folders[folder]))
    print()
    print(header.format("file"))
    for short in files:
        print(row(f"`{short}`", counts[short]))

    if listing:
        print()
        for short, (source, mutants) in files.items():
            lines = source.split("\n")
            for m in sorted(mutants.values(), key=key):
                if m["status"] in ("Survived", "Timeout", "NoCoverage"):
                    line = m["location"]["start"]["line"]
                    print(f"{short}:{line} {m['status']} {m['mutatorName']}: {lines[line - 1].strip()[:100]} => {(m.get('replacement') or '')[:80]}")


if __name__ == "__main__":
    main(sys.argv[1:])
