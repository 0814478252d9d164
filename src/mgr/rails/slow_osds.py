"""Fail-slow OSDs, found from BlueStore's own latency counters (`perf dump bluestore`); pure, so
tests replay recorded counter series.

Each window (the time between two readings of every OSD's counters) gives every OSD, for each
signal it served enough ops of, its mean latency: `read_lat` (a read of the object store, which
waits for the data device unless BlueStore's cache has the data) and `commit_lat` (18.2.7:
`txc_commit_lat`; a transaction from its submission to its commit, which waits for the WAL's
device). An OSD is an outlier in a
window when one of its signals is slow_osd_ratio times the median of the same signal over its peers
(the other OSDs with enough ops) or more, unless it served more than LOAD_FACTOR times the ops
of its peers' median: then its latency is its load. It is marked slow after slow_osd_windows
windows in a row as an outlier, and cleared after slow_osd_clear_windows windows in a row with
the signal that marked it at or under slow_osd_clear_ratio times its peers (hysteresis: between
the two ratios nothing changes). A marked OSD whose signal served too few ops to judge (reads
avoid it) is cleared after slow_osd_probe_seconds without evidence, so that reads try it again
and it is judged afresh; marked again within slow_osd_probe_seconds of that, its next probe waits
twice as long (up to MAX_PROBE_BACKOFF times). A window where more than slow_osd_max_fraction of the
judged OSDs are outliers is load, not drives: it clears every mark.

Not seen: a device slow only for what BlueStore's cache absorbs, and one slow under a load its
peers do not share (the median compares OSDs, not an OSD with its own past).
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .settings import Settings

SIGNALS = ("read_lat", "commit_lat")
# Each signal's names in the checked builds, in order: 18.2.7 renamed commit_lat txc_commit_lat
# (doc/dev/ceph-abi.md, "BlueStore's latency counters").
SIGNAL_NAMES = {"read_lat": ("read_lat",), "commit_lat": ("commit_lat", "txc_commit_lat")}
# An outlier that served more than this many times its peers' median ops is busy, not slow.
LOAD_FACTOR = 4.0
# A median of fewer peers than this says nothing about an OSD.
MIN_PEERS = 2
# Slow drives stay slow for hours ("The Tail at Store"): an OSD marked again soon after a probe
# waits twice as long for its next one, up to this many times slow_osd_probe_seconds, so that it
# is not read slowly for two windows at every probe.
MAX_PROBE_BACKOFF = 16

# osd -> signal -> (ops, seconds), cumulative as the counters give them.
Totals = Dict[str, Tuple[int, float]]


def totals_from_perf_dump(dump: dict) -> Optional[Totals]:
    """The signals from a `perf dump` (whole or `bluestore` logger only), under whichever checked
    build's name is there; None if one is absent or malformed."""
    bluestore = dump.get("bluestore", {})
    found = {}
    try:
        for signal in SIGNALS:
            name = next((name for name in SIGNAL_NAMES[signal] if name in bluestore), None)
            if name is None:
                return None
            found[signal] = (int(bluestore[name]["avgcount"]), float(bluestore[name]["sum"]))
    except (KeyError, TypeError, ValueError):
        return None
    return found


@dataclass(frozen=True)
class Figure:
    """One signal of one OSD over one window, against its peers."""
    signal: str
    ops: int
    mean: float        # seconds
    peers_mean: float  # the median of the peers' means
    peers_ops: float   # the median of the peers' ops

    @property
    def ratio(self) -> float:
        return self.mean / self.peers_mean if self.peers_mean > 0 else float("inf")

    def describe(self) -> str:
        return (f"{self.signal} {self.mean * 1000:.2f} ms mean over {self.ops} ops, {self.ratio:.1f}x its peers' "
                f"{self.peers_mean * 1000:.2f} ms")


SLOW, HEALTHY, BETWEEN, UNKNOWN = "slow", "healthy", "between", "unknown"


@dataclass(frozen=True)
class Verdict:
    outcome: str
    figures: Tuple[Figure, ...] = ()
    # SLOW: the slowest figure that made it an outlier (one that is load does not count).
    cause: Optional[Figure] = None


