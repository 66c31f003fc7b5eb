#!/usr/bin/python3
"""Pages and chart of the cross-platform benchmark reports (docs/reports/).

  benchmark_report.py platform docs/reports/<platform>
      reads that folder's results.csv and runtime.txt (written by scripts/benchmark-report.sh and
      the BenchmarkReport runner) and writes its index.md: the machine, runtime, backend, peers'
      versions and commit, then per operation and size every implementation's algorithm, time,
      throughput and ratio to the fastest other AES-GCM-SIV there (BoringSSL on x64; BouncyCastle
      and @noble/ciphers in the browser, BouncyCastle under Mono), same operation and size, same run;
      implementations of another algorithm (AES-GCM: .NET's AesGcm, libsodium, WebCrypto) are context,
      labelled so; a results-aes128.csv beside it (the Mono runner's) adds AES-128 tables to the page;

  benchmark_report.py compare docs/reports
      reads every <platform>/results.csv there and writes index.md (the platforms side by side, each
      with its CPU: AesGcmSiv's time over the fastest other AES-GCM-SIV's, and which that was; then,
      as context, over the fastest AES-GCM's) and comparison.png (the same-algorithm ratios, one bar
      per platform and size, per operation).

Any runner that writes results.csv with the columns
operation,size,implementation,ns_per_op,gb_per_s,min_ns,max_ns (the AesGcmSiv row's
implementation starting with "AesGcmSiv") and a runtime.txt of "key: value" lines into
docs/reports/<platform>/ joins the comparison: the browser runner is meant to write browser/.

Needs matplotlib (Debian's python3-matplotlib); run with /usr/bin/python3.
"""

import csv
import os
import re
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
ORDER = ["x64-jit-vpclmulqdq", "x64-jit-pclmulqdq", "x64-jit-portable", "x64-aot", "x64-aot-native", "arm64-jit", "browser", "x64-mono"]

# Where each runner's figures come from, for the page's note on method (BenchmarkReport/ unless named).
RUNNERS = {
    "browser": "a Stopwatch over a batch of calls, the `/bench` page of `Browser/BrowserHost`, interleaved rounds",
    "x64-mono": "the thread's CPU time over a batch of calls, `MonoBenchmark/Program.cs` under Mono, since "
                "BenchmarkDotNet's Mono toolchain does not run here",
}


def read_runtime(folder):
    info = {}
    path = os.path.join(folder, "runtime.txt")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            if ": " in line:
                key, value = line.rstrip("\n").split(": ", 1)
                info[key] = value
    return info


