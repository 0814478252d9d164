"""A Rails pool's ordered CRUSH rule on a real monitor: with one color per shard, shard i of every
PG lands on color i, and objects round-trip. The rule is built with CRUSH's C builder, whose form
differs between Ceph builds (src/ceph_abi/builds/), so this runs on each build; the Rails schedule
itself is the mgr module's tests'."""
import pytest

from conftest import require_codec
from test_pools import round_trip

K, M = 4, 2


@pytest.fixture
def colors(cluster):
    """Each OSD's host in a rack of its own, the colors; moved back to the root afterwards."""
    if cluster.osds != K + M:
        pytest.skip(f"needs {K + M} OSDs, one per color; the cluster has {cluster.osds}")
    names = [f"color{osd}" for osd in range(cluster.osds)]
    for osd, color in enumerate(names):
        cluster.cli("ceph", "osd", "crush", "add-bucket", color, "rack")
        cluster.cli("ceph", "osd", "crush", "move", color, "root=default")
        cluster.cli("ceph", "osd", "crush", "move", f"host-{osd}", f"rack={color}")
    yield names
    # The rules of the deleted Rails pools still take the colors, and a bucket in use stays.
    for rule in cluster.command("osd crush rule ls"):
        if any(color in str(cluster.command("osd crush rule dump", name=rule)) for color in names):
            cluster.cli("ceph", "osd", "crush", "rule", "rm", rule)
    for osd, color in enumerate(names):
        cluster.cli("ceph", "osd", "crush", "move", f"host-{osd}", "root=default")
        cluster.cli("ceph", "osd", "crush", "remove", color)
    cluster.wait_healthy()


def test_shard_i_of_every_pg_is_on_color_i(cluster, colors, ec_pool, tmp_path):
    require_codec(cluster, "erails")
    pool = ec_pool("erails", K, M, pg_num=16, **{"crush-colors": ",".join(colors)})
    pool_id = cluster.command("osd pool get", pool=pool, var="size")["pool_id"]
    dump = cluster.command("pg dump", dumpcontents=["pgs_brief"])
    acting = [pg["acting"] for pg in dump["pg_stats"] if pg["pgid"].startswith(f"{pool_id}.")]
    assert len(acting) == 16, dump
    # Color i holds osd.i alone.
    assert all(osds == list(range(K + M)) for osds in acting), acting
    round_trip(cluster, pool, [1, 4097, (1 << 20) + 3], tmp_path)
    assert cluster.acting_osds(pool, "obj-4097") == list(range(K + M))
