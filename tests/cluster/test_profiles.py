"""Erasure-code profiles through the real monitor: good ones are stored with their defaults, bad
ones are refused with the plugin's own message, and a refusal never takes the monitor down."""
import errno

import pytest

from ceph_cluster import CephCommandError
from conftest import codec_profile, require_codec

# (profile changes, the key the refusal must name, errno). Each starts from a valid k=4 m=2 profile.
BAD_PROFILES = {
    "erails": [
        ({"k": 0}, "k", errno.EINVAL),
        ({"k": "abc"}, "k", errno.EINVAL),
        ({"m": 0}, "m", errno.EINVAL),
        ({"technique": "nope"}, "technique", errno.EINVAL),
        ({"w": 7}, "w", errno.EINVAL),
        ({"technique": "cauchy_good", "packetsize": 12}, "packetsize", errno.EINVAL),
        ({"rails-readers": 6}, "rails-readers", errno.EINVAL),
        ({"rails-frame": 0}, "rails-frame", errno.EINVAL),
        ({"rails-frame": 5, "rails-guard": 5}, "rails-guard", errno.EINVAL),
        ({"rails-epoch": "soon"}, "rails-epoch", errno.EINVAL),
        ({"crush-colors": "a,b"}, "crush-colors", errno.EINVAL),
        ({"colour": "red"}, "colour", errno.EINVAL),
    ],
    # Stock jerasure, to show the harness reports a plugin's refusal faithfully.
    "jerasure": [
        ({"k": 1}, "k", errno.EINVAL),
        ({"m": 0}, "m", errno.EINVAL),
        ({"technique": "nope"}, "technique", errno.ENOENT),
        ({"w": 7}, "w", errno.EINVAL),
    ],
}


def test_good_profile_is_stored_with_defaults(cluster, codec):
    cluster.set_profile("good", codec_profile(codec, 4, 2))
    try:
        stored = cluster.get_profile("good")
        assert stored["plugin"] == codec
        assert (stored["k"], stored["m"]) == ("4", "2")
        assert stored["technique"] == "reed_sol_van"
        assert stored["w"] == "8", "the plugin must write its defaults back into the profile"
        if codec == "erails":
            for key in ("crush-root", "rails-frame", "rails-readers", "rails-epoch", "rails-guard"):
                assert key in stored, f"erails did not record its default for {key}"
    finally:
        cluster.command("osd erasure-code-profile rm", name="good")


BAD_CASES = [pytest.param(codec, changes, key, code,
                          id=f"{codec}-" + ",".join(f"{k}={v}" for k, v in changes.items()))
             for codec, cases in BAD_PROFILES.items() for changes, key, code in cases]


@pytest.mark.parametrize("codec_name,changes,key,expected_errno", BAD_CASES)
def test_bad_profile_is_refused_with_the_plugins_message(cluster, codec_name, changes, key,
                                                         expected_errno):
    require_codec(cluster, codec_name)
    mon_pid = cluster.pid("mon.a")
    name = f"bad-{codec_name}-{key}"

    try:
        with pytest.raises(CephCommandError) as refused:
            cluster.set_profile(name, dict(codec_profile(codec_name, 4, 2), **changes))
    finally:
        # An accepted bad profile must not leak into the next case and fail it too.
        stored = name in cluster.command("osd erasure-code-profile ls")
        if stored:
            cluster.command("osd erasure-code-profile rm", name=name)

    assert not stored, "the monitor stored a profile it refused"
    assert refused.value.errno == expected_errno, refused.value.message
    assert f"{key}=" in refused.value.message, \
        f"the refusal does not name the key {key}: {refused.value.message!r}"
    assert cluster.pid("mon.a") == mon_pid, "the monitor restarted or died"
    assert cluster.command("status")["monmap"]["num_mons"] == 1


def test_erails_refusal_names_the_accepted_values(cluster):
    require_codec(cluster, "erails")
    with pytest.raises(CephCommandError) as refused:
        cluster.set_profile("bad", codec_profile("erails", 4, 2, technique="nope"))
    for accepted in ("reed_sol_van", "cauchy_orig", "cauchy_good"):
        assert accepted in refused.value.message
