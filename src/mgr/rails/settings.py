"""The module's settings (`ceph config set mgr mgr/rails/<name> <value>`), validated in one place.

Values arrive from the config database already typed by ceph-mgr when they parse; validate()
still checks each one, because a bad value must produce an error naming the option and the
accepted range, and must leave that option's previous value in force while the others apply.
"""
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Tuple, Union

# BlueStore's ceiling for bluestore_deferred_batch_ops; a hold is this many ops at most.
BATCH_OPS_MAX = 65535


@dataclass(frozen=True)
class Settings:
    # False: release every OSD and stop switching (the module stays loaded for status).
    active: bool = True
    # Upper bound on how long serve() sleeps between checks when no switch is due.
    poll_seconds: float = 0.5
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
    # writers are slowed and its new writes bypass the hold, and BlueStore itself applies the hold
    # when it reaches them (see hold_args), with or without a mgr. It also bounds the backlog a
    # release applies at once, which stalls that OSD's writers. With 64 writes of 4 KiB in flight
    # the slowest write passed 1 s in 5 of 10 runs at 512 MiB and stayed at or under 0.65 s in 7 of
    # 7 at 128 MiB, though this load's holds peak at 25-37 MiB: what differs is the BlueStore
    # throttles hold_args derives from the budget. A burst whose holds peaked at 35-78 MiB was not
    # slowed at 128 MiB (bench/rails/README.md, "Release stalls and faults").
    held_bytes_budget: int = 128 << 20
    # Clock skew warned about, as a fraction of the smallest guard (the guard absorbs skew).
    clock_skew_guard_fraction: float = 0.5
    # Fail-slow OSDs (slow_osds.py; doc/rails.rst, "Reading around a slow OSD"). The defaults
    # marked a 10x slower emulated SSD within two windows of 5 s and cleared it 3 windows after it
    # healed, with no false mark, on the recording src/mgr/tests/test_slow_osds.py replays.
    slow_osd_detection: bool = True
    slow_osd_window_seconds: float = 5.0
    slow_osd_ratio: float = 3.0
    slow_osd_clear_ratio: float = 1.5
    slow_osd_windows: int = 2
    slow_osd_clear_windows: int = 3
    slow_osd_min_ops: int = 20
    slow_osd_max_fraction: float = 0.34
    slow_osd_probe_seconds: float = 60.0


@dataclass(frozen=True)
class SettingError:
    option: str
    message: str


