#!/usr/bin/env python3
"""Summarizes qbox-bench CSVs: per client, the mean and largest gap between achieved device share
and target (simulated devices) and the mean throughput; optionally plots throughput and share over
time to a PNG.

usage: summarize.py [--png OUT.png] [--skip SECONDS] RUN.csv [RUN.csv ...]
"""
import csv
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def main():
    args = sys.argv[1:]
    png = None
    skip = 0.0
    while args and args[0].startswith("--"):
        if args[0] == "--png":
            png, args = args[1], args[2:]
        elif args[0] == "--skip":
            skip, args = float(args[1]), args[2:]
        else:
            sys.exit(__doc__)
    if not args:
        sys.exit(__doc__)
    runs = {path: load(path) for path in args}
    print("run,client,windows,mean_target,mean_device_share,mean_abs_share_error,max_abs_share_error,mean_iops")
    for path, rows in runs.items():
        per_client = defaultdict(list)
        for row in rows:
            if float(row["time_s"]) > skip:
                per_client[row["client"]].append(row)
        for client, rs in per_client.items():
            n = len(rs)
            target = sum(float(r["target_util"]) for r in rs) / n
            iops = sum(float(r["iops"]) for r in rs) / n
            if rs[0]["device_share"]:
                shares = [float(r["device_share"]) for r in rs]
                errors = [abs(float(r["device_share"]) - float(r["target_util"])) for r in rs]
                print(f"{path},{client},{n},{target:.4f},{sum(shares)/n:.4f},{sum(errors)/n:.4f},{max(errors):.4f},{iops:.1f}")
            else:
                print(f"{path},{client},{n},{target:.4f},,,,{iops:.1f}")
    if png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(2, len(runs), figsize=(5 * len(runs), 7), squeeze=False)
        for column, (path, rows) in enumerate(runs.items()):
            clients = sorted({r["client"] for r in rows})
            for client in clients:
                rs = [r for r in rows if r["client"] == client]
                t = [float(r["time_s"]) for r in rs]
                axes[0][column].plot(t, [float(r["iops"]) for r in rs], label=client)
                if rs[0]["device_share"]:
                    line, = axes[1][column].plot(t, [float(r["device_share"]) for r in rs], label=client)
                    axes[1][column].plot(t, [float(r["target_util"]) for r in rs], "--", color=line.get_color())
            axes[0][column].set_title(path.split("/")[-1], fontsize=9)
            axes[0][column].set_ylabel("IOPS")
            axes[1][column].set_ylabel("device share (dashed: target)")
            axes[1][column].set_xlabel("time (s)")
            axes[0][column].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(png, dpi=80)


if __name__ == "__main__":
    main()
