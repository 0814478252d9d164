"""Achieved utilization on a device that does not report per-request time (a real disk, a RADOS
pool), measured from the outside.

A client's share of the device in a window is its IOPS under the scheduler divided by its IOPS when
it ran alone on the same device with the same request pattern (its standalone run). That holds
when the device is time-shared linearly: a client given a fraction u of the time completes u of
what it completes alone. The shares of one window then add up to about 1; a total far from 1 means
the device is not shared that way (clients speed each other up or slow each other down beyond
their time) and the shares are no measure of time. The total is reported next to every share.

Rows are qbox-bench CSV rows (dicts with time_s, client, target_util, iops).
"""
from collections import defaultdict
from dataclasses import dataclass


@dataclass
class ClientShare:
    windows: int
    mean_share: float
    mean_error: float  # mean |share - target| over the windows
    max_error: float


def after(rows, skip):
    """The rows of windows ending after `skip` seconds (the warm-up left out)."""
    return [r for r in rows if float(r["time_s"]) > skip]


def alone_iops(rows, skip):
    """(client, mean IOPS) of a standalone run: exactly one client, which must have completed I/O."""
    kept = after(rows, skip)
    clients = {r["client"] for r in kept}
    if len(clients) != 1:
        raise ValueError(f"a standalone run has one client after the first {skip} s, found {sorted(clients)}")
    iops = sum(float(r["iops"]) for r in kept) / len(kept)
    if iops <= 0:
        raise ValueError(f"standalone run of {clients.pop()} completed no I/O")
    return clients.pop(), iops


def window_shares(rows, alone, skip):
    """{window end: {client: (target, share)}} for every window after `skip`; `alone` maps each
    client of the run to its standalone IOPS."""
    windows = defaultdict(dict)
    for r in after(rows, skip):
        client = r["client"]
        if client not in alone:
            raise ValueError(f"no standalone run for client {client}")
        windows[float(r["time_s"])][client] = (float(r["target_util"]), float(r["iops"]) / alone[client])
    return dict(windows)


def per_client(windows):
    """{client: ClientShare} over the windows of window_shares."""
    by_client = defaultdict(list)
    for clients in windows.values():
        for client, (target, share) in clients.items():
            by_client[client].append((target, share))
    return {client: share_stats(pairs) for client, pairs in by_client.items()}


def share_stats(pairs):
    """ClientShare of (target, share) pairs, one per window; any measure of share."""
    errors = [abs(share - target) for target, share in pairs]
    return ClientShare(len(pairs), sum(s for _, s in pairs) / len(pairs), sum(errors) / len(errors), max(errors))


def mean_total(windows):
    """The mean over windows of the clients' summed shares: about 1 where the measure holds."""
    totals = [sum(share for _, share in clients.values()) for clients in windows.values()]
    return sum(totals) / len(totals)
