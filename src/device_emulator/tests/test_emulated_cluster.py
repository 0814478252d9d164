"""Smoke test of the emulator under real OSDs: a 3-OSD cluster started with
vstart-configs/start.sh --emulate-ssd, a little rados bench, then each OSD's stats must show
requests charged on its data device and no errors, status.sh one line per OSD, slow-device.sh must
slow one OSD's device and make it healthy again (and refuse bad arguments), a restart without the
flag must keep the emulator, and the cluster must stop cleanly.

Needs ERAILS_EMULATOR_LIB (the built library), which ctest sets (device_emulator.cluster_smoke);
ERAILS_EMULATOR_TEST_PORT_BASE picks the ports instead of start.sh's --port-base auto.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from eventually import wait_for

REPO = Path(__file__).resolve().parents[3]
VSTART = REPO / "vstart-configs"
OSDS = 3
TIME_SCALE = "2"


def run(*args, env=None, timeout=180):
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True,
                          env=env, timeout=timeout)


def osd_pids(directory):
    pids = {}
    for i in range(OSDS):
        try:
            pids[i] = int((directory / "run" / f"osd.{i}.pid").read_text())
        except (FileNotFoundError, ValueError):
            pass
    return {i: p for i, p in pids.items() if Path(f"/proc/{p}").exists()}


def stats(directory, osd):
    try:
        return json.loads((directory / "emulator" / f"osd.{osd}.json").read_text())
    except FileNotFoundError:
        return None


@pytest.fixture
def cluster():
    lib = os.environ.get("ERAILS_EMULATOR_LIB")
    if not lib or not Path(lib).is_file():
        pytest.skip("ERAILS_EMULATOR_LIB does not name the built liberails_device_emulator.so")
    directory = Path(tempfile.mkdtemp(prefix="erails-emulated-"))
    port_base = os.environ.get("ERAILS_EMULATOR_TEST_PORT_BASE", "auto")
    start = [VSTART / "start.sh", "--fresh", "--dir", directory, "--osds", OSDS, "--port-base", port_base,
             "--block-size", "1G", "--emulate-ssd", "--emulate-time-scale", TIME_SCALE, "--emulator-lib", lib,
             "--timeout", "120"]
    try:
        run(*start)
    except subprocess.CalledProcessError as e:
        if (directory / "cluster.params").exists():
            subprocess.run([str(VSTART / "stop.sh"), "--dir", str(directory)], capture_output=True)
        pytest.fail(f"start.sh failed: {e.stderr}; logs in {directory}/log")
    yield directory
    run(VSTART / "stop.sh", "--dir", directory)
    shutil.rmtree(directory, ignore_errors=True)


def test_requests_reach_the_model_on_every_osd(cluster):
    env = dict(os.environ, CEPH_CONF=str(cluster / "ceph.conf"))
    run("ceph", "osd", "pool", "create", "smoke", "8", "8", env=env)
    run("ceph", "osd", "pool", "set", "smoke", "size", "3", env=env)
    run("rados", "-p", "smoke", "bench", "4", "write", "-b", "16384", "-t", "4", "--no-cleanup", env=env)
    run("rados", "-p", "smoke", "bench", "3", "rand", "-t", "4", env=env)

    # An OSD writes its stats from its own I/O, at most once a second, so the last of the bench may
    # not be in them yet: a small write to every OSD (the pool has size 3) makes them write again.
    def every_osd_reports_the_bench():
        current = [stats(cluster, i) for i in range(OSDS)]
        if all(s and s["requests"]["write"] > 0 for s in current) and sum(s["requests"]["read"] for s in current):
            return True
        run("rados", "-p", "smoke", "put", "stats-nudge", "/etc/hostname", env=env)
        return False
    wait_for("every OSD's emulator stats to show the bench's writes, and some OSD's its reads",
             every_osd_reports_the_bench, 60)

    reads = 0
    for i in range(OSDS):
        s = stats(cluster, i)
        assert s["model"] == "ssd emulated-intel510" and s["time_scale"] == float(TIME_SCALE), s
        assert s["device"] == str(cluster / f"osd.{i}" / "data.img"), s
        assert s["requests"]["write"] > 0, f"osd.{i}: no write charged: {s}"
        assert s["errors"] == 0 and s["requests"]["not_accepted"] == 0, f"osd.{i}: {s}"
        assert sum(s["latency_us"]["modeled"]) > 0, s
        reads += s["requests"]["read"]
        log = (cluster / "log" / f"osd.{i}.emulator.log").read_text()
        assert "on: model ssd emulated" in log and "io_uring refused" in log, log
    assert reads > 0, "no read reached any OSD's model"

    status = run(VSTART / "status.sh", "--dir", cluster).stdout
    lines = [l for l in status.splitlines() if " emulated ssd emulated-intel510 x2:" in l]
    assert len(lines) == OSDS, status

    # A fail-slow drive on demand: osd.0's device 50 times slower while it runs, then healthy.
    slow = VSTART / "slow-device.sh"
    for bad, message in ((["--osd", "0", "--slowdown", "0"], "--slowdown must be a number from 1"),
                         (["--osd", "0", "--slowdown", "1001"], "--slowdown must be a number from 1"),
                         (["--osd", "x", "--slowdown", "2"], "--osd must be an OSD id"),
                         (["--osd", "9", "--slowdown", "2"], "osd.9 of"),
                         (["--osd", "0", "--model", "maybe"], "--model must be on or off"),
                         (["--osd", "0"], "give --slowdown, --model or both")):
        done = subprocess.run([str(slow), "--dir", str(cluster), *bad], capture_output=True, text=True)
        assert done.returncode != 0 and message in done.stderr, (bad, done.stderr)
    for factor in ("50", "1"):
        run(slow, "--dir", cluster, "--osd", "0", "--slowdown", factor)

        def osd0_reports_the_slowdown():
            s = stats(cluster, 0)
            if s and s["slowdown"] == float(factor):
                return True
            run("rados", "-p", "smoke", "put", "stats-nudge", "/etc/hostname", env=env)
            return False
        wait_for(f"osd.0's emulator stats to show slowdown {factor}", osd0_reports_the_slowdown, 60)
        assert f"slowdown {factor} from " in (cluster / "log" / "osd.0.emulator.log").read_text()
        slowed = "50 times slower now" in run(VSTART / "status.sh", "--dir", cluster).stdout
        assert slowed == (factor == "50")
    assert all(stats(cluster, i)["slowdown"] == 1 for i in (1, 2))

    # The model switched off while the OSD runs, and on again; the slowdown given before stays.
    run(slow, "--dir", cluster, "--osd", "0", "--slowdown", "3")
    for model in ("off", "on"):
        run(slow, "--dir", cluster, "--osd", "0", "--model", model)

        def osd0_reports_the_model():
            s = stats(cluster, 0)
            if s and s["model_on"] == (model == "on") and s["slowdown"] == 3:
                return True
            run("rados", "-p", "smoke", "put", "stats-nudge", "/etc/hostname", env=env)
            return False
        wait_for(f"osd.0's emulator stats to show the model {model}", osd0_reports_the_model, 60)
        assert f"model {model} from " in (cluster / "log" / "osd.0.emulator.log").read_text()
        assert ("model off now" in run(VSTART / "status.sh", "--dir", cluster).stdout) == (model == "off")
    run(slow, "--dir", cluster, "--osd", "0", "--slowdown", "1")

    # cluster.params keeps the emulator: a restart without the flag still preloads it.
    run(VSTART / "stop.sh", "--dir", cluster)
    assert not osd_pids(cluster)
    run(VSTART / "start.sh", "--dir", cluster, "--no-wait")
    pids = osd_pids(cluster)
    assert len(pids) == OSDS
    for i, pid in pids.items():
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert any(e.startswith(b"LD_PRELOAD=") and e.endswith(b"liberails_device_emulator.so") for e in environ), i
