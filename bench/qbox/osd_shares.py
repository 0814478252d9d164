"""Per-client device-time shares inside real OSDs (libec_qbox.so), against stock wpq and
mclock_scheduler, on one local cluster per device kind: thesis figs. 3.2 and 3.15 with librados
clients of their own cephx names, and an OSD killed and restarted under client load.

  python3 bench/qbox/osd_shares.py --plugin-dir <build>/erasure-code --device hdd|ssd|files
                                   [--time-scale X] [--out DIR] [--recovery] [--port-base P]
                                   [--dir DIR] [--seconds S] [--op-shards N --shard-threads T]
                                   [--bluestore-throttle BYTES] [--osds 1|2] [--pool-size 1|2]
                                   [--objects N] [--queue-trace]

One run, on one cluster (2 BlueStore OSDs (--osds), a size-2 pool (--pool-size) with min_size 1, the qbox mgr module
enabled from this tree): the clients connect once and write their objects; each runs alone
(its standalone IOPS, the black-box measure's denominator); then under QBox (targets set with
`ceph qbox set` through the mgr), then stock wpq, then stock mclock_scheduler (only the OSDs are
restarted between schedulers: same pool, same data, same client sessions), fig. 3.2 (three
streams at 0.1, a random reader at 0.5), fig. 3.2r (the same with readers only: two sequential
at 0.1, the random one at 0.6), 3.2w (write-heavy: a 4 KiB random writer and a 1 MiB sequential
writer at 0.2, a 4 KiB random reader at 0.6) and fig. 3.15 (two sequential readers ramping 0.35 <->
0.05 in steps, a random reader at 0.4). With --recovery, under QBox and then wpq: osd.1 is
killed (SIGKILL) while fig. 3.2's (or --recovery-mix 3.2r's) clients run and a writer adds objects, and restarted; client
IOPS and degraded objects are recorded per window while recovery proceeds at its utilization.

Outputs in --out (default bench/qbox/results), prefix osd_<device>: per figure and scheduler the
per-window CSV (IOPS, black-box share, estimator share; under QBox also <...>_prices.csv, how each
OSD priced writes and each client's prices, and its own accounting per client, and
<...>_write_fit.csv, the windows each OSD fitted its write price to; with --queue-trace
<...>_queue.csv, each OSD's EDF queues four times a second), a summary CSV with every client's error
and the goal check, PNG plots; <prefix>_recovery.csv/.png; <prefix>.conditions.txt. Prints the
per-client error and pass/miss. The cluster is stopped at the end; its logs stay in --dir.
"""
import argparse
import csv
import fcntl
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import rados

import osd_share_eval as ev
import osd_shares_report as report
from mclock_settings import mclock_settings

REPO = Path(__file__).resolve().parents[2]
VSTART = REPO / "vstart-configs"
MODELS = REPO / "src" / "devices" / "models"
KiB, MiB = 1024, 1024 * 1024

# Device kinds: model file of start.sh --emulate-ssd and the time_scale that makes the emulated
# device, not the 2 CPUs, the bottleneck (the run checks it: alone IOPS against plain files).
DEVICES = {"hdd": ("hdd_7200.conf", 2.0), "ssd": ("intel510_drive_b.conf", 50.0), "files": (None, None)}
POOL = "qev"
PGS = 16
OBJECT_SIZE = 4 * MiB
OBJECTS_PER_CLIENT = 6  # --objects; the conditions file lists each client's primaries
DEPTH = 16           # ops each client keeps in flight (--depth)
WINDOW = 2.0         # seconds; the library's accounting window
WARMUP = 4.0         # seconds of each run left out of the errors
ALONE_SECONDS = 10.0
WARM_SECONDS = 5.0   # every client's unmeasured run after the OSDs restart
# name: (pattern, op, request size)
CLIENTS = {
    "client.qev-sr": ("seq", "read", 128 * KiB),
    "client.qev-sr2": ("seq", "read", 128 * KiB),
    "client.qev-sw": ("seq", "write", 1 * MiB),
    "client.qev-rw": ("rand", "write", 4 * KiB),
    "client.qev-rr": ("rand", "read", 4 * KiB),
}
# qev-sr2 runs the same pattern on objects of its own: its standalone IOPS are qev-sr's.
ALONE_AS = {"client.qev-sr2": "client.qev-sr"}
FIG_3_2 = {"client.qev-sr": 0.1, "client.qev-sw": 0.1, "client.qev-rw": 0.1, "client.qev-rr": 0.5}
# Fig. 3.2 with readers only (3.2r): how QBox shares reads, apart from how it prices writes.
FIG_3_2R = {"client.qev-sr": 0.1, "client.qev-sr2": 0.1, "client.qev-rr": 0.6}
# A write-heavy mix (3.2w): a 4 KiB random writer, a 1 MiB sequential writer and a 4 KiB random
# reader at 0.2 / 0.2 / 0.6 of what the background classes leave (the figures' shares are of the
# clients' sum, as fig. 3.2's 0.1 / 0.1 / 0.1 / 0.5 are 0.125 / ... / 0.625).
FIG_3_2W = {"client.qev-rw": 0.16, "client.qev-sw": 0.16, "client.qev-rr": 0.48}
FIXED = {"3.2": FIG_3_2, "3.2r": FIG_3_2R, "3.2w": FIG_3_2W}
RAMP_STEPS = 6
FIG_3_15 = {"client.qev-sr": (0.35, 0.05), "client.qev-sr2": (0.05, 0.35), "client.qev-rr": (0.4, 0.4)}
BACKGROUND = {"recovery": 0.15, "best_effort": 0.05}
SCHEDULERS = ("qbox", "wpq", "mclock_scheduler")
# --recovery: seconds from the start of the load to the kill, to the restart, and the whole load.
KILL_AT, RESTART_AT, RECOVERY_LOAD = 10.0, 25.0, 80.0
RECOVERY_OBJECTS = 60  # 4 MiB objects the writer adds while osd.1 is down (at most)
# Clients start in fresh interpreters: a child forked after this process made its own librados
# handle inherits the random state its messenger nonce comes from, so every client had the same
# address and the OSDs kept replacing one client's connection with another's (measured: ops
# resent for ever, `handle_existing_connection ... stop` in the OSD log).
SPAWN = multiprocessing.get_context("spawn")
POLL_SECONDS = 0.002   # how often a client looks for its ops' completions
TRACE_SECONDS = 0.25   # --queue-trace: how often each OSD's queues are read
STUCK_SECONDS = 10.0   # an op still in flight this long after its run ended is reported, not awaited


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


