#!/usr/bin/python3
"""Reproduce the thesis' Rails/eRails results in the simulator, one command per experiment.

    /usr/bin/python3 bench/sim/reproduce.py EXPERIMENT [--sim PATH] [--work DIR]

EXPERIMENT is calibrate, rails, drive_a, trace, erails, write_vs_m, qos, scale, speed or all. Each writes
bench/sim/results/EXPERIMENT.csv (plus EXPERIMENT_*.csv details) and prints a table. The configs it
runs are written next to the raw outputs in --work (default /tmp/erails-sim-repro), so every number
can be traced to the exact input. Device parameters come from src/devices/models, where each
value names the thesis figure it was calibrated against. Standard library only.
"""
import argparse
import collections
import csv
import os
import pathlib
import random
import resource
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "sim" / "results"
DEVICES = ROOT / "src" / "devices" / "models"
SPEED_REPEATS = 5  # runs of each speed configuration; the median and the worst are reported
OBJECTS_200GB = 762939  # 256 KB objects covering the first 200 GB, the range of fig. 4.3b
OBJECTS_50GB = 190735  # the same over the first 50 GB, drive A's range in fig. 4.4
# A calibrated model: its config file, its [ssd] name, and the objects its experiments address.
Drive = collections.namedtuple("Drive", "conf name objects")
DRIVE_B = Drive("intel510_drive_b.conf", "intel510", OBJECTS_200GB)
DRIVE_A = Drive("intel_x25e_drive_a.conf", "x25e", OBJECTS_50GB)


def run_sim(sim, work, name, text):
    """Writes the config, runs erails-sim, returns (summary dict, timeline rows, (wall, cpu) seconds)."""
    work.mkdir(parents=True, exist_ok=True)
    conf = work / f"{name}.conf"
    conf.write_text(text)
    start = time.perf_counter()
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sim, str(conf), "--out", str(work / name)], capture_output=True, text=True)
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = (time.perf_counter() - start,
            cpu_after.ru_utime - cpu_before.ru_utime + cpu_after.ru_stime - cpu_before.ru_stime)
    if proc.returncode != 0:
        sys.exit(f"{name}: erails-sim exited {proc.returncode}\n{proc.stdout}{proc.stderr}")
    with open(work / f"{name}.summary.csv") as f:
        summary = next(csv.DictReader(f))
    with open(work / f"{name}.timeline.csv") as f:
        timeline = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    return summary, timeline, wall


def header(policy, duration, seed=1, drive=DRIVE_B):
    return (f"include = {DEVICES}/{drive.conf}\ninclude = {DEVICES}/nvme_journal.conf\n"
            f"[sim]\nseed = {seed}\nduration = {duration}\npolicy = {policy}\n")


def percentile(values, q):
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(q * len(s) + 0.5) - 1))]


def steady(timeline, skip, end):
    """Per-second rows of the steady part: after `skip` seconds, before the clients stop at `end`."""
    return [r for r in timeline if skip <= r["time"] < end - 1]


def fmt(v, digits=3):
    return f"{v:.{digits}g}" if isinstance(v, float) else str(v)


