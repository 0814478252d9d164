"""ceph-mgr module rails: holds BlueStore deferred writes on the OSDs of read-phase colors."""
import importlib.util

# ceph-mgr looks the Module class up on the package. Outside ceph-mgr (tests, the tools and the
# benchmarks that import the pure submodules) mgr_module does not exist, and nothing needs Module.
if importlib.util.find_spec("mgr_module") is not None:
    from .module import Module  # noqa: F401
