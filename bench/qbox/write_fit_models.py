"""Which model explains the residual an OSD fits its write price to: reads <run>_write_fit.csv
files of osd_shares.py (every long window an OSD fitted, with its write ops, MiB and the device
seconds the reads left) and, for each run and OSD with at least 8 consecutive windows, fits the
residual by least squares to each model below. Prints, per model, the median over those series of
its squared error relative to MiB alone (`error`), the median of each term, and in how many series
a term came out negative.

Models: MiB through the origin (the write price's, less its per-op term); an overhead per window
plus MiB (per saturated second where the CSV has `seconds`, else per long window); ops plus MiB
(the write price's per-op term); all three; and MiB plus the previous window's MiB (writes whose
device time shows a window late).

  python3 bench/qbox/write_fit_models.py bench/qbox/results/osd_ssd_*_fig3_2w_qbox_write_fit.csv
"""
import argparse
import csv
import statistics

MIN_WINDOWS = 8


def least_squares(rows, ys):
    """Coefficients minimizing the squared error of ys on rows (lists of regressors), or None."""
    n = len(rows[0])
    m = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * y for r, y in zip(rows, ys))]
         for i in range(n)]
    for p in range(n):
        best = max(range(p, n), key=lambda r: abs(m[r][p]))
        m[p], m[best] = m[best], m[p]
        if abs(m[p][p]) < 1e-12:
            return None
        for r in range(n):
            if r != p:
                f = m[r][p] / m[p][p]
                m[r] = [a - f * b for a, b in zip(m[r], m[p])]
    return [m[i][n] / m[i][i] for i in range(n)]


MODELS = {
    "MiB (origin)": (("s/MiB",), lambda w, prev: [w["mib"]]),
    "overhead + MiB": (("overhead s", "s/MiB"), lambda w, prev: [w["seconds"], w["mib"]]),
    "ops + MiB": (("ms/op", "s/MiB"), lambda w, prev: [w["ops"] / 1000, w["mib"]]),
    "overhead + ops + MiB": (("overhead s", "ms/op", "s/MiB"),
                             lambda w, prev: [w["seconds"], w["ops"] / 1000, w["mib"]]),
    "MiB + previous MiB": (("s/MiB", "s/previous MiB"), lambda w, prev: [w["mib"], prev["mib"]]),
}


def series(path):
    """{osd: [window, ...]} of a write-fit CSV, each window once, in order, with its predecessor."""
    by_osd = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            windows = by_osd.setdefault(row["osd"], {})
            windows.setdefault(int(row["number"]), {
                "ops": float(row["ops"]), "mib": float(row["mib"]),
                "residual": float(row.get("residual_s") or row["residual"]),
                "seconds": float(row["seconds"]) if row.get("seconds") else 1.0})
    return {osd: [(w[n], w[n - 1]) for n in sorted(w) if n - 1 in w] for osd, w in by_osd.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("write_fits", nargs="+", help="<run>_write_fit.csv files of osd_shares.py")
    args = parser.parse_args()
    ratios = {name: [] for name in MODELS}
    terms = {name: [] for name in MODELS}
    count = 0
    for path in args.write_fits:
        for osd, windows in series(path).items():
            if len(windows) < MIN_WINDOWS:
                continue
            ys = [w["residual"] for w, _ in windows]
            fits = {name: least_squares([regressors(w, prev) for w, prev in windows], ys)
                    for name, (_, regressors) in MODELS.items()}
            if any(fit is None for fit in fits.values()):
                continue
            count += 1
            errors = {name: sum((y - sum(c * x for c, x in zip(fit, MODELS[name][1](w, prev)))) ** 2
                                for y, (w, prev) in zip(ys, windows)) for name, fit in fits.items()}
            base = errors["MiB (origin)"]
            for name, fit in fits.items():
                ratios[name].append(errors[name] / base if base > 0 else 1.0)
                terms[name].append(fit)
    print(f"{count} series (run and OSD) of {len(args.write_fits)} files, each >= {MIN_WINDOWS} windows")
    print(f"{'model':<21} {'error':<6} {'median terms':<50} a term < 0")
    for name, (labels, _) in MODELS.items():
        if not terms[name]:
            continue
        medians = ", ".join(f"{statistics.median(t[i] for t in terms[name]):.3f} {label}"
                            for i, label in enumerate(labels))
        negative = sum(1 for t in terms[name] if min(t) < 0)
        print(f"{name:<21} {statistics.median(ratios[name]):<6.2f} {medians:<50} {negative}")


if __name__ == "__main__":
    main()
