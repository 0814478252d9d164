#!/usr/bin/python3
"""Rails on a real local cluster, measured: where each OSD's data-device writes and shard reads
fall in its schedule, with Rails on and off under the same mixed load; what Rails costs a writer;
whether a write burst stays within the held-bytes budget without failing writes; and whether
acknowledged writes survive an OSD killed while it holds them.

Run by bench/rails/run.sh, which starts the cluster (`start.sh --loop-data`) and stops it; see
bench/rails/README.md. Needs Debian's /usr/bin/python3 (python3-rados, python3-matplotlib).

Steps, in this order, all on one cluster (--steps picks some; set-up always runs):
  placement  every PG of the Rails pool has shard i on an OSD of color i (`ceph pg dump`), so
         has every mapping `crushtool --test` computes from the pool's rule, and a profile naming
         a missing or an empty bucket is refused at pool creation.
  mixed  `rados bench write` and `rados bench rand` together for --mixed-seconds, first on a pool
         without colors with the rails module inactive (off), then on the Rails pool with it
         active (on); per-OSD, per-second timelines and the in-phase shares.
  cost   the latency-recording writer for --cost-seconds on the Rails pool, module inactive then
         active: average, p99, max latency and throughput, and the on/off ratios.
  burst  on the Rails pool, module active: writes with many in flight, with the default budget
         and then with a small mgr/rails/held_bytes_budget; each OSD's peak held bytes (must stay
         within the budget), which OSDs were slowed, the throughput and p99 ratios, and failed
         writes (must be none).
  crash  on the Rails pool: wait for a color to turn reader, write objects with known checksums,
         check its OSD holds them, SIGKILL it, restart it, wait for active+clean, read every
         object back and deep-scrub the pool.
  latency  4 KiB random reads, every latency recorded, read-only, then with a writer of 4 KiB to
         64 KiB objects with the module inactive, then active, then (--model) active with every
         device model off; on the Rails pool and then (the Rails pool deleted) on an erails k=1
         m=2 pool with colors; each OSD's device-model GC events and blocked seconds by phase
         (--model: the cluster runs the device emulator); the same loads but the last in
         erails-sim (--sim) side by side; the goals of latency_step.py.
"""
import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Dict, List

import rados

from counters import COUNTERS, Recorder, data_device_stat_path, device_bytes, record_deferred_bytes
from latency_client import percentile, run_writes
from latency_step import SHAPES, LatencyStep
from phase_accounting import PHASES, add, attribute, peak_held, phase_of, share
# From src/mgr, which run.sh puts on PYTHONPATH.
from rails.accounting import required_counters
from rails.schedule import Schedule, ScheduleParams

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

RAILS_POOL = "railspool"
PLAIN_POOL = "plainpool"
K, M = 4, 2
PG_COUNT = 32
# Shares the issue asks for, with all OSDs up.
TARGET_SHARE = 0.99
COST_P99_LIMIT = 2.0
COST_THROUGHPUT_FLOOR = 0.8
NEAR_SWITCH_SECONDS = 1.0
STEPS = ("placement", "mixed", "cost", "burst", "crash", "latency")
CRUSH_TEST_INPUTS = 1024


def controllers_started(cluster_dir: str) -> bool:
    """Whether start.sh runs this cluster's controllers outside ceph-mgr (its cluster.params)."""
    try:
        with open(os.path.join(cluster_dir, "cluster.params")) as params:
            return "controllers=1\n" in params.read()
    except FileNotFoundError:
        return False


