from rails.clock import KernelClock, describe, kernel_clock, skew_problems

THREE_MONS = {"time_skew_status": {"a": {"skew": 0.0, "latency": 0.0, "health": "HEALTH_OK"},
                                   "b": {"skew": -0.35, "latency": 0.001, "health": "HEALTH_OK"},
                                   "c": {"skew": 0.2, "latency": 0.001, "health": "HEALTH_OK"}},
              "timechecks": {"epoch": 3, "round": 4, "round_status": "finished"}}


def test_a_mon_skewed_by_more_than_the_fraction_of_the_guard_is_named():
    assert skew_problems(THREE_MONS, None, guard_seconds=0.6, fraction=0.5) == [
        "mon.b is 0.350 s off the leader monitor, above 0.300 s (0.5 of the smallest rails-guard, 0.6 s)"]
    assert skew_problems(THREE_MONS, None, guard_seconds=1.0, fraction=0.5) == []


def test_the_mgr_clock_counts_only_when_its_kernel_says_it_is_synchronised():
    assert skew_problems({}, KernelClock(True, 0.4), 0.6, 0.5) == [
        "the mgr host's kernel estimates its clock error at 0.400 s, above 0.300 s "
        "(0.5 of the smallest rails-guard, 0.6 s)"]
    assert skew_problems({}, KernelClock(True, 0.001), 0.6, 0.5) == []
    assert skew_problems({}, KernelClock(False, 16.0), 0.6, 0.5) == []


def test_a_malformed_skew_is_reported_not_raised():
    bad = {"time_skew_status": {"a": {"skew": "soon"}, "b": "junk"}}
    problems = skew_problems(bad, None, 0.6, 0.5)
    assert len(problems) == 2 and all("no usable skew" in p for p in problems)
    assert "mon.a ?" in describe(bad, None)


def test_the_status_line_says_what_is_and_is_not_seen():
    single_mon = {"timechecks": {"epoch": 3, "round": 0, "round_status": "finished"}}
    line = describe(single_mon, KernelClock(False, 16.0))
    assert "a single monitor has none to measure" in line and "not synchronised" in line
    assert line.endswith("OSD clocks not visible")
    assert "mon.b -0.350 s" in describe(THREE_MONS, KernelClock(True, 0.002))
    assert "estimated error 0.002 s" in describe(THREE_MONS, KernelClock(True, 0.002))


def test_the_kernel_clock_is_read():
    found = kernel_clock()
    assert found is not None and found.estimated_error_seconds >= 0