def read_results(folder, file="results.csv"):
    rows = []
    with open(os.path.join(folder, file), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            row["size"] = int(row["size"])
            row["ns_per_op"] = float(row["ns_per_op"])
            rows.append(row)
    return rows


def is_ours(name):
    return name.startswith("AesGcmSiv")


# The question a user asks first: is this the fastest AES-GCM-SIV on my platform? So the ratio that
# leads is to the other AES-GCM-SIV implementations; AES-GCM (a different AEAD, without nonce-misuse
# resistance) is context, never "the best peer".
SAME_ALGORITHM = "AES-GCM-SIV"
ALGORITHMS = {
    "BoringSSL": SAME_ALGORITHM,
    "BouncyCastle": SAME_ALGORITHM,
    "@noble/ciphers": SAME_ALGORITHM,
    "AesGcm": "AES-GCM",
    "libsodium": "AES-GCM",
    "WebCrypto AES-GCM": "AES-GCM",
}


def algorithm(name):
    if is_ours(name):
        return SAME_ALGORITHM
    return ALGORITHMS.get(name, "another algorithm")


def best_peers(rows, same_algorithm=True):
    """(operation, size) -> (peer name, ns) of the fastest implementation other than AesGcmSiv:
    of AES-GCM-SIV (same_algorithm) or of the other algorithms."""
    best = {}
    for row in rows:
        name = row["implementation"]
        if is_ours(name) or (algorithm(name) == SAME_ALGORITHM) != same_algorithm:
            continue
        key = (row["operation"], row["size"])
        if key not in best or row["ns_per_op"] < best[key][1]:
            best[key] = (name, row["ns_per_op"])
    return best


def short_cpu(info):
    """The CPU's name and family/model, without the ISA flags: what a reader compares with theirs."""
    cpu = info.get("cpu", "CPU not recorded").split(";")[0]
    return re.sub(r", stepping [^)]*", "", cpu).strip()


def ours(rows, info=None):
    """(operation, size) -> AesGcmSiv's row: the backend the runtime chose (info's aesgcmsiv_backend)
    where a run also measured another (a browser run given impl=AesGcmSiv/<backend>), else the fastest."""
    chosen = f"AesGcmSiv ({info['aesgcmsiv_backend']})" if info and "aesgcmsiv_backend" in info else None
    result = {}
    for r in rows:
        if not is_ours(r["implementation"]):
            continue
        key = (r["operation"], r["size"])
        if r["implementation"] == chosen or key not in result or (
                result[key]["implementation"] != chosen and r["ns_per_op"] < result[key]["ns_per_op"]):
            result[key] = r
    return result


def fmt_size(size):
    if size >= 1024 and size % 1024 == 0:
        return f"{size // 1024} KiB"
    return f"{size} B"


def tables(rows, best, other, suffix):
    """Per operation, every implementation's row at each size, same algorithm first, fastest first."""
    lines = []
    for operation in ["Encrypt", "Decrypt"]:
        op_rows = [r for r in rows if r["operation"] == operation]
        if not op_rows:
            continue
        lines += [
            f"## {operation}{suffix}",
            "",
            "| size | implementation | algorithm | ns/op | GB/s | vs fastest AES-GCM-SIV | vs fastest AES-GCM |",
            "|---:|---|---|---:|---:|---:|---:|",
        ]
        for size in sorted({r["size"] for r in op_rows}):
            # Same-algorithm rows first, fastest first; then the other algorithms.
            ordered = sorted(
                (r for r in op_rows if r["size"] == size),
                key=lambda r: (algorithm(r["implementation"]) != SAME_ALGORITHM, r["ns_per_op"]))
            for r in ordered:
                key = (operation, size)
                ratio = f"{r['ns_per_op'] / best[key][1]:.2f}" if key in best else ""
                context = f"{r['ns_per_op'] / other[key][1]:.2f}" if key in other else ""
                mark = "**" if is_ours(r["implementation"]) else ""
                kind = algorithm(r["implementation"])
                kind = kind if kind == SAME_ALGORITHM else f"{kind} (another algorithm)"
                lines.append(
                    f"| {fmt_size(size)} | {mark}{r['implementation']}{mark} | {kind} | {r['ns_per_op']:.0f} | "
                    f"{size / r['ns_per_op']:.3f} | {ratio} | {context} |"
                )
        lines.append("")
    return lines


def platform_page(folder):
    name = os.path.basename(os.path.normpath(folder))
    info = read_runtime(folder)
    rows = read_results(folder)
    aes128 = read_results(folder, "results-aes128.csv") if os.path.exists(os.path.join(folder, "results-aes128.csv")) else None
    best = best_peers(rows)
    other = best_peers(rows, same_algorithm=False)
    our = ours(rows, info)
    lines = [f"# Benchmark report: {name}", ""]
    lines += [
        f"Written by `scripts/benchmark-report.sh {info.get('platform', name)}` at commit `{info.get('commit', '?')}` on "
        f"{info.get('date', '?')}. The [comparison](../index.md) puts it beside the other platforms.",
        "",
        f"> {SHARED_NOTE}",
        "",
    ]
    # The answer first: AesGcmSiv over the fastest other AES-GCM-SIV, per operation and size.
    answer = []
    for operation in ["Encrypt", "Decrypt"]:
        cells = []
        for size in sorted({r["size"] for r in rows if r["operation"] == operation}):
            key = (operation, size)
            if key in best and key in our:
                cells.append(f"{fmt_size(size)} {our[key]['ns_per_op'] / best[key][1]:.2f} ({best[key][0]})")
        if cells:
            answer.append(f"- {operation}: " + ", ".join(cells))
    lines += [
        f"**Is AesGcmSiv the fastest AES-GCM-SIV here?** On {short_cpu(info)}, AesGcmSiv's time over the "
        "fastest other AES-GCM-SIV implementation's, same operation and size, this run (below 1: faster):",
        "",
    ]
    lines += answer if answer else ["- no other AES-GCM-SIV implementation ran here"]
    lines += [
        "",
        "These ratios hold for this CPU: instruction costs differ by vendor and generation "
        "(docs/benchmarks.md), so another machine needs its own report.",
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
        ("mono_package", "Mono package"),
        ("library", "Library build"),
        ("clock", "Clock"),
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
        "AES-256 keys" + (" (AES-128 in the last tables)" if aes128 else "") + ", 12-byte nonces, no associated data. "
        "Each figure is the median of the run's samples ("
        + RUNNERS.get(base_platform(name), "a Stopwatch over a batch of calls, `BenchmarkReport/Program.cs`")
        + "). *vs fastest AES-GCM-SIV* is the row's time over the fastest AES-GCM-SIV implementation "
        "other than AesGcmSiv at the same operation and size in this run (below 1: faster). Rows of "
        "AES-GCM are another algorithm (no nonce-misuse resistance), there as context: *vs fastest "
        "AES-GCM* compares with the fastest of them.",
        "",
    ]
    lines += tables(rows, best, other, "")
    if aes128:
        lines += tables(aes128, best_peers(aes128), best_peers(aes128, same_algorithm=False), ", AES-128")
    raw = "[results.csv](results.csv)" + (" and [results-aes128.csv](results-aes128.csv)" if aes128 else "")
    lines += [f"Raw rows: {raw}; what the process saw: [runtime.txt](runtime.txt).", ""]
    with open(os.path.join(folder, "index.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def base_platform(name):
    """The platform a report folder measures: x64-mono for x64-mono-intel."""
    matches = [p for p in ORDER if name == p or name.startswith(p + "-")]
    return max(matches, key=len) if matches else name


def platforms(root):
    """Report folders in ORDER; a folder from another vendor's CPU (x64-jit-vpclmulqdq-intel, written by
    benchmark-report.sh on that machine) right after its AMD counterpart."""
    found = [d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "results.csv"))]

    def rank(d):
        base = base_platform(d)
        return (ORDER.index(base) if base in ORDER else len(ORDER), d)

    return sorted(found, key=rank)


def compare(root):
    names = platforms(root)
    data = {}
    for name in names:
        rows = read_results(os.path.join(root, name))
        info = read_runtime(os.path.join(root, name))
        data[name] = (info, best_peers(rows), ours(rows, info), best_peers(rows, same_algorithm=False))
    sizes = sorted({key[1] for _, (_, best, _, other) in data.items() for key in list(best) + list(other)})
    commits = sorted({info.get("commit", "?") for info, _, _, _ in data.values()})
    cpus = sorted({short_cpu(info) for info, _, _, _ in data.values()})

    lines = ["# Benchmark reports by platform", ""]
    lines += [
        "One report per platform, each written by one command (`scripts/benchmark-report.sh PLATFORM`), "
        "with the machine, runtime, backend, peers' versions and commit on its page.",
        "",
        "**Is AesGcmSiv the fastest AES-GCM-SIV on this platform?** The first two tables answer that: "
        "each cell is AesGcmSiv's time over the fastest **other AES-GCM-SIV** implementation's (BoringSSL's, "
        "Gueron's assembly, and BouncyCastle's `GcmSivBlockCipher` on x64; BouncyCastle in the same app and "
        "@noble/ciphers' gcmsiv in JavaScript in the browser; BouncyCastle in the same process under Mono) "
        "for the same operation and size in the same "
        "run, with that implementation named: below 1, AesGcmSiv is the faster AES-GCM-SIV there. The last "
        "two tables are context: the same over the fastest **AES-GCM** (another algorithm, without "
        "nonce-misuse resistance: .NET's `AesGcm` over OpenSSL, libsodium, WebCrypto in the browser).",
        "",
        "**Measured on " + "; ".join(cpus) + " only.** Instruction costs differ between CPU vendors and "
        "generations (AESKEYGENASSIST and lock-prefixed instructions cost several times more on Intel "
        "cores than on AMD Zen, for example), so these ratios are this machine's, not every machine's. "
        "Each platform's CPU is named below and on its page; `scripts/benchmark-report.sh x64` on another "
        "machine writes its own.",
        "",
        f"> {SHARED_NOTE}",
        "",
        "Reports committed from: " + ", ".join(f"`{c}`" for c in commits) + ".",
        "",
    ]
    # A report names the backend of its commit; until issue 48 the browser and Mono ran PortableFlat,
    # the fixsliced AES that Portable runs now: say so, so that the column reads true later.
    if any(info.get("aesgcmsiv_backend") == "PortableFlat" for info, _, _, _ in data.values()):
        lines += [
            "The backend column names each report's backend at its commit: `PortableFlat` (until issue 48) "
            "is the fixsliced AES that `Portable` runs now.",
            "",
        ]
    # A peer whose version changed between reports (a system package upgraded between runs) is named,
    # since its ratios then compare different builds.
    for key, label in [("openssl", "OpenSSL (under AesGcm)"), ("boringssl_package", "BoringSSL"), ("libsodium", "libsodium"), ("bouncycastle", "BouncyCastle"), ("runtime", "runtime")]:
        versions = {}
        for name, (info, _, _, _) in data.items():
            if key in info:   # a peer a platform does not have (libsodium in the browser) is no difference
                versions.setdefault(info[key].replace(" (Native AOT)", "").replace(" (JIT)", ""), []).append(name)
        if len(versions) > 1:
            lines.append(f"{label} differs between reports: " + "; ".join(f"{v} in {', '.join(n)}" for v, n in versions.items()) + ".")
            lines.append("")
    lines += [
        "![AesGcmSiv's time over the fastest other AES-GCM-SIV's, per platform](comparison.png)",
        "",
    ]
    for index, title in [(1, "against the fastest other AES-GCM-SIV"), (3, "context: against the fastest AES-GCM (another algorithm)")]:
        for operation in ["Encrypt", "Decrypt"]:
            lines += [f"## {operation}, {title}", ""]
            lines.append("| platform | CPU | backend | " + " | ".join(fmt_size(s) for s in sizes) + " |")
            lines.append("|---|---|---|" + "---:|" * len(sizes))
            for name in names:
                info, our = data[name][0], data[name][2]
                peers = data[name][index]
                cells = []
                for size in sizes:
                    key = (operation, size)
                    if key in peers and key in our:
                        cells.append(f"{our[key]['ns_per_op'] / peers[key][1]:.2f} ({peers[key][0]})")
                    else:
                        cells.append("")
                lines.append(
                    f"| [{name}]({name}/index.md) | {short_cpu(info)} | {info.get('aesgcmsiv_backend', '?')} | "
                    + " | ".join(cells) + " |")
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
        "- **Mono** (x64, Debian's Mono 6.8): `scripts/benchmark-report.sh x64-mono` runs the library's "
        "netstandard2.0 build in a net472 app (`MonoBenchmark/`, timed in the thread's CPU time, since "
        "BenchmarkDotNet's Mono toolchain does not run here) against BouncyCastle in the same process, and "
        "writes `x64-mono/`; its page has AES-128 too. That build has the software backends only "
        "(docs/platforms.md). Its AES-GCM cells are empty: Mono's `AesGcm` throws `PlatformNotSupportedException`." + ("" if "x64-mono" in names else " Not measured yet."),
        "",
        "Another machine: run `scripts/benchmark-report.sh x64` (or one platform) there; it writes the "
        "same pages, named after the platform, with that machine's CPU on them. On a CPU that is not "
        "AMD's the folders get the vendor as a suffix (`x64-jit-vpclmulqdq-intel`), so an Intel report "
        "sits beside the AMD one rather than replacing it.",
        "",
    ]
    with open(os.path.join(root, "index.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    width = 0.8 / max(1, len(names))
    for ax, operation in zip(axes, ["Encrypt", "Decrypt"]):
        for i, name in enumerate(names):
            _, best, our, _ = data[name]
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
    axes[0].set_ylabel("time / fastest other AES-GCM-SIV's")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=max(1, len(names)), fontsize=8, frameon=False)
    fig.suptitle("AesGcmSiv against the fastest other AES-GCM-SIV on each platform, on " + "; ".join(cpus)
                 + "\n(shared 2-core machine; ratios within one run; another CPU gives other ratios)", fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 0.95))
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