class Run:
    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ, CEPH_CONF=args.conf)
        self.cluster = rados.Rados(conffile=args.conf)
        self.cluster.connect(timeout=30)
        self.lines: List[str] = []
        # The rails controller runs outside ceph-mgr where start.sh started it so
        # (--controllers, doc/controllers.rst), else as the mgr module.
        self.standalone = controllers_started(args.cluster_dir)

    def say(self, line: str) -> None:
        print(line, flush=True)
        self.lines.append(line)

    def say_load(self, when: str) -> None:
        """Everything here shares the machine's cores; the load says what else did."""
        one, five, _ = os.getloadavg()
        self.say(f"machine at the {when}: {os.cpu_count()} cores, load average {one:.2f} (1 min), {five:.2f} (5 min)")

    def ceph(self, *words: str, timeout: float = 60) -> str:
        done = subprocess.run(["ceph", *words], env=self.env, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise SystemExit(f"ceph {' '.join(words)} failed: {done.stderr.strip()}")
        return done.stdout

    def rails(self, *words: str) -> str:
        """`ceph rails WORDS`, or the same command of the controller outside ceph-mgr."""
        if not self.standalone:
            return self.ceph("rails", *words)
        done = subprocess.run([os.path.join(REPO, "vstart-configs", "erails-ctl.sh"), "--dir", self.args.cluster_dir,
                               "rails", *words], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise SystemExit(f"erails-ctl rails {' '.join(words)} failed: {done.stderr.strip()}")
        return done.stdout

    def set_rails_option(self, name: str, value: str) -> None:
        # --force: where no ceph-mgr runs the module, the monitors do not know its options.
        self.ceph("config", "set", "mgr", f"mgr/rails/{name}", value, *(["--force"] if self.standalone else []))

    def wait(self, what: str, predicate, timeout: float) -> None:
        deadline = time.time() + timeout
        while not predicate():
            if time.time() > deadline:
                raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(0.5)

    # --- set-up ---------------------------------------------------------------------------------

    def set_up(self) -> None:
        osds = json.loads(self.ceph("osd", "ls", "-f", "json"))
        if len(osds) != K + M:
            raise SystemExit(f"the cluster has {len(osds)} OSDs; this run needs {K + M} (one per color)")
        subprocess.run([sys.executable, os.path.join(REPO, "tools", "rails_colors", "rails_colors.py"),
                        "--colors", str(K + M), "--apply"], env=self.env, check=True, capture_output=True)
        colors = ",".join(f"color{i}" for i in range(K + M))
        self.ceph("osd", "erasure-code-profile", "set", "railsprofile", "plugin=erails", f"k={K}", f"m={M}",
                  f"crush-colors={colors}", f"rails-frame={self.args.frame}")
        self.ceph("osd", "erasure-code-profile", "set", "plainprofile", "plugin=erails", f"k={K}", f"m={M}")
        self.ceph("osd", "pool", "create", RAILS_POOL, str(PG_COUNT), str(PG_COUNT), "erasure", "railsprofile")
        self.ceph("osd", "pool", "create", PLAIN_POOL, str(PG_COUNT), str(PG_COUNT), "erasure", "plainprofile")
        self.enable_module()
        self.wait_clean()
        params = self.follow_schedule(RAILS_POOL)
        self.say_load("start")
        self.say(f"cluster: {K + M} OSDs, pools {RAILS_POOL} (colors) and {PLAIN_POOL} (none), erails k={K} m={M}, "
                 f"{PG_COUNT} PGs each; schedule frame {params['frame_seconds']} s, readers {params['readers']}, "
                 f"guard {params['guard_seconds']} s; OSD colors {self.color_of}")

    def follow_schedule(self, pool_name: str) -> dict:
        """Takes the schedule and each OSD's color from the module's view of pool_name, so that
        phases are judged exactly as the module switches them; returns that view."""
        status = json.loads(self.rails("status", "-f", "json"))
        pool = next((p for p in status["pools"] if p["pool"] == pool_name), None)
        if pool is None:
            raise SystemExit(f"the rails module does not schedule pool {pool_name}; it schedules "
                             f"{[p['pool'] for p in status['pools']]} (`ceph rails status` says why)")
        self.schedule = Schedule(ScheduleParams(colors=len(pool["colors"]), frame_seconds=pool["frame_seconds"],
                                                readers=pool["readers"], epoch=pool["epoch"],
                                                guard_seconds=pool["guard_seconds"]))
        self.color_of: Dict[int, int] = {osd: color["color"] for color in pool["colors"] for osd in color["osds"]}
        return pool

    def enable_module(self) -> None:
        """The mgr module from this tree; a controller outside ceph-mgr is start.sh's to start."""
        if not self.standalone:
            subprocess.run([os.path.join(REPO, "vstart-configs", "enable_module.sh"), "--dir",
                            self.args.cluster_dir, "rails"], env=self.env, check=True)
        self.wait("rails status", lambda: self.rails_answers(), 90)

    def rails_answers(self) -> bool:
        try:
            self.rails("status")
            return True
        except SystemExit:
            return False

    def wait_clean(self, timeout: float = 180) -> None:
        subprocess.run([sys.executable, os.path.join(REPO, "vstart-configs", "ceph_admin.py"), "--conf",
                        self.args.conf, "wait-healthy", "--osds", str(K + M), "--timeout", str(int(timeout))],
                       env=self.env, check=True)

    def set_active(self, active: bool) -> None:
        self.set_rails_option("active", "true" if active else "false")
        # The module reads its settings every loop (0.5 s); an inactive one releases every OSD.
        time.sleep(2)

    # --- placement -----------------------------------------------------------------------------

    def placement(self) -> None:
        dump = json.loads(self.ceph("pg", "dump", "pgs_brief", "-f", "json"))["pg_stats"]

        def pgs_of(pool):
            pool_id = str(self.cluster.pool_lookup(pool))
            return [pg for pg in dump if pg["pgid"].split(".")[0] == pool_id]
        pgs = pgs_of(RAILS_POOL)
        misplaced = [pg["pgid"] for pg in pgs if self.off_color(pg["acting"])]
        self.say(f"placement: {len(pgs)} PGs of {RAILS_POOL} in `ceph pg dump`, {len(misplaced)} with a shard off "
                 f"its color{': ' + ', '.join(misplaced) if misplaced else ''}")
        # The same check on the pool without colors shows that it can fail.
        plain = pgs_of(PLAIN_POOL)
        self.say(f"placement: for contrast, {sum(1 for pg in plain if self.off_color(pg['acting']))} of the "
                 f"{len(plain)} PGs of {PLAIN_POOL} (no crush-colors) have a shard off its color")
        rule = json.loads(self.ceph("osd", "pool", "get", RAILS_POOL, "crush_rule", "-f", "json"))["crush_rule"]
        rule_id = json.loads(self.ceph("osd", "crush", "rule", "dump", rule, "-f", "json"))["rule_id"]
        crush_map = os.path.join(self.args.out, "crushmap.bin")
        self.ceph("osd", "getcrushmap", "-o", crush_map)
        tested = subprocess.run(["crushtool", "-i", crush_map, "--test", "--rule", str(rule_id), "--num-rep",
                                 str(K + M), "--min-x", "0", "--max-x", str(CRUSH_TEST_INPUTS - 1),
                                 "--show-mappings"], capture_output=True, text=True, check=True)
        os.remove(crush_map)
        mappings = [json.loads(line[line.index("["):].replace("2147483647", "-1"))
                    for line in tested.stdout.splitlines() if line.startswith("CRUSH rule")]
        off = sum(1 for mapping in mappings if self.off_color(mapping))
        self.say(f"placement: `crushtool --test` of rule {rule} ({rule_id}), {len(mappings)} inputs: {off} with a "
                 f"shard off its color or missing")
        refused = self.refused_pools()
        problems = []
        if not pgs or misplaced:
            problems.append("PGs with a shard off its color" if pgs else f"no PG of {RAILS_POOL} in the dump")
        if len(mappings) != CRUSH_TEST_INPUTS or off:
            problems.append("crushtool mappings off their colors or missing")
        problems += [f"a pool with {what} bucket was created" for what, refusal in refused.items() if refusal is None]
        if problems:
            raise SystemExit("placement: " + "; ".join(problems))

    def off_color(self, osds: List[int]) -> bool:
        return len(osds) != K + M or any(self.color_of.get(osd) != shard for shard, osd in enumerate(osds))

    def refused_pools(self) -> Dict[str, str]:
        """Tries a pool whose colors name a missing bucket and one whose colors name an empty
        bucket; each should be refused. Returns each refusal's message, or None if it was created."""
        self.ceph("osd", "crush", "add-bucket", "emptycolor", "rack")
        self.ceph("osd", "crush", "move", "emptycolor", "root=default")
        refusals = {}
        for what, last in (("a missing", "nosuchcolor"), ("an empty", "emptycolor")):
            colors = ",".join([f"color{i}" for i in range(K + M - 1)] + [last])
            self.ceph("osd", "erasure-code-profile", "set", "badcolors", "plugin=erails", f"k={K}", f"m={M}",
                      f"crush-colors={colors}")
            done = subprocess.run(["ceph", "osd", "pool", "create", "badcolors", "8", "8", "erasure", "badcolors"],
                                  env=self.env, capture_output=True, text=True, timeout=60)
            refusals[what] = done.stderr.strip() if done.returncode != 0 else None
            self.say(f"placement: pool with {what} color bucket ({last}): " +
                     (f"refused, exit {done.returncode}: {refusals[what]}" if done.returncode != 0 else "CREATED"))
            if done.returncode == 0:
                self.ceph("osd", "pool", "rm", "badcolors", "badcolors", "--yes-i-really-really-mean-it")
            self.ceph("osd", "erasure-code-profile", "rm", "badcolors")
        self.ceph("osd", "crush", "remove", "emptycolor")
        return refusals

    # --- mixed load ----------------------------------------------------------------------------

    def bench(self, pool: str, seconds: int, mode: str, run_name: str, *extra: str) -> subprocess.Popen:
        # Reads take the object size the write that made the objects recorded.
        size = ["-b", str(self.args.object_size)] if mode == "write" else []
        return subprocess.Popen(["rados", "-p", pool, "bench", str(seconds), mode, *size,
                                 "-t", str(self.args.threads), "--run-name", run_name, *extra],
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def fill(self, pool: str) -> None:
        filler = self.bench(pool, self.args.fill_seconds, "write", "fill", "--no-cleanup")
        out, _ = filler.communicate()
        if filler.returncode != 0:
            raise SystemExit(f"rados bench write (fill of {pool}) failed:\n{out}")

    def mixed(self, label: str, pool: str, active: bool, timeline) -> None:
        self.set_active(active)
        seconds = self.args.mixed_seconds
        recorder = Recorder(self.cluster, self.args.cluster_dir, sorted(self.color_of))
        writer = self.bench(pool, seconds, "write", f"mixed-{label}")
        reader = self.bench(pool, seconds, "rand", "fill")
        stop = threading.Event()
        start = recorder.record(self.schedule, seconds, self.args.tick, stop)
        recorder.close()
        outputs = {}
        for name, bench in (("write", writer), ("rand", reader)):
            out, _ = bench.communicate()
            if bench.returncode != 0:
                raise SystemExit(f"rados bench {name} on {pool} failed:\n{out}")
            outputs[name] = summary_of(out)
        totals = {name: {p: 0 for p in PHASES} for name in COUNTERS}
        for osd, color in sorted(self.color_of.items()):
            per_osd = {}
            for name in COUNTERS:
                per_phase, per_second = attribute(recorder.readings[osd][name], self.schedule, color, start)
                totals[name] = add(totals[name], per_phase)
                per_osd[name] = per_phase
                for second, amounts in per_second.items():
                    timeline.append((label, second, osd, phase_of(self.schedule, color, start + second + 0.5),
                                     name, sum(amounts.values())))
            self.say(f"  {label} osd.{osd} (color {color}): data-device writes in write phase "
                     f"{share(per_osd['device_write_bytes'], ['write']):.4f}, with guard "
                     f"{share(per_osd['device_write_bytes'], ['write', 'guard']):.4f} "
                     f"({sum(per_osd['device_write_bytes'].values()) >> 20} MiB); shard reads in read phase "
                     f"{share(per_osd['shard_reads'], ['read']):.4f} ({sum(per_osd['shard_reads'].values())})")
        writes_in = share(totals["device_write_bytes"], ["write", "guard"])
        reads_in = share(totals["shard_reads"], ["read"])
        self.say(f"{label}: all OSDs: data-device write bytes in write phase (guard included) {writes_in:.4f} "
                 f"(strict {share(totals['device_write_bytes'], ['write']):.4f}, "
                 f"{sum(totals['device_write_bytes'].values()) >> 20} MiB); shard reads in read phase "
                 f"{reads_in:.4f} ({sum(totals['shard_reads'].values())}); device reads in read phase "
                 f"{share(totals['device_read_bytes'], ['read']):.4f} "
                 f"({sum(totals['device_read_bytes'].values()) >> 20} MiB)")
        self.say(f"{label}: rados bench write {outputs['write']}; rand {outputs['rand']}")
        self.mixed_shares = getattr(self, "mixed_shares", {})
        self.mixed_shares[label] = (writes_in, reads_in)

    # --- client cost ---------------------------------------------------------------------------

    def cost(self) -> Dict[str, dict]:
        ioctx = self.cluster.open_ioctx(RAILS_POOL)
        results = {}
        for label, active in (("off", False), ("on", True)):
            self.set_active(active)
            ops = run_writes(ioctx, self.args.cost_seconds, self.args.object_size, self.args.threads, f"cost-{label}")
            failed = sum(1 for op in ops if not op.ok)
            latencies = [op.latency for op in ops if op.ok]
            near = [op.latency for op in ops if op.ok and self.near_switch(op.started)]
            span = ops[-1].started + ops[-1].latency - ops[0].started
            results[label] = {"ops": len(ops), "failed": failed,
                              "throughput_mb_s": len(latencies) * self.args.object_size / span / 1e6,
                              "avg_ms": 1000 * sum(latencies) / len(latencies),
                              "p99_ms": 1000 * percentile(latencies, 0.99),
                              "max_ms": 1000 * max(latencies),
                              "near_switch_p99_ms": 1000 * percentile(near, 0.99) if near else float("nan"),
                              "near_switch_ops": len(near)}
            r = results[label]
            self.say(f"cost {label}: {r['ops']} writes of {self.args.object_size} B, {failed} failed, "
                     f"{r['throughput_mb_s']:.2f} MB/s, avg {r['avg_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
                     f"max {r['max_ms']:.1f} ms; within {NEAR_SWITCH_SECONDS:g} s after a switch: {r['near_switch_ops']} writes, "
                     f"p99 {r['near_switch_p99_ms']:.1f} ms")
        ioctx.close()
        on, off = results["on"], results["off"]
        self.say(f"cost on/off: p99 latency {on['p99_ms'] / off['p99_ms']:.2f}x (target <= {COST_P99_LIMIT}), "
                 f"throughput {on['throughput_mb_s'] / off['throughput_mb_s']:.2f}x (target >= "
                 f"{COST_THROUGHPUT_FLOOR}), avg latency {on['avg_ms'] / off['avg_ms']:.2f}x, "
                 f"max latency {on['max_ms'] / off['max_ms']:.2f}x")
        return results

    def near_switch(self, t: float) -> bool:
        """Started within NEAR_SWITCH_SECONDS after a switch, when releases apply their backlog."""
        return t - self.schedule.frame_start(self.schedule.frame(t)) < NEAR_SWITCH_SECONDS

    # --- memory budget under a burst ------------------------------------------------------------

    def burst(self) -> None:
        """The same write burst twice on the Rails pool, module active: first with the default
        budget (not reached), then with --burst-budget-mib. Every OSD's deferred-write bytes are
        read every --tick seconds, independently of the module, and each hold's peak is the most
        they grew within it; `ceph rails status` is read once a second for which OSDs the module
        slowed. What slowing did is the second burst's throughput next to the first's."""
        # The module reads held bytes every perf_seconds; at 1 s it notices the budget soonest.
        self.set_active(True)
        self.set_rails_option("perf_seconds", "1")
        budget = self.args.burst_budget_mib << 20
        unbounded = self.one_burst("default budget", None)
        bounded = self.one_burst(f"budget {self.args.burst_budget_mib} MiB", budget)
        self.ceph("config", "rm", "mgr", "mgr/rails/perf_seconds")
        peak = max(bounded["peaks"].values(), default=0)
        self.say(f"burst: with the budget, the highest hold peaked at {peak / budget:.2f}x the budget "
                 f"(without it {max(unbounded['peaks'].values(), default=0) / budget:.2f}x); write throughput "
                 f"{bounded['mb_s'] / unbounded['mb_s']:.2f}x and p99 latency "
                 f"{bounded['p99_ms'] / unbounded['p99_ms']:.2f}x the burst without it")
        problems = []
        if unbounded["failed"] + bounded["failed"]:
            problems.append(f"{unbounded['failed'] + bounded['failed']} writes failed")
        if not bounded["slowed"]:
            problems.append("no OSD reached the budget, so the burst shows nothing (raise --burst-in-flight or "
                            "--burst-seconds, or lower --burst-budget-mib)")
        if peak > budget:
            problems.append(f"a hold passed the budget ({peak} > {budget} bytes)")
        if problems:
            raise SystemExit("burst: " + "; ".join(problems))

    def one_burst(self, label: str, budget) -> dict:
        if budget is not None:
            self.set_rails_option("held_bytes_budget", str(budget))
        time.sleep(2)
        ioctx = self.cluster.open_ioctx(RAILS_POOL)
        result = {}
        writer = threading.Thread(target=lambda: result.setdefault("ops", run_writes(
            ioctx, self.args.burst_seconds, self.args.object_size, self.args.burst_in_flight, "burst")))
        stop = threading.Event()
        sampler = threading.Thread(target=lambda: result.setdefault("deferred", record_deferred_bytes(
            self.cluster, sorted(self.color_of), self.args.tick, stop)))
        sampler.start()
        writer.start()
        slowed = set()
        while writer.is_alive():
            status = json.loads(self.rails("status", "-f", "json"))
            slowed.update(entry["osd"] for entry in status["osds"] if entry["slowed"])
            time.sleep(1)
        writer.join()
        stop.set()
        sampler.join()
        ioctx.close()
        if budget is not None:
            self.ceph("config", "rm", "mgr", "mgr/rails/held_bytes_budget")
        ops = result["ops"]
        failed = sum(1 for op in ops if not op.ok)
        span = ops[-1].started + ops[-1].latency - ops[0].started
        mb_s = sum(1 for op in ops if op.ok) * self.args.object_size / span / 1e6
        p99_ms = 1000 * percentile([op.latency for op in ops if op.ok], 0.99)
        peaks = {osd: peak_held(readings, self.schedule, self.color_of[osd])
                 for osd, readings in result["deferred"].items()}
        shown = ", ".join(f"osd.{osd} {value / (1 << 20):.1f}" for osd, value in sorted(peaks.items()))
        self.say(f"burst, {label}: {len(ops)} writes of {self.args.object_size} B, {self.args.burst_in_flight} in "
                 f"flight, {self.args.burst_seconds} s: {failed} failed, {mb_s:.2f} MB/s, p99 {p99_ms:.1f} ms; "
                 f"OSDs slowed {sorted(slowed) or 'none'}; peak held MiB per OSD (read every {self.args.tick:g} s): "
                 f"{shown}")
        return {"failed": failed, "mb_s": mb_s, "p99_ms": p99_ms, "peaks": peaks, "slowed": slowed}

    # --- crash while holding -------------------------------------------------------------------

    def deferred_counters(self, osd: int) -> Dict[str, int]:
        counters = required_counters(json.loads(self.ceph("tell", f"osd.{osd}", "perf", "dump", "bluestore")), osd)
        return {"queued": counters.queued, "applied": counters.applied}

    def crash(self) -> None:
        self.set_active(True)
        now = time.time()
        # The color that turns reader at the next switch: it holds for a whole read phase.
        switch = self.schedule.next_switch(now)
        victim_color = next(c for c in self.schedule.read_colors(switch) if not self.schedule.is_read_phase(c, now))
        victim = next(osd for osd, color in self.color_of.items() if color == victim_color)
        time.sleep(max(0.0, switch + 1.0 - time.time()))
        ioctx = self.cluster.open_ioctx(RAILS_POOL)
        acknowledged: Dict[str, str] = {}
        stop = threading.Event()

        def write_until_stopped():
            i = 0
            while not stop.is_set():
                name = f"crash-{i}"
                data = os.urandom(self.args.object_size)
                ioctx.write_full(name, data)
                acknowledged[name] = hashlib.sha256(data).hexdigest()
                i += 1

        device = data_device_stat_path(self.args.cluster_dir, victim)
        written_before = device_bytes(device)["device_write_bytes"]
        counters_before = self.deferred_counters(victim)
        writer = threading.Thread(target=write_until_stopped)
        writer.start()
        self.wait(f"{self.args.crash_objects} acknowledged writes",
                  lambda: len(acknowledged) >= self.args.crash_objects or not writer.is_alive(), 120)
        counters = self.deferred_counters(victim)
        written = device_bytes(device)["device_write_bytes"] - written_before
        still_reader = self.schedule.is_read_phase(victim_color, time.time())
        if not still_reader or counters["applied"] != counters_before["applied"] or written:
            stop.set()
            writer.join()
            raise SystemExit(f"osd.{victim} was not holding when it was to be killed (read phase: {still_reader}, "
                             f"deferred ops applied meanwhile {counters['applied'] - counters_before['applied']}, "
                             f"{written} B written to its data device): nothing would be proven")
        with open(os.path.join(self.args.cluster_dir, "run", f"osd.{victim}.pid")) as f:
            pid = int(f.read().strip())
        os.kill(pid, signal.SIGKILL)
        self.say(f"crash: osd.{victim} (color {victim_color}, read phase) SIGKILLed while holding "
                 f"{counters['queued'] - counters_before['queued']} deferred writes of this run (none applied, "
                 f"0 B on its data device since the writes began); {len(acknowledged)} writes acknowledged so far, "
                 "writes go on")
        self.wait(f"osd.{victim} to die", lambda: not os.path.exists(f"/proc/{pid}"), 30)
        time.sleep(3)
        began = time.time()
        with open(os.path.join(self.args.cluster_dir, "log", f"osd.{victim}.stdout"), "a") as log:
            # From /, as start.sh starts it (Debian 13's osd_class_dir is relative).
            subprocess.run(["ceph-osd", "-c", self.args.conf, "-i", str(victim)], env=self.env, check=True,
                           stdout=log, stderr=subprocess.STDOUT, cwd="/")
        stop.set()
        writer.join()
        self.wait_clean()
        self.say(f"crash: osd.{victim} restarted; all PGs active+clean {time.time() - began:.1f} s later; "
                 f"{len(acknowledged)} writes acknowledged in all")
        wrong = [name for name, digest in acknowledged.items()
                 if hashlib.sha256(ioctx.read(name, self.args.object_size + 1)).hexdigest() != digest]
        self.say(f"crash: {len(acknowledged) - len(wrong)} of {len(acknowledged)} acknowledged objects read back "
                 "identical")
        ioctx.close()
        self.deep_scrub(RAILS_POOL)
        if wrong:
            raise SystemExit(f"crash: objects differ after the restart: {wrong[:10]}")

    def deep_scrub(self, pool: str) -> None:
        stats = json.loads(self.ceph("pg", "ls-by-pool", pool, "-f", "json"))["pg_stats"]
        before = {pg["pgid"]: pg["last_deep_scrub_stamp"] for pg in stats}
        # One scrub per OSD at a time (the default) scrubs an EC pool's PGs one after another here,
        # since every PG spans every OSD.
        self.ceph("config", "set", "osd", "osd_max_scrubs", "4")
        for pgid in before:
            self.ceph("pg", "deep-scrub", pgid)

        def all_scrubbed():
            now = json.loads(self.ceph("pg", "ls-by-pool", pool, "-f", "json"))["pg_stats"]
            return all(pg["last_deep_scrub_stamp"] != before[pg["pgid"]] for pg in now)
        self.wait(f"deep scrub of {pool}", all_scrubbed, 600)
        # With no PG in that state the answer carries no pg_stats at all.
        inconsistent = json.loads(self.ceph("pg", "ls-by-pool", pool, "inconsistent", "-f", "json")).get("pg_stats", [])
        self.say(f"crash: deep scrub of all {len(before)} PGs of {pool}: {len(inconsistent)} inconsistent")
        if inconsistent:
            raise SystemExit(f"deep scrub found inconsistent PGs: {[pg['pgid'] for pg in inconsistent]}")


def summary_of(bench_output: str) -> str:
    wanted = ("Bandwidth (MB/sec)", "Average IOPS", "Average Latency(s)", "Max latency(s)")
    found = []
    for line in bench_output.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in wanted:
            found.append(f"{key.strip()} {value.strip()}")
    return ", ".join(found)


def write_timeline(path: str, timeline) -> None:
    """The rows Run.mixed collected, as plot_timeline.py reads them."""
    with open(path, "w") as f:
        f.write("rails,second,osd,phase,counter,amount\n")
        for row in timeline:
            f.write(",".join(str(v) for v in row) + "\n")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conf", required=True, help="the cluster's ceph.conf")
    parser.add_argument("--cluster-dir", required=True, help="the cluster's directory (start.sh --dir)")
    parser.add_argument("--out", required=True, help="directory for summary.txt, timeline.csv, cost.csv, timeline.png")
    parser.add_argument("--frame", type=float, default=5.0, help="rails-frame in seconds (default 5)")
    parser.add_argument("--mixed-seconds", type=int, default=120, help="length of each mixed run (default 120)")
    parser.add_argument("--cost-seconds", type=int, default=60, help="length of each cost run (default 60)")
    parser.add_argument("--fill-seconds", type=int, default=20, help="rados bench write before the rand reads")
    parser.add_argument("--object-size", type=int, default=65536, help="bytes per object (default 65536)")
    parser.add_argument("--threads", type=int, default=8, help="operations in flight per client (default 8)")
    parser.add_argument("--tick", type=float, default=0.25, help="seconds between counter readings (default 0.25)")
    parser.add_argument("--crash-objects", type=int, default=200, help="objects written before the kill")
    parser.add_argument("--burst-seconds", type=int, default=30, help="length of the write burst (default 30)")
    parser.add_argument("--burst-in-flight", type=int, default=32, help="writes in flight in the burst (default 32)")
    parser.add_argument("--burst-budget-mib", type=int, default=32,
                        help="mgr/rails/held_bytes_budget during the burst, MiB (default 32)")
    parser.add_argument("--latency-seconds", type=int, default=60, help="length of each load of the latency "
                        "step (default 60)")
    parser.add_argument("--latency-readers", type=int, default=4, help="reads in flight (default 4)")
    parser.add_argument("--latency-writers", type=int, default=4, help="writes in flight when mixed (default 4)")
    parser.add_argument("--latency-objects", type=int, default=1024, help="64 KiB objects the reader reads")
    parser.add_argument("--latency-idle", type=float, default=5.0,
                        help="seconds without load before each load of the latency step (default 5)")
    parser.add_argument("--latency-pools", default=",".join(SHAPES),
                        help=f"pools of the latency step, in order (default {','.join(SHAPES)}: erails k=4 m=2 and "
                        "k=1 m=2, both with colors)")
    parser.add_argument("--latency-guard", type=float, help="rails-guard of the latency step's pools (default: the "
                        "plugin's for each shape)")
    parser.add_argument("--model", help="the device-model file the cluster's emulated data devices run "
                        "(start.sh --emulate-ssd=FILE); without it the devices are taken as unemulated")
    parser.add_argument("--model-stats", default="{dir}/emulator/osd.{osd}.json",
                        help="where each OSD's device-model stats JSON is ({dir}: --cluster-dir, {osd}: id)")
    parser.add_argument("--sim", help="erails-sim, to replay the latency step's loads (tools/erails_sim)")
    parser.add_argument("--steps", default=",".join(STEPS),
                        help=f"comma-separated steps to run, in their fixed order (default {','.join(STEPS)})")
    args = parser.parse_args(argv)
    steps = [step for step in args.steps.split(",") if step]
    unknown = [step for step in steps if step not in STEPS]
    if unknown or not steps:
        parser.error(f"--steps {args.steps!r}: unknown or none; accepted: a comma-separated subset of {','.join(STEPS)}")
    args.steps = steps
    pools = [pool for pool in args.latency_pools.split(",") if pool]
    if not pools or any(pool not in SHAPES for pool in pools):
        parser.error(f"--latency-pools {args.latency_pools!r}: accepted: a comma-separated subset of {','.join(SHAPES)}")
    args.latency_pools = pools
    if args.latency_guard is not None and not 0 <= args.latency_guard < args.frame:
        parser.error(f"--latency-guard is {args.latency_guard}; accepted: 0 <= guard < --frame ({args.frame})")
    for name, low, high in (("frame", 1, 600), ("mixed_seconds", 10, 3600), ("cost_seconds", 5, 3600),
                            ("fill_seconds", 5, 600), ("object_size", 4096, 1 << 20), ("threads", 1, 64),
                            ("tick", 0.05, 5), ("crash_objects", 1, 100000), ("burst_seconds", 5, 600),
                            ("burst_in_flight", 1, 256), ("burst_budget_mib", 1, 1 << 20),
                            ("latency_seconds", 10, 3600), ("latency_readers", 1, 256), ("latency_writers", 1, 256),
                            ("latency_objects", 16, 1 << 20), ("latency_idle", 0, 600)):
        value = getattr(args, name)
        if not low <= value <= high:
            parser.error(f"--{name.replace('_', '-')} is {value}; accepted: {low}..{high}")
    return args


def main(argv):
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    run = Run(args)
    run.set_up()
    verdict = True
    if "placement" in args.steps:
        run.placement()
    if "mixed" in args.steps:
        run.fill(PLAIN_POOL)
        run.fill(RAILS_POOL)
        timeline = []
        run.mixed("off", PLAIN_POOL, False, timeline)
        run.mixed("on", RAILS_POOL, True, timeline)
        write_timeline(os.path.join(args.out, "timeline.csv"), timeline)
    if "cost" in args.steps:
        cost = run.cost()
        with open(os.path.join(args.out, "cost.csv"), "w") as f:
            keys = sorted(cost["on"])
            f.write("rails," + ",".join(keys) + "\n")
            for label in ("off", "on"):
                f.write(label + "," + ",".join(f"{cost[label][k]:.3f}" if isinstance(cost[label][k], float)
                                               else str(cost[label][k]) for k in keys) + "\n")
    if "burst" in args.steps:
        run.burst()
    if "crash" in args.steps:
        run.crash()
    if "latency" in args.steps:
        latency = LatencyStep(run, REPO, PG_COUNT)
        verdict &= latency.run_all([RAILS_POOL, PLAIN_POOL])
        latency.write_results()
        subprocess.run([sys.executable, os.path.join(HERE, "plot_latency.py"),
                        *(os.path.join(args.out, name) for name in ("latency_timeline.csv", "latency_phases.csv",
                                                                    "latency.png")),
                        f"4 KiB reads, {latency.describe_device()}"], check=True)
    if "mixed" in args.steps:
        writes_on, reads_on = run.mixed_shares["on"]
        in_phase = writes_on >= TARGET_SHARE and reads_on >= TARGET_SHARE
        verdict &= in_phase
        run.say(f"rails on: writes {writes_on:.4f}, reads {reads_on:.4f} in phase: "
                f"{'meets' if in_phase else 'MISSES'} the {TARGET_SHARE} target")
    run.say_load("end")
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write("\n".join(run.lines) + "\n")
    if "mixed" in args.steps:
        subprocess.run([sys.executable, os.path.join(HERE, "plot_timeline.py"), os.path.join(args.out, "timeline.csv"),
                        os.path.join(args.out, "timeline.png")], check=True)
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
