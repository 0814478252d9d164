from maps import FOUR_COLORS, crush_map, osd_map, rails_profile
from rails.topology import build_topology, osds_under_bucket, schedule_params

COLORS = list(FOUR_COLORS)


def topology_of(profile, color_osds=FOUR_COLORS, osds=(0, 1, 2, 3), pools=None):
    profiles = {"rp": profile, "plain": {"plugin": "jerasure", "k": "2", "m": "1"}}
    pools = pools or {"rpool": "rp", "other": "plain", "replicated": ""}
    return build_topology(osd_map(profiles, pools, list(osds)), crush_map(color_osds))


def test_colors_map_to_the_osds_below_their_buckets_in_shard_order():
    topology = topology_of(rails_profile(["color2", "color0", "color1", "color3"]))
    assert [p.name for p in topology.pools] == ["rpool"]
    colors = topology.pools[0].colors
    assert [(c.name, c.osds) for c in colors] == [("color2", (2,)), ("color0", (0,)), ("color1", (1,)),
                                                  ("color3", (3,))]
    assert topology.problems == [] and topology.uncolored_osds == [] and topology.conflicts == []


def test_osds_are_found_through_nested_buckets():
    crush = crush_map({"color0": [0, 4], "color1": [1]})
    assert osds_under_bucket(crush, "color0") == (0, 4)
    assert osds_under_bucket(crush, "default") == (0, 1, 4)
    assert osds_under_bucket(crush, "nowhere") is None


def test_profile_defaults_match_the_plugin():
    params, error = schedule_params(rails_profile(COLORS, k=3, m=1))
    assert error is None
    assert (params.colors, params.frame_seconds, params.readers, params.epoch) == (4, 10.0, 3, 0.0)
    assert params.guard_seconds == 1.0
    params, _ = schedule_params(rails_profile(COLORS, rails_frame="4", rails_readers="3",
                                              rails_epoch="100", rails_guard="0.5"))
    assert (params.frame_seconds, params.readers, params.epoch, params.guard_seconds) == (4.0, 3, 100.0, 0.5)


def test_a_bad_profile_value_is_a_problem_naming_the_key():
    cases = {"rails_frame": ("abc", "rails-frame"), "rails_readers": ("4", "rails-readers"),
             "rails_guard": ("20", "rails-guard"), "rails_epoch": ("x", "rails-epoch")}
    for field, (value, key) in cases.items():
        topology = topology_of(rails_profile(COLORS, **{field: value}))
        assert topology.pools == []
        assert [(p.pool, p.key) for p in topology.problems] == [("rpool", key)], field
        assert value in topology.problems[0].message
        assert "accepted" in topology.problems[0].message


def test_missing_k_is_reported():
    profile = rails_profile(COLORS)
    del profile["k"]
    assert [p.key for p in topology_of(profile).problems] == ["k"]


def test_color_buckets_must_exist_hold_osds_and_match_k_plus_m():
    missing = topology_of(rails_profile(["color0", "color1", "color2", "rack9"]))
    assert missing.problems[0].key == "crush-colors" and "'rack9'" in missing.problems[0].message
    wrong_count = topology_of(rails_profile(["color0", "color1", "color2"]))
    assert "exactly k+m = 4" in wrong_count.problems[0].message
    crush = crush_map(FOUR_COLORS)
    crush["buckets"].append({"id": -50, "name": "empty", "type_name": "rack", "items": []})
    profiles = {"rp": rails_profile(["color0", "color1", "color2", "empty"])}
    empty = build_topology(osd_map(profiles, {"rpool": "rp"}, [0, 1, 2, 3]), crush)
    assert "holds no OSD" in empty.problems[0].message


def test_osds_under_no_color_are_listed_only_when_rails_is_in_use():
    assert topology_of(rails_profile(COLORS), osds=(0, 1, 2, 3, 7)).uncolored_osds == [7]
    no_rails = build_topology(osd_map({}, {"replicated": ""}, [0, 7]), crush_map(FOUR_COLORS))
    assert no_rails.uncolored_osds == []


def test_pools_with_different_schedules_on_one_osd_conflict():
    profiles = {"a": rails_profile(COLORS, rails_frame="6"), "b": rails_profile(COLORS, rails_frame="8"),
                "c": rails_profile(COLORS, rails_frame="6")}
    crush = crush_map(FOUR_COLORS)
    conflicting = build_topology(osd_map(profiles, {"pa": "a", "pb": "b"}, [0, 1, 2, 3]), crush)
    assert [(c.osd, c.pool_a, c.pool_b) for c in conflicting.conflicts] == [(o, "pa", "pb") for o in range(4)]
    agreeing = build_topology(osd_map(profiles, {"pa": "a", "pc": "c"}, [0, 1, 2, 3]), crush)
    assert agreeing.conflicts == []
    rotated = dict(profiles, c=rails_profile(["color1", "color0", "color2", "color3"], rails_frame="6"))
    shifted = build_topology(osd_map(rotated, {"pa": "a", "pc": "c"}, [0, 1, 2, 3]), crush)
    assert [c.osd for c in shifted.conflicts] == [0, 1]


def test_up_state_and_restart_epochs_come_from_the_osd_map():
    topology = build_topology(osd_map({"rp": rails_profile(COLORS)}, {"rpool": "rp"}, [0, 1, 2, 3],
                                      down=[2], up_from={1: 42}),
                              crush_map(FOUR_COLORS))
    assert topology.up_osds == (0, 1, 3)
    assert topology.up_from[1] == 42


def test_a_frame_below_what_the_module_can_follow_is_a_problem_saying_why():
    from rails.limits import MIN_RAILS_FRAME_SECONDS
    too_fast = topology_of(rails_profile(COLORS, rails_frame="0.001"))
    assert too_fast.pools == [] and [p.key for p in too_fast.problems] == ["rails-frame"]
    assert too_fast.problems[0].message == ("rails-frame is '0.001'; accepted: at least 2 seconds, the time the "
                                            "rails mgr module needs to carry a switch to the OSDs")
    assert topology_of(rails_profile(COLORS, rails_frame=str(MIN_RAILS_FRAME_SECONDS))).pools