def _median(values: List[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def judge_window(deltas: Dict[int, Totals], settings: Settings) -> Dict[int, Verdict]:
    """Each OSD's verdict for one window, from its ops and seconds in that window per signal."""
    served = {signal: {osd: delta[signal] for osd, delta in deltas.items()
                       if signal in delta and delta[signal][0] >= settings.slow_osd_min_ops}
              for signal in SIGNALS}
    verdicts = {}
    for osd in deltas:
        figures = []
        for signal in SIGNALS:
            if osd not in served[signal]:
                continue
            peers = [(ops, seconds / ops) for peer, (ops, seconds) in served[signal].items() if peer != osd]
            if len(peers) < MIN_PEERS:
                continue
            ops, seconds = served[signal][osd]
            figures.append(Figure(signal, ops, seconds / ops, _median([mean for _, mean in peers]),
                                  _median([peer_ops for peer_ops, _ in peers])))
        outliers = [f for f in figures if f.ratio >= settings.slow_osd_ratio and f.ops <= LOAD_FACTOR * f.peers_ops]
        if not figures:
            verdicts[osd] = Verdict(UNKNOWN)
        elif outliers:
            verdicts[osd] = Verdict(SLOW, tuple(figures), max(outliers, key=lambda figure: figure.ratio))
        elif all(f.ratio <= settings.slow_osd_clear_ratio for f in figures):
            verdicts[osd] = Verdict(HEALTHY, tuple(figures))
        else:
            verdicts[osd] = Verdict(BETWEEN, tuple(figures))
    return verdicts


@dataclass
class Mark:
    since: float
    figure: Figure           # the worst figure of the window that marked it
    last_evidence: float     # the last window that judged it by its figure's signal, or found it slow by another
    healthy_windows: int = 0
    probe_backoff: int = 1   # its probe waits this many times slow_osd_probe_seconds


@dataclass(frozen=True)
class _Probe:
    at: float
    backoff: int


@dataclass
class SlowOsds:
    """The marks, updated once per window with every OSD's cumulative counters."""
    marks: Dict[int, Mark] = field(default_factory=dict)
    # OSDs not marked yet -> their outlier windows in a row.
    _candidates: Dict[int, int] = field(default_factory=dict)
    _last: Dict[int, Totals] = field(default_factory=dict)
    # OSDs whose mark a probe lifted: when, and the backoff that mark had.
    _probes: Dict[int, _Probe] = field(default_factory=dict)
    # The last window's verdicts (bench/failslow/replay_counters.py prints them).
    verdicts: Dict[int, Verdict] = field(default_factory=dict)

    def observe(self, totals: Dict[int, Totals], now: float, settings: Settings) -> List[str]:
        """Takes one reading of every OSD read this window (OSDs missing from it are forgotten:
        down, out or not answering). Returns one line per change of a mark, for the log."""
        deltas = {}
        for osd, current in totals.items():
            before = self._last.get(osd)
            # Counters that went back are an OSD that restarted: its next window is judged.
            if before is not None and all(current[s][0] >= before[s][0] for s in SIGNALS):
                deltas[osd] = {s: (current[s][0] - before[s][0], current[s][1] - before[s][1]) for s in SIGNALS}
        self._last = dict(totals)
        events = [f"osd.{osd}: no longer marked slow: its counters could not be read"
                  for osd in sorted(set(self.marks) - set(totals))]
        for osd in set(self.marks) - set(totals):
            del self.marks[osd]
        for tracked in (self._candidates, self._probes):
            for osd in set(tracked) - set(totals):
                del tracked[osd]
        if not deltas:
            return events
        verdicts = judge_window(deltas, settings)
        self.verdicts = verdicts
        judged = [v for v in verdicts.values() if v.outcome != UNKNOWN]
        outliers = [osd for osd, v in verdicts.items() if v.outcome == SLOW]
        if judged and len(outliers) > settings.slow_osd_max_fraction * len(judged):
            events += [f"osd.{osd}: no longer marked slow: {len(outliers)} of {len(judged)} OSDs look slow "
                       f"at once, which is load, not drives" for osd in sorted(self.marks)]
            self.marks.clear()
            self._candidates.clear()
            return events
        for osd, verdict in sorted(verdicts.items()):
            if osd in self.marks:
                events += self._judge_marked(osd, verdict, now, settings)
            else:
                events += self._judge_unmarked(osd, verdict, now, settings)
        return events

    def _judge_unmarked(self, osd: int, verdict: Verdict, now: float, settings: Settings) -> List[str]:
        if verdict.outcome != SLOW:
            self._candidates.pop(osd, None)
            return []
        self._candidates[osd] = self._candidates.get(osd, 0) + 1
        if self._candidates[osd] < settings.slow_osd_windows:
            return []
        del self._candidates[osd]
        worst = verdict.cause
        probe = self._probes.pop(osd, None)
        backoff = 1
        if probe is not None and now - probe.at <= settings.slow_osd_probe_seconds:
            backoff = min(2 * probe.backoff, MAX_PROBE_BACKOFF)
        self.marks[osd] = Mark(since=now, figure=worst, last_evidence=now, probe_backoff=backoff)
        again = f"; slow again after its probe, next probe in {backoff * settings.slow_osd_probe_seconds:g} s" \
            if backoff > 1 else ""
        return [f"osd.{osd}: marked slow: {worst.describe()}, {settings.slow_osd_windows} window(s) in a row{again}"]

    def _judge_marked(self, osd: int, verdict: Verdict, now: float, settings: Settings) -> List[str]:
        """A marked OSD is judged by the signal that marked it: the others may not see the slow
        part of its devices (an emulated or slow data device leaves commits on a fast WAL as they
        were), so their being healthy says nothing. Another signal that is slow keeps the mark."""
        mark = self.marks[osd]
        figure = next((f for f in verdict.figures if f.signal == mark.figure.signal), None)
        if figure is None:
            if verdict.outcome == SLOW:
                mark.healthy_windows, mark.last_evidence = 0, now
                return []
            if now - mark.last_evidence < mark.probe_backoff * settings.slow_osd_probe_seconds:
                return []
            del self.marks[osd]
            self._probes[osd] = _Probe(now, mark.probe_backoff)
            return [f"osd.{osd}: no longer marked slow: too few {mark.figure.signal} ops to judge it for "
                    f"{now - mark.last_evidence:.0f} s; reads try it again"]
        mark.last_evidence = now
        if figure.ratio > settings.slow_osd_clear_ratio:
            mark.healthy_windows = 0
            if figure.ratio >= settings.slow_osd_ratio:
                mark.figure = figure
            return []
        mark.healthy_windows += 1
        if mark.healthy_windows < settings.slow_osd_clear_windows:
            return []
        del self.marks[osd]
        return [f"osd.{osd}: no longer marked slow: {figure.describe()}, "
                f"{settings.slow_osd_clear_windows} window(s) in a row at or under {settings.slow_osd_clear_ratio:g}x"]
