"""The qbox table: admission, bad input and its stored form."""
import errno

import pytest

from qbox.table import (DEFAULT_BACKGROUND, Refusal, Table, from_json, parse_client_name, parse_utilization,
                        remove_client, set_background, set_client, to_json)


def test_clients_are_admitted_while_everything_sums_to_at_most_one():
    table = set_client(Table(), "client.alice", 0.3)
    table = set_client(table, "client.bob", 0.55)
    assert table.clients == {"client.alice": 0.3, "client.bob": 0.55}
    assert table.total() == pytest.approx(1.0)


def test_admission_above_one_is_refused_naming_the_current_sum_and_leaves_the_table():
    table = set_client(Table(), "client.alice", 0.5)
    refused = set_client(table, "client.bob", 0.4)
    assert isinstance(refused, Refusal) and refused.errno == -errno.ERANGE
    assert "would be 1.05" in refused.message and "at most 1" in refused.message
    assert "The sum now is 0.65 (client.alice 0.5, background_best_effort 0.05, background_recovery 0.1)" \
        in refused.message
    assert table.clients == {"client.alice": 0.5}


def test_changing_a_clients_share_replaces_it_rather_than_adding():
    table = set_client(set_client(Table(), "client.alice", 0.8), "client.alice", 0.2)
    assert table.clients == {"client.alice": 0.2}


def test_sums_equal_to_one_in_decimal_are_admitted_despite_binary_rounding():
    table = set_background(set_background(Table(), "recovery", 0.1), "best_effort", 0.2)
    assert not isinstance(set_client(table, "client.a", 0.7), Refusal)


@pytest.mark.parametrize("text", ["0", "-0.1", "1.0001", "nan", "inf", "abc", "", "0,3", None])
def test_bad_utilizations_name_the_argument_the_value_and_the_accepted_range(text):
    refused = parse_utilization("utilization", text)
    assert isinstance(refused, Refusal) and refused.errno == -errno.EINVAL
    assert refused.message.startswith(f"utilization is {text!r}; accepted:")
    assert "greater than 0 and at most 1" in refused.message


@pytest.mark.parametrize("text, value", [("1", 1.0), ("0.3", 0.3), ("1e-3", 0.001)])
def test_utilizations(text, value):
    assert parse_utilization("utilization", text) == value


@pytest.mark.parametrize("name", ["alice", "client.", "osd.1", "client.al ice", "client.a/b", "CLIENT.a",
                                  "client." + "x" * 65, ""])
def test_malformed_client_names_are_refused(name):
    refused = parse_client_name(name)
    assert isinstance(refused, Refusal) and refused.errno == -errno.EINVAL
    assert refused.message.startswith(f"client is {name!r}; accepted: a cephx client name")


@pytest.mark.parametrize("name", ["client.alice", "client.admin", "client.rgw.host-1", "client.a_b@c"])
def test_client_names(name):
    assert parse_client_name(name) == name


def test_removing_a_client_not_in_the_table_says_which_are():
    refused = remove_client(set_client(Table(), "client.alice", 0.3), "client.bob")
    assert refused.errno == -errno.ENOENT and "clients in it: client.alice" in refused.message
    assert remove_client(set_client(Table(), "client.alice", 0.3), "client.alice").clients == {}


def test_background_classes_have_defaults_can_be_set_and_count_in_the_sum():
    assert Table().background == DEFAULT_BACKGROUND
    table = set_background(set_client(Table(), "client.alice", 0.8), "best_effort", 0.1)
    assert table.background == {"recovery": 0.1, "best_effort": 0.1}
    assert set_background(table, "recovery", 0.2).errno == -errno.ERANGE
    refused = set_background(table, "scrub", 0.1)
    assert refused.errno == -errno.EINVAL and refused.message == "class is 'scrub'; accepted: recovery or best_effort"


def test_the_stored_table_reads_back_as_it_was():
    table = set_background(set_client(Table(), "client.alice", 0.3), "recovery", 0.2)
    assert from_json(to_json(table)) == table


@pytest.mark.parametrize("stored, complaint", [
    ("not json", "not readable"),
    ('{"clients": []}', "not readable"),
    ('{"clients": {"alice": 0.3}, "background": {}}', "client is 'alice'"),
    ('{"clients": {"client.a": 0.9}, "background": {"recovery": 0.5}}', "admission refused"),
    ('{"clients": {"client.a": "x"}, "background": {}}', "client.a is 'x'"),
    ('{"clients": {}, "background": {"scrub": 0.1}}', "class is 'scrub'"),
])
def test_a_stored_table_that_would_be_refused_as_a_command_is_refused_when_read(stored, complaint):
    refused = from_json(stored)
    assert isinstance(refused, Refusal) and complaint in refused.message
