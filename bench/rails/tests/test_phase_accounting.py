"""Attribution of measured I/O to Rails phases, on invented readings and a known schedule."""
from phase_accounting import Reading, attribute, peak_held, phase_changes, phase_of, sample_times, share
from rails.schedule import Schedule, ScheduleParams

# 3 colors, 10 s frames, 2 readers, 1 s guard: frame f reads colors f%3 and (f+1)%3.
SCHEDULE = Schedule(ScheduleParams(colors=3, frame_seconds=10.0, readers=2, epoch=0.0, guard_seconds=1.0))


def test_phases_of_one_color_over_a_cycle():
    # Color 2 writes in frame 0, except the guard before frame 1 where it reads.
    assert phase_of(SCHEDULE, 2, 5.0) == "write"
    assert phase_of(SCHEDULE, 2, 9.5) == "guard"
    assert phase_of(SCHEDULE, 2, 10.0) == "read"
    assert phase_of(SCHEDULE, 0, 15.0) == "write"


def test_phase_changes_are_switches_and_guard_starts():
    assert phase_changes(SCHEDULE, 0.0, 25.0) == [9.0, 10.0, 19.0, 20.0]
    assert phase_changes(SCHEDULE, 10.0, 19.0) == []


def test_sample_times_hit_every_change_and_skip_ticks_too_close_to_one():
    times = sample_times(SCHEDULE, 0.0, 12.0, 1.0)
    assert times[0] == 0.0 and times[-1] == 12.0
    assert 9.0 in times and 10.0 in times
    assert times == sorted(times)
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert min(gaps) >= 0.25 and max(gaps) <= 1.0
    # 8.9 would leave a 0.1 s interval before the guard start at 9.0.
    assert all(abs(t - 8.9) > 1e-9 for t in sample_times(SCHEDULE, 0.1, 12.0, 0.4))


def test_growth_goes_to_the_phase_at_each_interval_midpoint():
    readings = [Reading(0.0, 0), Reading(9.0, 100), Reading(10.0, 130), Reading(12.0, 160)]
    per_phase, per_second = attribute(readings, SCHEDULE, 2, origin=0.0)
    assert per_phase == {"write": 100, "guard": 30, "read": 30}
    assert per_second[4] == {"read": 0, "guard": 0, "write": 11}
    assert sum(per_second[s]["write"] for s in range(9)) == 100
    assert per_second[9]["guard"] == 30
    assert per_second[10]["read"] == 15 and per_second[11]["read"] == 15
    assert sorted(per_second) == list(range(13))


def test_growth_over_a_long_interval_is_spread_over_its_seconds():
    readings = [Reading(0.5, 0), Reading(3.5, 300)]
    _, per_second = attribute(readings, SCHEDULE, 2, origin=0.0)
    assert [per_second[s]["write"] for s in range(4)] == [50, 100, 100, 50]


def test_a_counter_that_restarts_adds_nothing():
    readings = [Reading(0.0, 50), Reading(1.0, 10), Reading(2.0, 20)]
    per_phase, _ = attribute(readings, SCHEDULE, 2, origin=0.0)
    assert sum(per_phase.values()) == 10


def test_share():
    assert share({"read": 1, "guard": 1, "write": 98}, ["write"]) == 0.98
    assert share({"read": 1, "guard": 1, "write": 98}, ["write", "guard"]) == 0.99
    assert share({"read": 0, "guard": 0, "write": 0}, ["read"]) == 1.0


def test_peak_held_is_the_largest_growth_within_one_hold():
    # Color 2 holds from its guard at 9 s to the end of its read phase at 30 s, writes, and holds
    # again from 39 s to 60 s.
    readings = [Reading(5.0, 0), Reading(9.1, 10), Reading(15.0, 60), Reading(29.0, 90),
                Reading(31.0, 95), Reading(38.9, 100), Reading(39.1, 100), Reading(40.0, 150)]
    assert peak_held(readings, SCHEDULE, 2) == 80
    # The write phase's growth is not held; the next hold starts again from its first reading.
    assert peak_held(readings + [Reading(59.0, 1000)], SCHEDULE, 2) == 900


def test_peak_held_starts_again_when_the_osd_restarts():
    readings = [Reading(10.0, 500), Reading(12.0, 700), Reading(13.0, 5), Reading(14.0, 105)]
    assert peak_held(readings, SCHEDULE, 2) == 200
