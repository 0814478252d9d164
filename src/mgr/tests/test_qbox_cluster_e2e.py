"""End to end on a real local cluster (vstart-configs/start.sh, 2 BlueStore OSDs): the qbox module
enabled from this source tree; its commands and their errors, the push and the mapping of cephx
names to the global ids the OSDs see, and a mgr restart keeping the table.

Without QBOX_PLUGIN_DIR the OSDs run stock and the test expects QBOX_OSD_STOCK naming both. With
QBOX_PLUGIN_DIR naming the directory of a built libec_qbox.so, the cluster is started with
`start.sh --scheduler qbox` and every OSD must report the module's table epoch and the client's
share, with the global id of its session, after a mgr restart and after an OSD restart too; after a
short rados bench gives the OSDs a random-read estimate, a throughput SLA for client.bob becomes a
utilization at the dearest OSD's estimate, the OSDs take it, once bob's own reads are measured
they price it instead, and it survives the mgr restart.
Without the library, the SLA is refused with EAGAIN (no OSD estimates anything).

Selected with -m cluster. Ports QBOX_E2E_PORT_BASE.. (default: start.sh's --port-base auto) and /tmp/qbox-mgr-e2e-*; the
cluster is stopped at the end even on failure.
"""
import json
import os
import subprocess

import pytest

from eventually import wait_for
from local_mgr import REPO, ceph, enable_from_source, local_cluster, restart_mgr

pytestmark = pytest.mark.cluster

PORT_BASE = os.environ.get("QBOX_E2E_PORT_BASE", "auto")
PLUGIN_DIR = os.environ.get("QBOX_PLUGIN_DIR")
OSDS = 2
# The module's round (mgr/qbox/push_seconds) is set to this, so the test waits seconds, not tens.
PUSH_SECONDS = "2"
# The mgr's mon caps the module needs to read the monitors' sessions (doc/dev/qbox-mgr.md).
MGR_CAPS = ["mon", "allow profile mgr, allow command sessions", "osd", "allow *", "mds", "allow *"]