# ---------------------------------------------------------------- clients (one process each)

def client_main(conf, name, keyring, objects, conn):
    """A librados client with its own cephx name and `objects` objects, driven by commands on `conn`."""
    pattern, op, size = CLIENTS.get(name, ("seq", "write", OBJECT_SIZE))
    handle = rados.Rados(conffile=conf, name=name, conf={"keyring": keyring})
    handle.connect(timeout=120)
    ioctx = handle.open_ioctx(POOL)
    conn.send(("ready", handle.get_instance_id()))
    payload = os.urandom(max(size, OBJECT_SIZE))
    rng = random.Random(name)
    cursor = [0, 0]
    while True:
        command = conn.recv()
        if command[0] == "quit":
            break
        if command[0] == "prefill":
            _run(ioctx, [("write_full", f"{name}-{i}", 0, OBJECT_SIZE) for i in range(objects)],
                 payload, 4, None)
            conn.send(("done", []))
        elif command[0] == "go":
            start, seconds, depth = command[1], command[2], command[3]

            def ops():
                while time.time() < start + seconds:
                    if pattern == "seq":
                        i, off = cursor
                        cursor[1] = off + size if off + 2 * size <= OBJECT_SIZE else 0
                        cursor[0] = i if cursor[1] else (i + 1) % objects
                    else:
                        i, off = rng.randrange(objects), rng.randrange(OBJECT_SIZE // size) * size
                    yield (op, f"{name}-{i}", off, size)

            while time.time() < start:
                time.sleep(0.01)
            times = []
            errors, stuck = _run(ioctx, ops(), payload, depth, times, start + seconds + STUCK_SECONDS)
            conn.send(("done", [t - start for t in times], errors, stuck))
        elif command[0] == "fill":  # the recovery run's writer: new objects until told to stop
            start, seconds, count = command[1], command[2], command[3]
            _run(ioctx, (("write_full", f"fill-{start:.0f}-{i}", 0, OBJECT_SIZE) for i in range(count)
                         if time.time() < start + seconds), payload, 4, None)
            conn.send(("done", []))
    ioctx.close()
    handle.shutdown()


def _no_callback(*_):
    """python-rados calls aio_read's callback unconditionally."""


def _run(ioctx, ops, payload, depth, times, deadline=None):
    """Issue `ops` with at most `depth` in flight; completion times go to `times` (when not None).
    Returns (failed, stuck): ops that failed, and ops still in flight at `deadline` (then left).
    Every op in flight is polled and the next is sent as soon as any completes, so `depth` ops stay
    in flight and a slow op on one OSD does not hold back ops to the others (waiting for the oldest
    did: the reader of 3.2w on two OSDs, bench/qbox/README.md); a completion's time is when the
    poll saw it (a few ms late at most)."""
    in_flight = []
    errors = 0

    def reap():
        nonlocal in_flight, errors
        while True:
            done = [c.is_complete() for c in in_flight]
            if any(done):
                break
            if deadline is not None and time.time() > deadline:
                return False
            time.sleep(POLL_SECONDS)
        now = time.time()
        for c, complete in zip(in_flight, done):
            if complete:
                if times is not None:
                    times.append(now)
                errors += c.get_return_value() < 0
        in_flight = [c for c, complete in zip(in_flight, done) if not complete]
        return True

    for op, obj, off, size in ops:
        while len(in_flight) >= depth:
            if not reap():
                return errors, len(in_flight)
        if op == "read":
            in_flight.append(ioctx.aio_read(obj, size, off, _no_callback))
        elif op == "write":
            in_flight.append(ioctx.aio_write(obj, payload[:size], off))
        else:
            in_flight.append(ioctx.aio_write_full(obj, payload[:size]))
    while in_flight:
        if not reap():
            break
    return errors, len(in_flight)


# ---------------------------------------------------------------- the cluster

def claim_cluster_dir(parser, cluster_dir):
    """Holds the run's cluster directory while the returned file is open: a second run there
    would wipe this run's cluster with --fresh and restart its OSDs. The lock file sits beside
    the directory, which --fresh deletes."""
    lock = open(f"{cluster_dir}.lock", "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "unknown"
        parser.error(f"--dir: '{cluster_dir}' is in use by another run (pid {holder}); "
                     "give each run its own --dir and --port-base")
    lock.truncate(0)
    lock.write(f"{os.getpid()}\n")
    lock.flush()
    return lock


class Cluster:
    def __init__(self, args):
        self.args = args
        self.dir = Path(args.dir)
        self.conf = str(self.dir / "ceph.conf")
        self.env = dict(os.environ, CEPH_CONF=self.conf)
        self.scheduler = None
        self.admin = None

    def start(self, scheduler, fresh=False):
        cmd = [str(VSTART / "start.sh"), "--dir", str(self.dir), "--osds", str(self.args.osds),
               "--port-base", str(self.args.port_base), "--plugin-dir", self.args.plugin_dir,
               "--block-size", "2G", "--scheduler", scheduler, "--timeout", "300"]
        model, _ = DEVICES[self.args.device]
        if fresh:
            cmd.append("--fresh")
            if model:
                cmd += [f"--emulate-ssd={MODELS / model}", "--emulate-time-scale", str(self.args.time_scale)]
        subprocess.run(cmd, check=True, stdout=sys.stderr, timeout=600)
        self.scheduler = scheduler

    def stop_osd(self, osd, sig=signal.SIGTERM):
        pid = int((self.dir / "run" / f"osd.{osd}.pid").read_text())
        os.kill(pid, sig)
        while Path(f"/proc/{pid}").exists():
            time.sleep(0.2)

    def restart_osds(self, scheduler):
        for osd in range(self.args.osds):
            self.stop_osd(osd)
        self.start(scheduler)

    def stop(self):
        if self.admin:
            self.admin.shutdown()
        subprocess.run([str(VSTART / "stop.sh"), "--dir", str(self.dir)], stdout=sys.stderr, timeout=180)

    def ceph(self, *args, timeout=120):
        done = subprocess.run(["ceph", *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if done.returncode:
            raise RuntimeError(f"ceph {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def connect_admin(self):
        self.admin = rados.Rados(conffile=self.conf)
        self.admin.connect(timeout=120)

    def mgr(self, **cmd):
        """A qbox command, to the mgr module or to the controller outside ceph-mgr (the same
        words: each command's arguments are given in their order)."""
        if self.args.controller == "standalone":
            words = cmd["prefix"].split() + [str(value) for key, value in cmd.items() if key != "prefix"]
            done = subprocess.run([str(VSTART / "erails-ctl.sh"), "--dir", str(self.dir), *words],
                                  capture_output=True, text=True, timeout=120)
            ret, out, err = done.returncode, done.stdout, done.stderr
        else:
            ret, out, err = self.admin.mgr_command(json.dumps(cmd), b"", timeout=60)
        if ret:
            raise RuntimeError(f"{cmd}: {err}")
        return out

    def primaries(self, objects):
        """osd -> how many of `objects` (of the pool) have it as their primary, which serves their reads."""
        counts = {}
        for name in objects:
            primary = json.loads(self.ceph("osd", "map", POOL, name, "-f", "json"))["acting_primary"]
            counts[primary] = counts.get(primary, 0) + 1
        return dict(sorted(counts.items()))

    def shard_states(self, osd):
        """{shard: its state} from the OSD's `dump_op_pq_state`, or None."""
        try:
            ret, out, _ = self.admin.osd_command(osd, json.dumps({"prefix": "dump_op_pq_state"}), b"", timeout=5)
        except rados.Error:
            return None
        return json.loads(out) if ret == 0 else None

    def queues(self, osd):
        """{shard: its EDF queue's state} under QBox, or None."""
        shards = self.shard_states(osd)
        if shards is None:
            return None
        queues = {}
        for shard, state in shards.items():
            if "queue" in state:
                queues[shard] = json.loads(state["queue"])
                queues[shard]["write_lead"] = json.loads(state.get("write_lead", "null"))
        return queues

    def polling_threads(self, osd):
        """How many of the OSD's shard threads QBox saw asking again at once after a "retry at"
        answer (and puts to sleep while only held writes are queued), or None."""
        shards = self.shard_states(osd)
        if shards is None:
            return None
        return sum(state.get("polling_threads", 0) for state in shards.values() if isinstance(state, dict))

    def qbox_status(self, osd):
        """The OSD's `qbox status`, or None (stock, down, or no answer within 5 s)."""
        try:
            ret, out, _ = self.admin.osd_command(osd, json.dumps({"prefix": "qbox status"}), b"", timeout=5)
        except rados.Error:
            return None
        return json.loads(out) if ret == 0 else None

    def enable_qbox_module(self):
        """The qbox module from this source tree (as its cluster test does), or the controllers
        outside ceph-mgr (start.sh --controllers); pushing every second. Called once the pool
        exists: the controllers' pool made first would take its pool id, and so move every PG of
        the benchmark's pool (a PG's placement hashes its pool id), and which OSD serves each
        client's objects with it."""
        if self.args.controller == "standalone":
            subprocess.run([str(VSTART / "start.sh"), "--dir", str(self.dir), "--controllers"], check=True,
                           stdout=sys.stderr, timeout=600)
            self.ceph("config", "set", "mgr", "mgr/qbox/push_seconds", "1", "--force")
            wait_for("the qbox controller", lambda: subprocess.run(
                [str(VSTART / "erails-ctl.sh"), "--dir", str(self.dir), "qbox", "status"],
                capture_output=True, timeout=120).returncode == 0, 120)
            return
        subprocess.run([str(REPO / "vstart-configs" / "enable_module.sh"), "--dir", str(self.dir), "qbox"],
                       check=True)
        wait_for("mgr/qbox/push_seconds", lambda: subprocess.run(
            ["ceph", "config", "set", "mgr", "mgr/qbox/push_seconds", "1"], env=self.env,
            capture_output=True, timeout=60).returncode == 0, 120)


def wait_for(what, predicate, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(1.0)
    raise RuntimeError(f"timed out after {timeout} s waiting for {what}")


# ---------------------------------------------------------------- the run

class Run:
    def __init__(self, args, cluster):
        self.args = args
        self.cluster = cluster
        self.out = Path(args.out)
        self.prefix = f"osd_{args.device}" + (f"_{args.tag}" if args.tag else "")
        self.workers = {}
        self.ids = {}
        self.table = {}
        self.background_set = False
        self.epoch = 0

    def connect_clients(self):
        for name in list(CLIENTS) + ["client.qev-fill"]:
            keyring = self.cluster.dir / f"{name}.keyring"
            keyring.write_text(self.cluster.ceph("auth", "get-or-create", name, "mon", "allow r",
                                                 "osd", f"allow rwx pool={POOL}"))
            parent, child = SPAWN.Pipe()
            proc = SPAWN.Process(target=client_main,
                                 args=(self.cluster.conf, name, str(keyring), self.args.objects, child), daemon=True)
            proc.start()
            self.workers[name] = (proc, parent)
        for name, (_, conn) in self.workers.items():
            self.ids[name] = int(conn.recv()[1])
        log("clients connected: " + ", ".join(f"{n} (global id {i})" for n, i in self.ids.items()))

    def objecter(self, name):
        """The first of the client's ops in flight as its objecter sees them (admin socket)."""
        pid = self.workers[name][0].pid
        sockets = list((self.cluster.dir / "run").glob(f"{name}.{pid}.*asok")) + list(
            (self.cluster.dir / "run").glob(f"{name}.{pid}.asok"))
        if not sockets:
            return "no admin socket"
        done = subprocess.run(["ceph", "--admin-daemon", str(sockets[0]), "objecter_requests"], capture_output=True,
                              text=True, timeout=30)
        return " ".join(done.stdout.split())[:400]

    def quit(self):
        for proc, conn in self.workers.values():
            conn.send(("quit",))
            proc.join(timeout=30)

    def ask(self, names, command):
        for n in names:
            self.workers[n][1].send(command)
        return {n: self.workers[n][1].recv() for n in names}

    def set_table(self, table):
        """Make the mgr's table `table` ({client: u}) plus BACKGROUND: lowered entries first, so
        every step passes admission. With --table-to-osds the table goes to every OSD at once,
        under a new epoch, as the module would push it."""
        if self.args.table_to_osds:
            self.table = dict(table)
            self.epoch += 1
            command = json.dumps({"prefix": "qbox set", "table": json.dumps(
                ev.osd_table(self.epoch, self.table, self.ids, BACKGROUND))})
            for osd in range(self.args.osds):
                ret, _, err = self.cluster.admin.osd_command(osd, command, b"", timeout=30)
                if ret:
                    raise RuntimeError(f"qbox set on osd.{osd}: {err.strip()} ({ret})")
            return
        if not self.background_set:
            for cls, u in BACKGROUND.items():
                self.cluster.mgr(prefix="qbox set-background", background_class=cls, utilization=str(u))
            self.background_set = True
        for name in [n for n in self.table if n not in table]:
            self.cluster.mgr(prefix="qbox rm", client=name)
            del self.table[name]
        for name, u in sorted(table.items(), key=lambda kv: kv[1] - self.table.get(kv[0], 0)):
            if abs(self.table.get(name, -1) - u) > 1e-9:
                self.cluster.mgr(prefix="qbox set", client=name, utilization=f"{u:.4f}")
                self.table[name] = u

    def wait_table_in_osds(self):
        def in_force():
            for osd in range(self.args.osds):
                status = self.cluster.qbox_status(osd)
                if not status or status.get("state") != "active":
                    return False
                entries = {c["name"]: c for c in status["clients"]}
                for name, u in self.table.items():
                    e = entries.get(name)
                    if not e or self.ids[name] not in e["owners"] or abs(e["target"] - u) > 1e-3:
                        return False
            return True
        wait_for("every OSD to schedule by the table", in_force, 60)

    def load(self, names, seconds, on_start=None, sampler=None, tracer=None):
        """Run `names` together for `seconds`; returns ({client: completion times}, errors)."""
        start = time.time() + 1.0
        for n in names:
            self.workers[n][1].send(("go", start, seconds, self.args.depth))
        threads = [threading.Thread(target=f, args=(start,), daemon=True) for f in (on_start, sampler, tracer) if f]
        for t in threads:
            t.start()
        replies = {n: self.workers[n][1].recv() for n in names}
        for t in threads:
            t.join()
        for n, r in replies.items():
            if r[3]:
                log(f"{n}: {r[3]} ops still in flight {STUCK_SECONDS:g} s after the run ended (left)")
            if not r[1]:
                log(f"{n}: no op completed in this run; its objecter: {self.objecter(n)}")
        return {n: r[1] for n, r in replies.items()}, sum(r[2] for r in replies.values())

    def sampler(self, seconds, samples):
        """qbox status of every OSD once a window, as (t, osd, {entry: achieved}, {entry: backlogged},
        the status itself)."""
        def sample(start):
            while time.time() < start + seconds:
                time.sleep(WINDOW)
                t = time.time() - start
                for osd in range(self.args.osds):
                    status = self.cluster.qbox_status(osd)
                    if status and status.get("state") == "active":
                        samples.append((t, osd, {c["name"]: c["achieved"] for c in status["clients"]},
                                        {c["name"]: c["backlogged"] for c in status["clients"]}, status))
        return sample

    def tracer(self, seconds, trace):
        """Every OSD's EDF queues every TRACE_SECONDS, as (t, osd, shard, queue state)."""
        def poll(start):
            while time.time() < start + seconds:
                time.sleep(TRACE_SECONDS)
                t = time.time() - start
                for osd in range(self.args.osds):
                    for shard, queue in (self.cluster.queues(osd) or {}).items():
                        trace.append((t, osd, shard, queue))
        return poll

    def write_trace(self, name, trace):
        """<prefix>_<name>_queue.csv: per poll, OSD, shard and account of the EDF queue, its share, its
        latest deadline and its head's relative to the queue's frontier (the latest deadline dispatched),
        and its ops queued: when a client's head is far beyond the frontier while another's FIFO is
        empty, the first is being served out of its turn."""
        with open(self.out / f"{self.prefix}_{name}_queue.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["time_s", "osd", "shard", "frontier", "account", "utilization",
                        "accumulated_minus_frontier", "head_minus_frontier", "queued",
                        "write_lead_s", "write_lead_drain_rate", "write_lead_held"])
            for t, osd, shard, queue in trace:
                frontier = queue["frontier"]
                if frontier is None:  # nothing dispatched yet
                    continue
                lead = queue["write_lead"]
                lead_cells = (["", "", ""] if lead is None else
                              [f"{lead['seconds']:.4f}", f"{lead['drain_rate']:.4f}", int(lead["held"])])
                for c in queue["clients"]:
                    head = c["head_deadline"]
                    w.writerow([f"{t:.2f}", osd, shard, f"{frontier:.4f}", c["id"], f"{c['utilization']:.4f}",
                                f"{c['accumulated_deadline'] - frontier:.4f}",
                                "" if head is None else f"{head - frontier:.4f}", c["queued"]] + lead_cells)

    # ------------------------------------------------------------ alone and the figures

    def alone(self):
        """({client: standalone IOPS}, {client: {osd: (busy outstanding, busy running)}}): how
        busy QBox found each OSD while the client ran alone (`qbox status` busy, means of the
        windows after the first). The black-box measure assumes the client alone saturates the
        device; an OSD busy less than always is a hint that it did not, not a proof (README, "What
        the clients do alone")."""
        iops, busy = {}, {}
        for name in CLIENTS:
            if name in ALONE_AS:
                continue
            samples = []
            times, errors = self.load([name], ALONE_SECONDS, sampler=self.sampler(ALONE_SECONDS, samples))
            rows = ev.window_rows(times, WINDOW, ALONE_SECONDS, lambda t: {name: 1.0})
            kept = [r for r in rows if float(r["time_s"]) > WINDOW]
            iops[name] = sum(float(r["iops"]) for r in kept) / len(kept)
            busy[name] = {}
            for osd in range(self.args.osds):
                windows = [s[4]["busy"] for s in samples if s[1] == osd and s[0] > WINDOW + 1 and s[4].get("busy")]
                if windows:
                    busy[name][osd] = tuple(sum(b[k] for b in windows) / len(windows)
                                            for k in ("outstanding", "running"))
            log(f"alone {name}: {iops[name]:.0f} IOPS ({errors} errors); OSDs busy (outstanding, running): "
                + ", ".join(f"osd.{o} {a:.2f} {r:.2f}" for o, (a, r) in busy[name].items()))
        for name, like in ALONE_AS.items():
            iops[name], busy[name] = iops[like], busy[like]
        return iops, busy

    def figure(self, fig, scheduler, alone):
        if fig in FIXED:
            fixed = FIXED[fig]
            names, seconds = list(fixed), self.args.seconds
            steps = None

            def targets_at(t):
                return ev.normalized(fixed)
        else:
            names, seconds = list(FIG_3_15), RAMP_STEPS * self.args.seconds / 4
            steps = {n: ev.ramp(a, b, RAMP_STEPS) for n, (a, b) in FIG_3_15.items()}
            step_len = seconds / RAMP_STEPS

            def targets_at(t):
                k = min(int(t // step_len), RAMP_STEPS - 1)
                return ev.normalized({n: s[k] for n, s in steps.items()})
        if scheduler == "qbox":
            self.set_table({n: (fixed[n] if steps is None else steps[n][0]) for n in names})
            self.wait_table_in_osds()
        samples = []

        def ramp(start):
            for k in range(1, RAMP_STEPS):
                time.sleep(max(0.0, start + k * step_len - time.time()))
                self.set_table({n: s[k] for n, s in steps.items()})

        trace = []
        qbox = scheduler == "qbox"
        times, errors = self.load(names, seconds, on_start=ramp if steps and qbox else None,
                                  sampler=self.sampler(seconds, samples) if qbox else None,
                                  tracer=self.tracer(seconds, trace) if qbox and self.args.queue_trace else None)
        rows = ev.window_rows(times, WINDOW, seconds, targets_at)
        stats, total = ev.share_errors(rows, alone, WARMUP)
        est = ev.estimator_pairs([(t, a) for t, _, a, _, _ in samples], targets_at, WARMUP)
        est_err = {n: ev.black_box.share_stats(p) for n, p in est.items()}
        self.write_windows(f"fig{fig.replace('.', '_')}_{scheduler}", rows, alone, samples)
        if trace:
            self.write_trace(f"fig{fig.replace('.', '_')}_{scheduler}", trace)
        log(f"fig. {fig} {scheduler}: " + "; ".join(
            f"{n} share {s.mean_share:.3f} err {s.mean_error:.3f}"
            + (f" (estimator {est_err[n].mean_share:.3f})" if n in est_err else "")
            for n, s in stats.items()) + f"; total {total:.2f}; {errors} errors")
        return stats, total, est_err

    def write_windows(self, name, rows, alone, samples):
        """<prefix>_<name>.csv: per window and client, IOPS, black-box share and the estimator's
        achieved share and backlogged fraction (mean over the OSDs that answered)."""
        path = self.out / f"{self.prefix}_{name}.csv"
        by_window = {}
        for t, osd, achieved, backlogged, _ in samples:
            k = int(t // WINDOW) + 1
            for client, a in achieved.items():
                by_window.setdefault((k * WINDOW, client), []).append((a, backlogged.get(client)))
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["time_s", "client", "target", "iops", "black_box_share", "qbox_achieved_mean_osds",
                        "qbox_backlogged_mean_osds"])
            for r in rows:
                got = by_window.get((float(r["time_s"]), r["client"]), [])
                a = [x for x, _ in got if x is not None]
                b = [y for _, y in got if y is not None]
                w.writerow([r["time_s"], r["client"], f"{float(r['target_util']):.4f}", r["iops"],
                            f"{float(r['iops']) / alone[r['client']]:.4f}",
                            f"{sum(a) / len(a):.4f}" if a else "", f"{sum(b) / len(b):.3f}" if b else ""])
        if samples:
            self.write_prices(name, samples)
            self.write_fit(name, samples)

    def write_prices(self, name, samples):
        """<prefix>_<name>_prices.csv: per sample, OSD and client, how the OSD priced a write
        (write_price of `qbox status`), the client's read, clean read and write prices in ms, and
        the OSD's own accounting: the client's achieved share, backlogged fraction and ops queued
        there, and the fraction of the window the OSD had ops outstanding; and the OSD's writes held
        for readers so far (write_holds: count, seconds, idle seconds), its writes' backlog now
        (write_holds.backlog_seconds) and the time it idled pacing the writes so far
        (write_holds.paced_idle_seconds); and the shortest write the price holds for, in bytes, 0 for
        any (write_price.shortest_write)."""
        def ms(value):
            return f"{value * 1000:.4f}" if isinstance(value, (int, float)) else ""
        with open(self.out / f"{self.prefix}_{name}_prices.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["time_s", "osd", "write_method", "long_windows", "write_ms_per_op", "write_ms_per_mib",
                        "write_copies", "reads_clean", "busy_outstanding", "client", "read_ms", "read_clean_ms", "write_ms",
                        "achieved", "backlogged", "queued", "holds", "held_s", "held_idle_s", "write_backlog_s",
                        "paced_idle_s", "write_shortest_bytes"])
            for t, osd, _, _, status in samples:
                wp = status.get("write_price") or {}
                busy = (status.get("busy") or {}).get("outstanding", "")
                holds = status.get("write_holds") or {}
                for c in status["clients"]:
                    price = c.get("price") or {}
                    w.writerow([f"{t:.1f}", osd, wp.get("method", ""), wp.get("long_windows", ""),
                                ms(wp.get("per_op")), ms(wp.get("per_mib")), wp.get("copies", ""),
                                wp.get("reads_clean", ""), busy,
                                c["name"], ms(price.get("read")), ms(price.get("read_clean")), ms(price.get("write")),
                                c.get("achieved", ""), c.get("backlogged", ""), c.get("queued", ""),
                                holds.get("count", ""), holds.get("seconds", ""), holds.get("idle_seconds", ""),
                                holds.get("backlog_seconds", ""), holds.get("paced_idle_seconds", ""),
                                wp.get("shortest_write", "")])

    def write_fit(self, name, samples):
        """<prefix>_<name>_write_fit.csv: each long window an OSD fitted its write price to, once,
        at the first sample that showed it (write_price.observations of `qbox status`), and the
        price fitted with it in the history."""
        seen = set()
        with open(self.out / f"{self.prefix}_{name}_write_fit.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["time_s", "osd", "number", "ops", "mib", "client_ops", "client_mib", "residual_s",
                        "write_ms_per_op", "write_ms_per_mib", "write_copies"])
            for t, osd, _, _, status in samples:
                wp = status.get("write_price") or {}
                for o in wp.get("observations", []):
                    if (osd, o["number"]) in seen:
                        continue
                    seen.add((osd, o["number"]))
                    w.writerow([f"{t:.1f}", osd, o["number"], f"{o['ops']:g}", f"{o['mib']:.4f}",
                                f"{o['client_ops']:g}", f"{o['client_mib']:.4f}", f"{o['residual']:.4f}",
                                f"{wp['per_op'] * 1000:.4f}", f"{wp['per_mib'] * 1000:.4f}",
                                f"{wp['copies']:.3f}"])

    # ------------------------------------------------------------ recovery

    def recovery(self, scheduler, alone):
        mix = FIXED[self.args.recovery_mix]
        names = list(mix)
        if scheduler == "qbox":
            self.set_table(dict(mix))
            self.wait_table_in_osds()
        degraded = []
        samples = []

        def events(start):
            time.sleep(max(0.0, start + KILL_AT - time.time()))
            log(f"recovery {scheduler}: SIGKILL osd.1")
            self.cluster.stop_osd(1, signal.SIGKILL)
            self.workers["client.qev-fill"][1].send(("fill", time.time(), RESTART_AT - KILL_AT - 2,
                                                     RECOVERY_OBJECTS))
            time.sleep(max(0.0, start + RESTART_AT - time.time()))
            log(f"recovery {scheduler}: restarting osd.1")
            subprocess.run([str(VSTART / "start.sh"), "--dir", str(self.cluster.dir), "--scheduler", scheduler,
                            "--plugin-dir", self.args.plugin_dir, "--no-wait"], check=True, stdout=sys.stderr,
                           timeout=300)
            # Not before the restart: the writer has no share, so under QBox its last writes wait
            # until the clients leave the OSD time (on 2026-11-29 they held the restart back 58 s).
            self.workers["client.qev-fill"][1].recv()

        def pg_stat(start):
            while time.time() < start + RECOVERY_LOAD:
                ret, out, _ = self.cluster.admin.mon_command(json.dumps({"prefix": "pg stat", "format": "json"}),
                                                             b"", timeout=20)
                if ret == 0:
                    stat = json.loads(out)
                    stat = stat.get("pg_summary", stat)
                    degraded.append((time.time() - start, stat.get("degraded_objects", 0),
                                     stat.get("misplaced_objects", 0)))
                time.sleep(WINDOW)

        def both(start):
            watcher = threading.Thread(target=pg_stat, args=(start,), daemon=True)
            watcher.start()
            events(start)
            watcher.join()

        times, errors = self.load(names, RECOVERY_LOAD, on_start=both,
                                  sampler=self.sampler(RECOVERY_LOAD, samples) if scheduler == "qbox" else None)
        targets = ev.normalized(mix)
        rows = ev.window_rows(times, WINDOW, RECOVERY_LOAD, lambda t: targets)
        clean_at = next((t for t, d, _ in degraded if t > RESTART_AT + 5 and d == 0), None)
        phases = {"before": (WARMUP, KILL_AT), "down": (KILL_AT + WINDOW, RESTART_AT),
                  "recovering": (RESTART_AT + WINDOW, clean_at or RECOVERY_LOAD)}
        means = ev.phase_means(rows, phases)
        self.write_windows(f"recovery_{scheduler}", rows, alone, samples)
        with open(self.out / f"{self.prefix}_recovery_{scheduler}_degraded.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["time_s", "degraded_objects", "misplaced_objects"])
            w.writerows((f"{t:.1f}", d, m) for t, d, m in degraded)
        peak = max((d for _, d, _ in degraded), default=0)
        log(f"recovery {scheduler}: peak {peak} degraded objects, clean "
            + (f"{clean_at - RESTART_AT:.0f} s after the restart" if clean_at else f"not within {RECOVERY_LOAD} s")
            + f"; {errors} client errors")
        shares = {p: {n: m[n] / alone[n] for n in m} for p, m in means.items()}
        start, end = phases["recovering"]
        # Whether recovery got less than its utilization because QBox held it back (its ops queued)
        # or because it asked for less (Ceph's own recovery limits pace its ops).
        windows = [(a["background_recovery"], b.get("background_recovery")) for t, _, a, b, _ in samples
                   if start < t <= end and a.get("background_recovery") is not None]
        recovery_est = sum(a for a, _ in windows) / len(windows) if windows else None
        backlogs = [b for _, b in windows if b is not None]
        recovery_backlogged = sum(backlogs) / len(backlogs) if backlogs else None
        if recovery_est is not None:
            log(f"  background_recovery: target {BACKGROUND['recovery']}, QBox's estimate of its share while "
                f"recovering {recovery_est:.3f}, its ops queued "
                + ("(not reported)" if recovery_backlogged is None else f"{recovery_backlogged:.2f} of the time")
                + f" (means over {len(windows)} OSD-windows)")
        for n in names:
            log(f"  {n}: target {targets[n]:.3f}, black-box share before {shares['before'].get(n, 0):.3f} "
                f"down {shares['down'].get(n, 0):.3f} recovering {shares['recovering'].get(n, 0):.3f}")
        # While recovery has ops queued, it takes its utilization too: the clients are owed less.
        busy = sum(mix.values()) + BACKGROUND["recovery"]
        return {"shares": shares, "targets": targets, "peak": peak, "recovery_estimated": recovery_est,
                "recovery_backlogged": recovery_backlogged,
                "targets_recovering": {n: u / busy for n, u in mix.items()},
                "clean_after": (clean_at - RESTART_AT) if clean_at else None}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plugin-dir", required=True, help="<build>/erasure-code with libec_qbox.so")
    parser.add_argument("--device", choices=sorted(DEVICES), required=True)
    parser.add_argument("--time-scale", type=float, help="the emulated device's time_scale (default per device)")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    parser.add_argument("--dir", help="cluster directory (default /tmp/erails-qbox-osd-shares-<device>)")
    parser.add_argument("--port-base", type=int, default=20600)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of fig. 3.2's runs")
    parser.add_argument("--recovery", action="store_true", help="also the OSD kill/restart under load")
    parser.add_argument("--recovery-mix", choices=sorted(FIXED), default="3.2",
                        help="the clients running while osd.1 is killed and recovered: those of one of the fixed figures")
    parser.add_argument("--tag", default="", help="added to the outputs' prefix (osd_<device>_<tag>)")
    parser.add_argument("--figures", default="3.2,3.2r,3.15", help="comma-separated, of 3.2, 3.2r, 3.2w and 3.15")
    parser.add_argument("--schedulers", default=",".join(SCHEDULERS))
    parser.add_argument("--op-shards", type=int, metavar="N",
                        help="osd_op_num_shards of every OSD (start.sh: 2); with --shard-threads")
    parser.add_argument("--shard-threads", type=int, metavar="T",
                        help="osd_op_num_threads_per_shard of every OSD (start.sh: 1)")
    parser.add_argument("--bluestore-throttle", type=int, metavar="BYTES",
                        help="bluestore_throttle_bytes and _deferred_bytes of every OSD, under every "
                             "scheduler and alone: writes then wait in the shards' queues, not in BlueStore")
    parser.add_argument("--controller", choices=("mgr", "standalone"), default="mgr",
                        help="where the qbox controller runs: the mgr module (default), or outside ceph-mgr "
                             "(erails-controller, started by start.sh --controllers), as on Debian 13")
    parser.add_argument("--table-to-osds", action="store_true",
                        help="give the OSDs their table with `qbox set` directly instead of through the "
                             "qbox mgr module (which Debian 13's ceph-mgr cannot run); not with "
                             "--recovery, whose restarted OSD only the module gives its table again")
    parser.add_argument("--osds", type=int, default=2, choices=(1, 2),
                        help="OSDs of the cluster; 1 puts every client on one device, as in the thesis")
    parser.add_argument("--pool-size", type=int, default=2, choices=(1, 2),
                        help="replicas of the pool (default 2); with 1 no op is a replica sub-op, which "
                             "QBox runs as immediate and charges to no client")
    parser.add_argument("--queue-trace", action="store_true",
                        help="under QBox, also read every OSD's EDF queues (dump_op_pq_state) every "
                             f"{TRACE_SECONDS:g} s into <run>_queue.csv")
    parser.add_argument("--depth", type=int, default=DEPTH, metavar="N",
                        help=f"ops each client keeps in flight, alone and in the mixes (default {DEPTH})")
    parser.add_argument("--objects", type=int, default=OBJECTS_PER_CLIENT, metavar="N",
                        help=f"4 MiB objects of each client (default {OBJECTS_PER_CLIENT}); more spread each "
                             "client's ops more evenly over the OSDs' primaries")
    args = parser.parse_args(argv)
    if not 1 <= args.objects <= 256:
        parser.error(f"--objects: got {args.objects}; expected a whole number from 1 to 256")
    if not 1 <= args.depth <= 256:
        parser.error(f"--depth: got {args.depth}; expected a whole number from 1 to 256")
    if args.table_to_osds and args.recovery:
        parser.error("--table-to-osds: not with --recovery: the restarted OSD would run without a table")
    if args.pool_size == 1 and args.recovery:
        parser.error("--recovery: a pool of size 1 has nothing to recover from; use --pool-size 2")
    if args.pool_size > args.osds:
        parser.error(f"--pool-size {args.pool_size}: more copies than --osds {args.osds}")
    if args.bluestore_throttle is not None and args.bluestore_throttle < 1:
        parser.error(f"--bluestore-throttle: got {args.bluestore_throttle}; expected bytes >= 1")
    for name, value in (("--op-shards", args.op_shards), ("--shard-threads", args.shard_threads)):
        if value is not None and not 1 <= value <= 16:
            parser.error(f"{name}: got {value}; expected a whole number from 1 to 16")
    # A shard's queue orders only that shard's ops, so with several shards a client whose ops
    # all land in one shard gets that shard's thread whatever its share (doc/dev/qbox-in-osd.md);
    # one shard of several threads puts every op of the OSD in one queue. start.sh writes the
    # shard count into ceph.conf, which outranks the monitors' config; the command line (here
    # CEPH_ARGS, which every daemon start.sh starts inherits) outranks ceph.conf. The BlueStore
    # throttles go the same way, so that the OSDs have them from their first op, alone runs included.
    osd_args = [f"--{o} {v}" for o, v in (("osd_op_num_shards", args.op_shards),
                                          ("osd_op_num_threads_per_shard", args.shard_threads),
                                          ("bluestore_throttle_bytes", args.bluestore_throttle),
                                          ("bluestore_throttle_deferred_bytes", args.bluestore_throttle))
                if v is not None]
    if osd_args:
        os.environ["CEPH_ARGS"] = " ".join(filter(None, [os.environ.get("CEPH_ARGS", "")] + osd_args))
    if not (Path(args.plugin_dir) / "libec_qbox.so").exists():
        parser.error(f"--plugin-dir: no libec_qbox.so in '{args.plugin_dir}'")
    figures = [f for f in args.figures.split(",") if f]
    for f in figures:
        if f not in (*FIXED, "3.15"):
            parser.error(f"--figures: '{f}' is not one of {', '.join(FIXED)}, 3.15")
    schedulers = [s for s in args.schedulers.split(",") if s]
    if not schedulers or schedulers[0] != "qbox" or any(s not in SCHEDULERS for s in schedulers):
        parser.error(f"--schedulers: '{args.schedulers}' must start with qbox and name only {', '.join(SCHEDULERS)}")
    model, scale = DEVICES[args.device]
    if args.time_scale is None:
        args.time_scale = scale
    elif not model:
        parser.error("--time-scale: the 'files' device is not emulated")
    elif args.time_scale <= 0:
        parser.error(f"--time-scale: got {args.time_scale}; expected a number > 0")
    args.dir = args.dir or f"/tmp/erails-qbox-osd-shares-{args.device}"
    dir_lock = claim_cluster_dir(parser, args.dir)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    device = f"emulated {model} time_scale {args.time_scale:g}" if model else "plain files"
    if osd_args:
        device += ", " + " ".join(osd_args)
    ceph_version = subprocess.run(["ceph", "--version"], capture_output=True, text=True).stdout.split()[2]
    conditions = [f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: Ceph {ceph_version}, {args.osds} OSDs, BlueStore on {device}, "
                  f"pool size {args.pool_size}, {args.depth} ops in flight per client; the table given "
                  f"{'to the OSDs directly' if args.table_to_osds else 'by the qbox ' + args.controller + ' controller'}; "
                  f"load average {os.getloadavg()[0]:.1f} before the start (shared 2-core machine)"]
    log(conditions[0])
    cluster = Cluster(args)
    run = Run(args, cluster)
    results = {}
    try:
        cluster.start("qbox", fresh=True)
        cluster.ceph("osd", "pool", "create", POOL, str(PGS), str(PGS))
        if args.pool_size == 1:
            cluster.ceph("config", "set", "global", "mon_allow_pool_size_one", "true")
            cluster.ceph("osd", "pool", "set", POOL, "size", "1", "--yes-i-really-mean-it")
        else:
            cluster.ceph("osd", "pool", "set", POOL, "size", str(args.pool_size))
        cluster.ceph("osd", "pool", "set", POOL, "min_size", "1")
        cluster.ceph("osd", "pool", "application", "enable", POOL, "rados")
        cluster.connect_admin()
        if not args.table_to_osds:
            cluster.enable_qbox_module()
        run.connect_clients()
        run.ask(list(CLIENTS), ("prefill",))
        log("objects written")
        # Shares are per OSD: two clients whose objects sit on different primaries do not compete.
        conditions.append("primaries of each client's objects: " + "; ".join(
            f"{name} " + ", ".join(f"osd.{osd} {n}" for osd, n in cluster.primaries(
                [f"{name}-{i}" for i in range(args.objects)]).items()) for name in CLIENTS))
        log(conditions[-1])
        alone, results["alone_busy"] = run.alone()
        results["alone"] = alone
        for scheduler in schedulers:
            if scheduler != cluster.scheduler:
                cluster.restart_osds(scheduler)
                # A client's first ops after the OSDs restarted waited 10-15 s (measured: client.qev-sr2
                # completed nothing for the first 12 s of fig. 3.15 under wpq and mclock_scheduler),
                # which would be charged to the scheduler; every client runs briefly first.
                run.load(list(CLIENTS), WARM_SECONDS)
            conditions.append(f"{time.strftime('%H:%M:%S UTC', time.gmtime())} {scheduler}: load average "
                              f"{os.getloadavg()[0]:.1f}")
            if scheduler == "mclock_scheduler":
                conditions.append(mclock_settings(cluster.env, args.osds))
            for fig in figures:
                results[(fig, scheduler)] = run.figure(fig, scheduler, alone)
            if scheduler == "qbox":
                conditions.append("qbox shard threads that polled a retry answer: " + ", ".join(
                    f"osd.{osd} {cluster.polling_threads(osd)}" for osd in range(args.osds)))
            if args.recovery and scheduler in ("qbox", "wpq"):
                results[("recovery", scheduler)] = run.recovery(scheduler, alone)
        run.quit()
    finally:
        cluster.stop()
        dir_lock.close()
    conditions.append(f"{time.strftime('%H:%M:%S UTC', time.gmtime())} end: load average {os.getloadavg()[0]:.1f}")
    (Path(args.out) / f"{run.prefix}.conditions.txt").write_text("\n".join(conditions) + "\n")
    report.write(Path(args.out), run.prefix, device, results, figures, schedulers, WARMUP, (KILL_AT, RESTART_AT))


if __name__ == "__main__":
    main(sys.argv[1:])
