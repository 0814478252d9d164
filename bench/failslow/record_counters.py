#!/usr/bin/python3
"""Records every OSD's BlueStore latency counters (rails.slow_osds.SIGNALS), one reading of all
OSDs every --interval seconds for --seconds, as JSON lines {"t": <s since start>, "osds": {osd:
{signal: [ops, seconds]}}}: the series the detection's tests replay (src/mgr/tests/data)."""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "mgr"))
from rails.slow_osds import totals_from_perf_dump  # noqa: E402


def reading(osds):
    found = {}
    for osd in osds:
        done = subprocess.run(["ceph", "tell", f"osd.{osd}", "perf", "dump", "bluestore", "-f", "json"],
                              capture_output=True, text=True, timeout=30)
        totals = totals_from_perf_dump(json.loads(done.stdout)) if done.returncode == 0 else None
        if totals is not None:
            found[str(osd)] = {signal: list(value) for signal, value in totals.items()}
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--osds", type=int, required=True, help="OSDs 0..N-1 are read")
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--interval", type=float, default=5.0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.osds < 1 or not 0 < args.interval <= args.seconds:
        parser.error("--osds must be at least 1 and 0 < --interval <= --seconds")
    start = time.time()
    with open(args.out, "w") as out:
        while time.time() - start <= args.seconds:
            began = time.time()
            out.write(json.dumps({"t": round(began - start, 3), "osds": reading(range(args.osds))}) + "\n")
            out.flush()
            time.sleep(max(0.0, args.interval - (time.time() - began)))


if __name__ == "__main__":
    main()
