"""ceph-mgr module rails: holds BlueStore deferred writes on the OSDs of read-phase colors."""
import os

# Unit tests import the pure submodules outside ceph-mgr, where mgr_module does not exist.
if "UNITTEST" not in os.environ:
    from .module import Module  # noqa: F401  (ceph-mgr looks the class up on the package)
