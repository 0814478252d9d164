"""QBOX_* health checks, `ceph qbox status` and the module's settings, from invented OSD reports."""
import json

import pytest

from qbox.health import MissTracker, health_checks
from qbox.push import read_status
from qbox.settings import Settings, validate
from qbox.status import build_status, render_plain
from qbox.table import Table, set_client


def entry(name, target, achieved, backlogged, klass="client"):
    return {"name": name, "owners": [], "class": klass, "target": target, "achieved": achieved,
            "backlogged": backlogged, "ops": 10, "queued": 1}


def active(osd, *entries, epoch=1, write_price=None):
    status = {"state": "active", "reason": "", "table_epoch": epoch, "window_seconds": 1.0, "shards": 5,
              "costs": {"seq_read": 0.0002, "rand_read": 0.008, "seq_write": None, "rand_write": 0.01},
              "write_price": write_price, "clients": list(entries)}
    return read_status(osd, 0, json.dumps(status), "")


SETTINGS = Settings(miss_margin=0.05, miss_seconds=30.0, backlogged_min=0.5)


def test_a_backlogged_client_below_target_is_reported_only_after_missing_it_without_a_break():
    tracker = MissTracker()
    missing = {0: active(0, entry("client.alice", 0.3, 0.2, 0.9))}
    tracker.observe(missing, SETTINGS, 100.0)
    tracker.observe(missing, SETTINGS, 129.0)
    assert tracker.long_misses(SETTINGS, 129.0) == []
    tracker.observe(missing, SETTINGS, 130.0)
    [miss] = tracker.long_misses(SETTINGS, 130.0)
    assert (miss.osd, miss.client, miss.since) == (0, "client.alice", 100.0)
    checks = health_checks([0], missing, [miss], {}, [], 130.0)
    assert checks["QBOX_TARGET_MISSED"]["detail"] == ["osd.0: client.alice achieved 0.200 of target 0.300 for 30 s"]
    # One round on target starts the count again.
    tracker.observe({0: active(0, entry("client.alice", 0.3, 0.29, 0.9))}, SETTINGS, 131.0)
    tracker.observe(missing, SETTINGS, 140.0)
    assert tracker.long_misses(SETTINGS, 150.0) == []


def test_idle_clients_the_unreserved_entry_and_clients_within_the_margin_do_not_miss():
    tracker = MissTracker()
    reports = {0: active(0, entry("client.idle", 0.3, 0.0, 0.1), entry("client.close", 0.3, 0.26, 1.0),
                         entry("unreserved", 0.5, 0.1, 1.0), entry("client.new", 0.3, None, 1.0)),
               1: read_status(1, 0, "", "unknown command prefix qbox status")}
    tracker.observe(reports, SETTINGS, 0.0)
    assert tracker.long_misses(SETTINGS, 1000.0) == []


def test_up_osds_not_scheduling_with_qbox_are_named_with_the_reason():
    reports = {0: active(0), 1: read_status(1, 0, "", "unknown command prefix qbox status"),
               2: read_status(2, 0, json.dumps({"state": "stock", "reason": "build-id fb66 not checked",
                                                "table_epoch": 0}), "")}
    checks = health_checks([0, 1, 2], reports, [], {3: "osd.3 did not take the qbox table: x (-22)"},
                           ["mgr/qbox/push_seconds is 'x'; accepted: a number in 1..600"], 0.0)
    assert checks["QBOX_OSD_STOCK"]["count"] == 2
    assert checks["QBOX_OSD_STOCK"]["detail"][0].startswith("osd.1: `qbox status` is not a command of this OSD")
    assert checks["QBOX_OSD_STOCK"]["detail"][1] == \
        "osd.2: the QBox library is loaded but runs stock: build-id fb66 not checked"
    assert checks["QBOX_PUSH_FAILED"]["detail"] == ["osd.3 did not take the qbox table: x (-22)"]
    assert checks["QBOX_MODULE_PROBLEM"]["count"] == 1
    assert health_checks([0], {0: active(0)}, [], {}, [], 0.0) == {}


def test_status_shows_per_osd_and_client_target_costs_and_achieved_share():
    table = set_client(Table(), "client.alice", 0.3)
    write_price = {"method": "residual", "long_windows": 14, "per_mib_windows": 5, "per_op": 0.0001,
                   "per_mib": 0.04, "copies": 2.0, "shortest_write": 4096, "reads_clean": True}
    alice = dict(entry("client.alice", 0.3, 0.29, 0.95), price={"read": 0.002, "write": 0.041})
    reports = {0: active(0, alice, epoch=2, write_price=write_price),
               1: read_status(1, 0, "", "unknown command prefix qbox status")}
    status = build_status(table, 2, {"client.alice": [4125]}, [0, 1, 2], reports, {}, [], 0.0)
    assert [osd["state"] for osd in status["osds"]] == ["active", "no library", "unknown"]
    assert status["osds"][0]["in_sync"] and status["osds"][0]["costs"]["rand_read"] == 0.008
    assert status["osds"][0]["clients"][0]["achieved"] == 0.29
    assert status["osds"][0]["write_price"] == write_price
    assert json.loads(json.dumps(status)) == status
    text = render_plain(status)
    assert "qbox table epoch 2: utilizations sum to 0.450 of 1" in text
    assert "client.alice             0.300  sessions 4125" in text
    assert "osd.0: active, table epoch 2 (in sync), window 1.0 s, estimated ms per op: seq_read 0.200 " \
           "rand_read 8.000 seq_write - rand_write 10.000" in text
    assert "  write price: 0.100 ms per op + 40.000 ms per MiB, fitted to the device time reads left: per op " \
           "over 14 saturated 3 s windows, per MiB over the last 5, x2.00 for the replica sub-ops; writes " \
           "shorter than 4096 bytes charged per byte at a 4096-byte write's; reads priced clean" in text
    assert "  client.alice               0.300     0.290        0.95       10       1    2.000    41.000" in text
    assert "osd.1: no library: `qbox status` is not a command of this OSD" in text


@pytest.mark.parametrize("write_price, fitted", [
    ({"long_windows": 20, "per_mib_windows": 5, "per_op": 0.0},
     "fitted to the device time reads left: per MiB over the last 5 saturated 3 s windows (no per-op term "
     "kept over 20), x1.00"),
    ({"long_windows": 4, "per_op": 0.0001},
     "fitted to the device time reads left: over 4 saturated 3 s windows, x1.00"),
])
def test_the_write_price_says_over_how_many_windows_each_term_was_fitted(write_price, fitted):
    price = dict(write_price, method="residual", per_mib=0.04, copies=1.0)
    status = build_status(Table(), 2, {}, [0], {0: active(0, write_price=price)}, {}, [], 0.0)
    assert fitted in render_plain(status)


def test_settings_out_of_range_or_not_numbers_keep_their_previous_value():
    settings, errors = validate({"push_seconds": "0.1", "miss_margin": "x", "miss_seconds": 60},
                                Settings(push_seconds=7.0))
    assert settings == Settings(push_seconds=7.0, miss_seconds=60.0)
    assert errors == ["mgr/qbox/push_seconds is '0.1'; accepted: a number in 1..600",
                      "mgr/qbox/miss_margin is 'x'; accepted: a number in 0..1"]
