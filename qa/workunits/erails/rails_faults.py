"""Faults of the rails mgr module under an acknowledged-writes workload: which OSDs each fault
leaves holding, how many bytes they hold, how long a held write waits, and the writers' stalls.

A library for the local fault suite (tests/cluster/test_rails_faults.py, which adds the daemon
kills) and, as a script, the rails-faults workunit: the faults a client can cause by itself
(`mgr/rails/active false`, module disable and enable) against a cluster that runs the module with
a Rails pool:
  python3 rails_faults.py --pool POOL [--seconds S]
It exits non-zero when an OSD stayed held with the module off through `active false`, when held
bytes passed the module's held_bytes_budget, or when an acknowledged write is lost.

Every SAMPLE_SECONDS a sampler asks each OSD, over librados, for bluestore_deferred_batch_ops
(65535: held) and for the value of its deferred-write throttle (what BlueStore holds: while held the
module makes BlueStore charge each transaction its bytes plus 1, see rails/settings.py) and how
many deferred writes it has submitted (rails.accounting reads the counter under each Ceph build's
name; the workunit imports it from the installed rails module).
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

import rados

from ack_workload import AckWorkload, verify_acked
from rails.accounting import counters_from_perf_dump

SAMPLE_SECONDS = 0.5
HELD_BATCH_OPS = "65535"
# A down OSD does not answer: the sampler waits this long, then skips that OSD's other counters.
OSD_COMMAND_TIMEOUT = 3
# How long a switch may take to reach every OSD on a loaded 2-core machine.
SETTLE_SECONDS = 5.0


@dataclass(frozen=True)
class Sample:
    at: float                  # time.monotonic()
    osd: int
    held: Optional[bool]       # None: the OSD did not answer (down)
    held_bytes: Optional[int]  # the deferred throttle's value
    applied: Optional[int]     # deferred ops BlueStore submitted (rails.accounting.Counters.applied)


def osd_json(cluster, osd: int, command: dict) -> Optional[dict]:
    try:
        ret, out, _ = cluster.osd_command(osd, json.dumps(command), b"", timeout=OSD_COMMAND_TIMEOUT)
    except (rados.Error, OSError):
        return None
    if ret != 0:
        return None
    try:
        return json.loads(out)
    except ValueError:
        return None


def sample_osd(cluster, osd: int) -> Sample:
    at = time.monotonic()
    config = osd_json(cluster, osd, {"prefix": "config get", "var": "bluestore_deferred_batch_ops",
                                     "format": "json"})
    if config is None:
        return Sample(at, osd, None, None, None)
    throttle = osd_json(cluster, osd, {"prefix": "perf dump", "logger": "throttle-bluestore_throttle_deferred_bytes",
                                       "format": "json"})
    store = osd_json(cluster, osd, {"prefix": "perf dump", "logger": "bluestore", "format": "json"})
    held = config.get("bluestore_deferred_batch_ops") == HELD_BATCH_OPS
    held_bytes = None if throttle is None else throttle["throttle-bluestore_throttle_deferred_bytes"]["val"]
    counters = None if store is None else counters_from_perf_dump(store)
    applied = None if counters is None else counters.applied
    return Sample(at, osd, held, held_bytes, applied)


class Sampler:
    """Samples every OSD every SAMPLE_SECONDS on a thread of its own until stop()."""

    def __init__(self, cluster, osds: List[int]):
        self._cluster = cluster
        self._osds = osds
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.samples: List[Sample] = []
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> "Sampler":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def _run(self) -> None:
        while not self._stop.is_set():
            began = time.monotonic()
            found = [sample_osd(self._cluster, osd) for osd in self._osds]
            with self._lock:
                self.samples.extend(found)
            self._stop.wait(max(0.0, SAMPLE_SECONDS - (time.monotonic() - began)))

    def between(self, start: float, end: float) -> List[Sample]:
        with self._lock:
            return [s for s in self.samples if start <= s.at <= end]


def held_now(cluster, osds: List[int]) -> List[int]:
    return [osd for osd in osds if sample_osd(cluster, osd).held]


def longest_wait(samples: List[Sample]) -> Dict[int, float]:
    """osd -> the longest time it held deferred bytes without BlueStore applying any: from the
    first sample with bytes held after an application to the first sample showing the next one."""
    waits: Dict[int, float] = {}
    by_osd: Dict[int, List[Sample]] = {}
    for sample in samples:
        if sample.applied is not None and sample.held_bytes is not None:
            by_osd.setdefault(sample.osd, []).append(sample)
    for osd, series in by_osd.items():
        longest = 0.0
        since = None
        for before, after in zip(series, series[1:]):
            if after.applied != before.applied:
                if since is not None:
                    longest = max(longest, after.at - since)
                since = None
            elif since is None and before.held_bytes > 0:
                since = before.at
        if since is not None:
            longest = max(longest, series[-1].at - since)
        waits[osd] = longest
    return waits


@dataclass
class FaultResult:
    name: str
    start: float
    end: float
    notes: List[str] = field(default_factory=list)
    # OSDs still held at the end of a fault that turned the module off (None: not such a fault).
    held_after_off: Optional[List[int]] = None
    max_held_bytes: int = 0
    longest_wait: float = 0.0
    acks: int = 0
    longest_ack_gap: float = 0.0
    max_latency: float = 0.0

    def line(self, budget: int) -> str:
        off = "" if self.held_after_off is None else f", held after off {self.held_after_off}"
        return (f"{self.name}: {self.end - self.start:.0f} s, {self.acks} acks, longest gap without an ack "
                f"{self.longest_ack_gap:.2f} s, max write latency {self.max_latency:.2f} s, most held "
                f"{self.max_held_bytes / 2**20:.1f} MiB ({self.max_held_bytes / budget:.2f} of the budget), "
                f"longest wait of a held write {self.longest_wait:.1f} s{off}"
                + "".join(f"; {note}" for note in self.notes))


class MgrModuleControl:
    """The rails controller as the mgr module: what the faults do to it."""
    off_and_on = "module disable, enable"

    def __init__(self, ceph: Callable[..., str]):
        self.ceph = ceph

    def status(self) -> str:
        return self.ceph("rails", "status")

    def set_option(self, name: str, value: str) -> None:
        self.ceph("config", "set", "mgr", f"mgr/rails/{name}", value)

    def turn_off(self) -> None:
        self.ceph("mgr", "module", "disable", "rails")

    def turn_on(self) -> None:
        self.ceph("mgr", "module", "enable", "rails")


class FaultRun:
    """Runs faults one after another under one workload and one sampler, measuring each. `control`
    reaches the rails controller (default: the mgr module, through `ceph`)."""

    def __init__(self, cluster, pool: str, osds: List[int], ceph: Callable[..., str], budget: int,
                 writers: int = 4, max_size: int = 256 << 10, control=None):
        self.cluster = cluster
        self.pool = pool
        self.osds = osds
        self.ceph = ceph
        self.control = control or MgrModuleControl(ceph)
        self.budget = budget
        self.results: List[FaultResult] = []
        self.workload = AckWorkload(cluster, pool, writers=writers, max_size=max_size, prefix="fault")
        self.sampler = Sampler(cluster, osds)

    def start(self) -> "FaultRun":
        self.workload.start()
        self.sampler.start()
        return self

    def stop(self) -> None:
        self.workload.stop()
        self.sampler.stop()

    def fault(self, name: str, action: Callable[["FaultResult"], None]) -> FaultResult:
        result = FaultResult(name, time.monotonic(), 0.0)
        action(result)
        result.end = time.monotonic()
        samples = [s for s in self.sampler.between(result.start, result.end) if s.held]
        result.max_held_bytes = max((s.held_bytes or 0 for s in samples), default=0)
        result.longest_wait = max(longest_wait(self.sampler.between(result.start, result.end)).values(), default=0.0)
        acks = self.workload.ack_times_between(result.start, result.end)
        result.acks = len(acks)
        edges = [result.start] + acks + [result.end]
        result.longest_ack_gap = max(b - a for a, b in zip(edges, edges[1:]))
        result.max_latency = max(self.workload.latencies_between(result.start, result.end), default=0.0)
        self.results.append(result)
        print(result.line(self.budget), flush=True)
        return result

    def wait_until_some_osd_holds(self, timeout: float = 60) -> List[int]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            held = held_now(self.cluster, self.osds)
            if held:
                return held
            time.sleep(SAMPLE_SECONDS)
        raise AssertionError(f"no OSD held within {timeout} s")

    def wait_for_module(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.control.status()
                return
            except subprocess.CalledProcessError:
                time.sleep(1)
        raise AssertionError(f"rails status did not answer within {timeout} s")

    # --- the faults a client causes ----------------------------------------------------------

    def active_false(self, seconds: float) -> FaultResult:
        def act(result: FaultResult) -> None:
            self.wait_until_some_osd_holds()
            self.control.set_option("active", "false")
            time.sleep(seconds)
            result.held_after_off = held_now(self.cluster, self.osds)
            self.control.set_option("active", "true")
            time.sleep(SETTLE_SECONDS)
        return self.fault("mgr/rails/active false", act)

    def disable_enable(self, seconds: float) -> FaultResult:
        def act(result: FaultResult) -> None:
            held = self.wait_until_some_osd_holds()
            self.control.turn_off()
            time.sleep(seconds)
            result.held_after_off = held_now(self.cluster, self.osds)
            result.notes.append(f"held when turned off {held}")
            self.control.turn_on()
            self.wait_for_module()
            time.sleep(SETTLE_SECONDS)
        return self.fault(self.control.off_and_on, act)

    # --- the end ----------------------------------------------------------------------------

    def verify(self) -> List[str]:
        """Reads back every acknowledged object; returns the wrong ones."""
        return verify_acked(self.cluster, self.pool, self.workload.acked)


def deep_scrub(ceph: Callable[..., str], pool: str, timeout: float = 300) -> List[str]:
    """Deep-scrubs every PG of `pool`; returns the inconsistent PGs."""
    pool_id = next(p["pool"] for p in json.loads(ceph("osd", "dump", "-f", "json"))["pools"] if p["pool_name"] == pool)

    def stats():
        dump = json.loads(ceph("pg", "dump", "pgs", "-f", "json"))
        return [pg for pg in dump["pg_stats"] if pg["pgid"].startswith(f"{pool_id}.")]
    before = {pg["pgid"]: pg["last_deep_scrub_stamp"] for pg in stats()}
    for pgid in before:
        ceph("pg", "deep-scrub", pgid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        current = stats()
        if all(pg["last_deep_scrub_stamp"] != before[pg["pgid"]] for pg in current):
            return [pg["pgid"] for pg in current if "inconsistent" in pg["state"]]
        time.sleep(2)
    raise AssertionError(f"pool {pool}: not every PG deep-scrubbed within {timeout} s")


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description="faults a client causes to the rails mgr module")
    parser.add_argument("--pool", required=True, help="a Rails pool (erails profile with crush-colors)")
    parser.add_argument("--seconds", type=float, default=30, help="how long each fault lasts")
    args = parser.parse_args(argv)

    def ceph(*words: str) -> str:
        return subprocess.run(["ceph", *words], check=True, capture_output=True, text=True, timeout=120).stdout

    cluster = rados.Rados(rados_id=os.environ.get("CEPH_ID", "admin"), conffile="")
    cluster.conf_parse_env()
    cluster.connect(timeout=60)
    try:
        osds = [o["osd"] for o in json.loads(ceph("osd", "dump", "-f", "json"))["osds"] if o["up"]]
        budget = json.loads(ceph("rails", "status", "-f", "json"))["osds"][0]["held_bytes_budget"]
        run = FaultRun(cluster, args.pool, osds, ceph, budget).start()
        try:
            run.active_false(args.seconds)
            run.disable_enable(args.seconds)
        finally:
            run.stop()
        wrong = run.verify()
    finally:
        cluster.shutdown()
    off = run.results[0].held_after_off
    over = [r.name for r in run.results if r.max_held_bytes > budget]
    print(f"{len(run.workload.acked)} writes acknowledged, {len(wrong)} wrong; held after active false: {off}; "
          f"over the budget: {over}")
    return 1 if wrong or off or over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
