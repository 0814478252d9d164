"""Mixed reads on the 4-color layout of maps.py (k=2, m=2, frame 6 s, 2 readers): frame f reads
colors f%4 and (f+1)%4."""
from maps import FOUR_COLORS, crush_map, osd_map, rails_profile
from rails.reads import NO_OSD, MixedReads, PgReads, could_mix, mixes, pg_reads
from rails.topology import build_topology


def topology():
    profiles = {"rp": rails_profile(list(FOUR_COLORS), rails_frame="6")}
    return build_topology(osd_map(profiles, {"rpool": "rp", "other": ""}, [0, 1, 2, 3]), crush_map(FOUR_COLORS))


def test_pg_stats_entries_are_read_and_malformed_ones_left_out():
    stats = {"pg_stats": [
        {"pgid": "1.7", "acting": [0, 1, 2, 3], "stat_sum": {"num_read": 12}},
        {"pgid": "1.8", "acting": [0, NO_OSD, 2, 3], "stat_sum": {"num_read": "4"}},
        {"pgid": "x.1", "acting": [0], "stat_sum": {"num_read": 1}},
        {"pgid": "1.9", "acting": [0, 1], "stat_sum": {}},
        {"pgid": "1.10", "acting": None, "stat_sum": {"num_read": 1}},
        "junk"]}
    assert pg_reads(stats) == [PgReads("1.7", 1, (0, 1, 2, 3), 12), PgReads("1.8", 1, (0, NO_OSD, 2, 3), 4)]
    assert pg_reads({}) == []


def test_a_pg_mixes_while_fewer_than_k_read_phase_shards_are_present():
    pool = topology().pools[0]
    assert pool.data_shards == 2
    missing_shard_1 = (0, NO_OSD, 2, 3)
    assert mixes(pool, missing_shard_1, 1.0)        # frame 0 reads shards 0, 1
    assert mixes(pool, missing_shard_1, 7.0)        # frame 1 reads shards 1, 2
    assert not mixes(pool, missing_shard_1, 13.0)   # frame 2 reads shards 2, 3
    assert not mixes(pool, (0, 1, 2, 3), 1.0)
    assert not could_mix(pool, missing_shard_1, 13.0, 17.9)
    assert could_mix(pool, missing_shard_1, 13.0, 24.0)   # reaches frame 4, which reads 0, 1
    assert could_mix(pool, missing_shard_1, 13.0, 1e6)


def test_reads_count_only_on_pgs_that_may_have_mixed_and_only_rails_pools():
    topo = topology()
    mixed = MixedReads()
    pgs = [PgReads("1.0", 1, (0, NO_OSD, 2, 3), 100), PgReads("1.1", 1, (0, 1, 2, 3), 100),
           PgReads("2.0", 2, (0, NO_OSD), 100)]
    mixed.update(topo, pgs, 13.0)
    assert mixed.mixing(topo, 13.0) == {} and mixed.reads("rpool") == 0
    grown = [PgReads(pg.pgid, pg.pool_id, pg.acting, pg.num_read + 10) for pg in pgs]
    mixed.update(topo, grown, 17.0)
    assert mixed.reads("rpool") == 0                 # frame 2 only: shards 2, 3 were there
    mixed.update(topo, [PgReads(pg.pgid, pg.pool_id, pg.acting, pg.num_read + 25) for pg in pgs], 25.0)
    assert mixed.reads("rpool") == 15 and mixed.mixing(topo, 25.0) == {"rpool": ["1.0"]}
    # Mixing follows the schedule between samples: frame 5 reads shards 1, 2, frame 6 shards 2, 3.
    assert mixed.mixing(topo, 31.0) == {"rpool": ["1.0"]} and mixed.mixing(topo, 37.0) == {}
    # A PG whose count went down (stats reset) adds nothing and starts over from its new count.
    mixed.update(topo, [PgReads("1.0", 1, (0, NO_OSD, 2, 3), 3)], 26.0)
    mixed.update(topo, [PgReads("1.0", 1, (0, NO_OSD, 2, 3), 5)], 27.0)
    assert mixed.reads("rpool") == 17
    assert mixed.reads("other") == 0
