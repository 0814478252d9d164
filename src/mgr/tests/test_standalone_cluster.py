"""The rails and qbox controllers outside ceph-mgr (src/mgr_standalone), on every Ceph build: what
an operator of Debian 13's Ceph, whose ceph-mgr runs no Python module, runs instead of the mgr
modules. One local cluster: 3 BlueStore OSDs, one color each, scheduling with QBox; an erails 2+1
Rails pool; a writer whose every acknowledged write is read back at the end; two rails
controllers (one active, one standby) and one qbox controller, as erails-controller processes of
this source tree, and erails-ctl for their commands.

It checks, as the mgr modules' tests do on Debian 12: commands and their errors; the qbox table
reaching every OSD and surviving a controller's restart (it lives in the monitors); the rails
controller holding on the schedule under leases; a SIGKILLed controller leaving every OSD
released within the lease, and the standby then scheduling again; a SIGTERMed one releasing
at once.

Needs this build's plugins (ERAILS_PLUGIN_DIR, holding libec_erails.so and libec_qbox.so).
Selected with -m cluster; ports from start.sh's --port-base auto (ERAILS_STANDALONE_PORT_BASE
overrides), /tmp/erails-standalone-*; everything it started is stopped at the end, even on failure.
"""
import errno
import json
import os
import signal
import time

import pytest
import rados

from ack_workload import AckWorkload
from controllers import Controllers, answer, ctl_json, erails_ctl
from erails_standalone.channel import LOCK_SECONDS
from erails_standalone.service import STANDBY_RETRY_SECONDS
from eventually import wait_for
from lease_watch import (RELEASE_MARGIN_SECONDS, held_osds, lease_of, rails_pool_of_one_color_per_osd,
                         verify_and_disconnect, wait_for_a_leased_hold, wait_until_released)
from local_mgr import ceph, local_cluster

pytestmark = pytest.mark.cluster

PORT_BASE = os.environ.get("ERAILS_STANDALONE_PORT_BASE", "auto")
OSDS = 3
FRAME_SECONDS = 4
POOL = "standalone"
# A standby takes over once the lock a SIGKILLed controller left runs out; it asks every
# STANDBY_RETRY_SECONDS.
TAKEOVER_SECONDS = LOCK_SECONDS + STANDBY_RETRY_SECONDS


def service_states(env, module):
    daemons = json.loads(ceph(env, "service", "status", "-f", "json")).get(f"erails-{module}", {})
    return {name: daemon["status"].get("state") for name, daemon in daemons.items()}


@pytest.fixture(scope="module")
def cluster():
    plugin_dir = os.environ.get("ERAILS_PLUGIN_DIR")
    if not plugin_dir or not all(os.path.exists(os.path.join(plugin_dir, lib))
                                 for lib in ("libec_erails.so", "libec_qbox.so")):
        pytest.skip("ERAILS_PLUGIN_DIR must name the directory holding the built libec_erails.so and libec_qbox.so")
    with local_cluster("erails-standalone-", ["--osds", str(OSDS), "--port-base", PORT_BASE, "--plugin-dir",
                                              plugin_dir, "--scheduler", "qbox", "--block-size", "1G",
                                              "--timeout", "120"], 240,
                       "tail -n 30 $1/log/erails-*.log; grep -h 'erails rails' $1/log/osd.*.log | tail -20") \
            as (env, cluster_dir):
        rails_pool_of_one_color_per_osd(env, OSDS, POOL, FRAME_SECONDS)
        controllers = Controllers(env, cluster_dir)
        try:
            yield env, controllers
        finally:
            controllers.stop_all()


def test_commands_errors_and_the_qbox_table_across_a_restart(cluster):
    env, controllers = cluster
    status, _, err = erails_ctl(env, "qbox", "status")
    assert status == errno.ENOENT and "no qbox controller is active" in err, err

    controllers.start("qbox", "q1")
    wait_for("the qbox controller to answer", lambda: answer(env, "qbox", "status"), 90)
    ceph(env, "auth", "get-or-create", "client.alice", "mon", "allow r", "osd", "allow rwx")
    refusals = [
        (("qbox", "set", "client.alice", "1.5"), errno.EINVAL, "utilization is '1.5'; accepted:"),
        (("qbox", "set", "client.nobody", "0.2"), errno.ENOENT, "has no cephx key"),
        (("qbox", "set", "client.alice"), errno.EINVAL, "missing argument 'utilization'"),
        (("qbox", "frob"), errno.EINVAL, "unknown command 'qbox frob'; accepted:"),
        (("qbox", "status", "-f", "xml"), 2, "invalid choice: 'xml'"),
        (("qbox", "config", "set", "push_seconds", "0"), errno.EINVAL, "mgr/qbox/push_seconds is '0'; accepted: 1..600"),
        (("qbox", "config", "set", "push_second", "2"), errno.EINVAL, "is not an option of qbox; accepted:"),
        (("rails", "config", "set", "poll_seconds", "9"), errno.EINVAL, "mgr/rails/poll_seconds is '9'; accepted:"),
        (("rails", "config", "set", "active", "maybe"), errno.EINVAL, "accepted: true or false"),
    ]
    for words, expected, message in refusals:
        status, _, err = erails_ctl(env, *words)
        assert (status, message in err) == (expected, True), (words, status, err)

    assert erails_ctl(env, "qbox", "config", "set", "push_seconds", "2")[0] == 0
    assert erails_ctl(env, "qbox", "set", "client.alice", "0.3")[0] == 0
    assert erails_ctl(env, "qbox", "set-background", "recovery", "0.2")[0] == 0

    def every_osd_has_the_table():
        table = ctl_json(env, "qbox", "status")
        return table if all(osd["in_sync"] for osd in table["osds"]) and len(table["osds"]) == OSDS else None
    pushed = wait_for("every OSD to run the controller's table", every_osd_has_the_table, 60)
    for osd in range(OSDS):
        assert json.loads(ceph(env, "tell", f"osd.{osd}", "qbox", "status"))["table_epoch"] == pushed["epoch"]
    assert json.loads(ceph(env, "config-key", "get", "mgr/qbox/table"))["clients"]["client.alice"] == 0.3

    controllers.signal("q1", signal.SIGKILL)
    controllers.start("qbox", "q2")
    restarted = wait_for("the restarted qbox controller", lambda: answer(env, "qbox", "status", "-f", "json"), 90,
                         interval=1.0)
    table = json.loads(restarted)["table"]
    assert [(c["name"], c["utilization"]) for c in table["clients"]] == [("client.alice", 0.3)], table
    assert table["background_recovery"] == 0.2
    assert wait_for("the qbox controller in the service map", lambda: service_states(env, "qbox").get("q2") == "active",
                    30)


