"""Options of the upgrade test (test_upgrade.py), which cmake/Testing.cmake passes."""


def pytest_addoption(parser):
    group = parser.getgroup("erails upgrade")
    group.addoption("--to-build", default="", help="the described Ceph build to upgrade to, e.g. 18.2.7")
    group.addoption("--to-plugin-dir", default="", help="that build's <build tree>/erasure-code")
    group.addoption("--from-plugin-dir", default="", help="the host build's <build tree>/erasure-code")
