"""Fail-slow detection (rails.slow_osds) on a recorded counter series and on made-up windows.

data/slow_osd2_reads_10x.jsonl was recorded on 2026-11-28 on a local cluster of 6 OSDs with
emulated SSDs (vstart-configs/start.sh --osds 6 --emulate-ssd), an erails k=4 m=2 pool with
crush-colors (one OSD per color, rails-frame 5, no rails module), 8 random 4 KiB readers of 400
64 KiB objects and 2 writers of 4 KiB objects: bench/failslow/record_counters.py --osds 6
--seconds 85 --interval 2.5. osd.2 was made 10x slower (vstart-configs/slow-device.sh) about 26 s
into the recording and healthy again about 51 s in; the load stopped about 80 s in. No marks were
sent to the OSDs, so osd.2 kept serving reads while slow.
"""
import json
import os

from rails.settings import Settings
from rails.slow_osds import BETWEEN, HEALTHY, SLOW, UNKNOWN, SlowOsds, judge_window, totals_from_perf_dump

RECORDING = os.path.join(os.path.dirname(__file__), "data", "slow_osd2_reads_10x.jsonl")
SLOWED_AT, HEALED_AT = 25.5, 51.0


def recording():
    with open(RECORDING) as lines:
        for line in lines:
            row = json.loads(line)
            yield row["t"], {int(osd): {signal: tuple(value) for signal, value in totals.items()}
                             for osd, totals in row["osds"].items()}


def replay(params=Settings(), change=None):
    """(t, marked OSDs, events) per reading; change(t, totals, detector) may edit a reading first."""
    detector = SlowOsds()
    out = []
    for t, totals in recording():
        if change is not None:
            change(t, totals, detector)
        events = detector.observe(totals, t, params)
        out.append((t, sorted(detector.marks), events))
    return out


def window(**osds):
    """Per-OSD deltas from osd<N>=(read ops, read ms mean[, commit ops, commit ms mean])."""
    deltas = {}
    for name, figures in osds.items():
        reads, read_ms = figures[0], figures[1]
        commits, commit_ms = figures[2:] if len(figures) == 4 else (0, 0.0)
        deltas[int(name[3:])] = {"read_lat": (reads, reads * read_ms / 1000),
                                 "commit_lat": (commits, commits * commit_ms / 1000)}
    return deltas


def cumulative(windows):
    """Cumulative totals from a list of windows of deltas, starting from zero."""
    totals, out = {}, []
    for deltas in [{osd: {s: (0, 0.0) for s in d} for osd, d in windows[0].items()}] + windows:
        for osd, delta in deltas.items():
            before = totals.get(osd, {s: (0, 0.0) for s in delta})
            totals[osd] = {s: (before[s][0] + delta[s][0], before[s][1] + delta[s][1]) for s in delta}
        out.append({osd: dict(value) for osd, value in totals.items()})
    return out


def run(windows, settings=Settings(), seconds=5.0):
    detector = SlowOsds()
    events = []
    for i, totals in enumerate(cumulative(windows)):
        events += detector.observe(totals, i * seconds, settings)
    return detector, events


HEALTHY_5 = dict(osd0=(500, 0.5), osd1=(500, 0.5), osd2=(500, 0.6), osd3=(500, 0.4), osd4=(500, 0.5))


def with_osd2(read_ms, reads=500):
    return dict(HEALTHY_5, osd2=(reads, read_ms))


def test_the_recorded_slow_osd_is_marked_within_two_windows_and_no_other_ever():
    marked = [(t, osds) for t, osds, _ in replay() if osds]
    assert all(osds == [2] for _, osds in marked)
    first = marked[0][0]
    assert SLOWED_AT < first <= SLOWED_AT + 3 * 2.5
    assert marked[-1][0] < HEALED_AT + 4 * 2.5


def test_the_recorded_slow_osd_is_cleared_after_it_heals_and_the_events_say_why():
    steps = replay()
    events = [event for _, _, found in steps for event in found]
    assert len(events) == 2
    assert events[0].startswith("osd.2: marked slow: read_lat") and "x its peers'" in events[0]
    assert events[1].startswith("osd.2: no longer marked slow: read_lat") and "at or under 1.5x" in events[1]
    cleared = next(t for t, _, found in steps if found and "no longer" in found[0])
    assert HEALED_AT < cleared


def test_a_marked_osd_that_reads_avoid_stays_marked_until_the_probe_then_is_tried_again():
    def avoided(t, totals, detector):
        # As the OSD would count once reads avoid it: no reads after the mark; commits go on, and
        # they do not see its slow data device, so they must not clear it.
        if 2 in detector.marks or getattr(avoided, "frozen", None) is not None:
            if getattr(avoided, "frozen", None) is None:
                avoided.frozen = totals[2]["read_lat"]
            totals[2]["read_lat"] = avoided.frozen

    steps = replay(Settings(slow_osd_probe_seconds=15.0), change=avoided)
    events = [(t, event) for t, _, found in steps for event in found]
    assert events[0][1].startswith("osd.2: marked slow")
    assert "too few read_lat ops to judge it for" in events[1][1]
    assert 15.0 <= events[1][0] - events[0][0] <= 15.0 + 2 * 2.5


