"""erails-controller MODULE: runs the rails or qbox mgr module's controller on librados.

Many may run (one per host, say); the one holding the lock on the module's control object is
active, the others wait to take over. The active one runs the module's loop, answers erails-ctl
through a watch on the control object, and reports its health checks in Ceph's service map
(`ceph service dump`) and, when they change, in the cluster log. SIGTERM stops it as ceph-mgr
stops a module: the module releases what it holds. A controller that dies without that is
covered by what covers a dead mgr: the OSDs' Rails leases run out.
"""
import argparse
import errno
import importlib
import json
import logging
import signal
import socket
import sys
import threading
import uuid
from typing import Dict

import rados

from . import channel
from .host import CommandSpec, Host, HandleCommandResult, as_mgr_module, commands_of, run_command

MODULES = ("rails", "qbox")
# The lock is asked for again this often by a standby.
STANDBY_RETRY_SECONDS = 5
# SIGTERM waits this long for the module to release what it holds.
STOP_SECONDS = 60
HEALTH_FORMATS = ("plain", "json", "json-pretty")


def load_module_class(name: str) -> type:
    """The module's Module class, importing it against host.py instead of ceph-mgr's mgr_module."""
    sys.modules["mgr_module"] = as_mgr_module()
    return importlib.import_module(f"{name}.module").Module


def health_status(checks: Dict[str, dict]) -> str:
    severities = {check.get("severity") for check in checks.values()}
    if "error" in severities:
        return "HEALTH_ERR"
    return "HEALTH_WARN" if checks else "HEALTH_OK"


def render_health(checks: Dict[str, dict], fmt: str) -> HandleCommandResult:
    if fmt not in HEALTH_FORMATS:
        return HandleCommandResult(-22, "", f"format is {fmt!r}; accepted: {', '.join(HEALTH_FORMATS)}")
    if fmt != "plain":
        document = {"status": health_status(checks), "checks": checks}
        return HandleCommandResult(0, json.dumps(document, indent=2 if fmt == "json-pretty" else None,
                                                 sort_keys=True), "")
    lines = [health_status(checks)]
    for code, check in sorted(checks.items()):
        lines.append(f"[{'ERR' if check.get('severity') == 'error' else 'WRN'}] {code}: {check.get('summary', '')}")
        lines.extend(f"    {detail}" for detail in check.get("detail", []))
    return HandleCommandResult(0, "\n".join(lines) + "\n", "")


