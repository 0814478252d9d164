"""ceph-mgr module `rails`: switches BlueStore's deferred-write hold on the OSDs of each color as
the Rails schedule turns colors between read and write phase.

Everything that decides lives in pure code (topology, controller, accounting, settings, devices,
health, status); this file only feeds them the mgr's maps and the clock and carries their actions to the
OSDs. All OSD settings go through `tell` (runtime only), never the config database, so an OSD
that restarts comes back without a hold and the controller sends it its state again.
"""
import json
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

from mgr_module import CLIReadCommand, CommandResult, HandleCommandResult, MgrModule, NotifyType, Option

from .accounting import Counters, HoldAccounting, counters_from_perf_dump
from .controller import OsdAction, PhaseController, next_change
from .devices import device_problems
from .health import health_checks
from .settings import BATCH_OPS_MAX, OPTION_TABLE, Settings, SettingError, hold_args, release_args, validate
from .status import build_status, render_plain
from .topology import Topology, build_topology

# A tell that has not answered in this long counts as failed and is retried at the next step.
COMMAND_TIMEOUT_SECONDS = 10.0
# One 4 KiB write through `osd bench` is a BlueStore transaction on exactly that OSD, which is
# what makes a released OSD apply its backlog even when no client writes to it.
KICK_BENCH = {"prefix": "bench", "count": 4096, "size": 4096}

_TYPE_LABELS = {bool: "bool", int: "int", float: "float"}


def _module_options() -> List[Option]:
    defaults = Settings()
    return [Option(name, type=_TYPE_LABELS[kind], default=getattr(defaults, name), desc=desc, runtime=True)
            for name, (kind, _, _, desc) in OPTION_TABLE.items()]


