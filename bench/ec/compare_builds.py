#!/usr/bin/python3
"""Side by side: two runs of bench/ec/run.sh, each on its own Ceph build (for example one from the
host and one from the Debian 13 root), row by row and as medians of the per-row ratios.

    bench/ec/compare_builds.py DIR_A DIR_B

Each DIR holds the throughput.csv and machine.txt that run.sh wrote. Runs on different days are
not comparable on this machine (jerasure moved by up to 1.8x between two days here): compare runs made
one after the other.
"""
import csv
import statistics
import sys
from pathlib import Path

PLUGINS = ("erails", "isa", "jerasure")
COLUMNS = [f"{p}_MBps" for p in PLUGINS] + ["codec_MBps", "memcpy_MBps"]


def load(directory):
    path = Path(directory) / "throughput.csv"
    try:
        rows = list(csv.DictReader(path.open()))
    except OSError as e:
        sys.exit(f"compare_builds: cannot read {path}: {e.strerror}")
    missing = [c for c in COLUMNS + ["workload", "k", "m", "erasures", "size"] if rows and c not in rows[0]]
    if not rows or missing:
        sys.exit(f"compare_builds: {path} is not run.sh's throughput.csv (missing {', '.join(missing) or 'rows'})")
    return {(r["workload"], r["k"], r["m"], r["erasures"], r["size"]): r for r in rows}


def describe(directory):
    text = (Path(directory) / "machine.txt").read_text() if (Path(directory) / "machine.txt").exists() else ""
    keep = [line for line in text.splitlines() if line.startswith(("date:", "plugins:", "ISA-L:"))]
    return f"{directory}: " + "; ".join(keep)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_builds.py DIR_A DIR_B")
    a, b = load(sys.argv[1]), load(sys.argv[2])
    rows = [key for key in a if key in b]
    if not rows:
        sys.exit("compare_builds: the two runs share no row")
    print("A = " + describe(sys.argv[1]))
    print("B = " + describe(sys.argv[2]))
    print(f"{'row':<22}" + "".join(f"{p + ' A':>12}{p + ' B':>12}" for p in PLUGINS) + f"{'erails/isa A':>14}{'erails/isa B':>14}")
    for key in rows:
        workload, k, m, erasures, size = key
        name = f"{k}+{m} {'enc' if workload == 'encode' else 'dec' + erasures} {int(size) // 1024} KiB"
        cells = "".join(f"{float(a[key][p + '_MBps']):>12.0f}{float(b[key][p + '_MBps']):>12.0f}" for p in PLUGINS)
        print(f"{name:<22}{cells}{float(a[key]['erails_over_isa']):>14.2f}{float(b[key]['erails_over_isa']):>14.2f}")
    print(f"median of B/A over {len(rows)} rows:")
    for column in COLUMNS:
        ratios = [float(b[key][column]) / float(a[key][column]) for key in rows]
        print(f"  {column:<14} {statistics.median(ratios):.2f} (from {min(ratios):.2f} to {max(ratios):.2f})")


if __name__ == "__main__":
    main()
