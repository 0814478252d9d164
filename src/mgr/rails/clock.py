"""Clock skew against the guard.

Every daemon computes phases from its own clock, and the guard (rails-guard) is what absorbs
their disagreement: a writer turning reader stops writing a guard before the switch. Two figures
are cheap for the mgr: the monitors' skews against their leader (`ceph time-sync-status`, which the
monitors measure by pinging each other), and the kernel's own estimate of the mgr host's error
(adjtimex(2), kept by the host's NTP daemon). The OSDs' clocks are not visible to either: Ceph
does not report them, so an OSD host's skew is not checked here.
"""
import ctypes
import ctypes.util
from dataclasses import dataclass
from typing import List, Optional

# adjtimex(2) status bit: the kernel's clock is not synchronised (no NTP daemon, or it lost sync).
STA_UNSYNC = 0x0040


@dataclass(frozen=True)
class KernelClock:
    synchronised: bool
    estimated_error_seconds: float  # meaningful only when synchronised


class _Timex(ctypes.Structure):
    # struct timex of <sys/timex.h> on Linux: the fields read here, then the rest as padding.
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("rest", ctypes.c_long * 32)]


def kernel_clock() -> Optional[KernelClock]:
    """The mgr host's clock state from adjtimex(2) (modes 0: read only); None if unavailable."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        timex = _Timex()
        if libc.adjtimex(ctypes.byref(timex)) < 0:
            return None
    except (OSError, AttributeError):
        return None
    return KernelClock(not timex.status & STA_UNSYNC, timex.esterror / 1e6)


def skew_limit(guard_seconds: float, fraction: float) -> float:
    return guard_seconds * fraction


def skew_problems(time_sync_status: dict, mgr_clock: Optional[KernelClock], guard_seconds: float,
                  fraction: float) -> List[str]:
    """One line per clock whose skew is above `fraction` of the smallest guard."""
    limit = skew_limit(guard_seconds, fraction)
    against = f"above {limit:.3f} s ({fraction:g} of the smallest rails-guard, {guard_seconds:g} s)"
    problems = []
    for mon, entry in sorted(time_sync_status.get("time_skew_status", {}).items()):
        try:
            skew = abs(float(entry.get("skew", 0.0)))
        except (TypeError, ValueError, AttributeError):
            problems.append(f"mon.{mon}: time-sync-status gives no usable skew ({entry!r})")
            continue
        if skew > limit:
            problems.append(f"mon.{mon} is {skew:.3f} s off the leader monitor, {against}")
    if mgr_clock is not None and mgr_clock.synchronised and mgr_clock.estimated_error_seconds > limit:
        problems.append(f"the mgr host's kernel estimates its clock error at "
                        f"{mgr_clock.estimated_error_seconds:.3f} s, {against}")
    return problems


def describe(time_sync_status: dict, mgr_clock: Optional[KernelClock]) -> str:
    """One line for `ceph rails status`."""
    skews = []
    for mon, entry in sorted(time_sync_status.get("time_skew_status", {}).items()):
        try:
            skews.append(f"mon.{mon} {float(entry.get('skew', 0.0)):+.3f} s")
        except (TypeError, ValueError, AttributeError):
            skews.append(f"mon.{mon} ?")
    mons = ", ".join(skews) if skews else "no skew reported (a single monitor has none to measure)"
    if mgr_clock is None:
        mgr = "mgr host clock unknown (adjtimex unavailable)"
    elif not mgr_clock.synchronised:
        mgr = "mgr host clock not synchronised per its kernel (error unknown, not checked)"
    else:
        mgr = f"mgr host clock estimated error {mgr_clock.estimated_error_seconds:.3f} s"
    return f"clocks: {mons}; {mgr}; OSD clocks not visible"
