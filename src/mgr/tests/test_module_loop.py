"""The module's serve() loop against a stand-in for ceph-mgr (the mgr_module API it uses, answering
every OSD command at once): an exception in the loop releases every OSD and raises
RAILS_LOOP_ERROR instead of ending the loop, and a stopping module releases every OSD."""

import pytest

from fake_mgr import forget_module, import_module_class, serve_until, stop_serving, wait_until
from rails_stand_in import make_rails_module


@pytest.fixture
def module_class(monkeypatch):
    yield import_module_class(monkeypatch, "rails")
    forget_module("rails")



def last_injectargs(module):
    last = {}
    for osd, command in module.commands:
        if command["prefix"] == "injectargs":
            last[osd] = command["injected_args"][0]
    return last



def test_an_exception_in_the_loop_releases_every_osd_and_raises_a_check_instead_of_ending_it(module_class):
    module = make_rails_module(module_class, failing_pg_stats=1)
    thread = serve_until(module, lambda: "RAILS_LOOP_ERROR" in module.health)
    assert module.health["RAILS_LOOP_ERROR"]["detail"] == ["KeyError: 'pg_stats'"]
    assert last_injectargs(module) == {osd: "--bluestore_deferred_batch_ops=1" for osd in range(4)}
    first = len(module.passes)
    wait_until(module, lambda: len(module.passes) >= first + 5)
    assert thread.is_alive(), "the loop ended"
    # Holding stays paused after the failure, so the loop goes on without holding any OSD.
    assert set(last_injectargs(module).values()) == {"--bluestore_deferred_batch_ops=1"}
    stop_serving(module, thread)


def test_a_stopping_module_releases_every_osd_it_held(module_class):
    module = make_rails_module(module_class, failing_pg_stats=0)
    thread = serve_until(module, lambda: "--bluestore_deferred_batch_ops=65535" in last_injectargs(module).values())
    stop_serving(module, thread)
    assert last_injectargs(module) == {osd: "--bluestore_deferred_batch_ops=1" for osd in range(4)}
    assert "RAILS_LOOP_ERROR" not in module.health
