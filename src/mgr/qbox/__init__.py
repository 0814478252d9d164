"""ceph-mgr module qbox: per-client device-time shares, pushed to the QBox scheduler in each OSD."""
import importlib.util

# ceph-mgr looks the Module class up on the package. Outside ceph-mgr (the unit tests import the
# pure submodules) mgr_module does not exist, and nothing needs Module.
if importlib.util.find_spec("mgr_module") is not None:
    from .module import Module  # noqa: F401
