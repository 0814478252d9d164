#!/usr/bin/python3
"""Reads around a fail-slow OSD, against Ceph's fast_read, on a local cluster of its own.

6 OSDs on emulated SSDs (fresh_ssd.conf: drive B with no data written before, so no garbage
collection; --time-scale 10 by default: every device 10x slower than the model, so that device
time, not the 2-core machine's CPU, sets read latency), an erails k=4 m=2 pool with crush-colors (one OSD per color), the rails
module from this tree with its holds off (mgr/rails/active false: what is measured is where reads
go, not Rails' write holds). Per case and repeat: 4 KiB random reads of 64 KiB objects with a light
4 KiB writer; after --warmup-seconds not counted, one OSD's device made --slowdown times slower
after --healthy-seconds, healthy again --slow-seconds later. The cases:
  stock        mgr/rails/slow_osd_detection false, fast_read 0: reads take k shards as ever
  fast_read    detection off, `ceph osd pool set POOL fast_read 1`: reads fetch all k+m shards
               and decode from the first k
  read_around  detection on, fast_read 0: the module marks the slow OSD and reads avoid its color
Prints, per case and repeat and span, read p50/p99/p99.9 and BlueStore reads per client read (the
shard reads; a healthy k=4 read is 4), the time to mark and to clear the slow OSD, and the goal:
p99.9 from 30 s after the slowdown within 1.5x of the healthy span's. Writes them to
OUT/read_around.csv. Run with /usr/bin/python3 (Debian's, for python3-rados).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench", "rails"))
sys.path.insert(0, os.path.join(REPO, "src", "mgr"))

import rados  # noqa: E402

from latency_client import run_reads, run_writes  # noqa: E402
from read_latency import ms_text  # noqa: E402
from rails.slow_osds import totals_from_perf_dump  # noqa: E402
from timeline import GOAL_AFTER_SECONDS, LATE_SPAN, Spans, goal, mark_times, summarize  # noqa: E402

CASES = {"stock": (False, False), "fast_read": (False, True), "read_around": (True, False)}
POOL = "failslow"
K, M = 4, 2
OBJECTS = 400
OBJECT_SIZE = 65536
READ_SIZE = 4096
WRITE_OBJECTS = 200
POLL_SECONDS = 1.0


def mon(cluster, prefix, **args):
    ret, out, err = cluster.mon_command(json.dumps(dict(args, prefix=prefix, format="json")), b"", timeout=60)
    if ret != 0:
        raise RuntimeError(f"{prefix} {args}: {err.strip()} ({ret})")
    return out


def marked(cluster):
    """The OSDs the rails module marks slow; None while it does not answer."""
    try:
        ret, out, _ = cluster.mgr_command(json.dumps({"prefix": "rails status", "format": "json"}), b"", timeout=30)
    except rados.Error:
        return None
    return json.loads(out).get("slow_osds_marked", []) if ret == 0 else None


def shard_reads(cluster, osds):
    total = 0
    for osd in osds:
        ret, out, err = cluster.osd_command(osd, json.dumps({"prefix": "perf dump", "logger": "bluestore"}), b"",
                                            timeout=30)
        totals = totals_from_perf_dump(json.loads(out)) if ret == 0 else None
        if totals is None:
            raise RuntimeError(f"osd.{osd}: perf dump bluestore: {err.strip()} ({ret})")
        total += totals["read_lat"][0]
    return total


def slow_device(cluster_dir, osd, factor):
    subprocess.run([os.path.join(REPO, "vstart-configs", "slow-device.sh"), "--dir", cluster_dir, "--osd", str(osd),
                    "--slowdown", str(factor)], check=True, stdout=subprocess.DEVNULL)


def set_up(args, env):
    subprocess.run([os.path.join(REPO, "vstart-configs", "start.sh"), "--dir", args.dir, "--osds", str(K + M),
                    "--port-base", args.port_base, "--plugin-dir", args.plugin_dir, f"--emulate-ssd={args.model}",
                    "--emulate-time-scale", f"{args.time_scale:g}", "--fresh"],
                   check=True, env=env)
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "rails_colors", "rails_colors.py"), "--colors",
                    str(K + M), "--apply"], check=True, env=env, stdout=subprocess.DEVNULL)
    colors = ",".join(f"color{i}" for i in range(K + M))
    subprocess.run(["ceph", "osd", "erasure-code-profile", "set", POOL, "plugin=erails", f"k={K}", f"m={M}",
                    f"crush-colors={colors}", "rails-frame=5"], check=True, env=env)
    subprocess.run(["ceph", "osd", "pool", "create", POOL, "32", "32", "erasure", POOL], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["ceph", "osd", "pool", "application", "enable", POOL, "rados"], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([os.path.join(REPO, "vstart-configs", "enable_module.sh"), "--dir", args.dir, "rails"],
                   check=True, env=env)


def wait_module(cluster, timeout=120.0):
    """Until the rails module answers; its options are unknown to the monitors before."""
    deadline = time.time() + timeout
    while marked(cluster) is None:
        if time.time() > deadline:
            raise RuntimeError(f"the rails module did not answer `rails status` in {timeout:.0f} s")
        time.sleep(POLL_SECONDS)
    mon(cluster, "config set", who="mgr", name="mgr/rails/active", value="false")


def wait_unmarked(cluster, timeout=180.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if marked(cluster) == []:
            return
        time.sleep(POLL_SECONDS)
    raise RuntimeError(f"the rails module still answers with marks (or not at all) after {timeout:.0f} s")


def run_case(cluster, ioctx, names, args, case, repeat):
    detection, fast_read = CASES[case]
    mon(cluster, "osd pool set", pool=POOL, var="fast_read", val="1" if fast_read else "0")
    mon(cluster, "config set", who="mgr", name="mgr/rails/slow_osd_detection", value=str(detection).lower())
    wait_unmarked(cluster)
    osds = list(range(K + M))
    began = time.time()
    start = began + args.warmup_seconds
    spans = Spans(start, start + args.healthy_seconds, start + args.healthy_seconds + args.slow_seconds,
                  start + args.healthy_seconds + args.slow_seconds + args.after_seconds)
    counts, polls, stop = {}, [], threading.Event()

    def events():
        boundaries = [("start", spans.start, None), ("slowed", spans.slowed, args.slowdown),
                      ("late", spans.slowed + GOAL_AFTER_SECONDS, None), ("healed", spans.healed, 1),
                      ("end", spans.end, None)]
        for name, at, factor in boundaries:
            time.sleep(max(0.0, at - time.time()))
            if factor is not None:
                slow_device(args.dir, args.slow_osd, factor)
            counts[name] = shard_reads(cluster, osds)

    def poll():
        while not stop.is_set():
            polls.append((time.time(), marked(cluster) or []))
            stop.wait(POLL_SECONDS)

    threads = [threading.Thread(target=events), threading.Thread(target=poll, daemon=True)]
    writer = threading.Thread(target=run_writes, args=(ioctx, spans.end - began, READ_SIZE, 1, f"w{repeat}"),
                              kwargs={"objects": WRITE_OBJECTS})
    for thread in threads + [writer]:
        thread.start()
    ops = run_reads(ioctx, spans.end - began, names, OBJECT_SIZE, READ_SIZE, args.in_flight, seed=repeat)
    writer.join()
    threads[0].join()
    stop.set()
    shards = {"healthy": counts["slowed"] - counts["start"], "slow": counts["healed"] - counts["slowed"],
              LATE_SPAN: counts["healed"] - counts["late"],
              "healed": counts["end"] - counts["healed"]}
    return summarize(ops, spans, shards), mark_times(polls, args.slow_osd, spans)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugin-dir", required=True, help="where libec_erails.so is built (build/erasure-code)")
    parser.add_argument("--dir", default=f"/tmp/erails-failslow-{os.getpid()}", help="the cluster's directory")
    parser.add_argument("--port-base", default="auto")
    parser.add_argument("--out", required=True)
    parser.add_argument("--cases", default="stock,fast_read,read_around")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--slow-osd", type=int, default=2)
    parser.add_argument("--slowdown", type=float, default=10)
    parser.add_argument("--model", default=os.path.join(HERE, "fresh_ssd.conf"), help="the emulated SSDs' model file")
    parser.add_argument("--time-scale", type=float, default=10, help="the emulated SSDs' time scale")
    parser.add_argument("--warmup-seconds", type=float, default=10)
    parser.add_argument("--healthy-seconds", type=float, default=30)
    parser.add_argument("--slow-seconds", type=float, default=60)
    parser.add_argument("--after-seconds", type=float, default=30)
    parser.add_argument("--in-flight", type=int, default=4)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running at the end")
    args = parser.parse_args()
    # A run takes many minutes: each line as it is measured, also into a file.
    sys.stdout.reconfigure(line_buffering=True)
    cases = args.cases.split(",")
    bad = [case for case in cases if case not in CASES]
    if bad:
        parser.error(f"--cases: {', '.join(bad)}; accepted: {', '.join(CASES)}")
    if not 0 <= args.slow_osd < K + M:
        parser.error(f"--slow-osd: {args.slow_osd}; accepted: 0..{K + M - 1}")
    if not 1 < args.slowdown <= 1000:
        parser.error(f"--slowdown: {args.slowdown:g}; accepted: above 1, at most 1000")
    if args.slow_seconds <= GOAL_AFTER_SECONDS or min(args.healthy_seconds, args.after_seconds) <= 0:
        parser.error(f"--slow-seconds must exceed {GOAL_AFTER_SECONDS:g} (the goal's span starts then), "
                     "--healthy-seconds and --after-seconds must be positive")
    if args.repeat < 1 or args.in_flight < 1:
        parser.error("--repeat and --in-flight must be at least 1")
    if not 0 < args.time_scale <= 1000 or args.warmup_seconds < 0:
        parser.error("--time-scale: accepted 0 < scale <= 1000; --warmup-seconds: 0 or more")
    os.makedirs(args.out, exist_ok=True)
    env = dict(os.environ, CEPH_CONF=os.path.join(args.dir, "ceph.conf"))
    try:
        set_up(args, env)
        cluster = rados.Rados(conffile=env["CEPH_CONF"])
        cluster.connect()
        wait_module(cluster)
        ioctx = cluster.open_ioctx(POOL)
        names = [f"r{i}" for i in range(OBJECTS)]
        body = os.urandom(OBJECT_SIZE)
        for name in names:
            ioctx.write_full(name, body)
        rows = []
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}: osd.{args.slow_osd} {args.slowdown:g}x slower from "
              f"{args.healthy_seconds:g} s to {args.healthy_seconds + args.slow_seconds:g} s of each run")
        print("case        rep span        reads  fail  p50 ms  p99 ms  p99.9 ms  shard reads/read")
        for repeat in range(1, args.repeat + 1):
            for case in cases:
                summaries, (detected, cleared) = run_case(cluster, ioctx, names, args, case, repeat)
                ratio, met = goal(summaries)
                for s in summaries:
                    per = s.shard_reads_per_read()
                    print(f"{case:<11} {repeat:>3} {s.name:<10} {s.reads:>6} {s.failed:>5} {ms_text(s.p50):>7} {ms_text(s.p99):>7} "
                          f"{ms_text(s.p999):>9}  {'-' if per is None else f'{per:.2f}'}")
                    rows.append({"case": case, "repeat": repeat, "span": s.name, "reads": s.reads,
                                 "failed": s.failed, "p50_ms": ms_text(s.p50), "p99_ms": ms_text(s.p99), "p999_ms": ms_text(s.p999),
                                 "shard_reads_per_read": "" if per is None else f"{per:.3f}",
                                 "goal_ratio": "" if ratio is None else f"{ratio:.3f}", "goal_met": met,
                                 "detect_s": "" if detected is None else f"{detected:.1f}",
                                 "clear_s": "" if cleared is None else f"{cleared:.1f}"})
                print(f"{case:<11} {repeat:>3} p99.9 from {GOAL_AFTER_SECONDS:g} s after the slowdown / healthy: "
                      f"{'-' if ratio is None else f'{ratio:.2f}x'} ({'met' if met else 'not met'}); "
                      f"marked after {'-' if detected is None else f'{detected:.1f} s'}, "
                      f"cleared {'-' if cleared is None else f'{cleared:.1f} s'} after healing")
        with open(os.path.join(args.out, "read_around.csv"), "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        cluster.shutdown()
    finally:
        if not args.keep:
            subprocess.run([os.path.join(REPO, "vstart-configs", "stop.sh"), "--dir", args.dir], env=env)


if __name__ == "__main__":
    main()
