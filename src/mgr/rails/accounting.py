"""Held-write accounting per OSD, from BlueStore's own counters (`perf dump bluestore`).

Measured on 16.2.15 (this repository's cluster, see doc/rails.rst): `bluestore_write_deferred`
(and `_bytes`) count writes put on the deferred path when they are queued, `deferred_write_ops`
counts deferred ops when they are applied to the data device. So while an OSD holds, the growth of
`bluestore_write_deferred` since the hold began bounds the ops held from above (one op can carry
several writes), and a growth of `deferred_write_ops` after a release shows the OSD applied.
18.2.7 renamed them `issued_deferred_writes` (`_write_bytes`) and `submitted_deferred_writes`, with
the same meaning (measured: doc/dev/ceph-abi.md, "Ceph 18.2.7").

Transactions give an exact backlog. Each transaction passes BlueStore's state counters (the
`avgcount` of each `state_*_lat`) in order; one with deferred writes goes from `kv_done` through
`deferred_queued` (left when BlueStore submits its writes), `deferred_aio_wait` (left when they are
on the data device) and `deferred_cleanup` to `finishing`, while any other goes from `kv_done`
straight to `finishing`. So the transactions that ever entered the deferred queue number
kv_done - finishing + deferred_cleanup, and those not yet on the data device that figure less
deferred_aio_wait. Measured here: a held OSD with 1,648 held transactions showed exactly 1,648,
and 0 right after the release's kick.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional


@dataclass(frozen=True)
class DeferredWriteNames:
    """The names one Ceph build gives BlueStore's deferred-write counters."""
    queued: str
    queued_bytes: str
    applied: str


# Each checked build's names, told apart by which are in a dump.
DEFERRED_WRITE_NAMES = (
    DeferredWriteNames("bluestore_write_deferred", "bluestore_write_deferred_bytes", "deferred_write_ops"),
    DeferredWriteNames("issued_deferred_writes", "issued_deferred_write_bytes", "submitted_deferred_writes"),
)

KV_DONE_STATE = "state_kv_done_lat"
FINISHING_STATE = "state_finishing_lat"
SUBMITTED_STATE = "state_deferred_queued_lat"
ON_DEVICE_STATE = "state_deferred_aio_wait_lat"
CLEANUP_STATE = "state_deferred_cleanup_lat"

# A perf dump can catch a transaction without deferred writes between its kv_done and finishing
# counts (they are counted in one call, microseconds apart), where it looks deferred; comparisons
# of transaction counts allow this many such transactions.
IN_TRANSIT_TXCS = 8


@dataclass(frozen=True)
class Counters:
    queued: int          # writes put on the deferred path
    applied: int         # deferred ops written to the data device
    queued_bytes: int    # bytes put on the deferred path
    deferred_txcs: int   # transactions that entered the deferred queue
    submitted_txcs: int  # of those, whose deferred writes BlueStore has submitted
    on_device_txcs: int  # of those, whose deferred writes are on the data device

    def unapplied_txcs(self) -> int:
        return max(0, self.deferred_txcs - self.on_device_txcs)

    def unsubmitted_txcs(self) -> int:
        return max(0, self.deferred_txcs - self.submitted_txcs)


def _count(logger: dict, name: str) -> int:
    value = logger[name]
    return int(value["avgcount"]) if isinstance(value, dict) else int(value)


def deferred_write_names(bluestore: dict) -> Optional[DeferredWriteNames]:
    """The names of the build whose `bluestore` perf logger this is; None if no build's are all there."""
    return next((names for names in DEFERRED_WRITE_NAMES
                 if all(name in bluestore for name in (names.queued, names.queued_bytes, names.applied))), None)


