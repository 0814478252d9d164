"""The operator's table: cephx client name -> utilization (the share of each OSD's device time the
client is guaranteed), plus the two background classes, and the throughput SLAs some clients'
utilizations are derived from. Pure: every change returns a new Table or a Refusal whose message
names the argument, the value and what is accepted."""
import errno
import json
import math
import re
from dataclasses import dataclass, field
from typing import Dict, Union

from .refusal import Refusal
from .throughput import Throughput, parse_throughput

# The background classes' shares until the operator sets them: the ones the OSD library uses before
# it gets a table, so enabling the module changes nothing until the operator does. The library
# accepts only utilizations in (0, 1], so they cannot be 0; they leave 0.85 for clients.
DEFAULT_BACKGROUND = {"recovery": 0.1, "best_effort": 0.05}
BACKGROUND_CLASSES = tuple(DEFAULT_BACKGROUND)
# cephx ids of clients as `ceph auth get-or-create` accepts them in practice; anything else is
# most likely a typo or a shell quoting mistake.
CLIENT_NAME = re.compile(r"client\.[A-Za-z0-9_][A-Za-z0-9_.@-]{0,63}")
# Sums are compared with this slack, so that 0.7 + 0.2 + 0.1 (1.0000000000000002 in binary) fits.
SUM_EPSILON = 1e-9


@dataclass(frozen=True)
class Table:
    clients: Dict[str, float] = field(default_factory=dict)
    background: Dict[str, float] = field(default_factory=lambda: dict(DEFAULT_BACKGROUND))
    # The clients whose utilization in `clients` is the last admitted conversion of an SLA.
    throughputs: Dict[str, Throughput] = field(default_factory=dict)

    def total(self) -> float:
        return sum(self.clients.values()) + sum(self.background.values())

    def describe_sum(self) -> str:
        parts = [f"{name} {u:g}" for name, u in sorted(self.clients.items())]
        parts += [f"background_{name} {u:g}" for name, u in sorted(self.background.items())]
        return f"{self.total():.4g} ({', '.join(parts)})"


def parse_client_name(text: str) -> Union[str, Refusal]:
    if not isinstance(text, str) or not CLIENT_NAME.fullmatch(text):
        return Refusal(-errno.EINVAL, f"client is {text!r}; accepted: a cephx client name such as client.alice "
                                      "(client. followed by letters, digits, _ . @ -; at most 64 characters)")
    return text


def parse_utilization(argument: str, text: str) -> Union[float, Refusal]:
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value) or not 0.0 < value <= 1.0:
        return Refusal(-errno.EINVAL, f"{argument} is {text!r}; accepted: a fraction of device time "
                                      "greater than 0 and at most 1, such as 0.3")
    return value


def _admit(table: Table, changed: str, candidate: Table) -> Union[Table, Refusal]:
    if candidate.total() > 1.0 + SUM_EPSILON:
        return Refusal(-errno.ERANGE, f"admission refused: with {changed} the sum of utilizations would be "
                                      f"{candidate.describe_sum()}; accepted: at most 1. The sum now is "
                                      f"{table.describe_sum()}")
    return candidate


def set_client(table: Table, name: str, utilization: float) -> Union[Table, Refusal]:
    """A utilization set by hand replaces the client's SLA, if it had one."""
    clients = dict(table.clients)
    clients[name] = utilization
    throughputs = {other: sla for other, sla in table.throughputs.items() if other != name}
    return _admit(table, f"{name} at {utilization:g}", Table(clients, dict(table.background), throughputs))


def set_throughput(table: Table, name: str, throughput: Throughput, utilization: float,
                   how: str) -> Union[Table, Refusal]:
    """The client's utilization, derived from its SLA (`how` says how, for a refusal's message)."""
    clients = dict(table.clients)
    clients[name] = utilization
    throughputs = dict(table.throughputs)
    throughputs[name] = throughput
    return _admit(table, f"{name} at {utilization:.4g} ({throughput.describe()}: {how})",
                  Table(clients, dict(table.background), throughputs))


def remove_client(table: Table, name: str) -> Union[Table, Refusal]:
    if name not in table.clients:
        known = ", ".join(sorted(table.clients)) or "none"
        return Refusal(-errno.ENOENT, f"client {name} is not in the qbox table; clients in it: {known}")
    clients = {other: u for other, u in table.clients.items() if other != name}
    throughputs = {other: sla for other, sla in table.throughputs.items() if other != name}
    return Table(clients, dict(table.background), throughputs)


def set_background(table: Table, klass: str, utilization: float) -> Union[Table, Refusal]:
    if klass not in BACKGROUND_CLASSES:
        return Refusal(-errno.EINVAL, f"class is {klass!r}; accepted: {' or '.join(BACKGROUND_CLASSES)}")
    background = dict(table.background)
    background[klass] = utilization
    return _admit(table, f"background_{klass} at {utilization:g}",
                  Table(dict(table.clients), background, dict(table.throughputs)))


def to_json(table: Table) -> str:
    return json.dumps({"clients": table.clients, "background": table.background,
                       "throughputs": {name: sla.to_dict() for name, sla in table.throughputs.items()}},
                      sort_keys=True)


def from_json(text: str) -> Union[Table, Refusal]:
    """The table as stored by to_json, checked as if each entry were set again (a store edited by
    hand, or written by another version, must not reach the OSDs unchecked). A table stored before
    SLAs existed has no `throughputs`."""
    try:
        stored = json.loads(text)
        clients, background = stored["clients"], stored["background"]
        throughputs = stored.get("throughputs", {})
        if not all(isinstance(part, dict) for part in (clients, background, throughputs)):
            raise TypeError("clients, background and throughputs must be objects")
    except (ValueError, KeyError, TypeError) as error:
        return Refusal(-errno.EINVAL, f"the stored qbox table is not readable ({error}): {text[:200]!r}")
    table = Table({}, dict(DEFAULT_BACKGROUND))
    for klass, value in background.items():
        u = parse_utilization(f"background_{klass}", str(value))
        table = u if isinstance(u, Refusal) else set_background(table, klass, u)
        if isinstance(table, Refusal):
            return Refusal(table.errno, f"the stored qbox table: {table.message}")
    for name, value in clients.items():
        checked = parse_client_name(name)
        u = parse_utilization(name, str(value))
        for problem in (checked, u):
            if isinstance(problem, Refusal):
                return Refusal(problem.errno, f"the stored qbox table: {problem.message}")
        table = set_client(table, name, u)
        if isinstance(table, Refusal):
            return Refusal(table.errno, f"the stored qbox table: {table.message}")
    for name, sla in throughputs.items():
        if name not in table.clients:
            return Refusal(-errno.EINVAL, f"the stored qbox table: {name} has a throughput SLA but no utilization")
        try:
            checked = parse_throughput(str(sla["iops"]), str(sla["size"]), sla["op"], sla["access"])
        except (KeyError, TypeError) as error:
            checked = Refusal(-errno.EINVAL, f"throughput SLA of {name} is {sla!r} ({error!r} missing or wrong)")
        if isinstance(checked, Refusal):
            return Refusal(checked.errno, f"the stored qbox table: {checked.message}")
        table = Table(table.clients, table.background, dict(table.throughputs, **{name: checked}))
    return table
