"""Reading one of osd_shares.py's per-run CSVs for a summarizing command: the rows, or an argparse
error naming the argument when the file cannot be read or lacks the columns the command needs."""
import csv


def read_rows(parser, name, path, needed, what, may_be_empty=False):
    """The rows of `path`; exits through parser.error, naming argument `name`, if it cannot be read,
    lacks any of the `needed` columns or (unless `may_be_empty`) has no rows (`what` says what the
    file should have been)."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = set(reader.fieldnames or ())
    except OSError as e:
        parser.error(f"{name}: cannot read '{path}': {e.strerror}")
    if (not rows and not may_be_empty) or not set(needed) <= columns:
        parser.error(f"{name}: '{path}' {what} (columns {', '.join(sorted(needed))})")
    return rows
