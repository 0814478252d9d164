from maps import FOUR_COLORS, crush_map, osd_map, rails_profile
from rails.accounting import Counters, HoldAccounting, counters_from_perf_dump
from rails.controller import OsdState
from rails.health import health_checks
from rails.settings import Settings, SettingError
from rails.status import build_status, render_plain
from rails.topology import build_topology


def test_counters_come_from_bluestore_perf_dump():
    dump = {"bluestore": {"bluestore_write_deferred": 981, "deferred_write_ops": 761, "other": 1}}
    assert counters_from_perf_dump(dump) == Counters(queued=981, applied=761)
    assert counters_from_perf_dump({"bluestore": {"deferred_write_ops": 1}}) is None
    assert counters_from_perf_dump({}) is None


def test_held_writes_grow_with_queued_writes_and_a_release_counts_what_was_applied():
    accounting = HoldAccounting()
    accounting.hold_started(2, Counters(100, 50))
    accounting.observe(2, Counters(1600, 50))
    assert accounting.hold(2).held_writes() == 1500
    assert accounting.overflowing(limit=2000) == {}
    accounting.released(2, Counters(1600, 50), Counters(1601, 1400), limit=2000)
    assert accounting.hold(2) is None
    assert accounting.last_release_applied(2) == 1350
    assert accounting.overflowing(limit=2000) == {}


def test_an_overflow_seen_only_at_release_stays_reported_until_a_clean_hold():
    accounting = HoldAccounting()
    accounting.hold_started(1, Counters(0, 0))
    accounting.released(1, before_kick=Counters(1800, 1400), after_kick=Counters(1801, 1700), limit=801)
    assert accounting.overflowing(limit=801) == {
        1: "osd.1 applied 1400 deferred ops while held (BlueStore flushed the hold by itself) (last hold)"}
    accounting.hold_started(1, Counters(1801, 1700))
    accounting.released(1, before_kick=Counters(1900, 1700), after_kick=Counters(1901, 1800), limit=801)
    assert accounting.overflowing(limit=801) == {}


def test_a_hold_overflows_at_the_limit_or_when_bluestore_applies_by_itself():
    accounting = HoldAccounting()
    accounting.hold_started(0, Counters(0, 0))
    accounting.hold_started(1, Counters(0, 0))
    accounting.observe(0, Counters(500, 0))
    accounting.observe(1, Counters(10, 3))
    found = accounting.overflowing(limit=500)
    assert sorted(found) == [0, 1]
    assert "500 writes" in found[0] and "applied 3 deferred ops while held" in found[1]


def _topology(osds=(0, 1, 2, 3), profiles=None, pools=None):
    profiles = profiles or {"rp": rails_profile(list(FOUR_COLORS), rails_frame="6", rails_guard="0.6")}
    return build_topology(osd_map(profiles, pools or {"rpool": "rp"}, list(osds)), crush_map(FOUR_COLORS))


def test_a_healthy_setup_raises_no_check():
    assert health_checks(_topology(), HoldAccounting(), Settings(), None, {}, {}) == {}


def test_each_problem_raises_its_own_check():
    profiles = {"a": rails_profile(list(FOUR_COLORS), rails_frame="6"),
                "b": rails_profile(list(FOUR_COLORS), rails_frame="8"),
                "bad": rails_profile(list(FOUR_COLORS), rails_frame="-1")}
    topo = _topology(osds=(0, 1, 2, 3, 9), profiles=profiles, pools={"pa": "a", "pb": "b", "pbad": "bad"})
    accounting = HoldAccounting()
    accounting.hold_started(0, Counters(0, 0))
    accounting.observe(0, Counters(70000, 0))
    checks = health_checks(topo, accounting, Settings(), SettingError("poll_seconds", "mgr/rails/poll_seconds is 9"),
                           {3: "hold: timed out (-110)"}, {2: "osd.2 has no dedicated WAL device"})
    assert sorted(checks) == ["RAILS_BAD_SETTING", "RAILS_HOLD_OVERFLOW", "RAILS_OSD_COMMAND_FAILED",
                              "RAILS_OSD_DEVICES", "RAILS_OSD_NO_COLOR", "RAILS_PROFILE_INVALID",
                              "RAILS_SCHEDULE_CONFLICT"]
    assert checks["RAILS_OSD_DEVICES"]["detail"] == ["osd.2 has no dedicated WAL device"]
    assert checks["RAILS_OSD_NO_COLOR"]["detail"] == ["osd.9 is in no bucket named by any crush-colors"]
    assert "rails-frame is -1.0" in checks["RAILS_PROFILE_INVALID"]["detail"][0]
    assert checks["RAILS_SCHEDULE_CONFLICT"]["count"] == 4
    assert all(c["severity"] == "warning" for c in checks.values())


def test_status_shows_phases_next_switch_and_held_state():
    accounting = HoldAccounting()
    accounting.hold_started(0, Counters(10, 0))
    accounting.observe(0, Counters(25, 0))
    states = {0: OsdState(True, 0.5), 2: OsdState(False, 0.5)}
    status = build_status(_topology(), states, accounting, Settings(), now=5.5)
    pool = status["pools"][0]
    assert pool["next_switch"] == 6.0
    assert [c["phase"] for c in pool["colors"]] == ["read", "read", "guard", "write"]
    osds = {o["osd"]: o for o in status["osds"]}
    assert (osds[0]["held"], osds[0]["held_writes"], osds[0]["should_hold"]) == (True, 15, True)
    assert (osds[2]["held"], osds[2]["should_hold"]) == (False, True)
    assert osds[1]["held"] is None
    text = render_plain(status)
    assert "next switch in 0.5 s" in text
    assert "color 2 color2       guard" in text
    assert "15/65535" in text


def test_status_without_rails_pools_says_so():
    status = build_status(build_topology(osd_map({}, {}, [0]), crush_map({})), {}, HoldAccounting(),
                          Settings(active=False), now=1.0)
    text = render_plain(status)
    assert "no pool uses an erails profile" in text and "inactive" in text
