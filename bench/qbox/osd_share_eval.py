"""The pure parts of osd_shares.py: completions into windows, the shares a run achieved by both
measures, their error against the targets, and the goal check. No cluster, no clock.

Targets are *normalized*: QBox is work-conserving, so a table entry with nothing queued (the
background classes and `unreserved` while only the measured clients run) leaves its time to the
others in proportion to their utilizations. A client given u of the device while clients summing
to U are backlogged is owed u / U of the device's time.
"""
from dataclasses import dataclass

import black_box

# A client meets its target when its mean |share - target| over the windows kept is at most this.
TOLERANCE = 0.05


def normalized(table):
    """{client: u / sum of u} of a {client: utilization} table."""
    total = sum(table.values())
    if not table or total <= 0:
        raise ValueError(f"a table of positive utilizations is needed, got {table}")
    return {client: u / total for client, u in table.items()}


def ramp(start, end, steps):
    """`steps` utilizations going linearly from `start` to `end` (figs. 3.15/3.16 in steps)."""
    if steps < 2:
        raise ValueError(f"a ramp needs at least 2 steps, got {steps}")
    return [start + (end - start) * i / (steps - 1) for i in range(steps)]


def window_rows(completions, window, duration, targets_at):
    """Rows in black_box's format, one per client and window of `window` seconds over
    [0, duration): `completions` maps a client to the times (seconds from the run's start) at
    which its ops completed; `targets_at(t)` gives {client: target} in force at time t, taken at
    the window's middle. Completions outside [0, duration) are left out."""
    count = int(duration // window)
    rows = []
    for client, times in completions.items():
        bins = [0] * count
        for t in times:
            k = int(t // window)
            if 0 <= t and k < count:
                bins[k] += 1
        for k, n in enumerate(bins):
            rows.append({"time_s": f"{(k + 1) * window:.3f}", "client": client,
                         "target_util": str(targets_at((k + 0.5) * window)[client]),
                         "iops": str(n / window)})
    return rows


def estimator_pairs(samples, targets_at, skip):
    """{client: [(target, share), ...]} from `qbox status` samples, each (t, {entry: achieved})
    for one OSD: a client's share is its part of the estimated device time of the window over all
    entries (clients, background classes, unreserved). Samples before `skip` seconds, and those
    of a window in which QBox estimated no time at all, are left out."""
    pairs = {}
    for t, achieved in samples:
        if t <= skip:
            continue
        known = {name: a for name, a in achieved.items() if a is not None}
        total = sum(known.values())
        if total <= 0:
            continue
        for client, target in targets_at(t).items():
            if client in known:
                pairs.setdefault(client, []).append((target, known[client] / total))
    return pairs


@dataclass
class Verdict:
    client: str
    qbox: float          # QBox's mean |share - target| (black-box share)
    baselines: dict      # {scheduler: mean error} of the stock schedulers
    met: bool            # qbox <= TOLERANCE
    baselines_worse: bool  # every stock scheduler misses by more than QBox


def verdicts(errors, tolerance=TOLERANCE):
    """Verdict per client from {scheduler: {client: mean error}}; 'qbox' must be there."""
    if "qbox" not in errors:
        raise ValueError(f"the errors of scheduler 'qbox' are needed, got {sorted(errors)}")
    out = []
    for client, q in errors["qbox"].items():
        base = {s: e[client] for s, e in errors.items() if s != "qbox" and client in e}
        out.append(Verdict(client, q, base, q <= tolerance,
                           bool(base) and all(e > q for e in base.values())))
    return out


def goal_shown(found, tolerance=TOLERANCE):
    """The figure's goal: every client within `tolerance` under QBox while some stock scheduler
    misses it for some client."""
    return (all(v.met for v in found)
            and any(e > tolerance for v in found for e in v.baselines.values()))


def phase_means(rows, phases):
    """{phase: {client: mean IOPS}} of black_box rows over named (start, end) spans of windows
    (a window belongs to the span holding its end)."""
    out = {}
    for name, (start, end) in phases.items():
        by_client = {}
        for r in rows:
            if start < float(r["time_s"]) <= end:
                by_client.setdefault(r["client"], []).append(float(r["iops"]))
        out[name] = {c: sum(v) / len(v) for c, v in by_client.items()}
    return out


def share_errors(rows, alone, skip):
    """({client: black_box.ClientShare}, mean total) of black_box rows after `skip` seconds."""
    windows = black_box.window_shares(rows, alone, skip)
    if not windows:
        raise ValueError(f"no window ends after the first {skip:g} s")
    return black_box.per_client(windows), black_box.mean_total(windows)