def counters_from_perf_dump(dump: dict) -> Optional[Counters]:
    """The counters from a `perf dump` (whole or `bluestore` logger only); None if one is absent
    or malformed."""
    bluestore = dump.get("bluestore", {})
    names = deferred_write_names(bluestore)
    if names is None:
        return None
    try:
        kv_done, finishing, cleanup = (_count(bluestore, name)
                                       for name in (KV_DONE_STATE, FINISHING_STATE, CLEANUP_STATE))
        return Counters(queued=_count(bluestore, names.queued), applied=_count(bluestore, names.applied),
                        queued_bytes=_count(bluestore, names.queued_bytes),
                        deferred_txcs=kv_done - finishing + cleanup,
                        submitted_txcs=_count(bluestore, SUBMITTED_STATE),
                        on_device_txcs=_count(bluestore, ON_DEVICE_STATE))
    except (KeyError, TypeError, ValueError):
        return None


def required_counters(dump: dict, osd: int) -> Counters:
    """counters_from_perf_dump for tools that cannot go on without them: raises naming the OSD."""
    counters = counters_from_perf_dump(dump)
    if counters is None:
        raise ValueError(f"osd.{osd}: no deferred-write counters of a checked Ceph build in its perf dump")
    return counters


def kick_applied(before_release: Counters, after_kick: Counters) -> bool:
    """Whether BlueStore submitted every deferred transaction it had before the release."""
    return after_kick.submitted_txcs + IN_TRANSIT_TXCS >= before_release.deferred_txcs


# The memory budget and BlueStore's op limit are judged this many readings ahead at the current
# rate of growth: the next reading is one perf_seconds away and can come late by a loop, and a
# burst starting between readings makes the rate grow.
BUDGET_LOOKAHEAD_READINGS = 2


@dataclass
class OsdHold:
    at_hold: Counters
    latest: Counters
    latest_at: float              # when `latest` was read (time.time())
    bytes_per_second: float = 0.0  # growth of held bytes between the last two readings
    writes_per_second: float = 0.0  # growth of held writes between the last two readings
    slowed: bool = False           # near a limit: writers slowed, new writes bypass the hold

    def update(self, counters: Counters, now: float) -> None:
        if now > self.latest_at:
            elapsed = now - self.latest_at
            self.bytes_per_second = max(0, counters.queued_bytes - self.latest.queued_bytes) / elapsed
            self.writes_per_second = max(0, counters.queued - self.latest.queued) / elapsed
        self.latest, self.latest_at = counters, now

    def reaches(self, budget: int, op_limit: int, seconds: float) -> bool:
        """Whether, growing as between the last two readings, it holds `budget` bytes or
        `op_limit` writes within `seconds`."""
        return (self.held_bytes() + self.bytes_per_second * seconds >= budget
                or self.held_writes() + self.writes_per_second * seconds >= op_limit)

    def held_writes(self) -> int:
        return max(0, self.latest.queued - self.at_hold.queued)

    def held_bytes(self) -> int:
        """Bytes queued on the deferred path since the hold began: what the hold keeps in memory,
        from above (a write overwritten while held is counted twice)."""
        return max(0, self.latest.queued_bytes - self.at_hold.queued_bytes)

    def applied_during_hold(self) -> int:
        """Deferred ops BlueStore applied although held: non-zero means the hold overflowed."""
        return max(0, self.latest.applied - self.at_hold.applied)


@dataclass
class OsdRelease:
    """A release and the backlog it let BlueStore apply, followed until the next hold."""
    before: Counters   # read just before the release
    latest: Counters   # read after the kicks, then every perf_seconds
    kicks: int         # `osd bench` writes sent to make BlueStore apply

    def backlog_txcs(self) -> int:
        return self.before.unapplied_txcs()

    def submitted(self) -> bool:
        return kick_applied(self.before, self.latest)

    def remaining_txcs(self) -> int:
        """Transactions of the released backlog not yet on the data device (allowing for those a
        perf dump catches in transit)."""
        left = self.before.deferred_txcs - self.latest.on_device_txcs
        return left if left > IN_TRANSIT_TXCS else 0


