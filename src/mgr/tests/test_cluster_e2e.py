"""End to end on a real local cluster (vstart-configs/start.sh): 4 BlueStore OSDs, one color each,
an erails 2+2 pool with a 6 s frame, the rails module enabled from this source tree.

Checks that shard i of every PG is on color i and that pools naming a missing or an empty color
bucket are refused; then, with `ceph tell osd.N config get bluestore_deferred_batch_ops`, that
every OSD the schedule puts in read phase (or guard) holds and every write-phase OSD is released,
across several switches, that a release makes an OSD apply the writes it held (BlueStore's
deferred_write_ops counter), and that an OSD whose hold is undone behind the module's back is
held again.

Needs the erails plugin built: ERAILS_PLUGIN_DIR names its directory. Selected with -m cluster.
Ports RAILS_E2E_PORT_BASE.. (default: start.sh's --port-base auto) and /tmp/rails-mgr-e2e-*; the cluster is stopped at the end even on failure.
"""
import json
import os
import subprocess
import time

import pytest

from eventually import wait_for
from local_mgr import ceph, enable_from_source, local_cluster
from rails.accounting import counters_from_perf_dump
from rails.schedule import Schedule, ScheduleParams
from rails.settings import RELEASED_BATCH_OPS

pytestmark = pytest.mark.cluster

PORT_BASE = os.environ.get("RAILS_E2E_PORT_BASE", "auto")
OSDS = 4
FRAME_SECONDS = 6.0
GUARD_SECONDS = 0.6
# Time the module may take to carry a change to an OSD.
SETTLE_SECONDS = 1.0
# Frames sampled at most: four suffice when a round of `ceph tell` answers within the frame; on
# a loaded machine (rounds of 7 s seen here at load average 17) answers straddle changes more often.
MAX_FRAMES_SAMPLED = 12
BATCH_OPS_HELD = "65535"


def batch_ops_of_all(env):
    """osd -> (bluestore_deferred_batch_ops, when asked, when answered), asking all OSDs at once:
    one `ceph tell` takes about a second here, a good part of a frame."""
    asked = time.time()
    tells = {osd: subprocess.Popen(["ceph", "tell", f"osd.{osd}", "config", "get", "bluestore_deferred_batch_ops",
                                    "-f", "json"], env=env, stdout=subprocess.PIPE, text=True)
             for osd in range(OSDS)}
    answers = {}
    for osd, tell in tells.items():
        out, _ = tell.communicate(timeout=30)
        assert tell.returncode == 0, f"ceph tell osd.{osd} config get failed"
        answers[osd] = (json.loads(out)["bluestore_deferred_batch_ops"], asked, time.time())
    return answers


def applied_ops(env, osd):
    counters = counters_from_perf_dump(json.loads(ceph(env, "tell", f"osd.{osd}", "perf", "dump", "bluestore")))
    assert counters is not None, f"osd.{osd}: no deferred-write counters rails.accounting knows"
    return counters.applied


@pytest.fixture(scope="module")
def cluster():
    plugin_dir = os.environ.get("ERAILS_PLUGIN_DIR")
    if not plugin_dir or not os.path.exists(os.path.join(plugin_dir, "libec_erails.so")):
        pytest.skip("ERAILS_PLUGIN_DIR must name the directory holding the built libec_erails.so")
    with local_cluster("rails-mgr-e2e-", ["--osds", str(OSDS), "--port-base", PORT_BASE, "--plugin-dir", plugin_dir,
                                          "--block-size", "2G", "--timeout", "90"], 150,
                       "grep -h rails $1/log/mgr.x.log | tail -40") as started:
        yield started


def check_placement(env, colors):
    """Shard i of every PG is on osd.i, the one OSD of color i; pools whose colors name a missing
    or an empty bucket are refused, naming it."""
    pool_id = next(p["pool"] for p in json.loads(ceph(env, "osd", "dump", "-f", "json"))["pools"]
                   if p["pool_name"] == "railspool")

    def acting_sets():
        dump = json.loads(ceph(env, "pg", "dump", "pgs_brief", "-f", "json"))
        return [pg["acting"] for pg in dump["pg_stats"] if pg["pgid"].startswith(f"{pool_id}.")]
    wait_for("railspool's PGs to be mapped", lambda: len(acting_sets()) == 8 and
             all(0 <= osd < OSDS for acting in acting_sets() for osd in acting), 60)
    assert all(acting == list(range(OSDS)) for acting in acting_sets()), acting_sets()

    ceph(env, "osd", "crush", "add-bucket", "emptycolor", "rack")
    ceph(env, "osd", "crush", "move", "emptycolor", "root=default")
    for last, complaint in (("nosuchcolor", "which is not a CRUSH bucket"), ("emptycolor", "is empty")):
        ceph(env, "osd", "erasure-code-profile", "set", "badcolors", "plugin=erails", "k=2", "m=2",
             "crush-colors=" + ",".join(colors[:-1] + [last]))
        created = subprocess.run(["ceph", "osd", "pool", "create", "badcolors", "8", "8", "erasure", "badcolors"],
                                 env=env, capture_output=True, text=True, timeout=60)
        assert created.returncode != 0 and last in created.stderr and complaint in created.stderr, created
        ceph(env, "osd", "erasure-code-profile", "rm", "badcolors")
    ceph(env, "osd", "crush", "remove", "emptycolor")


