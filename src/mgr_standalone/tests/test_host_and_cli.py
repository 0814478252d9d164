"""The standalone host's pure parts: the modules' commands found, parsed and dispatched as `ceph`
would dispatch them to a mgr module, option values checked before they are written, replies
decoded, and the controllers' lock outlasting any Rails lease. No cluster."""
import errno
import sys

import pytest

from erails_standalone import channel
from erails_standalone.cli import check_option, module_commands, parse_command
from erails_standalone.host import HandleCommandResult, commands_of, run_command
from erails_standalone.service import load_module_class, render_health
from rails.lease import lease_seconds
from rails.settings import OPTION_TABLE


@pytest.fixture(scope="module")
def qbox_specs():
    return module_commands("qbox")


def test_every_command_of_both_modules_is_found_with_its_arguments(qbox_specs):
    assert set(module_commands("rails")) == {"rails status", "rails health"}
    assert set(qbox_specs) == {"qbox set", "qbox set-throughput", "qbox rm", "qbox set-background", "qbox status",
                               "qbox health"}
    assert qbox_specs["qbox set-throughput"].params == ["client", "iops", "size", "op", "access"]
    assert qbox_specs["qbox set-throughput"].required == ["client", "iops", "size", "op"]
    assert qbox_specs["qbox status"].read_only and not qbox_specs["qbox set"].read_only


def test_words_become_the_request_ceph_would_send(qbox_specs):
    assert parse_command(["qbox", "set", "client.a", "0.3"], None, qbox_specs) == \
        {"prefix": "qbox set", "client": "client.a", "utilization": "0.3"}
    # The longest prefix wins: `qbox set-throughput` is not `qbox set` with extra words.
    assert parse_command(["qbox", "set-throughput", "client.a", "20", "4096", "read"], None, qbox_specs) == \
        {"prefix": "qbox set-throughput", "client": "client.a", "iops": "20", "size": "4096", "op": "read"}
    assert parse_command(["qbox", "status"], "json", qbox_specs) == {"prefix": "qbox status", "format": "json"}


@pytest.mark.parametrize("words, fmt, message", [
    (["qbox", "frob"], None, "unknown command 'qbox frob'; accepted:"),
    (["qbox", "rm", "client.a", "client.b"], None, "qbox rm: too many arguments (client.a client.b); usage: qbox rm <client>"),
    (["qbox", "rm", "client.a"], "json", "qbox rm takes no --format"),
])
def test_bad_words_are_refused_naming_what_is_accepted(qbox_specs, words, fmt, message):
    refusal = parse_command(words, fmt, qbox_specs)
    assert isinstance(refusal, str) and refusal.startswith(message), refusal


class Answering:
    """A module's command methods, recording their arguments."""
    def __init__(self):
        self.calls = []

    def qbox_set(self, client, utilization):
        self.calls.append((client, utilization))
        return HandleCommandResult(0, "", "set")


def test_dispatch_checks_the_arguments_before_calling(qbox_specs):
    module = Answering()
    assert run_command(module, qbox_specs, {"prefix": "qbox set", "client": "client.a", "utilization": "0.5"}) == \
        (0, "", "set")
    assert module.calls == [("client.a", "0.5")]
    refused = [run_command(module, qbox_specs, request) for request in (
        {"prefix": "qbox sett"},
        {"prefix": "qbox set", "client": "client.a"},
        {"prefix": "qbox set", "client": "client.a", "utilization": "0.5", "colour": "red"},
    )]
    assert [r.retval for r in refused] == [-errno.EINVAL] * 3
    assert refused[0].stderr.startswith("unknown command 'qbox sett'; accepted: qbox health, qbox rm, qbox set,")
    assert refused[1].stderr == "qbox set: missing argument 'utilization'; usage: qbox set <client> <utilization>"
    assert refused[2].stderr == "qbox set: unknown argument 'colour'; accepted: client, utilization"
    assert module.calls == [("client.a", "0.5")]


@pytest.mark.parametrize("module, name, value, message", [
    ("rails", "active", "yes", "mgr/rails/active is 'yes'; accepted: true or false"),
    ("rails", "poll_seconds", "9", "mgr/rails/poll_seconds is '9'; accepted: 0.05..5"),
    ("rails", "prefer_deferred_size", "4k", "mgr/rails/prefer_deferred_size is '4k'; accepted: a whole number"),
    ("qbox", "push_seconds", "nan", "mgr/qbox/push_seconds is 'nan'; accepted: 1..600"),
    ("qbox", "push_second", "5", "mgr/qbox/push_second is not an option of qbox; accepted: backlogged_min,"),
])
def test_bad_option_values_are_refused_naming_the_key(module, name, value, message):
    refusal = check_option(module, name, value)
    assert refusal is not None and refusal.startswith(message), refusal


def test_good_option_values_pass():
    assert check_option("rails", "active", "False") is None
    assert check_option("rails", "poll_seconds", "0.5") is None
    assert check_option("qbox", "push_seconds", "2") is None


def test_every_rails_option_range_reaches_the_declared_option():
    options = {option["name"]: option for option in load_module_class("rails").MODULE_OPTIONS}
    for name, (_, low, high, _) in OPTION_TABLE.items():
        assert (options[name].get("min"), options[name].get("max")) == (low, high), name


def test_replies_round_trip_and_garbage_is_not_a_reply():
    assert channel.decode_reply(channel.encode_reply(-2, "out", "err")) == (-2, "out", "err")
    assert channel.decode_reply(b"") is None
    assert channel.decode_reply(b'{"retval": 0}') is None


def test_a_dead_controllers_lock_outlasts_every_lease_it_granted():
    longest_poll = OPTION_TABLE["poll_seconds"][2]
    load_module_class("rails")
    longest_lease = lease_seconds(longest_poll, sys.modules["rails.module"].COMMAND_TIMEOUT_SECONDS)
    assert channel.LOCK_SECONDS > channel.LOCK_RENEW_SECONDS + longest_lease


def test_health_renders_like_ceph_health_detail():
    checks = {"QBOX_OSD_STOCK": {"severity": "warning", "summary": "1 up OSD(s) do not schedule with QBox",
                                 "count": 1, "detail": ["osd.0: no library"]}}
    assert render_health(checks, "plain").stdout == \
        "HEALTH_WARN\n[WRN] QBOX_OSD_STOCK: 1 up OSD(s) do not schedule with QBox\n    osd.0: no library\n"
    assert render_health({}, "plain").stdout == "HEALTH_OK\n"
    assert render_health({}, "xml").retval == -errno.EINVAL


def test_commands_of_sees_only_marked_methods():
    assert commands_of(Answering) == {}
