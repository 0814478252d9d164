"""A write workload that records exactly which writes the cluster acknowledged.

Used by the cluster tests (tests/cluster/test_durability.py, with OSD kills of their own) and, as
a script, by the acked-writes workunit (where teuthology's thrasher does the killing):
  python3 ack_workload.py --pool POOL --seconds S [--writers N] [--max-size BYTES]

Each writer thread writes new objects whose content is derived from their name, and records the
object's SHA-256 only after librados returns success: the record is the set of writes a client was
promised are durable. Writes that fail or time out are counted but promise nothing.
"""
import argparse
import hashlib
import os
import random
import sys
import threading
import time

import rados


class AckWorkload:
    """Writers on `pool` until stop(); `acked` maps object name -> (size, sha256, ack time)."""

    def __init__(self, cluster, pool, writers=4, max_size=256 * 1024, prefix="ack"):
        self._cluster = cluster
        self._pool = pool
        self._max_size = max_size
        self._prefix = prefix
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.acked = {}
        # (ack time, seconds the write took) of every acknowledged write, for stall measurements.
        self.latencies = []
        self.failed = 0
        self._threads = [threading.Thread(target=self._write_loop, args=(i,), daemon=True)
                         for i in range(writers)]

    def start(self):
        for thread in self._threads:
            thread.start()
        return self

    def stop(self):
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=180)
            assert not thread.is_alive(), "a writer is stuck in librados after 180 s"

    def acks_between(self, start, end):
        with self._lock:
            return sum(1 for _, _, t in self.acked.values() if start <= t < end)

    def ack_times_between(self, start, end):
        with self._lock:
            return sorted(t for t, _ in self.latencies if start <= t < end)

    def latencies_between(self, start, end):
        """How long each write acknowledged within [start, end) took."""
        with self._lock:
            return [latency for t, latency in self.latencies if start <= t < end]

    def _write_loop(self, writer):
        rng = random.Random(writer)
        with self._cluster.open_ioctx(self._pool) as ioctx:
            seq = 0
            while not self._stop.is_set():
                name = f"{self._prefix}-{writer}-{seq}"
                seq += 1
                data = random.Random(name).randbytes(rng.randint(1, self._max_size))
                began = time.monotonic()
                try:
                    ioctx.write_full(name, data)
                except (rados.Error, OSError):
                    with self._lock:
                        self.failed += 1
                    continue
                acked_at = time.monotonic()
                with self._lock:
                    self.acked[name] = (len(data), hashlib.sha256(data).hexdigest(), acked_at)
                    self.latencies.append((acked_at, acked_at - began))


def write_acked(cluster, pool, sizes, prefix):
    """Writes one object of random bytes per size in `sizes`, one after the other, each recorded
    once acknowledged (a failure raises): the record verify_acked takes."""
    acked = {}
    with cluster.open_ioctx(pool) as ioctx:
        for n, size in enumerate(sizes):
            name, data = f"{prefix}-{n}", os.urandom(size)
            ioctx.write_full(name, data)
            acked[name] = (size, hashlib.sha256(data).hexdigest(), time.monotonic())
    return acked


def verify_acked(cluster, pool, acked):
    """Reads every acknowledged object back; returns descriptions of the ones that differ."""
    wrong = []
    with cluster.open_ioctx(pool) as ioctx:
        for name, (size, digest, _) in sorted(acked.items()):
            try:
                stored_size, _ = ioctx.stat(name)
                data = ioctx.read(name, length=max(stored_size, 1))
            except rados.ObjectNotFound:
                wrong.append(f"{name}: acknowledged but missing")
                continue
            if stored_size != size or hashlib.sha256(data).hexdigest() != digest:
                wrong.append(f"{name}: acknowledged {size} bytes, read {stored_size} bytes "
                             "with a different checksum")
    return wrong


def main(argv):
    parser = argparse.ArgumentParser(description="write for a while, then verify every ack")
    parser.add_argument("--pool", required=True)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--max-size", type=int, default=256 * 1024)
    args = parser.parse_args(argv)

    # The same identity the ceph tool uses: teuthology sets CEPH_ID, CEPH_CONF picks the cluster.
    cluster = rados.Rados(rados_id=os.environ.get("CEPH_ID", "admin"), conffile="")
    cluster.conf_parse_env()
    cluster.connect(timeout=60)
    try:
        workload = AckWorkload(cluster, args.pool, writers=args.writers,
                               max_size=args.max_size).start()
        time.sleep(args.seconds)
        workload.stop()
        wrong = verify_acked(cluster, args.pool, workload.acked)
    finally:
        cluster.shutdown()
    print(f"{len(workload.acked)} writes acknowledged, {workload.failed} failed or timed out, "
          f"{len(wrong)} acknowledged objects wrong")
    for line in wrong[:20]:
        print("  " + line)
    return 1 if wrong or not workload.acked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
