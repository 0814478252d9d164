"""Summary CSVs, the pass/miss table and PNG plots of an osd_shares.py run, from its results and
the per-window CSVs it wrote."""
import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

import osd_share_eval as ev  # noqa: E402

RECOVERY_EVENTS = "osd.1 killed at {kill:g} s, restarted at {restart:g} s"


def read_windows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _series(rows, client, column):
    pts = [(float(r["time_s"]), float(r[column])) for r in rows if r["client"] == client and r[column] != ""]
    return [t for t, _ in pts], [v for _, v in pts]


def write(out, prefix, device, results, figures, schedulers, warmup, events):
    """Everything of one run; `warmup`: seconds left out of each figure run; `events`: (kill,
    restart) seconds of the recovery run."""
    busy = results["alone_busy"]
    osds = sorted({osd for by_osd in busy.values() for osd in by_osd})
    with open(out / f"{prefix}.alone.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["client", "iops_alone"] + [f"osd{o}_busy_{k}" for o in osds for k in ("outstanding", "running")])
        for c, v in results["alone"].items():
            w.writerow([c, f"{v:.1f}"] + ["" if x is None else f"{x:.3f}" for o in osds
                                          for x in busy[c].get(o, (None, None))])
    for fig in figures:
        summarize_figure(out, prefix, device, fig, {s: results[(fig, s)] for s in schedulers})
        plot_figure(out, prefix, device, fig, schedulers, warmup)
    recovery = {s: results[("recovery", s)] for s in ("qbox", "wpq") if ("recovery", s) in results}
    if recovery:
        summarize_recovery(out, prefix, recovery)
        plot_recovery(out, prefix, device, recovery, events)


def summarize_figure(out, prefix, device, fig, by_scheduler):
    name = f"{prefix}_fig{fig.replace('.', '_')}"
    errors = {s: {c: st.mean_error for c, st in stats.items()} for s, (stats, _, _) in by_scheduler.items()}
    found = ev.verdicts(errors)
    with open(out / f"{name}.summary.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scheduler", "client", "windows", "black_box_share", "error_mean", "error_max", "total",
                    "estimator_share", "estimator_error_mean"])
        for s, (stats, total, est) in by_scheduler.items():
            for c, st in stats.items():
                e = est.get(c)
                w.writerow([s, c, st.windows, f"{st.mean_share:.3f}", f"{st.mean_error:.3f}", f"{st.max_error:.3f}",
                            f"{total:.2f}", f"{e.mean_share:.3f}" if e else "", f"{e.mean_error:.3f}" if e else ""])
    others = [s for s in by_scheduler if s != "qbox"]
    print(f"\nfig. {fig} on {device}: mean |black-box share - target| per client "
          f"(goal: QBox <= {ev.TOLERANCE} where the stock schedulers miss by more)")
    print(f"{'client':16s} {'qbox':>7s} " + " ".join(f"{s:>16s}" for s in others) + "  verdict")
    for v in found:
        print(f"{v.client:16s} {v.qbox:7.3f} " + " ".join(f"{v.baselines.get(s, float('nan')):16.3f}" for s in others)
              + ("  pass" if v.met else "  MISS") + ("" if v.baselines_worse else " (a stock scheduler is as close)"))
    totals = ", ".join(f"{s} {t:.2f}" for s, (_, t, _) in by_scheduler.items())
    print(f"mean summed black-box share per window: {totals}; goal "
          + ("shown" if ev.goal_shown(found) else "NOT shown"), flush=True)


