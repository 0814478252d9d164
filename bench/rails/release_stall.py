"""The writers' worst stall around Rails releases: latency_client.py's writer on a Rails pool for
--seconds with the rails module active, then as long with it inactive (mgr/rails/active false),
on a cluster that runs the module (CEPH_CONF names it):
  /usr/bin/python3 bench/rails/release_stall.py --pool railspool [--seconds 60] [--size 65536]
      [--in-flight 8]
Prints, per run, the p99 and the slowest write, the longest time without a completed write, how
many whole seconds had none, and the same figures for writes started within a second after a
switch of the pool's schedule (when a color's OSDs are released). The goal is no second without
a completed write and no write slower than 1 s.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import rados

from latency_client import percentile, run_writes
from rails.schedule import Schedule, ScheduleParams

NEAR_SWITCH_SECONDS = 1.0
# Lets the module carry `active` to every OSD before a run starts.
SETTLE_SECONDS = 8


def ceph(*words: str) -> str:
    return subprocess.run(["ceph", *words], check=True, capture_output=True, text=True, timeout=60).stdout


def schedule_of(pool: str) -> Schedule:
    status = json.loads(ceph("rails", "status", "-f", "json"))
    found = next(p for p in status["pools"] if p["pool"] == pool)
    return Schedule(ScheduleParams(colors=len(found["colors"]), frame_seconds=found["frame_seconds"],
                                   readers=found["readers"], epoch=found["epoch"],
                                   guard_seconds=found["guard_seconds"]))


def measure(ioctx, schedule: Schedule, active: bool, args) -> str:
    ceph("config", "set", "mgr", "mgr/rails/active", "true" if active else "false")
    time.sleep(SETTLE_SECONDS)
    load = os.getloadavg()[0]
    ops = run_writes(ioctx, args.seconds, args.size, args.in_flight, f"stall-{active}-{int(time.time())}")
    latencies = [op.latency for op in ops if op.ok]
    done = sorted(op.started + op.latency for op in ops if op.ok)
    first, last = ops[0].started, done[-1]
    empty = sum(1 for second in range(int(first) + 1, int(last))
                if not any(second <= t < second + 1 for t in done))
    gap = max(b - a for a, b in zip([first] + done, done))
    near = [op.latency for op in ops if op.ok
            and op.started - schedule.frame_start(schedule.frame(op.started)) < NEAR_SWITCH_SECONDS]
    return (f"rails {'on' if active else 'off'}: {len(latencies)} writes of {args.size} B, {args.in_flight} in "
            f"flight, {args.seconds:g} s, load average {load:.1f}, {len(ops) - len(latencies)} failed: p99 "
            f"{percentile(latencies, 0.99) * 1000:.0f} ms, slowest {max(latencies) * 1000:.0f} ms, longest without "
            f"a completion {gap * 1000:.0f} ms, whole seconds without one {empty}; started within "
            f"{NEAR_SWITCH_SECONDS:g} s after a switch: p99 {percentile(near, 0.99) * 1000:.0f} ms, slowest "
            f"{max(near) * 1000:.0f} ms")


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", required=True, help="a Rails pool the module schedules")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--size", type=int, default=65536, help="bytes per write")
    parser.add_argument("--in-flight", type=int, default=8)
    args = parser.parse_args(argv)
    cluster = rados.Rados(conffile=os.environ.get("CEPH_CONF", ""))
    cluster.connect(timeout=60)
    try:
        schedule = schedule_of(args.pool)
        with cluster.open_ioctx(args.pool) as ioctx:
            for active in (True, False):
                print(measure(ioctx, schedule, active, args), flush=True)
    finally:
        ceph("config", "set", "mgr", "mgr/rails/active", "true")
        cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
