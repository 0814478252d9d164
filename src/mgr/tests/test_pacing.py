"""Release pacing: two colors of two OSDs each (k=1, m=1), frame 6 s, 1 reader, guard 0.6 s.
Frame f reads color f%2; color 0 (osds 0, 1) is released at t=6, color 1 (osds 2, 3) at t=12."""
from maps import FOUR_COLORS, crush_map, osd_map, rails_profile
from rails.controller import OsdAction, Pacing, PhaseController
from rails.pacing import effective_spread, max_release_spread, release_times, write_phase_seconds
from rails.settings import Settings
from rails.topology import build_topology

TWO_COLORS = {"color0": [0, 1], "color1": [2, 3]}


def topology(frame="6", guard="0.6"):
    profiles = {"rp": rails_profile(list(TWO_COLORS), k=1, m=1, rails_frame=frame, rails_guard=guard)}
    return build_topology(osd_map(profiles, {"rpool": "rp"}, [0, 1, 2, 3]), crush_map(TWO_COLORS))


def run(controller, topo, now, pacing):
    actions = controller.step(topo, now, True, pacing)
    for action in actions:
        controller.confirm(action, True, now)
    return actions


def test_the_osds_a_switch_releases_take_turns_over_the_spread():
    topo = topology()
    assert release_times(topo, 6.1, spread=1.0, max_parallel=1) == {0: 6.0, 1: 6.5}
    assert release_times(topo, 6.1, spread=1.0, max_parallel=2) == {0: 6.0, 1: 6.0}
    assert release_times(topo, 1.0, spread=1.0, max_parallel=1) == {2: 0.0, 3: 0.5}
    # With 4 colors and 2 readers, color 0 reads in frames 3 and 4 (t=18..30) and is free from
    # t=6 to 17.4: at t=13 it has been free since before the current frame, so it is not paced.
    four = build_topology(osd_map({"rp": rails_profile(list(FOUR_COLORS), rails_frame="6")}, {"rpool": "rp"},
                                  [0, 1, 2, 3]), crush_map(FOUR_COLORS))
    assert release_times(four, 13.0, spread=1.0, max_parallel=1) == {1: 12.0}
    # In the guard before its read phase color 1 holds again: nothing to release.
    assert release_times(topo, 5.5, spread=1.0, max_parallel=1) == {}
    assert release_times(topo, 12.2, spread=1.0, max_parallel=1) == {2: 12.0, 3: 12.5}


def test_the_controller_releases_in_turns_and_says_when_the_next_is_due():
    controller = PhaseController()
    topo = topology()
    pacing = Pacing(spread_seconds=1.0, max_parallel=1)
    # A first step after the switch at t=0: osd.3's turn came at 0.5, but one release at a time.
    assert run(controller, topo, 1.0, pacing) == [OsdAction(0, True), OsdAction(1, True), OsdAction(2, False)]
    assert controller.next_release(topo, 1.0, True, pacing) == 0.5
    assert run(controller, topo, 1.0, pacing) == [OsdAction(3, False)]
    assert run(controller, topo, 5.5, pacing) == [OsdAction(2, True), OsdAction(3, True)]
    assert run(controller, topo, 6.0, pacing) == [OsdAction(0, False)]
    assert controller.next_release(topo, 6.0, True, pacing) == 6.5
    assert run(controller, topo, 6.2, pacing) == []
    assert run(controller, topo, 6.5, pacing) == [OsdAction(1, False)]
    assert controller.next_release(topo, 6.5, True, pacing) is None


def test_a_late_step_releases_at_most_max_parallel_at_once_earliest_first():
    controller = PhaseController()
    topo = topology()
    run(controller, topo, 5.5, Pacing())
    pacing = Pacing(spread_seconds=1.0, max_parallel=1)
    assert run(controller, topo, 9.0, pacing) == [OsdAction(0, False)]
    assert controller.next_release(topo, 9.0, True, pacing) == 6.5
    assert run(controller, topo, 9.0, pacing) == [OsdAction(1, False)]


def test_without_pacing_every_release_goes_at_once():
    controller = PhaseController()
    topo = topology()
    run(controller, topo, 5.5, Pacing())
    assert run(controller, topo, 6.0, Pacing()) == [OsdAction(0, False), OsdAction(1, False)]


def test_the_spread_is_cut_to_a_quarter_of_the_shortest_write_phase():
    topo = topology()
    params = topo.pools[0].schedule.params
    assert write_phase_seconds(params) == 5.4
    assert max_release_spread(params) == 1.35
    assert effective_spread(Settings(release_spread_seconds=1.35), topo) == (1.35, None)
    spread, error = effective_spread(Settings(release_spread_seconds=2.0), topo)
    assert spread == 1.35 and error.option == "release_spread_seconds"
    assert error.message == ("mgr/rails/release_spread_seconds is 2.0; accepted for pool rpool: 0..1.350 "
                             "(a quarter of its write phase); using 1.350")
    empty = build_topology(osd_map({}, {}, [0]), crush_map({}))
    assert effective_spread(Settings(release_spread_seconds=60.0), empty) == (60.0, None)
