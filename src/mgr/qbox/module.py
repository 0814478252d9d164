"""ceph-mgr module `qbox`: the operator's table of per-client device-time shares, carried to the
QBox scheduler inside every OSD (libec_qbox.so, which answers `qbox status` and `qbox set` on each
OSD's admin socket, reached with `tell`).

Everything that decides lives in pure code (table, throughput, sla, sessions, push, health, status,
settings); this file keeps the table in the module's KV store, reads the monitors' sessions and the
OSD map, and every mgr/qbox/push_seconds converts the throughput SLAs again at the OSDs' latest
prices, asks every up OSD for its status and gives the table to each whose epoch differs. The
OSDs keep nothing across a restart; the table lives here.
"""
import errno
import json
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from mgr_module import (CLIReadCommand, CLIWriteCommand, CommandResult, HandleCommandResult, MgrModule, NotifyType,
                        Option)

from .health import MissTracker, health_checks
from .push import (STATUS_COMMAND, OsdReport, needing_push, next_epoch, read_push, read_status, set_command,
                   table_body)
from .sessions import owners_by_name, without_shared
from .settings import OPTION_TABLE, Settings, validate
from .sla import client_prices, costs_by_osd, rederive, sla_entries, write_prices_by_osd
from .status import build_status, render_plain
from .table import (Refusal, Table, from_json, parse_client_name, parse_utilization, remove_client, set_background,
                    set_client, set_throughput, to_json)
from .throughput import Derivation, derive, parse_throughput

# A command that has not answered in this long counts as failed; the next round asks again.
COMMAND_TIMEOUT_SECONDS = 10.0
TABLE_KEY = "table"
PUSHED_KEY = "pushed"
FORMATS = ("plain", "json", "json-pretty")


def _module_options() -> List[Option]:
    defaults = Settings()
    return [Option(name, type="float", default=getattr(defaults, name), min=low, max=high, desc=desc, runtime=True)
            for name, (low, high, desc) in OPTION_TABLE.items()]


def _refused(refusal: Refusal) -> HandleCommandResult:
    return HandleCommandResult(refusal.errno, "", refusal.message)


