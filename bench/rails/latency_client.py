"""A write load that records every operation's latency, which `rados bench` does not print:
whole-object writes of one size, a fixed number in flight, for a bounded time."""
import math
import os
import threading
import time
from dataclasses import dataclass
from typing import List, Optional


@dataclass(frozen=True)
class WriteOp:
    started: float
    latency: float
    ok: bool


def run_writes(ioctx, seconds: float, size: int, in_flight: int, prefix: str) -> List[WriteOp]:
    """Writes objects prefix-0, prefix-1, ... for `seconds`, keeping `in_flight` outstanding, and
    waits for the last ones. Each op's data differs (its first bytes are its name)."""
    slots = threading.Semaphore(in_flight)
    done: List[WriteOp] = []
    lock = threading.Lock()
    body = os.urandom(size)
    end = time.time() + seconds
    issued = 0

    def finished(started: float):
        def callback(completion):
            op = WriteOp(started, time.time() - started, completion.get_return_value() >= 0)
            with lock:
                done.append(op)
            slots.release()
        return callback

    while time.time() < end:
        slots.acquire()
        name = f"{prefix}-{issued}"
        data = name.encode() + body[len(name):]
        ioctx.aio_write_full(name, data, oncomplete=finished(time.time()))
        issued += 1
    for _ in range(in_flight):
        slots.acquire()
    return sorted(done, key=lambda op: op.started)


def percentile(values: List[float], fraction: float) -> Optional[float]:
    """The nearest-rank percentile (the smallest value with at least `fraction` of all at or
    below it); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]
