"""The controller driven by a fake clock: 4 colors (one OSD each), frame 6 s, 2 readers, guard 0.6 s.
Frame f reads colors f%4 and (f+1)%4, so color 2 turns reader at t=6 and is held from t=5.4."""
from maps import FOUR_COLORS, crush_map, osd_map, rails_profile
from rails.controller import OsdAction, PhaseController, defer_interval_seconds, next_change, wanted_holds
from rails.topology import build_topology


def topology(down=(), up_from=None, profiles=None, pools=None, color_osds=FOUR_COLORS):
    profiles = profiles or {"rp": rails_profile(list(color_osds), rails_frame="6", rails_guard="0.6")}
    pools = pools or {"rpool": "rp"}
    osds = sorted(o for group in color_osds.values() for o in group)
    return build_topology(osd_map(profiles, pools, osds, down=list(down), up_from=up_from),
                          crush_map(color_osds))


def run(controller, topo, now, active=True):
    """One loop of the module with every command succeeding."""
    actions = controller.step(topo, now, active)
    for action in actions:
        controller.confirm(action, True, now)
    return actions


def test_read_phase_colors_hold_and_write_phase_colors_release():
    assert wanted_holds(topology(), 1.0) == {0: True, 1: True, 2: False, 3: False}
    assert wanted_holds(topology(), 7.0) == {0: False, 1: True, 2: True, 3: False}


def test_the_writer_turning_reader_is_held_from_the_guard_on():
    topo = topology()
    assert wanted_holds(topo, 5.39)[2] is False
    assert wanted_holds(topo, 5.4)[2] is True
    assert wanted_holds(topo, 5.4)[0] is True  # still reading until the switch itself


def test_first_step_sends_every_osd_its_state_then_nothing_until_a_change():
    controller = PhaseController()
    topo = topology()
    assert run(controller, topo, 1.0) == [OsdAction(0, True), OsdAction(1, True),
                                          OsdAction(2, False), OsdAction(3, False)]
    assert run(controller, topo, 2.0) == []
    assert run(controller, topo, 5.5) == [OsdAction(2, True)]
    assert run(controller, topo, 6.0) == [OsdAction(0, False)]
    assert run(controller, topo, 6.1) == []
    assert {osd: s.held for osd, s in controller.states().items()} == {0: False, 1: True, 2: True, 3: False}
    assert controller.states()[0].since == 6.0


def test_a_restarted_mgr_recovers_from_the_clock_alone():
    first = PhaseController()
    run(first, topology(), 1.0)
    again = PhaseController()
    assert run(again, topology(), 7.0) == [OsdAction(0, False), OsdAction(1, True),
                                           OsdAction(2, True), OsdAction(3, False)]


def test_a_failed_command_is_retried_at_the_next_step():
    controller = PhaseController()
    topo = topology()
    for action in controller.step(topo, 1.0):
        controller.confirm(action, action.osd != 1, 1.0)
    assert controller.step(topo, 1.5) == [OsdAction(1, True)]


def test_a_restarted_osd_is_sent_its_hold_again():
    controller = PhaseController()
    run(controller, topology(), 1.0)
    assert run(controller, topology(up_from={0: 9}), 2.0) == [OsdAction(0, True)]
    assert run(controller, topology(up_from={0: 9}), 3.0) == []


def test_down_osds_get_no_commands_until_they_are_up():
    controller = PhaseController()
    assert [a.osd for a in run(controller, topology(down=[1]), 1.0)] == [0, 2, 3]
    assert run(controller, topology(), 2.0) == [OsdAction(1, True)]


def test_inactive_releases_every_held_osd():
    controller = PhaseController()
    run(controller, topology(), 1.0)
    assert run(controller, topology(), 2.0, active=False) == [OsdAction(0, False), OsdAction(1, False)]
    assert run(controller, topology(), 3.0, active=False) == []


def test_an_osd_that_leaves_every_color_is_released():
    controller = PhaseController()
    run(controller, topology(), 1.0)
    fewer = topology(profiles={"plain": {"plugin": "jerasure"}}, pools={"p": "plain"})
    assert run(controller, fewer, 2.0) == [OsdAction(0, False), OsdAction(1, False)]


def test_conflicting_pools_hold_an_osd_only_when_both_say_so():
    profiles = {"a": rails_profile(list(FOUR_COLORS), rails_frame="6", rails_guard="0.6"),
                "b": rails_profile(["color1", "color0", "color2", "color3"], rails_frame="6", rails_guard="0.6")}
    topo = topology(profiles=profiles, pools={"pa": "a", "pb": "b"})
    assert wanted_holds(topo, 1.0) == {0: True, 1: True, 2: False, 3: False}
    # At t=7 pool a reads colors 1,2 (osds 1,2) and pool b reads colors 1,2 (osds 0,2).
    assert wanted_holds(topo, 7.0) == {0: False, 1: False, 2: True, 3: False}


def test_the_loop_wakes_at_guard_starts_and_switches():
    topo = topology()
    assert next_change(topo, 1.0) == 5.4
    assert next_change(topo, 5.4) == 6.0
    assert next_change(topo, 6.0) == 11.4
    assert next_change(build_topology(osd_map({}, {}, [0]), crush_map({})), 1.0) is None


def test_a_whole_cycle_holds_each_osd_exactly_in_its_read_phase_and_guard():
    controller = PhaseController()
    topo = topology()
    held = {}
    t = 0.05
    while t < 24.0:
        run(controller, topo, t)
        for osd, state in controller.states().items():
            held.setdefault(osd, []).append((round(t, 2), state.held))
        t += 0.1
    for osd in range(4):
        schedule = topo.pools[0].schedule
        for when, is_held in held[osd]:
            assert is_held == (not schedule.may_apply_writes(osd, when)), (osd, when)


def test_an_osd_found_in_another_state_than_confirmed_is_sent_its_state_again():
    controller = PhaseController()
    topo = topology()
    run(controller, topo, 1.0)
    assert controller.reconcile({0: True, 1: True, 2: True, 3: False, 9: True}) == [2]
    assert run(controller, topo, 1.5) == [OsdAction(2, False)]
    assert controller.reconcile({0: True}) == []


def test_bluestore_ends_a_hold_by_itself_only_after_a_cycle_and_a_frame():
    # The last submission before a hold is at the latest the previous release; a hold ends one
    # cycle (4 frames of 6 s) after that release, so BlueStore's own timer must wait longer.
    assert defer_interval_seconds(topology(), 2) == 30.0
    two = {"color0": [0, 1], "color1": [2, 3]}
    assert defer_interval_seconds(topology(color_osds=two, profiles={"rp": rails_profile(
        list(two), k=1, m=1, rails_frame="6")}), 3) == 18.0


def test_after_forgetting_every_osd_the_next_step_sends_every_state_again():
    controller = PhaseController()
    topo = topology()
    run(controller, topo, 1.0)
    assert run(controller, topo, 1.5) == []
    controller.forget_all()
    assert run(controller, topo, 1.5) == [OsdAction(0, True), OsdAction(1, True),
                                          OsdAction(2, False), OsdAction(3, False)]
