#!/usr/bin/python3
"""Plots timeline.csv of bench/rails/evidence.py: one panel per OSD and per run (Rails off, on),
data-device write MB/s as bars and shard reads/s as a line, read-phase seconds shaded.

    plot_timeline.py timeline.csv timeline.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    """{(rails, osd): {counter: {second: amount}}} and {(rails, osd): {second: phase}}."""
    amounts = defaultdict(lambda: defaultdict(dict))
    phases = defaultdict(dict)
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["rails"], int(row["osd"]))
            second = int(row["second"])
            amounts[key][row["counter"]][second] = int(row["amount"])
            phases[key][second] = row["phase"]
    return amounts, phases


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: plot_timeline.py timeline.csv timeline.png")
    amounts, phases = load(argv[0])
    runs = [r for r in ("off", "on") if any(key[0] == r for key in amounts)]
    osds = sorted({key[1] for key in amounts})
    figure, axes = plt.subplots(len(osds), len(runs), figsize=(7 * len(runs), 1.6 * len(osds)),
                                sharex="col", squeeze=False)
    for column, run in enumerate(runs):
        for row, osd in enumerate(osds):
            ax = axes[row][column]
            for second, phase in phases[(run, osd)].items():
                if phase == "read":
                    ax.axvspan(second, second + 1, color="#dde8f5", linewidth=0)
            writes = amounts[(run, osd)]["device_write_bytes"]
            ax.bar([s + 0.5 for s in writes], [v / 1e6 for v in writes.values()], width=1.0, color="#c0392b")
            ax.set_ylabel(f"osd.{osd}\nwrite MB/s", fontsize=7)
            reads = amounts[(run, osd)]["shard_reads"]
            twin = ax.twinx()
            seconds = sorted(reads)
            twin.plot([s + 0.5 for s in seconds], [reads[s] for s in seconds], color="#1f4e79", linewidth=0.8)
            twin.set_ylabel("reads/s", fontsize=7)
            ax.tick_params(labelsize=6)
            twin.tick_params(labelsize=6)
        axes[0][column].set_title(f"Rails {run}: data-device writes (bars), shard reads (line), "
                                  "read phase shaded", fontsize=8)
        axes[-1][column].set_xlabel("seconds", fontsize=7)
    figure.tight_layout()
    figure.savefig(argv[1], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
