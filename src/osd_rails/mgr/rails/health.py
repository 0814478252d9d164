"""Health checks of the rails module, from its state; pure, so tests check every warning."""
from typing import Dict, List, Optional

from .accounting import HoldAccounting
from .settings import Settings, SettingError
from .topology import Topology

def _check(summary: str, detail: List[str]) -> dict:
    return {"severity": "warning", "summary": summary, "count": len(detail), "detail": detail}


def health_checks(topology: Topology, accounting: HoldAccounting, settings: Settings,
                  setting_error: Optional[SettingError], failed: Dict[int, str],
                  device_problems: Dict[int, str]) -> Dict[str, dict]:
    checks = {}
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
    overflow = accounting.overflowing(settings.held_op_limit())
    if overflow:
        checks["RAILS_HOLD_OVERFLOW"] = _check(
            f"{len(overflow)} OSD(s) hold more writes than BlueStore keeps back", list(overflow.values()))
    if failed:
        checks["RAILS_OSD_COMMAND_FAILED"] = _check(
            f"{len(failed)} OSD(s) did not take their Rails hold or release",
            [f"osd.{osd}: {why}" for osd, why in sorted(failed.items())])
    if device_problems:
        checks["RAILS_OSD_DEVICES"] = _check(
            f"{len(device_problems)} Rails OSD(s) cannot keep held writes off their data device",
            [device_problems[osd] for osd in sorted(device_problems)])
    if setting_error is not None:
        checks["RAILS_BAD_SETTING"] = _check("a mgr/rails setting is invalid and ignored", [setting_error.message])
    return checks
