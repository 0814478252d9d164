from rails.devices import device_problem, device_problems

# Trimmed from `ceph osd metadata 0` on the local cluster (separate WAL and DB files).
SEPARATE = {"osd_objectstore": "bluestore", "bluefs_dedicated_wal": "1", "bluefs_dedicated_db": "1",
            "bluefs_single_shared_device": "0"}


def test_bluestore_with_dedicated_wal_and_db_can_hold():
    assert device_problem(SEPARATE) is None


def test_a_shared_wal_or_db_is_reported_by_name():
    assert "no dedicated WAL device" in device_problem(dict(SEPARATE, bluefs_dedicated_wal="0"))
    both = device_problem(dict(SEPARATE, bluefs_dedicated_wal="0", bluefs_dedicated_db="0"))
    assert "no dedicated WAL or DB device" in both


def test_other_stores_and_missing_metadata_are_reported():
    assert "'memstore'" in device_problem({"osd_objectstore": "memstore"})
    assert "no metadata" in device_problem(None)
    assert "no metadata" in device_problem({})


def test_problems_are_named_per_osd():
    found = device_problems([2, 0, 1], {0: SEPARATE, 1: dict(SEPARATE, bluefs_dedicated_db="0")})
    assert found == {1: "osd.1 has no dedicated DB device, so held writes still reach its data device",
                     2: "osd.2 has reported no metadata yet"}
