"""The per-client table of bench/qbox/README.md from osd_shares.py's outputs:

  python3 bench/qbox/osd_shares_table.py RESULTS_DIR PREFIX [PREFIX ...]

For each figure of each prefix (e.g. osd_ssd_quick), per client: the normalized target, then per
scheduler the mean black-box share / mean error (IOPS over IOPS alone), the same normalized over
each window's total (osd_share_eval.normalized_black_box says why), and for QBox its estimator's
share (from `qbox status`). The first 4 s of each run are left out, as osd_shares.py does.
"""
import csv
import sys
from pathlib import Path

import osd_share_eval as ev

WARMUP = 4.0
SCHEDULERS = ("qbox", "wpq", "mclock_scheduler")


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def table(results, prefix):
    lines = []
    for summary in sorted(results.glob(f"{prefix}_fig*.summary.csv")):
        fig = summary.name[len(prefix) + 4:-len(".summary.csv")].replace("_", ".")
        rows = read(summary)
        estimator = {r["client"]: r["estimator_share"] for r in rows if r["scheduler"] == "qbox"}
        plain = {(r["scheduler"], r["client"]): (float(r["black_box_share"]), float(r["error_mean"]))
                 for r in rows}
        norm, targets = {}, {}
        for s in SCHEDULERS:
            path = results / f"{prefix}_fig{fig.replace('.', '_')}_{s}.csv"
            if path.exists():
                windows = read(path)
                norm[s] = ev.normalized_black_box(windows, WARMUP)
                for r in windows:
                    if float(r["time_s"]) > WARMUP:
                        targets.setdefault(r["client"], []).append(float(r["target"]))
        lines.append(f"{prefix} fig. {fig}: per scheduler black-box share / err, normalized share / err"
                     + "; QBox est. = its estimator's share")
        lines.append(f"{'client':15s} {'target':>6s}  " + "  ".join(f"{s:>27s}" for s in norm) + "  QBox est.")
        for client, ts in targets.items():
            cells = []
            for s in norm:
                share, err = plain.get((s, client), (float("nan"), float("nan")))
                n = norm[s].get(client)
                cells.append(f"{share:5.3f}/{err:5.3f} {n.mean_share:5.3f}/{n.mean_error:5.3f}"
                             if n else f"{'-':>27s}")
            lines.append(f"{client.removeprefix('client.'):15s} {sum(ts) / len(ts):6.3f}  "
                         + "  ".join(f"{c:>27s}" for c in cells) + f"  {estimator.get(client) or '-':>8s}")
    return lines


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    results = Path(argv[0])
    if not results.is_dir():
        sys.exit(f"RESULTS_DIR: '{results}' is not a directory")
    for prefix in argv[1:]:
        lines = table(results, prefix)
        if not lines:
            sys.exit(f"PREFIX: no {prefix}_fig*.summary.csv in '{results}'")
        print("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
