from latency_client import Op
from timeline import GOAL_AFTER_SECONDS, Spans, goal, mark_times, summarize

SPANS = Spans(start=0.0, slowed=30.0, healed=90.0, end=120.0)


def reads(begin, end, latency, every=0.01, ok=True):
    count = int(round((end - begin) / every))
    return [Op(begin + i * every, latency, ok, 4096) for i in range(count)]


def test_reads_are_summarized_per_span_with_shard_reads_per_read():
    ops = reads(0, 30, 0.004) + reads(30, 60, 0.040) + reads(60, 90, 0.005) + reads(90, 120, 0.004)
    ops.append(Op(100.0, 1.0, False, 4096))
    summaries = {s.name: s for s in summarize(ops, SPANS, {"healthy": 12000, "slow": 24000})}
    assert summaries["healthy"].reads == 3000 and summaries["healthy"].p999 == 0.004
    assert summaries["slow"].reads == 6000 and summaries["slow"].p50 == 0.005 and summaries["slow"].p999 == 0.040
    assert summaries[f"slow+{GOAL_AFTER_SECONDS:g}s"].p999 == 0.005
    assert summaries["healed"].failed == 1 and summaries["healed"].reads == 3000
    assert summaries["healthy"].shard_reads_per_read() == 4.0
    assert summaries["healed"].shard_reads_per_read() is None


def test_the_goal_compares_the_late_slow_span_with_the_healthy_one():
    ops = reads(0, 30, 0.004) + reads(30, 60, 0.040) + reads(60, 90, 0.0059)
    ratio, met = goal(summarize(ops, SPANS, {}))
    assert round(ratio, 3) == 1.475 and met
    ratio, met = goal(summarize(reads(0, 30, 0.004) + reads(30, 90, 0.0061), SPANS, {}))
    assert not met
    assert goal(summarize(reads(0, 30, 0.004), SPANS, {})) == (None, False)


def test_detection_and_clearing_times_come_from_the_polls():
    polls = [(29.0, []), (31.0, []), (41.5, [2]), (89.0, [2]), (95.0, [2]), (101.0, [])]
    assert mark_times(polls, 2, SPANS) == (11.5, 11.0)
    assert mark_times([(31.0, []), (95.0, [])], 2, SPANS) == (None, None)
    assert mark_times([(31.0, [2]), (95.0, [2])], 2, SPANS) == (1.0, None)
    assert mark_times([(31.0, [1])], 2, SPANS) == (None, None)
