"""The pure half of the latency step: summaries, goals, the phase split of model counters, the
per-second rows and the simulator's configuration, on invented numbers and a known schedule."""
import math

import pytest

from latency_client import Op
from latency_step import gc_guard_seconds, model_device
from read_latency import (Goal, SimLoad, goals, per_second_rows, read_rate, sim_config, sim_summary_row,
                          split_by_phase, summarize_reads, throughput_mb_s, write_rates)
from rails.schedule import Schedule, ScheduleParams

# 3 colors, 10 s frames, 2 readers, 1 s guard: frame f reads colors f%3 and (f+1)%3.
SCHEDULE = Schedule(ScheduleParams(colors=3, frame_seconds=10.0, readers=2, epoch=0.0, guard_seconds=1.0))


def reads(latencies_ms, start=100.0, ok=True):
    return [Op(start + i * 0.01, ms / 1000, ok, 4096) for i, ms in enumerate(latencies_ms)]


def test_summary_takes_nearest_rank_percentiles_of_successful_reads_only():
    ops = reads(range(1, 1001)) + reads([5000] * 3, ok=False)
    summary = summarize_reads(ops)
    assert summary.reads == 1000 and summary.failed == 3
    assert summary.p50 == pytest.approx(0.5) and summary.p99 == pytest.approx(0.99)
    assert summary.p999 == pytest.approx(0.999) and summary.max == pytest.approx(1.0)


def test_summary_of_nothing_has_no_percentiles():
    summary = summarize_reads(reads([1], ok=False))
    assert (summary.reads, summary.failed, summary.p999, summary.max) == (0, 1, None, None)


def test_throughput_counts_successful_bytes_over_first_start_to_last_completion():
    ops = [Op(0.0, 1.0, True, 1_000_000), Op(1.0, 1.0, True, 3_000_000), Op(1.5, 0.1, False, 9_000_000)]
    assert throughput_mb_s(ops) == pytest.approx(2.0)
    assert throughput_mb_s([]) == 0.0


def test_rates_by_size_and_of_reads():
    ops = [Op(0.0, 0.5, True, 4096), Op(1.0, 1.0, True, 65536), Op(1.0, 1.0, True, 65536), Op(1.5, 0.1, False, 4096)]
    assert write_rates(ops) == {4096: pytest.approx(0.5), 65536: pytest.approx(1.0)}
    assert read_rate(reads([10] * 11, start=0.0)) == pytest.approx(11 / 0.11)


def test_goals_met_and_missed_with_their_ratios():
    met = goals({"read-only": 0.010, "rails off": 0.060, "rails on": 0.014}, {"rails off": 10.0, "rails on": 9.0})
    assert [(g.ratio, g.met) for g in met] == [(pytest.approx(1.4), True), (pytest.approx(6.0), True),
                                               (pytest.approx(0.9), True)]
    missed = goals({"read-only": 0.010, "rails off": 0.030, "rails on": 0.020}, {"rails off": 10.0, "rails on": 7.0})
    assert [g.met for g in missed] == [False, False, False]
    assert "2.00x (goal <= 1.5x): MISSED" in missed[0].line()
    assert "3.00x (goal >= 5x): MISSED" in missed[1].line()


def test_a_goal_on_missing_numbers_is_missed_either_way():
    for goal in goals({"read-only": None, "rails off": 0.03, "rails on": 0.01}, {"rails off": 0.0, "rails on": 1.0}):
        assert math.isnan(goal.ratio) and not goal.met
    assert not Goal("x", math.nan, 1.5, True).met


def test_model_counters_split_by_phase_with_the_guard_apart():
    # Color 2: write phase until 9, guard 9..10, read phase 10..30.
    samples = [(0.0, {"gc_events": 0, "blocked_seconds": 0.0}),
               (9.0, {"gc_events": 5, "blocked_seconds": 0.25}),
               (10.0, {"gc_events": 6, "blocked_seconds": 0.3}),
               (11.0, None),  # not written yet: skipped
               (12.0, {"gc_events": 8, "blocked_seconds": 0.35})]
    split = split_by_phase(samples, SCHEDULE, 2)
    assert split["gc_events"] == {"write": 5, "guard": 1, "read": 2}
    assert split["blocked_seconds"]["write"] == pytest.approx(0.25)
    assert split["blocked_seconds"]["guard"] == pytest.approx(0.05)
    assert split["blocked_seconds"]["read"] == pytest.approx(0.05)


