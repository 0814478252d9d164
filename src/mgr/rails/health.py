"""Health checks of the rails module, from its state; pure, so tests check every warning."""
from typing import Dict, List, Optional, Sequence

from .accounting import HoldAccounting
from .lease import no_lease_detail
from .settings import BATCH_OPS_MAX, Settings, SettingError
from .topology import Topology

# PGs named per pool in a health detail line; `ceph rails status -f json` lists them all.
PGS_NAMED = 10


def _some(pgids: List[str]) -> str:
    more = len(pgids) - PGS_NAMED
    return " ".join(pgids[:PGS_NAMED]) + (f" and {more} more" if more > 0 else "")


def _check(summary: str, detail: List[str]) -> dict:
    return {"severity": "warning", "summary": summary, "count": len(detail), "detail": detail}


def health_checks(topology: Topology, accounting: HoldAccounting, settings: Settings,
                  setting_errors: Sequence[SettingError], failed: Dict[int, str],
                  device_problems: Dict[int, str], clock_problems: Sequence[str] = (),
                  mixing: Optional[Dict[str, List[str]]] = None,
                  spread_error: Optional[SettingError] = None, loop_error: Optional[str] = None,
                  no_lease: Optional[Dict[int, str]] = None, slow_osds: Sequence[str] = (),
                  avoid_failed: Optional[Dict[int, str]] = None) -> Dict[str, dict]:
    """mixing: pool name -> PGs whose reads need write-phase shards now (reads.MixedReads);
    spread_error: release_spread_seconds too long for a pool (pacing.effective_spread);
    loop_error: why the last control loop failed, while holding is suspended after it;
    no_lease: osd -> its answer, for the OSDs that refused the Rails lease (lease.py);
    slow_osds: one line per OSD marked slow (avoid.mark_lines); avoid_failed: osd -> its answer, for
    the OSDs that did not take the marks."""
    checks = {}
    if loop_error is not None:
        checks["RAILS_LOOP_ERROR"] = _check(
            "the rails control loop failed: every OSD was released and none is held for now", [loop_error])
    if topology.problems:
        checks["RAILS_PROFILE_INVALID"] = _check(
            f"{len(topology.problems)} Rails pool(s) have an unusable profile",
            [f"pool {p.pool}: {p.message}" for p in topology.problems])
    if topology.conflicts:
        checks["RAILS_SCHEDULE_CONFLICT"] = _check(
            f"{len(topology.conflicts)} OSD(s) carry pools whose Rails schedules conflict",
            [f"osd.{c.osd}: pools {c.pool_a} and {c.pool_b} give it different phases" for c in topology.conflicts])
    if topology.uncolored_osds:
        checks["RAILS_OSD_NO_COLOR"] = _check(
            f"{len(topology.uncolored_osds)} OSD(s) are under no Rails color",
            [f"osd.{osd} is in no bucket named by any crush-colors" for osd in topology.uncolored_osds])
    overflow = accounting.overflowing(BATCH_OPS_MAX)
    if overflow:
        checks["RAILS_HOLD_OVERFLOW"] = _check(
            f"{len(overflow)} OSD(s) hold more writes than BlueStore keeps back", list(overflow.values()))
    failures = {osd: f"osd.{osd}: {why}" for osd, why in failed.items()}
    failures.update(accounting.failed_kicks())
    if failures:
        checks["RAILS_OSD_COMMAND_FAILED"] = _check(
            f"{len(failures)} OSD(s) did not take their Rails hold or release",
            [failures[osd] for osd in sorted(failures)])
    if no_lease:
        checks["RAILS_NO_LEASE"] = _check(
            f"{len(no_lease)} OSD(s) are held without a Rails lease: if the rails module stops, their holds "
            "end only by BlueStore's own bounds", no_lease_detail(no_lease))
    slow = accounting.slow_backlogs()
    if slow:
        checks["RAILS_BACKLOG_SLOW"] = _check(
            f"{len(slow)} OSD(s) did not apply their released backlog within their write phase", list(slow.values()))
    slowed = accounting.slowed(settings.held_bytes_budget, BATCH_OPS_MAX)
    if slowed:
        checks["RAILS_WRITERS_SLOWED"] = _check(
            f"{len(slowed)} held OSD(s) neared mgr/rails/held_bytes_budget or the writes BlueStore keeps back; "
            "their writers are slowed and their new writes reach their data devices in their read phase",
            list(slowed.values()))
    if clock_problems:
        checks["RAILS_CLOCK_SKEW"] = _check(
            f"{len(clock_problems)} clock(s) are skewed by a large part of the Rails guard", list(clock_problems))
    if mixing:
        checks["RAILS_READS_MIXED"] = _check(
            f"{sum(len(pgs) for pgs in mixing.values())} PG(s) read from write-phase shards "
            "(too few read-phase shards available)",
            [f"pool {pool}: {len(pgs)} PG(s): {_some(pgs)}" for pool, pgs in sorted(mixing.items())])
    if slow_osds or avoid_failed:
        detail = list(slow_osds) + [f"osd.{osd} did not take the slow-OSD marks' last update: {why}"
                                    for osd, why in sorted((avoid_failed or {}).items())]
        summary = (f"{len(slow_osds)} OSD(s) slow against their peers" if slow_osds else
                   f"{len(avoid_failed or {})} OSD(s) did not take the end of the slow-OSD marks, which end by "
                   "themselves")
        checks["RAILS_OSD_SLOW"] = _check(summary, detail)
    if device_problems:
        checks["RAILS_OSD_DEVICES"] = _check(
            f"{len(device_problems)} Rails OSD(s) cannot keep held writes off their data device",
            [device_problems[osd] for osd in sorted(device_problems)])
    bad = [error.message for error in list(setting_errors) + [spread_error] if error is not None]
    if bad:
        checks["RAILS_BAD_SETTING"] = _check(f"{len(bad)} mgr/rails setting(s) invalid (ignored or cut)", bad)
    return checks
