"""The module's serve() loop against a stand-in for ceph-mgr (the mgr_module API it uses, answering
every OSD command at once): an exception in the loop releases every OSD and raises
RAILS_LOOP_ERROR instead of ending the loop, and a stopping module releases every OSD."""
import json
import logging
import time
import types

import pytest

from fake_mgr import forget_module, import_module_class, serve_until, stop_serving
from maps import FOUR_COLORS, crush_map, osd_map, rails_profile


@pytest.fixture
def module_class(monkeypatch):
    yield import_module_class(monkeypatch, "rails")
    forget_module("rails")


def make_module(module_class, failing_pg_stats):
    class Mgr(module_class):
        def __init__(self):
            super().__init__()
            self.log = logging.getLogger("rails-test")
            self.commands = []  # (osd, command) in the order sent
            self.health = {}
            self.pg_stats_failures = failing_pg_stats
            profiles = {"rp": rails_profile(list(FOUR_COLORS), rails_frame="6", rails_guard="0.6")}
            self.maps = {"osd_map": osd_map(profiles, {"rpool": "rp"}, [0, 1, 2, 3]),
                         "osd_map_crush": crush_map(FOUR_COLORS)}

        def get_module_option(self, name):
            return {"poll_seconds": 0.05}.get(name)

        def get_osdmap(self):
            return types.SimpleNamespace(get_epoch=lambda: 1)

        def get(self, what):
            if what == "pg_stats":
                if self.pg_stats_failures:
                    self.pg_stats_failures -= 1
                    raise KeyError("pg_stats")
                return {"pg_stats": []}
            return self.maps[what]

        def get_metadata(self, kind, name):
            return {"osd_objectstore": "bluestore", "bluefs_dedicated_wal": "1", "bluefs_dedicated_db": "1"}

        def send_command(self, result, kind, name, command, inbuf):
            self.commands.append((int(name), json.loads(command)))
            result.outb = "{}"
            result.ev.set()

        def mon_command(self, command):
            return 0, "{}", ""

        def set_health_checks(self, checks):
            self.health = checks

    return Mgr()


def last_injectargs(module):
    last = {}
    for osd, command in module.commands:
        if command["prefix"] == "injectargs":
            last[osd] = command["injected_args"][0]
    return last



def test_an_exception_in_the_loop_releases_every_osd_and_raises_a_check_instead_of_ending_it(module_class):
    module = make_module(module_class, failing_pg_stats=1)
    thread = serve_until(module, lambda: "RAILS_LOOP_ERROR" in module.health)
    assert module.health["RAILS_LOOP_ERROR"]["detail"] == ["KeyError: 'pg_stats'"]
    assert last_injectargs(module) == {osd: "--bluestore_deferred_batch_ops=1" for osd in range(4)}
    time.sleep(0.3)
    assert thread.is_alive(), "the loop ended"
    # Holding stays paused after the failure, so the loop goes on without holding any OSD.
    assert set(last_injectargs(module).values()) == {"--bluestore_deferred_batch_ops=1"}
    stop_serving(module, thread)


def test_a_stopping_module_releases_every_osd_it_held(module_class):
    module = make_module(module_class, failing_pg_stats=0)
    thread = serve_until(module, lambda: "--bluestore_deferred_batch_ops=65535" in last_injectargs(module).values())
    stop_serving(module, thread)
    assert last_injectargs(module) == {osd: "--bluestore_deferred_batch_ops=1" for osd in range(4)}
    assert "RAILS_LOOP_ERROR" not in module.health
