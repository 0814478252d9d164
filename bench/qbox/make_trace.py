#!/usr/bin/env python3
"""Writes a synthetic semi-sequential block trace in MSR Cambridge CSV format.

The thesis' fig. 3.17 replays two days of the Deasna2 NFS trace, which is not available on this
machine; this stands in for it and is labelled synthetic wherever it is used. Requests come in
sequential runs (32-64 KiB, as the Deasna2 subset) broken by random jumps, with a bursty mix so the
random share changes over time as the thesis observes in its traces.

usage: make_trace.py OUT.csv SEED [RECORDS]
"""
import random
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    out, seed = sys.argv[1], int(sys.argv[2])
    records = int(sys.argv[3]) if len(sys.argv) == 4 else 20000
    rng = random.Random(seed)
    tick = 128166372000000000  # a FILETIME in 2007, when the MSR traces were taken
    offset = rng.randrange(0, 1 << 36, 4096)
    jump_probability = 0.02
    with open(out, "w") as f:
        for n in range(records):
            if n % 2000 == 0:
                jump_probability = rng.choice([0.005, 0.02, 0.08])
            size = rng.choice([32768, 65536])
            if rng.random() < jump_probability:
                offset = rng.randrange(0, 1 << 36, 4096)
            tick += rng.randint(500, 5000)
            f.write(f"{tick},synthetic,0,Read,{offset},{size},1000\n")
            offset += size


if __name__ == "__main__":
    main()
