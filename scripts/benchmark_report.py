#!/usr/bin/python3
"""Pages and chart of the cross-platform benchmark reports (docs/reports/).

  benchmark_report.py platform docs/reports/<platform>
      reads that folder's results.csv and runtime.txt (written by scripts/benchmark-report.sh and
      the BenchmarkReport runner) and writes its index.md: the machine, runtime, backend, peers'
      versions and commit, then per operation and size every implementation's time, throughput
      and ratio to the best peer (the fastest implementation other than AesGcmSiv, same operation
      and size, same run);

  benchmark_report.py compare docs/reports
      reads every <platform>/results.csv there and writes index.md (the platforms side by side:
      AesGcmSiv's time over the best peer's, and which peer that was) and comparison.png (the
      same ratios, one bar per platform and size, per operation).

Any runner that writes results.csv with the columns
operation,size,implementation,ns_per_op,gb_per_s,min_ns,max_ns (the AesGcmSiv row's
implementation starting with "AesGcmSiv") and a runtime.txt of "key: value" lines into
docs/reports/<platform>/ joins the comparison: the browser runner is meant to write browser/.

Needs matplotlib (Debian's python3-matplotlib); run with /usr/bin/python3.
"""

import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only
import matplotlib.pyplot as plt  # noqa: E402

SHARED_NOTE = (
    "Measured on a shared 2-core virtual machine while other builds ran, with short runs: absolute "
    "times are noisy and not comparable between runs or platforms. Compare the ratios, each taken "
    "within one run (every implementation measured by the same process, minutes apart at most)."
)

# The order platforms appear in, where present; others follow alphabetically.
ORDER = ["x64-jit-vpclmulqdq", "x64-jit-pclmulqdq", "x64-jit-portable", "x64-aot", "x64-aot-native", "arm64-jit", "browser"]


def read_runtime(folder):
    info = {}
    path = os.path.join(folder, "runtime.txt")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            if ": " in line:
                key, value = line.rstrip("\n").split(": ", 1)
                info[key] = value
    return info


