"""Which OSDs belong to which color, and which schedule each Rails pool follows.

Built from two documents the mgr already holds: the OSD map dump (pools, OSDs, erasure-code
profiles) and the CRUSH map dump. Pure functions of those dicts, so tests feed recorded or
hand-written maps. Problems (a bad profile, a missing color bucket) are returned as values naming
the pool and the key; they never raise.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .limits import MIN_RAILS_FRAME_SECONDS
from .schedule import Schedule, ScheduleParams, ParamError

DEFAULT_FRAME_SECONDS = 10.0
GUARD_FRACTION_OF_FRAME = 0.1  # the plugin's default rails-guard is frame/10


@dataclass(frozen=True)
class Color:
    name: str          # the CRUSH bucket named in crush-colors
    osds: Tuple[int, ...]


@dataclass(frozen=True)
class RailsPool:
    pool_id: int
    name: str
    profile_name: str
    schedule: Schedule
    colors: Tuple[Color, ...]  # shard order: colors[i] holds shard i
    data_shards: int           # k: a read needs this many shards


@dataclass(frozen=True)
class PoolProblem:
    pool: str
    key: str
    message: str


@dataclass(frozen=True)
class Conflict:
    """Two pools put one OSD on schedules that do not always agree on its phase."""
    osd: int
    pool_a: str
    pool_b: str


@dataclass
class Topology:
    pools: List[RailsPool] = field(default_factory=list)
    problems: List[PoolProblem] = field(default_factory=list)
    uncolored_osds: List[int] = field(default_factory=list)
    # Pools whose erails profile has no crush-colors: Rails cannot follow them.
    plain_pools: List[str] = field(default_factory=list)
    conflicts: List[Conflict] = field(default_factory=list)
    # osd id -> the OSD map epoch it last came up in; a change means the OSD restarted and has
    # lost every runtime setting the controller gave it.
    up_from: Dict[int, int] = field(default_factory=dict)
    up_osds: Tuple[int, ...] = ()

    def colored_osds(self) -> Dict[int, List[Tuple[RailsPool, int]]]:
        """osd -> every (pool, color index) that places shards on it."""
        result: Dict[int, List[Tuple[RailsPool, int]]] = {}
        for pool in self.pools:
            for index, color in enumerate(pool.colors):
                for osd in color.osds:
                    result.setdefault(osd, []).append((pool, index))
        return result


def osds_under_bucket(crush: dict, bucket_name: str) -> Optional[Tuple[int, ...]]:
    """The OSDs anywhere below the named bucket, sorted; None if there is no such bucket."""
    by_id = {b["id"]: b for b in crush.get("buckets", [])}
    root = next((b for b in by_id.values() if b.get("name") == bucket_name), None)
    if root is None:
        return None
    found = set()
    pending = [root["id"]]
    seen = set()
    while pending:
        bucket_id = pending.pop()
        if bucket_id in seen:
            continue
        seen.add(bucket_id)
        for item in by_id.get(bucket_id, {}).get("items", []):
            if item["id"] >= 0:
                found.add(item["id"])
            else:
                pending.append(item["id"])
    return tuple(sorted(found))


def _number(profile: Dict[str, str], key: str, default: Optional[float]) -> Tuple[Optional[float], Optional[str]]:
    raw = profile.get(key, "")
    if raw == "":
        return default, None
    try:
        return float(raw), None
    except ValueError:
        return None, f"{key} is {raw!r}; accepted: a number"


def _integer(profile: Dict[str, str], key: str, default: Optional[int]) -> Tuple[Optional[int], Optional[str]]:
    raw = profile.get(key, "")
    if raw == "":
        return default, None
    try:
        return int(raw), None
    except ValueError:
        return None, f"{key} is {raw!r}; accepted: a whole number"


def min_frame_message(raw: str) -> str:
    """Why a frame below the minimum is refused, in the plugin's words too (test_profile.cc)."""
    return (f"rails-frame is {raw!r}; accepted: at least {MIN_RAILS_FRAME_SECONDS:g} seconds, "
            "the time the rails mgr module needs to carry a switch to the OSDs")