def write_table(name, rows, columns):
    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RESULTS / f"{name}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({c: fmt(r[c], 6) if isinstance(r[c], float) else r[c] for c in columns})
    widths = [max(len(c), *(len(fmt(r[c])) for r in rows)) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for r in rows:
        print("  ".join(fmt(r[c]).rjust(w) for c, w in zip(columns, widths)))
    print(f"-> {RESULTS / (name + '.csv')}\n")


def fresh_device(base):
    """[ssd fresh]: `base` with no randomly written footprint, so its GC starts with nothing owed."""
    return f"[ssd fresh]\nbase = {base}\ninitial_footprint = 0\n"


def blocked_share(summary):
    """Share of time one of two drives was blocked by GC (the summary sums both drives)."""
    return float(summary["gc_blocked_seconds"]) / 2 / float(summary["client_end"])


def latency_columns(summary):
    return {q: float(summary[f"read_{q}"]) * 1e3 for q in ("p50", "p99", "p99.9", "p99.99")}


def tail_columns(summary):
    """How many reads waited on GC, and the p99.9 of all the others: together they say whether GC
    alone makes the tail (erails-sim's "reads by what delayed them")."""
    return {"reads_waited_gc": int(summary["reads_waited_gc"]),
            "p99.9_without_gc": float(summary["read_p99.9_without_gc"]) * 1e3}


# ---- each device model's levels next to the thesis figure it was calibrated against ----

def calibrate(sim, work):
    """One model at a time on two drives with policy none: a read goes to one copy, a write to both.
    Open-loop arrivals above what a drive can serve keep both drives saturated whatever the other
    one does (a closed loop would let a drive idle, and reclaim for free, while its peer is blocked
    by GC), so a drive serves half the reads and all the writes, and is blocked half the GC time.
    Each row names the thesis figure the device's config file calibrates that level against."""
    rows = []

    def run(drive, name, stream, duration, device=None):
        fresh = fresh_device(drive.name) if device == "fresh" else ""
        text = (header("none", duration, drive=drive) +
                f"[cluster]\nk = 1\nm = 1\ndata_device = {device or drive.name}\n" +
                fresh + "[stream s]\nkind = open\n" + stream)
        summary, timeline, _ = run_sim(sim, work / "calibrate", f"{drive.name}_{name}", text)
        return summary, steady(timeline, 5, duration)

    def add(drive, quantity, model, thesis, source):
        rows.append({"device": drive.name, "quantity": quantity, "model": model, "thesis": thesis, "source": source})

    for drive in (DRIVE_B, DRIVE_A):
        objects = drive.objects
        is_b = drive is DRIVE_B
        _, reads = run(drive, "reads_256k", f"rate = 3000\nobjects = {objects}\n", 20)
        add(drive, "256 KB random reads/s, one drive", sum(r["reads"] for r in reads) / len(reads) / 2,
            "1100" if is_b else "none given (data sheet: 250 MB/s)", "fig. 4.11a" if is_b else "§4.3: steady as B's")
        if is_b:
            _, reads = run(drive, "reads_128k", f"rate = 6000\nsize = 131072\nobjects = {objects}\n", 20)
            add(drive, "128 KB read MB/s, one drive", sum(r["read_bytes"] for r in reads) / len(reads) / 2e6,
                "273 (820 on 3 drives)", "§5.7, fig. 5.4")
        duration = 60
        random_writes = f"rate = 1500\nread_fraction = 0\nobjects = {objects}\n"
        summary, writes = run(drive, "random_writes_256k", random_writes, duration)
        gc_seconds, events = float(summary["gc_blocked_seconds"]), int(summary["gc_events"])
        range_gb = round(objects * 262144 / 1e9)
        add(drive, f"256 KB random writes/s over {range_gb} GB", sum(r["writes"] for r in writes) / len(writes),
            "none given", "")
        add(drive, f"share of time blocked by GC, random writes over {range_gb} GB",
            blocked_share(summary), "> 0.6 (\"over 600 ms/sec\")",
            "fig. 4.4" + ("" if not is_b else " (drive A; §4.3: B degrades to the same level)"))
        add(drive, "mean blocking GC event (ms)", 1e3 * gc_seconds / events, "tens of ms, up to 100",
            "§4.4.1, fig. 4.15a")
        if is_b:
            summary, _ = run(drive, "writes_100MB", "rate = 1500\nread_fraction = 0\nobjects = 400\n", duration,
                             "fresh")
            add(drive, "share of time blocked by GC, random writes over 100 MB",
                blocked_share(summary), "predictable", "fig. 4.3a")
        else:
            seq = "rate = 45000\npattern = sequential\nread_fraction = 0\nsize = 4096\nobjects = 1000000\n"
            _, writes = run(drive, "seq_writes_4k_fresh", seq, 20, "fresh")
            add(drive, "4 KB sequential writes/s, no GC debt", max(r["writes"] for r in writes), "40000 (peak)",
                "§4.3.1, fig. 4.6")
            _, writes = run(drive, "seq_writes_4k", seq, 40)
            windows = [sum(r["writes"] for r in writes[i:i + 5]) / 5 for i in range(0, len(writes) - 4, 5)]
            add(drive, "4 KB sequential writes/s into the random range, 5th percentile of 5 s windows",
                percentile(windows, 0.05), "~20000", "§6.1.3, fig. 4.6")
        print(f"{drive.name}: {DEVICES / drive.conf}")
    write_table("calibrate", rows, ["device", "quantity", "model", "thesis", "source"])


# ---- figs. 4.3, 4.11-4.13: Rails with replication on 2 and 3 drives ----

def rails_streams(objects, reads=True, writes=True):
    out = ""
    if reads:
        out += (f"[stream read_seq]\npattern = sequential\noutstanding = 4\nobjects = {objects}\n"
                f"[stream read_rand]\noutstanding = 4\nobjects = {objects}\n")
    if writes:
        out += (f"[stream write_seq]\npattern = sequential\nread_fraction = 0\noutstanding = 1\nobjects = {objects}\n"
                f"[stream write_rand]\nread_fraction = 0\noutstanding = 1\nobjects = {objects}\n")
    return out


def rails(sim, work):
    rows, cdf = rails_runs(sim, work / "rails", DRIVE_B, (2, 3), with_narrow_range=True)
    write_table("rails", rows, RAILS_COLUMNS)
    write_table("rails_guard", guard_sweep(sim, work / "rails", DRIVE_B), GUARD_COLUMNS)
    with open(RESULTS / "rails_cdf.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["drives", "run", "fraction", "read_iops"], lineterminator="\n")
        w.writeheader()
        w.writerows(cdf)


RAILS_COLUMNS = ["drives", "run", "read_iops_mean", "read_iops_p5", "seconds_at_90pct_read_only", "p50", "p99",
                 "p99.9", "p99.99", "read_gc_blocked", "reads_waited_gc", "p99.9_without_gc", "write_iops",
                 "invariant_violations"]
# Idle before each switch, in seconds: from none through the shortest that removes every GC wait
# from reads on both drive models (0.2 s for B, 0.25 s for A) to the thesis' 1 s.
GUARDS = (0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1)
GUARD_COLUMNS = ["guard", "read_iops_mean", "seconds_at_90pct_read_only", "p99", "p99.9", "p99.99", "read_max",
                 "reads_waited_gc", "p99.9_without_gc", "read_gc_blocked", "write_iops_sustained",
                 "write_iops_vs_no_guard", "invariant_violations"]


def rails_config(drive, drives, frame, duration, policy="rails", extra=""):
    """Replication on `drives` drives, every drive but one reading (the thesis' setting)."""
    return (header(policy, duration, drive=drive) +
            f"[cluster]\nk = 1\nm = {drives - 1}\ndata_device = {drive.name}\njournal_device = nvme_journal\n"
            f"frame = {frame}\nreaders = {drives - 1}\n" + extra)


def guard_sweep(sim, work, drive):
    """Rails on 2 drives of `drive` with idle time before each switch from 0 to 1 s: how much idle
    the drive that is about to read needs to finish its leftover GC, and what it costs the writers.
    The writers' cost is judged over the second half of the run, once the hold budget is full and
    writes complete at the rate the drives apply them (the summary's write_iops divides by the time
    of the last completion, which a write waiting for the budget can push out by a frame).
    The read-only level is rails_runs' read-only run, run again here with the same config."""
    duration, frame = 200, 10
    _, read_only, _ = run_sim(sim, work, "d2_read_only", rails_config(drive, 2, frame, duration) +
                              rails_streams(drive.objects, writes=False))
    per_second = [r["reads"] for r in steady(read_only, frame, duration)]
    level = sum(per_second) / len(per_second)
    rows = []
    for guard in GUARDS:
        summary, timeline, _ = run_sim(sim, work, f"d2_guard{guard}s",
                                       rails_config(drive, 2, frame, duration, extra=f"guard = {guard}\n") +
                                       rails_streams(drive.objects))
        per_second = [r["reads"] for r in steady(timeline, frame, duration)]
        writes = [r["writes"] for r in steady(timeline, duration / 2, duration)]
        write_iops = sum(writes) / len(writes)
        rows.append({"guard": guard, "read_iops_mean": sum(per_second) / len(per_second),
                     "seconds_at_90pct_read_only": sum(1 for v in per_second if v >= 0.9 * level) / len(per_second),
                     **latency_columns(summary), "read_max": float(summary["read_max"]) * 1e3,
                     **tail_columns(summary), "read_gc_blocked": float(summary["read_gc_blocked_fraction"]),
                     "write_iops_sustained": write_iops,
                     "write_iops_vs_no_guard": write_iops / rows[0]["write_iops_sustained"] if rows else 1.0,
                     "invariant_violations": int(summary["invariant_violations"])})
    return rows


def rails_runs(sim, work, drive, drive_counts, with_narrow_range=False):
    """Read-only, no separation and Rails (without and with 1 s of idle before each switch) on
    `drive`; a second is predictable when its reads reach 90% of the read-only mean."""
    duration, frame = 200, 10
    device, objects = drive.name, drive.objects  # device: the narrow-range run's fresh copy derives from it
    rows, cdf = [], []
    for drives in drive_counts:
        runs = [("read_only", "rails", "", rails_streams(objects, writes=False))]
        if with_narrow_range:
            runs.append(("none_100MB", "none", "data_device = fresh\n" + fresh_device(device), rails_streams(400)))
        runs += [
            ("none", "none", "", rails_streams(objects)),
            ("rails", "rails", "", rails_streams(objects)),
            ("rails_guard1s", "rails", "guard = 1\n", rails_streams(objects)),
        ]
        level = None
        for name, policy, extra, streams in runs:
            text = rails_config(drive, drives, frame, duration, policy, extra) + streams
            summary, timeline, _ = run_sim(sim, work, f"d{drives}_{name}", text)
            per_second = [r["reads"] for r in steady(timeline, frame, duration)]
            if level is None:
                level = sum(per_second) / len(per_second)
            predictable = sum(1 for v in per_second if v >= 0.9 * level) / len(per_second)
            rows.append({"drives": drives, "run": name, "read_iops_mean": sum(per_second) / len(per_second),
                         "read_iops_p5": percentile(per_second, 0.05),
                         "seconds_at_90pct_read_only": predictable,
                         **latency_columns(summary),
                         "read_gc_blocked": float(summary["read_gc_blocked_fraction"]),
                         **tail_columns(summary), "write_iops": float(summary["write_iops"]),
                         "invariant_violations": int(summary["invariant_violations"])})
            for i, v in enumerate(sorted(per_second)):
                cdf.append({"drives": drives, "run": name, "fraction": (i + 1) / len(per_second), "read_iops": v})
    return rows, cdf


# ---- figs. 4.13a and 6.9: Rails and QoS on Rails on drive A ----

def drive_a(sim, work):
    rows, _ = rails_runs(sim, work / "drive_a", DRIVE_A, (2,))
    write_table("drive_a", rows, RAILS_COLUMNS)
    write_table("drive_a_guard", guard_sweep(sim, work / "drive_a", DRIVE_A), GUARD_COLUMNS)
    qos_rows = qos_runs(sim, work / "drive_a", DRIVE_A, QOS_RUNS[:2])
    write_table("drive_a_qos", qos_rows, QOS_COLUMNS)


# ---- figs. 4.14-4.15: trace-driven, 2 drives ----

def synthetic_msr_trace(path, seconds, seed):
    """An MSR-Cambridge-format trace (the real ones cannot be downloaded here): bursts of random
    reads and writes over 200 GB, 4-256 KB requests, ~60/40 read/write by bytes. Deterministic."""
    rng = random.Random(seed)
    t = 128166372000000000  # FILETIME ticks (100 ns), as in the MSR files
    end = t + int(seconds * 1e7)
    sizes = [4096, 8192, 16384, 65536, 131072, 262144]
    lines = []
    while t < end:
        burst = rng.random() < 0.3  # 30% of 100 ms slots are busy bursts
        rate = 2400.0 if burst else 500.0
        slot_end = t + 1_000_000
        while t < slot_end:
            t += max(1, int(rng.expovariate(rate) * 1e7))
            kind = "Write" if rng.random() < 0.4 else "Read"
            size = rng.choice(sizes)
            offset = rng.randrange(0, 200 * 10**9 // 4096) * 4096
            lines.append(f"{t},stg,0,{kind},{offset},{size},0\n")
    path.write_text("".join(lines))
    return len(lines)


def trace(sim, work):
    duration = 120
    (work / "trace").mkdir(parents=True, exist_ok=True)
    trace_path = work / "trace" / "synthetic_stg.csv"
    records = synthetic_msr_trace(trace_path, duration, seed=42)
    rows = []
    for name, policy in (("none", "none"), ("rails", "rails"), ("rails_guard1s", "rails")):
        text = (header(policy, duration) +
                "[cluster]\nk = 1\nm = 1\ndata_device = intel510\njournal_device = nvme_journal\nframe = 10\n" +
                ("guard = 1\n" if name.endswith("guard1s") else "") +
                f"[stream stg]\nkind = trace\ntrace = {trace_path}\nsize = 65536\nobjects = 3051758\n")
        summary, _, _ = run_sim(sim, work / "trace", name, text)
        rows.append({"run": name, "trace_records": records, "reads": int(summary["reads"]),
                     "writes": int(summary["writes"]),
                     "read_gc_blocked": float(summary["read_gc_blocked_fraction"]), **latency_columns(summary),
                     **tail_columns(summary), "invariant_violations": int(summary["invariant_violations"])})
    write_table("trace", rows, ["run", "trace_records", "reads", "writes", "read_gc_blocked", "p50", "p99",
                                "p99.9", "p99.99", "reads_waited_gc", "p99.9_without_gc", "invariant_violations"])


# ---- figs. 5.7-5.8: eRails, k = m = 3 and 5 ----

def erails(sim, work):
    duration, frame = 100, 10
    rows = []
    for k in (3, 5):
        cluster = (f"[cluster]\nk = {k}\nm = {k}\ndata_device = intel510\njournal_device = nvme_journal\n"
                   f"frame = {frame}\n")
        # §5.7: "a read stream and a write stream", dispatch 0.75 / 0.25: closed loops with three
        # reads in flight per write in flight. Separate streams address separate objects, so no read
        # is served from held data (the thesis ignores cache hits too, §4.4.4).
        reads = f"[stream read]\nsize = 131072\noutstanding = {6 * k}\nobjects = {OBJECTS_200GB}\n"
        writes = (f"[stream write]\nsize = 131072\nread_fraction = 0\noutstanding = {2 * k}\n"
                  f"objects = {OBJECTS_200GB}\n")
        runs = [("read_only", "erails", reads), ("none", "none", reads + writes), ("erails", "erails", reads + writes)]
        level = None
        for name, policy, streams in runs:
            summary, timeline, _ = run_sim(sim, work / "erails", f"k{k}_{name}", header(policy, duration) + cluster + streams)
            per_second = [r["reads"] for r in steady(timeline, frame, duration)]
            mean = sum(per_second) / len(per_second)
            if level is None:
                level = mean
            rows.append({"k=m": k, "run": name, "read_iops_mean": mean, "read_MBps": mean * 131072 / 1e6,
                         "read_iops_p5": percentile(per_second, 0.05),
                         "seconds_at_90pct_read_only": sum(1 for v in per_second if v >= 0.9 * level) / len(per_second),
                         **latency_columns(summary), **tail_columns(summary),
                         "write_iops": float(summary["write_iops"]),
                         "mixed_reads": int(summary["mixed_reads"]), "memory_reads": int(summary["memory_reads"]),
                         "invariant_violations": int(summary["invariant_violations"])})
    write_table("erails", rows, ["k=m", "run", "read_iops_mean", "read_MBps", "read_iops_p5",
                                 "seconds_at_90pct_read_only", "p50", "p99", "p99.9", "p99.99", "reads_waited_gc",
                                 "p99.9_without_gc", "write_iops", "mixed_reads", "memory_reads",
                                 "invariant_violations"])


# ---- fig. 5.1: achievable write throughput against m (N = 10) ----

def write_vs_m(sim, work):
    # A drive without GC cost, so w is one number and the formula's assumption holds.
    ideal = (f"include = {DEVICES}/intel510_drive_b.conf\ninclude = {DEVICES}/nvme_journal.conf\n")
    ideal_device = ("[ssd ideal]\nbase = intel510\ninitial_footprint = 0\ngc_erase_bandwidth = 1e18\n"
                    "gc_copy_bandwidth = 1e18\n")
    # Every shard is `shard` bytes whatever k is, so w (measured with the same request size) is the
    # per-drive rate the bound assumes.
    shard, duration, frame = 65536, 120, 1
    writes = "[stream w]\nread_fraction = 0\nsize = {size}\noutstanding = 64\nobjects = 20000\n"
    summary, timeline, _ = run_sim(sim, work / "write_vs_m", "single_drive",
                                   ideal + f"[sim]\nduration = 30\npolicy = none\n[cluster]\nk = 1\nm = 1\n"
                                   "data_device = ideal\n" + ideal_device + writes.format(size=shard))
    rows_t = steady(timeline, 5, 30)
    w = sum(r["write_bytes"] for r in rows_t) / len(rows_t)  # replication k=1 m=1: each write hits both drives once
    rows = []
    n = 10
    for m in range(1, n):
        k = n - m
        text = (ideal + f"[sim]\nduration = {duration}\npolicy = erails\n[cluster]\nk = {k}\nm = {m}\n"
                "data_device = ideal\njournal_device = nvme_journal\n"
                f"frame = {frame}\nhold_budget = 2e9\n" + ideal_device +
                writes.format(size=shard * k))
        summary, timeline, _ = run_sim(sim, work / "write_vs_m", f"m{m}", text)
        rows_t = steady(timeline, 30, duration)
        measured = sum(r["write_bytes"] for r in rows_t) / len(rows_t)
        bound = k * m * w / (k + m)
        rows.append({"m": m, "k": k, "w_MBps": w / 1e6, "W_sim_MBps": measured / 1e6,
                     "W_bound_MBps": bound / 1e6, "sim_over_bound": measured / bound,
                     "invariant_violations": int(summary["invariant_violations"])})
    write_table("write_vs_m", rows, ["m", "k", "w_MBps", "W_sim_MBps", "W_bound_MBps", "sim_over_bound",
                                     "invariant_violations"])


# ---- beyond the thesis: 1,020 OSDs, two tenants, slow drives and failures ----

# "The Tail at Store" (Hao et al., FAST '16): SSDs are >= 2x slower than their peers 0.58% of
# drive hours and >= 1.5x slower 1.27%; slowdowns persist for hours, so over a 20 s run a drawn
# fraction of OSDs is slow throughout.
TAIL_AT_STORE = "[slow tail_2x]\nfraction = 0.0058\nfactor = 2\n[slow tail_1_5x]\nfraction = 0.0069\nfactor = 1.5\n"


def scale(sim, work):
    k = m = 3
    per_color = 170
    tenants = ("[stream tenant_a_reads]\nkind = open\nrate = 60000\nsize = 131072\nobjects = 500000\n"
               "[stream tenant_b_writes]\nkind = open\nrate = 30000\nread_fraction = 0\nsize = 262144\n"
               "objects = 500000\n")
    failures = "".join(f"[failure color{c}]\nosd = {c * per_color + 7}\nat = 5\n" for c in range(k + m))
    runs = [("none", "none", 5, 0, ""), ("erails", "erails", 5, 0, ""),
            ("none_slow", "none", 5, 0, TAIL_AT_STORE), ("erails_slow", "erails", 5, 0, TAIL_AT_STORE),
            ("erails_slow_frame2", "erails", 2, 0, TAIL_AT_STORE),
            ("erails_slow_frame10", "erails", 10, 0, TAIL_AT_STORE),
            ("erails_slow_readers4", "erails", 5, 4, TAIL_AT_STORE),
            ("none_slow_6failed", "none", 5, 0, TAIL_AT_STORE + failures),
            ("erails_slow_6failed", "erails", 5, 0, TAIL_AT_STORE + failures)]
    rows = []
    for name, policy, frame, readers, extra in runs:
        text = (header(policy, 20) +
                f"[cluster]\nk = {k}\nm = {m}\nosds_per_color = {per_color}\npgs = 4096\n"
                f"data_device = intel510\njournal_device = nvme_journal\nframe = {frame}\nreaders = {readers}\n"
                + tenants + extra)
        summary, _, _ = run_sim(sim, work / "scale", name, text)
        rows.append({"run": name, "frame": frame, "slow_osds": int(summary["slow_osds"]),
                     "reads": int(summary["reads"]), **latency_columns(summary), **tail_columns(summary),
                     "write_p99": float(summary["write_p99"]) * 1e3,
                     "read_gc_blocked": float(summary["read_gc_blocked_fraction"]),
                     "mixed_reads": int(summary["mixed_reads"]),
                     "invariant_violations": int(summary["invariant_violations"])})
    write_table("scale", rows, ["run", "frame", "slow_osds", "reads", "p50", "p99", "p99.9", "p99.99",
                                "reads_waited_gc", "p99.9_without_gc", "write_p99", "read_gc_blocked", "mixed_reads",
                                "invariant_violations"])


# ---- figs. 6.8-6.9: QoS (QBox's scheduler) on top of Rails, 2 drives ----

def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


QOS_RUNS = (  # name, policy, scheduler, extra [cluster] lines
    ("rails", "rails", "qbox", ""),
    ("rails_idle_1s_before_switch", "rails", "qbox", "guard = 1\n"),
    ("no_rails", "none", "qbox", ""),
    ("no_rails_fifo", "none", "fifo", ""),
    ("no_rails_mclock", "none", "mclock", ""),
    ("rails_idle_1s_before_switch_mclock", "rails", "mclock", "guard = 1\n"))
QOS_STREAMS = ("read_seq", "read_rand", "write_seq", "write_rand")
QOS_COLUMNS = ["run", "fraction_met_all", *[f"{s}_met" for s in QOS_STREAMS], "read_target", "write_target", "p50",
               "p99", "p99.9", "reads_waited_gc", "p99.9_without_gc", "late_reads", "invariant_violations"]


def qos(sim, work):
    write_table("qos", qos_runs(sim, work / "qos", DRIVE_B, QOS_RUNS), QOS_COLUMNS)


def qos_runs(sim, work, drive, runs):
    # Thesis §6.2: four streams (sequential/random reads, sequential/random writes) with throughput
    # targets on two SSDs under Rails; reads judged per second, writes per epoch (two switches), and
    # the share of windows meeting the target reported, without and with 1 s of idle time for the
    # writing drive before each switch (our guard). Targets come from a broker step as in §6.1.2:
    # profile each class alone, take its 5th-percentile throughput at the judging granularity, and
    # reserve 90% of it, split equally between the class's two streams.
    duration, frame = 200, 10
    epoch = 2 * frame
    device, objects = drive.name, drive.objects
    cluster = (f"[cluster]\nk = 1\nm = 1\ndata_device = {device}\njournal_device = nvme_journal\n"
               f"frame = {frame}\n")
    read_streams = (f"[stream read_seq]\npattern = sequential\noutstanding = 8\nobjects = {objects}\n"
                    f"[stream read_rand]\noutstanding = 8\nobjects = {objects}\n")
    write_streams = (f"[stream write_seq]\npattern = sequential\nread_fraction = 0\noutstanding = 2\n"
                     f"objects = {objects}\n"
                     f"[stream write_rand]\nread_fraction = 0\noutstanding = 2\nobjects = {objects}\n")
    _, reads_alone, _ = run_sim(sim, work, "profile_reads",
                                header("rails", duration, drive=drive) + cluster + read_streams)
    _, writes_alone, _ = run_sim(sim, work, "profile_writes",
                                 header("rails", duration, drive=drive) + cluster + write_streams)
    read_p5 = percentile([r["reads"] for r in steady(reads_alone, frame, duration)], 0.05)
    per_epoch = [sum(r["writes"] for r in writes_alone if e <= r["time"] < e + epoch) / epoch
                 for e in range(epoch, duration - epoch + 1, epoch)]
    write_p5 = percentile(per_epoch, 0.05)
    read_target, write_target = 0.45 * read_p5, 0.45 * write_p5
    # Prices for qbox: drive seconds per 4 KiB, from the same profiles (256 KiB requests; one drive
    # reads at a time; each write is applied by both drives, each writing half of the time).
    read_cost = 1 / read_p5 / 64
    write_cost = 0.5 / write_p5 / 64
    targets = {"read_seq": (read_target, 1), "read_rand": (read_target, 1),
               "write_seq": (write_target, epoch), "write_rand": (write_target, epoch)}

    def with_targets(streams, scheduler, policy):
        out = ""
        for block in streams.split("[stream ")[1:]:
            name = block.split("]")[0]
            target, window = targets[name]
            if scheduler == "mclock":
                # The peer gets the targets as reservations per drive: without Rails a read goes to
                # one of the two copies, and every write is applied by both drives.
                share = 0.5 if name.startswith("read") and policy == "none" else 1
                settings = f"reservation = {target * share}\n"
            else:
                settings = "utilization = 0.25\n"
            out += f"[stream {block}{settings}target = {target}\ntarget_window = {window}\n"
        return out

    rows = []
    for name, policy, scheduler, extra in runs:
        text = (header(policy, duration, drive=drive) + f"scheduler = {scheduler}\n" + cluster + extra +
                f"read_cost = {read_cost}\nwrite_cost = {write_cost}\n" +
                with_targets(read_streams + write_streams, scheduler, policy))
        summary, _, _ = run_sim(sim, work, name, text)
        outcome = {r["stream"]: r for r in read_csv(work / f"{name}.targets.csv")}
        windows = sum(int(r["windows"]) for r in outcome.values())
        met = sum(int(r["met"]) for r in outcome.values())
        row = {"run": name, "fraction_met_all": met / windows,
               **{f"{s}_met": float(outcome[s]["fraction_met"]) for s in targets},
               "read_target": read_target, "write_target": write_target,
               **latency_columns(summary), **tail_columns(summary), "late_reads": summary_late_reads(work / name),
               "invariant_violations": int(summary["invariant_violations"])}
        rows.append(row)
    return rows


def summary_late_reads(prefix):
    with open(f"{prefix}.summary.csv") as f:
        return int(next(csv.DictReader(f))["late_reads"])


# ---- speed: simulated requests per second of wall time, one core ----

def speed(sim, work):
    # Wall time of the whole erails-sim process (parse, allocate, simulate, write CSV). With 2M
    # objects the per-object version arrays (kept for the invariant checks) outgrow the caches and
    # every request pays a few cache misses; 100k objects shows the cost without them.
    rows = []
    for name, policy, k, m, osds_per_color, objects in (
            ("erails_1020_osds_2M_objects", "erails", 3, 3, 170, 2000000),
            ("erails_1020_osds_100k_objects", "erails", 3, 3, 170, 100000),
            ("none_1020_osds_2M_objects", "none", 3, 3, 170, 2000000),
            ("rails_2_drives_100k_objects", "rails", 1, 1, 1, 100000)):
        rate = 100000 if osds_per_color > 1 else 40000
        text = (header(policy, 20) +
                f"[cluster]\nk = {k}\nm = {m}\nosds_per_color = {osds_per_color}\npgs = 4096\n"
                "data_device = intel510\njournal_device = nvme_journal\nframe = 5\n"
                f"[stream mix]\nkind = open\nrate = {rate}\nread_fraction = 0.8\nsize = 16384\nobjects = {objects}\n")
        # The machine is shared (wall time includes waiting for a core, CPU time does not, and both
        # include other tenants' cache and memory traffic), so each run is repeated and the median
        # and the worst are kept: the spread says how much the digits can be trusted.
        times = []
        for _ in range(SPEED_REPEATS):
            summary, _, wall = run_sim(sim, work / "speed", name, text)
            times.append(wall)
        requests = int(summary["reads"]) + int(summary["writes"])
        walls, cpus = [t[0] for t in times], [t[1] for t in times]
        rows.append({"run": name, "osds": (k + m) * osds_per_color, "requests": requests,
                     "events": int(summary["events"]), "wall_seconds": statistics.median(walls),
                     "cpu_seconds": statistics.median(cpus),
                     "requests_per_wall_second": requests / statistics.median(walls),
                     "requests_per_wall_second_worst": requests / max(walls),
                     "requests_per_cpu_second": requests / statistics.median(cpus),
                     "requests_per_cpu_second_worst": requests / max(cpus),
                     "invariant_violations": int(summary["invariant_violations"])})
    write_table("speed", rows, ["run", "osds", "requests", "events", "wall_seconds", "cpu_seconds",
                                "requests_per_wall_second", "requests_per_wall_second_worst",
                                "requests_per_cpu_second", "requests_per_cpu_second_worst", "invariant_violations"])


def failslow(sim, work):
    """bench/failslow's story in the model: a k=4 m=2 pool, one OSD per color, fresh drive B at
    time scale 10 (the cluster run's devices), random reads of one 16 KiB stripe (4 KiB per shard,
    what a 4 KiB read of the cluster's pool fetches) 4 in flight and a writer of such stripes with 1;
    one OSD's data device 10x slower for the whole run. Healthy, stock (reads take the data shards:
    policy none, no Rails phases), Ceph's fast_read, and reading around it with its mark known from
    the start: the steady state after detection, which the cluster measures."""
    device = fresh_device("intel510") + "time_scale = 10\n"
    base = (f"include = {DEVICES}/intel510_drive_b.conf\n[sim]\nduration = 60\npolicy = none\n{{sim}}"
            "[cluster]\nk = 4\nm = 2\npgs = 32\ndata_device = fresh\n" + device +
            "[stream r]\noutstanding = 4\nsize = 16384\nobjects = 100000\n"
            "[stream w]\noutstanding = 1\nread_fraction = 0\nsize = 16384\nobjects = 200\n")
    slow = "[slow s]\nosd = 2\nfactor = 10\n"
    runs = [("healthy", "", ""), ("stock", "", slow), ("fast_read", "fast_read = on\n", slow),
            ("read_around", "read_around = on\n", slow)]
    rows = []
    healthy_p999 = None
    for name, sim_keys, extra in runs:
        summary, _, _ = run_sim(sim, work / "failslow", name, base.format(sim=sim_keys) + extra)
        latency = latency_columns(summary)
        healthy_p999 = healthy_p999 or latency["p99.9"]
        rows.append({"run": name, **latency, "p99.9_over_healthy": latency["p99.9"] / healthy_p999,
                     "shard_reads_per_read": int(summary["shard_reads"]) / int(summary["reads"]),
                     "slow_osds": int(summary["slow_osds"]),
                     "invariant_violations": int(summary["invariant_violations"])})
    write_table("failslow", rows, ["run", "p50", "p99", "p99.9", "p99.9_over_healthy", "shard_reads_per_read",
                                   "slow_osds", "invariant_violations"])


EXPERIMENTS = {"calibrate": calibrate, "rails": rails, "drive_a": drive_a, "trace": trace, "erails": erails,
               "write_vs_m": write_vs_m, "qos": qos, "scale": scale, "speed": speed, "failslow": failslow}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("experiment", choices=[*EXPERIMENTS, "all"])
    parser.add_argument("--sim", default=str(ROOT / "build-sim" / "tools" / "erails_sim" / "erails-sim"))
    parser.add_argument("--work", default="/tmp/erails-sim-repro")
    args = parser.parse_args()
    if not os.access(args.sim, os.X_OK):
        sys.exit(f"--sim: {args.sim} is not an executable; build it with cmake --build build-sim --target erails-sim")
    names = list(EXPERIMENTS) if args.experiment == "all" else [args.experiment]
    for name in names:
        print(f"== {name} (simulator, {os.uname().nodename})")
        EXPERIMENTS[name](args.sim, pathlib.Path(args.work))


if __name__ == "__main__":
    main()