def read_results(folder):
    rows = []
    with open(os.path.join(folder, "results.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            row["size"] = int(row["size"])
            row["ns_per_op"] = float(row["ns_per_op"])
            rows.append(row)
    return rows


def is_ours(name):
    return name.startswith("AesGcmSiv")


def best_peers(rows):
    """(operation, size) -> (peer name, ns) of the fastest implementation other than AesGcmSiv."""
    best = {}
    for row in rows:
        if is_ours(row["implementation"]):
            continue
        key = (row["operation"], row["size"])
        if key not in best or row["ns_per_op"] < best[key][1]:
            best[key] = (row["implementation"], row["ns_per_op"])
    return best


def ours(rows):
    return {(r["operation"], r["size"]): r for r in rows if is_ours(r["implementation"])}


def fmt_size(size):
    if size >= 1024 and size % 1024 == 0:
        return f"{size // 1024} KiB"
    return f"{size} B"


def platform_page(folder):
    name = os.path.basename(os.path.normpath(folder))
    info = read_runtime(folder)
    rows = read_results(folder)
    best = best_peers(rows)
    lines = [f"# Benchmark report: {name}", ""]
    lines += [
        f"Written by `scripts/benchmark-report.sh {name}` at commit `{info.get('commit', '?')}` on "
        f"{info.get('date', '?')}. The [comparison](../index.md) puts it beside the other platforms.",
        "",
        f"> {SHARED_NOTE}",
        "",
        "| | |",
        "|---|---|",
    ]
    for key, label in [
        ("cpu", "CPU"),
        ("os_release", "OS"),
        ("os", "OS as .NET sees it"),
        ("runtime", "Runtime"),
        ("sdk", ".NET SDK"),
        ("knob", "Runtime knob"),
        ("aesgcmsiv_backend", "AesGcmSiv backend"),
        ("aesgcm", "AesGcm"),
        ("openssl", "OpenSSL (under AesGcm)"),
        ("boringssl", "BoringSSL"),
        ("boringssl_package", "BoringSSL package"),
        ("libsodium", "libsodium"),
        ("bouncycastle", "BouncyCastle"),
        ("peers", "Peers"),
        ("mode", "Run length"),
        ("commit", "Commit"),
    ]:
        if key in info:
            value = info[key].replace("|", "\\|")
            lines.append(f"| {label} | {value} |")
    lines += [
        "",
        "AES-256 keys, 12-byte nonces, no associated data. Each figure is the median of the run's "
        "samples (a Stopwatch over a batch of calls, "
        + ("the `/bench` page of `Browser/BrowserHost`, interleaved rounds" if name == "browser" else "`BenchmarkReport/Program.cs`")
        + "). *vs best peer* "
        "is the row's time over the fastest peer's time at the same operation and size in this run: "
        "below 1 is faster than every peer.",
        "",
    ]
    for operation in ["Encrypt", "Decrypt"]:
        op_rows = [r for r in rows if r["operation"] == operation]
        if not op_rows:
            continue
        lines += [f"## {operation}", "", "| size | implementation | ns/op | GB/s | vs best peer |", "|---:|---|---:|---:|---:|"]
        for size in sorted({r["size"] for r in op_rows}):
            for r in sorted((r for r in op_rows if r["size"] == size), key=lambda r: r["ns_per_op"]):
                ratio = r["ns_per_op"] / best[(operation, size)][1] if (operation, size) in best else float("nan")
                mark = "**" if is_ours(r["implementation"]) else ""
                lines.append(
                    f"| {fmt_size(size)} | {mark}{r['implementation']}{mark} | {r['ns_per_op']:.0f} | "
                    f"{size / r['ns_per_op']:.3f} | {ratio:.2f} |"
                )
        lines.append("")
    lines += ["Raw rows: [results.csv](results.csv); what the process saw: [runtime.txt](runtime.txt).", ""]
    with open(os.path.join(folder, "index.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def platforms(root):
    found = [d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "results.csv"))]
    return sorted(found, key=lambda d: (ORDER.index(d) if d in ORDER else len(ORDER), d))


def compare(root):
    names = platforms(root)
    data = {}
    for name in names:
        rows = read_results(os.path.join(root, name))
        best = best_peers(rows)
        data[name] = (read_runtime(os.path.join(root, name)), best, ours(rows))
    sizes = sorted({key[1] for _, (_, best, _) in data.items() for key in best})
    commits = sorted({info.get("commit", "?") for info, _, _ in data.values()})

    lines = ["# Benchmark reports by platform", ""]
    lines += [
        "One report per platform, each written by one command (`scripts/benchmark-report.sh PLATFORM`), "
        "with the machine, runtime, backend, peers' versions and commit on its page. Each cell is "
        "AesGcmSiv's time over the **best peer's** time (the fastest of .NET's `AesGcm`, BoringSSL's "
        "AES-GCM-SIV, libsodium's AES-256-GCM and BouncyCastle's `GcmSivBlockCipher` present on that "
        "platform; in the browser: BouncyCastle in the same app, @noble/ciphers' gcmsiv in JavaScript and "
        "WebCrypto's AES-GCM, the browser's native code for another algorithm) for the same operation "
        "and size in the same run, with that peer named: below 1, AesGcmSiv is faster than every peer there.",
        "",
        f"> {SHARED_NOTE}",
        "",
        "Reports committed from: " + ", ".join(f"`{c}`" for c in commits) + ".",
        "",
    ]
    # A peer whose version changed between reports (a system package upgraded between runs) is named,
    # since its ratios then compare different builds.
    for key, label in [("openssl", "OpenSSL (under AesGcm)"), ("boringssl_package", "BoringSSL"), ("libsodium", "libsodium"), ("bouncycastle", "BouncyCastle"), ("runtime", "runtime")]:
        versions = {}
        for name, (info, _, _) in data.items():
            if key in info:   # a peer a platform does not have (libsodium in the browser) is no difference
                versions.setdefault(info[key].replace(" (Native AOT)", "").replace(" (JIT)", ""), []).append(name)
        if len(versions) > 1:
            lines.append(f"{label} differs between reports: " + "; ".join(f"{v} in {', '.join(n)}" for v, n in versions.items()) + ".")
            lines.append("")
    lines += [
        "![AesGcmSiv's time over the best peer's, per platform](comparison.png)",
        "",
    ]
    for operation in ["Encrypt", "Decrypt"]:
        lines += [f"## {operation}", ""]
        lines.append("| platform | backend | " + " | ".join(fmt_size(s) for s in sizes) + " |")
        lines.append("|---|---|" + "---:|" * len(sizes))
        for name in names:
            info, best, our = data[name]
            cells = []
            for size in sizes:
                key = (operation, size)
                if key in best and key in our:
                    cells.append(f"{our[key]['ns_per_op'] / best[key][1]:.2f} ({best[key][0]})")
                else:
                    cells.append("")
            lines.append(f"| [{name}]({name}/index.md) | {info.get('aesgcmsiv_backend', '?')} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "## Platforms",
        "",
        "- **x64 JIT**, one report per backend: `x64-jit-vpclmulqdq` (no knob), `x64-jit-pclmulqdq` "
        "(`DOTNET_EnableAVX2=0`), `x64-jit-portable` (`DOTNET_EnableAES=0`, so BouncyCastle loses AES-NI "
        "too; the native peers keep it).",
        "- **x64 Native AOT**: `x64-aot`, the same runner published with `PublishAot=true` as an app is by "
        "default (code for the baseline x64 instruction sets, so the backend is the one its runtime "
        "check allows; the page names it), and `x64-aot-native`, published with `IlcInstructionSet=native` "
        "(code for this CPU).",
        "- **linux-arm64**: correctness only here, where it runs under qemu-user emulation (`.ci/arm64` runs "
        "the whole test suite); emulated times mean nothing. `scripts/benchmark-report.sh arm64-jit` on an "
        "ARM64 machine writes `arm64-jit/` in the same shape.",
        "- **Browser** (Chromium, Blazor WebAssembly): `scripts/benchmark-report.sh browser` runs the browser "
        "benchmark runner (`scripts/browser-benchmark.sh`, `Browser/`) and writes its AES-256 cells into "
        "`browser/` in the same columns; docs/blazor.md has the AES-128 cells and the per-step profile."
        + ("" if "browser" in names else " Not measured yet."),
        "",
        "Another machine: run `scripts/benchmark-report.sh x64` (or one platform) there; it writes the "
        "same pages, named after the platform, with that machine's CPU on them.",
        "",
    ]
    with open(os.path.join(root, "index.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    width = 0.8 / max(1, len(names))
    for ax, operation in zip(axes, ["Encrypt", "Decrypt"]):
        for i, name in enumerate(names):
            _, best, our = data[name]
            xs, ys = [], []
            for j, size in enumerate(sizes):
                key = (operation, size)
                if key in best and key in our:
                    xs.append(j + (i - (len(names) - 1) / 2) * width)
                    ys.append(our[key]["ns_per_op"] / best[key][1])
            ax.bar(xs, ys, width, label=name)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([fmt_size(s) for s in sizes])
        ax.set_title(f"{operation}, AES-256")
        ax.set_xlabel("message size")
        ax.set_yscale("log")
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0].set_ylabel("AesGcmSiv time / best peer's time (below 1: faster)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=max(1, len(names)), fontsize=8, frameon=False)
    fig.suptitle("AesGcmSiv against the best peer on each platform (shared 2-core machine; ratios within one run)", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(os.path.join(root, "comparison.png"), dpi=110)


def main(argv):
    if len(argv) == 3 and argv[1] == "platform":
        platform_page(argv[2])
    elif len(argv) == 3 and argv[1] == "compare":
        compare(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