class Module(MgrModule):
    MODULE_OPTIONS = _module_options()
    # A new OSD map may move OSDs between colors, change a profile or bring an OSD back without
    # its hold.
    NOTIFY_TYPES = [NotifyType.osd_map]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wakeup = threading.Event()
        self._stopping = False
        self._lock = threading.Lock()
        self._controller = PhaseController()
        self._accounting = HoldAccounting()
        self._settings = Settings()
        self._setting_error: Optional[SettingError] = None
        self._topology = Topology()
        self._osdmap_epoch = -1
        self._failed: Dict[int, str] = {}
        self._last_perf_read = 0.0
        self._health: Dict[str, dict] = {}
        self._device_problems: Dict[int, str] = {}

    # --- mgr entry points -------------------------------------------------------------------

    def config_notify(self) -> None:
        self._wakeup.set()

    def notify(self, notify_type: NotifyType, notify_id: str) -> None:
        if notify_type == NotifyType.osd_map:
            self._wakeup.set()

    def shutdown(self) -> None:
        self._stopping = True
        self._wakeup.set()

    @CLIReadCommand("rails status")
    def rails_status(self, format: Optional[str] = "plain") -> HandleCommandResult:
        """Show colors, OSDs, phases, next switch and per-OSD held state"""
        if format not in ("plain", "json", "json-pretty"):
            return HandleCommandResult(-22, "", f"format is {format!r}; accepted: plain, json, json-pretty")
        with self._lock:
            status = build_status(self._topology, self._controller.states(), self._accounting,
                                  self._settings, time.time())
            status["setting_error"] = None if self._setting_error is None else self._setting_error.message
            status["failed_commands"] = dict(self._failed)
            status["device_problems"] = list(self._device_problems.values())
        if format == "plain":
            text = render_plain(status)
            if status["setting_error"]:
                text += f"setting ignored: {status['setting_error']}\n"
            for osd, why in sorted(status["failed_commands"].items()):
                text += f"osd.{osd}: last command failed: {why}\n"
            for problem in status["device_problems"]:
                text += problem + "\n"
            return HandleCommandResult(0, text, "")
        indent = 2 if format == "json-pretty" else None
        return HandleCommandResult(0, json.dumps(status, indent=indent, sort_keys=True), "")

    def serve(self) -> None:
        while not self._stopping:
            self._refresh_settings()
            self._refresh_topology()
            now = time.time()
            with self._lock:
                actions = self._controller.step(self._topology, now, self._settings.active)
            if actions:
                self._carry_out(actions)
            if time.time() - self._last_perf_read >= self._settings.perf_seconds:
                self._read_held_counters()
                self._check_osds_hold_what_was_confirmed()
                # OSD metadata arrives after the OSD boots, without a new OSD map.
                self._refresh_devices()
            self._update_health()
            self._wakeup.clear()
            self._wakeup.wait(self._sleep_seconds(time.time()))

    # --- state from the cluster --------------------------------------------------------------

    def _refresh_settings(self) -> None:
        raw = {name: self.get_module_option(name) for name in OPTION_TABLE}
        result = validate(raw)
        with self._lock:
            if isinstance(result, SettingError):
                if self._setting_error != result:
                    self.log.error("ignoring settings: %s", result.message)
                self._setting_error = result
            else:
                self._setting_error = None
                self._settings = result

    def _refresh_topology(self) -> None:
        epoch = self.get_osdmap().get_epoch()
        if epoch == self._osdmap_epoch:
            return
        topology = build_topology(self.get("osd_map"), self.get("osd_map_crush"))
        with self._lock:
            self._topology = topology
            self._osdmap_epoch = epoch
        self._refresh_devices()
        for problem in topology.problems:
            self.log.warning("pool %s: %s", problem.pool, problem.message)

    def _refresh_devices(self) -> None:
        with self._lock:
            colored = list(self._topology.colored_osds())
        problems = device_problems(colored, {osd: self.get_metadata("osd", str(osd)) for osd in colored})
        with self._lock:
            self._device_problems = problems

    def _sleep_seconds(self, now: float) -> float:
        with self._lock:
            change = next_change(self._topology, now)
            poll = self._settings.poll_seconds
        if change is None:
            return poll
        return max(0.0, min(poll, change - now))

    # --- talking to OSDs ---------------------------------------------------------------------

    def _tell_many(self, commands: Dict[int, dict]) -> Dict[int, Tuple[int, str, str]]:
        """Send one command to each OSD at once and wait for all; a timeout is -110 (ETIMEDOUT)."""
        pending = {}
        for osd, command in commands.items():
            result = CommandResult("")
            self.send_command(result, "osd", str(osd), json.dumps(command), "")
            pending[osd] = result
        deadline = time.time() + COMMAND_TIMEOUT_SECONDS
        outcomes = {}
        for osd, result in pending.items():
            if result.ev.wait(max(0.0, deadline - time.time())):
                outcomes[osd] = (result.r, result.outb, result.outs)
            else:
                outcomes[osd] = (-110, "", f"no answer in {COMMAND_TIMEOUT_SECONDS:.0f} s")
        return outcomes

    def _counters(self, osds: List[int]) -> Dict[int, Counters]:
        found = {}
        outcomes = self._tell_many({osd: {"prefix": "perf dump", "logger": "bluestore", "format": "json"}
                                    for osd in osds})
        for osd, (ret, out, _) in outcomes.items():
            if ret != 0:
                continue
            try:
                counters = counters_from_perf_dump(json.loads(out))
            except ValueError:
                counters = None
            if counters is not None:
                found[osd] = counters
        return found

    def _carry_out(self, actions: List[OsdAction]) -> None:
        """Holds and releases go out together (a switch is one instant for every color); each
        release is then kicked so the OSD applies its backlog even without client writes."""
        settings = self._settings
        releasing = [a.osd for a in actions if not a.hold]
        before_kick = self._counters(releasing) if releasing else {}
        commands = {a.osd: {"prefix": "injectargs",
                            "injected_args": list(hold_args(settings) if a.hold else release_args())}
                    for a in actions}
        outcomes = self._tell_many(commands)
        kicks = {}
        now = time.time()
        with self._lock:
            for action in actions:
                ret, _, err = outcomes[action.osd]
                self._controller.confirm(action, ret == 0, now)
                if ret != 0:
                    self._failed[action.osd] = f"{'hold' if action.hold else 'release'}: {err.strip()} ({ret})"
                    self.log.error("osd.%d: %s", action.osd, self._failed[action.osd])
                    continue
                self._failed.pop(action.osd, None)
                if not action.hold:
                    kicks[action.osd] = KICK_BENCH
        for osd, (ret, _, err) in self._tell_many(kicks).items():
            if ret != 0:
                with self._lock:
                    self._failed[osd] = f"release kick (osd bench): {err.strip()} ({ret})"
                self.log.error("osd.%d: release kick (osd bench): %s (%d)", osd, err.strip(), ret)
        holding = [a.osd for a in actions if a.hold and outcomes[a.osd][0] == 0]
        after = self._counters(list(kicks) + holding)
        with self._lock:
            for osd in holding:
                if osd in after:
                    self._accounting.hold_started(osd, after[osd])
                else:
                    self._accounting.forget(osd)
            for osd in kicks:
                if osd in before_kick and osd in after:
                    self._accounting.released(osd, before_kick[osd], after[osd], settings.held_op_limit())
                else:
                    self._accounting.forget(osd)
        self.log.info("rails: held %s released %s", sorted(holding), sorted(kicks))

    def _read_held_counters(self) -> None:
        self._last_perf_read = time.time()
        with self._lock:
            held = [osd for osd, state in self._controller.states().items() if state.held]
        if not held:
            return
        counters = self._counters(held)
        with self._lock:
            for osd, value in counters.items():
                self._accounting.observe(osd, value)

    def _check_osds_hold_what_was_confirmed(self) -> None:
        with self._lock:
            confirmed = list(self._controller.states())
        observed = {}
        outcomes = self._tell_many({osd: {"prefix": "config get", "var": "bluestore_deferred_batch_ops",
                                          "format": "json"} for osd in confirmed})
        for osd, (ret, out, _) in outcomes.items():
            try:
                value = json.loads(out)["bluestore_deferred_batch_ops"] if ret == 0 else None
            except (ValueError, KeyError):
                value = None
            if value is not None:
                observed[osd] = value == str(BATCH_OPS_MAX)
        with self._lock:
            differing = self._controller.reconcile(observed)
            for osd in differing:
                self._accounting.forget(osd)
        if differing:
            self.log.warning("rails: OSDs %s did not hold as confirmed; sending their state again", differing)

    # --- health ------------------------------------------------------------------------------

    def _update_health(self) -> None:
        with self._lock:
            checks = health_checks(self._topology, self._accounting, self._settings,
                                   self._setting_error, self._failed, self._device_problems)
        if checks != self._health:
            self._health = checks
            self.set_health_checks(checks)