class HoldAccounting:
    def __init__(self) -> None:
        self._holds: Dict[int, OsdHold] = {}
        self._releases: Dict[int, OsdRelease] = {}
        self._last_release_applied: Dict[int, int] = {}
        self._past_overflows: Dict[int, str] = {}
        self._slow_backlogs: Dict[int, str] = {}

    def hold_started(self, osd: int, counters: Counters, now: float) -> None:
        """A new hold, with counters read once the OSD holds. Whatever its last release let
        BlueStore apply should be on the data device by now: its write phase is over."""
        release = self._releases.pop(osd, None)
        if release is not None:
            release.latest = counters
            left = release.remaining_txcs()
            if left:
                self._slow_backlogs[osd] = (
                    f"osd.{osd}: {left} of the {release.backlog_txcs()} deferred transactions its last release "
                    "let BlueStore apply were not on the data device when its write phase ended")
            else:
                self._slow_backlogs.pop(osd, None)
        self._holds[osd] = OsdHold(counters, counters, now)

    def observe(self, osd: int, counters: Counters, now: float) -> None:
        hold = self._holds.get(osd)
        if hold is not None:
            hold.update(counters, now)
        release = self._releases.get(osd)
        if release is not None:
            release.latest = counters

    def released(self, osd: int, before_kick: Counters, after_kick: Counters, limit: int, kicks: int = 1) -> None:
        """Counters read just before the release and just after its last kick; the applied
        difference is what the release made BlueStore write to the data device. A hold that
        overflowed stays reported until the OSD's next hold ends without overflowing."""
        hold = self._holds.pop(osd, None)
        self._last_release_applied[osd] = max(0, after_kick.applied - before_kick.applied)
        self._releases[osd] = OsdRelease(before_kick, after_kick, kicks)
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
        self._releases.pop(osd, None)

    def hold(self, osd: int) -> Optional[OsdHold]:
        return self._holds.get(osd)

    def release(self, osd: int) -> Optional[OsdRelease]:
        return self._releases.get(osd)

    def draining(self) -> List[int]:
        """Released OSDs whose backlog is not all on the data device yet, as last read."""
        return sorted(osd for osd, release in self._releases.items() if release.remaining_txcs())

    def last_release_applied(self, osd: int) -> Optional[int]:
        return self._last_release_applied.get(osd)

    def to_slow(self, budget: int, op_limit: int, perf_seconds: float) -> List[int]:
        """Held OSDs not slowed yet that will have reached the memory budget or the writes
        BlueStore keeps back by the time the counters are judged again
        (BUDGET_LOOKAHEAD_READINGS readings of perf_seconds ahead)."""
        ahead = BUDGET_LOOKAHEAD_READINGS * perf_seconds
        return sorted(osd for osd, hold in self._holds.items()
                      if not hold.slowed and hold.reaches(budget, op_limit, ahead))

    def mark_slowed(self, osd: int) -> None:
        hold = self._holds.get(osd)
        if hold is not None:
            hold.slowed = True

    def slowed(self, budget: int, op_limit: int) -> Dict[int, str]:
        """osd -> why its writers are being slowed, for every held OSD that is."""
        return {osd: f"osd.{osd} holds {hold.held_bytes()} bytes (budget {budget}) and {hold.held_writes()} writes "
                     f"(limit {op_limit}): its writers are slowed and its new writes go to its data device until "
                     "its release"
                for osd, hold in sorted(self._holds.items()) if hold.slowed}

    def slow_backlogs(self) -> Dict[int, str]:
        """osd -> why its last released backlog did not drain within its write phase."""
        return dict(sorted(self._slow_backlogs.items()))

    def failed_kicks(self) -> Dict[int, str]:
        """osd -> why its last release did not make BlueStore submit what it held."""
        return {osd: f"osd.{osd}: {release.before.unsubmitted_txcs()} held deferred transactions, "
                     f"{max(0, release.before.deferred_txcs - release.latest.submitted_txcs)} still not submitted "
                     f"after {release.kicks} kick(s) (osd bench)"
                for osd, release in sorted(self._releases.items()) if not release.submitted()}

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