def test_read_phase_osds_hold_and_write_phase_osds_are_released(cluster):
    env, cluster_dir = cluster
    colors = []
    for osd in range(OSDS):
        color = f"color{osd}"
        ceph(env, "osd", "crush", "add-bucket", color, "rack")
        ceph(env, "osd", "crush", "move", color, "root=default")
        ceph(env, "osd", "crush", "move", f"host-{osd}", f"rack={color}")
        colors.append(color)
    ceph(env, "osd", "erasure-code-profile", "set", "railsprofile", "plugin=erails", "k=2", "m=2",
         "crush-colors=" + ",".join(colors), f"rails-frame={FRAME_SECONDS}", f"rails-guard={GUARD_SECONDS}")
    ceph(env, "osd", "pool", "create", "railspool", "8", "8", "erasure", "railsprofile")
    profile = json.loads(ceph(env, "osd", "erasure-code-profile", "get", "railsprofile", "-f", "json"))
    schedule = Schedule(ScheduleParams(colors=OSDS, frame_seconds=float(profile["rails-frame"]),
                                       readers=int(profile["rails-readers"]),
                                       epoch=float(profile["rails-epoch"]),
                                       guard_seconds=float(profile["rails-guard"])))

    enable_from_source(env, cluster_dir, "rails")
    wait_for("ceph rails status", lambda: subprocess.run(["ceph", "rails", "status"], env=env,
                                                        capture_output=True).returncode == 0, 60)
    status = json.loads(ceph(env, "rails", "status", "-f", "json"))
    assert [c["bucket"] for c in status["pools"][0]["colors"]] == colors
    check_placement(env, colors)

    # With 2 readers of 4 colors every OSD is read phase in two frames of four and write phase in
    # two. An answer is skipped when it straddles the asked OSD's change, which in frame f can only
    # be an OSD of f's parity (the one entering its guard, the one leaving its read phase); so
    # frames are sampled in alternating parity, until every OSD has shown both states.
    seen = {osd: set() for osd in range(OSDS)}
    last_frame = None
    for _ in range(MAX_FRAMES_SAMPLED):
        if all(values == {BATCH_OPS_HELD, str(RELEASED_BATCH_OPS)} for values in seen.values()):
            break
        frame = schedule.frame(time.time()) + 1
        if last_frame is not None and frame % 2 == last_frame % 2:
            frame += 1
        last_frame = frame
        # Sample in the middle of the frame's write part, away from the guard and the switch.
        time.sleep(max(0.0, schedule.frame_start(frame) + (FRAME_SECONDS - GUARD_SECONDS) / 2 - time.time()))
        for osd, (value, asked, answered) in batch_ops_of_all(env).items():
            # The answer reflects the wanted state somewhere in [asked - SETTLE_SECONDS, answered]; an
            # OSD's changes are at least frame - guard apart, so equal ends mean no change between.
            held = not schedule.may_apply_writes(osd, asked - SETTLE_SECONDS)
            if held != (not schedule.may_apply_writes(osd, answered)):
                continue  # the question straddled this OSD's change; its answer proves nothing
            expected = BATCH_OPS_HELD if held else str(RELEASED_BATCH_OPS)
            assert value == expected, f"osd.{osd} asked at t={asked:.1f}: {value}, expected {expected}"
            seen[osd].add(value)
    assert all(values == {BATCH_OPS_HELD, str(RELEASED_BATCH_OPS)} for values in seen.values()), seen

    # A held OSD gets writes, then its release (with no further client writes) must apply them.
    # The color that just turned reader stays one more frame: time for the writes and the reads.
    time.sleep(max(0.0, schedule.next_switch(time.time()) + SETTLE_SECONDS - time.time()))
    now = time.time()
    reader = max(schedule.read_colors(now), key=lambda color: schedule.next_phase_change(color, now))
    release_at = schedule.next_phase_change(reader, now)
    before = applied_ops(env, reader)
    subprocess.run(["rados", "-p", "railspool", "bench", "1", "write", "-b", "4096", "-t", "4", "--no-cleanup"],
                   env=env, check=True, capture_output=True, timeout=30)
    held_during = applied_ops(env, reader)
    assert held_during == before, f"osd.{reader} applied {held_during - before} deferred ops while held"
    # Released at release_at, it applies them during its write phase, which lasts at least a frame.
    time.sleep(max(0.0, release_at - time.time()))
    wait_for(f"osd.{reader} to apply its held writes after its release",
             lambda: applied_ops(env, reader) > before, FRAME_SECONDS)
    wait_for(f"rails status to count what osd.{reader} applied at its release", lambda: next(
        o for o in json.loads(ceph(env, "rails", "status", "-f", "json"))["osds"] if o["osd"] == reader)
        ["last_release_applied_ops"] > 0, 30)
    # An OSD that loses its hold behind the module's back is found and held again while still
    # in its read phase (the module checks every mgr/rails/perf_seconds, 5 s by default).
    time.sleep(max(0.0, schedule.next_switch(time.time()) + SETTLE_SECONDS - time.time()))
    now = time.time()
    tampered = max(schedule.read_colors(now), key=lambda color: schedule.next_phase_change(color, now))
    ceph(env, "tell", f"osd.{tampered}", "injectargs", "--bluestore_deferred_batch_ops=0")
    wait_for(f"osd.{tampered} to be held again",
             lambda: batch_ops_of_all(env)[tampered][0] == BATCH_OPS_HELD, timeout=8)
    assert time.time() < schedule.next_phase_change(tampered, now), "held again only after its read phase"

    health = json.loads(ceph(env, "health", "detail", "-f", "json"))
    assert not [name for name in health.get("checks", {}) if name.startswith("RAILS_")], health
