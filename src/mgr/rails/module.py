"""ceph-mgr module `rails`: switches BlueStore's deferred-write hold on the OSDs of each color as
the Rails schedule turns colors between read and write phase.

Everything that decides lives in pure code (topology, controller, pacing, accounting, settings,
devices, reads, clock, health, status); this file only feeds them the mgr's maps, the PG stats
and the clock and carries their actions to the OSDs. All OSD settings go through `tell` (runtime
only), never the config database, so an OSD that restarts comes back without a hold and the
controller sends it its state again. Every held OSD also has a lease (lease.py, src/rails_osd) that
the loop renews every few seconds: an OSD whose lease runs out, because this module was disabled
or its mgr died, releases itself.
"""
import json
import threading
import time
from typing import Any, Dict, List, Optional, Set, Tuple

from mgr_module import CLIReadCommand, CommandResult, HandleCommandResult, MgrModule, NotifyType, Option

from . import clock
from .accounting import Counters, HoldAccounting, counters_from_perf_dump, kick_applied
from .avoid import avoid_command, avoid_seconds, avoided_colors, clear_command, mark_lines
from .controller import OsdAction, Pacing, PhaseController, defer_interval_seconds, next_change
from .devices import device_problems
from .health import health_checks
from .lease import NO_LEASE_ERRNO, cancel_command, grant_command, lapsed, lease_seconds, renewals_due
from .pacing import effective_spread
from .reads import MixedReads, pg_reads
from .settings import (BATCH_OPS_MAX, OPTION_TABLE, Settings, SettingError, hold_args, over_budget_args,
                       release_args, self_applied_bytes, unslow_command, validate)
from .slow_osds import SlowOsds, totals_from_perf_dump
from .status import build_status, render_plain
from .topology import Topology, build_topology

# A tell that has not answered in this long counts as failed and is retried at the next step.
COMMAND_TIMEOUT_SECONDS = 10.0
# One 4 KiB write through `osd bench` is a BlueStore transaction on exactly that OSD, which is
# what makes a released OSD apply its backlog even when no client writes to it.
KICK_BENCH = {"prefix": "bench", "count": 4096, "size": 4096}
# Kicks sent to one release before it is reported as not applied (RAILS_OSD_COMMAND_FAILED).
MAX_KICKS = 3
# After the control loop fails, no OSD is held for this long: a failure that repeats at every loop
# would otherwise hold and release OSDs in a spin.
LOOP_ERROR_PAUSE_SECONDS = 60.0

_TYPE_LABELS = {bool: "bool", int: "int", float: "float"}


