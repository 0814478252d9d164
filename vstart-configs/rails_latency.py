#!/usr/bin/python3
"""The latency step of bench/rails/evidence.py on a pool that already exists, for the demo: 4 KiB
random reads read-only, then with a writer and the rails module inactive (Rails off), then active
(Rails on), then Rails on with every OSD's device model switched off (what is left of the tail is
the machine's), every read's latency recorded; prints the read p99 and p99.9 of each load and
their ratios to the read-only ones, and Rails on against the model-off load; writes
latency_*.csv and latency.png, and leaves the module active and the models on.

    PYTHONPATH=<repo>/bench/rails:<repo>/src/mgr rails_latency.py --conf C --cluster-dir D --pool P \\
        --out DIR [--seconds S] [--idle S] [--objects N]
    rails_latency.py --guard-for MODEL_FILE

The pool must be scheduled by the rails module and the OSDs must run the device emulator
(`start.sh --emulate-ssd`): without garbage collection under the reads there is nothing for Rails
to remove. --guard-for prints the rails-guard that outlasts that model's longest GC event at its
time scale (latency_step.gc_guard_seconds), or nothing for a model without GC.
"""
import argparse
import json
import os
import sys

import evidence
import plot_latency
from latency_step import LatencyStep, PoolShape, gc_guard_seconds
from read_latency import LOADS, MODEL_OFF, ratio

SUMMARY_FILE = "latency_demo.txt"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--guard-for", metavar="MODEL_FILE", help="print the guard for this model file and exit")
    parser.add_argument("--conf", help="the cluster's ceph.conf")
    parser.add_argument("--cluster-dir", help="the cluster's directory (start.sh --dir)")
    parser.add_argument("--pool", help="a pool the rails module schedules")
    parser.add_argument("--out", help=f"directory for latency_*.csv, latency.png and {SUMMARY_FILE}")
    parser.add_argument("--seconds", type=int, default=30, help="length of each load (default 30)")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds without load before each load (default 3)")
    parser.add_argument("--objects", type=int, default=512, help="64 KiB objects the reader reads (default 512)")
    args = parser.parse_args(argv)
    if args.guard_for:
        return args
    missing = [f"--{name.replace('_', '-')}" for name in ("conf", "cluster_dir", "pool", "out")
               if getattr(args, name) is None]
    if missing:
        parser.error(f"{', '.join(missing)} required (or --guard-for MODEL_FILE alone)")
    model = os.path.join(args.cluster_dir, "emulator", "model.conf")
    if not os.path.exists(model):
        parser.error(f"--cluster-dir {args.cluster_dir}: no emulator/model.conf; the cluster must run the device "
                     "emulator (start.sh --emulate-ssd)")
    # evidence.py's own parser checks the ranges and brings the step's other defaults (readers,
    # writers, tick).
    args.bench = evidence.parse_args(["--conf", args.conf, "--cluster-dir", args.cluster_dir, "--out", args.out,
                                      "--steps", "latency", "--model", model,
                                      "--latency-seconds", str(args.seconds), "--latency-idle", str(args.idle),
                                      "--latency-objects", str(args.objects)])
    return args


def profile_of(run, pool: str) -> dict:
    name = json.loads(run.ceph("osd", "pool", "get", pool, "erasure_code_profile", "-f", "json"))
    return json.loads(run.ceph("osd", "erasure-code-profile", "get", name["erasure_code_profile"], "-f", "json"))


def _ms(seconds) -> str:
    return f"{seconds * 1000:7.1f} ms" if seconds is not None else "      - ms"


def summary_lines(step: LatencyStep, shape: PoolShape, params: dict, loads: dict, seconds: int) -> list:
    """Each load's read p99 and p99.9 against the read-only one, the writer's throughput and the
    model's GC events (with Rails on, how many fell in a read phase), and Rails on against Rails on
    without the device model; the demo prints these."""
    base = loads["read-only"]["summary"]
    lines = [f"4 KiB random reads on {shape.pool} ({shape.label}, frame {params['frame_seconds']:g} s, guard "
             f"{params['guard_seconds']:g} s), {seconds} s per load; {step.describe_device()}:"]
    names = {"read-only": "read-only", "rails off": "with a writer, Rails off", "rails on": "with a writer, Rails on",
             MODEL_OFF: "the same, device model off"}
    for load in LOADS:
        figures = loads[load]["summary"]
        line = f"  {names[load]:<26} p99 {_ms(figures.p99)}"
        if load != "read-only":
            line += f" ({ratio(figures.p99, base.p99):5.2f}x)"
        else:
            line += " " * 9
        line += f"   p99.9 {_ms(figures.p999)}"
        if load != "read-only":
            line += f" ({ratio(figures.p999, base.p999):5.2f}x)   writer {loads[load]['writer_mb_s']:.2f} MB/s"
            if load != MODEL_OFF:
                gc = loads[load]["gc_events"]
                line += (f"; model GC events {sum(gc.values())}, "
                         + ("reads on every OSD" if load == "rails off" else f"{gc['read']} in a read phase"))
        lines.append(line)
    off, on = loads["rails off"]["summary"], loads["rails on"]["summary"]
    lines.append(f"  Rails on / off: read p99 {ratio(on.p99, off.p99):.2f}x, p99.9 {ratio(on.p999, off.p999):.2f}x, "
                 f"writer {ratio(loads['rails on']['writer_mb_s'], loads['rails off']['writer_mb_s']):.2f}x")
    floor = loads[MODEL_OFF]["summary"]
    lines.append(f"  Rails on / the same without the device model: read p99 {ratio(on.p99, floor.p99):.2f}x, "
                 f"p99.9 {ratio(on.p999, floor.p999):.2f}x (what the device still adds to the tail)")
    return lines


def main(argv):
    args = parse_args(argv)
    if args.guard_for:
        guard = gc_guard_seconds(args.guard_for)
        if guard is not None:
            print(f"{guard:g}")
        return 0
    os.makedirs(args.out, exist_ok=True)
    run = evidence.Run(args.bench)
    profile = profile_of(run, args.pool)
    k, m = int(profile["k"]), int(profile["m"])
    shape = PoolShape(f"erails k={k} m={m}", args.pool, k, m)
    step = LatencyStep(run, evidence.REPO, 0)
    run.say_load("start")
    loads = step.one_pool(shape)
    run.say_load("end")
    step.write_results()
    plot_latency.main([os.path.join(args.out, name) for name in
                       ("latency_timeline.csv", "latency_phases.csv", "latency.png")]
                      + [f"4 KiB reads, {step.describe_device()}"])
    lines = summary_lines(step, shape, run.follow_schedule(args.pool), loads, args.seconds)
    with open(os.path.join(args.out, SUMMARY_FILE), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
