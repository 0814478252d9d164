from maps import FOUR_COLORS, crush_map, osd_map, rails_profile
from rails.accounting import IN_TRANSIT_TXCS, Counters, HoldAccounting, counters_from_perf_dump, kick_applied
from rails.controller import OsdState
from rails.health import health_checks
from rails.settings import Settings, SettingError
from rails.status import build_status, render_plain
from rails.topology import build_topology


def counters(queued, applied, queued_bytes=0, deferred=0, submitted=0, on_device=0):
    return Counters(queued, applied, queued_bytes, deferred, submitted, on_device)


def state(count):
    return {"avgcount": count, "sum": 0.5, "avgtime": 0.001}


# Read from osd.0 of the local cluster while it held 1,648 transactions (doc/rails.rst).
HELD_DUMP = {"bluestore": {
    "bluestore_write_deferred": 1767, "bluestore_write_deferred_bytes": 7237632, "deferred_write_ops": 25,
    "state_kv_done_lat": state(2660), "state_finishing_lat": state(1012), "state_deferred_queued_lat": state(23),
    "state_deferred_aio_wait_lat": state(23), "state_deferred_cleanup_lat": state(23), "other": 1}}


def test_counters_come_from_bluestore_perf_dump():
    found = counters_from_perf_dump(HELD_DUMP)
    assert found == Counters(queued=1767, applied=25, queued_bytes=7237632, deferred_txcs=1671,
                             submitted_txcs=23, on_device_txcs=23)
    assert found.unapplied_txcs() == 1648 and found.unsubmitted_txcs() == 1648
    for missing in HELD_DUMP["bluestore"]:
        if missing != "other":
            partial = {name: value for name, value in HELD_DUMP["bluestore"].items() if name != missing}
            assert counters_from_perf_dump({"bluestore": partial}) is None, missing
    assert counters_from_perf_dump({"bluestore": dict(HELD_DUMP["bluestore"], state_kv_done_lat={})}) is None
    assert counters_from_perf_dump({"bluestore": dict(HELD_DUMP["bluestore"], deferred_write_ops="x")}) is None
    assert counters_from_perf_dump({}) is None


# Read from osd.1 of a local cluster of Ceph 18.2.7 while it held 1,000 transactions, and after its
# release (doc/dev/ceph-abi.md, "Ceph 18.2.7"): the counters' names changed, not their meaning.
REEF_HELD_DUMP = {"bluestore": {
    "issued_deferred_writes": 5984, "issued_deferred_write_bytes": 24510464, "submitted_deferred_writes": 4377,
    "submitted_deferred_write_bytes": 20365312, "write_big_deferred": 0,
    "state_kv_done_lat": state(6089), "state_finishing_lat": state(5089), "state_deferred_queued_lat": state(4919),
    "state_deferred_aio_wait_lat": state(4919), "state_deferred_cleanup_lat": state(4919)}}
REEF_RELEASED_DUMP = {"bluestore": dict(
    REEF_HELD_DUMP["bluestore"], issued_deferred_writes=5985, issued_deferred_write_bytes=24514560,
    submitted_deferred_writes=5288, state_kv_done_lat=state(6091), state_finishing_lat=state(5090),
    state_deferred_queued_lat=state(5920), state_deferred_aio_wait_lat=state(5920))}


def test_reef_counters_have_new_names_and_the_same_meaning():
    held = counters_from_perf_dump(REEF_HELD_DUMP)
    assert held == Counters(queued=5984, applied=4377, queued_bytes=24510464, deferred_txcs=5919,
                            submitted_txcs=4919, on_device_txcs=4919)
    assert held.unapplied_txcs() == 1000
    released = counters_from_perf_dump(REEF_RELEASED_DUMP)
    assert kick_applied(held, released) and released.unapplied_txcs() == 0
    for missing in ("issued_deferred_writes", "issued_deferred_write_bytes", "submitted_deferred_writes"):
        partial = {name: value for name, value in REEF_HELD_DUMP["bluestore"].items() if name != missing}
        assert counters_from_perf_dump({"bluestore": partial}) is None, missing


def test_a_kick_applied_when_everything_deferred_before_it_was_submitted():
    before = counters(0, 0, deferred=1671, submitted=23, on_device=23)
    assert kick_applied(before, counters(0, 0, deferred=1673, submitted=1672, on_device=1672))
    assert kick_applied(before, counters(0, 0, submitted=1671 - IN_TRANSIT_TXCS))
    assert not kick_applied(before, counters(0, 0, submitted=1670 - IN_TRANSIT_TXCS))


