"""The part of ceph-mgr's module interface (`mgr_module`) that the rails and qbox modules use,
carried out on librados, so that their Module classes run unchanged outside ceph-mgr.

What ceph-mgr keeps in memory is asked from the cluster instead: maps and PG stats from the
monitors and the mgr's C++ half (which Debian 13's ceph-mgr still runs), the module's store in the
monitors' config-key store under the names ceph-mgr gives it (mgr/<module>/<key>), its options in
the config database (section mgr, mgr/<module>/<option>), as ceph-mgr does. So a table or a setting
made through the mgr module on one release is what the controller finds on the other.
"""
import collections
import errno
import importlib.machinery
import inspect
import json
import logging
import threading
import time
import types
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Tuple

import rados

# Commands to OSDs and monitors, and the monitors' answers, wait this long at most; the modules
# wait less (their own COMMAND_TIMEOUT_SECONDS) and count a late answer as failed.
RADOS_COMMAND_TIMEOUT_SECONDS = 30
# Module options are read from one `config dump` at most this often: a module reads each of its
# options at every pass of its loop.
OPTIONS_MAX_AGE_SECONDS = 1.0
# The parallel commands a module sends at once (one per OSD, one per monitor).
COMMAND_THREADS = 16

HandleCommandResult = collections.namedtuple("HandleCommandResult", ["retval", "stdout", "stderr"],
                                             defaults=(0, "", ""))


class CommandResult:
    """Filled in by send_command when the answer arrives; ev is set then."""

    def __init__(self, tag: str = "") -> None:
        self.tag = tag
        self.ev = threading.Event()
        self.r, self.outb, self.outs = 0, "", ""

    def complete(self, r: int, outb: str, outs: str) -> None:
        self.r, self.outb, self.outs = r, outb, outs
        self.ev.set()


def Option(name: str, **fields: Any) -> Dict[str, Any]:
    return dict(fields, name=name)


NotifyType = types.SimpleNamespace(osd_map="osd_map")


def _command(prefix: str, read_only: bool) -> Callable[[Callable], Callable]:
    def mark(function: Callable) -> Callable:
        function.erails_command = (prefix, read_only)
        return function
    return mark


def CLIReadCommand(prefix: str) -> Callable[[Callable], Callable]:
    return _command(prefix, True)


def CLIWriteCommand(prefix: str) -> Callable[[Callable], Callable]:
    return _command(prefix, False)


class CommandSpec(collections.namedtuple("CommandSpec", ["prefix", "method", "read_only", "params", "required",
                                                         "help"])):
    """One command of a module: its prefix, method name, parameters in order, which need a value."""


def commands_of(module_class: type) -> Dict[str, CommandSpec]:
    """prefix -> CommandSpec for every command the class declares with CLIReadCommand/CLIWriteCommand."""
    found = {}
    for name, function in inspect.getmembers(module_class, inspect.isfunction):
        mark = getattr(function, "erails_command", None)
        if mark is None:
            continue
        params = [p for p in inspect.signature(function).parameters.values() if p.name != "self"]
        found[mark[0]] = CommandSpec(mark[0], name, mark[1], [p.name for p in params],
                                     [p.name for p in params if p.default is inspect.Parameter.empty],
                                     (inspect.getdoc(function) or "").splitlines()[0] if function.__doc__ else "")
    return found


def as_mgr_module() -> types.ModuleType:
    """This file as the `mgr_module` a module imports."""
    module = types.ModuleType("mgr_module")
    # The modules' packages import their Module only where find_spec("mgr_module") finds one.
    module.__spec__ = importlib.machinery.ModuleSpec("mgr_module", None)
    for name in ("MgrModule", "CommandResult", "HandleCommandResult", "Option", "NotifyType", "CLIReadCommand",
                 "CLIWriteCommand"):
        setattr(module, name, globals()[name])
    return module


def rados_errno(error: Exception) -> int:
    """The negative errno of a librados exception (EIO when it carries none)."""
    return -(getattr(error, "errno", None) or errno.EIO)


def _text(data: Any) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else str(data)


class Host:
    """A module's connection to the cluster, and what it has said about its health."""

    def __init__(self, cluster: rados.Rados, module_name: str) -> None:
        self.cluster = cluster
        self.module_name = module_name
        self.log = logging.getLogger(f"erails.{module_name}")
        self.executor = ThreadPoolExecutor(COMMAND_THREADS, thread_name_prefix=f"{module_name}-command")
        self.health_checks: Dict[str, dict] = {}
        self.health_listeners: List[Callable[[Dict[str, dict]], None]] = []
        self._options: Dict[str, str] = {}
        self._options_read_at = -OPTIONS_MAX_AGE_SECONDS
        self._options_lock = threading.Lock()

    def mon_command(self, command: dict, target: Optional[str] = None) -> Tuple[int, str, str]:
        try:
            ret, out, err = self.cluster.mon_command(json.dumps(command), b"", RADOS_COMMAND_TIMEOUT_SECONDS,
                                                     target=target)
        except rados.Error as error:
            return rados_errno(error), "", str(error)
        return ret, _text(out), _text(err)

    def osd_command(self, osd: int, command: str) -> Tuple[int, str, str]:
        try:
            ret, out, err = self.cluster.osd_command(osd, command, b"", RADOS_COMMAND_TIMEOUT_SECONDS)
        except rados.Error as error:
            return rados_errno(error), "", str(error)
        return ret, _text(out), _text(err)

    def json_from_mon(self, command: dict) -> dict:
        """The monitors' (or the mgr's) JSON answer; an error names the command, as a module's
        loop reports a failed pass."""
        ret, out, err = self.mon_command(dict(command, format="json"))
        if ret != 0:
            raise RuntimeError(f"`{command['prefix']}` failed: {err.strip()} ({ret})")
        return json.loads(out)

    def option(self, name: str) -> Optional[str]:
        """mgr/<module>/<name> of the config database's mgr section, or None when it is not set."""
        with self._options_lock:
            if time.monotonic() - self._options_read_at >= OPTIONS_MAX_AGE_SECONDS:
                prefix = f"mgr/{self.module_name}/"
                self._options = {entry["name"][len(prefix):]: entry["value"]
                                 for entry in self.json_from_mon({"prefix": "config dump"})
                                 if entry.get("section") == "mgr" and entry.get("name", "").startswith(prefix)}
                self._options_read_at = time.monotonic()
            return self._options.get(name)


