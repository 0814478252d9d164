#!/usr/bin/python3
"""The mixed step of bench/rails/evidence.py, Rails on only, on a pool that already exists: fills
it, runs `rados bench write` and `rados bench rand` on it together, prints per OSD the share of
data-device write bytes in its write phase and of shard reads in its read phase, and writes
timeline.csv and timeline.png.

    PYTHONPATH=<repo>/bench/rails:<repo>/src/mgr rails_mixed.py --conf C --cluster-dir D --pool P --out DIR

The pool must be scheduled by the rails module, and the OSDs' data devices must be loop devices
(`start.sh --loop-data`): their kernel counts are what the write shares are made of.
"""
import argparse
import os
import sys

import evidence
import plot_timeline


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conf", required=True, help="the cluster's ceph.conf")
    parser.add_argument("--cluster-dir", required=True, help="the cluster's directory (start.sh --dir)")
    parser.add_argument("--pool", required=True, help="a pool the rails module schedules")
    parser.add_argument("--out", required=True, help="directory for timeline.csv and timeline.png")
    parser.add_argument("--seconds", type=int, default=40, help="length of the mixed load (default 40)")
    parser.add_argument("--fill-seconds", type=int, default=10, help="rados bench write before it (default 10)")
    args = parser.parse_args(argv)
    # evidence.py's own parser checks the ranges and brings its defaults (object size, threads, tick).
    args.bench = evidence.parse_args(["--conf", args.conf, "--cluster-dir", args.cluster_dir, "--out", args.out,
                                      "--mixed-seconds", str(args.seconds), "--fill-seconds", str(args.fill_seconds),
                                      "--steps", "mixed"])
    return args


def main(argv):
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    run = evidence.Run(args.bench)
    pool = run.follow_schedule(args.pool)
    run.say(f"mixed load on {args.pool}: {run.args.fill_seconds} s of writes to fill it, then rados bench write and "
            f"rand together for {args.seconds} s, {run.args.object_size} B objects, {run.args.threads} threads each; "
            f"frame {pool['frame_seconds']} s, {pool['readers']} readers, guard {pool['guard_seconds']} s")
    run.say_load("start")
    run.fill(args.pool)
    timeline = []
    run.mixed("on", args.pool, True, timeline)
    run.say_load("end")
    csv_path = os.path.join(args.out, "timeline.csv")
    evidence.write_timeline(csv_path, timeline)
    plot_timeline.main([csv_path, os.path.join(args.out, "timeline.png")])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
