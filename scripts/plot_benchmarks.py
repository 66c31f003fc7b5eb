#!/usr/bin/python3
"""Charts and markdown tables from the BenchmarkDotNet suite's CSV reports.

Reads the *-report.csv files that `dotnet run -c Release --project Benchmarks -- ...` writes to
BenchmarkDotNet.Artifacts/results/ (Benchmarks/BenchmarkConfig.cs makes their numbers unit-free:
times in ns, memory in bytes) and

  * draws throughput (GB/s, log scale) against message size, one panel per operation and key
    size, plus a POLYVAL-vs-GHASH panel and a random-vs-fixed nonce panel, to a PNG;
  * writes markdown tables for docs/benchmarks.md: the machine (BenchmarkDotNet's environment
    block and the git commit), then per operation and key size one row per implementation and
    size with its mean time, throughput, ratio to the baseline (mean over the baseline's mean:
    AesGcm at the same size and key size; the GHASH proxy for POLYVAL; the fixed nonce for the
    nonce benchmark), allocations, and cycles per byte when --ghz gives the clock.

Needs matplotlib: Debian's python3-matplotlib (`apt-get install -y python3-matplotlib`), run with
/usr/bin/python3. Examples (from the repository root; scripts/README.md has the whole workflow):

  /usr/bin/python3 scripts/plot_benchmarks.py
  /usr/bin/python3 scripts/plot_benchmarks.py --results /tmp/bench/results \
      --chart /tmp/bench/benchmarks.png --markdown /tmp/bench/benchmarks.md --ghz 2.45
"""

import argparse
import csv
import glob
import os
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

OPERATIONS = ["Encrypt", "Decrypt", "Authenticate", "Verify"]
OPERATION_NOTES = {
    "Encrypt": "encryption of the message, no associated data",
    "Decrypt": "decryption and tag check of the message, no associated data",
    "Authenticate": "empty plaintext, the message as associated data (a MAC)",
    "Verify": "the decryption of Authenticate's output: the tag over the message checked",
    "Polyval": "POLYVAL alone (Init with a fresh H + Update) against a GHASH proxy: AesGcm.Encrypt "
               "with empty plaintext and the data as associated data, i.e. OpenSSL's GHASH plus one "
               "AES block and the call overhead (AES-128 key)",
    "Nonce": "AesGcmSiv encryption on the active backend with a fresh RandomNumberGenerator nonce "
             "per call, against a fixed nonce",
}
# The [Benchmark(Baseline = true)] method of each class (by its displayed name); AesGcm otherwise.
BASELINES = {"Polyval": "GHASH proxy (AesGcm AAD only)", "Nonce": "FixedNonce"}
# Fixed colours and order, so every panel and every chart reads the same way.
IMPLEMENTATIONS = [
    "AesGcm", "BoringSsl", "ChaCha20Poly1305", "Libsodium", "BouncyCastle",
    "AesGcmSiv_AesNiVpclmulqdq", "AesGcmSiv_AesNiPclmulqdq", "AesGcmSiv_Arm64",
    "AesGcmSiv_BitslicedVector", "AesGcmSiv_Portable", "GHASH proxy (AesGcm AAD only)", "Polyval_Vpclmulqdq", "Polyval_Pclmulqdq", "Polyval_Pmull",
    "Polyval_Portable", "FixedNonce", "RandomNonce",
]
COLOURS = {
    "AesGcm": "black", "BoringSsl": "tab:green", "ChaCha20Poly1305": "tab:gray", "Libsodium": "tab:brown",
    "BouncyCastle": "tab:pink", "AesGcmSiv_AesNiVpclmulqdq": "tab:red",
    "AesGcmSiv_AesNiPclmulqdq": "tab:orange", "AesGcmSiv_Arm64": "tab:purple",
    "AesGcmSiv_BitslicedVector": "tab:cyan", "AesGcmSiv_Portable": "tab:blue", "GHASH proxy (AesGcm AAD only)": "black",
    "Polyval_Vpclmulqdq": "tab:red", "Polyval_Pclmulqdq": "tab:orange", "Polyval_Pmull": "tab:purple",
    "Polyval_Portable": "tab:blue", "FixedNonce": "black", "RandomNonce": "tab:green",
}


