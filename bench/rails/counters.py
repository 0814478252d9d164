"""Reads, for every OSD of a local cluster started with `vstart-configs/start.sh --loop-data`,
the cumulative counters the Rails evidence is made of, and records them on the schedule's
phase changes.

* bytes written to and read from the OSD's data device: /sys/block/loopN/stat of the loop
  device behind it (the kernel's count of what reached that device, apart from WAL and DB);
* shard reads the OSD served: BlueStore's `read_lat` average count (one per object read BlueStore
  answers, cached or not), from `perf dump bluestore` over librados;
* bytes put on BlueStore's deferred path (`bluestore_write_deferred_bytes`, same dump; 18.2.7's
  `issued_deferred_write_bytes`, rails.accounting knows both), whose growth over a hold is what
  the OSD holds.
"""
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Tuple

from phase_accounting import Reading, sample_times
from rails.accounting import required_counters

SECTOR_BYTES = 512  # /sys/block/*/stat counts 512-byte sectors whatever the device's block size
COUNTERS = ("device_write_bytes", "device_read_bytes", "shard_reads")


def data_device_stat_path(cluster_dir: str, osd: int) -> str:
    """The sysfs stat file of osd's data device, which must be a loop device."""
    device = os.path.realpath(os.path.join(cluster_dir, f"osd.{osd}", "block"))
    name = os.path.basename(device)
    if not name.startswith("loop"):
        raise SystemExit(f"osd.{osd}'s data device is {device}, not a loop device: start the cluster "
                         "with vstart-configs/start.sh --loop-data")
    return f"/sys/block/{name}/stat"


def device_bytes(stat_path: str) -> Dict[str, int]:
    with open(stat_path) as f:
        fields = f.read().split()
    # Fields 3 and 7 (1-based) are sectors read and sectors written.
    return {"device_read_bytes": int(fields[2]) * SECTOR_BYTES,
            "device_write_bytes": int(fields[6]) * SECTOR_BYTES}


def _bluestore_perf(cluster, osd: int) -> dict:
    command = json.dumps({"prefix": "perf dump", "logger": "bluestore", "format": "json"})
    ret, out, err = cluster.osd_command(osd, command, b"", timeout=10)
    if ret != 0:
        raise RuntimeError(f"osd.{osd} perf dump failed ({ret}): {err}")
    return json.loads(out)["bluestore"]


def shard_reads(cluster, osd: int) -> Tuple[int, float]:
    """(shard reads so far, when the answer arrived)."""
    return _bluestore_perf(cluster, osd)["read_lat"]["avgcount"], time.time()


def record_deferred_bytes(cluster, osds: List[int], tick: float, stop: threading.Event) -> Dict[int, List[Reading]]:
    """Every OSD's deferred bytes every `tick` seconds until `stop` is set, each reading filed
    under the middle of its round trip."""
    readings: Dict[int, List[Reading]] = {osd: [] for osd in osds}

    def read(osd):
        return required_counters({"bluestore": _bluestore_perf(cluster, osd)}, osd).queued_bytes, time.time()
    with ThreadPoolExecutor(max_workers=len(osds)) as pool:
        while not stop.is_set():
            began = time.time()
            for osd, (value, ended) in zip(osds, pool.map(read, osds)):
                readings[osd].append(Reading((began + ended) / 2, value))
            stop.wait(max(0.0, began + tick - time.time()))
    return readings


class Recorder:
    """Reads every OSD's counters at the schedule's phase changes and at `tick` seconds between,
    for a bounded time. Device counters are read at the instant itself; the perf dumps (a round
    trip each, all OSDs at once) start early by half their usual duration so that their middle,
    the time they are filed under, falls on the instant."""

    def __init__(self, cluster, cluster_dir: str, osds: List[int]):
        self._cluster = cluster
        self._osds = osds
        self._stat_paths = {osd: data_device_stat_path(cluster_dir, osd) for osd in osds}
        self._pool = ThreadPoolExecutor(max_workers=len(osds))
        self._perf_round_trip = 0.02
        self.readings: Dict[int, Dict[str, List[Reading]]] = {
            osd: {name: [] for name in COUNTERS} for osd in osds}

    def _read_devices(self) -> None:
        now = time.time()
        for osd, path in self._stat_paths.items():
            for name, value in device_bytes(path).items():
                self.readings[osd][name].append(Reading(now, value))

    def _sample(self, at: float) -> None:
        time.sleep(max(0.0, at - self._perf_round_trip / 2 - time.time()))
        began = time.time()
        pending = {osd: self._pool.submit(shard_reads, self._cluster, osd) for osd in self._osds}
        time.sleep(max(0.0, at - time.time()))
        self._read_devices()
        values = {osd: future.result() for osd, future in pending.items()}
        ended = max(finished for _, finished in values.values())
        self._perf_round_trip = 0.8 * self._perf_round_trip + 0.2 * (ended - began)
        for osd, (value, _) in values.items():
            self.readings[osd]["shard_reads"].append(Reading((began + ended) / 2, value))

    def record(self, schedule, seconds: float, tick: float, stop: threading.Event) -> float:
        """Samples from now for `seconds` (or until `stop` is set); returns the start time."""
        start = time.time()
        for at in sample_times(schedule, start, start + seconds, tick):
            if stop.is_set():
                break
            self._sample(at)
        return start

    def close(self) -> None:
        self._pool.shutdown()
