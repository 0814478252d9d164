"""The rails module's side of the OSD lease (rails/lease.py; the OSD's side is src/rails_osd): the
lease carries the module's own release, is granted before every hold, renewed every
RENEW_INTERVAL_SECONDS (not at every pass) while the OSD is held and cancelled at its release; an
OSD that refuses it is named by RAILS_NO_LEASE and held as before; an OSD whose lease ran out is
held again."""
import json

import pytest

from fake_mgr import forget_module, import_module_class, serve_until, stop_serving, wait_until
from maps import FOUR_COLORS, crush_map, osd_map, rails_profile
from rails_stand_in import make_rails_module
import rails.lease
from rails.lease import RENEW_INTERVAL_SECONDS, cancel_command, grant_command, lapsed, lease_seconds, renewals_due
from rails.accounting import HoldAccounting
from rails.settings import Settings, release_args, unslow_command
from rails.status import build_status, render_plain
from rails.topology import build_topology


@pytest.fixture
def module_class(monkeypatch):
    yield import_module_class(monkeypatch, "rails")
    forget_module("rails")


# The renewal interval the loop tests run with, so that a test sees several renewals in about a
# second; the loop sleeps at most 0.05 s (rails_stand_in's poll_seconds).
QUICK_RENEWAL_SECONDS = 0.3


@pytest.fixture
def quick_renewals(monkeypatch):
    monkeypatch.setattr(rails.lease, "RENEW_INTERVAL_SECONDS", QUICK_RENEWAL_SECONDS)


def granted(osd, command):
    return 0, json.dumps({"state": "active", "lapsed_at_last_grant": False}), ""


def sent(module, osd):
    """What `osd` was sent, in order: 'grant', 'cancel', 'hold', 'release' or other prefixes."""
    words = []
    for to, command in list(module.commands):
        if to != osd:
            continue
        if command["prefix"] == "rails lease":
            words.append("cancel" if command["args"] == ["cancel"] else "grant")
        elif command["prefix"] == "injectargs":
            words.append("hold" if command["injected_args"][0].endswith("=65535") else "release")
        else:
            words.append(command["prefix"])
    return words


def passes_after(module, first, seconds):
    """Whether the loop has run pass number `first` (from 1) and passes after it spanning more than
    `seconds` of its clock: how a test waits for the loop rather than sleeping."""
    return len(module.passes) > first and module.passes[-1] - module.passes[first - 1] > seconds


def renewal_gaps(module):
    """For each renewal, the time from the previous grant to it, both by the module's clock: when
    the module recorded that grant as sent, and when the renewal reached the stand-in (after the
    pass that sent it had started)."""
    renewals = iter(kind == "renewal" for _, kind in grant_kinds(module))
    return [sent - previous for (_, sent, previous), renewal in zip(module.grants, renewals) if renewal]


def grant_kinds(module):
    """(osd, 'hold' or 'renewal') for every grant sent, in order: a grant is a hold's when the next
    command to that OSD is its hold."""
    kinds = []
    for i, (osd, command) in enumerate(list(module.commands)):
        if command["prefix"] != "rails lease" or command["args"] == ["cancel"]:
            continue
        later = [c for to, c in module.commands[i + 1:] if to == osd]
        hold = bool(later) and later[0]["prefix"] == "injectargs"
        kinds.append((osd, "hold" if hold and later[0]["injected_args"][0].endswith("=65535") else "renewal"))
    return kinds


def test_the_lease_carries_the_modules_own_release():
    command = grant_command(20.5, 4096)
    assert command["prefix"] == "rails lease"
    assert command["args"] == ["seconds=20.5",
                               "release=" + ",".join(arg[2:] for arg in release_args()),
                               "unset=" + unslow_command()["var"], "kick=4096"]
    assert command["args"][1] == "release=bluestore_deferred_batch_ops=1,bluestore_throttle_cost_per_io=0"
    assert cancel_command()["args"] == ["cancel"]


def test_the_lease_outlasts_a_late_renewal_in_a_pass_with_two_timed_out_rounds():
    assert RENEW_INTERVAL_SECONDS == 5.0
    assert lease_seconds(0.5, 10.0) == 25.5
    assert lease_seconds(5.0, 10.0) == 30.0
    assert lease_seconds(0.05, 1.0) == RENEW_INTERVAL_SECONDS + 0.05 + 2 * 1.0


def test_a_renewal_is_due_once_the_interval_has_passed_since_the_last_grant_was_sent():
    granted_at = {0: 100.0, 1: 103.0, 2: 104.9}
    assert renewals_due([0, 1, 2], granted_at, 104.9) == []
    assert renewals_due([2, 1, 0], granted_at, 105.0) == [0]
    assert renewals_due([0, 1, 2], granted_at, 108.0) == [0, 1]
    assert renewals_due([0, 1, 2], granted_at, 110.0) == [0, 1, 2]


def test_a_held_osd_without_a_grant_on_record_is_due_at_every_pass():
    """Its grant failed (no answer in time, an error other than "no lease"): tried again at once."""
    assert renewals_due([3], {}, 0.0) == [3]
    assert renewals_due([], {0: 0.0}, 100.0) == []


@pytest.mark.parametrize("answer, expected", [
    ('{"state": "active", "lapsed_at_last_grant": true}', True),
    ('{"state": "active", "lapsed_at_last_grant": false}', False),
    ("{}", False), ("not json", False), ("[]", False)])
def test_a_grants_answer_says_whether_the_hold_lapsed(answer, expected):
    assert lapsed(answer) is expected


