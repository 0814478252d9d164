"""osd_shares.py refuses bad arguments before it starts anything, naming the option."""
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
