"""A stand-in for ceph-mgr's `mgr_module`, as much of it as the rails and qbox modules use, so their
Module classes can be imported and driven by tests outside ceph-mgr."""
import importlib
import importlib.machinery
import sys
import threading
import time
import types


class CommandResult:
    """What send_command fills in: the test sets r/outb/outs, then ev."""

    def __init__(self, tag=""):
        self.ev = threading.Event()
        self.r, self.outb, self.outs = 0, "", ""


def _fake_mgr_module():
    fake = types.ModuleType("mgr_module")
    fake.__spec__ = importlib.machinery.ModuleSpec("mgr_module", None)
    fake.MgrModule = type("MgrModule", (), {"__init__": lambda self, *args, **kwargs: None})
    fake.Option = lambda name, **kwargs: dict(kwargs, name=name)
    fake.CommandResult = CommandResult
    fake.HandleCommandResult = lambda *args: args
    fake.CLIReadCommand = fake.CLIWriteCommand = lambda prefix: (lambda function: function)
    fake.NotifyType = types.SimpleNamespace(osd_map="osd_map")
    return fake


def import_module_class(monkeypatch, package):
    """Imports `<package>.module` against the stand-in and returns its Module class; the import is
    undone when the test ends, so the next test starts from a fresh module."""
    monkeypatch.setitem(sys.modules, "mgr_module", _fake_mgr_module())
    monkeypatch.delitem(sys.modules, f"{package}.module", raising=False)
    return importlib.import_module(f"{package}.module").Module


def forget_module(package):
    sys.modules.pop(f"{package}.module", None)


def wait_until(module, predicate, timeout=30.0):
    """Returns once predicate() holds, polling; fails, showing the module's last commands, if it
    does not within `timeout` s. The timeout is generous: it only ends a test that would fail
    anyway, and a loaded machine may run the module's loop slowly."""
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert predicate(), getattr(module, "commands", [])[-5:]


def serve_until(module, predicate, timeout=30.0):
    """Starts the module's loop (serve()) in a thread and returns that thread once predicate()
    holds (wait_until)."""
    thread = threading.Thread(target=module.serve, daemon=True)
    thread.start()
    wait_until(module, predicate, timeout)
    return thread


def stop_serving(module, thread):
    """What ceph-mgr does to stop a module: shutdown(), then the loop must end."""
    module.shutdown()
    thread.join(timeout=10)
    assert not thread.is_alive()
