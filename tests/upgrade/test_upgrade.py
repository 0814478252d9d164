"""A cluster with erails pools upgraded from the host's Ceph build to a newer described build, as an
operator does it (doc/install.rst, "Upgrading Ceph"): created and written on the host's daemons
with this build's plugin, stopped, restarted on the newer build's daemons (start.sh --ceph-build,
from that build's Debian root) with that build's plugin, `ceph osd require-osd-release` raised.

Then every acknowledged object of both pools reads back, a deep scrub of every PG is clean, every
daemon reports the new version, the Rails pool still places shard i on color i, new writes to it
round-trip, and every OSD offers the Rails lease. Then the rails controller, run outside ceph-mgr
(start.sh --controllers; the new build's ceph-mgr may run no Python module), schedules the Rails
pool again: its OSDs are held under the controller's leases.

Options (conftest.py; tests/upgrade/CMakeLists.txt passes them): --to-build VERSION --to-plugin-dir DIR (the newer build
tree's erasure-code directory, made by scripts/test.sh) --from-plugin-dir DIR. Needs root, for the
newer build's root; skipped (exit 77) otherwise. Ports from start.sh's --port-base auto;
/tmp/erails-upgrade-*, removed unless the test failed.
"""
import contextlib
import json
import os
import shutil
import subprocess
import tempfile

import pytest
import rados

from ack_workload import verify_acked, write_acked
from eventually import wait_for

pytestmark = pytest.mark.cluster

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VSTART = os.path.join(REPO, "vstart-configs")
OSDS = 4
K, M = 2, 2
# The code name `ceph osd require-osd-release` takes for each described build's release.
RELEASE_NAMES = {"16": "pacific", "17": "quincy", "18": "reef"}
OBJECTS = 40
PGS = 8


