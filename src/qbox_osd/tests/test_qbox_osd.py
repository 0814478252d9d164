"""libec_qbox.so inside Debian's ceph-mon and ceph-osd, on a 2-OSD local cluster of its own.

The tests run in file order on one cluster (each under 2 minutes): rados bench through QBox, the
`qbox set` command with good and garbage tables, a build off the allow-list (stock, one log
line; or refusing to start when asked), the monitor untouched, and an OSD killed with -9 and
restarted under a write workload without losing an acknowledged write.

Set by CMake (src/qbox_osd/tests/CMakeLists.txt): ERAILS_PLUGIN_DIR and ERAILS_QBOX_TEST_DIR (the
cluster's directory; by hand, a new temporary one). ERAILS_QBOX_TEST_PORT_BASE picks the ports
instead of start.sh's --port-base auto.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import rados

from ack_workload import AckWorkload, verify_acked
from eventually import wait_for

REPO = Path(__file__).resolve().parents[3]
VSTART = REPO / "vstart-configs"
PLUGIN_DIR = os.environ.get("ERAILS_PLUGIN_DIR", "")
CLUSTER_DIR = Path(os.environ.get("ERAILS_QBOX_TEST_DIR") or tempfile.mkdtemp(prefix="erails-qbox-osd-"))
PORT_BASE = os.environ.get("ERAILS_QBOX_TEST_PORT_BASE", "auto")
OSDS = 2
POOL = "qbox-test"
# The configured build's description (src/ceph_abi/builds/), passed in by ctest.
CEPH_VERSION = os.environ.get("ERAILS_CEPH_VERSION", "")
BUILD_ID = os.environ.get("ERAILS_CEPH_OSD_BUILD_ID", "")
GOOD_TABLE = {"epoch": 5,
              "clients": [{"name": "client.a", "utilization": 0.3, "owners": [4123]},
                          {"name": "client.b", "utilization": 0.5, "owners": [4124, 4125]}],
              "background_recovery": 0.1, "background_best_effort": 0.05}

pytestmark = [
    pytest.mark.skipif(not (Path(PLUGIN_DIR) / "libec_qbox.so").exists(),
                       reason=f"libec_qbox.so is not built in '{PLUGIN_DIR}' (ERAILS_PLUGIN_DIR)"),
    pytest.mark.skipif(not (CEPH_VERSION and BUILD_ID),
                       reason="ERAILS_CEPH_VERSION and ERAILS_CEPH_OSD_BUILD_ID are not set (ctest sets them)")]


def env(**extra):
    return dict(os.environ, CEPH_CONF=str(CLUSTER_DIR / "ceph.conf"), **extra)


def run(*cmd, timeout=90, **kwargs):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout,
                          env=kwargs.pop("env", env()), **kwargs)


def start(*extra, environment=None):
    """(Re)starts the stopped daemons of the cluster with QBox in the OSDs."""
    result = run(VSTART / "start.sh", "--dir", CLUSTER_DIR, "--osds", OSDS, "--port-base",
                 PORT_BASE, "--plugin-dir", PLUGIN_DIR, "--block-size", "1G", "--scheduler",
                 "qbox", "--timeout", 150, *extra, timeout=240, env=environment or env())
    assert result.returncode == 0, result.stdout + result.stderr


def tell(osd, *args):
    return run("ceph", "tell", f"osd.{osd}", "qbox", *args, timeout=60)


def status(osd):
    result = tell(osd, "status")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def pid_of(name):
    return int((CLUSTER_DIR / "run" / f"{name}.pid").read_text())


def stop_osd(osd, sig=signal.SIGTERM):
    pid = pid_of(f"osd.{osd}")
    os.kill(pid, sig)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    raise AssertionError(f"osd.{osd} (pid {pid}) did not exit within 60 s")


def log_lines(osd, text):
    path = CLUSTER_DIR / "log" / f"osd.{osd}.stdout"
    return [line for line in path.read_text(errors="replace").splitlines() if text in line]


def up_from(osd):
    """The map epoch since which `osd` is up, or None while it is down (or the map is unreadable)."""
    result = run("ceph", "osd", "dump", "--format", "json", timeout=30)
    if result.returncode != 0:
        return None
    return next((o["up_from"] for o in json.loads(result.stdout)["osds"] if o["osd"] == osd and o["up"] == 1), None)


def restart_osd(osd, *extra, environment=None, sig=signal.SIGTERM):
    """Stops `osd` with `sig` and starts it again; returns once the map shows it up again, booted
    after the stop (an OSD killed quickly can still look up in the map)."""
    before = up_from(osd)
    stop_osd(osd, sig)
    start("--no-wait", *extra, environment=environment)
    wait_for(f"osd.{osd} to be up again", lambda: (up_from(osd) or -1) > (before or -1), 120, interval=1)


@pytest.fixture(scope="module")
def cluster():
    start("--fresh")
    for cmd in (["ceph", "osd", "pool", "create", POOL, "16", "16"],
                ["ceph", "osd", "pool", "set", POOL, "size", "2"],
                ["ceph", "osd", "pool", "application", "enable", POOL, "rados"]):
        result = run(*cmd)
        assert result.returncode == 0, result.stderr
    handle = rados.Rados(conffile=str(CLUSTER_DIR / "ceph.conf"))
    handle.conf_set("rados_osd_op_timeout", "120")
    handle.connect(timeout=60)
    yield handle
    handle.shutdown()
    subprocess.run([str(VSTART / "stop.sh"), "--dir", str(CLUSTER_DIR)], stdout=sys.stderr,
                   timeout=120)


def test_rados_bench_runs_through_qbox(cluster):
    for osd in range(OSDS):
        assert log_lines(osd, f"QBox schedules this OSD's ops (build-id {BUILD_ID})")
    before = sum(status(osd)["clients"][-1]["ops"] for osd in range(OSDS))
    for mode in ("write", "seq"):
        args = ["rados", "bench", "-p", POOL, "5", mode, "-t", "8"]
        if mode == "write":
            args += ["-b", "4096", "--no-cleanup"]
        result = run(*args, timeout=90)
        assert result.returncode == 0, result.stderr
    # The counts and estimates are those of closed accounting windows, which close after the load.
    # Reads are priced from 0.1 s windows; writes need 5 s windows and a joint solve over several
    # (qbox/cost_estimator.h), which a 5 s write phase may not complete.
    reports = wait_for("the bench's ops and a rand_read estimate in qbox status", lambda: next(
        (r for r in [[status(osd) for osd in range(OSDS)]]
         if sum(x["clients"][-1]["ops"] for x in r) - before > 1000 and any(x["costs"]["rand_read"] for x in r)),
        None), 30)
    for report in reports:
        assert report["state"] == "active" and report["reason"] == ""
        assert report["build_id"] == BUILD_ID and report["ceph_version"] == CEPH_VERSION
        assert report["table_epoch"] == 0
        assert [c["name"] for c in report["clients"]] == [
            "background_recovery", "background_best_effort", "unreserved"]
    for report in reports:
        assert set(report["busy"]) == {"running", "outstanding"}, report
        assert 0 <= report["busy"]["running"] <= report["busy"]["outstanding"] <= 1, report
    # Every write of the bench (its objects and its metadata object) was at most 4 KiB and charged
    # what write_price says a write of its length costs: at the prior until a saturated window
    # with writes was fitted.
    for report in reports:
        write_price = report["write_price"]
        assert set(write_price) == {"method", "long_windows", "per_mib_windows", "per_op", "per_mib", "copies",
                                    "shortest_write", "reads_clean", "observations"}, report
        assert write_price["method"] in ("prior", "residual") and write_price["per_op"] >= 0, report
        observations = write_price["observations"]
        assert len(observations) == write_price["long_windows"], report
        assert write_price["per_mib_windows"] <= write_price["long_windows"], report
        assert [o["number"] for o in observations] == sorted({o["number"] for o in observations}), report
        assert all(o["ops"] > 0 and o["mib"] >= 0 and o["residual"] >= 0 for o in observations), report
        assert all(o["client_ops"] <= o["ops"] and o["client_mib"] <= o["mib"] for o in observations), report
        assert write_price["copies"] >= 1, report
        # The shortest write bounds a per-op term only: without one there is none.
        assert write_price["shortest_write"] >= 0, report
        assert write_price["per_op"] > 0 or write_price["shortest_write"] == 0, report
        # The writes no client paid for are replica sub-ops, each the write's length plus its
        # transaction (hundreds of bytes): not the OSD's peering events, whose cost is 10.
        assert all((o["mib"] - o["client_mib"]) * 1048576 >= 256 * (o["ops"] - o["client_ops"]) - 1e-3
                   for o in observations), report
        if write_price["method"] == "prior":
            assert write_price["long_windows"] == 0, report
            unreserved = report["clients"][-1]
            if "write" in unreserved.get("price", {}):
                largest = write_price["per_op"] + write_price["per_mib"] * 4096 / 1048576
                assert write_price["per_op"] <= unreserved["price"]["write"] <= largest * (1 + 1e-9), report


def test_dump_op_pq_state_shows_each_shards_queue(cluster):
    result = run("ceph", "daemon", "osd.0", "dump_op_pq_state", timeout=60)
    assert result.returncode == 0, result.stderr
    shards = json.loads(result.stdout)
    assert shards and all(name.startswith("OSD:ShardedOpWQ:") for name in shards), shards
    for shard in shards.values():
        assert shard["scheduler"] == "qbox" and shard["table_epoch"] >= 0, shards
        assert 0 <= shard["queued_immediate"] <= shard["queued"], shards
        queue = json.loads(shard["queue"])
        assert queue["scheduler"] == "qbox" and "frontier" in queue, queue
        assert {"0", "1", "2"} <= {c["id"] for c in queue["clients"]}, queue
        lead = json.loads(shard["write_lead"])
        assert set(lead) == {"seconds", "drain_rate", "limit", "held"}, lead
        assert lead["seconds"] >= 0 and 0 <= lead["drain_rate"] <= 1 and lead["limit"] > 0, lead


def test_qbox_set_accepts_a_table_and_refuses_garbage(cluster):
    result = tell(0, "set", json.dumps(GOOD_TABLE))
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    assert reply["table_epoch"] == 5
    by_name = {c["name"]: c for c in reply["clients"]}
    assert by_name["client.b"]["owners"] == [4124, 4125]
    assert by_name["client.a"]["target"] == 0.3
    assert abs(by_name["unreserved"]["target"] - 0.05) < 1e-9
    garbage = {
        "not json": "table: is not valid JSON",
        "{}": "epoch: is missing",
        json.dumps(dict(GOOD_TABLE, epoch=0)): "epoch: got 0; expected an integer >= 1",
        json.dumps(dict(GOOD_TABLE, background_recovery=0.9)):
            "clients: sum of every utilization (clients and both background classes) is 1.75",
        json.dumps(dict(GOOD_TABLE, clients=[{"name": "x", "utilization": -1, "owners": []}])):
            "clients[0].utilization: got -1; expected a fraction of device time in (0, 1]",
        json.dumps(dict(GOOD_TABLE, clients=[{"name": "x", "utilization": 0.1, "owners": ["7"]}])):
            "clients[0].owners[0]: got \"7\"; expected a global id",
        "x" * 100000: "table: is not valid JSON",
    }
    for text, message in garbage.items():
        result = tell(0, "set", text)
        assert result.returncode == 22, (text[:80], result.stdout, result.stderr)
        assert "Error EINVAL: " + message in result.stderr, (text[:80], result.stderr)
    # A refused table leaves the accepted one in force; the daemon is still serving.
    assert status(0)["table_epoch"] == 5
    assert status(1)["table_epoch"] == 0
    daemon = run("ceph", "daemon", "osd.1", "qbox", "set", json.dumps(GOOD_TABLE))
    assert daemon.returncode == 0, daemon.stderr
    assert json.loads(daemon.stdout)["table_epoch"] == 5


def test_monitor_loads_the_library_and_stays_stock(cluster):
    maps = Path(f"/proc/{pid_of('mon.a')}/maps").read_text()
    assert "libec_qbox.so" in maps
    mon_out = (CLUSTER_DIR / "log" / "mon.a.stdout").read_text(errors="replace")
    assert "erails qbox" not in mon_out
    result = run("ceph", "daemon", "mon.a", "qbox", "status")
    assert result.returncode != 0
    assert run("ceph", "health").returncode == 0


def test_a_build_off_the_allow_list_runs_stock(cluster, tmp_path):
    fake = tmp_path / "allow-list"
    fake.write_text("# not the running ceph-osd\n"
                    "00112233445566778899aabbccddeeff00112233 41574c8dbe4816000041564c8d35\n")
    refusals = len(log_lines(1, "runs its stock scheduler"))
    restart_osd(1, environment=env(ERAILS_QBOX_ALLOW_LIST=str(fake)))
    lines = log_lines(1, "runs its stock scheduler")
    assert len(lines) == refusals + 1
    assert lines[-1] == (f"erails qbox: not scheduling, this OSD runs its stock scheduler: "
                         f"build-id: ceph-osd build-id {BUILD_ID} is not on the allow-list of "
                         "builds whose layouts were checked")
    # What an OSD without the commands answers (the mgr module reads this as "stock").
    result = tell(1, "status")
    assert result.returncode == 22 and "no valid command found" in result.stderr, result.stderr
    bench = run("rados", "bench", "-p", POOL, "3", "write", "-b", "4096", "-t", "4")
    assert bench.returncode == 0, bench.stderr

    # Asked to require QBox, the same OSD refuses to start instead.
    stop_osd(1)
    required = run("ceph-osd", "-f", "-c", CLUSTER_DIR / "ceph.conf", "-i", "1",
                   env=env(ERAILS_QBOX_ALLOW_LIST=str(fake), ERAILS_QBOX_REQUIRE="1"), timeout=60)
    assert required.returncode != 0
    assert "refusing to start (ERAILS_QBOX_REQUIRE=1)" in required.stdout + required.stderr
    before = up_from(1)
    start("--no-wait")
    wait_for("osd.1 to be up again", lambda: (up_from(1) or -1) > (before or -1), 120, interval=1)
    assert status(1)["state"] == "active"


def test_kill_and_restart_under_qbox_keeps_acknowledged_writes(cluster):
    assert tell(0, "set", json.dumps(GOOD_TABLE)).returncode == 0
    workload = AckWorkload(cluster, POOL, writers=4, max_size=64 * 1024, prefix="qbox").start()
    try:
        wait_for("20 acknowledged writes before the kill", lambda: len(workload.acked) >= 20, 60)
        restart_osd(0, sig=signal.SIGKILL)
        restarted = len(workload.acked)
        wait_for("20 more acknowledged writes after the restart", lambda: len(workload.acked) >= restarted + 20, 120)
    finally:
        workload.stop()
    assert verify_acked(cluster, POOL, workload.acked) == []
    # Nothing persists: the restarted OSD is back on the defaults until the mgr pushes a table.
    after = status(0)
    assert after["state"] == "active" and after["table_epoch"] == 0
