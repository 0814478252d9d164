"""The module's settings (`ceph config set mgr mgr/rails/<name> <value>`), validated in one place.

Values arrive from the config database already typed by ceph-mgr when they parse; validate()
still checks each one, because a bad value must produce an error naming the option and the
accepted range, and must leave the previous settings in force.
"""
import math
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple, Union

# BlueStore's ceiling for bluestore_deferred_batch_ops; a hold is this many ops at most.
BATCH_OPS_MAX = 65535


@dataclass(frozen=True)
class Settings:
    # False: release every OSD and stop switching (the module stays loaded for status).
    active: bool = True
    # Upper bound on how long serve() sleeps between checks when no switch is due.
    poll_seconds: float = 0.5
    # Held writes are charged against this throttle; BlueStore flushes by itself at half of it.
    hold_throttle_bytes: int = 128 << 30
    # What BlueStore charges each small write against the throttle on rotational devices
    # (bluestore_throttle_cost_per_io_hdd; measured 670000, doc/dev/ceph-abi.md).
    cost_per_io: int = 670000
    # Writes below this size take the deferred path, so they can be held.
    prefer_deferred_size: int = 1 << 20
    # How often the held-op counters of held OSDs are read.
    perf_seconds: float = 5.0
    # The OSDs released at one switch are released in turns over this long, so that their
    # clients are not all stalled by a backlog being applied at once (a pool's write phase caps it).
    release_spread_seconds: float = 0.5
    # At most this many OSDs apply a released backlog at the same time.
    max_parallel_releases: int = 2
    # Deferred bytes a held OSD may queue (its memory holds them); before it would pass them its
    # writers are slowed and its new writes bypass the hold.
    held_bytes_budget: int = 512 << 20
    # Clock skew warned about, as a fraction of the smallest guard (the guard absorbs skew).
    clock_skew_guard_fraction: float = 0.5

    def held_op_limit(self) -> int:
        """Ops a hold can take before BlueStore applies them by itself mid read phase."""
        return min(BATCH_OPS_MAX, self.hold_throttle_bytes // 2 // self.cost_per_io)


@dataclass(frozen=True)
class SettingError:
    option: str
    message: str


# name -> (type, minimum, maximum, description); the single table both validate() and the
# module's MODULE_OPTIONS are built from.
OPTION_TABLE: Dict[str, Tuple[type, Any, Any, str]] = {
    "active": (bool, None, None, "hold and release OSDs on the Rails schedule"),
    "poll_seconds": (float, 0.05, 5.0, "longest sleep of the control loop between checks"),
    "hold_throttle_bytes": (int, 1 << 30, 1 << 50, "bluestore_throttle_deferred_bytes while held"),
    "cost_per_io": (int, 1, 1 << 30, "bytes BlueStore charges per small write (bluestore_throttle_cost_per_io_hdd)"),
    "prefer_deferred_size": (int, 4096, 64 << 20, "bluestore_prefer_deferred_size: writes below it can be held"),
    "perf_seconds": (float, 1.0, 600.0, "how often held OSDs' deferred-write counters are read"),
    "release_spread_seconds": (float, 0.0, 60.0, "releases at one switch are spread over this long "
                               "(at most a quarter of each pool's write phase)"),
    "max_parallel_releases": (int, 1, 1024, "OSDs released and applying their backlog at the same time"),
    "held_bytes_budget": (int, 1 << 20, 1 << 50, "deferred bytes a held OSD may queue; before it would pass them "
                          "its writers are slowed and its new writes bypass the hold"),
    "clock_skew_guard_fraction": (float, 0.01, 1.0, "clock skew above this fraction of the smallest guard is warned"),
}


def _coerce(name: str, kind: type, value: Any) -> Union[Any, SettingError]:
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return SettingError(name, f"mgr/rails/{name} is {value!r}; accepted: true or false")
    try:
        number = kind(value) if not isinstance(value, bool) else None
    except (TypeError, ValueError):
        number = None
    if number is None or (kind is float and not math.isfinite(number)):
        word = "a whole number" if kind is int else "a number"
        return SettingError(name, f"mgr/rails/{name} is {value!r}; accepted: {word}")
    return number


def validate(raw: Dict[str, Any]) -> Union[Settings, SettingError]:
    """Settings from option values (None or absent: the default), or the first bad option."""
    values = {}
    for name, (kind, low, high, _) in OPTION_TABLE.items():
        value = raw.get(name)
        if value is None:
            continue
        coerced = _coerce(name, kind, value)
        if isinstance(coerced, SettingError):
            return coerced
        if low is not None and not low <= coerced <= high:
            return SettingError(name, f"mgr/rails/{name} is {value!r}; accepted: {low}..{high}")
        values[name] = coerced
    settings = Settings(**values)
    if settings.held_op_limit() < 1:
        return SettingError("hold_throttle_bytes", "mgr/rails/hold_throttle_bytes / 2 is below one write's "
                            "cost (mgr/rails/cost_per_io); accepted: hold_throttle_bytes >= 2 * cost_per_io")
    return settings


def hold_args(settings: Settings) -> Tuple[str, ...]:
    """injectargs that make BlueStore keep deferred writes in its WAL instead of applying them."""
    return (f"--bluestore_deferred_batch_ops={BATCH_OPS_MAX}",
            "--bluestore_max_defer_interval=1000",
            f"--bluestore_throttle_deferred_bytes={settings.hold_throttle_bytes}",
            "--bluestore_max_deferred_txc=1000000",
            f"--bluestore_prefer_deferred_size={settings.prefer_deferred_size}")


# What an OSD whose hold is about to reach the memory budget gets until its release. At
# bluestore_throttle_bytes=1 a transaction waits until the one before it is committed (a request
# above the maximum is let through alone), so writers are serialized, never failed. That alone
# does not stop a hold from growing where commits are quick next to the clients' pace (the burst
# of bench/rails/evidence.py went on to 1.78 times its budget with it), so
# bluestore_prefer_deferred_size=1 also sends new writes (all but sub-allocation-unit overwrites)
# straight to the data device instead of the deferred queue, while what the OSD holds stays held.
SLOWED_THROTTLE_BYTES = 1
BYPASS_PREFER_DEFERRED_SIZE = 1


def over_budget_args() -> Tuple[str, ...]:
    """injectargs for an OSD whose hold reached the memory budget: its writers are slowed and its
    new writes bypass the hold."""
    return (f"--bluestore_throttle_bytes={SLOWED_THROTTLE_BYTES}",
            f"--bluestore_prefer_deferred_size={BYPASS_PREFER_DEFERRED_SIZE}")


def unslow_command() -> dict:
    """Drops the runtime throttle over_budget_args() set, back to the config database's value or
    the default; sent at every release, so an OSD slowed under a previous mgr is restored too. The
    bypass needs no undoing: the next hold sets bluestore_prefer_deferred_size again."""
    return {"prefix": "config unset", "var": "bluestore_throttle_bytes"}


# bluestore_deferred_batch_ops while released. BlueStore submits queued deferred writes at a
# transaction commit only once this many are queued; 0 means its per-media default (64 on "hdd"),
# and a backlog below that stayed unapplied here after a release and any number of kicks (the hold's
# max_defer_interval of 1000 s keeps the timer from submitting it). At 1 the kick submits any
# backlog, and each later commit submits what is queued, so a write phase ends with nothing queued.
RELEASED_BATCH_OPS = 1


def release_args() -> Tuple[str, ...]:
    """injectargs that let BlueStore apply deferred writes again (at its next transaction)."""
    return (f"--bluestore_deferred_batch_ops={RELEASED_BATCH_OPS}",)


def default_option(name: str) -> Optional[Any]:
    return getattr(Settings(), name)