def schedule_params(profile: Dict[str, str]) -> Tuple[Optional[ScheduleParams], Optional[ParamError]]:
    """The schedule parameters of an erails profile, with the plugin's defaults for absent keys."""
    k, error = _integer(profile, "k", None)
    if error is None and k is None:
        error = "k is missing; accepted: a whole number >= 1"
    if error:
        return None, ParamError("k", error)
    m, error = _integer(profile, "m", None)
    if error is None and m is None:
        error = "m is missing; accepted: a whole number >= 1"
    if error:
        return None, ParamError("m", error)
    frame, error = _number(profile, "rails-frame", DEFAULT_FRAME_SECONDS)
    if error is None and frame < MIN_RAILS_FRAME_SECONDS:
        error = min_frame_message(profile["rails-frame"])
    if error:
        return None, ParamError("rails-frame", error)
    readers, error = _integer(profile, "rails-readers", k)
    if error:
        return None, ParamError("rails-readers", error)
    epoch, error = _number(profile, "rails-epoch", 0.0)
    if error:
        return None, ParamError("rails-epoch", error)
    guard, error = _number(profile, "rails-guard", frame * GUARD_FRACTION_OF_FRAME)
    if error:
        return None, ParamError("rails-guard", error)
    params = ScheduleParams(colors=k + m, frame_seconds=frame, readers=readers,
                            epoch=epoch, guard_seconds=guard)
    return params, None


def is_rails_profile(profile: Dict[str, str]) -> bool:
    return profile.get("plugin") == "erails" and profile.get("crush-colors", "") != ""


def _rails_pool(pool: dict, profile: Dict[str, str], crush: dict) -> Tuple[Optional[RailsPool], Optional[PoolProblem]]:
    name = pool["pool_name"]
    params, error = schedule_params(profile)
    if error is None:
        created = Schedule.create(params)
        if isinstance(created, ParamError):
            error = created
    if error is not None:
        return None, PoolProblem(name, error.key, error.message)
    color_names = [c.strip() for c in profile["crush-colors"].split(",")]
    if len(color_names) != params.colors:
        return None, PoolProblem(name, "crush-colors", f"crush-colors names {len(color_names)} buckets; "
                                 f"accepted: exactly k+m = {params.colors}")
    colors = []
    for color_name in color_names:
        osds = osds_under_bucket(crush, color_name)
        if osds is None:
            return None, PoolProblem(name, "crush-colors", f"crush-colors names bucket {color_name!r}, "
                                     "which is not in the CRUSH map")
        if not osds:
            return None, PoolProblem(name, "crush-colors", f"color bucket {color_name!r} holds no OSD")
        colors.append(Color(color_name, osds))
    data_shards = params.colors - int(profile["m"])
    return RailsPool(pool["pool"], name, pool["erasure_code_profile"], created, tuple(colors), data_shards), None


def _same_phases(a: Tuple[RailsPool, int], b: Tuple[RailsPool, int]) -> bool:
    # Equal parameters and the same color index give identical phases at every instant; anything
    # else is treated as a conflict even if the two schedules happen to coincide for a while.
    return a[0].schedule.params == b[0].schedule.params and a[1] == b[1]


def find_conflicts(topology: Topology) -> List[Conflict]:
    conflicts = []
    for osd, placements in sorted(topology.colored_osds().items()):
        first = placements[0]
        for other in placements[1:]:
            if not _same_phases(first, other):
                conflicts.append(Conflict(osd, first[0].name, other[0].name))
                break
    return conflicts


def build_topology(osd_map: dict, crush: dict) -> Topology:
    """Topology of every pool whose profile is erails with crush-colors, from `ceph osd dump` and
    `ceph osd crush dump` shaped dicts."""
    topology = Topology()
    profiles = osd_map.get("erasure_code_profiles", {})
    for pool in osd_map.get("pools", []):
        profile = profiles.get(pool.get("erasure_code_profile", ""))
        if profile is not None and profile.get("plugin") == "erails" and not is_rails_profile(profile):
            topology.plain_pools.append(pool["pool_name"])
        if profile is None or not is_rails_profile(profile):
            continue
        rails_pool, problem = _rails_pool(pool, profile, crush)
        if problem is not None:
            topology.problems.append(problem)
        else:
            topology.pools.append(rails_pool)
    osds = osd_map.get("osds", [])
    topology.up_from = {o["osd"]: o.get("up_from", 0) for o in osds}
    topology.up_osds = tuple(sorted(o["osd"] for o in osds if o.get("up")))
    if topology.pools:
        colored = topology.colored_osds()
        topology.uncolored_osds = sorted(o["osd"] for o in osds if o.get("in") and o["osd"] not in colored)
    topology.conflicts = find_conflicts(topology)
    return topology
