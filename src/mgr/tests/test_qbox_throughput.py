"""Throughput SLAs: the conversion (with the broker's test vectors), every bad input, the table and
its stored form, and re-deriving them as the OSDs' estimates move, with admission."""
import errno
import json
import math
import os

import pytest

from qbox.health import health_checks
from qbox.push import read_status
from qbox.refusal import Refusal
from qbox.sla import client_prices, costs_by_osd, rederive, sla_entries, write_prices_by_osd
from qbox.status import build_status, render_plain
from qbox.table import Table, from_json, remove_client, set_client, set_throughput, to_json
from qbox.throughput import (CLASS_ESTIMATE, CLIENT_PRICE, MAX_SIZE, WRITE_PRICE, Throughput, derive,
                              fitted_write_cost, parse_iops, parse_throughput, utilization)

TESTDATA = os.path.join(os.path.dirname(__file__), "..", "..", "qbox", "testdata")
VECTORS = os.path.join(TESTDATA, "throughput_vectors.txt")
WRITE_PRICE_VECTORS = os.path.join(TESTDATA, "write_price_vectors.txt")
READS = Throughput(500.0, 4096, "read", "rand")


def vectors(path=VECTORS):
    with open(path) as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]


def test_the_conversion_matches_the_brokers_vectors():
    checked = 0
    for fields in vectors():
        if fields[0] == "refuse":
            refused = parse_iops(fields[1])
            assert isinstance(refused, Refusal) and refused.errno == -errno.EINVAL, fields
        else:
            iops, interval, count, expected = fields
            assert utilization(parse_iops(iops), float(interval) / float(count)) == pytest.approx(
                float(expected), abs=1e-12), fields
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("args, message", [
    (("0", "4096", "read", None), "iops is '0'; accepted: a number of operations per second greater than 0"),
    (("-5", "4096", "read", None), "iops is '-5'"),
    (("nan", "4096", "read", None), "iops is 'nan'"),
    (("inf", "4096", "read", None), "iops is 'inf'"),
    (("lots", "4096", "read", None), "iops is 'lots'"),
    (("", "4096", "read", None), "iops is ''"),
    (("500", "0", "read", None), f"size is '0'; accepted: a whole number of bytes from 1 to {MAX_SIZE}"),
    (("500", "-4096", "read", None), "size is '-4096'"),
    (("500", "4k", "read", None), "size is '4k'"),
    (("500", "4096.0", "read", None), "size is '4096.0'"),
    (("500", str(MAX_SIZE + 1), "read", None), f"size is '{MAX_SIZE + 1}'"),
    (("500", "\u0664096", "read", None), "size is"),
    (("500", "4096", "erase", None), "op is 'erase'; accepted: read or write"),
    (("500", "4096", "READ", None), "op is 'READ'"),
    (("500", "4096", "read", "sequential"), "access is 'sequential'; accepted: seq or rand (default rand)"),
])
def test_bad_slas_name_the_argument_the_value_and_what_is_accepted(args, message):
    refused = parse_throughput(*args)
    assert isinstance(refused, Refusal) and refused.errno == -errno.EINVAL
    assert refused.message.startswith(message), refused.message


def test_slas_default_to_random_ops():
    assert parse_throughput("500", "4096", "read", None) == READS
    assert parse_throughput("1e3", str(MAX_SIZE), "write", "seq") == Throughput(1000.0, MAX_SIZE, "write", "seq")
    assert READS.describe() == "500 IOPS of 4096-byte random reads"


def test_the_dearest_osd_prices_the_sla():
    costs = {0: {"rand_read": 0.001, "rand_write": 0.002}, 1: {"rand_read": 0.0012}, 2: {"rand_read": None}}
    conversion = derive(READS, costs)
    assert (conversion.osd, conversion.cost_class, conversion.cost) == (1, "rand_read", 0.0012)
    assert conversion.utilization == pytest.approx(0.6)
    assert conversion.source == CLASS_ESTIMATE
    assert conversion.describe(READS) == ("500 x 1.2 ms (the rand_read estimate on osd.1, the dearest OSD) = 0.6 "
                                          "(the size prices nothing: an OSD cannot see a read's length)")


def test_the_clients_own_measured_price_is_preferred_to_the_class_estimate():
    costs = {0: {"rand_read": 0.001}, 1: {"rand_read": 0.0012}}
    # client.alice's reads measured 4 ms on osd.0 and 3 ms on osd.2; osd.1 has none of them yet.
    conversion = derive(READS, costs, {0: {"read": 0.004, "write": 0.009}, 2: {"read": 0.003}})
    assert (conversion.osd, conversion.cost_class, conversion.cost, conversion.source) == (
        0, "read", 0.004, CLIENT_PRICE)
    assert conversion.utilization == pytest.approx(2.0)
    assert conversion.describe(READS) == (
        "500 x 4 ms (the client's measured read price on osd.0, the dearest OSD) = 2 "
        "(the size prices nothing: an OSD cannot see a read's length)")
    # A sequential SLA pays the same: the OSDs price the client's ops, not their access pattern.
    assert derive(Throughput(500.0, 4096, "read", "seq"), costs, {0: {"read": 0.004}}).cost == 0.004


