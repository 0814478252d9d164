"""Two ways to end one OSD's hold, under the same writer: the rails module's (bluestore_deferred_batch_ops=1,
the throttle unset, and one `osd bench` write as the kick, so that the next commit submits the backlog) and
BlueStore's own timer (bluestore_max_defer_interval lowered, so that its cache thread submits it, not the
commit path). The OSD is held by hand with the module's own hold settings, so the rails module must be off:
`ceph config set mgr mgr/rails/active false`, then `ceph mgr module disable rails`.
  CEPH_CONF=<cluster>/ceph.conf /usr/bin/python3 bench/rails/release_methods.py --pool railspool \
      [--osd 0] [--budget-mib 128] [--interval 0.3] [--runs 2]
Per release: the writes held, how long after the release command BlueStore had applied them, and the
writer's slowest write and longest time without a completion from a second before the release to a
second after the backlog was applied (64 writes of 4 KiB in flight).
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

import rados

from latency_client import run_writes
from rails.accounting import required_counters
from rails.settings import Settings, hold_args, release_args

HOLD_SECONDS = 12.0
WRITE_SECONDS = 30.0
BEFORE_HOLD_SECONDS = 2.0
APPLY_TIMEOUT_SECONDS = 12.0
# A held OSD would apply a hold by itself after this long without the mgr; longer than the test.
DEFER_INTERVAL_WHILE_HELD = 30.0


def ceph(*words: str) -> str:
    return subprocess.run(["ceph", *words], check=True, capture_output=True, text=True, timeout=60).stdout


def deferred(osd: int):
    """(deferred writes applied, deferred writes queued) of osd, BlueStore's counters."""
    counters = required_counters(json.loads(ceph("tell", f"osd.{osd}", "perf", "dump", "bluestore")), osd)
    return counters.applied, counters.queued


def release(osd: int, method: str, interval: float) -> None:
    if method == "timer":
        ceph("tell", f"osd.{osd}", "injectargs", f"--bluestore_max_defer_interval={interval:g}")
        return
    ceph("tell", f"osd.{osd}", "injectargs", " ".join(release_args()))
    ceph("tell", f"osd.{osd}", "config", "unset", "bluestore_throttle_bytes")
    ceph("tell", f"osd.{osd}", "bench", "4096", "4096")


def one_release(ioctx, method: str, args) -> str:
    result = {}
    writer = threading.Thread(target=lambda: result.setdefault("ops", run_writes(
        ioctx, WRITE_SECONDS, 4096, 64, f"release-{method}-{int(time.time())}")))
    writer.start()
    time.sleep(BEFORE_HOLD_SECONDS)
    ceph("tell", f"osd.{args.osd}", "injectargs",
         " ".join(hold_args(Settings(held_bytes_budget=args.budget_mib << 20), DEFER_INTERVAL_WHILE_HELD)))
    applied_before, queued_before = deferred(args.osd)
    time.sleep(HOLD_SECONDS)
    applied_held, queued_held = deferred(args.osd)
    released = time.time()
    release(args.osd, method, args.interval)
    held = queued_held - queued_before
    while deferred(args.osd)[0] - applied_held < held and time.time() - released < APPLY_TIMEOUT_SECONDS:
        time.sleep(0.1)
    applied = time.time()
    if method == "timer":
        release(args.osd, "kick", args.interval)
    writer.join()
    ok = [op for op in result["ops"] if op.ok]
    end = min(applied + 1, max(op.started + op.latency for op in ok))
    done = sorted(t for t in (op.started + op.latency for op in ok) if released - 1 <= t <= end)
    gap = max(b - a for a, b in zip([released - 1] + done, done + [end]))
    near = [op.latency for op in ok if released - 1 <= op.started <= applied + 1]
    return (f"{time.strftime('%H:%M:%S', time.gmtime(released))} UTC {method}, budget {args.budget_mib} MiB: held "
            f"{held} deferred writes in {HOLD_SECONDS:g} s ({applied_held - applied_before} applied meanwhile); "
            f"applied {applied - released:.2f} s after the release command; from 1 s before it to 1 s after: slowest "
            f"write {max(near) * 1000:.0f} ms, longest without a completion {gap * 1000:.0f} ms; load average "
            f"{os.getloadavg()[0]:.1f}")


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", required=True)
    parser.add_argument("--osd", type=int, default=0, help="the OSD held and released (default 0)")
    parser.add_argument("--budget-mib", type=int, default=Settings().held_bytes_budget >> 20,
                        help="held_bytes_budget whose hold settings are used (default: the module's)")
    parser.add_argument("--interval", type=float, default=0.3, help="bluestore_max_defer_interval of the timer way")
    parser.add_argument("--runs", type=int, default=2, help="pairs of releases, kick then timer (default 2)")
    args = parser.parse_args(argv)
    if not 1 <= args.budget_mib <= 1 << 30 or not 0.01 <= args.interval <= 10 or not 1 <= args.runs <= 20:
        parser.error("accepted: --budget-mib 1..1073741824, --interval 0.01..10, --runs 1..20")
    cluster = rados.Rados(conffile=os.environ.get("CEPH_CONF", ""))
    cluster.connect(timeout=60)
    try:
        with cluster.open_ioctx(args.pool) as ioctx:
            for _ in range(args.runs):
                for method in ("kick", "timer"):
                    print(one_release(ioctx, method, args), flush=True)
    finally:
        cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
