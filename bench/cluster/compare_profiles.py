"""Runs `rados bench` write, seq and rand on two erasure-code profiles of one cluster and prints
the ratios A/B. Every figure printed is parsed from rados bench's own summary.

Usage (Debian's Python; the cluster is the one CEPH_CONF names, e.g. after `source cluster/env`):
  /usr/bin/python3 bench/cluster/compare_profiles.py \
      --a "plugin=erails k=4 m=2" --b "plugin=jerasure technique=reed_sol_van k=4 m=2" \
      --seconds 10 --csv bench/cluster/results/rados_bench.csv

Rounds alternate the order (A B, then B A, ...) so that neither profile always runs on the
emptier cluster; each rate is the mean over rounds.
"""
import argparse
import csv
import datetime
import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PHASES = ("write", "seq", "rand")
SUMMARY = {
    "mb_per_s": re.compile(r"^Bandwidth \(MB/sec\):\s+([\d.]+)", re.M),
    "iops": re.compile(r"^Average IOPS:\s+([\d.]+)", re.M),
    "latency_s": re.compile(r"^Average Latency\(s\):\s+([\d.]+)", re.M),
}


def parse_profile(text):
    """'k=4 m=2 plugin=x' -> dict; raises ValueError naming the malformed item."""
    profile = {}
    for item in text.split():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise ValueError(f"profile item '{item}' is not key=value (e.g. plugin=erails k=4 m=2)")
        profile[key] = value
    for key in ("plugin", "k", "m"):
        if key not in profile:
            raise ValueError(f"profile '{text}' lacks '{key}=' (plugin, k and m are required)")
    return profile


def run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kwargs)


def parse_summary(output, phase):
    result = {}
    for field, pattern in SUMMARY.items():
        match = pattern.search(output)
        if not match:
            raise RuntimeError(f"rados bench {phase} printed no '{field}' summary:\n{output}")
        result[field] = float(match.group(1))
    return result


def bench_pool(pool, seconds, threads, block_size):
    """write, seq, rand on `pool`; returns {phase: summary}. Objects are removed afterwards."""
    results = {}
    try:
        for phase in PHASES:
            cmd = ["rados", "bench", "-p", pool, str(seconds), phase, "-t", str(threads)]
            if phase == "write":
                cmd += ["-b", str(block_size), "--no-cleanup"]
            results[phase] = parse_summary(run(cmd, timeout=seconds * 4 + 120).stdout, phase)
    finally:
        run(["rados", "-p", pool, "cleanup"], timeout=600)
    return results


def make_pool(name, profile, pg_num):
    run(["ceph", "osd", "erasure-code-profile", "set", name, "--force"]
        + [f"{k}={v}" for k, v in profile.items()])
    run(["ceph", "osd", "pool", "create", name, str(pg_num), str(pg_num), "erasure", name])
    run(["ceph", "osd", "pool", "application", "enable", name, "rados"])
    # rados bench on a pool whose PGs are still peering would measure peering.
    run([sys.executable, str(REPO / "vstart-configs" / "ceph_admin.py"),
         "--conf", os.environ.get("CEPH_CONF", "/etc/ceph/ceph.conf"),
         "wait-healthy", "--timeout", "300"], timeout=330)


def drop_pool(name):
    run(["ceph", "osd", "pool", "delete", name, name, "--yes-i-really-really-mean-it"])
    run(["ceph", "osd", "erasure-code-profile", "rm", name])


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help="profile A, e.g. 'plugin=erails k=4 m=2'")
    parser.add_argument("--b", required=True, help="profile B (the reference)")
    parser.add_argument("--seconds", type=int, default=10, help="per phase (1..300)")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--block-size", type=int, default=4 << 20)
    parser.add_argument("--rounds", type=int, default=1, help="A/B rounds, order alternating")
    parser.add_argument("--pg-num", type=int, default=32)
    parser.add_argument("--csv", help="append one row per profile and phase, and the ratios")
    parser.add_argument("--recorded-command",
                        help="the command to record in the CSV when a wrapper script ran this one")
    parser.add_argument("--where", default=f"this machine ({socket.gethostname()})",
                        help="where the run happened, recorded in the CSV")
    args = parser.parse_args(argv)
    if not 1 <= args.seconds <= 300:
        parser.error(f"--seconds must be 1..300, got {args.seconds}")
    if not 1 <= args.rounds <= 10:
        parser.error(f"--rounds must be 1..10, got {args.rounds}")
    try:
        profiles = {"A": parse_profile(args.a), "B": parse_profile(args.b)}
    except ValueError as error:
        parser.error(str(error))

    sums = {label: {phase: {f: 0.0 for f in SUMMARY} for phase in PHASES} for label in profiles}
    for round_index in range(args.rounds):
        order = ("A", "B") if round_index % 2 == 0 else ("B", "A")
        for label in order:
            pool = f"bench-{label.lower()}"
            make_pool(pool, profiles[label], args.pg_num)
            try:
                results = bench_pool(pool, args.seconds, args.threads, args.block_size)
            finally:
                drop_pool(pool)
            for phase in PHASES:
                for field in SUMMARY:
                    sums[label][phase][field] += results[phase][field]
                print(f"round {round_index + 1} {label} {phase:5}: "
                      f"{results[phase]['mb_per_s']:8.1f} MB/s {results[phase]['iops']:8.1f} IOPS",
                      flush=True)

    means = {label: {phase: {f: v / args.rounds for f, v in fields.items()}
                     for phase, fields in phases.items()} for label, phases in sums.items()}
    ratios = {phase: means["A"][phase]["mb_per_s"] / means["B"][phase]["mb_per_s"]
              for phase in PHASES}
    print(f"A = {args.a}\nB = {args.b}")
    for phase in PHASES:
        print(f"{phase:5}  A {means['A'][phase]['mb_per_s']:8.1f} MB/s   "
              f"B {means['B'][phase]['mb_per_s']:8.1f} MB/s   A/B {ratios[phase]:.3f}")

    if args.csv:
        write_csv(args, means, ratios)
    return 0


def write_csv(args, means, ratios):
    command = args.recorded_command or (
        "/usr/bin/python3 bench/cluster/compare_profiles.py " + shlex.join(sys.argv[1:]))
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    new_file = not os.path.exists(args.csv)
    with open(args.csv, "a", newline="") as out:
        writer = csv.writer(out)
        if new_file:
            writer.writerow(["when", "where", "command", "label", "profile", "phase", "seconds",
                             "threads", "block_size", "rounds", "mb_per_s", "iops", "latency_s",
                             "ratio_a_over_b"])
        for label, text in (("A", args.a), ("B", args.b)):
            for phase in PHASES:
                m = means[label][phase]
                writer.writerow([when, args.where, command, label, text, phase, args.seconds,
                                 args.threads, args.block_size, args.rounds,
                                 f"{m['mb_per_s']:.2f}", f"{m['iops']:.2f}",
                                 f"{m['latency_s']:.4f}",
                                 f"{ratios[phase]:.4f}" if label == "A" else ""])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