@pytest.mark.parametrize("prices", [None, {}, {0: {}}, {0: {"write": 0.009}}, {0: {"read": 0}},
                                    {0: {"read": math.nan}}, {0: {"read": True}}, {0: {"read": "0.004"}},
                                    {0: ["read", 0.004]}])
def test_without_a_price_of_its_own_for_the_operation_the_class_estimate_prices_the_sla(prices):
    conversion = derive(READS, {0: {"rand_read": 0.001}, 1: {"rand_read": 0.0012}}, prices)
    assert (conversion.osd, conversion.cost_class, conversion.cost, conversion.source) == (
        1, "rand_read", 0.0012, CLASS_ESTIMATE)


FITTED = {"method": "residual", "long_windows": 5, "per_op": 0.0001, "per_mib": 0.04, "reads_clean": True}


def test_a_write_sla_is_priced_at_the_dearest_fitted_write_price_for_its_size():
    writes = Throughput(20.0, 1048576, "write", "seq")
    write_prices = {0: FITTED, 1: dict(FITTED, per_op=0.0002, per_mib=0.02),
                    2: dict(FITTED, method="prior", per_op=1.0, per_mib=1.0)}
    conversion = derive(writes, {0: {"rand_write": 0.0001}}, {0: {"write": 0.0001}}, write_prices)
    assert (conversion.osd, conversion.cost_class, conversion.source) == (0, "write", WRITE_PRICE)
    assert conversion.cost == pytest.approx(0.0401)
    assert conversion.utilization == pytest.approx(0.802)
    assert conversion.describe(writes) == (
        "20 x 40.1 ms (the fitted write price of a write that size on osd.0, the dearest OSD) = 0.802")
    # The size is what the price is for: 4 KiB writes at osd.1's per-op price are the dearer.
    small = derive(Throughput(1000.0, 4096, "write", "rand"), {}, None, write_prices)
    assert small.osd == 1 and small.cost == pytest.approx(0.0002 + 0.02 / 256)


def test_a_write_is_priced_for_its_length_as_the_osd_charges_it_by_the_shared_vectors():
    checked = 0
    for per_op, per_mib, shortest, length, expected in vectors(WRITE_PRICE_VECTORS):
        price = dict(FITTED, per_op=float(per_op), per_mib=float(per_mib), shortest_write=int(shortest))
        assert fitted_write_cost(price, int(length)) == pytest.approx(float(expected), abs=1e-15), (
            per_op, per_mib, shortest, length)
        checked += 1
    assert checked >= 10


def test_a_write_sla_shorter_than_the_fits_writes_is_priced_per_byte():
    price = dict(FITTED, per_op=0.05, per_mib=0.07, shortest_write=1048576)
    small = derive(Throughput(1000.0, 4096, "write", "rand"), {}, None, {0: price})
    assert small.cost == pytest.approx((0.05 + 0.07) / 256)


@pytest.mark.parametrize("write_price", [None, {}, dict(FITTED, method="prior"), dict(FITTED, per_mib=-1.0),
                                         dict(FITTED, per_op=math.inf), dict(FITTED, per_op="0.1"),
                                         dict(FITTED, per_op=0, per_mib=0), ["residual"]])
def test_without_a_fitted_write_price_a_write_sla_is_priced_as_before(write_price):
    writes = Throughput(20.0, 1048576, "write", "rand")
    conversion = derive(writes, {0: {"rand_write": 0.003}}, {0: {"write": 0.002}}, {0: write_price})
    assert (conversion.cost, conversion.source) == (0.002, CLIENT_PRICE)
    assert "cannot see" not in conversion.describe(writes)


def test_write_prices_come_only_from_osds_scheduling_with_qbox():
    def status(state, write_price):
        return json.dumps({"state": state, "table_epoch": 1, "costs": {}, "write_price": write_price})
    reports = {0: read_status(0, 0, status("active", FITTED), ""),
               1: read_status(1, 0, status("stock", FITTED), ""),
               2: read_status(2, 0, status("active", "junk"), ""),
               3: read_status(3, 0, "", "unknown command prefix qbox status")}
    assert write_prices_by_osd(reports) == {0: FITTED}


def test_a_clients_price_prices_its_sla_even_before_any_osd_estimates_the_class():
    assert derive(READS, {0: {"rand_read": None}}, {0: {"read": 0.002}}).cost == 0.002


