from rails.settings import (Settings, hold_args, over_budget_args, release_args, self_applied_bytes, unslow_command,
                            validate)


def test_absent_options_take_the_defaults():
    assert validate({}) == (Settings(), [])
    assert validate({"poll_seconds": None}) == (Settings(), [])


def test_values_from_the_config_database_are_typed():
    settings, errors = validate({"active": "false", "poll_seconds": "0.25", "held_bytes_budget": "2147483648"})
    assert (settings, errors) == (Settings(active=False, poll_seconds=0.25, held_bytes_budget=2 << 30), [])


BAD_VALUES = {
    "active": ("maybe", "true or false"),
    "poll_seconds": ("0", "0.05..5.0"),
    "perf_seconds": ("nan", "a number"),
    "prefer_deferred_size": (1024, "4096..67108864"),
    "release_spread_seconds": (-1, "0.0..60.0"),
    "max_parallel_releases": ("2.5", "a whole number"),
    "held_bytes_budget": (4096, "1048576..1125899906842624"),
    "clock_skew_guard_fraction": ("inf", "a number"),
    "slow_osd_detection": ("on", "true or false"),
    "slow_osd_window_seconds": ("0.5", "1.0..60.0"),
    "slow_osd_ratio": (1.2, "1.5..100.0"),
    "slow_osd_clear_ratio": (0.9, "1.0..100.0"),
    "slow_osd_windows": (0, "1..100"),
    "slow_osd_clear_windows": ("two", "a whole number"),
    "slow_osd_min_ops": (0, "1..1073741824"),
    "slow_osd_max_fraction": (0.6, "0.05..0.5"),
    "slow_osd_probe_seconds": (1, "5.0..3600.0"),
}


def test_each_bad_value_names_the_option_and_the_accepted_values():
    for option, (value, accepted) in BAD_VALUES.items():
        _, errors = validate({option: value})
        assert [error.option for error in errors] == [option]
        assert f"mgr/rails/{option} is {value!r}" in errors[0].message
        assert accepted in errors[0].message


def test_every_bad_value_is_named_at_once_and_keeps_its_previous_value_while_good_ones_apply():
    previous = Settings(poll_seconds=0.25, held_bytes_budget=64 << 20)
    raw = {option: value for option, (value, _) in BAD_VALUES.items()}
    raw["perf_seconds"] = "2"
    settings, errors = validate(raw, previous)
    assert [error.option for error in errors] == [option for option in BAD_VALUES if option != "perf_seconds"]
    assert settings == Settings(poll_seconds=0.25, held_bytes_budget=64 << 20, perf_seconds=2.0)


def test_a_hold_is_bounded_by_bluestore_itself_in_bytes_and_in_time():
    args = dict(a[2:].split("=") for a in hold_args(Settings(prefer_deferred_size=65536, held_bytes_budget=512 << 20),
                                                    42.5))
    # BlueStore applies a hold at half of bluestore_throttle_bytes + bluestore_throttle_deferred_bytes,
    # counting each transaction's bytes plus bluestore_throttle_cost_per_io: a 512 MiB budget
    # less the 64 MiB that may be in flight past that point.
    assert args == {"bluestore_deferred_batch_ops": "65535", "bluestore_max_defer_interval": "42.5",
                    "bluestore_throttle_cost_per_io": "1", "bluestore_throttle_bytes": str(64 << 20),
                    "bluestore_throttle_deferred_bytes": str((2 * 448 - 64) << 20),
                    "bluestore_max_deferred_txc": "1000000", "bluestore_prefer_deferred_size": "65536"}
    assert self_applied_bytes(Settings(held_bytes_budget=512 << 20)) == 448 << 20
    # The default budget, 128 MiB: a quarter of it may be in flight.
    assert self_applied_bytes(Settings()) == 96 << 20
    small = Settings(held_bytes_budget=4 << 20)
    throttles = dict(a[2:].split("=") for a in hold_args(small, 10))
    in_flight = int(throttles["bluestore_throttle_bytes"])
    assert in_flight == 1 << 20
    assert (in_flight + int(throttles["bluestore_throttle_deferred_bytes"])) // 2 + in_flight == 4 << 20
    assert release_args() == ("--bluestore_deferred_batch_ops=1", "--bluestore_throttle_cost_per_io=0")


def test_over_budget_serializes_transactions_and_bypasses_the_hold_and_a_release_undoes_the_throttle():
    assert over_budget_args() == ("--bluestore_throttle_bytes=1", "--bluestore_prefer_deferred_size=1")
    assert unslow_command() == {"prefix": "config unset", "var": "bluestore_throttle_bytes"}


def test_pacing_budget_and_skew_settings_are_typed():
    settings, _ = validate({"release_spread_seconds": "1.5", "max_parallel_releases": "4",
                         "held_bytes_budget": str(64 << 20), "clock_skew_guard_fraction": "0.25"})
    assert (settings.release_spread_seconds, settings.max_parallel_releases, settings.held_bytes_budget,
            settings.clock_skew_guard_fraction) == (1.5, 4, 64 << 20, 0.25)


def test_the_clear_ratio_must_stay_below_the_marking_ratio():
    settings, errors = validate({"slow_osd_ratio": "4", "slow_osd_clear_ratio": "4"})
    assert [error.option for error in errors] == ["slow_osd_clear_ratio"]
    assert "below mgr/rails/slow_osd_ratio (4.0); 1.5 is used" in errors[0].message
    assert (settings.slow_osd_ratio, settings.slow_osd_clear_ratio) == (4.0, 1.5)
    settings, errors = validate({"slow_osd_ratio": "1.5"}, Settings(slow_osd_clear_ratio=2.0))
    assert [error.option for error in errors] == ["slow_osd_clear_ratio"]
    assert settings.slow_osd_clear_ratio < settings.slow_osd_ratio
