"""A throughput SLA (`ceph qbox set-throughput`): so many ops per second of one size and class,
and its conversion into a utilization the way the broker does it (src/qbox/broker.h,
utilization_for): u = iops x the cost in device seconds per op. A write's cost is the OSDs' fitted
write price for the SLA's size (`write_price` in `qbox status`: per op plus per byte, what the OSDs
charge a write of that length). A read's is the client's own mean measured read price where an OSD
reports one (the OSDs charge each read what it measured, so an SLA for reads larger than typical
must be priced at what its reads cost); its size prices nothing, since an OSD cannot see a read's
length, and the answer says so. Else the class cost the OSDs' QBox estimates, not a device
profile's worst case. Pure; the test vectors in
src/qbox/testdata/throughput_vectors.txt hold the formula and the accepted rates that both the
broker and this file must agree on, and src/qbox/testdata/write_price_vectors.txt the price of a
write for its length that the OSDs and this file must agree on."""
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
WRITE_PRICE = "write_price"
MiB = 1048576


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
        if self.source == WRITE_PRICE:
            return "the fitted write price of a write that size"
        if self.source == CLIENT_PRICE:
            return f"the client's measured {self.cost_class} price"
        return f"the {self.cost_class} estimate"

    def describe(self, throughput: Throughput) -> str:
        text = (f"{throughput.iops:g} x {self.cost * 1000:.4g} ms ({self.price()} on osd.{self.osd}, the "
                f"dearest OSD) = {self.utilization:.4g}")
        if throughput.op == "read":
            text += " (the size prices nothing: an OSD cannot see a read's length)"
        return text


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


def fitted_write_cost(write_price: object, size: int) -> Optional[float]:
    """What an OSD charges a write of `size` bytes, from its `write_price`; None until it has fitted
    one (its prior is dear on purpose and would over-reserve). A write shorter than the price's
    `shortest_write` is charged per byte at that length's price, as the OSD does."""
    if not isinstance(write_price, Mapping) or write_price.get("method") != "residual":
        return None
    per_op, per_mib = write_price.get("per_op"), write_price.get("per_mib")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
               for v in (per_op, per_mib)):
        return None
    shortest = write_price.get("shortest_write")
    if isinstance(shortest, int) and not isinstance(shortest, bool) and size < shortest:
        cost = (float(per_op) + float(per_mib) * shortest / MiB) * size / shortest
    else:
        cost = float(per_op) + float(per_mib) * size / MiB
    return cost if cost > 0 else None


def derive(throughput: Throughput, costs_by_osd: Dict[int, Mapping[str, object]],
           prices_by_osd: Optional[Dict[int, Mapping[str, object]]] = None,
           write_prices_by_osd: Optional[Dict[int, Mapping[str, object]]] = None) -> Union[Derivation, Refusal]:
    """The utilization at the dearest OSD's cost: the table has one utilization per client for
    every OSD, and a client's ops may reach any OSD that is primary for one of its PGs, so it must
    get its rate on the OSD where an op costs most. A write SLA is priced at the OSDs' fitted write
    prices for its size (write_prices_by_osd: `write_price` of each OSD's `qbox status`) where any
    OSD has fitted one. prices_by_osd: the client's own mean price per operation on each OSD that
    reports one (`price` of its `qbox status` entry); where any OSD has one for the SLA's operation,
    the dearest of those prices it, since that is what the OSDs charge its ops; else the class
    estimates do. Refused (EAGAIN) while none exists."""
    dearest = None
    if throughput.op == "write":
        for osd, write_price in sorted((write_prices_by_osd or {}).items()):
            cost = fitted_write_cost(write_price, throughput.size)
            if cost is not None and (dearest is None or cost > dearest[1]):
                dearest = (osd, cost)
        if dearest is not None:
            osd, cost = dearest
            return Derivation(utilization(throughput.iops, cost), osd, throughput.op, cost, WRITE_PRICE)
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