@pytest.mark.usefixtures("quick_renewals")
def test_every_hold_comes_after_its_lease_is_renewed_while_held_and_cancelled_at_release(module_class):
    module = make_rails_module(module_class, answer_lease=granted)
    held = lambda: [osd for osd in range(4) if "hold" in sent(module, osd)]
    thread = serve_until(module, lambda: held() and sent(module, held()[0]).count("grant") >= 3)
    osd = held()[0]
    words = sent(module, osd)
    assert words.index("grant") < words.index("hold")
    stop_serving(module, thread)
    words = sent(module, osd)
    assert words[-1] in ("cancel", "bench") and "cancel" in words[words.index("release"):], words
    assert "RAILS_NO_LEASE" not in module.health


def test_an_osd_without_the_lease_is_held_as_before_and_named(module_class):
    def refuse(osd, command):
        return -22, "", "no valid command found\nError EINVAL: invalid command"
    module = make_rails_module(module_class, answer_lease=refuse)
    held = lambda: [osd for osd in range(4) if "hold" in sent(module, osd)]
    thread = serve_until(module, lambda: held() and "RAILS_NO_LEASE" in module.health)
    osd = held()[0]
    check = module.health["RAILS_NO_LEASE"]
    assert f"osd.{osd} refused the Rails lease (Error EINVAL: invalid command (-22)): if the module stops, " \
           "its hold ends only by BlueStore's own bounds" in check["detail"]
    first = len(module.passes)
    wait_until(module, lambda: len(module.passes) >= first + 5)
    # It is not asked again at every pass, only with its next hold.
    assert sent(module, osd).count("grant") == sent(module, osd).count("hold")
    stop_serving(module, thread)
    assert "cancel" not in sent(module, osd)


@pytest.mark.usefixtures("quick_renewals")
def test_an_osd_whose_lease_ran_out_is_held_again(module_class):
    """Its first renewal after the hold answers that the lease ran out: only then does the module
    know, forget the hold and send it again."""
    ran_out = {"osd": None}

    def lapse_once(osd, command):
        if ran_out["osd"] is None and command["args"] != ["cancel"] and "hold" in sent(module, osd):
            ran_out["osd"] = osd
            return 0, json.dumps({"state": "active", "lapsed_at_last_grant": True}), ""
        return granted(osd, command)
    module = make_rails_module(module_class, answer_lease=lapse_once)
    thread = serve_until(module, lambda: ran_out["osd"] is not None and sent(module, ran_out["osd"]).count("hold") >= 2)
    stop_serving(module, thread)


@pytest.mark.usefixtures("quick_renewals")
def test_a_held_osd_that_goes_down_is_not_renewed(module_class):
    """A renewal to a down OSD would hold every pass up for the command timeout."""
    module = make_rails_module(module_class, answer_lease=granted)
    held = lambda: [osd for osd in range(4) if "hold" in sent(module, osd)]
    thread = serve_until(module, lambda: held())
    osd = held()[0]
    module.set_down([osd])
    # The pass under way may still renew from the old map; the next one reads the new map first.
    first = len(module.passes) + 1
    wait_until(module, lambda: passes_after(module, first, 2 * QUICK_RENEWAL_SECONDS))
    stop_serving(module, thread)
    renewed = [n for (to, command), n in zip(module.commands, module.command_passes)
               if to == osd and command["prefix"] == "rails lease" and command["args"] != ["cancel"] and n >= first]
    assert renewed == [], f"osd.{osd} was granted a lease in passes {renewed}, after pass {first} saw it down"


def test_a_held_osd_is_not_renewed_at_every_pass(module_class):
    """20 passes (poll_seconds 0.05: about a second), well within RENEW_INTERVAL_SECONDS of the
    first hold: the only grants are the holds' own."""
    module = make_rails_module(module_class, answer_lease=granted)
    thread = serve_until(module, lambda: any("hold" in sent(module, osd) for osd in range(4)))
    first = len(module.passes)
    wait_until(module, lambda: len(module.passes) >= first + 20)
    stop_serving(module, thread)
    # Usually no renewal at all; a loaded machine may stretch 20 passes past the interval, and a
    # renewal is then due, by the module's own clock, never early.
    assert all(gap >= RENEW_INTERVAL_SECONDS for gap in renewal_gaps(module)), (renewal_gaps(module), grant_kinds(module))


@pytest.mark.usefixtures("quick_renewals")
def test_a_held_osds_lease_is_renewed_once_the_interval_has_passed_not_before(module_class):
    module = make_rails_module(module_class, answer_lease=granted)
    renewals = lambda: [osd for osd, kind in grant_kinds(module) if kind == "renewal"]
    thread = serve_until(module, lambda: any(renewals().count(osd) >= 3 for osd in range(4)))
    stop_serving(module, thread)
    gaps = renewal_gaps(module)
    assert len(gaps) >= 3
    # Never before the interval (a renewal at every pass would come 0.05 s apart), and always
    # before the lease it renews runs out, however slowly a loaded machine runs the loop.
    lease = float(next(command["args"][0] for _, command in module.commands
                       if command["prefix"] == "rails lease" and command["args"] != ["cancel"]).split("=")[1])
    assert all(QUICK_RENEWAL_SECONDS <= gap < lease for gap in gaps), (gaps, lease)


def test_status_shows_each_osds_lease():
    profiles = {"rp": rails_profile(list(FOUR_COLORS), rails_frame="6", rails_guard="0.6")}
    topology = build_topology(osd_map(profiles, {"rpool": "rp"}, [0, 1, 2, 3]), crush_map(FOUR_COLORS))
    status = build_status(topology, {}, HoldAccounting(), Settings(), now=1.0, leased={0}, no_lease={1})
    assert [osd["lease"] for osd in status["osds"]] == ["granted", "refused", None, None]
    lines = render_plain(status).splitlines()
    assert lines[-5].endswith("lease")
    assert [line.split()[-1] for line in lines[-4:]] == ["granted", "refused", "-", "-"]