def _module_options() -> List[Option]:
    defaults = Settings()
    return [Option(name, type=_TYPE_LABELS[kind], default=getattr(defaults, name), desc=desc, runtime=True,
                   **({} if low is None else {"min": low, "max": high}))
            for name, (kind, low, high, desc) in OPTION_TABLE.items()]


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
        self._setting_errors: List[SettingError] = []
        self._loop_error: Optional[str] = None
        self._holding_paused_until = 0.0
        self._topology = Topology()
        self._osdmap_epoch = -1
        self._failed: Dict[int, str] = {}
        # OSDs that refused the lease (osd -> their answer): held as before, named by RAILS_NO_LEASE,
        # and offered the lease again only with their next hold.
        self._no_lease: Dict[int, str] = {}
        # OSDs whose lease this module granted and has not cancelled -> when the last successful
        # grant was sent (lease.renewals_due).
        self._leased: Dict[int, float] = {}
        self._last_perf_read = 0.0
        self._health: Dict[str, dict] = {}
        self._device_problems: Dict[int, str] = {}
        self._spread_error: Optional[SettingError] = None
        self._pacing = Pacing()
        self._mixed = MixedReads()
        self._time_sync: dict = {}
        self._mgr_clock: Optional[clock.KernelClock] = None
        self._clock_problems: List[str] = []
        self._slow = SlowOsds()
        self._last_slow_read = 0.0
        # OSDs sent marks that are not cleared yet.
        self._avoiding: Set[int] = set()
        # OSDs that did not take the marks -> their answer.
        self._avoid_failed: Dict[int, str] = {}

    # --- mgr entry points -------------------------------------------------------------------

    def config_notify(self) -> None:
        self._wakeup.set()

    def notify(self, notify_type: NotifyType, notify_id: str) -> None:
        if notify_type == NotifyType.osd_map:
            self._wakeup.set()

    def shutdown(self) -> None:
        """serve() sees the flag, leaves its loop and releases every OSD before it returns (ceph-mgr
        joins it after this returns). `ceph mgr module disable` and a mgr fail-over never get
        here: ceph-mgr re-executes itself without stopping its modules: the OSDs' leases run out
        and they release themselves (lease.py), and BlueStore's own bounds (settings.hold_args)
        end the holds of OSDs without a lease."""
        self._stopping = True
        self._wakeup.set()

    @CLIReadCommand("rails status")
    def rails_status(self, format: Optional[str] = "plain") -> HandleCommandResult:
        """Show colors, OSDs, phases, next switch and per-OSD held state"""
        if format not in ("plain", "json", "json-pretty"):
            return HandleCommandResult(-22, "", f"format is {format!r}; accepted: plain, json, json-pretty")
        with self._lock:
            status = build_status(self._topology, self._controller.states(), self._accounting,
                                  self._settings, time.time(), self._mixed, self._leased, self._no_lease)
            status["setting_errors"] = [error.message for error in self._setting_errors]
            status["loop_error"] = self._loop_error
            status["spread_error"] = None if self._spread_error is None else self._spread_error.message
            status["release_spread_seconds"] = self._pacing.spread_seconds
            status["clocks"] = clock.describe(self._time_sync, self._mgr_clock)
            status["clock_problems"] = list(self._clock_problems)
            status["failed_commands"] = dict(self._failed)
            status["no_lease"] = dict(self._no_lease)
            status["device_problems"] = list(self._device_problems.values())
            status["slow_osds"] = mark_lines(self._slow.marks, self._topology)
            status["slow_osds_marked"] = sorted(self._slow.marks)
            status["avoid_failed"] = dict(self._avoid_failed)
        if format == "plain":
            text = render_plain(status)
            for message in status["setting_errors"]:
                text += f"setting ignored: {message}\n"
            if status["loop_error"]:
                text += f"control loop failed, no OSD held for now: {status['loop_error']}\n"
            if status["spread_error"]:
                text += f"setting cut: {status['spread_error']}\n"
            text += f"releases spread over {status['release_spread_seconds']:.3f} s\n" + status["clocks"] + "\n"
            for osd, why in sorted(status["failed_commands"].items()):
                text += f"osd.{osd}: last command failed: {why}\n"
            for osd, why in sorted(status["no_lease"].items()):
                text += f"osd.{osd}: no Rails lease, a hold ends only by BlueStore's bounds if the module stops: {why}\n"
            for problem in status["device_problems"]:
                text += problem + "\n"
            for line in status["slow_osds"]:
                text += f"slow: {line}\n"
            for osd, why in sorted(status["avoid_failed"].items()):
                text += f"osd.{osd}: did not take the slow OSDs' marks: {why}\n"
            return HandleCommandResult(0, text, "")
        indent = 2 if format == "json-pretty" else None
        return HandleCommandResult(0, json.dumps(status, indent=indent, sort_keys=True), "")

    def serve(self) -> None:
        while not self._stopping:
            try:
                sleep = self._loop_once()
            except Exception as error:  # a loop that ended would leave OSDs held with no one to release them
                sleep = self._after_loop_error(error)
            self._wakeup.clear()
            self._wakeup.wait(sleep)
        self._release_all("the module is stopping")

    def _loop_once(self) -> float:
        """One pass of the control loop; returns how long to sleep."""
        self._refresh_settings()
        self._refresh_topology()
        self._renew_leases(time.time())
        now = time.time()
        with self._lock:
            holding = self._holding(now)
            actions = self._controller.step(self._topology, now, holding, self._pacing)
        all_taken = not actions or self._carry_out(actions)
        if time.time() - self._last_perf_read >= self._settings.perf_seconds:
            self._read_held_counters()
            self._slow_writers_over_budget()
            self._check_osds_hold_what_was_confirmed()
            # OSD metadata arrives after the OSD boots, without a new OSD map.
            self._refresh_devices()
            self._count_mixed_reads()
            self._check_clocks()
        if time.time() - self._last_slow_read >= self._settings.slow_osd_window_seconds:
            self._watch_slow_osds()
        if holding:
            with self._lock:
                self._loop_error = None
        self._update_health()
        return self._sleep_seconds(time.time(), all_taken)

    def _holding(self, now: float) -> bool:
        """Whether OSDs may be held at `now` (with self._lock held)."""
        return self._settings.active and now >= self._holding_paused_until

    def _after_loop_error(self, error: Exception) -> float:
        self.log.exception("rails: control loop failed; releasing every OSD, none held for %.0f s",
                           LOOP_ERROR_PAUSE_SECONDS)
        with self._lock:
            self._loop_error = f"{type(error).__name__}: {error}"
            self._holding_paused_until = time.time() + LOOP_ERROR_PAUSE_SECONDS
        self._release_all("the control loop failed")
        try:
            self._update_health()
        except Exception:  # the loop goes on; the mgr log has the reason
            self.log.exception("rails: could not update the health checks")
        return self._settings.poll_seconds

    def _release_all(self, why: str) -> None:
        """Best effort: every up OSD of a color and every OSD with a confirmed state gets the release,
        and one kick so that it applies its backlog without client writes; the controller forgets
        them all, so the next step() sends every OSD its state again. Logs what did not answer."""
        try:
            with self._lock:
                osds = sorted((set(self._topology.colored_osds()) & set(self._topology.up_osds))
                              | set(self._controller.states()))
                self._controller.forget_all()
                for osd in osds:
                    self._accounting.forget(osd)
            outcomes = self._tell_many({osd: {"prefix": "injectargs", "injected_args": list(release_args())}
                                        for osd in osds})
            released = [osd for osd, (ret, _, _) in outcomes.items() if ret == 0]
            self._tell_many({osd: unslow_command() for osd in released})
            self._tell_many({osd: KICK_BENCH for osd in released})
            self._cancel_leases(released)
            failed = {osd: f"{err.strip()} ({ret})" for osd, (ret, _, err) in outcomes.items() if ret != 0}
            if failed:
                self.log.error("rails: %s: released %s; not released (BlueStore's own bounds end their "
                               "holds): %s", why, released, failed)
            else:
                self.log.info("rails: %s: released %s", why, released)
        except Exception:  # best effort: the OSDs' own bounds end any hold left
            self.log.exception("rails: %s: releasing every OSD failed", why)

    # --- state from the cluster --------------------------------------------------------------

    def _refresh_settings(self) -> None:
        raw = {name: self.get_module_option(name) for name in OPTION_TABLE}
        with self._lock:
            settings, errors = validate(raw, self._settings)
            for error in errors:
                if error not in self._setting_errors:
                    self.log.error("ignoring setting: %s", error.message)
            self._setting_errors = errors
            self._settings = settings
            spread, self._spread_error = effective_spread(self._settings, self._topology)
            self._pacing = Pacing(spread, self._settings.max_parallel_releases)

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

    def _sleep_seconds(self, now: float, all_taken: bool) -> float:
        """Until the next switch, guard start or release turn, at most poll_seconds. A release
        already due (held back by max_parallel_releases) goes at once, unless a command of this
        loop failed: then the retry waits like any other, so a failing OSD is not asked in a spin."""
        with self._lock:
            release = self._controller.next_release(self._topology, now, self._holding(now), self._pacing)
            changes = [next_change(self._topology, now)]
            poll = self._settings.poll_seconds
        if release is not None and (release > now or all_taken):
            changes.append(release)
        return max(0.0, min([poll] + [change - now for change in changes if change is not None]))

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

    def _carry_out(self, actions: List[OsdAction]) -> bool:
        """Holds and due releases go out together; each release is then kicked so the OSD applies
        its backlog even without client writes, and kicked again while BlueStore has not
        submitted what it held (up to MAX_KICKS). step() returns at most max_parallel_releases
        releases, so at most that many OSDs apply a backlog at once. Returns whether every OSD
        took its hold or release."""
        with self._lock:
            settings = self._settings
            commands = {a.osd: {"prefix": "injectargs", "injected_args": list(
                hold_args(settings, defer_interval_seconds(self._topology, a.osd)) if a.hold else release_args())}
                for a in actions}
        releasing = [a.osd for a in actions if not a.hold]
        before_kick = self._counters(releasing) if releasing else {}
        # The lease goes first, so that no hold is ever in place without it on an OSD that has one.
        self._grant_leases([a.osd for a in actions if a.hold])
        outcomes = self._tell_many(commands)
        released = []
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
                    released.append(action.osd)
        for osd, (ret, _, err) in self._tell_many({osd: unslow_command() for osd in released}).items():
            if ret != 0:
                self._record_failure(osd, f"release: restoring bluestore_throttle_bytes: {err.strip()} ({ret})")
        self._cancel_leases(released)
        kicks, after = self._kick(released, before_kick)
        holding = [a.osd for a in actions if a.hold and outcomes[a.osd][0] == 0]
        after.update(self._counters(holding))
        read_at = time.time()
        with self._lock:
            for osd in holding:
                if osd in after:
                    self._accounting.hold_started(osd, after[osd], read_at)
                else:
                    self._accounting.forget(osd)
            for osd in released:
                if osd in before_kick and osd in after:
                    self._accounting.released(osd, before_kick[osd], after[osd], BATCH_OPS_MAX, kicks[osd])
                else:
                    self._accounting.forget(osd)
        self.log.info("rails: held %s released %s kicks %s", sorted(holding), sorted(released),
                      [kicks[osd] for osd in sorted(released)])
        return all(ret == 0 for ret, _, _ in outcomes.values())

    def _kick(self, osds: List[int], before: Dict[int, Counters]) -> Tuple[Dict[int, int], Dict[int, Counters]]:
        """Kicks each OSD until its counters show BlueStore submitted what it held before the
        release, or MAX_KICKS; returns the kicks sent and the counters read after the last."""
        kicks = {osd: 0 for osd in osds}
        after: Dict[int, Counters] = {}
        pending = list(osds)
        while pending:
            for osd, (ret, _, err) in self._tell_many({osd: KICK_BENCH for osd in pending}).items():
                kicks[osd] += 1
                if ret != 0:
                    self._record_failure(osd, f"release kick (osd bench): {err.strip()} ({ret})")
            after.update(self._counters(pending))
            pending = [osd for osd in pending
                       if kicks[osd] < MAX_KICKS and osd in before and osd in after
                       and not kick_applied(before[osd], after[osd])]
        return kicks, after

    def _lease_command(self) -> dict:
        with self._lock:
            poll = self._settings.poll_seconds
        return grant_command(lease_seconds(poll, COMMAND_TIMEOUT_SECONDS), KICK_BENCH["size"])

    def _grant_leases(self, osds: List[int]) -> List[int]:
        """Grants or renews the lease of each OSD; returns those whose previous lease had run out
        (they released themselves). An OSD without the lease command is recorded for
        RAILS_NO_LEASE and works as before; any other failure is logged, and the next renewal
        tries again."""
        if not osds:
            return []
        command = self._lease_command()
        sent_at = time.time()
        outcomes = self._tell_many({osd: command for osd in osds})
        ran_out = []
        for osd, (ret, out, err) in sorted(outcomes.items()):
            if ret == 0:
                with self._lock:
                    self._no_lease.pop(osd, None)
                    self._leased[osd] = sent_at
                if lapsed(out):
                    ran_out.append(osd)
            elif ret == NO_LEASE_ERRNO:
                why = err.strip().splitlines()[-1] if err.strip() else "refused"
                with self._lock:
                    new = osd not in self._no_lease
                    self._no_lease[osd] = f"{why} ({ret})"
                if new:
                    self.log.warning("osd.%d refused the Rails lease (%s): it is held without one", osd, why)
            else:
                self.log.warning("osd.%d: granting the Rails lease failed: %s (%d)", osd, err.strip(), ret)
        return ran_out

    def _renew_leases(self, now: float) -> None:
        """Renews the lease of every up OSD the controller holds whose renewal is due at `now`
        (lease.renewals_due); an OSD whose lease ran out released itself, which only this renewal's
        answer tells, so its state is forgotten and the next step() holds it again. A down OSD is
        left out: it would hold every pass up for the command timeout, and it comes back without
        its hold anyway."""
        with self._lock:
            colored = set(self._topology.colored_osds())
            for osd in set(self._no_lease) - colored:
                del self._no_lease[osd]
            up = set(self._topology.up_osds)
            held = [osd for osd, state in self._controller.states().items()
                    if state.held and osd in up and osd not in self._no_lease]
            due = renewals_due(held, self._leased, now)
        ran_out = self._grant_leases(due)
        if not ran_out:
            return
        with self._lock:
            self._controller.reconcile({osd: False for osd in ran_out})
            for osd in ran_out:
                self._accounting.forget(osd)
        self.log.warning("rails: OSDs %s released themselves when their lease ran out; holding them again", ran_out)

    def _cancel_leases(self, osds: List[int]) -> None:
        """Drops the leases of OSDs this module released itself; best effort, since a lease left
        behind only applies the same release again when it runs out."""
        with self._lock:
            leased = [osd for osd in osds if self._leased.pop(osd, None) is not None]
        for osd, (ret, _, err) in self._tell_many({osd: cancel_command() for osd in leased}).items():
            if ret not in (0, NO_LEASE_ERRNO):
                self.log.warning("osd.%d: cancelling the Rails lease failed: %s (%d)", osd, err.strip(), ret)

    def _record_failure(self, osd: int, why: str) -> None:
        with self._lock:
            self._failed[osd] = why
        self.log.error("osd.%d: %s", osd, why)

    def _read_held_counters(self) -> None:
        self._last_perf_read = time.time()
        with self._lock:
            held = [osd for osd, state in self._controller.states().items() if state.held]
            watched = sorted(set(held) | set(self._accounting.draining()))
        if not watched:
            return
        counters = self._counters(watched)
        read_at = time.time()
        with self._lock:
            for osd, value in counters.items():
                self._accounting.observe(osd, value, read_at)

    def _slow_writers_over_budget(self) -> None:
        """Held OSDs about to reach mgr/rails/held_bytes_budget, or the writes BlueStore keeps back
        before it applies a hold by itself, get over_budget_args() until their release: their
        writers wait, none fails, new writes bypass the hold, and what is held stays held."""
        with self._lock:
            settings = self._settings
            over = self._accounting.to_slow(self_applied_bytes(settings), BATCH_OPS_MAX,
                                            settings.perf_seconds)
        if not over:
            return
        outcomes = self._tell_many({osd: {"prefix": "injectargs", "injected_args": list(over_budget_args())}
                                    for osd in over})
        for osd, (ret, _, err) in outcomes.items():
            if ret != 0:
                self._record_failure(osd, f"slowing writers: {err.strip()} ({ret})")
                continue
            with self._lock:
                self._accounting.mark_slowed(osd)
            self.log.warning("rails: osd.%d is about to reach the held-bytes budget or op limit; slowing its "
                             "writers, its new writes bypass the hold", osd)

    def _count_mixed_reads(self) -> None:
        pgs = pg_reads(self.get("pg_stats"))
        now = time.time()
        with self._lock:
            self._mixed.update(self._topology, pgs, now)
            mixing = self._mixed.mixing(self._topology, now)
        for pool, pgids in sorted(mixing.items()):
            self.log.debug("rails: pool %s: PGs %s read write-phase shards (too few read-phase shards)",
                           pool, " ".join(pgids))

    def _watch_slow_osds(self) -> None:
        """One window of fail-slow detection over every up OSD, then the marks to every up OSD of
        a color: renewed while there are marks, cleared once when there are none left."""
        self._last_slow_read = time.time()
        with self._lock:
            settings = self._settings
            up = list(self._topology.up_osds)
        if settings.slow_osd_detection:
            totals = {}
            outcomes = self._tell_many({osd: {"prefix": "perf dump", "logger": "bluestore", "format": "json"}
                                        for osd in up})
            for osd, (ret, out, _) in outcomes.items():
                try:
                    found = totals_from_perf_dump(json.loads(out)) if ret == 0 else None
                except ValueError:
                    found = None
                if found is not None:
                    totals[osd] = found
            with self._lock:
                events = self._slow.observe(totals, time.time(), settings)
            for event in events:
                self.log.warning("rails: %s", event)
        elif self._slow.marks:
            with self._lock:
                self._slow = SlowOsds()
            self.log.warning("rails: slow_osd_detection is off: every slow-OSD mark is cleared")
        self._send_marks(settings)

    def _send_marks(self, settings: Settings) -> None:
        with self._lock:
            colors = avoided_colors(self._slow.marks, self._topology)
            targets = sorted(set(self._topology.colored_osds()) & set(self._topology.up_osds))
        if colors:
            seconds = avoid_seconds(settings.slow_osd_window_seconds, COMMAND_TIMEOUT_SECONDS)
            commands = {osd: avoid_command(colors, seconds) for osd in targets}
        else:
            commands = {osd: clear_command() for osd in self._avoiding & set(targets)}
        failed = {}
        for osd, (ret, _, err) in self._tell_many(commands).items():
            if ret != 0:
                failed[osd] = f"{err.strip()} ({ret})"
            elif colors:
                self._avoiding.add(osd)
            else:
                self._avoiding.discard(osd)
        if not colors:
            # An OSD down or out of every color lost its marks or reads no Rails pool.
            self._avoiding &= set(targets)
        with self._lock:
            new = set(failed) - set(self._avoid_failed)
            self._avoid_failed = failed
        for osd in sorted(new):
            self.log.warning("osd.%d did not take the slow OSDs' marks: %s", osd, failed[osd])

    def _check_clocks(self) -> None:
        ret, out, _ = self.mon_command({"prefix": "time-sync-status", "format": "json"})
        try:
            time_sync = json.loads(out) if ret == 0 else {}
        except ValueError:
            time_sync = {}
        mgr_clock = clock.kernel_clock()
        with self._lock:
            guards = [pool.schedule.params.guard_seconds for pool in self._topology.pools]
            fraction = self._settings.clock_skew_guard_fraction
        problems = clock.skew_problems(time_sync, mgr_clock, min(guards), fraction) if guards else []
        with self._lock:
            self._time_sync, self._mgr_clock, self._clock_problems = time_sync, mgr_clock, problems

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
                                   self._setting_errors, self._failed, self._device_problems,
                                   self._clock_problems, self._mixed.mixing(self._topology, time.time()),
                                   self._spread_error, self._loop_error, self._no_lease,
                                   mark_lines(self._slow.marks, self._topology), self._avoid_failed)
        if checks != self._health:
            self._health = checks
            self.set_health_checks(checks)
