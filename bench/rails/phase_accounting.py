"""Which share of each OSD's measured I/O fell in which phase of the Rails schedule. Pure: the
sampler feeds it timestamped counter readings, tests feed it invented ones.

A color is in one of three phases at any instant: `read` (in the schedule's read set), `guard`
(write phase, but too close to its next read phase to apply writes) or `write`. Counters are
read at every phase change of every color (and at regular ticks between), so the growth between
two consecutive readings belongs to one phase, the one at the interval's midpoint.
"""
import math
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence, Tuple

PHASES = ("read", "guard", "write")


def phase_of(schedule, color: int, t: float) -> str:
    if schedule.is_read_phase(color, t):
        return "read"
    return "write" if schedule.may_apply_writes(color, t) else "guard"


def phase_changes(schedule, start: float, end: float) -> List[float]:
    """Every instant in (start, end) at which some color changes phase: each switch, and each
    guard start (a switch minus the guard, when the guard is not zero)."""
    guard = schedule.params.guard_seconds
    changes = []
    switch = schedule.next_switch(start)
    while switch - guard < end:
        for t in (switch - guard, switch):
            if start < t < end:
                changes.append(t)
        switch = schedule.next_switch(switch)
    return sorted(set(changes))


def sample_times(schedule, start: float, end: float, tick: float) -> List[float]:
    """When to read the counters: every phase change, and every `tick` between, leaving out
    ticks so close to a change that the interval between them would be shorter than tick/4."""
    changes = phase_changes(schedule, start, end)
    times = [start] + changes + [end]
    ticks = []
    t = start + tick
    while t < end:
        if all(abs(t - c) >= tick / 4 for c in times):
            ticks.append(t)
        t += tick
    return sorted(times + ticks)


@dataclass(frozen=True)
class Reading:
    """One counter of one OSD read at time t (cumulative, as the OSD or kernel keeps it)."""
    t: float
    value: int


def attribute(readings: Sequence[Reading], schedule, color: int, origin: float,
              ) -> Tuple[Dict[str, int], Dict[int, Dict[str, int]]]:
    """(amount per phase, amount per whole second since origin and phase) of one counter.

    Growth between consecutive readings goes to the phase at the midpoint of the two reading
    times, and is spread over the seconds the interval covers in proportion to its overlap with
    each (whole units, the remainder to the last second). Every second from the first reading
    to the last appears, with zeros where nothing grew. A counter that goes backwards (the OSD
    restarted) contributes nothing for that interval."""
    per_phase = {phase: 0 for phase in PHASES}
    per_second: Dict[int, Dict[str, int]] = {}
    if readings:
        for second in range(int(readings[0].t - origin), int(readings[-1].t - origin) + 1):
            per_second[second] = {p: 0 for p in PHASES}
    for before, after in zip(readings, readings[1:]):
        grown = after.value - before.value
        if grown <= 0:
            continue
        phase = phase_of(schedule, color, (before.t + after.t) / 2)
        per_phase[phase] += grown
        # An interval ending exactly on a second boundary does not reach into the next second.
        first = int(before.t - origin)
        last = max(first, math.ceil(after.t - origin) - 1)
        given = 0
        for second in range(first, last + 1):
            if second == last:
                part = grown - given
            else:
                overlap = min(after.t, origin + second + 1) - max(before.t, origin + second)
                part = int(grown * overlap / (after.t - before.t))
            per_second[second][phase] += part
            given += part
    return per_phase, per_second


def share(per_phase: Dict[str, int], phases: Iterable[str]) -> float:
    """The fraction of the total that fell in `phases`; 1.0 when there was nothing at all."""
    total = sum(per_phase.values())
    if total == 0:
        return 1.0
    return sum(per_phase[p] for p in phases) / total


def add(into: Dict[str, int], more: Dict[str, int]) -> Dict[str, int]:
    return {phase: into.get(phase, 0) + more.get(phase, 0) for phase in PHASES}


def peak_held(readings: Sequence[Reading], schedule, color: int) -> int:
    """The most one OSD held at once: over each span in which its color may not apply writes
    (guard and read phase), the growth of its cumulative deferred-write bytes from the span's first
    reading, as the rails module reckons held bytes. Writes queued between the span's start and
    its first reading are missed, so readings should be close together."""
    peak = 0
    base = None
    for reading in readings:
        if phase_of(schedule, color, reading.t) == "write":
            base = None
            continue
        if base is None or reading.value < base:
            # A new hold, or the OSD restarted (its counters start again from zero).
            base = reading.value
        peak = max(peak, reading.value - base)
    return peak
