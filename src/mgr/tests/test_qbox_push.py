"""What the module sends to the OSDs and how it reads their answers (the contract with the OSD
library), and where the OSDs' global ids come from (the monitors' session lists)."""
import errno
import json

from qbox.push import OsdReport, needing_push, next_epoch, read_push, read_status, set_command, table_body
from qbox.sessions import owners_by_name, without_shared
from qbox.table import Table, set_client


def session(entity, global_id, name="client.?", con_type="client"):
    return {"name": name, "entity_name": entity, "global_id": global_id, "con_type": con_type}


def test_owners_are_the_global_ids_of_each_clients_sessions_on_every_monitor():
    # As `ceph tell mon.a sessions -f json` listed them (doc/dev/qbox-mgr.md).
    mon_a = [session("", 0, "mon.0", "mon"), session("mgr.x", 4098, "mgr.4098", "mgr"), session("mgr.x", 4100),
             session("client.alice", 4125), session("client.admin", 4142), session("client.admin", 4144, "client.4142")]
    mon_b = [session("client.alice", 4190), "garbage", session("client.bob", "x")]
    assert owners_by_name([mon_a, mon_b, None]) == {"client.alice": [4125, 4190], "client.admin": [4142, 4144]}


def test_an_id_claimed_by_two_names_goes_to_neither():
    assert without_shared({"client.a": [1, 2], "client.b": [2, 3]}) == {"client.a": [1], "client.b": [3]}


def test_the_pushed_table_is_the_contracts_and_its_epoch_moves_only_when_it_changes():
    table = set_client(Table(), "client.alice", 0.3)
    body = table_body(table, {"client.alice": [4125], "client.admin": [4142]})
    assert body == {"clients": [{"name": "client.alice", "utilization": 0.3, "owners": [4125]}],
                    "background_recovery": 0.1, "background_best_effort": 0.05}
    command = set_command(7, body)
    assert command["prefix"] == "qbox set" and json.loads(command["table"]) == dict(body, epoch=7)
    assert next_epoch(0, None, body) == 1
    assert next_epoch(1, body, body) == 1
    assert next_epoch(1, body, table_body(table, {"client.alice": [4125, 4190]})) == 2


def status(state="active", epoch=3, **extra):
    return json.dumps(dict({"state": state, "reason": "", "table_epoch": epoch, "clients": []}, **extra))


def test_an_osd_without_the_library_is_stock_whichever_way_it_says_so():
    # Through the mgr's send_command, and through `ceph tell`.
    for ret, err in ((0, "unknown command prefix qbox status"), (-errno.EINVAL, "no valid command found")):
        report = read_status(2, ret, "", err)
        assert not report.active and not report.answered()
        assert "libec_qbox.so is not loaded, or it refused this ceph-osd build" in report.reason


def test_osd_answers():
    assert read_status(0, 0, status(), "") == OsdReport(0, True, "", 3, json.loads(status()))
    stock = read_status(0, 0, status("stock", 0, reason="build-id not on the allow-list"), "")
    assert not stock.active and stock.answered() and "build-id not on the allow-list" in stock.reason
    assert "no answer to `qbox status`: no answer in 10 s" == \
        read_status(0, -errno.ETIMEDOUT, "", "no answer in 10 s").reason
    assert read_status(0, -errno.EIO, "", "boom").reason == "`qbox status` failed: boom (-5)"
    for garbage in ("{", '{"state": "on", "table_epoch": 1}', '{"state": "active", "table_epoch": "1"}', "[]"):
        report = read_status(0, 0, garbage, "")
        assert not report.active and "unreadable" in report.reason


def test_only_osds_whose_library_answered_with_another_epoch_get_the_table():
    reports = {0: read_status(0, 0, status(epoch=3), ""), 1: read_status(1, 0, status(epoch=0), ""),
               2: read_status(2, 0, "", "unknown command prefix qbox status"),
               3: read_status(3, 0, status("stock", 2), "")}
    assert needing_push(reports, 3) == [1, 3]


def test_a_refused_table_is_reported_with_the_osds_reason():
    report, failure = read_push(1, -errno.EINVAL, "", "clients[0].utilization: 1.5 not in (0, 1]")
    assert report is None
    assert failure == "osd.1 did not take the qbox table: clients[0].utilization: 1.5 not in (0, 1] (-22)"
    report, failure = read_push(1, 0, status(epoch=4), "")
    assert failure is None and report.epoch == 4
