#!/usr/bin/python3
"""Samples `ceph rails status -f json` once a second for a bounded time and prints, per sample,
each OSD's held state, the writes and bytes it holds, whether its writers are slowed, what its
last release applied and how many kicks that took; optionally runs a
`rados bench` write of the same length on a pool meanwhile, and prints that bench's summary.

    CEPH_CONF=... rails_timeline.py --seconds 20 [--bench-pool POOL]

Stops by itself after --seconds (1..600). Output is plain text, one line per sample.
"""
import argparse
import json
import subprocess
import sys
import time


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=20, help="how long to sample (1..600)")
    parser.add_argument("--bench-pool", help="run `rados bench SECONDS MODE -b 4096 -t THREADS` on this pool meanwhile")
    parser.add_argument("--bench-mode", choices=("write", "rand"), default="write",
                        help="rand reads the objects an earlier write run left (write runs keep them)")
    parser.add_argument("--threads", type=int, default=8, help="rados bench -t (1..64)")
    args = parser.parse_args(argv)
    if not 1 <= args.seconds <= 600:
        parser.error(f"--seconds is {args.seconds}; accepted: 1..600")
    if not 1 <= args.threads <= 64:
        parser.error(f"--threads is {args.threads}; accepted: 1..64")
    return args


def sample():
    done = subprocess.run(["ceph", "rails", "status", "-f", "json"], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise SystemExit(f"ceph rails status failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def describe(status):
    parts = []
    for osd in status["osds"]:
        held = {None: "?", True: "held", False: "free"}[osd["held"]]
        writes = "-" if osd["held_writes"] is None else f"{osd['held_writes']}/{osd['held_txcs']}"
        applied = "-" if osd["last_release_applied_ops"] is None else osd["last_release_applied_ops"]
        held_mib = "-" if osd["held_bytes"] is None else f"{osd['held_bytes'] / 2**20:.1f}"
        slowed = " slowed" if osd["slowed"] else ""
        parts.append(f"osd.{osd['osd']} {held:<4} held_writes/txcs={writes:<11} held_MiB={held_mib:<5} "
                     f"last_release_applied={applied:<6} kicks={osd['last_release_kicks'] or '-'}{slowed}")
    for pool in status["pools"]:
        if pool["pgs_mixing"] or pool["reads_mixed"]:
            parts.append(f"pool {pool['pool']}: {len(pool['pgs_mixing'])} PGs mixing, "
                         f"{pool['reads_mixed']} reads mixed")
    return " | ".join(parts)


def release_offsets(status, seen):
    """(osd, seconds after the switch) for each release this sample shows for the first time,
    from the time the module confirmed it (`since`)."""
    found = []
    frames = [(pool["epoch"], pool["frame_seconds"]) for pool in status["pools"]]
    for osd in status["osds"]:
        if osd["held"] is False and osd["since"] is not None and (osd["osd"], osd["since"]) not in seen:
            seen.add((osd["osd"], osd["since"]))
            if frames:
                epoch, frame = frames[0]
                found.append((osd["osd"], (osd["since"] - epoch) % frame))
    return found


def main(argv):
    args = parse_args(argv)
    bench = None
    if args.bench_pool:
        # rados bench takes a block size for writes only; rand reads what the writes left.
        size = ["-b", "4096"] if args.bench_mode == "write" else []
        bench = subprocess.Popen(["rados", "-p", args.bench_pool, "bench", str(args.seconds), args.bench_mode,
                                  *size, "-t", str(args.threads), "--no-cleanup"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    began = time.time()
    seen = set()
    offsets = []
    first = True
    while time.time() - began < args.seconds:
        status = sample()
        print(f"t={status['now'] - began:6.1f}s  {describe(status)}", flush=True)
        found = release_offsets(status, seen)
        if not first:  # the first sample shows releases from before the run
            offsets.extend(found)
        first = False
        time.sleep(1.0)
    if offsets:
        print("releases confirmed, seconds after their switch: " +
              " ".join(f"osd.{osd}:{offset:.2f}" for osd, offset in offsets))
    if bench is not None:
        out, _ = bench.communicate(timeout=args.seconds + 60)
        for line in out.splitlines():
            if line.startswith(("Total writes made", "Total reads made", "Average Latency", "Max latency",
                                "Bandwidth")):
                print("bench: " + line)
        if bench.returncode != 0:
            raise SystemExit(f"rados bench failed ({bench.returncode})")
    health = subprocess.run(["ceph", "health", "detail", "-f", "json"], capture_output=True, text=True, timeout=30)
    checks = {name: check for name, check in json.loads(health.stdout).get("checks", {}).items()
              if name.startswith("RAILS_")}
    print("rails health checks: " + ("none" if not checks else ""))
    for name, check in sorted(checks.items()):
        print(f"  {name}: {check['summary']['message']}")
        for detail in check.get("detail", []):
            print(f"    {detail['message']}")


if __name__ == "__main__":
    main(sys.argv[1:])
