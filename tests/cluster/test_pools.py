"""Erasure-coded pools on real OSDs: objects of every awkward size come back byte for byte through
the rados tool, and stay readable with one and with m OSDs down."""
import hashlib
import random

import pytest

from ceph_cluster import CephCommandError
from conftest import codec_profile, require_codec

MiB = 1 << 20
# Around page and stripe boundaries, and objects spanning several rados tool ops (4 MiB each).
SIZES = [1, 4095, 4096, 4097, 65537, MiB + 3, 5 * MiB + 1]
FULL_SIZES = SIZES + [3 * 4096 * 7 + 1, 9 * MiB, 17 * MiB + 5]

SHAPES = [(2, 1), (4, 2)]
FULL_SHAPES = [(2, 2), (3, 2), (3, 3), (5, 1)]


def payload(seed, size):
    return random.Random(seed).randbytes(size)


def round_trip(cluster, pool, sizes, tmp_path):
    for size in sizes:
        data = payload(f"{pool}/{size}", size)
        src, dst = tmp_path / f"in-{size}", tmp_path / f"out-{size}"
        src.write_bytes(data)
        cluster.cli("rados", "-p", pool, "put", f"obj-{size}", str(src))
        cluster.cli("rados", "-p", pool, "get", f"obj-{size}", str(dst))
        back = dst.read_bytes()
        assert len(back) == size, f"{size}-byte object read back as {len(back)} bytes"
        assert back == data, f"{size}-byte object differs after a round trip"


@pytest.mark.parametrize("k,m", SHAPES, ids=[f"k{k}m{m}" for k, m in SHAPES])
def test_round_trip(cluster, codec, ec_pool, k, m, tmp_path, full):
    pool = ec_pool(codec, k, m)
    round_trip(cluster, pool, FULL_SIZES if full else SIZES, tmp_path)


@pytest.mark.full
@pytest.mark.parametrize("k,m", FULL_SHAPES, ids=[f"k{k}m{m}" for k, m in FULL_SHAPES])
def test_round_trip_more_shapes(cluster, codec, ec_pool, k, m, tmp_path):
    round_trip(cluster, ec_pool(codec, k, m), FULL_SIZES, tmp_path)


def test_erails_k1_stores_full_copies(cluster, ec_pool, tmp_path):
    """k=1 is erails' replication mode (doc/dev/design.md): Ceph 16.2 accepts it as an EC pool of
    m+1 shards, each a full copy."""
    require_codec(cluster, "erails")
    pool = ec_pool("erails", 1, 2)
    assert cluster.pool_get(pool, "size") == 3
    round_trip(cluster, pool, SIZES, tmp_path)


def test_jerasure_refuses_k1(cluster):
    """The stock plugin, not Ceph, is what refuses k=1; recorded here as the contrast to erails."""
    with pytest.raises(CephCommandError) as refused:
        cluster.set_profile("jk1", codec_profile("jerasure", 1, 2))
    assert "k=1 must be >= 2" in refused.value.message


def write_objects(cluster, pool, count, max_size):
    """Writes `count` objects of varied sizes; returns {name: sha256 hex}."""
    written = {}
    with cluster.rados.open_ioctx(pool) as ioctx:
        for i in range(count):
            size = 1 + (i * 97_531) % max_size
            data = payload(f"{pool}/d{i}", size)
            ioctx.write_full(f"d{i}", data)
            written[f"d{i}"] = hashlib.sha256(data).hexdigest()
    return written


def assert_readable(cluster, pool, written, situation):
    with cluster.rados.open_ioctx(pool) as ioctx:
        for name, digest in written.items():
            size, _ = ioctx.stat(name)
            data = ioctx.read(name, length=size)
            assert hashlib.sha256(data).hexdigest() == digest, f"{name} wrong {situation}"


def degraded_reads(cluster, pool, k, m):
    written = write_objects(cluster, pool, count=24, max_size=3 * MiB)
    # Every PG of a k+m = #OSDs pool spans all OSDs; for smaller pools, take the shards of one
    # object so that at least that object loses m of them.
    victims = [o for o in cluster.acting_osds(pool, "d0") if o >= 0][:m]
    min_size = cluster.pool_get(pool, "min_size")
    stopped = []
    try:
        cluster.kill_osd(victims[0])
        stopped.append(victims[0])
        cluster.wait_osd(victims[0], up=False)
        assert_readable(cluster, pool, written, "with one OSD down")

        # With more than size - min_size shards gone the PGs stop serving I/O; k shards are
        # enough to decode, so min_size = k keeps them active.
        cluster.pool_set(pool, "min_size", k)
        for osd in victims[1:]:
            cluster.kill_osd(osd)
            stopped.append(osd)
            cluster.wait_osd(osd, up=False)
        assert_readable(cluster, pool, written, f"with m={m} OSDs down")
    finally:
        for osd in stopped:
            cluster.start_osd(osd)
        cluster.pool_set(pool, "min_size", min_size)
        cluster.wait_healthy()
    assert_readable(cluster, pool, written, "after the OSDs came back")


def test_reads_with_one_and_m_osds_down(cluster, codec, ec_pool):
    pool = ec_pool(codec, 4, 2)
    degraded_reads(cluster, pool, 4, 2)


@pytest.mark.full
@pytest.mark.parametrize("k,m", [(3, 3), (2, 2)], ids=["k3m3", "k2m2"])
def test_reads_with_osds_down_more_shapes(cluster, codec, ec_pool, k, m):
    degraded_reads(cluster, ec_pool(codec, k, m), k, m)


@pytest.mark.full
def test_erails_k1_reads_with_m_copies_down(cluster, ec_pool):
    require_codec(cluster, "erails")
    degraded_reads(cluster, ec_pool("erails", 1, 2), 1, 2)
