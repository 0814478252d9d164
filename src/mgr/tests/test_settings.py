from rails.settings import (BATCH_OPS_MAX, Settings, SettingError, hold_args, over_budget_args, release_args,
                            unslow_command, validate)


def test_absent_options_take_the_defaults():
    assert validate({}) == Settings()
    assert validate({"poll_seconds": None}) == Settings()


def test_values_from_the_config_database_are_typed():
    settings = validate({"active": "false", "poll_seconds": "0.25", "hold_throttle_bytes": "2147483648"})
    assert settings == Settings(active=False, poll_seconds=0.25, hold_throttle_bytes=2 << 30)


def test_each_bad_value_names_the_option_and_the_accepted_values():
    cases = {
        "active": ("maybe", "true or false"),
        "poll_seconds": ("0", "0.05..5.0"),
        "perf_seconds": ("nan", "a number"),
        "hold_throttle_bytes": ("12.5", "a whole number"),
        "cost_per_io": (0, "1..1073741824"),
        "prefer_deferred_size": (1024, "4096..67108864"),
        "release_spread_seconds": (-1, "0.0..60.0"),
        "max_parallel_releases": (0, "1..1024"),
        "held_bytes_budget": (4096, "1048576..1125899906842624"),
        "clock_skew_guard_fraction": ("inf", "a number"),
    }
    for option, (value, accepted) in cases.items():
        error = validate({option: value})
        assert isinstance(error, SettingError), option
        assert error.option == option
        assert f"mgr/rails/{option} is {value!r}" in error.message
        assert accepted in error.message


def test_a_throttle_too_small_for_one_write_is_refused():
    error = validate({"hold_throttle_bytes": 1 << 30, "cost_per_io": 1 << 30})
    assert isinstance(error, SettingError) and error.option == "hold_throttle_bytes"


def test_the_held_op_limit_is_the_lower_of_the_batch_cap_and_the_throttle_midpoint():
    assert Settings().held_op_limit() == BATCH_OPS_MAX
    # 64 GiB at 670000 bytes per write: BlueStore flushes at the midpoint, 51,283 writes.
    assert Settings(hold_throttle_bytes=64 << 30).held_op_limit() == 51283


def test_hold_and_release_are_the_measured_bluestore_settings():
    args = dict(a[2:].split("=") for a in hold_args(Settings(prefer_deferred_size=65536)))
    assert args == {"bluestore_deferred_batch_ops": "65535", "bluestore_max_defer_interval": "1000",
                    "bluestore_throttle_deferred_bytes": str(128 << 30),
                    "bluestore_max_deferred_txc": "1000000", "bluestore_prefer_deferred_size": "65536"}
    assert release_args() == ("--bluestore_deferred_batch_ops=1",)


def test_over_budget_serializes_transactions_and_bypasses_the_hold_and_a_release_undoes_the_throttle():
    assert over_budget_args() == ("--bluestore_throttle_bytes=1", "--bluestore_prefer_deferred_size=1")
    assert unslow_command() == {"prefix": "config unset", "var": "bluestore_throttle_bytes"}


def test_pacing_budget_and_skew_settings_are_typed():
    settings = validate({"release_spread_seconds": "1.5", "max_parallel_releases": "4",
                         "held_bytes_budget": str(64 << 20), "clock_skew_guard_fraction": "0.25"})
    assert (settings.release_spread_seconds, settings.max_parallel_releases, settings.held_bytes_budget,
            settings.clock_skew_guard_fraction) == (1.5, 4, 64 << 20, 0.25)