def test_held_writes_grow_with_queued_writes_and_a_release_counts_what_was_applied():
    accounting = HoldAccounting()
    accounting.hold_started(2, counters(100, 50), now=0.0)
    accounting.observe(2, counters(1600, 50), now=0.0)
    assert accounting.hold(2).held_writes() == 1500
    assert accounting.overflowing(limit=2000) == {}
    accounting.released(2, counters(1600, 50), counters(1601, 1400), limit=2000)
    assert accounting.hold(2) is None
    assert accounting.last_release_applied(2) == 1350
    assert accounting.overflowing(limit=2000) == {}


def test_an_overflow_seen_only_at_release_stays_reported_until_a_clean_hold():
    accounting = HoldAccounting()
    accounting.hold_started(1, counters(0, 0), now=0.0)
    accounting.released(1, before_kick=counters(1800, 1400), after_kick=counters(1801, 1700), limit=801)
    assert accounting.overflowing(limit=801) == {
        1: "osd.1 applied 1400 deferred ops while held (BlueStore flushed the hold by itself) (last hold)"}
    accounting.hold_started(1, counters(1801, 1700), now=0.0)
    accounting.released(1, before_kick=counters(1900, 1700), after_kick=counters(1901, 1800), limit=801)
    assert accounting.overflowing(limit=801) == {}


def test_a_hold_overflows_at_the_limit_or_when_bluestore_applies_by_itself():
    accounting = HoldAccounting()
    accounting.hold_started(0, counters(0, 0), now=0.0)
    accounting.hold_started(1, counters(0, 0), now=0.0)
    accounting.observe(0, counters(500, 0), now=0.0)
    accounting.observe(1, counters(10, 3), now=0.0)
    found = accounting.overflowing(limit=500)
    assert sorted(found) == [0, 1]
    assert "500 writes" in found[0] and "applied 3 deferred ops while held" in found[1]


def _topology(osds=(0, 1, 2, 3), profiles=None, pools=None):
    profiles = profiles or {"rp": rails_profile(list(FOUR_COLORS), rails_frame="6", rails_guard="0.6")}
    return build_topology(osd_map(profiles, pools or {"rpool": "rp"}, list(osds)), crush_map(FOUR_COLORS))


def test_a_healthy_setup_raises_no_check():
    assert health_checks(_topology(), HoldAccounting(), Settings(), [], {}, {}) == {}


def test_each_problem_raises_its_own_check():
    profiles = {"a": rails_profile(list(FOUR_COLORS), rails_frame="6"),
                "b": rails_profile(list(FOUR_COLORS), rails_frame="8"),
                "bad": rails_profile(list(FOUR_COLORS), rails_frame="-1")}
    topo = _topology(osds=(0, 1, 2, 3, 9), profiles=profiles, pools={"pa": "a", "pb": "b", "pbad": "bad"})
    accounting = HoldAccounting()
    accounting.hold_started(0, counters(0, 0), now=0.0)
    accounting.observe(0, counters(70000, 0), now=0.0)
    checks = health_checks(topo, accounting, Settings(), [SettingError("poll_seconds", "mgr/rails/poll_seconds is 9")],
                           {3: "hold: timed out (-110)"}, {2: "osd.2 has no dedicated WAL device"})
    assert sorted(checks) == ["RAILS_BAD_SETTING", "RAILS_HOLD_OVERFLOW", "RAILS_OSD_COMMAND_FAILED",
                              "RAILS_OSD_DEVICES", "RAILS_OSD_NO_COLOR", "RAILS_PROFILE_INVALID",
                              "RAILS_SCHEDULE_CONFLICT"]
    assert checks["RAILS_OSD_DEVICES"]["detail"] == ["osd.2 has no dedicated WAL device"]
    assert checks["RAILS_OSD_NO_COLOR"]["detail"] == ["osd.9 is in no bucket named by any crush-colors"]
    assert "rails-frame is '-1'; accepted: at least 2 seconds" in checks["RAILS_PROFILE_INVALID"]["detail"][0]
    assert checks["RAILS_SCHEDULE_CONFLICT"]["count"] == 4
    assert all(c["severity"] == "warning" for c in checks.values())


