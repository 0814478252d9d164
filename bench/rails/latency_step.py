"""The `latency` step of bench/rails/evidence.py, the cluster half: what a reader sees while a
writer runs, with Rails off and on, on an erails k=4 m=2 pool and an erails k=1 m=2 (3 copies)
pool, both with crush-colors, one after the other on the same cluster (one OSD may follow only one
schedule, so the first pool is deleted before the second is made). Per pool, three loads of
--latency-seconds each: read-only; mixed with the rails module inactive (rails off); mixed with it
active (rails on); and on emulated devices a fourth, rails on again with every device model off
(model off: the tail left is the machine's). The reader records every 4 KiB random read; the
writer writes whole objects of 4 KiB to 64 KiB. Each OSD's device-model counters (emulated data devices only) are read at every
phase change. The simulator then replays each load at the rates the cluster reached."""
import json
import os
import shutil
import subprocess
import threading
import time
from typing import Dict, List, Optional, Tuple

from latency_client import run_reads, run_writes
from phase_accounting import PHASES, sample_times
from read_latency import (LOADS, MODEL_COUNTERS, MODEL_OFF, SimLoad, goals, ms_text, per_second_rows, read_rate,
                          sim_config, sim_summary_row, split_by_phase, summarize_reads, throughput_mb_s, write_rates)

READ_SIZE = 4096
WRITE_SIZES = (4096, 8192, 16384, 32768, 65536)
READ_OBJECT_SIZE = 65536
# Bounds the footprint of each pool's writes: names wrap around.
WRITE_OBJECTS = 2000
JOURNAL_MODEL = ("nvme_journal.conf", "nvme_journal")
FILL_IN_FLIGHT = 16



class PoolShape:
    def __init__(self, label: str, pool: str, k: int, m: int):
        self.label, self.pool, self.k, self.m = label, pool, k, m


# --latency-pools: the pools the step measures, one after the other.
SHAPES = {"ec": PoolShape("erails k=4 m=2", "latency-ec", 4, 2),
          "copies": PoolShape("erails k=1 m=2", "latency-copies", 1, 2)}


def model_sections(model_file: str, seen=None) -> List[Tuple[str, Dict[str, str]]]:
    """([ssd|hdd] NAME, its keys) of a device-model file and the files it includes (includes
    first, each file once), in order; a reading of the format doc/simulator.rst describes, enough
    to name the device and its time scale."""
    seen = set() if seen is None else seen
    path = os.path.realpath(model_file)
    if path in seen:
        return []
    seen.add(path)
    sections: List[Tuple[str, Dict[str, str]]] = []
    current: Optional[Dict[str, str]] = None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line.startswith("[") and line.endswith("]"):
                kind, _, name = line[1:-1].partition(" ")
                current = {} if kind in ("ssd", "hdd") and name.strip() else None
                if current is not None:
                    sections.append((name.strip(), current))
            elif "=" in line:
                key, value = (part.strip() for part in line.split("=", 1))
                if key == "include" and current is None and not sections:
                    sections[:0] = model_sections(os.path.join(os.path.dirname(path), value), seen)
                elif current is not None:
                    current[key] = value
    return sections


def model_key(model_file: str, key: str) -> Tuple[str, Optional[str]]:
    """The device a model file defines last (its own, after those it includes, as the emulator and
    --model mean it) and that device's value of key, following `base`; None when none sets it."""
    sections = model_sections(model_file)
    if not sections:
        raise SystemExit(f"--model {model_file}: no [ssd NAME] or [hdd NAME] section; accepted: a device-model file "
                         "of src/devices/models")
    by_name = dict(sections)
    name = sections[-1][0]
    keys, hops = by_name[name], 0
    while key not in keys and keys.get("base") in by_name and hops < len(sections):
        keys, hops = by_name[keys["base"]], hops + 1
    return name, keys.get(key)


def model_device(model_file: str) -> Tuple[str, float]:
    """The device a model file defines last and its time_scale; 1 when none sets it."""
    name, scale = model_key(model_file, "time_scale")
    return name, float(scale or 1)


