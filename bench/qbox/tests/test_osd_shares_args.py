"""osd_shares.py refuses bad arguments before it starts anything, naming the option."""
import argparse
import fcntl
import os
from pathlib import Path

import pytest

import osd_shares


@pytest.mark.parametrize("argv, message", [
    (["--bluestore-throttle", "0"], "--bluestore-throttle: got 0; expected bytes >= 1"),
    (["--bluestore-throttle", "-5"], "--bluestore-throttle: got -5"),
    (["--pool-size", "3"], "--pool-size: invalid choice"),
    (["--pool-size", "1", "--recovery"], "--recovery: a pool of size 1 has nothing to recover from"),
    (["--op-shards", "0", "--shard-threads", "2"], "--op-shards: got 0"),
    (["--figures", "3.3"], "--figures: '3.3' is not one of"),
    (["--schedulers", "wpq"], "--schedulers: 'wpq' must start with qbox"),
    (["--table-to-osds", "--recovery"], "--table-to-osds: not with --recovery"),
    (["--objects", "0"], "--objects: got 0; expected a whole number from 1 to 256"),
    (["--objects", "257"], "--objects: got 257"),
    (["--depth", "0"], "--depth: got 0; expected a whole number from 1 to 256"),
    (["--depth", "257"], "--depth: got 257"),
])
def test_bad_arguments_are_refused_with_the_option_named(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("CEPH_ARGS", raising=False)  # restored afterwards, whatever main() sets
    (tmp_path / "libec_qbox.so").touch()
    with pytest.raises(SystemExit) as exit_info:
        osd_shares.main(["--plugin-dir", str(tmp_path), "--device", "ssd", "--out", str(tmp_path)] + argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_plugin_dir_without_the_library_is_refused(capsys, tmp_path):
    with pytest.raises(SystemExit):
        osd_shares.main(["--plugin-dir", str(tmp_path), "--device", "ssd"])
    assert f"--plugin-dir: no libec_qbox.so in '{tmp_path}'" in capsys.readouterr().err


def test_a_cluster_dir_another_run_holds_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("CEPH_ARGS", raising=False)
    (tmp_path / "libec_qbox.so").touch()
    cluster_dir = tmp_path / "cluster"
    with open(f"{cluster_dir}.lock", "w") as other_run:
        fcntl.flock(other_run, fcntl.LOCK_EX)
        other_run.write("4242\n")
        other_run.flush()
        with pytest.raises(SystemExit) as exit_info:
            osd_shares.main(["--plugin-dir", str(tmp_path), "--device", "ssd", "--out", str(tmp_path),
                             "--dir", str(cluster_dir)])
    assert exit_info.value.code == 2
    assert f"--dir: '{cluster_dir}' is in use by another run (pid 4242)" in capsys.readouterr().err


def test_a_cluster_dir_is_free_again_once_its_run_let_go(tmp_path):
    cluster_dir = tmp_path / "cluster"
    osd_shares.claim_cluster_dir(argparse.ArgumentParser(), cluster_dir).close()
    held = osd_shares.claim_cluster_dir(argparse.ArgumentParser(), cluster_dir)
    assert Path(f"{cluster_dir}.lock").read_text() == f"{os.getpid()}\n"
    held.close()
