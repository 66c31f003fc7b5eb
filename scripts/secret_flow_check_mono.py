#!/usr/bin/env python3
"""Reads memcheck's XML from `mono --jitmap ConstantTime.exe --secret-flow` (scripts/secret-flow-mono.sh)
and decides. The Mono build's counterpart of secret_flow_check.py: Mono's JIT writes its code to
anonymous memory, which valgrind cannot name, so each report's address is named from the map of
compiled methods that `mono --jitmap` writes (/tmp/perf-PID.map, PID being valgrind's, which runs mono
in its own process).

Every report is one of these:
  - the control's (SecretFlow:FirstNonZero: a branch; SecretFlow:Lookup: a secret index): both must be
    there, or the run could not have seen a leak;
  - decryption's branch on its result, in a GcmSiv.Decrypt instantiation. Whether a tag verified is
    public, so that branch is allowed. The JIT's code is gone when the check runs, so it cannot be read
    instruction by instruction as the Native AOT check does: what is allowed is one reporting
    instruction per instantiation. That branch is always there, so a second secret branch or index in
    the same method shows as a second address and fails;
  - anything else: a branch or an address that depends on a secret, in the library's code, Mono's, or
    the C library's (or another memcheck error). The check fails and prints it. Leak reports (memory
    still held at exit) are not this check's subject and are skipped.
Mono's JIT has no instruction whose time depends on its operands' values other than division, which
this check does not look for (the Native AOT check does, in the same C#).
"""
import bisect
import sys
import xml.etree.ElementTree as ET


def main(xml_path, map_path):
    methods = []
    with open(map_path) as f:
        for line in f:
            start, size, name = line.rstrip("\n").split(" ", 2)
            methods.append((int(start, 16), int(size, 16), name))
    methods.sort()
    starts = [m[0] for m in methods]

    def method(ip):
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and methods[i][0] <= ip < methods[i][0] + methods[i][1]:
            return methods[i][2]
        return None

    root = ET.parse(xml_path).getroot()
    counts = {int(p.findtext("unique"), 16): int(p.findtext("count")) for p in root.iter("pair")}
    control = set()
    decrypt = {}
    leaks = []
    for error in root.iter("error"):
        kind = error.findtext("kind")
        if kind.startswith("Leak_"):
            continue
        frames = []
        for f in error.find("stack").iter("frame"):
            ip = int(f.findtext("ip"), 16)
            frames.append((ip, method(ip) or f"{f.findtext('fn') or '?'} in {f.findtext('obj') or '?'}"))
        ip, name = frames[0]
        if name.startswith("ConstantTime.SecretFlow:FirstNonZero") and kind == "UninitCondition":
            control.add("branch")
        elif name.startswith("ConstantTime.SecretFlow:Lookup") and kind in ("UninitValue", "UninitCondition"):
            control.add("index" if kind == "UninitValue" else "bounds check")
        elif kind == "UninitCondition" and name.startswith("Cryptography.Internal.GcmSiv`2<") and ":Decrypt<" in name:
            # One report per call stack: the same branch reached from several callers adds up.
            sites = decrypt.setdefault(name, {})
            sites[ip] = sites.get(ip, 0) + counts.get(int(error.findtext("unique"), 16), 1)
        else:
            leaks.append((kind, frames))

    for name, sites in decrypt.items():
        if len(sites) > 1:
            leaks.append(("UninitCondition", [(ip, name) for ip in sorted(sites)]))
    for kind, frames in leaks:
        print(f"secret flow (Mono): LEAK? {kind} at")
        for ip, name in frames:
            print(f"    {ip:#x} {name[:200]}")
    if "branch" not in control or "index" not in control:
        print(f"secret flow (Mono): FAILED: the control was not fully reported (seen: {sorted(control)})")
        return 1
    for name, sites in sorted(decrypt.items()):
        if len(sites) == 1:
            short = name.replace("Cryptography.Internal.", "")
            print(f"allowed: decryption's branch on its result, {sum(sites.values())} times, in {short[:160]}")
    print(f"secret flow (Mono): control seen ({', '.join(sorted(control))}); {len(decrypt)} decrypt methods with one reporting branch; {len(leaks)} other reports")
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
