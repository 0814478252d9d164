"""What each OSD's own QBox accounting said during a run: reads a <run>_prices.csv of osd_shares.py
and prints, per OSD, in how many windows it had ops outstanding all the time, and per client the
median of its achieved share and of the fraction of each window it had ops queued there; and, where
the file has them, the OSD's writes held for readers (doc/dev/qbox-in-osd.md, "Held writes"): how
many in its first sample and how many a second after it, the held and idle seconds, and the seconds
it paced the writes with nothing running ("The writes' backlog"); and, where
the run's <run>_write_fit.csv is beside it, how often the OSD's write price was fitted, in how many
of those fits the per-op term was kept and the range of both terms.

  python3 bench/qbox/osd_accounting.py <run>_prices.csv [--from SECONDS]
"""
import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from run_csv import read_rows

SATURATED = 0.99  # busy_outstanding at or above this: ops outstanding the whole window


def holds_line(osd_rows):
    """The OSD's write_holds counters, which are cumulative, from its first to its last sample."""
    samples = sorted({float(r["time_s"]): r for r in osd_rows if r.get("holds")}.items())
    if len(samples) < 2:
        return None
    (t0, first), (t1, last) = samples[0], samples[-1]
    rate = (int(last["holds"]) - int(first["holds"])) / (t1 - t0)
    paced = f"; {float(last['paced_idle_s']):.2f} s paced, nothing running" if last.get("paced_idle_s") else ""
    return (f"  writes held: {int(first['holds'])} by {t0:g} s, then {rate:.1f} a second to {t1:g} s; "
            f"{float(last['held_s']):.2f} s held, {float(last['held_idle_s']):.2f} s of it idle{paced}")


def fit_line(osd_fits):
    """The write price's fits on one OSD: how many, how many kept a per-op term, each term's range."""
    if not osd_fits:
        return None
    per_mib = [float(r["write_ms_per_mib"]) for r in osd_fits]
    kept = [float(r["write_ms_per_op"]) for r in osd_fits if float(r["write_ms_per_op"]) > 0]
    per_op = f" ({min(kept):.1f}-{max(kept):.1f} ms per write)" if kept else ""
    return (f"  write price: {len(osd_fits)} fits, the per-op term in {len(kept)}{per_op}; "
            f"{min(per_mib):.0f}-{max(per_mib):.0f} ms per MiB")


def summarize(rows, start, fits=()):
    by_osd = defaultdict(list)
    for r in rows:
        if float(r["time_s"]) >= start:
            by_osd[r["osd"]].append(r)
    fits_by_osd = defaultdict(list)
    for r in fits:
        if float(r["time_s"]) >= start:
            fits_by_osd[r["osd"]].append(r)
    lines = []
    for osd, osd_rows in sorted(by_osd.items()):
        windows = {r["time_s"]: float(r["busy_outstanding"]) for r in osd_rows if r["busy_outstanding"]}
        saturated = sum(1 for b in windows.values() if b >= SATURATED)
        busy = statistics.median(windows.values()) if windows else float("nan")
        lines.append(f"osd.{osd}: ops outstanding all of {saturated} of {len(windows)} windows; busy median {busy:.2f}")
        holds = holds_line(osd_rows)
        if holds:
            lines.append(holds)
        fitted = fit_line(fits_by_osd[osd])
        if fitted:
            lines.append(fitted)
        clients = defaultdict(list)
        for r in osd_rows:
            if r["achieved"] and r["backlogged"]:
                clients[r["client"]].append((float(r["achieved"]), float(r["backlogged"])))
        for client, values in sorted(clients.items()):
            achieved = statistics.median(a for a, _ in values)
            backlogged = statistics.median(b for _, b in values)
            lines.append(f"  {client}: achieved median {achieved:.2f}; ops queued a median {backlogged:.2f} of each window")
    return lines


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prices", help="a <run>_prices.csv of osd_shares.py")
    parser.add_argument("--from", dest="start", type=float, default=4.0,
                        help="leave out windows before this many seconds into the run (default 4, the warm-up)")
    args = parser.parse_args(argv)
    rows = read_rows(parser, "prices", args.prices,
                     {"time_s", "osd", "busy_outstanding", "client", "achieved", "backlogged"},
                     "has no per-OSD accounting")
    fit_path = Path(args.prices.removesuffix("_prices.csv") + "_write_fit.csv")
    fits = []
    if args.prices.endswith("_prices.csv") and fit_path.exists():
        fits = read_rows(parser, "prices", fit_path, {"time_s", "osd", "write_ms_per_op", "write_ms_per_mib"},
                         "is not a write price fits file", may_be_empty=True)
    lines = summarize(rows, args.start, fits)
    if not lines:
        parser.error(f"prices: '{args.prices}' has no window after {args.start:g} s")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
