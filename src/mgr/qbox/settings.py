"""The module's settings (`ceph config set mgr mgr/qbox/<name> <value>`): one table that both
MODULE_OPTIONS (so Ceph refuses out-of-range values itself) and validate() are built from."""
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Tuple


@dataclass(frozen=True)
class Settings:
    # How often every up OSD is asked for its status and given the table if its epoch differs;
    # also how soon a new client session reaches the OSDs.
    push_seconds: float = 5.0
    # A backlogged client whose achieved share is this far below its target misses it.
    miss_margin: float = 0.05
    # QBOX_TARGET_MISSED is raised for a client missing its target on an OSD this long without a
    # break: a window or two below target is noise of the estimator, not a broken guarantee.
    miss_seconds: float = 30.0
    # A client counts as backlogged in a window when it had ops queued this fraction of it; only a
    # backlogged client is owed its share (an idle one leaves it to others).
    backlogged_min: float = 0.5
    # A throughput SLA's utilization falls only when the OSDs' prices give one this fraction
    # below it (it rises at once): costs move a little every window, and each change is a new
    # table for every OSD.
    sla_lower_margin: float = 0.1


# name -> (minimum, maximum, description)
OPTION_TABLE: Dict[str, Tuple[float, float, str]] = {
    "push_seconds": (1.0, 600.0, "how often OSDs are asked for their QBox status and given the table"),
    "miss_margin": (0.0, 1.0, "a backlogged client this far below its target misses it"),
    "miss_seconds": (1.0, 86400.0, "how long a target is missed before QBOX_TARGET_MISSED"),
    "backlogged_min": (0.0, 1.0, "fraction of a window with queued ops for a client to count as backlogged"),
    "sla_lower_margin": (0.0, 1.0, "a throughput SLA's utilization falls only when re-derived this fraction lower"),
}


def validate(raw: Dict[str, Any], previous: Settings = Settings()) -> Tuple[Settings, List[str]]:
    """Settings from option values (None or absent: the default) and a message per bad value; a
    bad option keeps its previous value."""
    values = {}
    errors = []
    for name, (low, high, _) in OPTION_TABLE.items():
        value = raw.get(name)
        if value is None:
            continue
        try:
            number = float(value) if not isinstance(value, bool) else math.nan
        except (TypeError, ValueError):
            number = math.nan
        if not (math.isfinite(number) and low <= number <= high):
            errors.append(f"mgr/qbox/{name} is {value!r}; accepted: a number in {low:g}..{high:g}")
            values[name] = getattr(previous, name)
        else:
            values[name] = number
    return Settings(**values), errors
