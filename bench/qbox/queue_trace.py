"""What an OSD's EDF queues did during a run: reads a <run>_queue.csv of osd_shares.py --queue-trace
and prints, per OSD and shard, how fast the frontier (the latest deadline dispatched) advanced, and
per account its share, how often its FIFO was empty when polled, and where its deadlines stood
against the frontier; with a trace that has them, the shard's writes' lead (shard_queue.h, "The
writes' backlog"): its device time, the rate it drained at, and how often a write was held for it.

  python3 bench/qbox/queue_trace.py <run>_queue.csv [--from SECONDS]

When every account gets its share of a saturated device, deadlines advance about one second per
second (an account charged u of each second advances by u / u); an account served k times its
share pulls the frontier k times as fast, and accounts that lag it are brought up to it whenever
their FIFO empties (qbox_queue.h), so their own lead is lost.
"""
import argparse
import statistics
import sys
from collections import defaultdict

from run_csv import read_rows


def summarize(rows, start):
    by_queue = defaultdict(list)
    for r in rows:
        if float(r["time_s"]) >= start:
            by_queue[(r["osd"], r["shard"])].append(r)
    lines = []
    for (osd, shard), queue_rows in sorted(by_queue.items()):
        polls = sorted({(float(r["time_s"]), float(r["frontier"])) for r in queue_rows})
        if len(polls) < 2:
            continue
        span = polls[-1][0] - polls[0][0]
        advance = polls[-1][1] - polls[0][1]
        steps = [b[1] - a[1] for a, b in zip(polls, polls[1:])]
        still = sum(1 for s in steps if s == 0)
        lines.append(f"osd.{osd} {shard}: {len(polls)} polls over {span:.1f} s; frontier advanced "
                     f"{advance / span:.2f} s per s; largest advance between polls {max(steps):.2f} s; "
                     f"unchanged between {still} of {len(steps)} pairs of polls (nothing dispatched)")
        leads = {r["time_s"]: r for r in queue_rows if r.get("write_lead_s")}  # one per poll
        if leads:
            seconds = [float(r["write_lead_s"]) for r in leads.values()]
            rates = [float(r["write_lead_drain_rate"]) for r in leads.values()]
            held = sum(1 for r in leads.values() if r["write_lead_held"] == "1") / len(leads)
            lines.append(f"  writes' lead: median {statistics.median(seconds):.3f} s, largest {max(seconds):.3f} s; "
                         f"drain rate median {statistics.median(rates):.2f}; a write held for it in {held:.0%} "
                         "of polls")
        accounts = defaultdict(list)
        for r in queue_rows:
            accounts[r["account"]].append(r)
        for account, a_rows in sorted(accounts.items(), key=lambda kv: int(kv[0])):
            utilization = float(a_rows[-1]["utilization"])
            empty = sum(1 for r in a_rows if int(r["queued"]) == 0) / len(a_rows)
            lead = statistics.median(float(r["accumulated_minus_frontier"]) for r in a_rows)
            heads = [float(r["head_minus_frontier"]) for r in a_rows if r["head_minus_frontier"]]
            head = f"{statistics.median(heads):.3f}" if heads else "-"
            lines.append(f"  account {account:>2} share {utilization:.2f}: FIFO empty in {empty:.0%} of polls; "
                         f"latest deadline - frontier, median {lead:.3f} s; head - frontier, median {head} s")
    return lines


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", help="a <run>_queue.csv of osd_shares.py --queue-trace")
    parser.add_argument("--from", dest="start", type=float, default=4.0,
                        help="leave out polls before this many seconds into the run (default 4, the warm-up)")
    args = parser.parse_args(argv)
    rows = read_rows(parser, "trace", args.trace,
                     {"time_s", "osd", "shard", "frontier", "account", "utilization", "accumulated_minus_frontier",
                      "head_minus_frontier", "queued"}, "is not a queue trace")
    lines = summarize(rows, args.start)
    if not lines:
        parser.error(f"trace: '{args.trace}' has fewer than two polls of any queue after {args.start:g} s")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
