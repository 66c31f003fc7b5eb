#!/usr/bin/env python3
"""Reads memcheck's XML from `ConstantTime --secret-flow` (scripts/secret-flow.sh) and decides.

Every report is one of these:
  - the control's (SecretFlow.FirstNonZero: a branch; SecretFlow.Lookup: a secret index): both must
    be there, or the run could not have seen a leak;
  - decryption's branch on its result: a conditional jump in a GcmSiv.Decrypt instantiation whose
    instruction before it tests the value TagComparison.Equal16 just returned. Whether a tag verified
    is public, so this one branch is allowed; it is checked against the machine code, instruction by
    instruction, so that no other branch in the same function can pass as it;
  - reports made while the runtime binds the marking functions (SecretFlow.Run binds all three before
    it marks a secret): its library search scans native strings past their end; skipped;
  - anything else: a branch or an address that depends on a secret (or another memcheck error, such
    as an invalid read). The check fails and prints it. Leak reports (memory still held at exit) are
    not this check's subject and are skipped.
"""
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def symbols(binary):
    table = {}
    for line in subprocess.run(["nm", "-C", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tT":
            table.setdefault(parts[2], int(parts[0], 16))
    return table


def instructions(binary, start, stop):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={start:#x}", f"--stop-address={stop:#x}", binary],
                         capture_output=True, text=True, check=True).stdout
    result = []
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m:
            result.append((int(m.group(1), 16), m.group(2).strip()))
    return result


def main(xml_path, binary):
    root = ET.parse(xml_path).getroot()
    errors = []
    for error in root.iter("error"):
        frames = [(int(f.findtext("ip"), 16), f.findtext("fn") or "?") for f in error.find("stack").iter("frame")]
        errors.append((error.findtext("kind"), int(error.findtext("unique"), 16), frames))
    # Each report's count of occurrences.
    counts = {}
    for pair in root.iter("pair"):
        counts[int(pair.findtext("unique"), 16)] = int(pair.findtext("count"))

    table = symbols(binary)
    lookup = next((ip for kind, _, frames in errors for ip, fn in frames[:1] if fn.endswith("SecretFlow__Lookup")), None)
    if lookup is None:
        print("secret flow: FAILED: the control's secret index was not reported, so nothing this run saw can be trusted")
        return 1
    # Valgrind loads a position-independent program at a page-aligned base; Lookup is a few bytes long.
    base = (lookup - table["ConstantTime_ConstantTime_SecretFlow__Lookup"]) & ~0xFFF

    control = set()
    binding = 0
    allowed = {}
    leaks = []
    for kind, unique, frames in errors:
        ip, fn = frames[0]
        if kind.startswith("Leak_"):
            continue  # memory the runtime's threads hold at exit: not this check's subject
        if any(f.endswith("InteropHelpers__ResolvePInvokeSlow") for _, f in frames):
            # Binding the marking functions, which SecretFlow.Run does before it marks anything: the
            # runtime's library search reads past the end of native strings (vector loads).
            binding += 1
            continue
        if fn.endswith("SecretFlow__FirstNonZero") and kind == "UninitCondition":
            control.add("branch")
        elif fn.endswith("SecretFlow__Lookup") and kind in ("UninitValue", "UninitCondition"):
            control.add("index" if kind == "UninitValue" else "bounds check")
        elif kind == "UninitCondition" and "_GcmSiv_2<" in fn and "__Decrypt<" in fn and result_branch(binary, ip - base):
            allowed[fn] = allowed.get(fn, 0) + counts.get(unique, 1)
        else:
            leaks.append((kind, frames))

    for kind, frames in leaks:
        print(f"secret flow: LEAK? {kind} at")
        for ip, fn in frames:
            print(f"    {ip - base:#x} {fn[:160]}")
    if "branch" not in control or "index" not in control:
        print(f"secret flow: FAILED: the control was not fully reported (seen: {sorted(control)})")
        return 1
    for fn, count in sorted(allowed.items()):
        name = re.sub(r"Cryptography_AesGcmSiv_Cryptography_Internal_", "", fn)
        print(f"allowed: decryption's branch on its result, {count} times, in {name[:140]}")
    # Memcheck does not flag instructions whose time depends on their operands; on x64 that is division.
    divisions = divisions_in(binary)
    for fn, line in divisions:
        print(f"secret flow: DIVISION in {fn[:120]}: {line}")
    print(f"secret flow: control seen ({', '.join(sorted(control))}); {len(allowed)} decrypt functions with only their result branch; {len(leaks)} other reports"
          + (f" ({binding} in the runtime's binding of the marking functions, skipped)" if binding else ""))
    return 1 if leaks or divisions else 0


def divisions_in(binary):
    """Division instructions (variable latency) in the library's internal code for x64; AesArm64's
    key expansion divides public loop indices and never runs on x64."""
    found = []
    fn = None
    for line in subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        m = re.match(r"[0-9a-f]+ <(.*)>:$", line)
        if m:
            fn = m.group(1)
        elif fn and fn.startswith("Cryptography_AesGcmSiv_Cryptography_Internal_") and "Arm64" not in fn and re.search(r"\t(i?div)\s", line):
            found.append((fn, line.strip()))
    return found


def result_branch(binary, address):
    """Whether the instruction at `address` is a conditional jump on the value TagComparison.Equal16 returned."""
    window = instructions(binary, address - 24, address + 8)
    at = [i for i, (a, _) in enumerate(window) if a == address]
    if not at or at[0] < 2:
        return False
    i = at[0]
    jump, test, call = window[i][1], window[i - 1][1], window[i - 2][1]
    return (re.match(r"j(e|ne|z|nz)\s", jump) is not None
            and re.match(r"test\s+%(eax|al),%(eax|al)$", test) is not None
            and call.startswith("call") and call.endswith("TagComparison__Equal16>"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