def number(text):
    """A CSV cell as a float ("1,234.5" -> 1234.5); None for NA, '-', '?' or empty."""
    text = (text or "").strip().replace(",", "")
    if text in ("", "NA", "-", "?", "N/A"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def read_reports(results):
    """Rows of every *-report.csv under `results`, as dicts with the fields the outputs need."""
    rows = []
    paths = sorted(glob.glob(os.path.join(results, "*-report.csv")))
    if not paths:
        sys.exit(f"no *-report.csv in {results}: run the benchmarks first (scripts/README.md)")
    for path in paths:
        # "Benchmarks.EncryptBenchmarks-report.csv" -> "Encrypt"
        benchmark_class = os.path.basename(path).split("-report")[0].split(".")[-1]
        operation = benchmark_class.removesuffix("Benchmarks")
        if operation == "MessageCost":
            continue  # a breakdown of one message, not throughput: docs/benchmarks.md has its table
        with open(path, newline="", encoding="utf-8") as handle:
            for record in csv.DictReader(handle):
                mean = number(record.get("Mean [ns]"))
                size = number(record.get("Size"))
                if size is None:
                    continue
                key_size = number(record.get("KeySize"))
                rows.append({
                    "operation": operation,
                    # A Description shows quoted: "'GHASH proxy (AesGcm AAD only)'".
                    "implementation": record["Method"].strip("'"),
                    "size": int(size),
                    "key_bits": int(key_size) * 8 if key_size is not None else None,
                    "mean_ns": mean,
                    "stddev_ns": number(record.get("StdDev [ns]")),
                    "ratio": number(record.get("Ratio")),
                    "allocated": number(record.get("Allocated [B]")),
                    "job": record.get("Job", ""),
                })
    add_ratios(rows)
    return rows


def add_ratios(rows):
    """ratio = mean / the baseline's mean in the same class, size and key size, so that the
    baseline is exactly 1.00; BenchmarkDotNet's own Ratio (a mean of per-iteration ratios) is kept
    only where the baseline row is missing."""
    means = {(r["operation"], r["key_bits"], r["size"]): r["mean_ns"] for r in rows
             if r["implementation"] == BASELINES.get(r["operation"], "AesGcm")}
    boring = {(r["operation"], r["key_bits"], r["size"]): r["mean_ns"] for r in rows
              if r["implementation"] == "BoringSsl"}
    for r in rows:
        baseline = means.get((r["operation"], r["key_bits"], r["size"]))
        if r["mean_ns"] and baseline:
            r["ratio"] = r["mean_ns"] / baseline
        reference = boring.get((r["operation"], r["key_bits"], r["size"]))
        r["vs_boringssl"] = r["mean_ns"] / reference if r["mean_ns"] and reference else None


def order(implementation):
    return IMPLEMENTATIONS.index(implementation) if implementation in IMPLEMENTATIONS else len(IMPLEMENTATIONS)


def panels(rows):
    """(title, operation, key_bits) for each panel that has data, in reading order."""
    found = []
    for operation in OPERATIONS:
        for key_bits in (128, 256):
            if any(r["operation"] == operation and r["key_bits"] == key_bits for r in rows):
                found.append((f"{operation}, AES-{key_bits}", operation, key_bits))
    if any(r["operation"] == "Polyval" for r in rows):
        found.append(("POLYVAL vs GHASH proxy", "Polyval", None))
    if any(r["operation"] == "Nonce" for r in rows):
        found.append(("Random vs fixed nonce", "Nonce", None))
    return found


def panel_rows(rows, operation, key_bits):
    """The rows of one panel; key_bits None takes every key size (POLYVAL has none, the nonce
    panel shows both)."""
    return [r for r in rows if r["operation"] == operation and (key_bits is None or r["key_bits"] == key_bits)]


def series_name(row, key_sizes):
    name = row["implementation"].replace("AesGcmSiv_", "AesGcmSiv-").replace("Polyval_", "POLYVAL-")
    return f"{name}, AES-{row['key_bits']}" if len(key_sizes) > 1 else name


def plot(rows, chart, title):
    selected = panels(rows)
    columns = 2
    lines = (len(selected) + columns - 1) // columns
    figure, axes = plt.subplots(lines, columns, figsize=(12, 3.6 * lines), squeeze=False, layout="constrained")
    for index, (panel_title, operation, key_bits) in enumerate(selected):
        axis = axes[index // columns][index % columns]
        data = [r for r in panel_rows(rows, operation, key_bits) if r["mean_ns"]]
        key_sizes = sorted({r["key_bits"] for r in data if r["key_bits"]})
        series = sorted({(order(r["implementation"]), r["implementation"], r["key_bits"] or 0) for r in data})
        for _, implementation, bits in series:
            points = sorted((r["size"], r["size"] / r["mean_ns"]) for r in data
                            if r["implementation"] == implementation and (r["key_bits"] or 0) == bits)
            sample = next(r for r in data if r["implementation"] == implementation and (r["key_bits"] or 0) == bits)
            axis.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3,
                      label=series_name(sample, key_sizes), color=COLOURS.get(implementation),
                      linestyle="--" if len(key_sizes) > 1 and bits == key_sizes[0] else "-")
        axis.set_title(panel_title, fontsize=10)
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        sizes = sorted({r["size"] for r in data})
        # A label closer than half an octave to the previous one (1 KiB and 1350) goes one line lower.
        labels = [("\n" if i and sizes[i] < sizes[i - 1] * 1.5 else "") + size_label(size) for i, size in enumerate(sizes)]
        axis.set_xticks(sizes, labels)
        axis.xaxis.set_minor_formatter(NullFormatter())
        axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        axis.set_xlabel("message bytes", fontsize=8)
        axis.set_ylabel("GB/s (higher is faster)", fontsize=8)
        axis.tick_params(labelsize=7)
        axis.grid(True, which="both", linewidth=0.3)
        axis.legend(fontsize=6, loc="best")
    for index in range(len(selected), lines * columns):
        axes[index // columns][index % columns].axis("off")
    figure.suptitle(title, fontsize=11)
    os.makedirs(os.path.dirname(os.path.abspath(chart)), exist_ok=True)
    figure.savefig(chart, dpi=110)
    print(f"wrote {chart}", file=sys.stderr)


def size_label(size):
    if size >= 1 << 20 and size % (1 << 20) == 0:
        return f"{size >> 20} MiB"
    if size >= 1 << 10 and size % (1 << 10) == 0:
        return f"{size >> 10} KiB"
    return str(size)


def environment(results):
    """BenchmarkDotNet's environment block (CPU, OS, runtime, job) from a -report-github.md."""
    for path in sorted(glob.glob(os.path.join(results, "*-report-github.md"))):
        with open(path, encoding="utf-8") as handle:
            match = re.search(r"```\s*\n(.*?)```", handle.read(), re.S)
        if match:
            return match.group(1).strip()
    return "(no -report-github.md found)"


def commit(repository):
    try:
        head = subprocess.run(["git", "-C", repository, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", repository, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def markdown(rows, results, ghz, commit_text):
    out = ["<!-- Generated by scripts/plot_benchmarks.py from BenchmarkDotNet's CSV reports. -->", ""]
    out += ["Machine and run, as BenchmarkDotNet reports them:", "", "```", environment(results), "```", ""]
    out += [f"Commit: `{commit_text}`", ""]
    if ghz:
        out += [f"Cycles per byte assume a {ghz:g} GHz clock: cycles/B = mean ns x {ghz:g} / bytes.", ""]
    out += ["Ratio: mean time over the baseline's mean time at the same size and key size; "
            "below 1.00 is faster than the baseline. vs BoringSSL: mean time over BoringSSL "
            "AES-GCM-SIV's mean time at the same size and key size, in the same run.", ""]
    for panel_title, operation, key_bits in panels(rows):
        data = panel_rows(rows, operation, key_bits)
        baseline = BASELINES.get(operation, "AesGcm")
        out += [f"### {panel_title}", "", f"{OPERATION_NOTES.get(operation, '')}. Baseline: {baseline}.", ""]
        header = ["bytes"] + (["key"] if key_bits is None and operation != "Polyval" else []) + [
            "implementation", "mean", "GB/s", "ratio"]
        if any(r["vs_boringssl"] is not None for r in data):
            header.append("vs BoringSSL")
        if ghz:
            header.append("cycles/B")
        header.append("allocated")
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "|".join("---:" if h not in ("implementation",) else "---" for h in header) + "|")
        for r in sorted(data, key=lambda r: (r["size"], r["key_bits"] or 0, order(r["implementation"]))):
            cells = [str(r["size"])] + ([f"AES-{r['key_bits']}"] if "key" in header else []) + [
                r["implementation"].replace("AesGcmSiv_", "AesGcmSiv-")]
            if r["mean_ns"]:
                cells += [format_time(r["mean_ns"]), f"{r['size'] / r['mean_ns']:.3f}"]
            else:
                cells += ["failed", "NA"]
            cells.append(f"{r['ratio']:.2f}" if r["ratio"] is not None else "NA")
            if "vs BoringSSL" in header:
                cells.append(f"{r['vs_boringssl']:.2f}" if r["vs_boringssl"] is not None else "NA")
            if ghz:
                cells.append(f"{r['mean_ns'] * ghz / r['size']:.2f}" if r["mean_ns"] else "NA")
            cells.append(f"{r['allocated']:.0f} B" if r["allocated"] is not None else "NA")
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def format_time(nanoseconds):
    if nanoseconds >= 1e6:
        return f"{nanoseconds / 1e6:.3f} ms"
    if nanoseconds >= 1e3:
        return f"{nanoseconds / 1e3:.3f} us"
    return f"{nanoseconds:.1f} ns"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default=os.path.join(root, "BenchmarkDotNet.Artifacts", "results"),
                        help="folder with BenchmarkDotNet's *-report.csv (default: %(default)s)")
    parser.add_argument("--chart", default=os.path.join(root, "docs", "benchmarks.png"),
                        help="PNG to write (default: %(default)s)")
    parser.add_argument("--markdown", default="-",
                        help="file for the markdown tables, '-' for standard output (default)")
    parser.add_argument("--ghz", type=float, help="CPU clock in GHz: adds a cycles-per-byte column")
    parser.add_argument("--title", default="AES-GCM-SIV for .NET: throughput by message size",
                        help="the chart's title")
    parser.add_argument("--commit", help="the commit to name (default: git rev-parse HEAD of this repository)")
    arguments = parser.parse_args()

    rows = read_reports(arguments.results)
    plot(rows, arguments.chart, arguments.title)
    text = markdown(rows, arguments.results, arguments.ghz, arguments.commit or commit(root))
    if arguments.markdown == "-":
        print(text)
    else:
        with open(arguments.markdown, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        print(f"wrote {arguments.markdown}", file=sys.stderr)


if __name__ == "__main__":
    main()
