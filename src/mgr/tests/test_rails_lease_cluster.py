"""The Rails lease end to end (src/rails_osd, rails/lease.py), on a local cluster of its own: 3
BlueStore OSDs, one color each, an erails 2+1 pool, the rails module from this source tree, and a
writer whose every acknowledged write is read back at the end.

`ceph mgr module disable rails` (ceph-mgr re-executes itself without stopping the module) and a
SIGKILLed mgr must both leave every OSD released within the lease: each OSD's lease runs out
without renewal and the OSD applies the module's release by itself.

Needs the erails plugin built (ERAILS_PLUGIN_DIR). Selected with -m cluster; ports
RAILS_LEASE_PORT_BASE upwards (default: start.sh's --port-base auto), /tmp/rails-lease-*; the cluster is stopped at the end even on
failure.
"""
import os
import signal
import subprocess

import pytest
import rados

from ack_workload import AckWorkload
from lease_watch import (lease_of, rails_pool_of_one_color_per_osd, verify_and_disconnect, wait_for_a_leased_hold,
                         wait_until_released)
from local_mgr import ceph, enable_from_source, local_cluster, mgr_pid

pytestmark = pytest.mark.cluster

PORT_BASE = os.environ.get("RAILS_LEASE_PORT_BASE", "auto")
OSDS = 3
FRAME_SECONDS = 4
POOL = "leasepool"


@pytest.fixture(scope="module")
def cluster():
    plugin_dir = os.environ.get("ERAILS_PLUGIN_DIR")
    if not plugin_dir or not os.path.exists(os.path.join(plugin_dir, "libec_erails.so")):
        pytest.skip("ERAILS_PLUGIN_DIR must name the directory holding the built libec_erails.so")
    with local_cluster("rails-lease-", ["--osds", str(OSDS), "--port-base", PORT_BASE, "--plugin-dir", plugin_dir,
                                        "--block-size", "1G", "--timeout", "120"], 240,
                       "grep -h rails $1/log/mgr.x.log | tail -20; grep -h 'erails rails' $1/log/osd.*.log") as started:
        yield started


def test_a_disabled_or_killed_module_leaves_no_osd_held(cluster):
    env, cluster_dir = cluster
    rails_pool_of_one_color_per_osd(env, OSDS, POOL, FRAME_SECONDS)
    enable_from_source(env, cluster_dir, "rails")

    client = rados.Rados(conffile=env["CEPH_CONF"])
    client.connect(timeout=60)
    workload = AckWorkload(client, POOL, writers=2, max_size=64 << 10, prefix="lease").start()
    try:
        # The kill first: the restarted mgr runs the module again without an enable, and the
        # disable last leaves nothing to restart, one mgr start less than the other order.
        held, lease_seconds = wait_for_a_leased_hold(env, OSDS)
        os.kill(mgr_pid(cluster_dir), signal.SIGKILL)
        took = wait_until_released(env, OSDS, "SIGKILL of the mgr", lease_seconds)
        print(f"\nheld {held} at the mgr's SIGKILL; all released {took:.1f} s later (lease {lease_seconds:g} s); "
              f"load {os.getloadavg()}", flush=True)
        released_themselves = [osd for osd in held if lease_of(env, osd)["self_releases"] > 0]
        assert released_themselves, {osd: lease_of(env, osd) for osd in held}
        subprocess.run(["ceph-mgr", "-c", env["CEPH_CONF"], "-i", "x"], env=env, check=True)

        held, lease_seconds = wait_for_a_leased_hold(env, OSDS)
        ceph(env, "mgr", "module", "disable", "rails")
        took = wait_until_released(env, OSDS, "mgr module disable", lease_seconds)
        print(f"held {held} at disable; all released {took:.1f} s later; load {os.getloadavg()}", flush=True)
    finally:
        workload.stop()
    verify_and_disconnect(client, POOL, workload)
