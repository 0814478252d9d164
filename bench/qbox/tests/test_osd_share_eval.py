"""The pure parts of osd_shares.py on invented completions and qbox status samples."""
import json
import math

import pytest

import osd_share_eval as ev


def test_targets_are_normalized_over_the_clients_of_the_run():
    got = ev.normalized({"a": 0.1, "b": 0.1, "c": 0.1, "d": 0.5})
    assert got == pytest.approx({"a": 0.125, "b": 0.125, "c": 0.125, "d": 0.625})
    assert math.isclose(sum(got.values()), 1.0)


@pytest.mark.parametrize("table", [{}, {"a": 0.0}])
def test_a_table_without_utilization_is_refused(table):
    with pytest.raises(ValueError, match="positive utilizations"):
        ev.normalized(table)


def test_the_osd_table_is_the_one_the_mgr_module_pushes():
    from qbox.push import set_command, table_body
    from qbox.table import Table
    targets, owners = {"client.b": 0.6, "client.a": 0.3}, {"client.a": 4123, "client.b": 4124}
    background = {"recovery": 0.15, "best_effort": 0.05}
    table = Table(clients=targets, background=background)
    pushed = json.loads(set_command(7, table_body(table, {n: [i] for n, i in owners.items()}))["table"])
    assert ev.osd_table(7, targets, owners, background) == pushed


def test_ramp_goes_from_start_to_end_in_steps():
    assert ev.ramp(0.45, 0.05, 5) == pytest.approx([0.45, 0.35, 0.25, 0.15, 0.05])
    with pytest.raises(ValueError, match="at least 2 steps, got 1"):
        ev.ramp(0.4, 0.1, 1)


def test_completions_are_counted_per_window_with_the_target_in_force():
    completions = {"a": [0.1, 0.5, 1.9, 2.0, 3.99, 4.0, -0.1], "b": []}
    rows = ev.window_rows(completions, 2.0, 4.0, lambda t: {"a": 0.2 if t < 2 else 0.4, "b": 0.8})
    got = {(r["client"], r["time_s"]): (float(r["iops"]), float(r["target_util"])) for r in rows}
    # 4.0 is past the run and -0.1 before it: both left out; 2.0 opens the second window.
    assert got == {("a", "2.000"): (1.5, 0.2), ("a", "4.000"): (1.0, 0.4),
                   ("b", "2.000"): (0.0, 0.8), ("b", "4.000"): (0.0, 0.8)}


def test_black_box_errors_against_targets():
    alone = {"a": 100.0, "b": 50.0}
    completions = {"a": [i / 30 for i in range(120)], "b": [i / 35 for i in range(140)]}  # 30 and 35 IOPS
    rows = ev.window_rows(completions, 1.0, 4.0, lambda t: {"a": 0.25, "b": 0.75})
    stats, total = ev.share_errors(rows, alone, 1.0)
    assert stats["a"].mean_share == pytest.approx(0.30)
    assert stats["a"].mean_error == pytest.approx(0.05)
    assert stats["b"].mean_share == pytest.approx(0.70)
    assert total == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no window ends after the first 9 s"):
        ev.share_errors(rows, alone, 9.0)


def test_estimator_share_is_the_part_of_all_estimated_time():
    samples = [(1.0, {"a": 0.9, "b": 0.1, "background_recovery": 0.0}),            # warm-up
               (3.0, {"a": 0.2, "b": 0.5, "background_recovery": 0.1, "unreserved": None}),
               (5.0, {"a": 0.0, "b": 0.0}),                                          # idle window
               (7.0, {"a": 0.3, "b": 0.3})]
    pairs = ev.estimator_pairs(samples, lambda t: {"a": 0.25, "b": 0.75}, 2.0)
    assert pairs == {"a": [(0.25, pytest.approx(0.25)), (0.25, 0.5)],
                     "b": [(0.75, pytest.approx(0.625)), (0.75, 0.5)]}