def test_split_of_no_samples_is_zero():
    split = split_by_phase([], SCHEDULE, 0)
    assert split == {counter: {"read": 0, "guard": 0, "write": 0} for counter in ("gc_events", "blocked_seconds")}


def test_per_second_rows_group_successful_reads_by_start_second():
    ops = [Op(10.2, 0.001, True, 4096), Op(10.7, 0.003, True, 4096), Op(12.1, 0.002, True, 4096),
           Op(12.5, 9.0, False, 4096)]
    rows = per_second_rows(ops, origin=10.0)
    assert rows == [(0, 2, pytest.approx(1.0), pytest.approx(3.0), pytest.approx(3.0)),
                    (2, 1, pytest.approx(2.0), pytest.approx(2.0), pytest.approx(2.0))]


def test_sim_config_has_one_open_stream_per_write_size_and_the_pool_shape():
    load = SimLoad(k=1, m=2, policy="rails", frame=5.0, readers=1, guard=0.5, pgs=32, read_rate=400.0,
                   read_size=4096, write_rates={65536: 10.0, 4096: 20.0, 8192: 0.0}, read_objects=256,
                   write_objects=2000, seconds=60)
    text = sim_config("/m/model.conf", "intel510", "/m/journal.conf", "nvme_journal", load)
    assert "include = /m/model.conf\ninclude = /m/journal.conf" in text
    for line in ("policy = rails", "k = 1", "m = 2", "readers = 1", "guard = 0.5", "data_device = intel510",
                 "[stream reads]", "rate = 400.000", "[stream writes4096]", "rate = 20.000", "[stream writes65536]"):
        assert line in text.splitlines()
    assert "[stream writes8192]" not in text
    assert text.index("[stream writes4096]") < text.index("[stream writes65536]")


def test_sim_summary_row_by_column_name():
    row = sim_summary_row("policy,reads,read_p99.9\nerails,10,0.012\n")
    assert row == {"policy": "erails", "reads": "10", "read_p99.9": "0.012"}


def test_model_device_is_the_last_defined_with_its_time_scale_through_base(tmp_path):
    (tmp_path / "drive.conf").write_text("# a drive\n[ssd drive]\nread_latency = 1e-4\ntime_scale = 20 # slowed\n")
    (tmp_path / "slow.conf").write_text("include = drive.conf\n[ssd slower]\nbase = drive\n")
    (tmp_path / "own.conf").write_text("include = drive.conf\n[ssd own]\nbase = drive\ntime_scale = 50\n")
    (tmp_path / "plain.conf").write_text("[hdd disk]\navg_seek = 0.008\n")
    assert model_device(str(tmp_path / "drive.conf")) == ("drive", 20)
    assert model_device(str(tmp_path / "slow.conf")) == ("slower", 20)
    assert model_device(str(tmp_path / "own.conf")) == ("own", 50)
    assert model_device(str(tmp_path / "plain.conf")) == ("disk", 1)
    (tmp_path / "empty.conf").write_text("[sim]\nseed = 1\n")
    with pytest.raises(SystemExit, match="no \\[ssd NAME\\] or \\[hdd NAME\\] section"):
        model_device(str(tmp_path / "empty.conf"))


def test_the_guard_outlasts_the_longest_gc_event_at_the_time_scale(tmp_path):
    (tmp_path / "drive.conf").write_text("[ssd drive]\ngc_event_max = 0.1\n")
    (tmp_path / "scaled.conf").write_text("include = drive.conf\n[ssd emulated-drive]\nbase = drive\ntime_scale = 10\n")
    (tmp_path / "disk.conf").write_text("[hdd disk]\navg_seek = 0.008\n")
    assert gc_guard_seconds(str(tmp_path / "drive.conf")) == pytest.approx(0.11)
    assert gc_guard_seconds(str(tmp_path / "scaled.conf")) == pytest.approx(1.1)
    assert gc_guard_seconds(str(tmp_path / "disk.conf")) is None
