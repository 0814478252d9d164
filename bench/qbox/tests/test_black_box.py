"""The black-box share measure and summarize.py --alone, on invented qbox-bench rows."""
import csv
import os
import subprocess
import sys

import pytest

import black_box

HERE = os.path.dirname(os.path.abspath(__file__))

FIELDS = ("time_s,scheduler,client,target_util,completions,iops,mib_per_s,estimated_util,device_util,"
          "device_share,errors,est_read_seq_s,est_read_rand_s,est_write_seq_s,est_write_rand_s,"
          "write_per_op_s,write_per_mib_s").split(",")


def row(t, client, target, iops, estimated=0.0):
    r = dict.fromkeys(FIELDS, "")
    r.update(time_s=f"{t:.3f}", client=client, target_util=str(target), iops=str(iops),
             estimated_util=str(estimated))
    return r


# Alone, S completes 1,000 IOPS and R 200 (R's requests cost five times as much).
ALONE_S = [row(t, "S", 1.0, iops) for t, iops in ((1, 50), (2, 990), (3, 1010))]
ALONE_R = [row(t, "R", 1.0, 200) for t in (1, 2, 3)]
ALONE = {"S": 1000.0, "R": 200.0}


def test_standalone_iops_leave_out_the_warm_up():
    assert black_box.alone_iops(ALONE_S, 1.0) == ("S", 1000.0)
    assert black_box.alone_iops(ALONE_R, 0.0) == ("R", 200.0)


def test_a_standalone_run_has_one_client_that_did_io():
    with pytest.raises(ValueError, match="one client"):
        black_box.alone_iops(ALONE_S + ALONE_R, 1.0)
    with pytest.raises(ValueError, match="no I/O"):
        black_box.alone_iops([row(2, "S", 1.0, 0)], 1.0)


def test_a_linearly_shared_device_gives_shares_that_add_up_to_one():
    # S gets 0.3 of the time (300 IOPS), R 0.7 (140 IOPS); then the targets swap to 0.5 each and
    # R gets 0.6 (120 IOPS) instead.
    run = [row(1, "S", 0.3, 300), row(1, "R", 0.7, 140), row(2, "S", 0.5, 400), row(2, "R", 0.5, 120)]
    windows = black_box.window_shares(run, ALONE, 0.0)
    assert windows[2.0]["R"] == pytest.approx((0.5, 0.6))
    clients = black_box.per_client(windows)
    assert clients["S"].windows == 2
    assert clients["S"].mean_share == pytest.approx(0.35)
    assert clients["R"].mean_error == pytest.approx(0.05)
    assert clients["R"].max_error == pytest.approx(0.1)
    assert black_box.mean_total(windows) == pytest.approx(1.0)


def test_a_device_that_is_not_time_shared_shows_in_the_total():
    # Together both clients complete as much as each alone (e.g. each waits on its own resource):
    # the shares add up to 2 and say nothing about time.
    run = [row(1, "S", 0.3, 1000), row(1, "R", 0.7, 200)]
    assert black_box.mean_total(black_box.window_shares(run, ALONE, 0.0)) == pytest.approx(2.0)


def test_every_client_of_a_run_needs_a_standalone_run():
    with pytest.raises(ValueError, match="no standalone run for client C"):
        black_box.window_shares([row(1, "C", 0.5, 10)], ALONE, 0.0)


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)


def test_summarize_reports_estimator_and_black_box_shares(tmp_path):
    write(tmp_path / "alone_s.csv", ALONE_S)
    write(tmp_path / "alone_r.csv", ALONE_R)
    # The estimator's absolute figures (0.6 + 1.4) add up to 2; its proportions are 0.3 : 0.7.
    write(tmp_path / "run.csv", [row(1, "S", 0.3, 0, 0.0), row(2, "S", 0.3, 300, 0.6), row(2, "R", 0.7, 140, 1.4)])
    # The runs' warm-up (1.5 s) is longer than the standalone runs' (1 s); options in any order.
    out = subprocess.run([sys.executable, os.path.join(HERE, "..", "summarize.py"), "--alone",
                          str(tmp_path / "alone_s.csv"), "--skip", "1.5", "--alone", str(tmp_path / "alone_r.csv"),
                          "--alone-skip", "1", str(tmp_path / "run.csv")],
                         check=True, capture_output=True, text=True).stdout
    lines = list(csv.DictReader(out.splitlines()))
    by_client = {line["client"]: line for line in lines}
    assert by_client["S"]["windows"] == "1"
    assert by_client["S"]["mean_estimator_share"] == "0.3000"
    assert by_client["R"]["mean_abs_estimator_error"] == "0.0000"
    assert by_client["S"]["alone_iops"] == "1000.0"
    assert by_client["R"]["mean_black_box_share"] == "0.7000"
    assert by_client["R"]["black_box_total"] == "1.0000"
    assert by_client["R"]["mean_device_share"] == ""
