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


def osd_table(epoch, targets, owners, background):
    """The `qbox set` table an OSD takes, as the qbox mgr module pushes it (doc/dev/qbox-mgr.md):
    `targets` {client: utilization}, `owners` {client: global id}, `background` {"recovery": u,
    "best_effort": u}. For runs that give the OSDs their table themselves, where the module cannot
    run (Debian 13's ceph-mgr) or is not the point."""
    return {"epoch": epoch,
            "clients": [{"name": name, "utilization": u, "owners": [owners[name]]}
                        for name, u in sorted(targets.items())],
            "background_recovery": background["recovery"],
            "background_best_effort": background["best_effort"]}


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


def overhead_ratios(rounds):
    """QBox/wpq IOPS per round and their median, of [(wpq IOPS, qbox IOPS), ...] measured in
    interleaved rounds. The median, not the mean: on a shared machine one round can be off by
    2x (another engineer's build starts), and one such round should not decide the verdict."""
    if not rounds:
        raise ValueError("no rounds: at least one (wpq, qbox) pair is needed")
    for wpq, qbox in rounds:
        if wpq <= 0 or qbox < 0:
            raise ValueError(f"round ({wpq}, {qbox}): IOPS must be >= 0 and wpq's > 0")
    ratios = [qbox / wpq for wpq, qbox in rounds]
    ordered = sorted(ratios)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return ratios, median


def normalized_black_box(rows, skip):
    """{client: black_box.ClientShare} of each client's black-box share divided by the sum of
    the shares of its window, from osd_shares.py's per-window CSV rows (time_s, client, target,
    black_box_share) after `skip` seconds. The plain black-box share divides by IOPS measured
    alone, minutes earlier; when the machine's load changes in between, every client's share
    moves by the same factor and the totals drift from 1. Dividing by the window's total takes
    that factor out and keeps how the device was split, which is what the targets say."""
    windows = {}
    for r in rows:
        if float(r["time_s"]) > skip:
            windows.setdefault(r["time_s"], []).append(r)
    pairs = {}
    for members in windows.values():
        total = sum(float(r["black_box_share"]) for r in members)
        if total <= 0:
            continue
        for r in members:
            pairs.setdefault(r["client"], []).append(
                (float(r["target"]), float(r["black_box_share"]) / total))
    if not pairs:
        raise ValueError(f"no window after the first {skip:g} s with any client's share above 0")
    return {client: black_box.share_stats(p) for client, p in pairs.items()}


def read_service_seconds(model, size):
    """A read's service time on the SSD model of src/devices (ssd.h, "Timing"): read_latency +
    size * parallelism / read_bandwidth, of `model`, a {key: number} of the model file's section.
    time_scale multiplies every read alike, so shares computed from it leave it out."""
    for key in ("read_latency", "read_bandwidth", "parallelism"):
        if key not in model:
            raise ValueError(f"model: no '{key}'; the SSD model's read keys are needed")
    if model["read_bandwidth"] <= 0:
        raise ValueError(f"model: read_bandwidth is {model['read_bandwidth']}; expected > 0")
    return model["read_latency"] + size * model["parallelism"] / model["read_bandwidth"]


def model_device_shares(rows, sizes, model, skip):
    """{client: black_box.ClientShare} of each reader's part of the device time the model gives the
    readers' completions, per window: IOPS * read_service_seconds(its size) over the sum of that.
    Unlike the black-box share it does not assume a client alone could keep the OSDs busy (a
    sequential reader, one object at a time, cannot), only that the device serves each read in the
    model's time. Reads only: a write's device time depends on BlueStore's later work and GC."""
    windows = {}
    for r in rows:
        if float(r["time_s"]) > skip:
            if r["client"] not in sizes:
                raise ValueError(f"no read size for client {r['client']}")
            windows.setdefault(r["time_s"], []).append(r)
    pairs = {}
    for members in windows.values():
        used = {r["client"]: float(r["iops"]) * read_service_seconds(model, sizes[r["client"]])
                for r in members}
        total = sum(used.values())
        if total <= 0:
            continue
        for r in members:
            pairs.setdefault(r["client"], []).append((float(r["target"]), used[r["client"]] / total))
    if not pairs:
        raise ValueError(f"no window after the first {skip:g} s in which any reader completed a read")
    return {client: black_box.share_stats(p) for client, p in pairs.items()}
