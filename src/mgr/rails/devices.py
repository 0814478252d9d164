"""Whether an OSD's devices let a hold keep writes off its data device.

Held writes wait in BlueStore's WAL, and RocksDB's own writes go to the DB: with either on the
data device, a held OSD keeps writing there (doc/dev/ceph-abi.md). Judged from the OSD
metadata the OSD reports (`ceph osd metadata N`); pure, so tests pass recorded metadata.
"""
from typing import Dict, Iterable, Optional


def device_problem(metadata: Optional[dict]) -> Optional[str]:
    """Why holding this OSD cannot keep its data device idle, or None if it can."""
    if not metadata:
        return "has reported no metadata yet"
    store = metadata.get("osd_objectstore", "")
    if store != "bluestore":
        return f"runs objectstore {store or 'unknown'!r}; only bluestore can hold writes"
    missing = [name for name, key in (("WAL", "bluefs_dedicated_wal"), ("DB", "bluefs_dedicated_db"))
               if metadata.get(key) != "1"]
    if missing:
        return "has no dedicated " + " or ".join(missing) + " device, so held writes still reach its data device"
    return None


def device_problems(osds: Iterable[int], metadata: Dict[int, Optional[dict]]) -> Dict[int, str]:
    problems = {}
    for osd in sorted(osds):
        problem = device_problem(metadata.get(osd))
        if problem is not None:
            problems[osd] = f"osd.{osd} {problem}"
    return problems