# The guard's margin over the model's longest GC event: with a 0.5 s guard under GC events of up to
# 1 s (drive B at time_scale 10) one event ran into a read phase; with 1.1 s none did
# (bench/rails/README.md, "Read latency").
GUARD_MARGIN = 1.1


def gc_guard_seconds(model_file: str) -> Optional[float]:
    """A rails-guard that outlasts the model's longest GC event at its time scale (gc_event_max
    times time_scale, with GUARD_MARGIN), so that no event a write phase starts reaches the read
    phase; None for a model without garbage collection (an [hdd] one)."""
    _, event_max = model_key(model_file, "gc_event_max")
    if event_max is None:
        return None
    return round(GUARD_MARGIN * float(event_max) * model_device(model_file)[1], 3)


class LatencyStep:
    def __init__(self, run, repo: str, pg_count: int):
        self.run = run
        self.pg_count = pg_count
        self.args = run.args
        self.repo = repo
        self.summary_rows: List[Tuple] = []
        self.model_rows: List[Tuple] = []
        self.timeline_rows: List[Tuple] = []
        self.shading: List[Tuple[str, str, float, float]] = []
        self.verdict = True
        self.model = self.args.model
        self.device, self.time_scale = model_device(self.model) if self.model else (None, None)

    def describe_device(self) -> str:
        if not self.model:
            return "data devices unemulated (files on this VM's virtual disk, no garbage collection)"
        return f"data devices emulated: model {self.device}, time_scale {self.time_scale:g}"

    def stats_of(self, osd: int) -> Optional[dict]:
        """osd's device-model counters, or None before the emulator has written them."""
        if not self.model:
            return None
        try:
            with open(self.args.model_stats.format(dir=self.args.cluster_dir, osd=osd)) as f:
                stats = json.load(f)
        except (OSError, ValueError):
            return None
        return {"gc_events": stats["gc_events"], "blocked_seconds": stats["gc_blocked_seconds"]}

    def sample_models(self, schedule, osds: List[int], seconds: float, stop: threading.Event,
                      ) -> Dict[int, List[Tuple[float, Optional[dict]]]]:
        samples = {osd: [] for osd in osds}
        start = time.time()
        for at in sample_times(schedule, start, start + seconds, self.args.tick):
            time.sleep(max(0.0, at - time.time()))
            if stop.is_set():
                break
            for osd in osds:
                samples[osd].append((time.time(), self.stats_of(osd)))
        return samples

    def run_all(self, pools_to_drop: List[str]) -> bool:
        """The pools of --latency-pools, each made for the step and deleted after it, once
        pools_to_drop (the set-up's, whose schedules would conflict on the same OSDs) are gone.
        True when every cluster goal was met."""
        run = self.run
        for pool in pools_to_drop:
            run.ceph("osd", "pool", "rm", pool, pool, "--yes-i-really-really-mean-it")
        run.ceph("config", "set", "osd", "bluestore_default_buffered_read", "false")
        run.say(f"latency: {self.describe_device()}; bluestore_default_buffered_read false, so reads reach the "
                "data device")
        for key in self.args.latency_pools:
            shape = SHAPES[key]
            self.make_pool(shape)
            self.one_pool(shape)
            run.ceph("osd", "pool", "rm", shape.pool, shape.pool, "--yes-i-really-really-mean-it")
        return self.verdict

    def make_pool(self, shape: PoolShape) -> None:
        colors = ",".join(f"color{i}" for i in range(shape.k + shape.m))
        profile = f"{shape.pool}profile"
        guard = [f"rails-guard={self.args.latency_guard}"] if self.args.latency_guard is not None else []
        self.run.ceph("osd", "erasure-code-profile", "set", profile, "plugin=erails", f"k={shape.k}",
                      f"m={shape.m}", f"crush-colors={colors}", f"rails-frame={self.args.frame}", *guard)
        self.run.ceph("osd", "pool", "create", shape.pool, str(self.pg_count), str(self.pg_count), "erasure", profile)
        self.run.wait_clean()
        self.run.wait(f"the rails module to schedule {shape.pool}",
                      lambda: shape.pool in self.run.rails("status"), 60)

    def fill(self, ioctx, count: int) -> List[str]:
        names = [f"read-{i}" for i in range(count)]
        body = os.urandom(READ_OBJECT_SIZE)
        slots = threading.Semaphore(FILL_IN_FLIGHT)
        failed = []
        for name in names:
            slots.acquire()

            def done(completion, name=name):
                if completion.get_return_value() < 0:
                    failed.append(name)
                slots.release()
            ioctx.aio_write_full(name, name.encode() + body[len(name):], oncomplete=done)
        for _ in range(FILL_IN_FLIGHT):
            slots.acquire()
        if failed:
            raise SystemExit(f"latency: {len(failed)} of the reader's objects could not be written")
        return names

    def one_pool(self, shape: PoolShape) -> Dict[str, dict]:
        """The loads on shape's pool, which the module must schedule; returns each load's figures
        (one_load's) by load."""
        run, args = self.run, self.args
        params = run.follow_schedule(shape.pool)
        colors = {osd: color for osd, color in run.color_of.items()}
        run.say(f"latency, {shape.label} ({shape.pool}): schedule frame {params['frame_seconds']} s, readers "
                f"{params['readers']}, guard {params['guard_seconds']} s; OSD colors {colors}")
        ioctx = run.cluster.open_ioctx(shape.pool)
        run.set_active(False)
        names = self.fill(ioctx, args.latency_objects)
        time.sleep(args.latency_idle)
        origin = time.time()
        p999: Dict[str, Optional[float]] = {}
        writer_mb_s: Dict[str, float] = {}
        loads = {}
        for load in self.loads():
            run.set_active(load in ("rails on", MODEL_OFF))
            if load == MODEL_OFF:
                self.set_models("off")
            try:
                loads[load] = self.one_load(shape, ioctx, names, load, origin)
            finally:
                if load == MODEL_OFF:
                    self.set_models("on")
            p999[load] = loads[load]["summary"].p999
            writer_mb_s[load] = loads[load]["writer_mb_s"]
            time.sleep(args.latency_idle)
        ioctx.close()
        for goal in goals(p999, writer_mb_s):
            run.say(f"latency, {shape.label}, cluster: {goal.line()}")
            self.verdict &= goal.met
        if args.sim:
            self.simulate(shape, params, loads)
        return loads

    def loads(self) -> Tuple[str, ...]:
        """The loads this step runs: without emulated devices there is no model to switch off."""
        return LOADS if self.model else tuple(load for load in LOADS if load != MODEL_OFF)

    def set_models(self, state: str) -> None:
        """Every OSD's device model on or off (vstart-configs/slow-device.sh --model). The emulator
        takes it within 0.1 s of the OSD's next I/O: the load's first reads."""
        for osd in sorted(self.run.color_of):
            subprocess.run([os.path.join(self.repo, "vstart-configs", "slow-device.sh"), "--dir",
                            self.args.cluster_dir, "--osd", str(osd), "--model", state], check=True,
                           stdout=subprocess.DEVNULL)
        self.run.say(f"latency: device models {state} on OSDs {sorted(self.run.color_of)}")

    def one_load(self, shape: PoolShape, ioctx, names: List[str], load: str, origin: float) -> dict:
        run, args = self.run, self.args
        result = {}
        stop = threading.Event()
        mixed = load != "read-only"
        threads = [threading.Thread(target=lambda: result.setdefault("reads", run_reads(
            ioctx, args.latency_seconds, names, READ_OBJECT_SIZE, READ_SIZE, args.latency_readers)))]
        if mixed:
            threads.append(threading.Thread(target=lambda: result.setdefault("writes", run_writes(
                ioctx, args.latency_seconds, 0, args.latency_writers, f"{shape.pool}-{load.replace(' ', '-')}",
                sizes=WRITE_SIZES, objects=WRITE_OBJECTS))))
        osds = sorted(run.color_of)
        sampler = threading.Thread(target=lambda: result.setdefault("model", self.sample_models(
            run.schedule, osds, args.latency_seconds, stop)))
        started = time.time()
        sampler.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        stop.set()
        sampler.join()
        ended = time.time()
        reads, writes = result["reads"], result.get("writes", [])
        summary = summarize_reads(reads)
        mb_s = throughput_mb_s(writes)
        failed_writes = sum(1 for op in writes if not op.ok)
        load_avg = os.getloadavg()[0]
        run.say(f"latency, {shape.label}, {load}: {summary.reads} reads of {READ_SIZE} B ({summary.failed} failed), "
                f"p50 {ms_text(summary.p50)} ms, p99 {ms_text(summary.p99)} ms, p99.9 {ms_text(summary.p999)} ms, max "
                f"{ms_text(summary.max)} ms; writer {len(writes)} writes ({failed_writes} failed), {mb_s:.2f} MB/s; "
                f"load average {load_avg:.1f}")
        totals = self.report_model(shape, load, result["model"]) if self.model else None
        gc_events = int(sum(totals["gc_events"].values())) if totals else ""
        blocked = f"{sum(totals['blocked_seconds'].values()):.2f}" if totals else ""
        self.summary_rows.append(("cluster", shape.label, load, summary.reads, summary.failed, ms_text(summary.p50),
                                  ms_text(summary.p99), ms_text(summary.p999), ms_text(summary.max), f"{mb_s:.2f}",
                                  len(writes), gc_events, blocked, self.scale_label(), f"{load_avg:.1f}"))
        for second, count, p50, p99, worst in per_second_rows(reads, origin):
            self.timeline_rows.append((shape.label, load, second, count, f"{p50:.3f}", f"{p99:.3f}", f"{worst:.3f}"))
        self.shading.append((shape.label, load, started - origin, ended - origin))
        return {"summary": summary, "writer_mb_s": mb_s, "reads": reads, "writes": writes,
                "gc_events": {phase: int(n) for phase, n in totals["gc_events"].items()} if totals else None}

    def scale_label(self) -> str:
        return f"{self.time_scale:g}" if self.model else "unemulated"

    def report_model(self, shape: PoolShape, load: str, samples) -> Dict[str, Dict[str, float]]:
        """Files and prints each OSD's model counters by phase; returns all OSDs' together,
        {counter: {phase: amount}}."""
        totals = {counter: {phase: 0.0 for phase in PHASES} for counter in MODEL_COUNTERS}
        for osd, osd_samples in sorted(samples.items()):
            split = split_by_phase(osd_samples, self.run.schedule, self.run.color_of[osd])
            for counter in totals:
                for phase in PHASES:
                    totals[counter][phase] += split[counter][phase]
            self.model_rows.append((shape.label, load, osd, self.run.color_of[osd],
                                    *(int(split["gc_events"][phase]) for phase in PHASES),
                                    *(f"{split['blocked_seconds'][phase]:.3f}" for phase in PHASES),
                                    self.scale_label()))
        self.run.say(f"latency, {shape.label}, {load}: device model, all OSDs, read / guard / write phase: GC events "
                     + " / ".join(str(int(totals["gc_events"][phase])) for phase in PHASES) + "; seconds blocked "
                     + " / ".join(f"{totals['blocked_seconds'][phase]:.2f}" for phase in PHASES))
        return totals

    def simulate(self, shape: PoolShape, params: dict, loads: Dict[str, dict]) -> None:
        """Replays each load in erails-sim at the rates the cluster reached, on the same device
        model, and prints its figures next to the cluster's."""
        run, args = self.run, self.args
        model = self.model or os.path.join(self.repo, "src", "devices", "models", "intel510_drive_b.conf")
        journal_file = os.path.join(self.repo, "src", "devices", "models", JOURNAL_MODEL[0])
        out_dir = os.path.join(args.out, "latency_sim")
        os.makedirs(out_dir, exist_ok=True)
        # The cluster's model file goes with the configurations, which outlive the cluster.
        kept_model = os.path.join(out_dir, "device.conf")
        if os.path.abspath(model) != kept_model:
            shutil.copyfile(model, kept_model)
        p999: Dict[str, Optional[float]] = {}
        writer_mb_s: Dict[str, float] = {}
        # The simulator has no machine to leave the device out of: MODEL_OFF is not replayed.
        for load in (load for load in LOADS if load != MODEL_OFF):
            policy = "none" if load != "rails on" else ("rails" if shape.k == 1 else "erails")
            measured = loads[load]
            sim_load = SimLoad(k=shape.k, m=shape.m, policy=policy, frame=params["frame_seconds"],
                               readers=params["readers"], guard=params["guard_seconds"], pgs=self.pg_count,
                               read_rate=read_rate(measured["reads"]), read_size=READ_SIZE,
                               write_rates=write_rates(measured["writes"]), read_objects=args.latency_objects,
                               write_objects=WRITE_OBJECTS, seconds=args.latency_seconds)
            stem = os.path.join(out_dir, f"{shape.pool}-{load.replace(' ', '-')}")
            with open(stem + ".conf", "w") as f:
                f.write(sim_config(os.path.basename(kept_model), model_device(model)[0],
                                   os.path.relpath(journal_file, out_dir), JOURNAL_MODEL[1], sim_load))
            done = subprocess.run([args.sim, stem + ".conf", "--out", stem], capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"erails-sim {stem}.conf exited {done.returncode}: {done.stderr.strip()}")
            with open(stem + ".summary.csv") as f:
                row = sim_summary_row(f.read())
            for suffix in (".summary.csv", ".timeline.csv"):
                os.remove(stem + suffix)
            p999[load] = float(row["read_p99.9"])
            writer_mb_s[load] = sum(size * rate for size, rate in sim_load.write_rates.items()) / 1e6
            ms = {key: ms_text(float(row[key])) for key in ("read_p50", "read_p99", "read_p99.9", "read_max")}
            run.say(f"latency, {shape.label}, {load}, simulator ({policy}, the cluster's rates: "
                    f"{sim_load.read_rate:.0f} reads/s, {sum(sim_load.write_rates.values()):.0f} writes/s): p50 "
                    f"{ms['read_p50']} ms, p99 {ms['read_p99']} ms, p99.9 {ms['read_p99.9']} ms, max {ms['read_max']} ms; "
                    f"GC events {row['gc_events']}, seconds blocked {float(row['gc_blocked_seconds']):.2f}")
            self.summary_rows.append(("simulator", shape.label, load, row["reads"], 0, ms["read_p50"], ms["read_p99"],
                                      ms["read_p99.9"], ms["read_max"], f"{writer_mb_s[load]:.2f}", row["writes"],
                                      row["gc_events"], f"{float(row['gc_blocked_seconds']):.2f}", self.scale_label(), ""))
        # The simulator's writer runs at the cluster's rate, so only the read goals say anything of it.
        for goal in goals(p999, writer_mb_s)[:2]:
            run.say(f"latency, {shape.label}, simulator: {goal.line()}")

    def write_results(self) -> None:
        out = self.args.out
        tables = (("latency_summary.csv", "source,pool,load,reads,failed_reads,p50_ms,p99_ms,p99.9_ms,max_ms,"
                   "writer_mb_s,writes,gc_events,gc_blocked_seconds,time_scale,load_average", self.summary_rows),
                  ("latency_model.csv", "pool,load,osd,color," + ",".join(f"gc_events_{phase}" for phase in PHASES) + ","
                   + ",".join(f"blocked_seconds_{phase}" for phase in PHASES) + ",time_scale", self.model_rows),
                  ("latency_timeline.csv", "pool,load,second,reads,p50_ms,p99_ms,max_ms", self.timeline_rows),
                  ("latency_phases.csv", "pool,load,start_second,end_second",
                   [(p, l, f"{a:.2f}", f"{b:.2f}") for p, l, a, b in self.shading]))
        for name, header, rows in tables:
            with open(os.path.join(out, name), "w") as f:
                f.write(header + "\n")
                for row in rows:
                    f.write(",".join(str(v) for v in row) + "\n")