class MgrModule:
    """What a module's class derives from: ceph-mgr's calls it makes, on a Host."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self.module_name = host.module_name
        self.log = host.log

    def get(self, data_name: str) -> dict:
        prefixes = {"osd_map": "osd dump", "osd_map_crush": "osd crush dump", "pg_stats": "pg dump",
                    "mon_map": "mon dump"}
        if data_name not in prefixes:
            raise KeyError(f"{data_name} is not one of {sorted(prefixes)}")
        command = {"prefix": prefixes[data_name]}
        if data_name == "pg_stats":
            command["dumpcontents"] = ["pgs"]
        return self._host.json_from_mon(command)

    def get_osdmap(self) -> Any:
        epoch = self._host.json_from_mon({"prefix": "osd stat"})["epoch"]
        return types.SimpleNamespace(get_epoch=lambda: epoch)

    def get_metadata(self, daemon_type: str, daemon_id: str) -> Optional[dict]:
        ret, out, _ = self._host.mon_command({"prefix": f"{daemon_type} metadata", "id": int(daemon_id),
                                              "format": "json"})
        try:
            return json.loads(out) if ret == 0 else None
        except ValueError:
            return None

    def send_command(self, result: CommandResult, daemon_type: str, daemon_id: str, command: str,
                     tag: str) -> None:
        if daemon_type == "osd":
            work = lambda: self._host.osd_command(int(daemon_id), command)
        elif daemon_type == "mon":
            work = lambda: self._host.mon_command(json.loads(command), target=daemon_id)
        else:
            raise ValueError(f"daemon type is {daemon_type!r}; accepted: osd, mon")
        self._host.executor.submit(lambda: result.complete(*work()))

    def mon_command(self, command: dict) -> Tuple[int, str, str]:
        return self._host.mon_command(command)

    def get_store(self, key: str) -> Optional[str]:
        ret, out, _ = self._host.mon_command({"prefix": "config-key get", "key": f"mgr/{self.module_name}/{key}"})
        if ret == -errno.ENOENT:
            return None
        if ret != 0:
            raise RuntimeError(f"config-key get mgr/{self.module_name}/{key} failed ({ret})")
        return out

    def set_store(self, key: str, value: Optional[str]) -> None:
        name = f"mgr/{self.module_name}/{key}"
        command = {"prefix": "config-key rm", "key": name} if value is None else \
            {"prefix": "config-key set", "key": name, "val": value}
        ret, _, err = self._host.mon_command(command)
        if ret != 0:
            raise RuntimeError(f"storing {name} failed: {err.strip()} ({ret})")

    def get_module_option(self, name: str) -> Optional[str]:
        """The raw value: the modules validate their options themselves, naming the key."""
        return self._host.option(name)

    def set_health_checks(self, checks: Dict[str, dict]) -> None:
        self._host.health_checks = checks
        for listener in self._host.health_listeners:
            listener(checks)


def run_command(module: MgrModule, specs: Dict[str, CommandSpec], request: dict) -> HandleCommandResult:
    """One command as `ceph` would send it to the mgr module: {"prefix": ..., <argument>: ...}."""
    prefix = request.get("prefix")
    spec = specs.get(prefix)
    if spec is None:
        return HandleCommandResult(-errno.EINVAL, "", f"unknown command {prefix!r}; accepted: "
                                                      f"{', '.join(sorted(specs))}")
    arguments = {name: value for name, value in request.items() if name != "prefix"}
    unknown = sorted(set(arguments) - set(spec.params))
    if unknown:
        return HandleCommandResult(-errno.EINVAL, "", f"{prefix}: unknown argument {unknown[0]!r}; accepted: "
                                                      f"{', '.join(spec.params) or 'none'}")
    missing = [name for name in spec.required if name not in arguments]
    if missing:
        return HandleCommandResult(-errno.EINVAL, "", f"{prefix}: missing argument {missing[0]!r}; usage: "
                                                      f"{prefix} {' '.join(f'<{p}>' for p in spec.params)}")
    return HandleCommandResult(*getattr(module, spec.method)(**arguments))
