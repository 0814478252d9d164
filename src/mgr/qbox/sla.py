"""Keeping throughput SLAs admitted as the OSDs' prices move: every round the module converts each
SLA again at the latest prices (the OSDs' fitted write prices, the client's own measured ones,
else the class estimates) and
admits the new utilization, or keeps the last admitted one and says why (QBOX_SLA_NOT_ADMITTED),
so the table never sums above 1. Pure."""
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional

from .push import OsdReport
from .refusal import Refusal
from .table import Table, set_throughput
from .throughput import Derivation, derive


@dataclass(frozen=True)
class Rederived:
    table: Table
    # The latest conversion of each SLA that some OSD could price this round.
    derived: Dict[str, Derivation] = field(default_factory=dict)
    # Client -> why its new utilization was not admitted (it keeps the last admitted one).
    refused: Dict[str, str] = field(default_factory=dict)


def costs_by_osd(reports: Dict[int, OsdReport]) -> Dict[int, Mapping[str, object]]:
    """The cost estimates of every OSD that schedules with QBox; the others charge nothing."""
    return {osd: report.status.get("costs") or {} for osd, report in reports.items()
            if report.active and isinstance(report.status.get("costs") or {}, dict)}


def write_prices_by_osd(reports: Dict[int, OsdReport]) -> Dict[int, Mapping[str, object]]:
    """Each QBox OSD's `write_price`: what it charges a write, per op and per MiB, and how it knows."""
    return {osd: report.status["write_price"] for osd, report in reports.items()
            if report.active and isinstance(report.status.get("write_price"), dict)}


def client_prices(reports: Dict[int, OsdReport]) -> Dict[str, Dict[int, Mapping[str, object]]]:
    """Client -> OSD -> the client's mean measured price per operation there (`price` of its entry
    in `qbox status`), from the OSDs that schedule with QBox and have one."""
    prices: Dict[str, Dict[int, Mapping[str, object]]] = {}
    for osd, report in sorted(reports.items()):
        clients = report.status.get("clients") if report.active else None
        for entry in clients if isinstance(clients, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str) and isinstance(entry.get("price"), dict):
                prices.setdefault(entry["name"], {})[osd] = entry["price"]
    return prices


def rederive(table: Table, costs: Dict[int, Mapping[str, object]], lower_margin: float,
             prices: Optional[Dict[str, Dict[int, Mapping[str, object]]]] = None,
             write_prices: Optional[Dict[int, Mapping[str, object]]] = None) -> Rederived:
    """A utilization rises as soon as the price does (a guarantee never rests on an old, lower
    cost) but falls only once the price gives one lower_margin below it, so that price noise
    does not give the OSDs a new table every round. Falls are applied first: they only make room.
    An SLA no OSD can price this round keeps its utilization. prices: client_prices; write_prices:
    write_prices_by_osd."""
    derived, refused, changes = {}, {}, []
    for name, throughput in sorted(table.throughputs.items()):
        conversion = derive(throughput, costs, (prices or {}).get(name), write_prices)
        if isinstance(conversion, Refusal):
            continue
        derived[name] = conversion
        current = table.clients[name]
        if conversion.utilization > current or conversion.utilization < current * (1.0 - lower_margin):
            changes.append((conversion.utilization > current, name, conversion))
    for _, name, conversion in sorted(changes, key=lambda change: (change[0], change[1])):
        throughput = table.throughputs[name]
        admitted = set_throughput(table, name, throughput, conversion.utilization, conversion.describe(throughput))
        if isinstance(admitted, Refusal):
            refused[name] = (f"{name} keeps utilization {table.clients[name]:.4g}, the last admitted, though its SLA "
                             f"of {throughput.describe()} now needs {conversion.utilization:.4g}: "
                             f"{admitted.message}")
        else:
            table = admitted
    return Rederived(table, derived, refused)


def sla_entries(table: Table, derived: Dict[str, Derivation], refused: Dict[str, str]) -> List[dict]:
    """`ceph qbox status`' `slas`: each SLA, the utilization in force and what priced it."""
    entries = []
    for name, throughput in sorted(table.throughputs.items()):
        conversion = derived.get(name)
        entries.append(dict(throughput.to_dict(), name=name, utilization=table.clients[name],
                            derived=conversion.utilization if conversion else None,
                            cost_class=conversion.cost_class if conversion else None,
                            cost_source=conversion.source if conversion else None,
                            cost_seconds=conversion.cost if conversion else None,
                            cost_osd=conversion.osd if conversion else None,
                            refused=refused.get(name)))
    return entries
