"""The rails and qbox controllers outside ceph-mgr (src/mgr_standalone) as the cluster tests run
them: erails-controller processes of this source tree, each stopped by its pid, and erails-ctl for
their commands."""
import json
import os
import signal
import subprocess

from local_mgr import REPO

CONTROLLER_PATH = os.pathsep.join([os.path.join(REPO, "src", "mgr"), os.path.join(REPO, "src", "mgr_standalone")])
PYTHON = "/usr/bin/python3"


def erails_ctl(env, *words):
    """(exit status, stdout, stderr) of `erails-ctl -c <conf> WORDS`."""
    done = subprocess.run([PYTHON, "-m", "erails_standalone.cli", "-c", env["CEPH_CONF"], *words],
                          env=dict(env, PYTHONPATH=CONTROLLER_PATH), capture_output=True, text=True, timeout=90)
    return done.returncode, done.stdout, done.stderr


def answer(env, *words):
    """erails-ctl's output, or None when it failed."""
    status, out, _ = erails_ctl(env, *words)
    return out if status == 0 else None


def ctl_json(env, *words):
    status, out, err = erails_ctl(env, *words, "-f", "json")
    assert status == 0, f"erails-ctl {' '.join(words)}: {err}"
    return json.loads(out)


class Controllers:
    """erails-controller processes this test started, each stopped by its pid at the end."""

    def __init__(self, env, cluster_dir):
        self.env, self.cluster_dir = env, cluster_dir
        self.running = {}

    def start(self, module, name):
        log = open(os.path.join(self.cluster_dir, "log", f"erails-{module}.{name}.log"), "a")
        self.running[name] = subprocess.Popen(
            [PYTHON, "-m", "erails_standalone.service", module, "-c", self.env["CEPH_CONF"], "--id", name],
            env=dict(self.env, PYTHONPATH=CONTROLLER_PATH), stdout=log, stderr=log)
        log.close()

    def signal(self, name, signum):
        process = self.running.pop(name)
        process.send_signal(signum)
        process.wait(timeout=90)

    def stop_all(self):
        for name in list(self.running):
            self.signal(name, signal.SIGTERM)
