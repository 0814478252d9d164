"""The writers' worst stall around Rails releases: latency_client.py's writer on a Rails pool for
--seconds with the rails module active, once per held-bytes budget of --budgets-mib, then as long
with it inactive (mgr/rails/active false); --runs rounds of that, so that the budgets are compared
on the same cluster, interleaved. On a cluster that runs the module (CEPH_CONF names it):
  /usr/bin/python3 bench/rails/release_stall.py --pool railspool [--seconds 60] [--size 65536]
      [--in-flight 8] [--budgets-mib 512,64] [--runs 3]
Prints, per run, the p99 and the slowest write, the longest time without a completed write, how
many whole seconds had none, and the same figures for writes started within a second after a
switch of the pool's schedule (when a color's OSDs are released); with the module active also
each OSD's largest hold and the OSDs it slowed, from `ceph rails status` once a second. The goal is no second without
a completed write and no write slower than 1 s.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional, Set, Tuple

import rados

from latency_client import percentile, run_writes
from rails.schedule import Schedule, ScheduleParams

NEAR_SWITCH_SECONDS = 1.0
# Lets the module carry `active` and the budget to every OSD before a run starts.
SETTLE_SECONDS = 8
BUDGET_OPTION = "mgr/rails/held_bytes_budget"
STATUS_SECONDS = 1.0


def ceph(*words: str) -> str:
    return subprocess.run(["ceph", *words], check=True, capture_output=True, text=True, timeout=60).stdout


def schedule_of(pool: str) -> Schedule:
    status = json.loads(ceph("rails", "status", "-f", "json"))
    found = next((p for p in status["pools"] if p["pool"] == pool), None)
    if found is None:
        raise SystemExit(f"--pool {pool}: the rails module does not schedule it; it schedules "
                         f"{[p['pool'] for p in status['pools']]}")
    return Schedule(ScheduleParams(colors=len(found["colors"]), frame_seconds=found["frame_seconds"],
                                   readers=found["readers"], epoch=found["epoch"],
                                   guard_seconds=found["guard_seconds"]))


def watch_holds(stop: threading.Event) -> Tuple[Dict[int, int], Set[int]]:
    """Each OSD's largest held bytes and the OSDs shown slowed, as `ceph rails status` reports them
    (the module reads held bytes every perf_seconds), polled every STATUS_SECONDS until stop."""
    peaks: Dict[int, int] = {}
    slowed: Set[int] = set()
    while not stop.wait(STATUS_SECONDS):
        for osd in json.loads(ceph("rails", "status", "-f", "json"))["osds"]:
            peaks[osd["osd"]] = max(peaks.get(osd["osd"], 0), osd["held_bytes"] or 0)
            if osd["slowed"]:
                slowed.add(osd["osd"])
    return peaks, slowed


def measure(ioctx, schedule: Schedule, active: bool, budget_mib: Optional[int], args) -> str:
    if budget_mib is not None:
        ceph("config", "set", "mgr", BUDGET_OPTION, str(budget_mib << 20))
    ceph("config", "set", "mgr", "mgr/rails/active", "true" if active else "false")
    time.sleep(SETTLE_SECONDS)
    load = os.getloadavg()[0]
    began = time.strftime('%H:%M:%S', time.gmtime())
    stop = threading.Event()
    holds = {}
    watcher = threading.Thread(target=lambda: holds.setdefault("seen", watch_holds(stop)))
    if active:
        watcher.start()
    ops = run_writes(ioctx, args.seconds, args.size, args.in_flight, f"stall-{active}-{int(time.time())}")
    stop.set()
    if active:
        watcher.join()
    latencies = [op.latency for op in ops if op.ok]
    done = sorted(op.started + op.latency for op in ops if op.ok)
    first, last = ops[0].started, done[-1]
    empty = sum(1 for second in range(int(first) + 1, int(last))
                if not any(second <= t < second + 1 for t in done))
    gap = max(b - a for a, b in zip([first] + done, done))
    near = [op.latency for op in ops if op.ok
            and op.started - schedule.frame_start(schedule.frame(op.started)) < NEAR_SWITCH_SECONDS]
    label = f"rails on, budget {budget_mib} MiB" if active and budget_mib is not None else \
        f"rails {'on' if active else 'off'}"
    return (f"{began} UTC {label}: {len(latencies)} writes of {args.size} B, "
            f"{args.in_flight} in flight, {args.seconds:g} s, load average {load:.1f}, {len(ops) - len(latencies)} "
            f"failed: p99 {percentile(latencies, 0.99) * 1000:.0f} ms, slowest {max(latencies) * 1000:.0f} ms, longest "
            f"without a completion {gap * 1000:.0f} ms, whole seconds without one {empty}; started within "
            f"{NEAR_SWITCH_SECONDS:g} s after a switch: p99 {percentile(near, 0.99) * 1000:.0f} ms, slowest "
            f"{max(near) * 1000:.0f} ms" + (held_line(*holds["seen"]) if active else ""))


def held_line(peaks: Dict[int, int], slowed: Set[int]) -> str:
    shown = ", ".join(f"osd.{osd} {held / (1 << 20):.1f}" for osd, held in sorted(peaks.items()))
    return f"; largest holds (MiB, the module's readings) {shown or 'none'}; OSDs slowed {sorted(slowed) or 'none'}"


def parse_budgets(text: str) -> List[Optional[int]]:
    """--budgets-mib: MiB values, each within the module's range for held_bytes_budget (1 MiB..1 PiB);
    empty means the budget the module runs with, left alone."""
    if not text:
        return [None]
    try:
        budgets = [int(word) for word in text.split(",")]
    except ValueError:
        budgets = []
    if not budgets or any(not 1 <= mib <= 1 << 30 for mib in budgets):
        raise SystemExit(f"--budgets-mib {text!r}: accepted: comma-separated whole MiB, each 1..{1 << 30}")
    return budgets


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", required=True, help="a Rails pool the module schedules")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--size", type=int, default=65536, help="bytes per write")
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--budgets-mib", default="", help="held_bytes_budget values (MiB) to run with the module "
                        "active, in turn (default: the module's own, unchanged)")
    parser.add_argument("--runs", type=int, default=1, help="rounds of all budgets and one inactive run (default 1)")
    args = parser.parse_args(argv)
    budgets = parse_budgets(args.budgets_mib)
    for name, low, high in (("seconds", 5, 3600), ("size", 1, 64 << 20), ("in_flight", 1, 1024), ("runs", 1, 100)):
        if not low <= getattr(args, name) <= high:
            parser.error(f"--{name.replace('_', '-')} is {getattr(args, name)}; accepted: {low}..{high}")
    cluster = rados.Rados(conffile=os.environ.get("CEPH_CONF", ""))
    cluster.connect(timeout=60)
    try:
        schedule = schedule_of(args.pool)
        with cluster.open_ioctx(args.pool) as ioctx:
            for _ in range(args.runs):
                for budget in budgets:
                    print(measure(ioctx, schedule, True, budget, args), flush=True)
                print(measure(ioctx, schedule, False, None, args), flush=True)
    finally:
        if budgets != [None]:
            ceph("config", "rm", "mgr", BUDGET_OPTION)
        ceph("config", "set", "mgr", "mgr/rails/active", "true")
        cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
