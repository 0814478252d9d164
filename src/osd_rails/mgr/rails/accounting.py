"""Held-write accounting per OSD, from BlueStore's own counters (`perf dump bluestore`).

Measured on 16.2.15 (this repository's cluster, see doc/rails.rst): `bluestore_write_deferred`
counts writes put on the deferred path when they are queued, `deferred_write_ops` counts deferred
ops when they are applied to the data device. So while an OSD holds, the growth of
`bluestore_write_deferred` since the hold began bounds the ops held from above (one op can carry
several writes), and a growth of `deferred_write_ops` after a release shows the OSD applied.
"""
from dataclasses import dataclass
from typing import Dict, Optional

QUEUED_COUNTER = "bluestore_write_deferred"
APPLIED_COUNTER = "deferred_write_ops"


@dataclass(frozen=True)
class Counters:
    queued: int
    applied: int


def counters_from_perf_dump(dump: dict) -> Optional[Counters]:
    """The two counters from a `perf dump` (whole or `bluestore` logger only); None if absent."""
    bluestore = dump.get("bluestore", {})
    if QUEUED_COUNTER not in bluestore or APPLIED_COUNTER not in bluestore:
        return None
    return Counters(int(bluestore[QUEUED_COUNTER]), int(bluestore[APPLIED_COUNTER]))


@dataclass
class OsdHold:
    at_hold: Counters
    latest: Counters

    def held_writes(self) -> int:
        return max(0, self.latest.queued - self.at_hold.queued)

    def applied_during_hold(self) -> int:
        """Deferred ops BlueStore applied although held: non-zero means the hold overflowed."""
        return max(0, self.latest.applied - self.at_hold.applied)


class HoldAccounting:
    def __init__(self) -> None:
        self._holds: Dict[int, OsdHold] = {}
        self._last_release_applied: Dict[int, int] = {}
        self._past_overflows: Dict[int, str] = {}

    def hold_started(self, osd: int, counters: Counters) -> None:
        self._holds[osd] = OsdHold(counters, counters)

    def observe(self, osd: int, counters: Counters) -> None:
        hold = self._holds.get(osd)
        if hold is not None:
            hold.latest = counters

    def released(self, osd: int, before_kick: Counters, after_kick: Counters, limit: int) -> None:
        """Counters read just before and just after the release; the applied difference is what
        the release made BlueStore write to the data device. A hold that overflowed stays
        reported until the OSD's next hold ends without overflowing."""
        hold = self._holds.pop(osd, None)
        self._last_release_applied[osd] = max(0, after_kick.applied - before_kick.applied)
        if hold is None:
            return
        hold.latest = before_kick
        problem = _overflow(osd, hold, limit)
        if problem is None:
            self._past_overflows.pop(osd, None)
        else:
            self._past_overflows[osd] = problem + " (last hold)"

    def forget(self, osd: int) -> None:
        self._holds.pop(osd, None)

    def hold(self, osd: int) -> Optional[OsdHold]:
        return self._holds.get(osd)

    def last_release_applied(self, osd: int) -> Optional[int]:
        return self._last_release_applied.get(osd)

    def overflowing(self, limit: int) -> Dict[int, str]:
        """osd -> why its current or last hold went over BlueStore's limit or was flushed by
        BlueStore itself."""
        found = dict(self._past_overflows)
        for osd, hold in self._holds.items():
            problem = _overflow(osd, hold, limit)
            if problem is not None:
                found[osd] = problem
        return dict(sorted(found.items()))


def _overflow(osd: int, hold: OsdHold, limit: int) -> Optional[str]:
    if hold.applied_during_hold() > 0:
        return (f"osd.{osd} applied {hold.applied_during_hold()} deferred ops while held "
                "(BlueStore flushed the hold by itself)")
    if hold.held_writes() >= limit:
        return f"osd.{osd} holds {hold.held_writes()} writes, at or over the limit {limit}"
    return None
