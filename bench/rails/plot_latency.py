#!/usr/bin/python3
"""Plots the latency step of bench/rails/evidence.py: one panel per pool, each second's read p99
and slowest read (ms, log scale) over the run, each load (read-only, Rails off, Rails on, and Rails
on with the device models off) shaded.

    plot_latency.py latency_timeline.csv latency_phases.csv latency.png [TITLE]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SHADES = {"read-only": "#e8f1e4", "rails off": "#f6dede", "rails on": "#dde8f5", "model off": "#eeeeee"}


def main(argv):
    if len(argv) not in (3, 4):
        raise SystemExit("usage: plot_latency.py latency_timeline.csv latency_phases.csv latency.png [TITLE]")
    with open(argv[0]) as f:
        rows = list(csv.DictReader(f))
    with open(argv[1]) as f:
        phases = list(csv.DictReader(f))
    pools = list(dict.fromkeys(row["pool"] for row in phases))
    figure, axes = plt.subplots(len(pools), 1, figsize=(10, 3.2 * len(pools)), squeeze=False)
    for ax, pool in zip((a[0] for a in axes), pools):
        for phase in (p for p in phases if p["pool"] == pool):
            start, end = float(phase["start_second"]), float(phase["end_second"])
            ax.axvspan(start, end, color=SHADES[phase["load"]], linewidth=0)
            ax.text((start + end) / 2, 1.02, phase["load"], transform=ax.get_xaxis_transform(), ha="center",
                    fontsize=8)
        # One line per load, so that no line bridges the idle time between two loads.
        for index, load in enumerate(dict.fromkeys(row["load"] for row in rows if row["pool"] == pool)):
            mine = [row for row in rows if row["pool"] == pool and row["load"] == load]
            seconds = [int(row["second"]) + 0.5 for row in mine]
            first = index == 0
            ax.plot(seconds, [float(row["max_ms"]) for row in mine], ".", color="#c0392b", markersize=2.5,
                    label="slowest read of the second" if first else None)
            ax.plot(seconds, [float(row["p99_ms"]) for row in mine], "-", color="#1f4e79", linewidth=0.8,
                    label="p99 of the second" if first else None)
            ax.plot(seconds, [float(row["p50_ms"]) for row in mine], "-", color="#7f8c8d", linewidth=0.6,
                    label="p50 of the second" if first else None)
        ax.set_yscale("log")
        ax.set_ylabel(f"{pool}\n4 KiB read latency (ms)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="upper left")
    axes[-1][0].set_xlabel("seconds since the pool's first load", fontsize=8)
    if len(argv) == 4:
        figure.suptitle(argv[3], fontsize=9)
    figure.tight_layout()
    figure.savefig(argv[2], dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