def test_goal_needs_qbox_within_tolerance_and_a_stock_scheduler_missing():
    errors = {"qbox": {"a": 0.03, "b": 0.04}, "wpq": {"a": 0.20, "b": 0.01},
              "mclock_scheduler": {"a": 0.03, "b": 0.02}}
    found = {v.client: v for v in ev.verdicts(errors)}
    assert found["a"].met and found["a"].baselines_worse is False  # mclock is as close
    assert found["b"].met and not found["b"].baselines_worse
    assert found["a"].baselines == {"wpq": 0.20, "mclock_scheduler": 0.03}
    assert ev.goal_shown(list(found.values()))
    # Stock close everywhere: nothing for QBox to show.
    assert not ev.goal_shown(ev.verdicts({"qbox": {"a": 0.01}, "wpq": {"a": 0.02}}))
    # QBox misses one client: the goal fails whatever the stock schedulers do.
    missed = ev.verdicts({"qbox": {"a": 0.06}, "wpq": {"a": 0.30}})
    assert not missed[0].met and missed[0].baselines_worse and not ev.goal_shown(missed)


def test_verdicts_need_qbox():
    with pytest.raises(ValueError, match="scheduler 'qbox' are needed, got \\['wpq'\\]"):
        ev.verdicts({"wpq": {"a": 0.1}})


def test_phase_means_split_windows_by_their_end():
    rows = ev.window_rows({"a": [0.5, 1.5, 1.6, 2.5, 2.6, 2.7]}, 1.0, 3.0, lambda t: {"a": 1.0})
    assert ev.phase_means(rows, {"first": (0.0, 1.0), "rest": (1.0, 3.0)}) == {
        "first": {"a": 1.0}, "rest": {"a": 2.5}}


def test_overhead_ratio_is_per_round_and_the_median_of_them():
    ratios, median = ev.overhead_ratios([(100, 90), (200, 100), (100, 99)])
    assert ratios == pytest.approx([0.9, 0.5, 0.99])
    assert median == pytest.approx(0.9)
    _, even = ev.overhead_ratios([(100, 90), (100, 100)])
    assert even == pytest.approx(0.95)


@pytest.mark.parametrize("rounds, message", [([], "no rounds"), ([(0, 10)], "wpq's > 0"),
                                             ([(10, -1)], "must be >= 0")])
def test_overhead_ratio_refuses_rounds_it_cannot_divide(rounds, message):
    with pytest.raises(ValueError, match=message):
        ev.overhead_ratios(rounds)


def test_normalized_black_box_takes_out_a_common_slowdown():
    # Both clients ran 1.5x faster than alone (a quieter machine): shares 0.3/1.2 are 0.2/0.8.
    rows = [{"time_s": t, "client": c, "target": tg, "black_box_share": s}
            for t in ("2.000", "4.000", "6.000")
            for c, tg, s in (("a", "0.2", "0.3"), ("b", "0.8", "1.2"))]
    got = ev.normalized_black_box(rows, skip=2.0)
    assert got["a"].windows == 2
    assert got["a"].mean_share == pytest.approx(0.2)
    assert got["b"].mean_error == pytest.approx(0.0)


def test_normalized_black_box_needs_a_window_after_the_warmup():
    rows = [{"time_s": "2.000", "client": "a", "target": "1", "black_box_share": "0.5"}]
    with pytest.raises(ValueError, match="no window after the first 4 s"):
        ev.normalized_black_box(rows, skip=4.0)


DRIVE = {"read_latency": 100e-6, "read_bandwidth": 300e6, "parallelism": 4}


def test_model_device_shares_weigh_reads_by_their_service_time():
    # 128 KiB costs 100 us + 1747.6 us; 4 KiB 100 us + 54.6 us: 10 big and 120 small reads per
    # second use 18.48 ms and 18.54 ms of the device, about half each.
    rows = [{"time_s": t, "client": c, "target": tg, "iops": n}
            for t in ("2.000", "4.000") for c, tg, n in (("big", "0.5", "10"), ("small", "0.5", "120"))]
    got = ev.model_device_shares(rows, {"big": 131072, "small": 4096}, DRIVE, skip=0)
    assert got["big"].mean_share == pytest.approx(0.4992, abs=1e-3)
    assert got["small"].windows == 2


@pytest.mark.parametrize("model, message", [({"read_latency": 1e-4, "parallelism": 4}, "no 'read_bandwidth'"),
                                            ({**DRIVE, "read_bandwidth": 0}, "expected > 0")])
def test_model_device_shares_need_the_models_read_keys(model, message):
    with pytest.raises(ValueError, match=message):
        ev.read_service_seconds(model, 4096)


def test_model_device_shares_refuse_a_client_without_a_size():
    rows = [{"time_s": "6.000", "client": "writer", "target": "1", "iops": "5"}]
    with pytest.raises(ValueError, match="no read size for client writer"):
        ev.model_device_shares(rows, {}, DRIVE, skip=4)
