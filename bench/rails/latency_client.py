"""Loads that record every operation's latency, which `rados bench` does not print: whole-object
writes (of one size, or of sizes drawn from a list) and small random reads, a fixed number in
flight, for a bounded time."""
import math
import os
import random
import threading
import time
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence


@dataclass(frozen=True)
class Op:
    started: float
    latency: float
    ok: bool
    size: int


def run_closed_loop(issue: Callable[[int, Callable[[int], Callable]], None], seconds: float,
                    in_flight: int) -> List[Op]:
    """Calls issue(i, callback_for) for i = 0, 1, ... for `seconds`, keeping `in_flight`
    operations outstanding, and waits for the last ones. issue starts the i-th librados aio
    operation of `size` bytes with callback_for(size) as its completion callback; a callback
    given ok=False as a keyword records the operation as failed whatever librados returned."""
    slots = threading.Semaphore(in_flight)
    done: List[Op] = []
    lock = threading.Lock()
    end = time.time() + seconds
    issued = 0

    def callback_for(started: float):
        def sized(size: int):
            def callback(completion, *_data, ok: bool = True):
                op = Op(started, time.time() - started, ok and completion.get_return_value() >= 0, size)
                with lock:
                    done.append(op)
                slots.release()
            return callback
        return sized

    while time.time() < end:
        slots.acquire()
        issue(issued, callback_for(time.time()))
        issued += 1
    for _ in range(in_flight):
        slots.acquire()
    return sorted(done, key=lambda op: op.started)


def run_writes(ioctx, seconds: float, size: int, in_flight: int, prefix: str,
               sizes: Optional[Sequence[int]] = None, objects: Optional[int] = None,
               seed: int = 1) -> List[Op]:
    """Writes objects prefix-0, prefix-1, ... (whole objects, `size` bytes, or a size drawn from
    `sizes` per write) for `seconds`, keeping `in_flight` outstanding, and waits for the last
    ones. With `objects`, names wrap around so that the pool's footprint stays bounded. Each op's
    data differs (its first bytes are its name)."""
    body = os.urandom(max(sizes or [size]))
    rng = random.Random(seed)

    def issue(i: int, callback_for) -> None:
        name = f"{prefix}-{i % objects if objects else i}"
        length = rng.choice(sizes) if sizes else size
        ioctx.aio_write_full(name, name.encode() + body[len(name):length], oncomplete=callback_for(length))
    return run_closed_loop(issue, seconds, in_flight)


def run_reads(ioctx, seconds: float, names: Sequence[str], object_size: int, read_size: int, in_flight: int,
              seed: int = 1) -> List[Op]:
    """Reads `read_size` bytes at a random read_size-aligned offset of a random object of `names`
    (each `object_size` bytes) for `seconds`, keeping `in_flight` outstanding. A read that
    returns fewer bytes than asked counts as failed."""
    rng = random.Random(seed)
    blocks = object_size // read_size

    def issue(i: int, callback_for) -> None:
        recorded = callback_for(read_size)

        def checked(completion, data):
            recorded(completion, ok=data is not None and len(data) == read_size)
        ioctx.aio_read(rng.choice(names), read_size, rng.randrange(blocks) * read_size, oncomplete=checked)
    return run_closed_loop(issue, seconds, in_flight)


def percentile(values: List[float], fraction: float) -> Optional[float]:
    """The nearest-rank percentile (the smallest value with at least `fraction` of all at or
    below it); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]
