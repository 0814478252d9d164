#!/usr/bin/python3
"""The erails/isa and erails/jerasure ratios of bench/ec/run.sh's CSV, as a chart or a table.

usage: plot.py CSV PNG     the chart: one panel per object size, two bars per row, goal lines
       plot.py --table CSV the table run.sh prints, with the rows that miss a goal marked
"""
import csv
import sys

GOAL_ISA = 1.0
GOAL_JERASURE = 1.3
SIZES = {4096: "4 KiB", 65536: "64 KiB", 1048576: "1 MiB"}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def label(row):
    if row["workload"] == "encode":
        what = "enc"
    else:
        what = "dec" + row["erasures"]
    return f"{row['k']}+{row['m']} {what}"


def table(rows):
    print(f"{'row':<14}{'size':>8}{'erails':>9}{'isa':>9}{'jerasure':>9}{'/isa':>7}{'/jer':>7}"
          f"{'of memcpy':>10}  goals")
    for row in rows:
        over_isa = float(row["erails_over_isa"])
        over_jerasure = float(row["erails_over_jerasure"])
        misses = [name for name, ratio, goal in
                  (("isa", over_isa, GOAL_ISA), ("jerasure", over_jerasure, GOAL_JERASURE))
                  if ratio < goal]
        print(f"{label(row):<14}{SIZES[int(row['size'])]:>8}{float(row['erails_MBps']):>9.0f}"
              f"{float(row['isa_MBps']):>9.0f}{float(row['jerasure_MBps']):>9.0f}"
              f"{over_isa:>7.2f}{over_jerasure:>7.2f}{float(row['erails_of_memcpy']):>10.2f}  "
              + ("met" if not misses else "misses " + ", ".join(misses)))


def chart(rows, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(SIZES), 1, figsize=(14, 10), sharey=True)
    for ax, (size, name) in zip(axes, SIZES.items()):
        subset = [r for r in rows if int(r["size"]) == size]
        x = range(len(subset))
        ax.bar([i - 0.2 for i in x], [float(r["erails_over_isa"]) for r in subset], 0.4,
               label="erails / isa")
        ax.bar([i + 0.2 for i in x], [float(r["erails_over_jerasure"]) for r in subset], 0.4,
               label="erails / jerasure")
        ax.axhline(GOAL_ISA, color="C0", linestyle="--", linewidth=1)
        ax.axhline(GOAL_JERASURE, color="C1", linestyle="--", linewidth=1)
        ax.set_xticks(list(x))
        ax.set_xticklabels([label(r) for r in subset], rotation=45, ha="right", fontsize=8)
        ax.set_title(f"{name} objects", fontsize=10)
        ax.set_ylabel("throughput ratio")
    axes[0].legend(loc="upper right")
    fig.suptitle("erails vs Ceph's isa and jerasure plugins (reed_sol_van, w=8; dashed: goals "
                 f"{GOAL_ISA}x isa, {GOAL_JERASURE}x jerasure)")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main(argv):
    if len(argv) == 3 and argv[1] == "--table":
        table(read(argv[2]))
    elif len(argv) == 3:
        chart(read(argv[1]), argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
