"""When each release is due: the OSDs that a switch releases take turns.

BlueStore applies an OSD's whole held backlog at its next transaction (every sequencer's pending
batch at once), and that OSD's clients nearly stall meanwhile (doc/dev/ceph-abi.md). A
backlog cannot be cut into parts from outside, so the pacing is across OSDs: the OSDs that one
switch releases are split into turns of at most `max_parallel_releases`, and the turns start
evenly over `release_spread_seconds` from the switch. Pure, like the controller: the time is an
argument, and the turns are a function of the topology and the clock alone, so a restarted mgr
paces the same way.
"""
import math
from typing import Dict, List, Optional, Tuple

from .schedule import ScheduleParams
from .settings import SettingError, Settings
from .topology import RailsPool, Topology

# A spread longer than this share of a pool's write phase is cut to it: the last turn then
# starts early in the write phase, leaving most of it for that backlog to drain before the guard.
SPREAD_SHARE_OF_WRITE_PHASE = 0.25


def write_phase_seconds(params: ScheduleParams) -> float:
    """How long a color may apply writes in one cycle: its write frames less the guard."""
    return (params.colors - params.readers) * params.frame_seconds - params.guard_seconds


def max_release_spread(params: ScheduleParams) -> float:
    return SPREAD_SHARE_OF_WRITE_PHASE * write_phase_seconds(params)


def effective_spread(settings: Settings, topology: Topology) -> Tuple[float, Optional[SettingError]]:
    """The spread to use, and an error when the setting is longer than some pool allows (the
    spread is then cut to the shortest allowance, so releases still end early in the write phase)."""
    spread = settings.release_spread_seconds
    if not topology.pools:
        return spread, None
    tightest = min(topology.pools, key=lambda pool: max_release_spread(pool.schedule.params))
    allowed = max_release_spread(tightest.schedule.params)
    if spread <= allowed:
        return spread, None
    return allowed, SettingError(
        "release_spread_seconds",
        f"mgr/rails/release_spread_seconds is {spread!r}; accepted for pool {tightest.name}: "
        f"0..{allowed:.3f} (a quarter of its write phase); using {allowed:.3f}")


def _released_at(placements: List[Tuple[RailsPool, int]], now: float) -> Optional[float]:
    """The switch at which this OSD stopped having to hold, if that switch began the current frame
    of the pools freeing it; None if it holds now or has been free since before that switch."""
    switches = []
    for pool, index in placements:
        schedule = pool.schedule
        if not schedule.may_apply_writes(index, now):
            continue
        frame = schedule.frame(now)
        # Before the guard only a read phase keeps a color from applying, so a color free now
        # was held just before this frame began exactly when it read in the previous frame.
        if not schedule.read_set_of_frame(frame - 1) >> index & 1:
            return None
        switches.append(schedule.frame_start(frame))
    return min(switches) if switches else None


def release_times(topology: Topology, now: float, spread: float, max_parallel: int) -> Dict[int, float]:
    """osd -> when its release is due, for every OSD of a color that the switch beginning its
    current frame released. OSDs absent here (free for longer, or released for another reason,
    e.g. mgr/rails/active=false) are due at once."""
    released: Dict[float, List[int]] = {}
    for osd, placements in topology.colored_osds().items():
        at = _released_at(placements, now)
        if at is not None:
            released.setdefault(at, []).append(osd)
    due = {}
    for at, osds in released.items():
        turns = math.ceil(len(osds) / max_parallel)
        for rank, osd in enumerate(sorted(osds)):
            due[osd] = at + (rank // max_parallel) * spread / turns
    return due
