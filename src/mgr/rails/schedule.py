"""The Rails schedule in Python, for the ceph-mgr "rails" module (standard library only).

Same definition and same answers as src/rails/schedule.h; both are checked against
src/rails/testdata/schedule_vectors.txt. Every query takes the time as an argument: the
module passes time.time(), tests pass fixed values.

    frame(t)      = floor((t - epoch) / frame_seconds)
    window start  = frame(t) mod colors
    read set      = `readers` consecutive colors from the window start, on the ring of colors
The writer that becomes a reader at the next switch stops applying writes `guard_seconds`
before that switch (thesis section 4.4.4); phase() ignores the guard, may_apply_writes() does not.
"""
import math
from dataclasses import dataclass
from typing import List, Optional, Tuple, Union

MAX_COLORS = 64
# Same bounds as schedule.h: they keep every frame start a distinct float.
MIN_FRAME_SECONDS = 0.001
MAX_ABS_TIME = 1e12


@dataclass(frozen=True)
class ParamError:
    key: str      # the profile key at fault, e.g. "rails-readers"
    message: str  # full sentence with the accepted range


@dataclass(frozen=True)
class ScheduleParams:
    colors: int            # k + m, 2..MAX_COLORS
    frame_seconds: float   # rails-frame, finite, > 0
    readers: int           # rails-readers, 1..colors-1
    epoch: float           # rails-epoch, finite
    guard_seconds: float   # rails-guard, 0 <= guard < frame


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_real(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def validate(p: ScheduleParams) -> Optional[ParamError]:
    """The first problem with p, naming the key and the accepted range, or None."""
    if not _is_int(p.colors) or not 2 <= p.colors <= MAX_COLORS:
        return ParamError("k+m", f"k+m (number of colors) is {p.colors!r}; accepted: 2..{MAX_COLORS}")
    if not _is_real(p.frame_seconds) or p.frame_seconds < MIN_FRAME_SECONDS:
        return ParamError("rails-frame", f"rails-frame is {p.frame_seconds!r}; "
                          f"accepted: a finite number of seconds >= {MIN_FRAME_SECONDS}")
    if not _is_int(p.readers) or not 1 <= p.readers <= p.colors - 1:
        return ParamError("rails-readers", f"rails-readers is {p.readers!r}; accepted: 1..{p.colors - 1} "
                          "(k+m-1: at least one color must be in write phase)")
    if not _is_real(p.epoch) or abs(p.epoch) > MAX_ABS_TIME:
        return ParamError("rails-epoch", f"rails-epoch is {p.epoch!r}; "
                          f"accepted: seconds in -{MAX_ABS_TIME:g}..{MAX_ABS_TIME:g}")
    if not _is_real(p.guard_seconds) or not 0 <= p.guard_seconds < p.frame_seconds:
        return ParamError("rails-guard", f"rails-guard is {p.guard_seconds!r}; "
                          f"accepted: 0 <= rails-guard < rails-frame ({p.frame_seconds!r})")
    return None


class Schedule:
    """Build with Schedule.create(); all times are seconds on the cluster's (NTP-synced) clock."""

    def __init__(self, params: ScheduleParams):
        error = validate(params)
        if error is not None:
            raise ValueError(error.message)
        self.params = params
        self._frame_seconds = float(params.frame_seconds)
        self._epoch = float(params.epoch)
        self._guard = float(params.guard_seconds)

    @staticmethod
    def create(params: ScheduleParams) -> Union["Schedule", ParamError]:
        error = validate(params)
        return error if error is not None else Schedule(params)

    def frame(self, t: float) -> int:
        """floor((t - epoch) / frame), settled against frame_start() so both agree exactly.

        Precondition: abs(t) <= MAX_ABS_TIME."""
        f = math.floor((t - self._epoch) / self._frame_seconds)
        while t < self.frame_start(f):
            f -= 1
        while t >= self.frame_start(f + 1):
            f += 1
        return f

    def window_start(self, t: float) -> int:
        return self.frame(t) % self.params.colors

    def read_set_of_frame(self, f: int) -> int:
        """Bitmask of the read-phase colors in frame f."""
        n = self.params.colors
        start = f % n
        mask = 0
        for i in range(self.params.readers):
            mask |= 1 << ((start + i) % n)
        return mask

    def read_set(self, t: float) -> int:
        return self.read_set_of_frame(self.frame(t))

    def read_colors(self, t: float) -> List[int]:
        mask = self.read_set(t)
        return [c for c in range(self.params.colors) if mask >> c & 1]

    def is_read_phase(self, color: int, t: float) -> bool:
        return bool(self.read_set(t) >> color & 1)

    def frame_start(self, f: int) -> float:
        """epoch + f * frame in float arithmetic; frame(x) == f exactly from here to the next start."""
        return self._epoch + float(f) * self._frame_seconds

    def next_switch(self, t: float) -> float:
        return self.frame_start(self.frame(t) + 1)

    def may_apply_writes(self, color: int, t: float) -> bool:
        f = self.frame(t)
        if self.read_set_of_frame(f) >> color & 1:
            return False
        if not self.read_set_of_frame(f + 1) >> color & 1:
            return True
        return t < self.frame_start(f + 1) - self._guard

    def apply_set(self, t: float) -> int:
        mask = 0
        for c in range(self.params.colors):
            if self.may_apply_writes(c, t):
                mask |= 1 << c
        return mask

    def next_phase_change(self, color: int, t: float) -> float:
        f = self.frame(t)
        n = self.params.colors
        pos = (color - f % n) % n
        ahead = pos + 1 if pos < self.params.readers else pos - self.params.readers + 1
        return self.frame_start(f + ahead)
