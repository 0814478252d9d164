"""A throughput SLA (`ceph qbox set-throughput`): so many ops per second of one size and class,
and its conversion into a utilization the way the broker does it (src/qbox/broker.h,
utilization_for): u = iops x the cost in device seconds per op. The cost is the client's own mean
measured price for the operation where an OSD reports one in `qbox status` (the OSDs charge each op
what it measured, so an SLA for ops larger than typical must be priced at what its ops cost), else
the class cost the OSDs' QBox estimates, not a device profile's worst case. The size is checked and
shown but prices nothing: the OSDs cannot see an op's length. Pure; the test vectors in
src/qbox/testdata/throughput_vectors.txt hold the formula and the accepted rates that both the
broker and this file must agree on."""
import errno
import math
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Tuple, Union

from .refusal import Refusal

OPS = ("read", "write")
ACCESSES = ("seq", "rand")
# The default class: what the OSD library classes every op as today (it cannot see offsets,
# doc/dev/qbox-in-osd.md), and the dearer of the two, so an SLA stated without one over-reserves
# rather than under-reserves.
DEFAULT_ACCESS = "rand"
# No op moves more than one object holds: osd_max_object_size, 134217728 in Ceph 16.2.15
# (`ceph-conf -c /dev/null --show-config-value osd_max_object_size`, doc/dev/qbox-mgr.md).
MAX_SIZE = 134217728


@dataclass(frozen=True)
class Throughput:
    iops: float
    size: int
    op: str
    access: str

    def cost_class(self) -> str:
        """The key of the class in `qbox status`' costs."""
        return f"{self.access}_{self.op}"

    def describe(self) -> str:
        kind = "random" if self.access == "rand" else "sequential"
        return f"{self.iops:g} IOPS of {self.size}-byte {kind} {self.op}s"

    def to_dict(self) -> dict:
        return {"iops": self.iops, "size": self.size, "op": self.op, "access": self.access}


# Derivation.source: what priced an SLA.
CLIENT_PRICE = "client"
CLASS_ESTIMATE = "class"


@dataclass(frozen=True)
class Derivation:
    """The utilization an SLA became, and which OSD's price priced it: the client's own measured
    price for the operation (source CLIENT_PRICE, cost_class the operation) or the OSD's estimate of
    the class (CLASS_ESTIMATE, cost_class the class)."""
    utilization: float
    osd: int
    cost_class: str
    cost: float  # device seconds per op
    source: str = CLASS_ESTIMATE

    def price(self) -> str:
        if self.source == CLIENT_PRICE:
            return f"the client's measured {self.cost_class} price"
        return f"the {self.cost_class} estimate"

    def describe(self, throughput: Throughput) -> str:
        return (f"{throughput.iops:g} x {self.cost * 1000:.4g} ms ({self.price()} on osd.{self.osd}, the "
                f"dearest OSD) = {self.utilization:.4g}")


def parse_iops(text: str) -> Union[float, Refusal]:
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        return Refusal(-errno.EINVAL, f"iops is {text!r}; accepted: a number of operations per second greater "
                                      "than 0, such as 500")
    return value


def parse_throughput(iops: str, size: str, op: str, access: Optional[str]) -> Union[Throughput, Refusal]:
    rate = parse_iops(iops)
    if isinstance(rate, Refusal):
        return rate
    if not isinstance(size, str) or not size.isascii() or not size.isdigit() or not 1 <= int(size) <= MAX_SIZE:
        return Refusal(-errno.EINVAL, f"size is {size!r}; accepted: a whole number of bytes from 1 to {MAX_SIZE} "
                                      "(osd_max_object_size), such as 4096")
    if op not in OPS:
        return Refusal(-errno.EINVAL, f"op is {op!r}; accepted: {' or '.join(OPS)}")
    access = DEFAULT_ACCESS if access is None else access
    if access not in ACCESSES:
        return Refusal(-errno.EINVAL, f"access is {access!r}; accepted: {' or '.join(ACCESSES)} "
                                      f"(default {DEFAULT_ACCESS})")
    return Throughput(rate, int(size), op, access)


def utilization(iops: float, cost: float) -> float:
    """The broker's formula, the one the test vectors check."""
    return iops * cost


def _positive(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def _estimate(costs: Mapping[str, object], throughput: Throughput) -> Optional[Tuple[str, float]]:
    """The class and cost one OSD charges an op of this SLA. The OSD library charges a sequential op
    at the random estimate while it cannot tell the two apart (its seq costs stay null), so that is
    the cost a sequential SLA pays there; an OSD that estimates seq ops is taken at its word."""
    classes = [throughput.cost_class()] + (["rand_" + throughput.op] if throughput.access == "seq" else [])
    for klass in classes:
        cost = costs.get(klass)
        if _positive(cost):
            return klass, float(cost)
    return None


def derive(throughput: Throughput, costs_by_osd: Dict[int, Mapping[str, object]],
           prices_by_osd: Optional[Dict[int, Mapping[str, object]]] = None) -> Union[Derivation, Refusal]:
    """The utilization at the dearest OSD's cost: the table has one utilization per client for
    every OSD, and a client's ops may reach any OSD that is primary for one of its PGs, so it must
    get its rate on the OSD where an op costs most. prices_by_osd: the client's own mean measured
    price per operation on each OSD that reports one (`price` of its `qbox status` entry); where any
    OSD has one for the SLA's operation, the dearest of those prices it, since that is what the OSDs
    charge its ops; else the class estimates do. Refused (EAGAIN) while neither exists."""
    dearest = None
    for osd, prices in sorted((prices_by_osd or {}).items()):
        price = prices.get(throughput.op) if isinstance(prices, Mapping) else None
        if _positive(price) and (dearest is None or price > dearest[1]):
            dearest = (osd, float(price))
    if dearest is not None:
        osd, cost = dearest
        return Derivation(utilization(throughput.iops, cost), osd, throughput.op, cost, CLIENT_PRICE)
    for osd, costs in sorted(costs_by_osd.items()):
        found = _estimate(costs, throughput)
        if found is not None and (dearest is None or found[1] > dearest[2]):
            dearest = (osd, *found)
    if dearest is None:
        where = ", ".join(f"osd.{osd}" for osd in sorted(costs_by_osd)) or "none answered as active"
        return Refusal(-errno.EAGAIN, f"no OSD has estimated the cost of a {throughput.cost_class()} op yet (OSDs "
                                      f"scheduling with QBox: {where}); retry once they have served such ops (a "
                                      "short `rados bench` does it), or reserve a utilization with `ceph qbox set "
                                      "<client> <utilization>`")
    osd, klass, cost = dearest
    return Derivation(utilization(throughput.iops, cost), osd, klass, cost)