class Cluster:
    def __init__(self, directory):
        self.dir = directory
        self.env = dict(os.environ, CEPH_CONF=os.path.join(directory, "ceph.conf"))

    def start(self, *args):
        subprocess.run([os.path.join(VSTART, "start.sh"), "--dir", self.dir, "--timeout", "240", *args],
                       check=True, timeout=600)

    def stop(self):
        subprocess.run([os.path.join(VSTART, "stop.sh"), "--dir", self.dir], check=True, timeout=180)

    def ceph(self, *args, timeout=120):
        done = subprocess.run(["ceph", *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"ceph {' '.join(args)}: {done.stderr}"
        return done.stdout

    def json(self, *args):
        return json.loads(self.ceph(*args, "-f", "json"))

    def rails_pools(self):
        """The pools `rails status` of the controller that start.sh --controllers runs lists; none
        while it does not answer yet."""
        done = subprocess.run([os.path.join(VSTART, "erails-ctl.sh"), "--dir", self.dir, "rails", "status", "-f",
                               "json"], capture_output=True, text=True, timeout=120)
        return [pool["pool"] for pool in json.loads(done.stdout)["pools"]] if done.returncode == 0 else []

    def on_colors(self, pool):
        """Whether every PG of `pool` has shard i on osd.i (color i), as the mgr last heard; its
        PG statistics trail the monitor by a report or two."""
        pool_id = self.json("osd", "pool", "get", pool, "size")["pool_id"]
        stats = self.json("pg", "dump", "pgs_brief")
        stats = stats["pg_stats"] if isinstance(stats, dict) else stats
        acting = [pg["acting"] for pg in stats if pg["pgid"].startswith(f"{pool_id}.")]
        return len(acting) == PGS and all(osds == list(range(OSDS)) for osds in acting)


def write(cluster, pool, prefix):
    """OBJECTS objects of varied sizes, each acknowledged: ack_workload's record."""
    with connected(cluster) as client:
        return write_acked(client, pool, [1 + n * 37_001 for n in range(OBJECTS)], prefix)


def differing(cluster, pool, written):
    with connected(cluster) as client:
        return verify_acked(client, pool, written)


@contextlib.contextmanager
def connected(cluster):
    client = rados.Rados(conffile=cluster.env["CEPH_CONF"])
    client.connect(timeout=60)
    try:
        yield client
    finally:
        client.shutdown()


@pytest.fixture(scope="module")
def cluster(request):
    if os.geteuid() != 0:
        pytest.skip("needs root: the newer build's daemons run from its Debian root")
    to_build, to_plugins, from_plugins = (request.config.getoption(name) for name in
                                          ("--to-build", "--to-plugin-dir", "--from-plugin-dir"))
    for option, path in (("--to-plugin-dir", to_plugins), ("--from-plugin-dir", from_plugins)):
        if not path or not os.path.exists(os.path.join(path, "libec_erails.so")):
            pytest.skip(f"{option} must name a directory with libec_erails.so, got {path!r}")
    directory = tempfile.mkdtemp(prefix="erails-upgrade-", dir="/tmp")
    handle = Cluster(directory)
    failed = request.session.testsfailed
    try:
        handle.start("--osds", str(OSDS), "--port-base", "auto", "--plugin-dir", from_plugins, "--block-size", "1G")
        yield handle, to_build, to_plugins
    finally:
        subprocess.run(["sh", "-c", "tail -n 5 $1/log/osd.0.log; grep -h 'erails' $1/log/osd.*.log | tail -n 8",
                        "sh", directory])
        subprocess.run([os.path.join(VSTART, "stop.sh"), "--dir", directory], timeout=180)
        if request.session.testsfailed == failed:
            shutil.rmtree(directory, ignore_errors=True)


def test_erails_pools_survive_the_upgrade(cluster):
    cluster, to_build, to_plugins = cluster
    from_version = cluster.json("version")["version"].split()[2]
    colors = [f"color{osd}" for osd in range(OSDS)]
    for osd, color in enumerate(colors):
        cluster.ceph("osd", "crush", "add-bucket", color, "rack")
        cluster.ceph("osd", "crush", "move", color, "root=default")
        cluster.ceph("osd", "crush", "move", f"host-{osd}", f"rack={color}")
    cluster.ceph("osd", "erasure-code-profile", "set", "plainprofile", "plugin=erails", f"k={K}", f"m={M}",
                 "crush-failure-domain=osd")
    cluster.ceph("osd", "erasure-code-profile", "set", "railsprofile", "plugin=erails", f"k={K}", f"m={M}",
                 "crush-colors=" + ",".join(colors))
    written = {}
    for pool, profile in (("plain", "plainprofile"), ("rails", "railsprofile")):
        cluster.ceph("osd", "pool", "create", pool, str(PGS), str(PGS), "erasure", profile)
        cluster.ceph("osd", "pool", "application", "enable", pool, "rados")
        written[pool] = write(cluster, pool, "before")
    wait_for("the Rails pool's shards on their colors", lambda: cluster.on_colors("rails"), 60)

    cluster.stop()
    cluster.start("--ceph-build", to_build, "--plugin-dir", to_plugins)
    release = RELEASE_NAMES[to_build.split(".")[0]]
    cluster.ceph("osd", "require-osd-release", release, "--yes-i-really-mean-it")

    versions = cluster.json("versions")["overall"]
    assert list(versions) == [v for v in versions if f"ceph version {to_build} " in v], \
        f"not every daemon runs {to_build} after the upgrade from {from_version}: {versions}"
    assert cluster.json("osd", "dump")["require_osd_release"] == release
    for pool in written:
        assert not differing(cluster, pool, written[pool]), pool
    wait_for("the Rails pool's shards on their colors after the upgrade", lambda: cluster.on_colors("rails"), 60)
    after = write(cluster, "rails", "after")
    assert not differing(cluster, "rails", after)
    for osd in range(OSDS):
        assert cluster.ceph("tell", f"osd.{osd}", "rails", "lease").startswith("no Rails lease: this OSD was never")

    # Deep scrub only after the writes: a scrub that runs into recovery is postponed.
    scrubbed = {}
    for pool in written:
        for pg in cluster.json("pg", "ls-by-pool", pool)["pg_stats"]:
            scrubbed[pg["pgid"]] = pg["last_deep_scrub_stamp"]
        cluster.ceph("osd", "pool", "deep-scrub", pool)

    def all_deep_scrubbed():
        stats = [pg for pool in written for pg in cluster.json("pg", "ls-by-pool", pool)["pg_stats"]]
        return stats if all(pg["last_deep_scrub_stamp"] != scrubbed[pg["pgid"]] for pg in stats) else None
    stats = wait_for("every PG of both pools deep-scrubbed on the new build", all_deep_scrubbed, 300, interval=2.0)
    assert all(pg["state"] == "active+clean" for pg in stats), [(pg["pgid"], pg["state"]) for pg in stats]

    cluster.start("--controllers")
    wait_for("the rails controller to schedule the Rails pool", lambda: "rails" in cluster.rails_pools(), 120)
    wait_for("an OSD of the Rails pool held under the controller's lease", lambda: [
        osd for osd in range(OSDS)
        if json.loads(cluster.ceph("tell", f"osd.{osd}", "rails", "lease", "-f", "json"))["state"] == "active"], 90)