def test_rails_leases_when_a_controller_is_killed_or_stopped(cluster):
    env, controllers = cluster
    controllers.start("rails", "r1")
    wait_for("r1 to be active", lambda: service_states(env, "rails").get("r1") == "active", 60)
    controllers.start("rails", "r2")
    wait_for("r2 to stand by", lambda: service_states(env, "rails").get("r2") == "standby", 60)

    # Health without a mgr module: the controller's own command, the service map, the cluster log.
    ceph(env, "config", "set", "mgr", "mgr/rails/poll_seconds", "99", "--force")
    health = wait_for("RAILS_BAD_SETTING", lambda: ctl_json(env, "rails", "health")["checks"].get("RAILS_BAD_SETTING"),
                      60, interval=1.0)
    assert "mgr/rails/poll_seconds is '99'; accepted: 0.05..5.0" in health["detail"], health
    assert wait_for("HEALTH_WARN in the service map", lambda: json.loads(ceph(env, "service", "status", "-f", "json"))
                    ["erails-rails"]["r1"]["status"]["health"] == "HEALTH_WARN", 30)
    assert "erails-rails.r1: RAILS_BAD_SETTING: 1 mgr/rails setting(s) invalid" in ceph(env, "log", "last", "100")
    assert erails_ctl(env, "rails", "config", "set", "poll_seconds", "0.5")[0] == 0
    wait_for("RAILS_BAD_SETTING cleared", lambda: "erails-rails.r1: RAILS_BAD_SETTING cleared"
             in ceph(env, "log", "last", "100"), 60, interval=1.0)
    assert ctl_json(env, "rails", "health") == {"status": "HEALTH_OK", "checks": {}}

    status = ctl_json(env, "rails", "status")
    [pool] = [p for p in status["pools"] if p["pool"] == POOL]
    assert [c["bucket"] for c in pool["colors"]] == [f"color{osd}" for osd in range(OSDS)], pool
    status, _, err = erails_ctl(env, "rails", "status", "--format", "yaml")
    assert status == 2 and "invalid choice: 'yaml'" in err, err

    client = rados.Rados(conffile=env["CEPH_CONF"])
    client.connect(timeout=60)
    workload = AckWorkload(client, POOL, writers=2, max_size=64 << 10, prefix="standalone").start()
    try:
        held, lease_seconds = wait_for_a_leased_hold(env, OSDS)
        controllers.signal("r1", signal.SIGKILL)
        took = wait_until_released(env, OSDS, "SIGKILL of the active rails controller", lease_seconds)
        print(f"\nheld {held} at r1's SIGKILL; all released {took:.1f} s later (lease {lease_seconds:g} s); "
              f"load {os.getloadavg()}", flush=True)
        assert [osd for osd in held if lease_of(env, osd)["self_releases"] > 0], \
            {osd: lease_of(env, osd) for osd in held}

        wait_for("the standby r2 to take over", lambda: service_states(env, "rails").get("r2") == "active",
                 TAKEOVER_SECONDS + 30)
        held, lease_seconds = wait_for_a_leased_hold(env, OSDS)
        stopped = time.monotonic()
        controllers.signal("r2", signal.SIGTERM)
        assert not held_osds(env, OSDS), "a SIGTERMed controller left OSDs held"
        took = time.monotonic() - stopped
        print(f"held {held} at r2's SIGTERM; all released when it exited, {took:.1f} s later", flush=True)
        assert took < RELEASE_MARGIN_SECONDS + 60
        assert all(lease_of(env, osd)["state"] != "active" for osd in range(OSDS))
    finally:
        workload.stop()
    verify_and_disconnect(client, POOL, workload)
