"""The pure half of the `latency` step of bench/rails/evidence.py: read-latency summaries, the
split of each OSD's device-model counters (GC events, seconds blocked) by Rails phase, the goals,
per-second rows for the plot, and the simulator's configuration for the same load. Tests feed it
invented numbers (bench/rails/tests/test_read_latency.py)."""
import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from latency_client import Op, percentile
from phase_accounting import PHASES, Reading, attribute

# The loads of each pool, in the order they run. The last is "rails on" again with every OSD's
# device model switched off (the emulator's `model = off`): what is left of Rails on's tail then is
# the machine's, not the device's. Only on emulated devices.
MODEL_OFF = "model off"
LOADS = ("read-only", "rails off", "rails on", MODEL_OFF)
# Issue 15's goals: mixed-load read p99.9 against the read-only one, writer throughput with Rails
# against without.
ON_P999_LIMIT = 1.5
OFF_P999_FLOOR = 5.0
WRITER_FLOOR = 0.8
# Device-model counters split by phase, and the unit each is kept in as an integer Reading.
MODEL_COUNTERS = {"gc_events": 1, "blocked_seconds": 1e6}


@dataclass(frozen=True)
class ReadSummary:
    """Latencies in seconds; None when there were no successful reads."""
    reads: int
    failed: int
    p50: Optional[float]
    p99: Optional[float]
    p999: Optional[float]
    max: Optional[float]


def summarize_reads(ops: Sequence[Op]) -> ReadSummary:
    latencies = [op.latency for op in ops if op.ok]
    return ReadSummary(len(latencies), len(ops) - len(latencies), percentile(latencies, 0.5),
                       percentile(latencies, 0.99), percentile(latencies, 0.999), max(latencies, default=None))


def ms_text(seconds: Optional[float]) -> str:
    """A latency in ms as the tables print it; "-" when there is none."""
    return f"{seconds * 1000:.2f}" if seconds is not None else "-"


def span(ops: Sequence[Op]) -> float:
    """Seconds from the first start to the last completion; 0 for no operations."""
    if not ops:
        return 0.0
    return max(op.started + op.latency for op in ops) - min(op.started for op in ops)


def throughput_mb_s(ops: Sequence[Op]) -> float:
    """Bytes of successful operations per second over their span."""
    seconds = span(ops)
    return sum(op.size for op in ops if op.ok) / seconds / 1e6 if seconds > 0 else 0.0


@dataclass(frozen=True)
class Goal:
    name: str
    ratio: float
    limit: float
    at_most: bool

    @property
    def met(self) -> bool:
        return (self.ratio <= self.limit) if self.at_most else (self.ratio >= self.limit)

    def line(self) -> str:
        sign = "<=" if self.at_most else ">="
        return f"{self.name}: {self.ratio:.2f}x (goal {sign} {self.limit:g}x): {'met' if self.met else 'MISSED'}"


def ratio(numerator: Optional[float], denominator: Optional[float]) -> float:
    """numerator / denominator; NaN when either is missing or the denominator is 0, so that no
    goal can be met on nothing."""
    if numerator is None or denominator is None or denominator == 0:
        return math.nan
    return numerator / denominator


def goals(read_p999: Dict[str, Optional[float]], writer_mb_s: Dict[str, float]) -> List[Goal]:
    """Issue 15's three goals for one pool, from each load's read p99.9 and the writer's
    throughput with Rails off and on. A NaN ratio misses its goal either way."""
    base = read_p999["read-only"]
    return [Goal("rails on: mixed read p99.9 / read-only p99.9", ratio(read_p999["rails on"], base),
                 ON_P999_LIMIT, True),
            Goal("rails off: mixed read p99.9 / read-only p99.9", ratio(read_p999["rails off"], base),
                 OFF_P999_FLOOR, False),
            Goal("writer throughput, rails on / off", ratio(writer_mb_s["rails on"], writer_mb_s["rails off"]),
                 WRITER_FLOOR, False)]


def model_readings(samples: Sequence[Tuple[float, Optional[dict]]], counter: str) -> List[Reading]:
    """One OSD's device-model counter as integer Readings (blocked seconds in microseconds),
    from (time, stats) samples; samples without stats (file not written yet) are skipped."""
    unit = MODEL_COUNTERS[counter]
    return [Reading(t, int(round(stats[counter] * unit))) for t, stats in samples if stats is not None]


