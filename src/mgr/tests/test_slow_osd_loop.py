"""Slow-OSD marks through the module's serve() loop against the ceph-mgr stand-in (4 colors of one
OSD each): an OSD whose reads turn slow is marked, every OSD of a color is told to avoid its
color, health and status name it; once it is healthy again the marks are cleared on the OSDs."""
import json
import threading

import pytest

from fake_mgr import forget_module, import_module_class, serve_until, stop_serving, wait_until
from maps import FOUR_COLORS
from rails_stand_in import make_rails_module

SLOW_OSD = 1
OPTIONS = {"slow_osd_window_seconds": 1.0, "slow_osd_windows": 2, "slow_osd_clear_windows": 2}


@pytest.fixture
def module_class(monkeypatch):
    yield import_module_class(monkeypatch, "rails")
    forget_module("rails")


class Counters:
    """Each OSD's cumulative BlueStore latency counters: every perf dump adds 100 reads, at 0.5 ms
    each, or 5 ms on the slow OSD while `slow` is set."""

    def __init__(self):
        self.lock = threading.Lock()
        self.slow = False
        self.reads = {}

    def answer(self, osd):
        with self.lock:
            ops, seconds = self.reads.get(osd, (0, 0.0))
            ops, seconds = ops + 100, seconds + 100 * (0.005 if self.slow and osd == SLOW_OSD else 0.0005)
            self.reads[osd] = (ops, seconds)
        return json.dumps({"bluestore": {"read_lat": {"avgcount": ops, "sum": seconds},
                                         "commit_lat": {"avgcount": 0, "sum": 0.0}}})


def avoid_commands(module):
    return [(osd, command["args"]) for osd, command in module.commands if command["prefix"] == "rails avoid"]


def test_a_slow_osd_is_marked_avoided_by_every_osd_and_cleared_when_it_heals(module_class):
    counters = Counters()
    module = make_rails_module(module_class, answer_perf=counters.answer, options=OPTIONS)
    thread = serve_until(module, lambda: len(module.passes) >= 3)
    counters.slow = True
    wait_until(module, lambda: "RAILS_OSD_SLOW" in module.health)
    detail = module.health["RAILS_OSD_SLOW"]["detail"]
    color = next(name for name, osds in FOUR_COLORS.items() if osds == [SLOW_OSD])
    assert len(detail) == 1 and detail[0].startswith(f"osd.{SLOW_OSD}: read_lat 5.00 ms mean over")
    assert f"10.0x its peers' 0.50 ms" in detail[0] and f"erails reads avoid color(s) {color}" in detail[0]
    wait_until(module, lambda: {osd for osd, _ in avoid_commands(module)} == {0, 1, 2, 3})
    assert {tuple(args) for _, args in avoid_commands(module)} == {("seconds=23", f"colors={color}")}
    status = module.rails_status("json")
    assert json.loads(status[1])["slow_osds_marked"] == [SLOW_OSD]
    assert f"slow: osd.{SLOW_OSD}: read_lat" in module.rails_status("plain")[1]
    counters.slow = False
    wait_until(module, lambda: "RAILS_OSD_SLOW" not in module.health)
    wait_until(module, lambda: {osd for osd, args in avoid_commands(module) if args == ["clear"]} == {0, 1, 2, 3})
    sent, passes = len(avoid_commands(module)), len(module.passes)
    # Two windows and more.
    wait_until(module, lambda: len(module.passes) >= passes + 50)
    assert len(avoid_commands(module)) == sent, "clears are sent once, not every window"
    stop_serving(module, thread)


def test_an_osd_that_does_not_take_the_marks_is_named_in_health(module_class):
    counters = Counters()
    counters.slow = True
    module = make_rails_module(module_class, answer_perf=counters.answer, options=OPTIONS,
                               answer_lease=lambda osd, command: (0, "{}", ""))
    original = module.send_command

    def refusing(result, kind, name, command, inbuf):
        if json.loads(command)["prefix"] == "rails avoid" and name == "3":
            module.commands.append((3, json.loads(command)))
            result.r, result.outs = -22, "invalid command"
            result.ev.set()
            return
        original(result, kind, name, command, inbuf)
    module.send_command = refusing
    thread = serve_until(module, lambda: "RAILS_OSD_SLOW" in module.health
                         and len(module.health["RAILS_OSD_SLOW"]["detail"]) == 2)
    assert module.health["RAILS_OSD_SLOW"]["detail"][1] == (
        "osd.3 did not take the slow-OSD marks' last update: invalid command (-22)")
    stop_serving(module, thread)


def test_turning_detection_off_clears_the_marks(module_class):
    counters = Counters()
    counters.slow = True
    options = dict(OPTIONS)
    module = make_rails_module(module_class, answer_perf=counters.answer, options=options)
    thread = serve_until(module, lambda: "RAILS_OSD_SLOW" in module.health)
    options["slow_osd_detection"] = "false"
    wait_until(module, lambda: "RAILS_OSD_SLOW" not in module.health)
    wait_until(module, lambda: {osd for osd, args in avoid_commands(module) if args == ["clear"]} == {0, 1, 2, 3})
    stop_serving(module, thread)
