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
    parser.add_argument("--bench-pool", help="run `rados bench SECONDS write -b 4096 -t 8` on this pool meanwhile")
    args = parser.parse_args(argv)
    if not 1 <= args.seconds <= 600:
        parser.error(f"--seconds is {args.seconds}; accepted: 1..600")
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
        writes = "-" if osd["held_writes"] is None else osd["held_writes"]
        applied = "-" if osd["last_release_applied_ops"] is None else osd["last_release_applied_ops"]
        held_mib = "-" if osd["held_bytes"] is None else f"{osd['held_bytes'] / 2**20:.1f}"
        slowed = " slowed" if osd["slowed"] else ""
        parts.append(f"osd.{osd['osd']} {held:<4} held_writes={writes:<6} held_MiB={held_mib:<5} "
                     f"last_release_applied={applied:<6} kicks={osd['last_release_kicks'] or '-'}{slowed}")
    return " | ".join(parts)


def main(argv):
    args = parse_args(argv)
    bench = None
    if args.bench_pool:
        bench = subprocess.Popen(["rados", "-p", args.bench_pool, "bench", str(args.seconds), "write",
                                  "-b", "4096", "-t", "8", "--no-cleanup"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    began = time.time()
    while time.time() - began < args.seconds:
        status = sample()
        print(f"t={status['now'] - began:6.1f}s  {describe(status)}", flush=True)
        time.sleep(1.0)
    if bench is not None:
        out, _ = bench.communicate(timeout=args.seconds + 60)
        for line in out.splitlines():
            if line.startswith(("Total writes made", "Average Latency", "Max latency", "Bandwidth")):
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
