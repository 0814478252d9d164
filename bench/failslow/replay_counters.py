#!/usr/bin/python3
"""Replays a recording of record_counters.py through the rails module's detection
(rails.slow_osds, default settings) and prints, per reading, each OSD's verdict with every figure
(signal, ops, ratio to its peers), the OSDs marked, and each change of a mark: what the docs
quote of the recording in src/mgr/tests/data.

    replay_counters.py RECORDING.jsonl
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "mgr"))
from rails.settings import Settings  # noqa: E402
from rails.slow_osds import SlowOsds  # noqa: E402


def readings(path):
    with open(path) as lines:
        for number, line in enumerate(lines, 1):
            try:
                row = json.loads(line)
                yield row["t"], {int(osd): {signal: tuple(value) for signal, value in totals.items()}
                                 for osd, totals in row["osds"].items()}
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                raise SystemExit(f"{path}:{number}: not a reading of record_counters.py ({error})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recording")
    args = parser.parse_args()
    if not os.path.isfile(args.recording):
        parser.error(f"{args.recording}: no such file")
    detector, settings = SlowOsds(), Settings()
    for t, totals in readings(args.recording):
        events = detector.observe(totals, t, settings)
        verdicts = "  ".join(
            f"osd.{osd} {verdict.outcome}"
            + "".join(f" {f.signal} {f.ops} {f.ratio:.1f}x" for f in verdict.figures)
            for osd, verdict in sorted(detector.verdicts.items()))
        print(f"{t:7.1f} s  marked {sorted(detector.marks)}  {verdicts}")
        for event in events:
            print(f"{t:7.1f} s  {event}")


if __name__ == "__main__":
    main()
