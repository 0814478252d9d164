"""One real cluster per pytest session, and the codecs the tests run against it.

Run with Debian's interpreter: /usr/bin/python3 -m pytest tests/cluster [options]. The short
version is the default; --full (or ERAILS_CLUSTER_FULL=1) adds more k/m, sizes and run time.
"""
import itertools
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from ceph_cluster import CephCluster


def pytest_addoption(parser):
    group = parser.getgroup("erails cluster")
    group.addoption("--plugin-dir", default=os.environ.get("ERAILS_PLUGIN_DIR", ""),
                    help="directory holding libec_erails.so, e.g. <build>/erasure-code; the erails "
                         "tests skip when it holds no erails plugin (env ERAILS_PLUGIN_DIR)")
    group.addoption("--cluster-dir", default=os.environ.get("ERAILS_TEST_CLUSTER_DIR", ""),
                    help="where the test cluster lives (wiped at start); default a new temporary "
                         "directory (env ERAILS_TEST_CLUSTER_DIR)")
    group.addoption("--port-base", default=os.environ.get("ERAILS_TEST_PORT_BASE", "auto"),
                    help="first port of the test cluster, or auto (the default): a range no other "
                         "cluster of this machine holds, chosen by start.sh (env ERAILS_TEST_PORT_BASE)")
    group.addoption("--osds", type=int, default=6, help="OSDs in the test cluster")
    group.addoption("--full", action="store_true",
                    default=os.environ.get("ERAILS_CLUSTER_FULL", "") == "1",
                    help="run the long version (env ERAILS_CLUSTER_FULL=1)")
    group.addoption("--faults", action="store_true",
                    default=os.environ.get("ERAILS_CLUSTER_FAULTS", "") == "1",
                    help="run the rails fault suite, ~20 minutes (env ERAILS_CLUSTER_FAULTS=1)")
    group.addoption("--controller", choices=("mgr", "standalone"), default="mgr",
                    help="where the fault suite's rails controller runs: the mgr module (default), or "
                         "erails-controller outside ceph-mgr (start.sh --controllers), as on Debian 13")


def pytest_configure(config):
    config.addinivalue_line("markers", "full: only in the long version (--full)")
    config.addinivalue_line("markers", "faults: only in the fault suite (--faults)")


def pytest_collection_modifyitems(config, items):
    """The long and fault-suite cases are deselected unless asked for: not run, rather than
    skipped, since a skip means a test that could not run (the repository's conftest.py)."""
    unwanted = [marker for marker in ("full", "faults") if not config.getoption(f"--{marker}")]
    deselected = [item for item in items if any(marker in item.keywords for marker in unwanted)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item not in deselected]


@pytest.fixture(scope="session")
def full(request):
    return request.config.getoption("--full")


@pytest.fixture(scope="session")
def plugin_dir(request):
    value = request.config.getoption("--plugin-dir")
    return Path(value).resolve() if value else None


@pytest.fixture(scope="session")
def cluster(request, plugin_dir):
    """Starts a fresh cluster for the session and stops it, by pid, when the session ends.

    The directory is removed afterwards unless a test failed, so that its logs can be read.
    """
    option = request.config.getoption("--cluster-dir")
    directory = Path(option) if option else Path(tempfile.mkdtemp(prefix="erails-cluster-"))
    handle = CephCluster.start(directory, request.config.getoption("--osds"),
                               request.config.getoption("--port-base"), plugin_dir)
    yield handle
    handle.stop()
    if request.session.testsfailed:
        print(f"\ncluster logs kept in {directory}/log", file=sys.stderr)
    else:
        shutil.rmtree(directory, ignore_errors=True)


# Codecs: the same tests run against stock jerasure (the reference) and erails.

CODECS = ["jerasure", "erails"]


def codec_profile(codec, k, m, **extra):
    """The erasure-code profile that selects `codec` with k data and m coding chunks."""
    profile = {"plugin": codec, "k": k, "m": m, "technique": "reed_sol_van",
               "crush-failure-domain": "host"}
    profile.update(extra)
    return profile


def require_codec(cluster, name):
    """Skips the calling test, saying why, when the cluster cannot load plugin `name`."""
    if name not in cluster.plugins():
        pytest.skip(f"libec_{name}.so is not in the cluster's erasure_code_dir: build it and pass "
                    f"--plugin-dir <build>/erasure-code")


@pytest.fixture(params=CODECS)
def codec(request, cluster):
    require_codec(cluster, request.param)
    return request.param


_serial = itertools.count()


@pytest.fixture
def ec_pool(cluster):
    """Factory: creates a profile and pool for (codec, k, m); deletes them after the test."""
    made = []

    def make(codec, k, m, pg_num=8, **extra):
        name = f"{codec}-{k}-{m}-{next(_serial)}"
        cluster.set_profile(name, codec_profile(codec, k, m, **extra))
        cluster.create_ec_pool(name, name, pg_num=pg_num)
        made.append(name)
        return name

    yield make
    for name in made:
        cluster.delete_pool(name)
        cluster.command("osd erasure-code-profile rm", name=name)