def split_by_phase(samples: Sequence[Tuple[float, Optional[dict]]], schedule, color: int,
                   ) -> Dict[str, Dict[str, float]]:
    """{counter: {"read": x, "guard": y, "write": z}} of one OSD over the samples: the growth of
    each model counter between samples goes to the phase at the interval's midpoint. The guard is
    apart: the color has stopped applying writes but is not read yet, so GC there delays no read."""
    split = {}
    for counter, unit in MODEL_COUNTERS.items():
        readings = model_readings(samples, counter)
        per_phase, _ = attribute(readings, schedule, color, readings[0].t if readings else 0.0)
        split[counter] = {phase: per_phase[phase] / unit for phase in PHASES}
    return split


def per_second_rows(ops: Sequence[Op], origin: float) -> List[Tuple[int, int, float, float, float]]:
    """(second since origin, reads, p50, p99, max) of the successful reads started in each second,
    latencies in ms; seconds without reads are left out."""
    by_second: Dict[int, List[float]] = {}
    for op in ops:
        if op.ok:
            by_second.setdefault(int(op.started - origin), []).append(op.latency * 1000)
    return [(second, len(values), percentile(values, 0.5), percentile(values, 0.99), max(values))
            for second, values in sorted(by_second.items())]


@dataclass(frozen=True)
class SimLoad:
    """What the simulator is asked to replay: the cluster's pool shape, schedule and measured
    rates (requests/s), so that both see the same load."""
    k: int
    m: int
    policy: str
    frame: float
    readers: int
    guard: float
    pgs: int
    read_rate: float
    read_size: int
    write_rates: Dict[int, float]
    read_objects: int
    write_objects: int
    seconds: float


def sim_config(model_file: str, device: str, journal_file: str, journal: str, load: SimLoad, seed: int = 1) -> str:
    """An erails-sim configuration (doc/simulator.rst) with open streams at the load's rates: one
    of reads and one per write size. policy none models Rails off; rails (k = 1) or erails, on."""
    lines = [f"# Generated by bench/rails/evidence.py --steps latency: {load.policy}, k={load.k} m={load.m}.",
             f"include = {model_file}"]
    if journal_file != model_file:
        lines.append(f"include = {journal_file}")
    lines += ["", "[sim]", f"seed = {seed}", f"duration = {load.seconds:g}", f"policy = {load.policy}", "",
              "[cluster]", f"k = {load.k}", f"m = {load.m}", "osds_per_color = 1", f"pgs = {load.pgs}",
              f"data_device = {device}", f"journal_device = {journal}", f"frame = {load.frame:g}",
              f"readers = {load.readers}", f"guard = {load.guard:g}", ""]
    if load.read_rate > 0:
        lines += ["[stream reads]", "kind = open", f"rate = {load.read_rate:.3f}", "read_fraction = 1",
                  f"size = {load.read_size}", f"objects = {load.read_objects}", ""]
    for size, rate in sorted(load.write_rates.items()):
        if rate > 0:
            lines += [f"[stream writes{size}]", "kind = open", f"rate = {rate:.3f}", "read_fraction = 0",
                      f"size = {size}", f"objects = {load.write_objects}", ""]
    return "\n".join(lines)


def write_rates(ops: Sequence[Op]) -> Dict[int, float]:
    """Successful writes per second by size, over the span of all of them."""
    seconds = span(ops)
    counts: Dict[int, int] = {}
    for op in ops:
        if op.ok:
            counts[op.size] = counts.get(op.size, 0) + 1
    return {size: count / seconds for size, count in counts.items()} if seconds > 0 else {}


def read_rate(ops: Sequence[Op]) -> float:
    """Successful operations per second over their span."""
    seconds = span(ops)
    return sum(1 for op in ops if op.ok) / seconds if seconds > 0 else 0.0


def sim_summary_row(csv_text: str) -> Dict[str, str]:
    """The one data row of erails-sim's PREFIX.summary.csv, by column name."""
    header, row = [line for line in csv_text.splitlines() if line.strip()][:2]
    return dict(zip(header.split(","), row.split(",")))