# name -> (type, minimum, maximum, description); the single table both validate() and the
# module's MODULE_OPTIONS are built from.
OPTION_TABLE: Dict[str, Tuple[type, Any, Any, str]] = {
    "active": (bool, None, None, "hold and release OSDs on the Rails schedule"),
    "poll_seconds": (float, 0.05, 5.0, "longest sleep of the control loop between checks"),
    "prefer_deferred_size": (int, 4096, 64 << 20, "bluestore_prefer_deferred_size: writes below it can be held"),
    "perf_seconds": (float, 1.0, 600.0, "how often held OSDs' deferred-write counters are read"),
    "release_spread_seconds": (float, 0.0, 60.0, "releases at one switch are spread over this long "
                               "(at most a quarter of each pool's write phase)"),
    "max_parallel_releases": (int, 1, 1024, "OSDs released and applying their backlog at the same time"),
    "held_bytes_budget": (int, 1 << 20, 1 << 50, "deferred bytes a held OSD may queue; before it would pass them "
                          "its writers are slowed and its new writes bypass the hold"),
    "clock_skew_guard_fraction": (float, 0.01, 1.0, "clock skew above this fraction of the smallest guard is warned"),
    "slow_osd_detection": (bool, None, None, "mark OSDs whose BlueStore latency is an outlier among their peers; "
                           "erails reads on pools with crush-colors avoid them"),
    "slow_osd_window_seconds": (float, 1.0, 60.0, "how often every OSD's latency counters are read (one window)"),
    "slow_osd_ratio": (float, 1.5, 100.0, "an OSD at this multiple of its peers' median latency or more is an "
                       "outlier in a window"),
    "slow_osd_clear_ratio": (float, 1.0, 100.0, "a marked OSD at or under this multiple of its peers' median is "
                             "healthy in a window; below slow_osd_ratio"),
    "slow_osd_windows": (int, 1, 100, "windows in a row as an outlier before an OSD is marked slow"),
    "slow_osd_clear_windows": (int, 1, 1000, "windows in a row healthy before a mark is cleared"),
    "slow_osd_min_ops": (int, 1, 1 << 30, "ops an OSD must serve in a window for its latency to count"),
    "slow_osd_max_fraction": (float, 0.05, 0.5, "more outliers than this fraction of the OSDs judged in a window "
                              "is load: every mark is cleared"),
    "slow_osd_probe_seconds": (float, 5.0, 3600.0, "a marked OSD too little used to judge is cleared after this "
                               "long, so that reads try it again"),
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


def validate(raw: Dict[str, Any], previous: Settings = Settings()) -> Tuple[Settings, List[SettingError]]:
    """Settings from option values (None or absent: the default), and every bad option; a bad
    option keeps its value in `previous`."""
    values = {}
    errors = []
    for name, (kind, low, high, _) in OPTION_TABLE.items():
        value = raw.get(name)
        if value is None:
            continue
        coerced = _coerce(name, kind, value)
        if not isinstance(coerced, SettingError) and low is not None and not low <= coerced <= high:
            coerced = SettingError(name, f"mgr/rails/{name} is {value!r}; accepted: {low}..{high}")
        if isinstance(coerced, SettingError):
            errors.append(coerced)
            values[name] = getattr(previous, name)
        else:
            values[name] = coerced
    clear, mark = values.get("slow_osd_clear_ratio", previous.slow_osd_clear_ratio), \
        values.get("slow_osd_ratio", previous.slow_osd_ratio)
    if clear >= mark:
        kept = previous.slow_osd_clear_ratio if previous.slow_osd_clear_ratio < mark else max(1.0, mark / 2)
        errors.append(SettingError("slow_osd_clear_ratio", f"mgr/rails/slow_osd_clear_ratio is {clear!r}; accepted: "
                                   f"below mgr/rails/slow_osd_ratio ({mark!r}); {kept!r} is used"))
        values["slow_osd_clear_ratio"] = kept
    return Settings(**values), errors


# bluestore_throttle_cost_per_io while held. BlueStore charges every transaction its data bytes
# plus this per I/O against its deferred throttle, and on rotational devices the default is
# 670000, 164 times a 4 KiB write: at 1 the throttle counts the bytes a hold keeps, so that it can
# bound them. 0 (Ceph's default) means the per-media value again.
HELD_COST_PER_IO = 1
RELEASED_COST_PER_IO = 0
# bluestore_throttle_bytes while held: Ceph's default, or a quarter of the budget if smaller.
HELD_THROTTLE_BYTES = 64 << 20


def held_throttle_bytes(settings: Settings) -> int:
    return min(HELD_THROTTLE_BYTES, settings.held_bytes_budget // 4)


def self_applied_bytes(settings: Settings) -> int:
    """Held bytes at which BlueStore applies a hold by itself (see hold_args). The throttle's value
    passes that point by what is in flight, at most bluestore_throttle_bytes (32.1 MiB were seen
    held with this point at the budget, 32 MiB), so it lies that far below held_bytes_budget."""
    return settings.held_bytes_budget - held_throttle_bytes(settings)


def hold_args(settings: Settings, defer_interval_seconds: float) -> Tuple[str, ...]:
    """injectargs that make BlueStore keep deferred writes in its WAL instead of applying them, and
    that bound the hold by BlueStore's own means, so that it stays bounded without a mgr.

    Bytes: BlueStore's deferred throttle allows bluestore_throttle_bytes +
    bluestore_throttle_deferred_bytes and applies what is held at half of that (measured: with
    4 MiB as that half, a hold of 4 KiB writes was applied every ~1,000 writes, 3.9 MiB), so the
    two add up to twice self_applied_bytes(). Time: BlueStore submits deferred writes by itself
    once none was submitted for bluestore_max_defer_interval, checking every third of it
    (measured: 12 s gave an application 13.9 s after the last one), see
    controller.defer_interval_seconds."""
    throttle_bytes = held_throttle_bytes(settings)
    return (f"--bluestore_deferred_batch_ops={BATCH_OPS_MAX}",
            f"--bluestore_max_defer_interval={defer_interval_seconds:g}",
            f"--bluestore_throttle_cost_per_io={HELD_COST_PER_IO}",
            f"--bluestore_throttle_bytes={throttle_bytes}",
            f"--bluestore_throttle_deferred_bytes={2 * self_applied_bytes(settings) - throttle_bytes}",
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
    """Drops the runtime throttle the hold and over_budget_args() set, back to the config database's
    value or the default; sent at every release, so an OSD slowed under a previous mgr is restored too. The
    bypass needs no undoing: the next hold sets bluestore_prefer_deferred_size again."""
    return {"prefix": "config unset", "var": "bluestore_throttle_bytes"}


# bluestore_deferred_batch_ops while released. BlueStore submits queued deferred writes at a
# transaction commit only once this many are queued; 0 means its per-media default (64 on "hdd"),
# and a backlog below that stayed unapplied here after a release and any number of kicks (the hold's
# max_defer_interval, a cycle of the schedule, keeps the timer from submitting it that long). At 1 the kick submits any
# backlog, and each later commit submits what is queued, so a write phase ends with nothing queued.
RELEASED_BATCH_OPS = 1


def release_args() -> Tuple[str, ...]:
    """injectargs that let BlueStore apply deferred writes again (at its next transaction)."""
    return (f"--bluestore_deferred_batch_ops={RELEASED_BATCH_OPS}",
            f"--bluestore_throttle_cost_per_io={RELEASED_COST_PER_IO}")
