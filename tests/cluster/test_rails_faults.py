"""The rails fault suite: the mgr module turned off, disabled, killed, and OSDs killed while they
hold, each under an acknowledged-writes workload on a Rails pool, with every OSD's held state and
held bytes sampled throughout (qa/workunits/erails/rails_faults.py). About 20 minutes here, so it
runs only with --faults (ctest -L faults); see doc/rails.rst, "Turning it off". With
--controller=standalone the same faults hit the controller outside ceph-mgr (doc/controllers.rst):
stopped and started again instead of disabled and enabled, SIGKILLed instead of its mgr.

Goals checked: no acknowledged write lost and the pool deep-scrubs clean; no OSD held once
`mgr/rails/active false` took effect, nor once the module was disabled or its mgr killed for
longer than the Rails lease (the OSDs' leases run out and they release themselves, src/rails_osd);
held bytes never above mgr/rails/held_bytes_budget, with or without a mgr; without a mgr, no held
write waits longer than BlueStore's own bound (bluestore_max_defer_interval and a third of it,
the interval of its checks).
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import require_codec
from rails.controller import defer_interval_seconds
from rails.topology import build_topology
from rails_faults import SETTLE_SECONDS, FaultRun, MgrModuleControl, deep_scrub, held_now, sample_osd

pytestmark = pytest.mark.faults

REPO = Path(__file__).resolve().parents[2]
FRAME_SECONDS = 6
BUDGET = 32 << 20
STEADY_SECONDS = 60
OFF_SECONDS = 20
OSD_DOWN_SECONDS = 10


def ceph_of(cluster):
    def ceph(*words):
        return cluster.cli("ceph", *words).stdout.decode()
    return ceph


def signal_daemon(cluster, name, sig):
    pid = cluster.pid(name)
    assert pid is not None, f"{name} is not running"
    os.kill(pid, sig)
    while Path(f"/proc/{pid}").exists():
        time.sleep(0.05)


class MgrHost:
    """The rails controller as the mgr module from this source tree (doc/rails.rst, "Enabling it")."""
    name = "mgr"

    def __init__(self, cluster, ceph):
        self.cluster = cluster
        self.control = MgrModuleControl(ceph)

    def enable(self):
        subprocess.run([str(REPO / "vstart-configs" / "enable_module.sh"), "--dir", str(self.cluster.directory),
                        "rails"], check=True, stdout=sys.stderr, timeout=240)

    def kill(self):
        signal_daemon(self.cluster, "mgr.x", signal.SIGKILL)

    def start(self):
        subprocess.run(["ceph-mgr", "-c", str(self.cluster.conf), "-i", "x"], check=True, timeout=60)


class StandaloneControl:
    """What the faults do to the rails controller outside ceph-mgr: stop it and start it again."""
    off_and_on = "controller stop, start"

    def __init__(self, host, ceph):
        self.host, self.ceph = host, ceph

    def status(self) -> str:
        return subprocess.run([str(REPO / "vstart-configs" / "erails-ctl.sh"), "--dir", str(self.host.cluster.directory),
                               "rails", "status"], check=True, capture_output=True, text=True, timeout=120).stdout

    def set_option(self, name: str, value: str) -> None:
        self.ceph("config", "set", "mgr", f"mgr/rails/{name}", value, "--force")

    def turn_off(self) -> None:
        signal_daemon(self.host.cluster, "erails-rails", signal.SIGTERM)

    def turn_on(self) -> None:
        self.host.start()


class ControllerHost:
    """The rails controller outside ceph-mgr, as start.sh --controllers runs it."""
    name = "controller"

    def __init__(self, cluster, ceph):
        self.cluster = cluster
        self.control = StandaloneControl(self, ceph)

    def enable(self):
        self.start()

    def kill(self):
        signal_daemon(self.cluster, "erails-rails", signal.SIGKILL)

    def start(self):
        subprocess.run([str(REPO / "vstart-configs" / "start.sh"), "--dir", str(self.cluster.directory),
                        "--controllers"], check=True, stdout=sys.stderr, timeout=240)


def rails_pool(cluster, ceph):
    colors = []
    for osd in range(cluster.osds):
        ceph("osd", "crush", "add-bucket", f"color{osd}", "rack")
        ceph("osd", "crush", "move", f"color{osd}", "root=default")
        ceph("osd", "crush", "move", f"host-{osd}", f"rack=color{osd}")
        colors.append(f"color{osd}")
    cluster.set_profile("railsfaults", {"plugin": "erails", "k": cluster.osds - 2, "m": 2,
                                        "crush-colors": ",".join(colors), "rails-frame": FRAME_SECONDS})
    cluster.create_ec_pool("railsfaults", "railsfaults", pg_num=8)
    return "railsfaults"


def wait_for_held_osd_with_bytes(cluster, osds, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for osd in osds:
            sample = sample_osd(cluster.rados, osd)
            if sample.held and sample.held_bytes:
                return osd
        time.sleep(0.5)
    raise AssertionError(f"no OSD held writes within {timeout} s")


def test_faults_leave_no_osd_held_and_no_acknowledged_write_lost(cluster, request):
    require_codec(cluster, "erails")
    ceph = ceph_of(cluster)
    pool = rails_pool(cluster, ceph)
    host = (ControllerHost if request.config.getoption("--controller") == "standalone" else MgrHost)(cluster, ceph)
    host.enable()
    for name, value in (("held_bytes_budget", BUDGET), ("perf_seconds", 1)):
        host.control.set_option(name, str(value))
    osds = list(range(cluster.osds))
    topology = build_topology(json.loads(ceph("osd", "dump", "-f", "json")),
                              json.loads(ceph("osd", "crush", "dump", "-f", "json")))
    interval = defer_interval_seconds(topology, 0)
    # BlueStore checks every third of the interval whether nothing was submitted for all of it.
    bound = interval * 4 / 3
    without_mgr = bound + 2 * FRAME_SECONDS
    print(f"\nload {os.getloadavg()}; bluestore_max_defer_interval {interval:g} s: a held write waits "
          f"at most {bound:g} s without a mgr; budget {BUDGET >> 20} MiB", flush=True)

    run = FaultRun(cluster.rados, pool, osds, ceph, BUDGET, max_size=64 << 10, control=host.control).start()
    try:
        run.wait_for_module()
        run.fault("steady (module on, no fault)", lambda result: time.sleep(STEADY_SECONDS))
        off = run.active_false(OFF_SECONDS)
        disabled = run.disable_enable(without_mgr)

        def mgr_kill(result):
            result.notes.append(f"held when killed {run.wait_until_some_osd_holds()}")
            host.kill()
            time.sleep(without_mgr)
            result.held_after_off = held_now(cluster.rados, osds)
            host.start()
            run.wait_for_module()
            time.sleep(SETTLE_SECONDS)
        killed_mgr = run.fault(f"{host.name} SIGKILL for {without_mgr:.0f} s", mgr_kill)

        def osd_kill(result):
            victim = wait_for_held_osd_with_bytes(cluster, osds)
            result.notes.append(f"osd.{victim} killed holding")
            cluster.kill_osd(victim)
            time.sleep(OSD_DOWN_SECONDS)
            cluster.start_osd(victim)
            cluster.wait_osd(victim, up=True, timeout=120)
            time.sleep(2 * FRAME_SECONDS)
        run.fault("OSD SIGKILL while holding", osd_kill)

        def combined(result):
            victim = wait_for_held_osd_with_bytes(cluster, osds)
            result.notes.append(f"{host.name} and osd.{victim} killed, the OSD holding")
            host.kill()
            cluster.kill_osd(victim)
            time.sleep(OSD_DOWN_SECONDS)
            cluster.start_osd(victim)
            cluster.wait_osd(victim, up=True, timeout=120)
            time.sleep(without_mgr)
            result.held_after_off = held_now(cluster.rados, osds)
            host.start()
            run.wait_for_module()
            time.sleep(2 * FRAME_SECONDS)
        combined_fault = run.fault(f"{host.name} and a held OSD SIGKILLed together", combined)
    finally:
        run.stop()
    cluster.wait_healthy(timeout=300)
    wrong = run.verify()
    inconsistent = deep_scrub(ceph, pool)
    print(f"{len(run.workload.acked)} writes acknowledged, {run.workload.failed} failed or timed out, "
          f"{len(wrong)} acknowledged objects wrong, inconsistent PGs after deep scrub: {inconsistent}; "
          f"load {os.getloadavg()}", flush=True)

    assert not wrong, wrong[:5]
    assert not inconsistent
    assert off.held_after_off == [], f"OSDs held with mgr/rails/active false: {off.held_after_off}"
    # Each of these left the OSDs without a module for without_mgr, longer than the Rails lease
    # (rails/lease.py, lease_seconds).
    for result in (disabled, killed_mgr, combined_fault):
        assert result.held_after_off == [], f"{result.name}: OSDs held after their leases ran out: " \
                                            f"{result.held_after_off}"
    over = [r.line(BUDGET) for r in run.results if r.max_held_bytes > BUDGET]
    assert not over, over
    late = [r.line(BUDGET) for r in (disabled, killed_mgr, combined_fault) if r.longest_wait > bound + FRAME_SECONDS]
    assert not late, f"held writes waited past BlueStore's bound of {bound:g} s: {late}"
