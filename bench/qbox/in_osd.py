"""QBox inside Debian's ceph-osd (libec_qbox.so) on a local cluster of its own: what it costs, and
whether two clients get the shares they were given.

  python3 bench/qbox/in_osd.py --plugin-dir <build>/erasure-code [--osds 2] [--seconds 10]
                               [--rounds 2] [--stock wpq|mclock_scheduler] [--dir DIR] [--port-base 20150] [--no-shares]
                               [--no-overhead] [--no-stock-shares] [--share-op read|write|mixed]
                               [--depth N] [--emulate-time-scale X] [--bluestore-throttle BYTES]

1. Overhead: rados bench 4 KiB writes then 4 KiB random reads (16 in flight), with the OSDs'
   stock scheduler (--stock, wpq by default) and with QBox, in `--rounds` rounds on the same
   cluster (stock qbox | qbox stock | ...; only the OSDs are restarted between schedulers);
   prints the IOPS and the OSDs' CPU time per op of each run, the QBox/stock ratios of each round
   and their median, and mclock_scheduler's profile and capacities where it is the stock.
2. Shares: two librados clients (one process each, 4 KiB random reads of objects each wrote first,
   --depth (32) in flight each; `--share-op write` for 4 KiB writes instead, `mixed` for client.a
   reading and client.b writing) given 0.3 and 0.6 of each OSD's device time (`qbox set` with
   their global ids); prints, per OSD and accounting window, each client's achieved share and
   backlogged fraction from `qbox status`, the OSD's busy fractions (an op running / an op queued
   or running) and its estimated read and write costs, the clients' means
   over windows where both were backlogged, and each client's IOPS; then the same two clients
   under stock wpq and mclock_scheduler (no per-client targets there), their IOPS and ratio.
With --emulate-time-scale the OSDs' data devices are start.sh's emulated SSD (drive B of the
thesis, every modeled time multiplied by X), so the device rather than the CPU can be the
bottleneck. --bluestore-throttle sets BlueStore's throttles (bluestore_throttle_bytes and
bluestore_throttle_deferred_bytes) on every OSD for the whole run, so that writes wait in the
scheduler's queues rather than inside BlueStore (doc/dev/qbox-in-osd.md, "Costs"). The cluster
is stopped at the end; its logs stay in --dir.
"""
import argparse
import json
import multiprocessing
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import rados

import osd_share_eval as ev
from mclock_settings import mclock_settings

REPO = Path(__file__).resolve().parents[2]
VSTART = REPO / "vstart-configs"
POOL = "qbox-bench"
TARGETS = {"client.a": 0.3, "client.b": 0.6}
BACKGROUND = {"recovery": 0.05, "best_effort": 0.05}
OBJECT_SIZE = 4096
OBJECTS_PER_CLIENT = 2000


class Cluster:
    def __init__(self, args):
        self.args = args
        self.dir = Path(args.dir)
        self.env = dict(os.environ, CEPH_CONF=str(self.dir / "ceph.conf"))

    def start(self, scheduler, fresh=False):
        cmd = [str(VSTART / "start.sh"), "--dir", str(self.dir), "--osds", str(self.args.osds),
               "--port-base", str(self.args.port_base), "--plugin-dir", self.args.plugin_dir,
               "--block-size", "2G", "--scheduler", scheduler, "--timeout", "240"]
        if fresh:
            cmd.append("--fresh")
            if self.args.emulate_time_scale:
                cmd += ["--emulate-ssd", "--emulate-time-scale", self.args.emulate_time_scale]
        subprocess.run(cmd, check=True, stdout=sys.stderr, timeout=400)

    def restart_osds(self, scheduler):
        for osd in range(self.args.osds):
            pid_file = self.dir / "run" / f"osd.{osd}.pid"
            pid = int(pid_file.read_text())
            os.kill(pid, signal.SIGTERM)
            while Path(f"/proc/{pid}").exists():
                time.sleep(0.2)
        self.start(scheduler)

    def stop(self):
        subprocess.run([str(VSTART / "stop.sh"), "--dir", str(self.dir)], stdout=sys.stderr,
                       timeout=120)

    def ceph(self, *args, timeout=60):
        return subprocess.run(["ceph", *args], env=self.env, check=True, capture_output=True,
                              text=True, timeout=timeout).stdout

    def bench(self, *args):
        """rados bench: (average IOPS, ops completed)."""
        out = subprocess.run(["rados", "bench", "-p", POOL, *args], env=self.env, check=True,
                             capture_output=True, text=True, timeout=300).stdout
        return (float(re.search(r"^Average IOPS:\s+([0-9.]+)", out, re.M).group(1)),
                int(re.search(r"^Total (?:writes|reads) made:\s+([0-9]+)", out, re.M).group(1)))

    def osd_cpu_seconds(self):
        """User + system CPU seconds the OSD processes have used (/proc/<pid>/stat)."""
        total = 0
        for osd in range(self.args.osds):
            pid = int((self.dir / "run" / f"osd.{osd}.pid").read_text())
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15
        return total / os.sysconf("SC_CLK_TCK")

    def qbox_status(self, osd):
        return json.loads(self.ceph("tell", f"osd.{osd}", "qbox", "status"))