class Controller:
    """One module's controller in this process; active while it holds the control object's lock."""

    def __init__(self, cluster: rados.Rados, module_name: str, pool: str, daemon: str) -> None:
        self.cluster = cluster
        self.module_name = module_name
        self.pool = pool
        self.daemon = daemon
        self.log = logging.getLogger(f"erails.{module_name}")
        self.object = channel.control_object(module_name)
        self.cookie = str(uuid.uuid4())
        self.stopping = threading.Event()
        self.module_class = load_module_class(module_name)
        self.specs: Dict[str, CommandSpec] = commands_of(self.module_class)
        self.command_lock = threading.Lock()
        self.watch_lost = threading.Event()
        self.module = None
        self.host = None
        self.reported: Dict[str, dict] = {}
        self.ioctx = self._open_pool()

    def _open_pool(self) -> rados.Ioctx:
        """The control objects' pool, created (replicated, Ceph's defaults) if there is none."""
        if not self.cluster.pool_exists(self.pool):
            self.log.info("creating pool %s for the controllers' control objects", self.pool)
            for command in ({"prefix": "osd pool create", "pool": self.pool, "pg_num": 1, "pgp_num": 1},
                            {"prefix": "osd pool application enable", "pool": self.pool, "app": channel.APPLICATION}):
                ret, _, err = self.cluster.mon_command(json.dumps(command), b"", 30)
                if ret != 0:
                    raise RuntimeError(f"`{command['prefix']} {self.pool}` failed: {err.strip()} ({ret})")
        ioctx = self.cluster.open_ioctx(self.pool)
        ioctx.write(self.object, b"", 0)
        return ioctx

    # --- the lock ----------------------------------------------------------------------------

    def _lock(self, renew: bool) -> bool:
        try:
            self.ioctx.lock_exclusive(self.object, channel.LOCK_NAME, self.cookie, desc=self.daemon,
                                      duration=channel.LOCK_SECONDS, flags=channel.LOCK_FLAG_RENEW if renew else 0)
            return True
        except (rados.ObjectBusy, rados.ObjectExists):
            return False
        except rados.Error as error:
            hint = " (the OSDs run no lock object class: is their osd_class_dir right?)" \
                if getattr(error, "errno", None) == errno.EOPNOTSUPP else ""
            self.log.warning("locking %s/%s: %s%s", self.pool, self.object, error, hint)
            return False

    def _unlock(self) -> None:
        try:
            self.ioctx.unlock(self.object, channel.LOCK_NAME, self.cookie)
        except rados.Error as error:
            self.log.warning("could not drop the lock on %s/%s: %s", self.pool, self.object, error)

    # --- running -----------------------------------------------------------------------------

    def run(self) -> None:
        self._update_service("standby")
        while not self.stopping.is_set():
            if self._lock(renew=False):
                try:
                    self._run_active()
                except rados.Error as error:
                    self.log.error("the control object failed while active (%s); the module stopped, standing by",
                                   error)
            else:
                self.stopping.wait(STANDBY_RETRY_SECONDS)

    def _run_active(self) -> None:
        self.log.info("active: running the %s controller (lock %s on %s/%s)", self.module_name, channel.LOCK_NAME,
                      self.pool, self.object)
        host = self.host = Host(self.cluster, self.module_name)
        host.health_listeners.append(self._report_health)
        self.module = self.module_class(host)
        serve = threading.Thread(target=self.module.serve, name=f"{self.module_name}-serve")
        serve.start()
        watch = None
        try:
            watch = self._watch()
            self._update_service("active")
            while not self.stopping.wait(channel.LOCK_RENEW_SECONDS):
                if not serve.is_alive():
                    self.log.error("the module's loop ended; stopping")
                    self.stopping.set()
                elif not self._lock(renew=True):
                    self.log.error("could not renew the lock on %s/%s (another controller took it, or the "
                                   "cluster did not answer); stopping the module and standing by", self.pool,
                                   self.object)
                    break
                elif self.watch_lost.is_set():
                    watch.close()
                    watch = self._watch()
        finally:
            if watch is not None:
                watch.close()
            self.module.shutdown()
            serve.join(STOP_SECONDS)
            if serve.is_alive():
                self.log.error("the module did not stop in %d s", STOP_SECONDS)
            self._unlock()
            self._update_service("standby")
            host.executor.shutdown(wait=False)

    def _watch(self) -> rados.Watch:
        """A watch breaks when its OSD session does (the PG moved, the OSD restarted); the loop
        then watches again, so commands are answered again within LOCK_RENEW_SECONDS."""
        self.watch_lost.clear()
        return self.ioctx.watch(self.object, self._on_notify, self._on_watch_error)

    def _on_watch_error(self, error: int) -> None:
        self.log.warning("the watch on %s/%s broke (%d); watching again", self.pool, self.object, error)
        self.watch_lost.set()

    def _on_notify(self, notify_id: int, notifier_id: int, watch_id: int, data: bytes) -> bytes:
        try:
            request = json.loads(data)
            if not isinstance(request, dict):
                raise ValueError("not a JSON object")
        except ValueError as error:
            return channel.encode_reply(-22, "", f"the command is not a JSON object: {error}")
        with self.command_lock:
            try:
                result = self._command(request)
            except Exception as error:  # an answer, not a dead watch thread
                self.log.exception("command %s failed", request.get("prefix"))
                result = HandleCommandResult(-5, "", f"{type(error).__name__}: {error}")
        return channel.encode_reply(*result)

    def _command(self, request: dict) -> HandleCommandResult:
        if request.get("prefix") == f"{self.module_name} health":
            return render_health(self.host.health_checks, request.get("format", "plain"))
        return run_command(self.module, self.specs, request)

    # --- health -----------------------------------------------------------------------------

    def _report_health(self, checks: Dict[str, dict]) -> None:
        """Without a mgr module, a health check cannot reach `ceph health`: the service map carries
        the controller's status, and the cluster log each check that appears, changes or clears."""
        for code, check in sorted(checks.items()):
            if self.reported.get(code) != check:
                self._cluster_log(f"{code}: {check.get('summary', '')}")
        for code in sorted(set(self.reported) - set(checks)):
            self._cluster_log(f"{code} cleared")
        self.reported = dict(checks)
        self._update_service("active")

    def _cluster_log(self, text: str) -> None:
        message = f"{channel.service_name(self.module_name)}.{self.daemon}: {text}"
        ret, _, err = self.cluster.mon_command(json.dumps({"prefix": "log", "logtext": [message]}),
                                               b"", 30)
        if ret != 0:
            self.log.warning("cluster log: %s (%d)", err.strip(), ret)

    def _update_service(self, state: str) -> None:
        checks = self.reported if state == "active" else {}
        try:
            self.cluster.service_daemon_update({"state": state, "health": health_status(checks),
                                                "checks": ",".join(sorted(checks))})
        except rados.Error as error:
            self.log.warning("service map: %s", error)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="erails-controller", description=__doc__.splitlines()[0])
    parser.add_argument("module", choices=MODULES)
    parser.add_argument("-c", "--conf", default="", help="ceph.conf (default: Ceph's search, CEPH_CONF)")
    parser.add_argument("-n", "--name", default="client.admin", help="cephx user (default client.admin)")
    parser.add_argument("--pool", default=channel.DEFAULT_POOL,
                        help=f"pool of the control objects (default {channel.DEFAULT_POOL}, created if absent)")
    parser.add_argument("--id", default=socket.gethostname(), help="this controller's name in the service map "
                                                                   "(default: the host name)")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level, stream=sys.stderr,
                        format=f"%(asctime)s erails-controller {args.module}.{args.id} %(levelname)s %(message)s")
    cluster = rados.Rados(conffile=args.conf, name=args.name)
    try:
        cluster.connect(timeout=60)
    except rados.Error as error:
        logging.error("cannot connect to the cluster as %s: %s", args.name, error)
        return 1
    cluster.service_daemon_register(channel.service_name(args.module), args.id,
                                    {"module": args.module, "pool": args.pool})
    try:
        controller = Controller(cluster, args.module, args.pool, args.id)
    except (RuntimeError, rados.Error) as error:
        logging.error("cannot set up the control object in pool %s: %s", args.pool, error)
        cluster.shutdown()
        return 1
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: controller.stopping.set())
    controller.run()
    cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