def test_a_sequential_sla_pays_the_random_cost_where_the_osd_does_not_tell_them_apart():
    seq = Throughput(100.0, 65536, "read", "seq")
    assert derive(seq, {0: {"seq_read": None, "rand_read": 0.002}}).cost_class == "rand_read"
    assert derive(seq, {0: {"seq_read": 0.0005, "rand_read": 0.002}}).cost == 0.0005


@pytest.mark.parametrize("costs", [{}, {0: {}}, {0: {"rand_read": None, "rand_write": 0.01}},
                                   {0: {"rand_read": 0}}, {0: {"rand_read": -1.0}}, {0: {"rand_read": math.nan}},
                                   {0: {"rand_read": True}}, {0: {"rand_read": "0.001"}}])
def test_without_an_estimate_for_the_class_the_sla_is_refused_with_eagain(costs):
    refused = derive(READS, costs)
    assert isinstance(refused, Refusal) and refused.errno == -errno.EAGAIN
    assert "no OSD has estimated the cost of a rand_read op yet" in refused.message
    assert "retry once they have served such ops" in refused.message and "`ceph qbox set" in refused.message


def test_costs_come_only_from_osds_scheduling_with_qbox():
    reports = {0: read_status(0, 0, json.dumps({"state": "active", "table_epoch": 1, "costs": {"rand_read": 1}}), ""),
               1: read_status(1, 0, json.dumps({"state": "stock", "table_epoch": 0, "costs": {"rand_read": 9}}), ""),
               2: read_status(2, 0, "", "unknown command prefix qbox status"),
               3: read_status(3, 0, json.dumps({"state": "active", "table_epoch": 1, "costs": None}), "")}
    assert costs_by_osd(reports) == {0: {"rand_read": 1}, 3: {}}


def test_client_prices_come_from_the_entries_of_osds_scheduling_with_qbox():
    def status(state, clients):
        return json.dumps({"state": state, "table_epoch": 1, "costs": {}, "clients": clients})
    reports = {0: read_status(0, 0, status("active", [{"name": "client.alice", "price": {"read": 0.004}},
                                                      {"name": "client.bob"}, "junk", {"price": {"read": 1}},
                                                      {"name": "client.carol", "price": 0.002}]), ""),
               1: read_status(1, 0, status("stock", [{"name": "client.alice", "price": {"read": 9}}]), ""),
               2: read_status(2, 0, status("active", [{"name": "client.alice", "price": {"write": 0.001}}]), ""),
               3: read_status(3, 0, status("active", None), "")}
    assert client_prices(reports) == {"client.alice": {0: {"read": 0.004}, 2: {"write": 0.001}}}


def test_an_sla_is_admitted_like_a_utilization_and_a_utilization_replaces_it():
    table = set_throughput(Table(), "client.alice", READS, 0.6, "how")
    assert table.clients == {"client.alice": 0.6} and table.throughputs == {"client.alice": READS}
    refused = set_throughput(table, "client.bob", READS, 0.3, "500 x 0.6 ms = 0.3")
    assert refused.errno == -errno.ERANGE
    assert refused.message.startswith("admission refused: with client.bob at 0.3 (500 IOPS of 4096-byte random "
                                      "reads: 500 x 0.6 ms = 0.3) the sum of utilizations would be 1.05")
    assert set_client(table, "client.alice", 0.2).throughputs == {}
    assert remove_client(table, "client.alice").throughputs == {}


def test_slas_are_stored_with_the_table_and_a_table_stored_before_them_still_reads():
    table = set_throughput(set_client(Table(), "client.bob", 0.1), "client.alice", READS, 0.6, "how")
    assert from_json(to_json(table)) == table
    assert from_json('{"clients": {"client.a": 0.3}, "background": {}}').throughputs == {}


@pytest.mark.parametrize("throughputs, complaint", [
    ({"client.b": {"iops": 5, "size": 4096, "op": "read", "access": "rand"}}, "client.b has a throughput SLA but"),
    ({"client.a": {"iops": 0, "size": 4096, "op": "read", "access": "rand"}}, "iops is '0'"),
    ({"client.a": {"iops": 5, "size": 4096, "op": "read"}}, "throughput SLA of client.a is"),
    ({"client.a": {"iops": 5, "size": 4096, "op": "trim", "access": "rand"}}, "op is 'trim'"),
    ({"client.a": "500"}, "throughput SLA of client.a is '500'"),
    ([], "not readable"),
])
def test_a_stored_sla_that_would_be_refused_as_a_command_is_refused_when_read(throughputs, complaint):
    refused = from_json(json.dumps({"clients": {"client.a": 0.3}, "background": {}, "throughputs": throughputs}))
    assert isinstance(refused, Refusal) and complaint in refused.message, refused


def sla_table(*entries):
    table = Table()
    for name, throughput, u in entries:
        table = set_throughput(table, name, throughput, u, "how")
    return table


