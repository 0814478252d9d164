"""`ceph rails status`: one dict built from the module's state at `now`, and its plain-text form."""
from typing import Collection, Dict, List, Optional

from .accounting import HoldAccounting
from .controller import OsdState, wanted_holds
from .reads import MixedReads
from .settings import BATCH_OPS_MAX, Settings
from .topology import Topology


def build_status(topology: Topology, states: Dict[int, OsdState], accounting: HoldAccounting,
                 settings: Settings, now: float, mixed: Optional[MixedReads] = None,
                 leased: Collection[int] = (), no_lease: Collection[int] = ()) -> dict:
    """leased: OSDs whose Rails lease the module granted and has not cancelled; no_lease: OSDs that
    refused it (lease.py)."""
    wanted = wanted_holds(topology, now)
    pools = []
    for pool in topology.pools:
        schedule = pool.schedule
        colors = []
        for index, color in enumerate(pool.colors):
            if schedule.is_read_phase(index, now):
                phase = "read"
            elif schedule.may_apply_writes(index, now):
                phase = "write"
            else:
                phase = "guard"
            colors.append({"color": index, "bucket": color.name, "osds": list(color.osds),
                           "phase": phase, "next_change": schedule.next_phase_change(index, now)})
        params = schedule.params
        pools.append({"pool": pool.name, "pool_id": pool.pool_id, "profile": pool.profile_name,
                      "frame_seconds": params.frame_seconds, "readers": params.readers,
                      "epoch": params.epoch, "guard_seconds": params.guard_seconds,
                      "next_switch": schedule.next_switch(now), "colors": colors,
                      "pgs_mixing": [] if mixed is None else mixed.mixing(topology, now).get(pool.name, []),
                      "reads_mixed": None if mixed is None else mixed.reads(pool.name)})
    osds = []
    for osd in sorted(wanted):
        state = states.get(osd)
        hold = accounting.hold(osd)
        release = accounting.release(osd)
        osds.append({
            "osd": osd,
            "up": osd in topology.up_osds,
            "should_hold": wanted[osd] and settings.active,
            "held": None if state is None else state.held,
            "since": None if state is None else state.since,
            "held_writes": None if hold is None else hold.held_writes(),
            "held_write_limit": BATCH_OPS_MAX,
            "last_release_applied_ops": accounting.last_release_applied(osd),
            "held_bytes": None if hold is None else hold.held_bytes(),
            "held_txcs": None if hold is None else hold.latest.unapplied_txcs(),
            "held_bytes_budget": settings.held_bytes_budget,
            "slowed": hold is not None and hold.slowed,
            "last_release_backlog_txcs": None if release is None else release.backlog_txcs(),
            "last_release_kicks": None if release is None else release.kicks,
            "last_release_unapplied_txcs": None if release is None else release.remaining_txcs(),
            "lease": "refused" if osd in no_lease else ("granted" if osd in leased else None),
        })
    return {"now": now, "active": settings.active, "pools": pools, "osds": osds,
            "uncolored_osds": topology.uncolored_osds,
            "problems": [f"pool {p.pool} is not scheduled: {p.message}" for p in topology.problems]
            + [f"pool {pool} is not scheduled: its erails profile has no crush-colors" for pool in topology.plain_pools],
            "conflicts": [f"osd.{c.osd}: pools {c.pool_a} and {c.pool_b}" for c in topology.conflicts]}


def _seconds_from(now: float, t: float) -> str:
    return f"in {t - now:.1f} s"


def render_plain(status: dict) -> str:
    now = status["now"]
    lines: List[str] = []
    if not status["active"]:
        lines.append("rails is inactive (mgr/rails/active=false): every OSD is released")
    if not status["pools"] and not status["problems"]:
        lines.append("no pool uses an erails profile")
    for pool in status["pools"]:
        lines.append(f"pool {pool['pool']} (profile {pool['profile']}): frame {pool['frame_seconds']} s, "
                     f"{pool['readers']} readers, guard {pool['guard_seconds']:.3f} s, "
                     f"next switch {_seconds_from(now, pool['next_switch'])}")
        if pool["reads_mixed"] is not None:
            lines.append(f"  reads mixing write-phase shards: {len(pool['pgs_mixing'])} PG(s) now, "
                         f"{pool['reads_mixed']} reads since the module started")
        for color in pool["colors"]:
            osds = ",".join(str(o) for o in color["osds"])
            lines.append(f"  color {color['color']} {color['bucket']:<12} {color['phase']:<5} "
                         f"osds {osds:<10} next change {_seconds_from(now, color['next_change'])}")
    if status["osds"]:
        lines.append("osd   up  should-hold  held   held-writes/limit  held-MiB/budget  slowed  "
                     "last-release: applied-ops kicks unapplied-txcs  lease")
    for osd in status["osds"]:
        held = "?" if osd["held"] is None else ("yes" if osd["held"] else "no")
        writes = "-" if osd["held_writes"] is None else str(osd["held_writes"])
        held_mib = "-" if osd["held_bytes"] is None else f"{osd['held_bytes'] / 2**20:.1f}"
        budget = f"{held_mib}/{osd['held_bytes_budget'] / 2**20:g}"
        release = " ".join("-" if osd[key] is None else str(osd[key]) for key in
                           ("last_release_applied_ops", "last_release_kicks", "last_release_unapplied_txcs"))
        lines.append(f"{osd['osd']:<5} {'yes' if osd['up'] else 'no':<3} "
                     f"{'yes' if osd['should_hold'] else 'no':<12} {held:<6} "
                     f"{writes + '/' + str(osd['held_write_limit']):<18} {budget:<16} "
                     f"{'yes' if osd['slowed'] else 'no':<7} {release:<47} {osd['lease'] or '-'}")
    for osd in status["uncolored_osds"]:
        lines.append(f"osd.{osd} is under no color")
    lines.extend(status["problems"])
    lines.extend(f"schedule conflict on {c}" for c in status["conflicts"])
    return "\n".join(lines) + "\n"
