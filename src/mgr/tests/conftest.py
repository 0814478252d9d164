"""Makes the `rails` package importable without ceph-mgr (see rails/__init__.py) and declares the
`cluster` marker for the end-to-end test, which needs a local cluster and minutes of wall time."""
import os
import sys

os.environ["UNITTEST"] = "1"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def pytest_configure(config):
    config.addinivalue_line("markers", "cluster: starts a local Ceph cluster (selected with -m cluster)")