def test_utilizations_rise_with_the_estimates_at_once_and_fall_only_past_the_margin():
    table = sla_table(("client.alice", READS, 0.5))
    risen = rederive(table, {0: {"rand_read": 0.00101}}, 0.1)
    assert risen.table.clients["client.alice"] == pytest.approx(0.505) and not risen.refused
    assert risen.derived["client.alice"].osd == 0
    assert rederive(table, {0: {"rand_read": 0.00091}}, 0.1).table is table
    assert rederive(table, {0: {"rand_read": 0.00089}}, 0.1).table.clients["client.alice"] == pytest.approx(0.445)


def test_rederiving_prefers_each_clients_own_price():
    table = sla_table(("client.alice", READS, 0.4), ("client.bob", READS, 0.4))
    result = rederive(table, {0: {"rand_read": 0.0008}}, 0.1, {"client.alice": {0: {"read": 0.0006}}})
    assert result.derived["client.alice"].source == CLIENT_PRICE
    assert result.table.clients["client.alice"] == pytest.approx(0.3)
    assert result.derived["client.bob"].source == CLASS_ESTIMATE
    assert result.table.clients["client.bob"] == pytest.approx(0.4)


def test_an_sla_no_osd_prices_keeps_its_utilization():
    table = sla_table(("client.alice", READS, 0.5))
    result = rederive(table, {0: {"rand_read": None}}, 0.1)
    assert result.table is table and result.derived == {} and result.refused == {}


def test_a_rise_past_admission_keeps_the_last_utilization_and_says_why():
    table = set_client(sla_table(("client.alice", READS, 0.5)), "client.bob", 0.3)
    result = rederive(table, {0: {"rand_read": 0.0015}}, 0.1)
    assert result.table.clients == {"client.alice": 0.5, "client.bob": 0.3}
    why = result.refused["client.alice"]
    assert why.startswith("client.alice keeps utilization 0.5, the last admitted, though its SLA of 500 IOPS of "
                          "4096-byte random reads now needs 0.75: admission refused: with client.alice at 0.75")
    checks = health_checks([0], {}, [], {}, [], 0.0, [why])
    assert checks["QBOX_SLA_NOT_ADMITTED"]["detail"] == [why]
    assert "QBOX_SLA_NOT_ADMITTED" not in health_checks([0], {}, [], {}, [], 0.0)


def test_falls_are_admitted_before_rises_so_they_make_room():
    writes = Throughput(100.0, 4096, "write", "rand")
    table = sla_table(("client.a", READS, 0.5), ("client.b", writes, 0.3))
    # a (first by name) rises to 0.6, which fits only once b has fallen to 0.2.
    result = rederive(table, {0: {"rand_read": 0.0012, "rand_write": 0.002}}, 0.1)
    assert result.table.clients == {"client.a": pytest.approx(0.6), "client.b": pytest.approx(0.2)}
    assert result.refused == {}


def test_status_shows_each_sla_and_the_utilization_it_became():
    table = set_client(sla_table(("client.alice", READS, 0.5)), "client.bob", 0.3)
    result = rederive(table, {1: {"rand_read": 0.0015}}, 0.1)
    entries = sla_entries(result.table, result.derived, result.refused)
    status = build_status(result.table, 3, {}, [], {}, {}, [], 0.0, entries)
    assert json.loads(json.dumps(status))["slas"] == [{
        "name": "client.alice", "iops": 500.0, "size": 4096, "op": "read", "access": "rand", "utilization": 0.5,
        "derived": pytest.approx(0.75), "cost_class": "rand_read", "cost_source": "class", "cost_seconds": 0.0015,
        "cost_osd": 1, "refused": result.refused["client.alice"]}]
    text = render_plain(status)
    assert ("  client.alice             SLA 500 IOPS of 4096-byte random reads -> 0.500 (now 500 x 1.500 ms "
            "rand_read estimate on osd.1 = 0.750); NOT ADMITTED, see QBOX_SLA_NOT_ADMITTED") in text
    own = rederive(table, {1: {"rand_read": 0.0015}}, 0.1, {"client.alice": {2: {"read": 0.0004}}})
    own_entries = sla_entries(own.table, own.derived, own.refused)
    assert own_entries[0]["cost_source"] == "client" and own_entries[0]["cost_class"] == "read"
    assert ("SLA 500 IOPS of 4096-byte random reads -> 0.200 (now 500 x 0.400 ms client's measured read price on "
            "osd.2 = 0.200)") in render_plain(build_status(own.table, 3, {}, [], {}, {}, [], 0.0, own_entries))
    fresh = render_plain(build_status(table, 3, {}, [], {}, {}, [], 0.0, sla_entries(table, {}, {})))
    assert "SLA 500 IOPS of 4096-byte random reads -> 0.500 (no OSD has priced it since the mgr started)" in fresh
