"""What bench/failslow/read_around.py reports, from what it recorded; pure, so tests check it.

A run has three spans on one clock: healthy until `slowed`, one OSD slow until `healed`, healthy
again until `end`. Reads are summarized per span; the goal's span is the slow one from `slowed` +
GOAL_AFTER_SECONDS on, against the first healthy span of the same run.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from latency_client import Op, percentile

# The bar: within this long of the slowdown, read p99.9 is back within GOAL_RATIO of healthy.
GOAL_AFTER_SECONDS = 30.0
GOAL_RATIO = 1.5
# The span the goal judges: from GOAL_AFTER_SECONDS after the slowdown to the healing.
LATE_SPAN = f"slow+{GOAL_AFTER_SECONDS:g}s"


@dataclass(frozen=True)
class Spans:
    start: float
    slowed: float
    healed: float
    end: float

    def named(self) -> List[Tuple[str, float, float]]:
        return [("healthy", self.start, self.slowed), ("slow", self.slowed, self.healed),
                (LATE_SPAN, self.slowed + GOAL_AFTER_SECONDS, self.healed),
                ("healed", self.healed, self.end)]


@dataclass(frozen=True)
class SpanSummary:
    name: str
    reads: int
    failed: int
    p50: Optional[float]
    p99: Optional[float]
    p999: Optional[float]
    shard_reads: Optional[int]  # BlueStore reads on every OSD over the span, when counted

    def shard_reads_per_read(self) -> Optional[float]:
        return None if self.shard_reads is None or not self.reads else self.shard_reads / self.reads


def summarize(ops: Sequence[Op], spans: Spans, shard_reads: Dict[str, int]) -> List[SpanSummary]:
    """One summary per span; a read belongs to the span it started in."""
    out = []
    for name, begin, end in spans.named():
        inside = [op for op in ops if begin <= op.started < end]
        ok = sorted(op.latency for op in inside if op.ok)
        out.append(SpanSummary(name, len(ok), len(inside) - len(ok), percentile(ok, 0.5), percentile(ok, 0.99),
                               percentile(ok, 0.999), shard_reads.get(name)))
    return out


def mark_times(polls: Sequence[Tuple[float, Sequence[int]]], osd: int, spans: Spans) -> Tuple[Optional[float], Optional[float]]:
    """(seconds from the slowdown to the first poll that shows `osd` marked, seconds from the
    healing to the first poll after it that shows it unmarked); None when that never happened (no
    clearing without a mark)."""
    detected = next((t - spans.slowed for t, marked in polls if t >= spans.slowed and osd in marked), None)
    if detected is None:
        return None, None
    cleared = next((t - spans.healed for t, marked in polls if t >= spans.healed and osd not in marked), None)
    return detected, cleared


def goal(summaries: Sequence[SpanSummary]) -> Tuple[Optional[float], bool]:
    """(p99.9 of the span from the slowdown + GOAL_AFTER_SECONDS over the healthy span's, met)."""
    by_name = {s.name: s for s in summaries}
    healthy, late = by_name["healthy"], by_name[LATE_SPAN]
    if healthy.p999 is None or late.p999 is None:
        return None, False
    ratio = late.p999 / healthy.p999
    return ratio, ratio <= GOAL_RATIO