def test_slow_osds_and_osds_that_refused_their_marks_are_one_check():
    line = "osd.1: read_lat 5.00 ms mean over 300 ops, 10.0x its peers' 0.50 ms; marked since ...; erails reads ..."
    checks = health_checks(_topology(), HoldAccounting(), Settings(), [], {}, {}, slow_osds=[line],
                           avoid_failed={3: "invalid command (-22)"})
    assert checks["RAILS_OSD_SLOW"]["summary"] == "1 OSD(s) slow against their peers"
    assert checks["RAILS_OSD_SLOW"]["detail"] == [
        line, "osd.3 did not take the slow-OSD marks' last update: invalid command (-22)"]
    cleared = health_checks(_topology(), HoldAccounting(), Settings(), [], {}, {},
                            avoid_failed={3: "timed out (-110)"})["RAILS_OSD_SLOW"]
    assert cleared["summary"] == "1 OSD(s) did not take the end of the slow-OSD marks, which end by themselves"


def test_status_shows_phases_next_switch_and_held_state():
    accounting = HoldAccounting()
    accounting.hold_started(0, counters(10, 0), now=0.0)
    accounting.observe(0, counters(25, 0), now=0.0)
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


def test_a_release_whose_backlog_is_on_the_device_by_the_next_hold_is_not_slow():
    accounting = HoldAccounting()
    accounting.hold_started(3, counters(0, 0, deferred=100, submitted=100, on_device=100), now=0.0)
    before = counters(0, 0, deferred=1600, submitted=100, on_device=100)
    accounting.released(3, before, counters(0, 0, deferred=1601, submitted=1601, on_device=900), limit=65535)
    release = accounting.release(3)
    assert (release.backlog_txcs(), release.remaining_txcs(), release.submitted()) == (1500, 700, True)
    assert accounting.draining() == [3]
    accounting.observe(3, counters(0, 0, deferred=1700, submitted=1700, on_device=1600), now=0.0)
    assert accounting.draining() == []
    accounting.hold_started(3, counters(0, 0, deferred=1700, submitted=1700, on_device=1600), now=0.0)
    assert accounting.slow_backlogs() == {} and accounting.release(3) is None


def test_a_backlog_still_unapplied_when_the_next_hold_starts_is_slow_until_a_release_drains():
    accounting = HoldAccounting()
    accounting.hold_started(3, counters(0, 0), now=0.0)
    accounting.released(3, counters(0, 0, deferred=1600), counters(0, 0, deferred=1600, submitted=1600), 65535)
    accounting.hold_started(3, counters(0, 0, deferred=1600, submitted=1600, on_device=1000), now=0.0)
    assert accounting.slow_backlogs() == {3: "osd.3: 600 of the 1600 deferred transactions its last release let "
                                             "BlueStore apply were not on the data device when its write phase ended"}
    accounting.released(3, counters(0, 0, deferred=1700, on_device=1600),
                        counters(0, 0, deferred=1700, submitted=1700, on_device=1700), 65535)
    accounting.hold_started(3, counters(0, 0, deferred=1700, submitted=1700, on_device=1700), now=0.0)
    assert accounting.slow_backlogs() == {}


def test_a_release_bluestore_did_not_submit_is_a_failed_kick_until_it_is_seen_submitted():
    accounting = HoldAccounting()
    accounting.released(2, counters(0, 0, deferred=500, submitted=20),
                        counters(0, 0, deferred=501, submitted=20), limit=65535, kicks=3)
    assert accounting.failed_kicks() == {2: "osd.2: 480 held deferred transactions, 480 still not submitted "
                                            "after 3 kick(s) (osd bench)"}
    accounting.observe(2, counters(0, 0, deferred=501, submitted=501), now=0.0)
    assert accounting.failed_kicks() == {}


NO_OP_LIMIT = 1 << 40


def test_a_hold_reaching_the_budget_is_slowed_once_and_no_longer_after_its_release():
    accounting = HoldAccounting()
    accounting.hold_started(1, counters(0, 0, queued_bytes=1000), now=0.0)
    accounting.observe(1, counters(0, 0, queued_bytes=1000 + 4095), now=0.0)
    assert accounting.to_slow(budget=4096, op_limit=NO_OP_LIMIT, perf_seconds=1.0) == []
    accounting.observe(1, counters(3, 0, queued_bytes=1000 + 4096), now=0.0)
    assert accounting.hold(1).held_bytes() == 4096
    assert accounting.to_slow(budget=4096, op_limit=NO_OP_LIMIT, perf_seconds=1.0) == [1]
    accounting.mark_slowed(1)
    assert accounting.to_slow(budget=4096, op_limit=NO_OP_LIMIT, perf_seconds=1.0) == []
    assert accounting.slowed(4096, 65535) == {1: "osd.1 holds 4096 bytes (budget 4096) and 3 writes (limit 65535): "
                                                 "its writers are slowed and its new writes go to its data device "
                                                 "until its release"}
    accounting.released(1, counters(0, 0), counters(0, 0), limit=65535)
    assert accounting.slowed(4096, 65535) == {}
    accounting.mark_slowed(1)
    assert accounting.slowed(4096, 65535) == {}


