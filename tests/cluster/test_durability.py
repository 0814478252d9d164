"""No acknowledged write is lost when OSDs are killed with SIGKILL under a write load."""
import time

import pytest

# The acked-writes workunit's own workload (qa/workunits/erails), which teuthology runs too.
from ack_workload import AckWorkload, verify_acked


# How long the pool may take to serve writes again once an OSD is down (peering), on a loaded machine.
DEGRADED_WRITE_TIMEOUT_SECONDS = 120


def kill_and_restart(cluster, workload, osd, down_seconds):
    """SIGKILLs `osd`, keeps it down at least `down_seconds` while writes go on, and until a write
    was acknowledged while it was down (the pool keeps serving degraded), then restarts it."""
    cluster.kill_osd(osd)
    cluster.wait_osd(osd, up=False)
    down_at = time.monotonic()
    time.sleep(down_seconds)
    deadline = down_at + DEGRADED_WRITE_TIMEOUT_SECONDS
    while not workload.acks_between(down_at, time.monotonic()):
        assert time.monotonic() < deadline, \
            f"no write was acknowledged in the {DEGRADED_WRITE_TIMEOUT_SECONDS} s osd.{osd} was down"
        time.sleep(0.5)
    cluster.start_osd(osd)
    cluster.wait_osd(osd, up=True)


def run_durability(cluster, pool, victims, phase_seconds, max_size):
    workload = AckWorkload(cluster.rados, pool, max_size=max_size).start()
    try:
        time.sleep(phase_seconds)
        for osd in victims:
            kill_and_restart(cluster, workload, osd, phase_seconds)
            time.sleep(phase_seconds)
    finally:
        workload.stop()
    assert len(workload.acked) > 0, "the workload never got an acknowledgement"

    cluster.wait_healthy(timeout=300)
    wrong = verify_acked(cluster.rados, pool, workload.acked)
    assert not wrong, f"{len(wrong)} of {len(workload.acked)} acknowledged objects lost or " \
                      f"corrupted, e.g. {wrong[:5]}"


def test_acked_writes_survive_two_osd_kills(cluster, codec, ec_pool, full):
    pool = ec_pool(codec, 4, 2)
    # Two different OSDs, so recovery of the first is exercised while the second goes down later.
    victims = cluster.acting_osds(pool, "probe")[:2]
    run_durability(cluster, pool, victims, phase_seconds=10 if full else 3,
                   max_size=4 << 20 if full else 256 << 10)


@pytest.mark.full
def test_acked_writes_survive_killing_the_same_osd_twice(cluster, codec, ec_pool):
    pool = ec_pool(codec, 2, 1)
    osd = cluster.acting_osds(pool, "probe")[0]
    run_durability(cluster, pool, [osd, osd], phase_seconds=10, max_size=1 << 20)
