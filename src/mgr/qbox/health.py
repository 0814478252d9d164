"""Health checks of the qbox module, from the OSDs' reports; pure, so tests check every warning."""
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from .push import OsdReport
from .settings import Settings

# The entry that holds every client without a reservation: its target is what is left, not a
# guarantee, so it cannot miss it.
UNRESERVED = "unreserved"


@dataclass(frozen=True)
class Miss:
    osd: int
    client: str
    target: float
    achieved: float
    since: float


class MissTracker:
    """Since when each (OSD, client) has been backlogged below its target without a break."""

    def __init__(self) -> None:
        self._since: Dict[Tuple[int, str], float] = {}
        self._latest: Dict[Tuple[int, str], Miss] = {}

    def observe(self, reports: Dict[int, OsdReport], settings: Settings, now: float) -> None:
        """One round of reports; an OSD that is not active now forgets its misses."""
        missing = {}
        for osd, report in reports.items():
            if not report.active:
                continue
            for entry in report.status.get("clients", []):
                try:
                    name, target, achieved = entry["name"], float(entry["target"]), float(entry["achieved"])
                    backlogged = float(entry["backlogged"])
                except (KeyError, TypeError, ValueError):
                    continue  # no estimate yet (null) or not shaped as agreed: nothing to judge
                if name == UNRESERVED or backlogged < settings.backlogged_min:
                    continue
                if achieved < target - settings.miss_margin:
                    key = (osd, name)
                    since = self._since.get(key, now)
                    missing[key] = Miss(osd, name, target, achieved, since)
        self._since = {key: miss.since for key, miss in missing.items()}
        self._latest = missing

    def long_misses(self, settings: Settings, now: float) -> List[Miss]:
        return sorted((miss for miss in self._latest.values() if now - miss.since >= settings.miss_seconds),
                      key=lambda miss: (miss.osd, miss.client))


def _check(summary: str, detail: List[str]) -> dict:
    return {"severity": "warning", "summary": summary, "count": len(detail), "detail": detail}


def health_checks(up_osds: Sequence[int], reports: Dict[int, OsdReport], misses: Sequence[Miss],
                  push_failures: Dict[int, str], problems: Sequence[str], now: float,
                  sla_refusals: Sequence[str] = ()) -> Dict[str, dict]:
    """problems: what keeps the module from carrying out the table (a bad setting, a stored table it
    cannot read, a monitor whose sessions it cannot read). sla_refusals: per client whose SLA now
    needs more than admission allows, why it keeps its last utilization."""
    checks = {}
    stock = [f"osd.{osd}: {reports[osd].reason}" for osd in sorted(up_osds)
             if osd in reports and not reports[osd].active]
    if stock:
        checks["QBOX_OSD_STOCK"] = _check(f"{len(stock)} up OSD(s) do not schedule with QBox", stock)
    if misses:
        checks["QBOX_TARGET_MISSED"] = _check(
            f"{len(misses)} backlogged client(s) below their QBox target",
            [f"osd.{m.osd}: {m.client} achieved {m.achieved:.3f} of target {m.target:.3f} "
             f"for {now - m.since:.0f} s" for m in misses])
    if push_failures:
        checks["QBOX_PUSH_FAILED"] = _check(f"{len(push_failures)} OSD(s) did not take the qbox table",
                                            [push_failures[osd] for osd in sorted(push_failures)])
    if sla_refusals:
        checks["QBOX_SLA_NOT_ADMITTED"] = _check(
            f"{len(sla_refusals)} client(s) keep a utilization below what their throughput SLA now needs",
            list(sla_refusals))
    if problems:
        checks["QBOX_MODULE_PROBLEM"] = _check(f"{len(problems)} problem(s) keep the qbox module from its table",
                                               list(problems))
    return checks