def test_a_hold_is_slowed_before_the_budget_when_it_grows_fast_enough_to_pass_it_before_the_next_readings():
    accounting = HoldAccounting()
    accounting.hold_started(1, counters(0, 0, queued_bytes=0), now=100.0)
    # 10 MiB in 2 s: 5 MiB/s, judged 2 readings of 1 s ahead, so 10 MiB more by then.
    accounting.observe(1, counters(0, 0, queued_bytes=10 << 20), now=102.0)
    assert accounting.hold(1).bytes_per_second == 5 << 20
    assert accounting.to_slow(budget=(20 << 20) + 1, op_limit=NO_OP_LIMIT, perf_seconds=1.0) == []
    assert accounting.to_slow(budget=20 << 20, op_limit=NO_OP_LIMIT, perf_seconds=1.0) == [1]
    # At 5 s between readings the same rate is 50 MiB ahead.
    assert accounting.to_slow(budget=60 << 20, op_limit=NO_OP_LIMIT, perf_seconds=5.0) == [1]
    # The rate is the last interval's: a hold that stopped growing is judged by what it holds.
    accounting.observe(1, counters(0, 0, queued_bytes=10 << 20), now=103.0)
    assert accounting.hold(1).bytes_per_second == 0
    assert accounting.to_slow(budget=(10 << 20) + 1, op_limit=NO_OP_LIMIT, perf_seconds=5.0) == []
    # Two readings at one instant leave the rate as it was.
    accounting.observe(1, counters(0, 0, queued_bytes=11 << 20), now=104.0)
    accounting.observe(1, counters(0, 0, queued_bytes=12 << 20), now=104.0)
    assert accounting.hold(1).bytes_per_second == 1 << 20


def test_a_hold_is_slowed_before_it_reaches_the_writes_bluestore_keeps_back():
    accounting = HoldAccounting()
    accounting.hold_started(2, counters(1000, 0), now=0.0)
    # 40,000 writes in 8 s: 5,000/s, so 10,000 more within two readings of 1 s.
    accounting.observe(2, counters(41000, 0), now=8.0)
    assert accounting.hold(2).writes_per_second == 5000
    assert accounting.to_slow(budget=1 << 40, op_limit=50001, perf_seconds=1.0) == []
    assert accounting.to_slow(budget=1 << 40, op_limit=50000, perf_seconds=1.0) == [2]
    assert accounting.overflowing(limit=50000) == {}


def test_new_problems_raise_their_checks():
    accounting = HoldAccounting()
    accounting.hold_started(0, counters(0, 0), now=0.0)
    accounting.mark_slowed(0)
    accounting.released(1, counters(0, 0, deferred=900), counters(0, 0, deferred=900), limit=65535)
    accounting.hold_started(2, counters(0, 0), now=0.0)
    accounting.released(2, counters(0, 0, deferred=50), counters(0, 0, deferred=50, submitted=50), limit=65535)
    accounting.hold_started(2, counters(0, 0, deferred=50, submitted=50, on_device=0), now=0.0)
    mixing = {"rpool": [f"2.{i}" for i in range(12)]}
    checks = health_checks(_topology(), accounting, Settings(), [], {}, {},
                           clock_problems=["mon.b is 0.400 s off the leader monitor"], mixing=mixing,
                           spread_error=SettingError("release_spread_seconds", "too long"))
    assert sorted(checks) == ["RAILS_BACKLOG_SLOW", "RAILS_BAD_SETTING", "RAILS_CLOCK_SKEW",
                              "RAILS_OSD_COMMAND_FAILED", "RAILS_READS_MIXED", "RAILS_WRITERS_SLOWED"]
    assert checks["RAILS_OSD_COMMAND_FAILED"]["detail"][0].startswith("osd.1: 900 held deferred transactions")
    assert checks["RAILS_BACKLOG_SLOW"]["detail"][0].startswith("osd.2: 50 of the 50")
    assert checks["RAILS_READS_MIXED"]["detail"] == [
        "pool rpool: 12 PG(s): 2.0 2.1 2.2 2.3 2.4 2.5 2.6 2.7 2.8 2.9 and 2 more"]
    assert checks["RAILS_BAD_SETTING"]["detail"] == ["too long"]
    assert checks["RAILS_WRITERS_SLOWED"]["count"] == 1


