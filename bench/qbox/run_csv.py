"""Reading one of osd_shares.py's per-run CSVs for a summarizing command: the rows, or an argparse
error naming the argument when the file cannot be read or lacks the columns the command needs."""
import csv


def read_rows(parser, name, path, needed, what):
    """The rows of `path`; exits through parser.error, naming argument `name`, if it cannot be read
    or has none of the `needed` columns (`what` says what the file should have been)."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        parser.error(f"{name}: cannot read '{path}': {e.strerror}")
    if not rows or not set(needed) <= set(rows[0]):
        parser.error(f"{name}: '{path}' {what} (columns {', '.join(sorted(needed))})")
    return rows
