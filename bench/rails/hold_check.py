"""One OSD held as the rails module holds it and left to its Rails lease, without the module (so on
any Ceph build, Debian 13's included), printing what reached its data device and BlueStore's
deferred-write counters: before the hold, after the writes, and once the lease has released it.

  CEPH_CONF=<cluster>/ceph.conf /usr/bin/python3 bench/rails/hold_check.py --cluster-dir <cluster> \
      --pool <replicated pool on the OSD> [--osd 0] [--writes 450] [--lease 12]

The cluster must be started with `vstart-configs/start.sh --loop-data`, so that the data device's
sysfs stat counts only what BlueStore put there; the rails module must not run (it would release
the OSD itself). doc/dev/ceph-abi.md ("Ceph 18.2.7") quotes its output.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import rados

from counters import data_device_stat_path
from rails.accounting import required_counters
from rails.lease import grant_command
from rails.settings import BATCH_OPS_MAX, Settings, hold_args

WRITE_BYTES = 4096
# BlueStore's own timer would apply the hold after this long; far beyond the lease.
DEFER_INTERVAL_SECONDS = 600


def tell(osd, *words):
    return subprocess.run(["ceph", "tell", f"osd.{osd}", *words], check=True, capture_output=True, text=True,
                          timeout=60).stdout


def report(what, osd, stat_path):
    with open(stat_path) as f:
        fields = f.read().split()
    counters = required_counters(json.loads(tell(osd, "perf", "dump", "bluestore")), osd)
    batch_ops = json.loads(tell(osd, "config", "get", "bluestore_deferred_batch_ops"))["bluestore_deferred_batch_ops"]
    print(f"{what:24s} data device: {fields[4]} write requests, {int(fields[6]) * 512} bytes written; "
          f"deferred writes queued {counters.queued}, applied {counters.applied}, "
          f"transactions not on the device {counters.unapplied_txcs()}; batch_ops {batch_ops}", flush=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cluster-dir", required=True)
    parser.add_argument("--pool", required=True)
    parser.add_argument("--osd", type=int, default=0)
    parser.add_argument("--writes", type=int, default=450)
    parser.add_argument("--lease", type=float, default=12.0, help="the lease's seconds")
    args = parser.parse_args(argv)
    stat_path = data_device_stat_path(args.cluster_dir, args.osd)
    print(subprocess.run(["ceph", "tell", f"osd.{args.osd}", "version"], capture_output=True, text=True).stdout.strip())

    report("before the hold", args.osd, stat_path)
    tell(args.osd, "injectargs", *hold_args(Settings(), DEFER_INTERVAL_SECONDS))
    granted = time.monotonic()
    tell(args.osd, "rails", "lease", *grant_command(args.lease, kick_bytes=WRITE_BYTES)["args"])
    client = rados.Rados(conffile=os.environ["CEPH_CONF"])
    client.connect(timeout=60)
    with client.open_ioctx(args.pool) as ioctx:
        for n in range(args.writes):
            ioctx.write_full(f"hold-check-{n}", os.urandom(WRITE_BYTES))
    client.shutdown()
    report(f"{args.writes} writes held", args.osd, stat_path)
    if time.monotonic() - granted >= args.lease:
        raise SystemExit("the writes outlasted the lease; use a longer --lease or fewer --writes")
    deadline = granted + args.lease + 30
    while json.loads(tell(args.osd, "config", "get", "bluestore_deferred_batch_ops"))[
            "bluestore_deferred_batch_ops"] == str(BATCH_OPS_MAX):
        if time.monotonic() > deadline:
            raise SystemExit(f"osd.{args.osd} still held 30 s after its lease")
        time.sleep(0.5)
    print(f"released by its lease {time.monotonic() - granted:.1f} s after the grant")
    time.sleep(2)
    report("after the release", args.osd, stat_path)
    print(tell(args.osd, "rails", "lease").strip())


if __name__ == "__main__":
    main(sys.argv[1:])