def test_a_drive_slow_again_after_its_probe_waits_twice_as_long_for_the_next():
    settings = Settings(slow_osd_probe_seconds=15.0)
    slow, avoided = window(**with_osd2(2.0)), window(**with_osd2(0.0, reads=0))
    detector, events = run([slow, slow] + [avoided] * 4 + [slow, slow] + [avoided] * 7, settings)
    assert [event.split(":")[0] for event in events] == ["osd.2"] * 4, events
    assert "marked slow" in events[0] and "too few read_lat ops to judge it for 15 s" in events[1]
    assert events[2].endswith("slow again after its probe, next probe in 30 s")
    assert "too few read_lat ops to judge it for 30 s" in events[3]
    # Marked long after a probe: the backoff starts over.
    _, events = run([slow, slow] + [avoided] * 4 + [window(**HEALTHY_5)] * 4 + [slow, slow], settings)
    assert events[-1].startswith("osd.2: marked slow") and "probe" not in events[-1]


def test_the_verdicts_of_one_window():
    verdicts = judge_window(window(**with_osd2(2.0)), Settings())
    assert verdicts[2].outcome == SLOW
    assert verdicts[2].cause.ratio == 4.0
    assert verdicts[0].outcome == HEALTHY
    assert judge_window(window(**with_osd2(1.0)), Settings())[2].outcome == BETWEEN
    assert judge_window(window(**with_osd2(2.0, reads=19)), Settings())[2].outcome == UNKNOWN


def test_a_slow_osd_that_serves_far_more_than_its_peers_is_busy_not_slow():
    assert judge_window(window(**with_osd2(2.0, reads=2001)), Settings())[2].outcome == BETWEEN
    assert judge_window(window(**with_osd2(2.0, reads=2000)), Settings())[2].outcome == SLOW
    # Busy reads, slow commits: the commits make it an outlier, and they are what marked it.
    busy = window(**{name: figures + (50, 1.0) for name, figures in with_osd2(8.0, reads=2001).items()})
    busy[2]["commit_lat"] = (50, 50 * 4.0 / 1000)
    verdict = judge_window(busy, Settings())[2]
    assert verdict.outcome == SLOW and verdict.cause.signal == "commit_lat" and verdict.cause.ratio == 4.0


def test_too_few_peers_judge_nothing():
    verdicts = judge_window(window(osd0=(500, 0.5), osd1=(500, 5.0)), Settings())
    assert {v.outcome for v in verdicts.values()} == {UNKNOWN}


def test_marks_need_the_windows_in_a_row_and_clear_only_under_the_clear_ratio():
    slow, between, healthy = window(**with_osd2(2.0)), window(**with_osd2(1.0)), window(**with_osd2(0.6))
    detector, events = run([slow, healthy, slow, between, slow])
    assert not detector.marks and not events
    detector, _ = run([slow, slow] + [between] * 10)
    assert list(detector.marks) == [2]
    detector, events = run([slow, slow, healthy, healthy, between, healthy, healthy])
    assert list(detector.marks) == [2]
    detector, events = run([slow, slow, healthy, healthy, healthy])
    assert not detector.marks and len(events) == 2


def test_many_slow_osds_at_once_is_load_and_clears_every_mark():
    six = dict(HEALTHY_5, osd5=(500, 0.5))
    slow = window(**dict(six, osd2=(500, 2.0)))
    two_of_six = window(**dict(six, osd2=(500, 2.0), osd3=(500, 2.0)))
    detector, _ = run([slow, slow, two_of_six])
    assert list(detector.marks) == [2]
    three_of_six = window(**dict(six, osd1=(500, 2.0), osd2=(500, 2.0), osd3=(500, 2.0)))
    detector, events = run([slow, slow, three_of_six])
    assert not detector.marks
    assert events[-1] == "osd.2: no longer marked slow: 3 of 6 OSDs look slow at once, which is load, not drives"
    detector, _ = run([three_of_six] * 5)
    assert not detector.marks


def test_an_osd_that_restarts_or_stops_answering_is_handled():
    slow = window(**with_osd2(2.0))
    series = cumulative([slow, slow, slow])
    detector = SlowOsds()
    for i, totals in enumerate(series):
        detector.observe(totals, i * 5.0, Settings())
    assert list(detector.marks) == [2]
    restarted = dict(series[-1])
    restarted[2] = {"read_lat": (3, 0.01), "commit_lat": (0, 0.0)}
    detector.observe(restarted, 20.0, Settings())
    assert list(detector.marks) == [2]
    assert 2 not in detector.verdicts
    gone = {osd: totals for osd, totals in series[-1].items() if osd != 2}
    assert detector.observe(gone, 25.0, Settings()) == [
        "osd.2: no longer marked slow: its counters could not be read"]
    assert not detector.marks


def test_counters_from_a_perf_dump():
    dump = {"bluestore": {"read_lat": {"avgcount": 25, "sum": 0.0012, "avgtime": 4.9e-05},
                          "commit_lat": {"avgcount": 9, "sum": 0.0187, "avgtime": 0.002}}}
    assert totals_from_perf_dump(dump) == {"read_lat": (25, 0.0012), "commit_lat": (9, 0.0187)}
    reef = {"bluestore": {"read_lat": {"avgcount": 25, "sum": 0.0012}, "txc_commit_lat": {"avgcount": 9, "sum": 0.0187}}}
    assert totals_from_perf_dump(reef) == {"read_lat": (25, 0.0012), "commit_lat": (9, 0.0187)}
    assert totals_from_perf_dump(dump["bluestore"] and {"bluestore": {"read_lat": {"avgcount": 1}}}) is None
    assert totals_from_perf_dump({}) is None
    assert totals_from_perf_dump({"bluestore": {"read_lat": "x", "commit_lat": 3}}) is None
