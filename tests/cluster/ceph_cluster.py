"""A handle on one local cluster made by vstart-configs/start.sh, for the end-to-end tests.

The cluster is started and stopped only through the vstart-configs scripts (one definition of how
a cluster looks); this class adds what tests need on top: monitor commands over one librados
connection, and killing/restarting single OSDs by the pids the daemons wrote.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import rados

# Lives in vstart-configs with the scripts it serves.
import ceph_admin

REPO = Path(__file__).resolve().parents[2]
VSTART = REPO / "vstart-configs"


class CephCommandError(RuntimeError):
    """A monitor command failed; `errno` is the positive error code, `message` the monitor's text."""

    def __init__(self, prefix, errno, message):
        super().__init__(f"'{prefix}' failed with errno {errno}: {message}")
        self.errno = errno
        self.message = message


class CephCluster:
    """A running cluster in `directory`; `close()` disconnects but leaves the daemons alone."""

    def __init__(self, directory, osds):
        self.directory = Path(directory)
        self.conf = self.directory / "ceph.conf"
        self.osds = osds
        self.rados = rados.Rados(conffile=str(self.conf))
        # A test must fail rather than hang when an operation cannot complete.
        self.rados.conf_set("rados_osd_op_timeout", "120")
        self.rados.conf_set("rados_mon_op_timeout", "60")
        self.rados.connect(timeout=60)

    @classmethod
    def start(cls, directory, osds, port_base, plugin_dir, timeout=180):
        """Creates a fresh cluster in `directory` (wiping what was there) and connects to it."""
        cmd = [str(VSTART / "start.sh"), "--fresh", "--dir", str(directory), "--osds", str(osds),
               "--port-base", str(port_base), "--timeout", str(timeout)]
        if plugin_dir:
            cmd += ["--plugin-dir", str(plugin_dir)]
        subprocess.run(cmd, check=True, stdout=sys.stderr)
        return cls(directory, osds)

    def stop(self):
        """Disconnects and stops every daemon by its pid file (vstart-configs/stop.sh)."""
        self.close()
        subprocess.run([str(VSTART / "stop.sh"), "--dir", str(self.directory)], check=True,
                       stdout=sys.stderr)

    def close(self):
        if self.rados.state == "connected":
            self.rados.shutdown()

    @property
    def env(self):
        """Environment for the ceph/rados command-line tools."""
        return dict(os.environ, CEPH_CONF=str(self.conf))

    def plugins(self):
        """Names of the erasure-code plugins the daemons could load (from erasure_code_dir)."""
        return sorted(p.name[len("libec_"):-len(".so")]
                      for p in (self.directory / "erasure-code").glob("libec_*.so"))

    def command(self, prefix, **args):
        """Runs a monitor command; returns its parsed JSON output (or None); raises CephCommandError."""
        cmd = dict(args, prefix=prefix, format="json")
        ret, out, status = self.rados.mon_command(json.dumps(cmd), b"", timeout=60)
        if ret != 0:
            raise CephCommandError(prefix, -ret, status.strip())
        return json.loads(out) if out else None

    def cli(self, *args, timeout=120, check=True, stdin=None):
        """Runs a ceph command-line tool (ceph, rados, ...) against this cluster."""
        return subprocess.run(list(args), env=self.env, capture_output=True, timeout=timeout,
                              check=check, input=stdin)

    # Daemons

    def pid(self, name):
        """Pid of daemon `name` (e.g. "osd.3") if it runs, else None."""
        pidfile = self.directory / "run" / f"{name}.pid"
        try:
            pid = int(pidfile.read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except (FileNotFoundError, ValueError, ProcessLookupError):
            return None
        return pid if str(self.conf).encode() in cmdline else None

    def kill_osd(self, osd_id, sig=signal.SIGKILL):
        """Signals one OSD by its pid file and waits for the process to end."""
        pid = self.pid(f"osd.{osd_id}")
        assert pid is not None, f"osd.{osd_id} is not running"
        os.kill(pid, sig)
        deadline = time.monotonic() + 60
        while Path(f"/proc/{pid}").exists():
            assert time.monotonic() < deadline, f"osd.{osd_id} (pid {pid}) did not exit"
            time.sleep(0.05)

    def start_osd(self, osd_id):
        """Starts one stopped OSD with the cluster's own configuration, from / as start.sh does (Debian
        13's relative osd_class_dir, doc/dev/ceph-abi.md)."""
        (self.directory / "run" / f"osd.{osd_id}.pid").unlink(missing_ok=True)
        subprocess.run(["ceph-osd", "-c", str(self.conf), "-i", str(osd_id)], check=True,
                       capture_output=True, timeout=120, cwd="/")

    def osd_up(self, osd_id):
        dump = self.command("osd dump")
        return any(o["osd"] == osd_id and o["up"] == 1 for o in dump["osds"])

    def wait_osd(self, osd_id, up, timeout=60):
        """Waits until the monitor's OSD map shows `osd_id` up (or down)."""
        deadline = time.monotonic() + timeout
        while self.osd_up(osd_id) != up:
            assert time.monotonic() < deadline, \
                f"osd.{osd_id} not marked {'up' if up else 'down'} within {timeout}s"
            time.sleep(0.2)

    def wait_healthy(self, timeout=180):
        """Waits until every OSD is up and in and every PG active+clean; fails the test otherwise."""
        assert ceph_admin.wait_healthy(self.rados, self.osds, timeout, out=sys.stderr), \
            f"cluster in {self.directory} not active+clean within {timeout}s"

    # Pools and profiles

    def set_profile(self, name, profile):
        """Creates erasure-code profile `name` from a dict; raises CephCommandError if refused."""
        self.command("osd erasure-code-profile set", name=name,
                     profile=[f"{k}={v}" for k, v in profile.items()])

    def get_profile(self, name):
        return self.command("osd erasure-code-profile get", name=name)

    def create_ec_pool(self, name, profile_name, pg_num=8):
        """Creates an erasure-coded pool and waits until its PGs are active+clean."""
        self.command("osd pool create", pool=name, pg_num=pg_num, pgp_num=pg_num,
                     pool_type="erasure", erasure_code_profile=profile_name)
        self.wait_healthy()

    def delete_pool(self, name):
        self.command("osd pool delete", pool=name, pool2=name,
                     yes_i_really_really_mean_it=True)

    def pool_get(self, pool, var):
        return self.command("osd pool get", pool=pool, var=var)[var]

    def pool_set(self, pool, var, value):
        self.command("osd pool set", pool=pool, var=var, val=str(value))

    def acting_osds(self, pool, obj):
        """The OSDs holding `obj`, in shard order."""
        return self.command("osd map", pool=pool, object=obj)["acting"]