def overhead(cluster, args):
    """Alternates the schedulers as stock qbox | qbox stock | stock qbox ... (stock: --stock) so
    that a load that drifts during the run (other work on the machine) hits both alike; each
    round's ratio compares two neighbouring runs. Besides IOPS, the OSDs' CPU seconds per op: on a
    shared machine the throughput follows the load of others, what an OSD spends on an op much
    less so."""
    stock = args.stock
    iops = {stock: {"write": [], "rand": []}, "qbox": {"write": [], "rand": []}}
    cpu = {stock: {"write": [], "rand": []}, "qbox": {"write": [], "rand": []}}
    current = "wpq"
    for round_ in range(args.rounds):
        for scheduler in ((stock, "qbox") if round_ % 2 == 0 else ("qbox", stock)):
            if scheduler != current:
                cluster.restart_osds(scheduler)
                current = scheduler
                if scheduler == "mclock_scheduler":
                    print(mclock_settings(cluster.env, args.osds), flush=True)
            run = f"r{round_}{scheduler}"
            row = {}
            for mode, bench_args in (("write", ("write", "-b", "4096", "-t", "16", "--no-cleanup")),
                                     ("rand", ("rand", "-t", "16"))):
                before = cluster.osd_cpu_seconds()
                rate, ops = cluster.bench(str(args.seconds), *bench_args, "--run-name", run)
                per_op = (cluster.osd_cpu_seconds() - before) / ops if ops else float("nan")
                iops[scheduler][mode].append(rate)
                cpu[scheduler][mode].append(per_op)
                row[mode] = f"{rate:8.0f} IOPS {per_op * 1e6:6.0f} us CPU/op"
            print(f"round {round_ + 1} {scheduler:16s}  4 KiB write {row['write']}   "
                  f"4 KiB rand read {row['rand']}   load {os.getloadavg()[0]:.1f}", flush=True)
    for mode, name in (("write", "4 KiB write"), ("rand", "4 KiB rand read")):
        ratios, median = ev.overhead_ratios(list(zip(iops[stock][mode], iops["qbox"][mode])))
        print(f"{name:16s} IOPS qbox/{stock} per round " + " ".join(f"{r:.3f}" for r in ratios)
              + f"  median {median:.3f} (goal >= 0.95)", flush=True)
        # CPU per op the other way round (stock's over QBox's), so that >= 0.95 reads the same way.
        ratios, median = ev.overhead_ratios(list(zip(cpu["qbox"][mode], cpu[stock][mode])))
        print(f"{name:16s} CPU/op {stock}/qbox per round " + " ".join(f"{r:.3f}" for r in ratios)
              + f"  median {median:.3f}", flush=True)
    return current


def op_of(share_op, name):
    if share_op == "mixed":
        return "read" if name == "client.a" else "write"
    return share_op