def plot_figure(out, prefix, device, fig, schedulers, warmup):
    name = f"{prefix}_fig{fig.replace('.', '_')}"
    panels = plt.subplots(2, len(schedulers), figsize=(5 * len(schedulers), 7), sharex=True, squeeze=False)[1]
    for col, s in enumerate(schedulers):
        rows = read_windows(out / f"{name}_{s}.csv")
        clients = list(dict.fromkeys(r["client"] for r in rows))
        top, bottom = panels[0][col], panels[1][col]
        for i, c in enumerate(clients):
            color = f"C{i}"
            t, iops = _series(rows, c, "iops")
            top.plot(t, iops, color=color, label=c.removeprefix("client."))
            t, share = _series(rows, c, "black_box_share")
            bottom.plot(t, share, color=color)
            t, target = _series(rows, c, "target")
            bottom.plot(t, target, color=color, linestyle="--", linewidth=0.8)
            t, est = _series(rows, c, "qbox_achieved_mean_osds")
            if est:
                bottom.plot(t, est, color=color, linestyle=":", linewidth=1)
        top.set_title(f"{s}")
        top.set_ylabel("IOPS")
        bottom.set_ylabel("share (solid black-box, dotted QBox est.)")
        bottom.set_xlabel("s")
        bottom.set_ylim(0, 1)
        bottom.axvspan(0, warmup, color="0.9")
        top.legend(fontsize=7)
    plt.suptitle(f"fig. {fig}-like, 2 OSDs on {device}; dashed: normalized targets; shaded: left out")
    plt.tight_layout()
    plt.savefig(out / f"{name}.png", dpi=80)
    plt.close("all")


def summarize_recovery(out, prefix, recovery):
    with open(out / f"{prefix}_recovery.summary.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scheduler", "client", "target", "target_while_recovering", "share_before", "share_down",
                    "share_recovering", "peak_degraded_objects", "clean_after_restart_s",
                    "qbox_estimated_recovery_share", "qbox_recovery_backlogged"])
        for s, r in recovery.items():
            est, backlogged = r["recovery_estimated"], r.get("recovery_backlogged")
            for c, target in r["targets"].items():
                w.writerow([s, c, f"{target:.3f}", f"{r['targets_recovering'][c]:.3f}"]
                           + [f"{r['shares'][p].get(c, 0):.3f}" for p in ("before", "down", "recovering")]
                           + [r["peak"], "" if r["clean_after"] is None else f"{r['clean_after']:.0f}",
                              "" if est is None else f"{est:.3f}",
                              "" if backlogged is None else f"{backlogged:.3f}"])
    print("\nrecovery: black-box share per phase (before the kill / osd.1 down / recovering)")
    for s, r in recovery.items():
        clean = "not clean by the end" if r["clean_after"] is None else f"clean {r['clean_after']:.0f} s after restart"
        print(f"{s}: peak {r['peak']} degraded objects, {clean}")
        for c, target in r["targets"].items():
            err = abs(r["shares"]["recovering"].get(c, 0) - r["targets_recovering"][c])
            print(f"  {c:16s} target {target:.3f} ({r['targets_recovering'][c]:.3f} while recovering)  " + " / ".join(
                f"{r['shares'][p].get(c, 0):.3f}" for p in ("before", "down", "recovering"))
                + f"  |recovering - target| {err:.3f}")


def plot_recovery(out, prefix, device, recovery, events):
    kill, restart = events
    panels = plt.subplots(1, len(recovery), figsize=(6 * len(recovery), 4), squeeze=False)[1][0]
    for ax, (s, r) in zip(panels, recovery.items()):
        rows = read_windows(out / f"{prefix}_recovery_{s}.csv")
        for i, c in enumerate(r["targets"]):
            t, share = _series(rows, c, "black_box_share")
            ax.plot(t, share, color=f"C{i}", label=c.removeprefix("client."))
            ax.axhline(r["targets"][c], color=f"C{i}", linestyle="--", linewidth=0.8)
        deg = read_windows(out / f"{prefix}_recovery_{s}_degraded.csv")
        twin = ax.twinx()
        twin.plot([float(d["time_s"]) for d in deg], [float(d["degraded_objects"]) for d in deg], color="k",
                  linestyle=":", label="degraded objects")
        twin.set_ylabel("degraded objects (dotted)")
        for x in events:
            ax.axvline(x, color="r", linewidth=0.8)
        ax.set_ylim(0, 1)
        ax.set_title(f"{s}: " + RECOVERY_EVENTS.format(kill=kill, restart=restart),
                     fontsize=9)
        ax.set_xlabel("s")
        ax.set_ylabel("black-box share")
        ax.legend(fontsize=7, loc="upper left")
    plt.suptitle(f"client shares while recovery proceeds, 2 OSDs on {device}")
    plt.tight_layout()
    plt.savefig(out / f"{prefix}_recovery.png", dpi=80)
    plt.close("all")
