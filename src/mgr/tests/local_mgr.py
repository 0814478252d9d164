"""What the mgr modules' end-to-end tests do to the local cluster they start (start.sh's layout:
the mgr is mgr.x, its pid file in <cluster>/run)."""
import contextlib
import os
import shutil
import subprocess
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def ceph(env, *args, timeout=60):
    """`ceph ARGS`' output; fails the test, with Ceph's message, if the command fails."""
    done = subprocess.run(["ceph", *args], env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"ceph {' '.join(args)}: {done.stderr}"
    return done.stdout


@contextlib.contextmanager
def local_cluster(prefix, start_args, timeout, logs_to_show):
    """Yields (env, cluster_dir) of a cluster vstart-configs/start.sh starts with `start_args` in a
    new directory /tmp/<prefix>*; at the end prints the log lines the shell command
    `logs_to_show` (given the directory as $1) selects, which pytest shows for a failed test, and
    stops and removes the cluster, whatever happened."""
    cluster_dir = tempfile.mkdtemp(prefix=prefix)
    try:
        subprocess.run([os.path.join(REPO, "vstart-configs", "start.sh"), "--dir", cluster_dir, *start_args],
                       check=True, timeout=timeout)
        yield dict(os.environ, CEPH_CONF=os.path.join(cluster_dir, "ceph.conf")), cluster_dir
    finally:
        subprocess.run(["sh", "-c", logs_to_show, "sh", cluster_dir])
        subprocess.run([os.path.join(REPO, "vstart-configs", "stop.sh"), "--dir", cluster_dir], timeout=120)
        shutil.rmtree(cluster_dir, ignore_errors=True)


def enable_from_source(env, cluster_dir, name):
    """Enables the module `name` from this source tree, even where the erails package installed
    one (vstart-configs/enable_module.sh, which restarts the mgr)."""
    done = subprocess.run([os.path.join(REPO, "vstart-configs", "enable_module.sh"), "--dir", cluster_dir, name],
                          env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, f"enable_module.sh {name}: {done.stdout}{done.stderr}"


def mgr_pid(cluster_dir):
    with open(os.path.join(cluster_dir, "run", "mgr.x.pid")) as f:
        return int(f.read().strip())


def restart_mgr(env, cluster_dir):
    """Stops mgr.x with SIGTERM (waiting up to 30 s for it to go) and starts it again, as an
    operator's restart does; the module then starts from its stored state only."""
    pid = mgr_pid(cluster_dir)
    os.kill(pid, 15)
    deadline = time.monotonic() + 30
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.2)
    subprocess.run(["ceph-mgr", "-c", env["CEPH_CONF"], "-i", "x"], env=env, check=True)