def client(conf, name, op, depth, ids, go, seconds, results):
    handle = rados.Rados(conffile=conf)
    handle.connect(timeout=60)
    ioctx = handle.open_ioctx(POOL)
    payload = os.urandom(OBJECT_SIZE)
    if op == "read":
        pending = [ioctx.aio_write_full(f"{name}-{i}", payload) for i in range(OBJECTS_PER_CLIENT)]
        for completion in pending:
            completion.wait_for_complete()
    ids[name] = handle.get_instance_id()
    go.wait()
    rng = random.Random(name)
    done = 0
    in_flight = []
    end = time.time() + seconds
    i = 0
    while time.time() < end:
        while len(in_flight) < depth:
            obj = f"{name}-{rng.randrange(OBJECTS_PER_CLIENT)}"
            in_flight.append(ioctx.aio_read(obj, OBJECT_SIZE, 0, lambda *_: None) if op == "read"
                             else ioctx.aio_write_full(obj, payload))
            i += 1
        head = in_flight.pop(0)
        head.wait_for_complete()
        done += 1
    for completion in in_flight:
        completion.wait_for_complete()
    results[name] = done / seconds
    ioctx.close()
    handle.shutdown()


def run_clients(cluster, args, with_table):
    """Runs both clients; with_table: gives them TARGETS through `qbox set` and samples every
    OSD's `qbox status` once a window. Returns (IOPS by client, [(osd, {client: (achieved,
    backlogged)})])."""
    manager = multiprocessing.Manager()
    ids, results = manager.dict(), manager.dict()
    go = manager.Event()
    conf = str(cluster.dir / "ceph.conf")
    seconds = max(args.seconds * 3, 30)
    workers = [multiprocessing.Process(target=client, args=(conf, n, op_of(args.share_op, n),
                                                            args.depth, ids, go, seconds, results))
               for n in TARGETS]
    for w in workers:
        w.start()
    while len(ids) < len(TARGETS):
        time.sleep(0.1)
    rows = []
    if with_table:
        table = ev.osd_table(int(time.time()), TARGETS, ids, BACKGROUND)
        for osd in range(args.osds):
            cluster.ceph("tell", f"osd.{osd}", "qbox", "set", json.dumps(table))
        print(f"table pushed to {args.osds} OSDs: " + ", ".join(
            f"{n} (global id {ids[n]}) {u}" for n, u in TARGETS.items()), flush=True)
    go.set()
    if with_table:
        window = cluster.qbox_status(0)["window_seconds"]
        deadline = time.time() + seconds
        time.sleep(2 * window)  # let the first complete window be one with both clients running
        while time.time() < deadline - window:
            for osd in range(args.osds):
                status = cluster.qbox_status(osd)
                report = {c["name"]: c for c in status["clients"]}
                row = {n: (report[n]["achieved"], report[n]["backlogged"]) for n in TARGETS}
                row["busy"] = status.get("busy") or {}
                row["costs"] = status["costs"]
                rows.append((osd, row))
            time.sleep(window)
    for w in workers:
        w.join()
    return dict(results), rows


def number(value, scale=1):
    """A status figure that is null until the OSD has one (older libraries have no `busy`)."""
    return "  -  " if value is None else f"{value * scale:5.2f}"


def shares(cluster, args):
    results, rows = run_clients(cluster, args, with_table=True)
    print("osd  " + "  ".join(f"{n} achieved/backlogged" for n in TARGETS)
          + "  busy running/outstanding  cost ms read/write")
    for osd, row in rows:
        print(f"{osd:3d}  " + "  ".join(f"{row[n][0]:8.3f} / {row[n][1]:4.2f}          "
                                         for n in TARGETS)
              + f"  {number(row['busy'].get('running'))} / {number(row['busy'].get('outstanding'))}"
              + f"           {number(row['costs']['rand_read'], 1000)} / "
                f"{number(row['costs']['rand_write'], 1000)}")
    both = [row for _, row in rows if all(row[n][1] is not None and row[n][1] > 0.5
                                          for n in TARGETS)]
    for n, target in TARGETS.items():
        mean = statistics.mean(r[n][0] for r in both) if both else float("nan")
        print(f"{n}: target {target}, mean achieved {mean:.3f} over {len(both)} backlogged "
              f"OSD-windows; IOPS {results[n]:.0f}")
    if both:
        a, b = (sum(r[n][0] for r in both) for n in TARGETS)
        print(f"achieved ratio client.b/client.a {b / a:.2f} (targets 2.00)")
    a, b = (results[n] for n in TARGETS)
    print(f"qbox              IOPS client.a {a:6.0f}  client.b {b:6.0f}  ratio b/a {b / a:.2f}",
          flush=True)


