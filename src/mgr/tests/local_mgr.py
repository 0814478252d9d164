"""What the mgr modules' end-to-end tests do to the local cluster they start (start.sh's layout:
the mgr is mgr.x, its pid file in <cluster>/run)."""
import os
import subprocess
import time

import pytest


def wait_for(what, predicate, timeout, interval=0.5):
    """Returns predicate()'s first true value, polled every `interval` s; fails the test after
    `timeout` s, naming `what`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def restart_mgr(env, cluster_dir):
    """Stops mgr.x with SIGTERM (waiting up to 30 s for it to go) and starts it again, as an
    operator's restart does; the module then starts from its stored state only."""
    with open(os.path.join(cluster_dir, "run", "mgr.x.pid")) as f:
        pid = int(f.read().strip())
    os.kill(pid, 15)
    deadline = time.time() + 30
    while os.path.exists(f"/proc/{pid}") and time.time() < deadline:
        time.sleep(0.2)
    subprocess.run(["ceph-mgr", "-c", env["CEPH_CONF"], "-i", "x"], env=env, check=True)
