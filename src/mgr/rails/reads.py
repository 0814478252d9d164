"""Reads that must mix in write-phase shards, derived from the PG map.

The plugin reads a PG from its read-phase shards; when fewer than k of them are in the acting set
(an OSD down), it decodes from the fewest write-phase shards it must. The plugin runs inside the
OSD and cannot report through Ceph, so the module derives the same from what the mgr has: shard i
is read-phase when color i is, and a shard is missing when the acting set has no OSD in its place.
Client reads are counted from each PG's `stat_sum.num_read`. Pure: the module passes `pg_stats`
and the time.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .topology import RailsPool, Topology

# What an acting set holds in the place of a shard with no OSD (CRUSH_ITEM_NONE).
NO_OSD = 2147483647


@dataclass(frozen=True)
class PgReads:
    pgid: str
    pool_id: int
    acting: Tuple[int, ...]
    num_read: int


def pg_reads(pg_stats: dict) -> List[PgReads]:
    """The PGs of a `pg_stats` document (as `ceph pg dump pgs -f json` prints it); PGs with a
    malformed entry are left out."""
    found = []
    for entry in pg_stats.get("pg_stats", []):
        try:
            pgid = str(entry["pgid"])
            found.append(PgReads(pgid, int(pgid.split(".", 1)[0]), tuple(int(o) for o in entry["acting"]),
                                 int(entry["stat_sum"]["num_read"])))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
    return found


def read_shards_present(pool: RailsPool, acting: Tuple[int, ...], frame: int) -> int:
    read_set = pool.schedule.read_set_of_frame(frame)
    return sum(1 for shard, osd in enumerate(acting) if osd != NO_OSD and read_set >> shard & 1)


def mixes(pool: RailsPool, acting: Tuple[int, ...], t: float) -> bool:
    """Whether a read of this PG at `t` needs a write-phase shard."""
    return read_shards_present(pool, acting, pool.schedule.frame(t)) < pool.data_shards


def could_mix(pool: RailsPool, acting: Tuple[int, ...], start: float, end: float) -> bool:
    """Whether a read of this PG anywhere in [start, end] may have needed a write-phase shard,
    taking the acting set as it is now. The read sets repeat every k+m frames, so at most that
    many frames are looked at."""
    schedule = pool.schedule
    first, last = schedule.frame(start), schedule.frame(end)
    last = min(last, first + schedule.params.colors - 1)
    return any(read_shards_present(pool, acting, frame) < pool.data_shards for frame in range(first, last + 1))


class MixedReads:
    """Per pool: the PGs that mix at a given time (from the acting sets of the last sample), and
    client reads on PGs that may have mixed since the module started (an upper bound: a PG's
    reads over a sampling interval all count when it may have mixed at some instant of it)."""

    def __init__(self) -> None:
        self._pgs: List[PgReads] = []
        self._sampled_at: Optional[float] = None
        self._reads: Dict[str, int] = {}

    def update(self, topology: Topology, pgs: List[PgReads], now: float) -> None:
        pools = {pool.pool_id: pool for pool in topology.pools}
        previous = {pg.pgid: pg.num_read for pg in self._pgs}
        for pg in pgs:
            pool = pools.get(pg.pool_id)
            before = previous.get(pg.pgid)
            # A lower count is a PG whose stats were reset (moved, recreated): nothing to add.
            if pool is None or before is None or self._sampled_at is None or pg.num_read < before:
                continue
            if could_mix(pool, pg.acting, self._sampled_at, now):
                self._reads[pool.name] = self._reads.get(pool.name, 0) + pg.num_read - before
        self._pgs = list(pgs)
        self._sampled_at = now

    def mixing(self, topology: Topology, now: float) -> Dict[str, List[str]]:
        """pool name -> PGs whose reads need a write-phase shard at `now`, by the acting sets of
        the last update."""
        pools = {pool.pool_id: pool for pool in topology.pools}
        found: Dict[str, List[str]] = {}
        for pg in self._pgs:
            pool = pools.get(pg.pool_id)
            if pool is not None and mixes(pool, pg.acting, now):
                found.setdefault(pool.name, []).append(pg.pgid)
        return {name: sorted(pgids) for name, pgids in found.items()}

    def reads(self, pool: str) -> int:
        """Client reads counted on PGs of `pool` that may have mixed, since the module started."""
        return self._reads.get(pool, 0)