def stock_shares(cluster, args):
    """The same two clients under Ceph's own schedulers, which know no per-client targets."""
    for scheduler in ("wpq", "mclock_scheduler"):
        cluster.restart_osds(scheduler)
        results, _ = run_clients(cluster, args, with_table=False)
        a, b = (results[n] for n in TARGETS)
        print(f"{scheduler:17s} IOPS client.a {a:6.0f}  client.b {b:6.0f}  ratio b/a {b / a:.2f}",
              flush=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plugin-dir", required=True, help="<build>/erasure-code")
    parser.add_argument("--dir", default="/tmp/erails-qbox-in-osd")
    parser.add_argument("--port-base", type=int, default=20150)
    parser.add_argument("--osds", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--stock", choices=("wpq", "mclock_scheduler"), default="wpq",
                        help="the stock scheduler the overhead rounds compare QBox with")
    parser.add_argument("--no-shares", action="store_true")
    parser.add_argument("--no-overhead", action="store_true")
    parser.add_argument("--no-stock-shares", action="store_true")
    parser.add_argument("--share-op", choices=("read", "write", "mixed"), default="read")
    parser.add_argument("--emulate-time-scale", metavar="X",
                        help="run the OSDs on start.sh's emulated SSD (drive B) slowed X times")
    parser.add_argument("--depth", type=int, default=32, help="ops each client keeps in flight")
    parser.add_argument("--bluestore-throttle", type=int, metavar="BYTES",
                        help="bluestore_throttle_bytes and _deferred_bytes of every OSD")
    args = parser.parse_args(argv)
    if args.bluestore_throttle is not None and args.bluestore_throttle < 1:
        parser.error(f"--bluestore-throttle: got {args.bluestore_throttle}; expected bytes >= 1")
    if not (Path(args.plugin_dir) / "libec_qbox.so").exists():
        parser.error(f"--plugin-dir: no libec_qbox.so in '{args.plugin_dir}'")
    cluster = Cluster(args)
    device = (f"the emulated SSD x{args.emulate_time_scale}" if args.emulate_time_scale
              else "sparse files")
    throttle = (f", bluestore throttles {args.bluestore_throttle} bytes"
                if args.bluestore_throttle else "")
    ceph_version = subprocess.run(["ceph", "--version"], capture_output=True, text=True).stdout.split()[2]
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: Ceph {ceph_version}, {args.osds} OSDs, BlueStore on "
          f"{device}{throttle}, share op {args.share_op}, load {os.getloadavg()[0]:.1f}", flush=True)
    cluster.start("wpq", fresh=True)
    try:
        if args.bluestore_throttle:
            for option in ("bluestore_throttle_bytes", "bluestore_throttle_deferred_bytes"):
                cluster.ceph("config", "set", "osd", option, str(args.bluestore_throttle))
            cluster.restart_osds("wpq")
        cluster.ceph("osd", "pool", "create", POOL, "32", "32")
        cluster.ceph("osd", "pool", "set", POOL, "size", str(min(2, args.osds)))
        cluster.ceph("osd", "pool", "application", "enable", POOL, "rados")
        current = "wpq" if args.no_overhead else overhead(cluster, args)
        if not args.no_shares:
            if current != "qbox":
                cluster.restart_osds("qbox")
            shares(cluster, args)
            if not args.no_stock_shares:
                stock_shares(cluster, args)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