class Module(MgrModule):
    MODULE_OPTIONS = _module_options()
    # An OSD that comes up has no table (epoch 0) and needs it at once, not at the next round.
    NOTIFY_TYPES = [NotifyType.osd_map]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wakeup = threading.Event()
        self._stopping = False
        self._lock = threading.Lock()
        self._settings = Settings()
        self._setting_errors: List[str] = []
        self._table = Table()
        self._store_problem: Optional[str] = None
        self._epoch = 0
        self._pushed_body: Optional[dict] = None
        self._owners: Dict[str, List[int]] = {}
        self._session_problems: List[str] = []
        self._up_osds: List[int] = []
        self._reports: Dict[int, OsdReport] = {}
        self._push_failures: Dict[int, str] = {}
        self._misses = MissTracker()
        self._derived: Dict[str, Derivation] = {}
        self._sla_refused: Dict[str, str] = {}
        self._loop_error: Optional[str] = None
        self._health: Dict[str, dict] = {}
        self._load_store()

    # --- the table and its store -----------------------------------------------------------

    def _load_store(self) -> None:
        stored = self.get_store(TABLE_KEY)
        if stored is not None:
            table = from_json(stored)
            if isinstance(table, Refusal):
                # Pushing a guessed table would take shares from clients the operator gave them
                # to; the OSDs keep the table they have until the operator sets one.
                self._store_problem = f"{table.message}; nothing is pushed until `ceph qbox set` replaces it"
                self.log.error("qbox: %s", self._store_problem)
            else:
                self._table = table
        pushed = self.get_store(PUSHED_KEY)
        if pushed is not None:
            try:
                record = json.loads(pushed)
                self._epoch, self._pushed_body = int(record["epoch"]), record["body"]
            except (ValueError, KeyError, TypeError):
                self.log.warning("qbox: stored push record unreadable; epochs start again at 1")

    def _change(self, change: Any, done: Callable[[], str] = lambda: "") -> HandleCommandResult:
        """Applies one table change (a function of the table, called with the lock held) under the
        lock, stores it and wakes the loop so the OSDs get it in this round. done(): what the
        change did, for the answer."""
        with self._lock:
            table = change(self._table)
            if isinstance(table, Refusal):
                return _refused(table)
            self._store(table)
            self._store_problem = None
            total = table.total()
            what = done()
        self._wakeup.set()
        return HandleCommandResult(0, "", f"{what}utilizations now sum to {total:.4g} of 1; the OSDs get the table "
                                          f"within mgr/qbox/push_seconds ({self._settings.push_seconds:g} s)")

    def _store(self, table: Table) -> None:
        """(with self._lock held)"""
        self.set_store(TABLE_KEY, to_json(table))
        self._table = table

    def _known_client(self, name: str) -> Optional[Refusal]:
        ret, _, err = self.mon_command({"prefix": "auth get", "entity": name, "format": "json"})
        if ret == -errno.ENOENT:
            return Refusal(-errno.ENOENT, f"client is {name!r}, which has no cephx key; accepted: a client listed by "
                                          "`ceph auth ls` (create it first with `ceph auth get-or-create`)")
        if ret != 0:
            return Refusal(ret, f"cannot check client {name!r} with the monitors: {err.strip()} ({ret})")
        return None

    @CLIWriteCommand("qbox set")
    def qbox_set(self, client: str, utilization: str) -> HandleCommandResult:
        """Reserve a share of each OSD's device time (0 < utilization <= 1) for a cephx client"""
        name = parse_client_name(client)
        if isinstance(name, Refusal):
            return _refused(name)
        u = parse_utilization("utilization", utilization)
        if isinstance(u, Refusal):
            return _refused(u)
        unknown = self._known_client(name)
        if unknown is not None:
            return _refused(unknown)
        return self._change(lambda table: set_client(table, name, u))

    @CLIWriteCommand("qbox set-throughput")
    def qbox_set_throughput(self, client: str, iops: str, size: str, op: str,
                            access: Optional[str] = None) -> HandleCommandResult:
        """Reserve what <iops> ops need of each OSD's device time: writes at the write price for <size>, reads at the client's measured price (else the class's)"""
        name = parse_client_name(client)
        if isinstance(name, Refusal):
            return _refused(name)
        throughput = parse_throughput(iops, size, op, access)
        if isinstance(throughput, Refusal):
            return _refused(throughput)
        unknown = self._known_client(name)
        if unknown is not None:
            return _refused(unknown)
        conversions: List[Derivation] = []

        def change(table: Table) -> Any:
            conversion = derive(throughput, costs_by_osd(self._reports), client_prices(self._reports).get(name),
                                write_prices_by_osd(self._reports))
            if isinstance(conversion, Refusal):
                return conversion
            admitted = set_throughput(table, name, throughput, conversion.utilization,
                                      conversion.describe(throughput))
            if not isinstance(admitted, Refusal):
                conversions.append(conversion)
                self._derived[name] = conversion
                self._sla_refused.pop(name, None)
            return admitted
        return self._change(change, lambda: f"{name}: {throughput.describe()} -> utilization "
                                            f"{conversions[0].describe(throughput)}; ")

    @CLIWriteCommand("qbox rm")
    def qbox_rm(self, client: str) -> HandleCommandResult:
        """Remove a client's reservation: its ops share what is unreserved"""
        name = parse_client_name(client)
        if isinstance(name, Refusal):
            return _refused(name)
        return self._change(lambda table: remove_client(table, name))

    @CLIWriteCommand("qbox set-background")
    def qbox_set_background(self, background_class: str, utilization: str) -> HandleCommandResult:
        """Reserve device time for recovery or best_effort (scrub, snap trim, PG deletion)"""
        u = parse_utilization("utilization", utilization)
        if isinstance(u, Refusal):
            return _refused(u)
        return self._change(lambda table: set_background(table, background_class, u))

    @CLIReadCommand("qbox status")
    def qbox_status(self, format: Optional[str] = "plain") -> HandleCommandResult:
        """Show the qbox table and, per OSD and client, target, achieved share and estimated costs"""
        if format not in FORMATS:
            return HandleCommandResult(-errno.EINVAL, "", f"format is {format!r}; accepted: {', '.join(FORMATS)}")
        with self._lock:
            status = build_status(self._table, self._epoch, without_shared(self._owners), self._up_osds,
                                  self._reports, self._push_failures, self._problems(), time.time(),
                                  sla_entries(self._table, self._derived, self._sla_refusals()))
        if format == "plain":
            return HandleCommandResult(0, render_plain(status), "")
        return HandleCommandResult(0, json.dumps(status, indent=2 if format == "json-pretty" else None,
                                                 sort_keys=True), "")

    # --- mgr entry points ------------------------------------------------------------------

    def config_notify(self) -> None:
        self._wakeup.set()

    def notify(self, notify_type: NotifyType, notify_id: str) -> None:
        if notify_type == NotifyType.osd_map:
            self._wakeup.set()

    def shutdown(self) -> None:
        self._stopping = True
        self._wakeup.set()

    def serve(self) -> None:
        while not self._stopping:
            try:
                self._loop_once()
                self._loop_error = None
            except Exception as error:  # an ended loop would leave restarted OSDs without a table
                self.log.exception("qbox: the push loop failed")
                self._loop_error = f"the push loop failed: {type(error).__name__}: {error}"
            try:
                self._update_health()
            except Exception:  # the loop goes on; the mgr log has the reason
                self.log.exception("qbox: could not update the health checks")
            self._wakeup.clear()
            self._wakeup.wait(self._settings.push_seconds)

    # --- one round ----------------------------------------------------------------------------

    def _loop_once(self) -> None:
        self._refresh_settings()
        up = sorted(o["osd"] for o in self.get("osd_map").get("osds", []) if o.get("up"))
        owners = self._read_owners()
        with self._lock:
            self._up_osds = up
            if owners is not None:
                self._owners = owners
            self._rederive()
            body = table_body(self._table, without_shared(self._owners))
            may_push = self._store_problem is None
            if may_push:
                epoch = next_epoch(self._epoch, self._pushed_body, body)
                if epoch != self._epoch:
                    self.set_store(PUSHED_KEY, json.dumps({"epoch": epoch, "body": body}, sort_keys=True))
                    self._epoch, self._pushed_body = epoch, body
            epoch = self._epoch
        reports = {osd: read_status(osd, *outcome)
                   for osd, outcome in self._tell_many({osd: STATUS_COMMAND for osd in up}).items()}
        failures: Dict[int, str] = {}
        if may_push:
            pushes = needing_push(reports, epoch)
            for osd, outcome in self._tell_many({osd: set_command(epoch, body) for osd in pushes}).items():
                report, failure = read_push(osd, *outcome)
                if report is not None:
                    reports[osd] = report
                else:
                    failures[osd] = failure
                    self.log.error("qbox: %s", failure)
            if pushes:
                self.log.info("qbox: table epoch %d pushed to %s, refused or unanswered by %s", epoch,
                              [osd for osd in pushes if osd not in failures], sorted(failures))
        now = time.time()
        with self._lock:
            self._reports = reports
            self._push_failures = failures
            self._misses.observe(reports, self._settings, now)

    def _rederive(self) -> None:
        """(with self._lock held) The SLAs at the last round's prices; a stored table the
        module could not read is not touched, as nothing of it is pushed either."""
        if self._store_problem is not None or not self._table.throughputs:
            return
        result = rederive(self._table, costs_by_osd(self._reports), self._settings.sla_lower_margin,
                          client_prices(self._reports), write_prices_by_osd(self._reports))
        for name, why in result.refused.items():
            if self._sla_refused.get(name) is None:
                self.log.warning("qbox: %s", why)
        # An SLA no OSD priced this round (they all restarted, say) keeps the conversion it had.
        self._derived = {name: conversion for name, conversion in self._derived.items()
                         if name in result.table.throughputs} | result.derived
        self._sla_refused = result.refused
        if result.table != self._table:
            self.log.info("qbox: SLA utilizations now %s", {name: round(result.table.clients[name], 4)
                                                            for name in sorted(result.table.throughputs)})
            self._store(result.table)

    def _refresh_settings(self) -> None:
        raw = {name: self.get_module_option(name) for name in OPTION_TABLE}
        with self._lock:
            settings, errors = validate(raw, self._settings)
            for error in errors:
                if error not in self._setting_errors:
                    self.log.error("qbox: ignoring setting: %s", error)
            self._settings, self._setting_errors = settings, errors

    def _read_owners(self) -> Optional[Dict[str, List[int]]]:
        """cephx name -> global ids from every monitor's sessions, or None (keep the last mapping)
        when any monitor did not answer: a client missing from one list would lose its share."""
        mons = [mon["name"] for mon in self.get("mon_map").get("mons", [])]
        pending = {}
        for mon in mons:
            result = CommandResult("")
            self.send_command(result, "mon", mon, json.dumps({"prefix": "sessions", "format": "json"}), "")
            pending[mon] = result
        lists, problems = [], []
        for mon, (ret, out, err) in self._wait_all(pending).items():
            try:
                lists.append(json.loads(out) if ret == 0 else None)
            except ValueError:
                lists.append(None)
            if lists[-1] is None:
                problems.append(f"mon.{mon}: cannot read its sessions, so new client sessions do not reach "
                                f"the OSDs: {err.strip() or out[:100]!r} ({ret})")
        with self._lock:
            self._session_problems = problems
        return None if problems else owners_by_name(lists)

    def _tell_many(self, commands: Dict[int, dict]) -> Dict[int, Tuple[int, str, str]]:
        """Sends one command to each OSD at once and waits for all."""
        pending = {}
        for osd, command in commands.items():
            result = CommandResult("")
            self.send_command(result, "osd", str(osd), json.dumps(command), "")
            pending[osd] = result
        return self._wait_all(pending)

    def _wait_all(self, pending: Dict[Any, CommandResult]) -> Dict[Any, Tuple[int, str, str]]:
        """A command that does not answer in time is -110 (ETIMEDOUT)."""
        deadline = time.time() + COMMAND_TIMEOUT_SECONDS
        outcomes = {}
        for key, result in pending.items():
            if result.ev.wait(max(0.0, deadline - time.time())):
                outcomes[key] = (result.r, result.outb, result.outs)
            else:
                outcomes[key] = (-errno.ETIMEDOUT, "", f"no answer in {COMMAND_TIMEOUT_SECONDS:.0f} s")
        return outcomes

    # --- health ------------------------------------------------------------------------------

    def _problems(self) -> List[str]:
        """(with self._lock held)"""
        problems = list(self._setting_errors) + list(self._session_problems)
        if self._store_problem:
            problems.append(self._store_problem)
        if self._loop_error:
            problems.append(self._loop_error)
        return problems

    def _sla_refusals(self) -> Dict[str, str]:
        """(with self._lock held) Only of clients whose utilization still comes from an SLA."""
        return {name: why for name, why in self._sla_refused.items() if name in self._table.throughputs}

    def _update_health(self) -> None:
        now = time.time()
        with self._lock:
            checks = health_checks(self._up_osds, self._reports, self._misses.long_misses(self._settings, now),
                                   self._push_failures, self._problems(), now,
                                   [why for _, why in sorted(self._sla_refusals().items())])
        if checks != self._health:
            self._health = checks
            self.set_health_checks(checks)
