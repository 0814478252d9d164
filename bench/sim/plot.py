#!/usr/bin/python3
"""PNG figures from the simulator reproductions (needs Debian's python3-matplotlib).

    /usr/bin/python3 bench/sim/plot.py [--work /tmp/erails-sim-repro]

Run after reproduce.py (same --work): reads its per-second timelines and bench/sim/results/*.csv,
writes bench/sim/results/*.png. Every curve is simulator output, labelled as such.
"""
import argparse
import csv
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def timeline(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [float(r["time"]) for r in rows], rows


def per_second_plot(work, runs, column, title, out, xmax):
    fig, ax = plt.subplots(figsize=(8, 4))
    for label, stem in runs:
        t, rows = timeline(work / f"{stem}.timeline.csv")
        ax.plot(t, [float(r[column]) for r in rows], label=label, linewidth=1)
    ax.set_xlim(0, xmax)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"{column} per second")
    ax.set_title(title + " (simulator)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / out, dpi=100)
    plt.close(fig)


def rails_cdf():
    with open(RESULTS / "rails_cdf.csv") as f:
        rows = list(csv.DictReader(f))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, drives in zip(axes, ("2", "3")):
        for run in ("none", "rails", "rails_guard1s", "read_only"):
            pts = [(float(r["read_iops"]), float(r["fraction"])) for r in rows if r["drives"] == drives and r["run"] == run]
            ax.step([p[0] for p in pts], [p[1] for p in pts], where="post", label=run)
        ax.set_title(f"{drives} drives: per-second read IOPS CDF (simulator)")
        ax.set_xlabel("reads per second")
        ax.legend()
    axes[0].set_ylabel("fraction of seconds")
    fig.tight_layout()
    fig.savefig(RESULTS / "rails_cdf.png", dpi=100)
    plt.close(fig)


def guard_tail():
    """Read p99.9 and the writers' throughput against the idle time before each switch, both drive
    models: how much guard the leftover GC needs (results/rails_guard.csv, drive_a_guard.csv)."""
    fig, (lat, wr) = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for name, label in (("rails_guard", "drive B"), ("drive_a_guard", "drive A")):
        with open(RESULTS / f"{name}.csv") as f:
            rows = list(csv.DictReader(f))
        guards = [float(r["guard"]) for r in rows]
        line, = lat.plot(guards, [float(r["p99.9"]) for r in rows], marker="o", label=f"{label}: p99.9")
        lat.plot(guards, [float(r["p99.99"]) for r in rows], marker="x", linestyle=":", color=line.get_color(),
                 label=f"{label}: p99.99")
        lat.plot(guards, [float(r["p99.9_without_gc"]) for r in rows], linestyle="--", color=line.get_color(),
                 label=f"{label}: p99.9 of reads that did not wait on GC")
        wr.plot(guards, [float(r["write_iops_vs_no_guard"]) for r in rows], marker="o", label=label)
    lat.set_ylabel("read latency (ms)")
    lat.set_title("Rails, 2 drives: read tail (simulator)")
    wr.set_ylabel("write IOPS / write IOPS without guard")
    wr.set_title("writers' throughput (simulator)")
    for ax in (lat, wr):
        ax.set_xlabel("guard: idle before each switch (s)")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(RESULTS / "rails_guard.png", dpi=100)
    plt.close(fig)


def write_vs_m():
    with open(RESULTS / "write_vs_m.csv") as f:
        rows = list(csv.DictReader(f))
    m = [int(r["m"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(m, [float(r["W_bound_MBps"]) for r in rows], "o-", label="kmw/(k+m)")
    ax.plot(m, [float(r["W_sim_MBps"]) for r in rows], "s--", label="simulated")
    ax.set_xlabel("m (writers), N = 10")
    ax.set_ylabel("write throughput (MB/s)")
    ax.set_title("Achievable write throughput (simulator)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "write_vs_m.png", dpi=100)
    plt.close(fig)


def qos_timeline(work):
    """Per-second completions of the random-read stream against its target (figs. 6.8-6.9)."""
    with open(RESULTS / "qos.csv") as f:
        target = float(next(csv.DictReader(f))["read_target"])
    fig, ax = plt.subplots(figsize=(8, 4))
    for label, stem in (("QBox on Rails", "rails"), ("QBox on Rails, 1 s idle before switch", "rails_idle_1s_before_switch"),
                        ("QBox, no Rails", "no_rails"), ("fifo, no Rails", "no_rails_fifo")):
        with open(work / "qos" / f"{stem}.streams.csv") as f:
            rows = list(csv.DictReader(f))
        ax.plot([float(r["time"]) for r in rows], [float(r["read_rand"]) for r in rows], label=label, linewidth=1)
    ax.axhline(target, color="black", linestyle="--", linewidth=1, label="target")
    ax.set_xlim(0, 60)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("random reads per second")
    ax.set_title("QoS targets, 2 drives, T = 10 s (simulator)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "qos_timeline.png", dpi=100)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", default="/tmp/erails-sim-repro")
    parser.add_argument("--only", choices=["qos"], help="draw only this experiment's figure")
    args = parser.parse_args()
    work = pathlib.Path(args.work)
    if args.only == "qos":
        qos_timeline(work)
        print(RESULTS / "qos_timeline.png")
        return
    qos_timeline(work)
    per_second_plot(work / "rails", [("without Rails", "d2_none"), ("Rails", "d2_rails"),
                                     ("Rails + 1 s guard", "d2_rails_guard1s")],
                    "reads", "2 drives, replication, T = 10 s", "rails_timeline.png", 100)
    per_second_plot(work / "drive_a", [("without Rails", "d2_none"), ("Rails", "d2_rails"),
                                       ("Rails + 1 s guard", "d2_rails_guard1s")],
                    "reads", "drive A, 2 drives, replication, T = 10 s", "drive_a_timeline.png", 100)
    per_second_plot(work / "erails", [("without eRails", "k3_none"), ("eRails", "k3_erails")],
                    "reads", "k = m = 3, 128 KB", "erails_k3_timeline.png", 100)
    per_second_plot(work / "erails", [("without eRails", "k5_none"), ("eRails", "k5_erails")],
                    "reads", "k = m = 5, 128 KB", "erails_k5_timeline.png", 100)
    per_second_plot(work / "trace", [("without Rails", "none"), ("Rails", "rails")],
                    "read_gc_blocked_seconds", "synthetic MSR-format trace, 2 drives", "trace_blocked.png", 120)
    rails_cdf()
    guard_tail()
    write_vs_m()
    for png in sorted(RESULTS.glob("*.png")):
        print(png)


if __name__ == "__main__":
    main()
