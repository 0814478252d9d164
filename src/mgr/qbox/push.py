"""What goes to the OSDs and what they answered: the `qbox set` table (the contract with the OSD
library, doc/dev/qbox-mgr.md), its epoch, and each OSD's `qbox status` reply read into an
OsdReport. Pure; module.py sends the commands."""
import errno
import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from .table import Table

STATUS_COMMAND = {"prefix": "qbox status"}
# How an OSD without the library answers a command it does not have. Through the mgr's
# send_command it returned 0, no output and "unknown command prefix qbox status"; through
# `ceph tell` EINVAL and "no valid command found" (doc/dev/qbox-mgr.md).
UNKNOWN_COMMAND = re.compile(r"unknown command|unrecognized command|no valid command|invalid command")


def table_body(table: Table, owners: Dict[str, List[int]]) -> dict:
    """The table as the OSDs take it, without its epoch: what decides whether a new epoch is due."""
    return {"clients": [{"name": name, "utilization": u, "owners": list(owners.get(name, []))}
                        for name, u in sorted(table.clients.items())],
            "background_recovery": table.background["recovery"],
            "background_best_effort": table.background["best_effort"]}


def next_epoch(epoch: int, pushed_body: Optional[dict], body: dict) -> int:
    """A new epoch whenever what the OSDs should hold changes (a command, or a client's sessions);
    an OSD that restarted reports epoch 0, which never equals a pushed epoch (they start at 1)."""
    return epoch if pushed_body == body and epoch > 0 else epoch + 1


def set_command(epoch: int, body: dict) -> dict:
    return {"prefix": "qbox set", "table": json.dumps(dict(body, epoch=epoch), sort_keys=True)}


@dataclass(frozen=True)
class OsdReport:
    osd: int
    active: bool
    reason: str                  # why not active; empty when active
    epoch: Optional[int] = None  # table_epoch, when the OSD answered with a status
    status: Dict[str, Any] = field(default_factory=dict)

    def answered(self) -> bool:
        return self.epoch is not None


def read_status(osd: int, ret: int, out: str, err: str) -> OsdReport:
    """One OSD's answer to `qbox status` (or to `qbox set`, which answers with the new status)."""
    if UNKNOWN_COMMAND.search(err) and not out.strip():
        return OsdReport(osd, False, "`qbox status` is not a command of this OSD: libec_qbox.so is not loaded, "
                                     "or it refused this ceph-osd build (see the OSD's log)")
    if ret != 0:
        if ret == -errno.ETIMEDOUT:
            why = f"no answer to `qbox status`: {err.strip()}"
        else:
            why = f"`qbox status` failed: {err.strip() or 'no message'} ({ret})"
        return OsdReport(osd, False, why)
    try:
        status = json.loads(out)
        state, epoch = status["state"], status["table_epoch"]
        if not isinstance(epoch, int) or isinstance(epoch, bool) or state not in ("active", "stock"):
            raise ValueError(f"state {state!r}, table_epoch {epoch!r}")
    except (ValueError, KeyError, TypeError) as error:
        return OsdReport(osd, False, f"`qbox status` answered something unreadable ({error}): {out[:200]!r}")
    if state == "stock":
        why = status.get("reason") or "no reason given"
        return OsdReport(osd, False, f"the QBox library is loaded but runs stock: {why}",
                         epoch, status)
    return OsdReport(osd, True, "", epoch, status)


def needing_push(reports: Dict[int, OsdReport], epoch: int) -> List[int]:
    """OSDs whose library answered with a table epoch other than ours. One that did not answer, or
    has no library, has nothing to take the table; it shows in QBOX_OSD_STOCK instead."""
    return sorted(osd for osd, report in reports.items() if report.answered() and report.epoch != epoch)


def read_push(osd: int, ret: int, out: str, err: str) -> Tuple[Optional[OsdReport], Optional[str]]:
    """The answer to `qbox set`: the new status, or why the OSD did not take the table."""
    if ret != 0:
        return None, f"osd.{osd} did not take the qbox table: {err.strip() or 'no message'} ({ret})"
    report = read_status(osd, ret, out, err)
    return (report, None) if report.answered() else (None, f"osd.{osd} took the qbox table but {report.reason}")
