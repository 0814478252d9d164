#!/usr/bin/env python3
"""Summarizes qbox-bench CSVs per client: mean throughput and three measures of its share of the
device next to its target, each as a mean and (where it says something) largest |share - target|
over the windows after the first SECONDS:

* estimator share: the client's part of the estimated time of all completions in the window
  (QBox's own accounting; exists for every backend);
* device share: the client's part of the device's busy time (simulated devices only);
* black-box share: IOPS under the scheduler / IOPS when the client ran alone (black_box.py), for
  real devices, given the standalone runs with --alone (one CSV per client, the client named as in
  the runs); black_box_total is the mean over windows of the run's summed black-box shares.

Optionally plots throughput and the best available share over time to a PNG (the windows left out
shaded).

usage: summarize.py [--png OUT.png] [--skip SECONDS] [--alone-skip SECONDS] [--alone ALONE.csv ...]
                    RUN.csv [RUN.csv ...]
(--alone-skip: the warm-up left out of the standalone runs; default the same as --skip.)
"""
import csv
import os
import sys
from collections import defaultdict

import black_box

COLUMNS = ("run,client,windows,mean_target,mean_iops,mean_estimator_share,mean_abs_estimator_error,"
           "mean_device_share,mean_abs_share_error,max_abs_share_error,alone_iops,"
           "mean_black_box_share,mean_abs_black_box_error,max_abs_black_box_error,black_box_total")


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def estimator_shares(rows):
    """{(window end, client): share of the window's estimated time}; the estimator's absolute
    figures lag cost changes and need not add up to 1 even when its proportions are right."""
    totals = defaultdict(float)
    for r in rows:
        totals[r["time_s"]] += float(r["estimated_util"])
    return {(r["time_s"], r["client"]): float(r["estimated_util"]) / totals[r["time_s"]]
            for r in rows if totals[r["time_s"]] > 0}


def summarize(path, rows, skip, alone):
    """One output line per client of a run."""
    kept = black_box.after(rows, skip)
    estimated = estimator_shares(kept)
    bb_windows = black_box.window_shares(rows, alone, skip) if alone else None
    bb = black_box.per_client(bb_windows) if alone else {}
    total = f"{black_box.mean_total(bb_windows):.4f}" if alone else ""
    per_client = defaultdict(list)
    for r in kept:
        per_client[r["client"]].append(r)
    lines = []
    for client, rs in per_client.items():
        n = len(rs)
        target = sum(float(r["target_util"]) for r in rs) / n
        iops = sum(float(r["iops"]) for r in rs) / n
        est = [estimated.get((r["time_s"], client), 0.0) for r in rs]
        est_error = sum(abs(e - float(r["target_util"])) for e, r in zip(est, rs)) / n
        fields = [os.path.basename(path), client, str(n), f"{target:.4f}", f"{iops:.1f}", f"{sum(est) / n:.4f}", f"{est_error:.4f}"]
        if rs[0]["device_share"]:
            c = black_box.share_stats([(float(r["target_util"]), float(r["device_share"])) for r in rs])
            fields += [f"{c.mean_share:.4f}", f"{c.mean_error:.4f}", f"{c.max_error:.4f}"]
        else:
            fields += ["", "", ""]
        if client in bb:
            c = bb[client]
            fields += [f"{alone[client]:.1f}", f"{c.mean_share:.4f}", f"{c.mean_error:.4f}", f"{c.max_error:.4f}", total]
        else:
            fields += ["", "", "", "", ""]
        lines.append(",".join(fields))
    return lines


def plot(png, runs, alone, skip):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, len(runs), figsize=(5 * len(runs), 7), squeeze=False)
    for column, (path, rows) in enumerate(runs.items()):
        shares = black_box.window_shares(rows, alone, 0) if alone else {}
        for client in sorted({r["client"] for r in rows}):
            rs = [r for r in rows if r["client"] == client]
            t = [float(r["time_s"]) for r in rs]
            axes[0][column].plot(t, [float(r["iops"]) for r in rs], label=client)
            if rs[0]["device_share"]:
                share = [float(r["device_share"]) for r in rs]
                ylabel = "device share (dashed: target)"
            elif alone:
                share = [shares[x][client][1] for x in t]
                ylabel = "black-box share (dashed: target)"
            else:
                continue
            line, = axes[1][column].plot(t, share, label=client)
            axes[1][column].plot(t, [float(r["target_util"]) for r in rs], "--", color=line.get_color())
            axes[1][column].set_ylabel(ylabel)
        if alone:
            times = sorted(shares)
            axes[1][column].plot(times, [sum(s for _, s in shares[x].values()) for x in times], ":",
                                 color="black", label="total")
            axes[1][column].legend(fontsize=8)
        for row in axes:
            row[column].axvspan(0, skip, color="0.92")  # left out of the summary
        axes[0][column].set_title(os.path.basename(path), fontsize=9)
        axes[0][column].set_ylabel("IOPS")
        axes[1][column].set_xlabel("time (s)")
        axes[0][column].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=60)


def main():
    args = sys.argv[1:]
    png = None
    skip = 0.0
    alone_skip = None
    alone_paths = []
    while args and args[0].startswith("--") and len(args) > 1:
        if args[0] == "--png":
            png = args[1]
        elif args[0] == "--skip":
            skip = float(args[1])
        elif args[0] == "--alone-skip":
            alone_skip = float(args[1])
        elif args[0] == "--alone":
            alone_paths.append(args[1])
        else:
            sys.exit(__doc__)
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    alone_skip = skip if alone_skip is None else alone_skip
    alone = dict(black_box.alone_iops(load(path), alone_skip) for path in alone_paths)
    runs = {path: load(path) for path in args}
    print(COLUMNS)
    for path, rows in runs.items():
        for line in summarize(path, rows, skip, alone):
            print(line)
    if png:
        plot(png, runs, alone, skip)


if __name__ == "__main__":
    main()