def ceph_fails(env, *args):
    done = subprocess.run(["ceph", *args], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0, f"ceph {' '.join(args)} succeeded: {done.stdout}"
    return done.returncode, done.stderr


def qbox_status(env):
    done = subprocess.run(["ceph", "qbox", "status", "--format", "json"], env=env, capture_output=True, text=True,
                          timeout=60)
    return json.loads(done.stdout) if done.returncode == 0 else None


@pytest.fixture(scope="module")
def cluster():
    if PLUGIN_DIR and not os.path.exists(os.path.join(PLUGIN_DIR, "libec_qbox.so")):
        pytest.fail(f"QBOX_PLUGIN_DIR={PLUGIN_DIR} holds no libec_qbox.so")
    start = ["--osds", str(OSDS), "--port-base", PORT_BASE, "--block-size", "1G", "--timeout", "120"]
    if PLUGIN_DIR:
        start += ["--plugin-dir", PLUGIN_DIR, "--scheduler", "qbox"]
    with local_cluster("qbox-mgr-e2e-", start, 200, "grep -h qbox $1/log/mgr.x.log | tail -30") as (env, cluster_dir):
        # The mgr restart that loads the module from the source tree also gives it these caps.
        ceph(env, "auth", "caps", "mgr.x", *MGR_CAPS)
        enable_from_source(env, cluster_dir, "qbox")
        # Ceph knows the module's options once the mgr has loaded it.
        wait_for("mgr/qbox/push_seconds to be accepted", lambda: subprocess.run(
            ["ceph", "config", "set", "mgr", "mgr/qbox/push_seconds", PUSH_SECONDS], env=env,
            capture_output=True, timeout=60).returncode == 0, 60)
        wait_for("ceph qbox status", lambda: qbox_status(env), 90)
        yield env, cluster_dir


def test_commands_errors_push_and_a_mgr_restart(cluster):
    env, cluster_dir = cluster
    keyring = os.path.join(cluster_dir, "alice.keyring")
    with open(keyring, "w") as f:
        f.write(ceph(env, "auth", "get-or-create", "client.alice", "mon", "allow r", "osd", "allow rwx"))
    ceph(env, "auth", "get-or-create", "client.bob", "mon", "allow r", "osd", "allow rwx")
    ceph(env, "qbox", "set", "client.alice", "0.3")
    ceph(env, "qbox", "set-background", "recovery", "0.2")

    refusals = [
        (("qbox", "set", "alice", "0.3"), "client is 'alice'; accepted: a cephx client name"),
        (("qbox", "set", "client.nobody", "0.3"), "which has no cephx key"),
        (("qbox", "set", "client.alice", "0"), "utilization is '0'; accepted: a fraction of device time"),
        (("qbox", "set", "client.alice", "1.5"), "utilization is '1.5'"),
        (("qbox", "set", "client.alice", "lots"), "utilization is 'lots'"),
        (("qbox", "set", "client.alice", "0.8"), "admission refused: with client.alice at 0.8 the sum of "
                                                 "utilizations would be 1.05"),
        (("qbox", "set-background", "scrub", "0.1"), "class is 'scrub'; accepted: recovery or best_effort"),
        (("qbox", "rm", "client.bob"), "client client.bob is not in the qbox table"),
        (("qbox", "status", "--format", "yaml"), "format is 'yaml'; accepted: plain, json, json-pretty"),
        (("qbox", "set-throughput", "client.nobody", "20", "4096", "read"), "which has no cephx key"),
        (("qbox", "set-throughput", "client.bob", "0", "4096", "read"), "iops is '0'; accepted: a number of "
                                                                        "operations per second greater than 0"),
        (("qbox", "set-throughput", "client.bob", "nan", "4096", "read"), "iops is 'nan'"),
        (("qbox", "set-throughput", "client.bob", "20", "4k", "read"), "size is '4k'; accepted: a whole number of "
                                                                       "bytes from 1 to 134217728"),
        (("qbox", "set-throughput", "client.bob", "20", "4096", "erase"), "op is 'erase'; accepted: read or write"),
        (("qbox", "set-throughput", "client.bob", "20", "4096", "read", "sequential"),
         "access is 'sequential'; accepted: seq or rand (default rand)"),
    ]
    for args, message in refusals:
        _, stderr = ceph_fails(env, *args)
        assert message in stderr, (args, stderr)
    assert "The sum now is 0.55" in ceph_fails(env, "qbox", "set", "client.alice", "0.8")[1]
    if not any((osd.get("costs") or {}).get("rand_read") for osd in qbox_status(env)["osds"]):
        code, stderr = ceph_fails(env, "qbox", "set-throughput", "client.bob", "20", "4096", "read")
        assert code == 11 and "no OSD has estimated the cost of a rand_read op yet" in stderr, stderr

    # A session of alice: its global id must reach the table the OSDs get.
    ceph(env, "osd", "pool", "create", "qboxpool", "8", "8", "replicated")
    ceph(env, "osd", "pool", "set", "qboxpool", "size", "2", "--yes-i-really-mean-it")
    bench = subprocess.Popen(["rados", "-n", "client.alice", "--keyring", keyring, "-p", "qboxpool", "bench", "40",
                              "write", "-b", "4096", "-t", "2"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        # A client may open a newer session than the one the table mapped (the module maps them
        # again every round), so the table and the monitor are read together until they agree.
        def alice_mapped():
            status = qbox_status(env)
            if not status or not status["table"]["clients"][0]["owners"]:
                return None
            sessions = json.loads(ceph(env, "tell", "mon.a", "sessions", "-f", "json"))
            alive = {s["global_id"] for s in sessions if s["entity_name"] == "client.alice"}
            return status if alive and set(status["table"]["clients"][0]["owners"]) >= alive else None
        status = wait_for("the table to own every session of client.alice the monitor has", alice_mapped, 60)
        [alice] = status["table"]["clients"]
        assert alice["name"] == "client.alice" and alice["utilization"] == 0.3
        if PLUGIN_DIR:
            check_osds_took_the_table(env, alice["owners"])
        else:
            health = wait_for("QBOX_OSD_STOCK", lambda: json.loads(ceph(env, "health", "detail", "-f", "json"))
                              ["checks"].get("QBOX_OSD_STOCK"), 60)
            assert [line["message"].split(":")[0] for line in health["detail"]] == [f"osd.{n}" for n in range(OSDS)]
            assert "`qbox status` is not a command of this OSD" in health["detail"][0]["message"]
            assert [osd["state"] for osd in qbox_status(env)["osds"]] == ["no library"] * OSDS
    finally:
        bench.kill()
        bench.wait()
    if PLUGIN_DIR:
        set_a_throughput_sla(env, cluster_dir)

    before = qbox_status(env)
    restart_mgr(env, cluster_dir)
    after = wait_for("ceph qbox status after the mgr restart", lambda: qbox_status(env), 90)
    assert after["table"]["clients"][0]["utilization"] == 0.3
    assert after["table"]["background_recovery"] == 0.2 and after["epoch"] >= before["epoch"]
    if PLUGIN_DIR:
        [bob] = after["slas"]
        assert (bob["name"], bob["iops"], bob["size"], bob["op"], bob["access"]) == \
            ("client.bob", 20.0, 4096, "read", "rand")
        assert bob["utilization"] == next(c["utilization"] for c in after["table"]["clients"]
                                          if c["name"] == "client.bob")
    if PLUGIN_DIR:
        check_osds_took_the_table(env, None)
        # An OSD keeps nothing across a restart; the module gives it the table again.
        with open(os.path.join(cluster_dir, "run", "osd.1.pid")) as f:
            os.kill(int(f.read().strip()), 9)
        subprocess.run([os.path.join(REPO, "vstart-configs", "start.sh"), "--dir", cluster_dir, "--plugin-dir",
                        PLUGIN_DIR, "--scheduler", "qbox", "--timeout", "120"], check=True, timeout=200,
                       stdout=subprocess.DEVNULL)
        check_osds_took_the_table(env, None)
    if PLUGIN_DIR:
        ceph(env, "qbox", "rm", "client.bob")
    ceph(env, "qbox", "rm", "client.alice")
    assert wait_for("the table without alice", lambda: (qbox_status(env) or {"table": {"clients": [0]}})
                    ["table"]["clients"] == [], 30) is not None


def set_a_throughput_sla(env, cluster_dir):
    """Reads give the OSDs a rand_read estimate; client.bob's 20 IOPS of 4 KiB random reads then
    become 20 x the dearest OSD's estimate, which every OSD takes and the status shows; once bob's
    own reads have completed, the dearest OSD's measured price of them converts the SLA instead."""
    for phase in (["write", "-b", "4096", "--no-cleanup"], ["rand"]):
        subprocess.run(["rados", "-p", "qboxpool", "bench", "8", *phase, "-t", "4"], env=env, check=True, timeout=120,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for("a rand_read estimate in qbox status", lambda: next(
        (s for s in [qbox_status(env)] if s and any((o.get("costs") or {}).get("rand_read") for o in s["osds"])),
        None), 60)
    done = subprocess.run(["ceph", "qbox", "set-throughput", "client.bob", "20", "4096", "read"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("client.bob: 20 IOPS of 4096-byte random reads -> utilization 20 x "), done.stderr
    [bob] = qbox_status(env)["slas"]
    assert bob["cost_class"] == "rand_read" and bob["derived"] == pytest.approx(20 * bob["cost_seconds"])
    assert f"  {'client.bob':<24} SLA 20 IOPS of 4096-byte random reads -> " in ceph(env, "qbox", "status")

    def every_osd_has_bobs_utilization():
        utilization = next(c["utilization"] for c in qbox_status(env)["table"]["clients"]
                           if c["name"] == "client.bob")
        for osd in range(OSDS):
            status = json.loads(ceph(env, "tell", f"osd.{osd}", "qbox", "status"))
            if [c["target"] for c in status["clients"] if c["name"] == "client.bob"] != [pytest.approx(utilization)]:
                return False
        return True
    wait_for("every OSD to take client.bob's SLA utilization", every_osd_has_bobs_utilization, 60)

    keyring = os.path.join(cluster_dir, "bob.keyring")
    with open(keyring, "w") as f:
        f.write(ceph(env, "auth", "get", "client.bob"))
    bench = subprocess.Popen(["rados", "-n", "client.bob", "--keyring", keyring, "-p", "qboxpool", "bench", "60",
                              "rand", "-t", "2"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        bob = wait_for("client.bob's SLA priced at its own reads", lambda: next(
            (sla for sla in (qbox_status(env) or {"slas": []})["slas"] if sla["cost_source"] == "client"), None), 60)
    finally:
        bench.kill()
        bench.wait()
    assert bob["cost_class"] == "read" and bob["derived"] == pytest.approx(20 * bob["cost_seconds"])
    prices = [json.loads(ceph(env, "tell", f"osd.{osd}", "qbox", "status")) for osd in range(OSDS)]
    assert any("read" in (c.get("price") or {}) for status in prices for c in status["clients"]
               if c["name"] == "client.bob"), prices


def check_osds_took_the_table(env, owners):
    """Every OSD reports the module's epoch and alice at 0.3 (with owners, if given)."""
    def all_took():
        epoch = qbox_status(env)["epoch"]
        for osd in range(OSDS):
            status = json.loads(ceph(env, "tell", f"osd.{osd}", "qbox", "status"))
            if status["state"] != "active" or status["table_epoch"] != epoch:
                return False
            alice = [c for c in status["clients"] if c["name"] == "client.alice"]
            if not alice or alice[0]["target"] != pytest.approx(0.3):
                return False
            if owners is not None and not set(owners) <= set(alice[0]["owners"]):
                return False
        return True
    wait_for("every OSD to take the table", all_took, 60)
    health = json.loads(ceph(env, "health", "detail", "-f", "json"))
    assert "QBOX_OSD_STOCK" not in health.get("checks", {}), health