def test_status_shows_budget_slowing_releases_and_mixed_reads():
    from rails.reads import MixedReads, PgReads
    accounting = HoldAccounting()
    accounting.hold_started(0, counters(0, 0, queued_bytes=0, deferred=10, submitted=10, on_device=10), now=0.0)
    accounting.observe(0, counters(0, 0, queued_bytes=3 << 20, deferred=780, submitted=10, on_device=10), now=0.0)
    accounting.mark_slowed(0)
    accounting.released(3, counters(0, 10, deferred=400), counters(0, 300, deferred=400, submitted=400,
                                                                     on_device=400), limit=65535, kicks=2)
    mixed = MixedReads()
    topo = _topology()
    mixed.update(topo, [PgReads("1.0", 1, (0, 2147483647, 2, 3), 5)], now=1.0)
    mixed.update(topo, [PgReads("1.0", 1, (0, 2147483647, 2, 3), 12)], now=3.0)
    status = build_status(topo, {0: OsdState(True, 0.5)}, accounting, Settings(held_bytes_budget=2 << 20),
                          now=3.0, mixed=mixed)
    osds = {o["osd"]: o for o in status["osds"]}
    assert (osds[0]["held_bytes"], osds[0]["held_bytes_budget"], osds[0]["slowed"]) == (3 << 20, 2 << 20, True)
    assert osds[0]["held_txcs"] == 770
    assert (osds[3]["last_release_kicks"], osds[3]["last_release_backlog_txcs"],
            osds[3]["last_release_unapplied_txcs"], osds[3]["last_release_applied_ops"]) == (2, 400, 0, 290)
    assert (status["pools"][0]["pgs_mixing"], status["pools"][0]["reads_mixed"]) == (["1.0"], 7)
    text = render_plain(status)
    assert "reads mixing write-phase shards: 1 PG(s) now, 7 reads since the module started" in text
    assert "3.0/2" in text and " yes " in text.splitlines()[-4]


def test_a_failed_control_loop_and_every_bad_setting_raise_their_checks():
    errors = [SettingError("poll_seconds", "mgr/rails/poll_seconds is 9; accepted: 0.05..5.0"),
              SettingError("active", "mgr/rails/active is 'maybe'; accepted: true or false")]
    checks = health_checks(_topology(), HoldAccounting(), Settings(), errors, {}, {},
                           spread_error=SettingError("release_spread_seconds", "too long"),
                           loop_error="KeyError: 'pg_stats'")
    assert sorted(checks) == ["RAILS_BAD_SETTING", "RAILS_LOOP_ERROR"]
    assert checks["RAILS_LOOP_ERROR"]["detail"] == ["KeyError: 'pg_stats'"]
    assert "every OSD was released" in checks["RAILS_LOOP_ERROR"]["summary"]
    assert checks["RAILS_BAD_SETTING"]["detail"] == [errors[0].message, errors[1].message, "too long"]
    assert checks["RAILS_BAD_SETTING"]["summary"].startswith("3 mgr/rails setting(s)")


def test_status_says_why_each_pool_is_not_scheduled():
    colors = dict(FOUR_COLORS, color3=[])
    profiles = {"missing": rails_profile(["color0", "color1", "color2", "nosuch"]),
                "empty": rails_profile(list(FOUR_COLORS)),
                "fast": rails_profile(list(FOUR_COLORS)[:3] + ["color2x"], rails_frame="0.001"),
                "plain": {"plugin": "erails", "k": "2", "m": "2"}}
    pools = {"pm": "missing", "pe": "empty", "pf": "fast", "pp": "plain"}
    topo = build_topology(osd_map(profiles, pools, [0, 1, 2]), crush_map(colors))
    text = render_plain(build_status(topo, {}, HoldAccounting(), Settings(), now=1.0))
    assert "no pool uses" not in text
    assert "pool pm is not scheduled: crush-colors names bucket 'nosuch', which is not in the CRUSH map" in text
    assert "pool pe is not scheduled: color bucket 'color3' holds no OSD" in text
    assert "pool pf is not scheduled: rails-frame is '0.001'; accepted: at least 2 seconds" in text
    assert "pool pp is not scheduled: its erails profile has no crush-colors" in text
