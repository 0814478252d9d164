"""The per-client table of bench/qbox/README.md from osd_shares.py's outputs:

  python3 bench/qbox/osd_shares_table.py [--model FILE] RESULTS_DIR PREFIX [PREFIX ...]

For each figure of each prefix (e.g. osd_ssd_quick), per client: the normalized target, then per
scheduler the mean black-box share / mean error (IOPS over IOPS alone), the same normalized over
each window's total (osd_share_eval.normalized_black_box says why), and for QBox its estimator's
share (from `qbox status`). With --model (the SSD model file the run emulated), figures of
readers only get a second table: each reader's part of the device time the model gives the
readers' completions (osd_share_eval.model_device_shares). The first 4 s of each run are left
out, as osd_shares.py does.
"""
import csv
import sys
from pathlib import Path

import osd_share_eval as ev
from osd_shares import CLIENTS

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


def read_model(path):
    """{key: number} of the first section of a src/devices model file (`key = value` lines)."""
    model = {}
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("[") and model:
            break
        if "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            try:
                model[key] = float(value)
            except ValueError:
                pass
    return model


def model_table(results, prefix, model):
    readers = {n: size for n, (_, op, size) in CLIENTS.items() if op == "read"}
    lines = []
    for summary in sorted(results.glob(f"{prefix}_fig*.summary.csv")):
        fig = summary.name[len(prefix) + 4:-len(".summary.csv")].replace("_", ".")
        shares = {}
        for s in SCHEDULERS:
            path = results / f"{prefix}_fig{fig.replace('.', '_')}_{s}.csv"
            if not path.exists():
                continue
            rows = read(path)
            if any(r["client"] not in readers for r in rows):
                break
            shares[s] = ev.model_device_shares(rows, readers, model, WARMUP)
        else:
            if not shares:
                continue
            lines.append(f"{prefix} fig. {fig}: per scheduler the model's device-time share / err")
            for client in shares["qbox"] if "qbox" in shares else next(iter(shares.values())):
                lines.append(f"{client.removeprefix('client.'):15s}  " + "  ".join(
                    f"{s} {st[client].mean_share:5.3f}/{st[client].mean_error:5.3f}" for s, st in shares.items()))
    return lines


def main(argv):
    model = None
    if argv[:1] == ["--model"]:
        if len(argv) < 2 or not Path(argv[1]).is_file():
            sys.exit(f"--model: '{argv[1] if len(argv) > 1 else ''}' is not a model file")
        model = read_model(argv[1])
        argv = argv[2:]
    if len(argv) < 2:
        sys.exit(__doc__)
    results = Path(argv[0])
    if not results.is_dir():
        sys.exit(f"RESULTS_DIR: '{results}' is not a directory")
    for prefix in argv[1:]:
        lines = table(results, prefix)
        if not lines:
            sys.exit(f"PREFIX: no {prefix}_fig*.summary.csv in '{results}'")
        if model is not None:
            lines += model_table(results, prefix, model)
        print("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
