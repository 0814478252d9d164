"""What the controllers' lease tests watch on the OSDs: which hold, under which lease, and how long
they take to be released once the controller is gone."""
import json
import subprocess
import time

from ack_workload import verify_acked
from eventually import wait_for
from local_mgr import ceph
from rails.settings import BATCH_OPS_MAX

# What a lease may take beyond its length to end a hold here: the lease thread's wake-up, the
# release's three admin-socket commands and one `ceph tell` round per OSD to see it, on a loaded
# 2-core machine.
RELEASE_MARGIN_SECONDS = 10.0


def held_osds(env, osds):
    """The OSDs (of 0..osds-1) whose bluestore_deferred_batch_ops is the hold's value, asked all at once."""
    tells = {osd: subprocess.Popen(["ceph", "tell", f"osd.{osd}", "config", "get", "bluestore_deferred_batch_ops",
                                    "-f", "json"], env=env, stdout=subprocess.PIPE, text=True)
             for osd in range(osds)}
    held = []
    for osd, tell in tells.items():
        out, _ = tell.communicate(timeout=60)
        assert tell.returncode == 0, f"ceph tell osd.{osd} config get failed"
        if json.loads(out)["bluestore_deferred_batch_ops"] == str(BATCH_OPS_MAX):
            held.append(osd)
    return held


def lease_of(env, osd):
    return json.loads(ceph(env, "tell", f"osd.{osd}", "rails", "lease", "-f", "json"))


def wait_for_a_leased_hold(env, osds):
    """Waits until some OSD holds under an active lease; returns those OSDs and the lease's length.
    An OSD seen held may be released, and its lease cancelled, before its lease is read (a switch
    right after the controller's first holds), so both are read again until they agree."""
    def leased_holds():
        leases = {osd: lease_of(env, osd) for osd in held_osds(env, osds)}
        return {osd: lease for osd, lease in leases.items() if lease["state"] == "active"}
    active = wait_for("an OSD held by the controller under an active Rails lease", leased_holds, 90, interval=0.2)
    return sorted(active), next(iter(active.values()))["lease_seconds"]


def wait_until_released(env, osds, what, within_seconds):
    """Every OSD released within `within_seconds` (plus the margin) of now; returns how long it took."""
    ended = time.monotonic()
    wait_for(f"every OSD released after {what}", lambda: not held_osds(env, osds),
             within_seconds + RELEASE_MARGIN_SECONDS, interval=1.0)
    return time.monotonic() - ended


def rails_pool_of_one_color_per_osd(env, osds, pool, frame_seconds):
    """An erails k=osds-1 m=1 pool `pool` whose color i is osd.i's host (start.sh's host-i, in a
    rack of its own), so each OSD holds and releases on its own turn."""
    colors = [f"color{osd}" for osd in range(osds)]
    for osd, color in enumerate(colors):
        ceph(env, "osd", "crush", "add-bucket", color, "rack")
        ceph(env, "osd", "crush", "move", color, "root=default")
        ceph(env, "osd", "crush", "move", f"host-{osd}", f"rack={color}")
    ceph(env, "osd", "erasure-code-profile", "set", f"{pool}profile", "plugin=erails", f"k={osds - 1}", "m=1",
         "crush-colors=" + ",".join(colors), f"rails-frame={frame_seconds}")
    ceph(env, "osd", "pool", "create", pool, "8", "8", "erasure", f"{pool}profile")


def verify_and_disconnect(client, pool, workload):
    """Reads back every write the stopped `workload` had acknowledged, then disconnects `client`;
    fails when none was acknowledged or one reads back wrong."""
    wrong = verify_acked(client, pool, workload.acked)
    client.shutdown()
    assert workload.acked, "no write was acknowledged"
    assert not wrong, wrong[:5]
