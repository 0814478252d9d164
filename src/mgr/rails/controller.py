"""The phase controller: which OSDs must hold BlueStore's deferred writes at `now`, and what to
send so that they do.

Pure: it never reads the clock and never talks to Ceph. The mgr module passes time.time() and
executes the returned actions, then reports each outcome with confirm(); tests drive it with
invented times. After a mgr restart a new controller knows nothing, so its first step() sends
every OSD its state: the schedule alone decides, nothing is remembered across restarts.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional

from .pacing import release_times
from .topology import Topology


@dataclass(frozen=True)
class OsdAction:
    osd: int
    hold: bool  # True: hold deferred writes; False: release them and make the OSD apply


@dataclass(frozen=True)
class Pacing:
    """How releases take turns (see pacing.py); the default releases everything at once."""
    spread_seconds: float = 0.0
    max_parallel: Optional[int] = None  # None: no limit


@dataclass(frozen=True)
class OsdState:
    held: bool
    since: float  # when the controller confirmed this state


def wanted_holds(topology: Topology, now: float) -> Dict[int, bool]:
    """osd -> whether it must hold at `now`, for every OSD of a color.

    An OSD holds while its color may not apply writes (read phase, or the guard before one).
    When pools disagree on an OSD (a schedule conflict, reported as a health warning) it holds
    only if all of them say so: a missed hold costs isolation, a missed release lets the backlog
    grow until BlueStore flushes it by itself mid read phase."""
    wanted: Dict[int, bool] = {}
    for osd, placements in topology.colored_osds().items():
        wanted[osd] = all(not pool.schedule.may_apply_writes(index, now) for pool, index in placements)
    return wanted


def next_change(topology: Topology, now: float) -> Optional[float]:
    """The first instant after `now` at which wanted_holds() can change: a switch, or the start of
    a guard. None when there is no Rails pool."""
    candidates = []
    for pool in topology.pools:
        schedule = pool.schedule
        switch = schedule.next_switch(now)
        guard_start = switch - schedule.params.guard_seconds
        candidates.append(guard_start if guard_start > now else switch)
    return min(candidates) if candidates else None


def defer_interval_seconds(topology: Topology, osd: int) -> float:
    """bluestore_max_defer_interval for a held OSD: BlueStore submits deferred writes by itself once
    none was submitted for this long, which ends a hold that no mgr ends. A hold must not reach it
    while the mgr runs: the OSD's last submission before a hold is at the latest its previous
    release (whose kick BlueStore submits), and the hold ends one cycle of the schedule (k+m
    frames) after that release; one frame more absorbs a release that comes late."""
    return max((pool.schedule.params.colors + 1) * pool.schedule.params.frame_seconds
               for pool, _ in topology.colored_osds()[osd])


class PhaseController:
    def __init__(self) -> None:
        self._states: Dict[int, OsdState] = {}
        self._up_from: Dict[int, int] = {}

    def step(self, topology: Topology, now: float, active: bool = True,
             pacing: Pacing = Pacing()) -> List[OsdAction]:
        """Actions that bring every up OSD of a color to its wanted state at `now`, sorted by OSD.

        Holds are never delayed. Releases are paced: an OSD released by the latest switch waits
        for its turn (release_times), and at most pacing.max_parallel releases are returned, the
        earliest due first. An OSD that came up again since the last step has lost its runtime
        settings, so its state is forgotten and sent again. With active=False every OSD is released."""
        for osd, up_from in topology.up_from.items():
            if self._up_from.get(osd, up_from) != up_from:
                self._states.pop(osd, None)
            self._up_from[osd] = up_from
        holds, releases = self._pending(topology, now, active)
        due = self._release_due(topology, now, releases, pacing)
        ready = sorted((when, osd) for osd, when in due.items() if when <= now)
        if pacing.max_parallel is not None:
            ready = ready[:pacing.max_parallel]
        actions = [OsdAction(osd, True) for osd in holds] + [OsdAction(osd, False) for _, osd in ready]
        return sorted(actions, key=lambda action: action.osd)

    def next_release(self, topology: Topology, now: float, active: bool = True,
                     pacing: Pacing = Pacing()) -> Optional[float]:
        """When the earliest pending release is due (at or before `now` if step() held one back only
        for max_parallel), or None when no release is pending."""
        _, releases = self._pending(topology, now, active)
        due = self._release_due(topology, now, releases, pacing)
        return min(due.values()) if due else None

    def _pending(self, topology: Topology, now: float, active: bool):
        wanted = wanted_holds(topology, now)
        up = set(topology.up_osds)
        holds, releases = [], []
        for osd in sorted(wanted):
            hold = wanted[osd] and active
            state = self._states.get(osd)
            if osd in up and (state is None or state.held != hold):
                (holds if hold else releases).append(osd)
        for osd in sorted(set(self._states) - set(wanted)):
            # No longer under any color (pool deleted, OSD moved): it must not stay held.
            if self._states[osd].held and osd in up:
                releases.append(osd)
        return holds, releases

    @staticmethod
    def _release_due(topology: Topology, now: float, releases: List[int], pacing: Pacing) -> Dict[int, float]:
        parallel = pacing.max_parallel or max(1, len(topology.colored_osds()))
        turns = release_times(topology, now, pacing.spread_seconds, parallel)
        return {osd: turns.get(osd, now) for osd in releases}

    def confirm(self, action: OsdAction, succeeded: bool, now: float) -> None:
        """Record the outcome of an action; a failed one is retried at the next step()."""
        if succeeded:
            self._states[action.osd] = OsdState(action.hold, now)
        else:
            self._states.pop(action.osd, None)

    def reconcile(self, observed_held: Dict[int, bool]) -> List[int]:
        """Forget the state of every OSD whose observed hold differs from the confirmed one (a
        command lost across a mgr respawn, an operator's injectargs), so the next step() sends it
        again. Returns those OSDs. OSDs missing from observed_held are left as they are."""
        differing = [osd for osd, held in sorted(observed_held.items())
                     if osd in self._states and self._states[osd].held != held]
        for osd in differing:
            del self._states[osd]
        return differing

    def forget_all(self) -> None:
        """After OSDs were released outside step() (the module stopping, its loop failing): the
        next step() sends every OSD its state again."""
        self._states.clear()

    def states(self) -> Dict[int, OsdState]:
        return dict(self._states)
