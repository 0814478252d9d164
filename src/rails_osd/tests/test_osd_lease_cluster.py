"""The OSD side of the Rails lease and its holds, on every Ceph build where the lease is checked,
without the rails mgr module (which Debian 13's ceph-mgr cannot run): the test sends an OSD exactly
what the module sends (settings.hold_args, lease.grant_command) through `ceph tell`, and reads
BlueStore's deferred-write counters through rails.accounting, which knows each build's names.

A local cluster of its own: 2 BlueStore OSDs loading this build's libec_erails.so, a replicated
pool of size 2 (every PG on both OSDs), osd.0 the one held. Ports from start.sh's --port-base auto
(RAILS_OSD_LEASE_PORT_BASE overrides), /tmp/rails-osd-lease-*; the cluster is stopped at the end
even on failure. Selected with -m cluster.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from datetime import datetime, timezone

import pytest
import rados

from ack_workload import AckWorkload, verify_acked, write_acked
from eventually import wait_for
from rails.accounting import IN_TRANSIT_TXCS, counters_from_perf_dump, kick_applied
from rails.lease import grant_command
from rails.settings import BATCH_OPS_MAX, RELEASED_BATCH_OPS, Settings, hold_args

pytestmark = pytest.mark.cluster

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PORT_BASE = os.environ.get("RAILS_OSD_LEASE_PORT_BASE", "auto")
POOL = "leased"
HELD = 0
# BlueStore applies a hold by itself after this long (settings.hold_args); far beyond the tests'
# leases, so that only a lease ends a hold here.
DEFER_INTERVAL_SECONDS = 600
# A write is deferred (so holdable) below prefer_deferred_size; 4 KiB is the module's case.
WRITE_BYTES = 4096
# What a lease may take beyond its length to end a hold: the lease thread's wake-up and the
# release's three admin-socket commands, on a loaded 2-core machine.
RELEASE_MARGIN_SECONDS = 10.0


def tell(env, osd, *args, check=True):
    done = subprocess.run(["ceph", "tell", f"osd.{osd}", *args], env=env, capture_output=True, text=True,
                          timeout=60)
    assert not check or done.returncode == 0, f"ceph tell osd.{osd} {' '.join(args)}: {done.stderr}"
    return done


def batch_ops(env, osd):
    answer = tell(env, osd, "config", "get", "bluestore_deferred_batch_ops", "-f", "json").stdout
    return int(json.loads(answer)["bluestore_deferred_batch_ops"])


def counters(env, osd):
    found = counters_from_perf_dump(json.loads(tell(env, osd, "perf", "dump", "bluestore", "-f", "json").stdout))
    assert found is not None, f"osd.{osd}: no deferred-write counters this test knows in its perf dump"
    return found


def lease(env, osd):
    return json.loads(tell(env, osd, "rails", "lease", "-f", "json").stdout)


def grant(env, osd, seconds):
    command = grant_command(seconds, kick_bytes=WRITE_BYTES)
    return json.loads(tell(env, osd, "rails", "lease", *command["args"], "-f", "json").stdout)


def hold(env, osd):
    tell(env, osd, "injectargs", *hold_args(Settings(), DEFER_INTERVAL_SECONDS))
    assert batch_ops(env, osd) == BATCH_OPS_MAX


@pytest.fixture(scope="module")
def cluster():
    plugin_dir = os.environ.get("ERAILS_PLUGIN_DIR")
    if not plugin_dir or not os.path.exists(os.path.join(plugin_dir, "libec_erails.so")):
        pytest.skip("ERAILS_PLUGIN_DIR must name the directory holding the built libec_erails.so")
    directory = tempfile.mkdtemp(prefix="rails-osd-lease-", dir="/tmp")
    vstart = os.path.join(REPO, "vstart-configs")
    try:
        subprocess.run([os.path.join(vstart, "start.sh"), "--dir", directory, "--osds", "2", "--port-base",
                        PORT_BASE, "--plugin-dir", plugin_dir, "--block-size", "1G"], check=True, timeout=240)
        env = dict(os.environ, CEPH_CONF=os.path.join(directory, "ceph.conf"))
        subprocess.run(["ceph", "osd", "pool", "create", POOL, "8", "8", "replicated"], env=env, check=True,
                       capture_output=True, timeout=60)
        subprocess.run(["ceph", "osd", "pool", "set", POOL, "size", "2"], env=env, check=True,
                       capture_output=True, timeout=60)
        client = rados.Rados(conffile=env["CEPH_CONF"])
        client.conf_set("rados_osd_op_timeout", "120")
        client.connect(timeout=60)
        yield env, directory, client
        client.shutdown()
    finally:
        subprocess.run(["sh", "-c", "grep -h 'erails rails' $1/log/osd.*.log", "sh", directory])
        subprocess.run([os.path.join(vstart, "stop.sh"), "--dir", directory], timeout=120)
        shutil.rmtree(directory, ignore_errors=True)


def test_a_bad_grant_is_refused_naming_the_key(cluster):
    env, _, _ = cluster
    for words, key in ((["seconds=0", "release=bluestore_deferred_batch_ops=1"], "seconds"),
                       (["seconds=5", "release=nothing"], "release"),
                       (["seconds=5"], "release"),
                       (["seconds=5", "release=a=1", "kick=lots"], "kick")):
        refused = tell(env, HELD, "rails", "lease", *words, check=False)
        assert refused.returncode != 0, words
        assert key in refused.stderr and "accepted" in refused.stderr, (words, refused.stderr)
    assert lease(env, HELD)["state"] != "active"


def test_a_held_osd_applies_nothing_until_its_lease_runs_out(cluster):
    env, _, client = cluster
    seconds = 12.0
    hold(env, HELD)
    at_hold = counters(env, HELD)
    granted = time.monotonic()
    assert grant(env, HELD, seconds)["state"] == "active"
    written = write_acked(client, POOL, [WRITE_BYTES] * 200, "held")
    assert time.monotonic() - granted < seconds, "the writes took the whole lease: nothing was held"
    held = counters(env, HELD)
    assert held.applied == at_hold.applied, "BlueStore applied deferred writes during the hold"
    assert held.unapplied_txcs() + IN_TRANSIT_TXCS >= len(written), held
    assert batch_ops(env, HELD) == BATCH_OPS_MAX

    wait_for("osd.0 released by its own lease", lambda: batch_ops(env, HELD) == RELEASED_BATCH_OPS,
             seconds + RELEASE_MARGIN_SECONDS - (time.monotonic() - granted), interval=0.5)
    assert lease(env, HELD)["self_releases"] >= 1
    wait_for("osd.0's held writes on its data device", lambda: kick_applied(held, counters(env, HELD)), 30)
    assert not verify_acked(client, POOL, written)


def test_renewals_keep_the_hold_and_their_end_releases_it(cluster):
    env, _, client = cluster
    seconds = 4.0
    hold(env, HELD)
    before = lease(env, HELD)["self_releases"]
    workload = AckWorkload(client, POOL, writers=2, max_size=WRITE_BYTES, prefix="renewed").start()
    try:
        renewed_until = time.monotonic() + 3 * seconds
        while time.monotonic() < renewed_until:
            # Taken before the grant is sent: the OSD starts the lease when it arrives, no earlier,
            # and ceph-osd's steady clock is this monotonic clock.
            last_grant = time.monotonic()
            assert grant(env, HELD, seconds)["state"] == "active"
            time.sleep(seconds / 4)
            assert batch_ops(env, HELD) == BATCH_OPS_MAX, "released although renewed in time"
        wait_for("osd.0 released once its renewals stopped", lambda: batch_ops(env, HELD) == RELEASED_BATCH_OPS,
                 seconds + RELEASE_MARGIN_SECONDS, interval=0.5)
        assert time.monotonic() - last_grant >= seconds, "released before its lease ran out"
    finally:
        workload.stop()
    assert lease(env, HELD)["self_releases"] == before + 1
    assert workload.acked and not verify_acked(client, POOL, workload.acked)


def test_an_osd_killed_while_held_replays_every_acknowledged_write(cluster):
    env, directory, client = cluster
    hold(env, HELD)
    grant(env, HELD, 120)
    written = write_acked(client, POOL, [WRITE_BYTES] * 500, "killed")
    assert counters(env, HELD).unapplied_txcs() + IN_TRANSIT_TXCS >= len(written)
    with open(os.path.join(directory, "run", f"osd.{HELD}.pid")) as f:
        pid = int(f.read())
    os.kill(pid, signal.SIGKILL)
    wait_for("the killed OSD gone", lambda: not os.path.exists(f"/proc/{pid}"), 60)
    subprocess.run(["ceph-osd", "-c", env["CEPH_CONF"], "-i", str(HELD)], env=env, check=True,
                   capture_output=True, timeout=120)
    wait_for("the restarted OSD answering", lambda: tell(env, HELD, "version", check=False).returncode == 0, 120,
             interval=1.0)
    # The hold and the lease lived in the killed process only.
    assert batch_ops(env, HELD) != BATCH_OPS_MAX
    assert lease(env, HELD)["grants"] == 0
    assert not verify_acked(client, POOL, written)

    scrub_asked = datetime.now(timezone.utc)
    subprocess.run(["ceph", "osd", "pool", "deep-scrub", POOL], env=env, check=True, capture_output=True, timeout=60)

    def pgs_deep_scrubbed():
        stats = json.loads(subprocess.run(["ceph", "pg", "ls-by-pool", POOL, "-f", "json"], env=env, check=True,
                                          capture_output=True, text=True, timeout=60).stdout)["pg_stats"]
        stamps = [datetime.strptime(pg["last_deep_scrub_stamp"], "%Y-%m-%dT%H:%M:%S.%f%z") for pg in stats]
        return stats if all(stamp >= scrub_asked for stamp in stamps) else None
    stats = wait_for("every PG of the pool deep-scrubbed again", pgs_deep_scrubbed, 180, interval=2.0)
    assert all(pg["state"] == "active+clean" for pg in stats), [(pg["pgid"], pg["state"]) for pg in stats]
