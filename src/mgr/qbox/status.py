"""`ceph qbox status`: one dict from the module's table and the OSDs' latest reports, and its
plain-text form."""
from typing import Any, Dict, List, Optional, Sequence

from .push import OsdReport, table_body
from .table import Table
from .throughput import CLIENT_PRICE

COST_CLASSES = ("seq_read", "rand_read", "seq_write", "rand_write")
ENTRY_KEYS = ("name", "class", "target", "achieved", "backlogged", "ops", "queued", "price")


def build_status(table: Table, epoch: int, owners: Dict[str, List[int]], up_osds: Sequence[int],
                 reports: Dict[int, OsdReport], push_failures: Dict[int, str], problems: Sequence[str],
                 now: float, slas: Sequence[dict] = ()) -> dict:
    """slas: sla.sla_entries, one per client whose utilization comes from a throughput SLA."""
    osds = []
    for osd in sorted(up_osds):
        report = reports.get(osd)
        if report is None:
            osds.append({"osd": osd, "state": "unknown", "reason": "not asked yet", "table_epoch": None,
                         "in_sync": False, "costs": None, "write_price": None, "window_seconds": None,
                         "clients": []})
            continue
        status = report.status
        state = "active" if report.active else ("stock" if report.answered() else "no library")
        osds.append({"osd": osd, "state": state, "reason": report.reason, "table_epoch": report.epoch,
                     "in_sync": report.epoch == epoch, "costs": status.get("costs"),
                     "write_price": status.get("write_price"), "window_seconds": status.get("window_seconds"),
                     "clients": [{key: entry.get(key) for key in ENTRY_KEYS} | {"owners": entry.get("owners", [])}
                                 for entry in status.get("clients", []) if isinstance(entry, dict)]})
    return {"now": now, "epoch": epoch, "sum": table.total(), "table": table_body(table, owners),
            "slas": list(slas), "osds": osds,
            "push_failures": {str(osd): why for osd, why in sorted(push_failures.items())}, "problems": list(problems)}


def _number(value: Any, scale: float = 1.0, digits: int = 3) -> str:
    return "-" if not isinstance(value, (int, float)) or isinstance(value, bool) else f"{value * scale:.{digits}f}"


def _count(value: Any) -> str:
    return "-" if value is None else str(value)


def _owners(ids: Optional[List[int]]) -> str:
    return ",".join(str(owner) for owner in ids) if ids else "-"


def _sla(sla: dict) -> str:
    kind = "random" if sla["access"] == "rand" else "sequential"
    text = f"{sla['iops']:g} IOPS of {sla['size']}-byte {kind} {sla['op']}s -> {sla['utilization']:.3f}"
    if sla["derived"] is None:
        text += " (no OSD has priced it since the mgr started)"
    else:
        price = (f"client's measured {sla['cost_class']} price" if sla["cost_source"] == CLIENT_PRICE
                 else f"{sla['cost_class']} estimate")
        text += (f" (now {sla['iops']:g} x {_number(sla['cost_seconds'], 1000.0)} ms {price} on "
                 f"osd.{sla['cost_osd']} = {sla['derived']:.3f})")
    if sla["refused"]:
        text += "; NOT ADMITTED, see QBOX_SLA_NOT_ADMITTED"
    return text


def _write_price(write_price: Any) -> str:
    """How an OSD prices a write, in one phrase."""
    if not isinstance(write_price, dict):
        return "write price: not reported"
    text = (f"write price: {_number(write_price.get('per_op'), 1000.0)} ms per op + "
            f"{_number(write_price.get('per_mib'), 1000.0)} ms per MiB, ")
    if write_price.get("method") == "residual":
        text += f"fitted to the device time reads left: {_fitted_over(write_price)}, " \
                f"x{_number(write_price.get('copies'), digits=2)} for the replica sub-ops"
        if write_price.get("shortest_write"):
            shortest = write_price["shortest_write"]
            text += f"; writes shorter than {shortest} bytes charged per byte at a {shortest}-byte write's"
    else:
        text += "the prior (no saturated window with writes yet)"
    return text + ("; reads priced clean" if write_price.get("reads_clean") else "")


def _fitted_over(write_price: dict) -> str:
    """Over how many saturated 3 s windows each term was fitted: the per-op term over all of them,
    the price per MiB over the latest (an OSD library before 2026-12-07 says only the first)."""
    windows = write_price.get("long_windows")
    latest = write_price.get("per_mib_windows")
    if latest is None:
        return f"over {windows} saturated 3 s windows"
    if (write_price.get("per_op") or 0) > 0:
        return f"per op over {windows} saturated 3 s windows, per MiB over the last {latest}"
    return f"per MiB over the last {latest} saturated 3 s windows (no per-op term kept over {windows})"


def _client_price(price: Any, op: str) -> str:
    return _number(price.get(op), 1000.0) if isinstance(price, dict) else "-"


def render_plain(status: dict) -> str:
    table = status["table"]
    lines = [f"qbox table epoch {status['epoch']}: utilizations sum to {status['sum']:.3f} of 1"]
    for client in table["clients"]:
        lines.append(f"  {client['name']:<24} {client['utilization']:.3f}  sessions {_owners(client['owners'])}")
    for sla in status["slas"]:
        lines.append(f"  {sla['name']:<24} SLA {_sla(sla)}")
    lines.append(f"  {'background_recovery':<24} {table['background_recovery']:.3f}")
    lines.append(f"  {'background_best_effort':<24} {table['background_best_effort']:.3f}")
    for osd in status["osds"]:
        if osd["state"] != "active":
            lines.append(f"osd.{osd['osd']}: {osd['state']}: {osd['reason']}")
            continue
        sync = "in sync" if osd["in_sync"] else f"pushing epoch {status['epoch']}"
        costs = osd["costs"] or {}
        lines.append(f"osd.{osd['osd']}: active, table epoch {osd['table_epoch']} ({sync}), window "
                     f"{_number(osd['window_seconds'], digits=1)} s, estimated ms per op: "
                     + " ".join(f"{name} {_number(costs.get(name), 1000.0)}" for name in COST_CLASSES))
        lines.append(f"  {_write_price(osd.get('write_price'))}")
        lines.append(f"  {'client':<24} {'target':>7} {'achieved':>9} {'backlogged':>11} {'ops':>8} {'queued':>7}"
                     f" {'read ms':>8} {'write ms':>9}")
        for entry in osd["clients"]:
            lines.append(f"  {str(entry['name']):<24} {_number(entry['target']):>7} {_number(entry['achieved']):>9} "
                         f"{_number(entry['backlogged'], digits=2):>11} {_count(entry['ops']):>8} "
                         f"{_count(entry['queued']):>7} {_client_price(entry.get('price'), 'read'):>8} "
                         f"{_client_price(entry.get('price'), 'write'):>9}")
    for osd, why in status["push_failures"].items():
        lines.append(why)
    lines.extend(status["problems"])
    return "\n".join(lines) + "\n"
