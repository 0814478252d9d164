"""The cluster and bench scripts refuse bad input with a message naming the option and what it
accepts, before touching anything. No cluster needed."""
import socket
import subprocess
from pathlib import Path

import pytest

import compare_profiles

REPO = Path(__file__).resolve().parents[2]
START = REPO / "vstart-configs" / "start.sh"


@pytest.mark.parametrize("args,named", [
    (["--osds", "0"], "--osds must be 1..32"),
    (["--osds", "x"], "--osds must be 1..32"),
    (["--port-base", "80"], "--port-base must be 1024..65000"),
    (["--block-size", "4T"], "--block-size must look like 4G or 512M"),
    (["--plugin-dir", "/nonexistent"], "--plugin-dir '/nonexistent' is not a directory"),
    (["--timeout", "soon"], "--timeout must be seconds"),
    (["--bogus"], "unknown argument '--bogus'"),
    (["--emulate-ssd=/nonexistent.conf"], "--emulate-ssd: no model file '/nonexistent.conf'"),
    (["--emulate-time-scale", "fast"], "--emulate-time-scale must be a number > 0"),
    (["--emulator-lib", "/nonexistent.so"], "--emulator-lib: no file '/nonexistent.so'"),
])
def test_start_refuses_bad_arguments(tmp_path, args, named):
    done = subprocess.run([str(START), "--dir", str(tmp_path / "c")] + args,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert named in done.stderr
    assert not (tmp_path / "c" / "cluster.params").exists()


def test_start_refuses_a_port_range_in_use(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([str(START), "--dir", str(tmp_path / "c"), "--port-base", str(port)],
                              capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert f"ports in use in {port}.." in done.stderr


def test_start_refuses_loop_data_on_a_cluster_created_without_it(tmp_path):
    cluster = tmp_path / "c"
    cluster.mkdir()
    params = "fsid=00000000-0000-0000-0000-000000000000\nosds=1\nport_base=17990\nplugin_dir=\nblock_size=1G\n"
    (cluster / "cluster.params").write_text(params)
    done = subprocess.run([str(START), "--dir", str(cluster), "--loop-data"], capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert "--loop-data: the cluster in" in done.stderr and "created without it" in done.stderr
    assert (cluster / "cluster.params").read_text() == params


@pytest.mark.parametrize("args,named", [
    (["--seconds", "0"], "--seconds must be 1..120, got '0'"),
    (["--rails-seconds", "5"], "--rails-seconds must be 10..600, got '5'"),
    (["--latency-seconds", "9"], "--latency-seconds must be 10..600, got '9'"),
    (["--latency-seconds", "half"], "--latency-seconds must be 10..600, got 'half'"),
    (["--plugin-dir", "/nonexistent"], "no libec_erails.so in /nonexistent"),
])
def test_demo_refuses_bad_arguments(tmp_path, args, named):
    done = subprocess.run([str(REPO / "vstart-configs" / "demo.sh"), "--dir", str(tmp_path / "c")] + args,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert named in done.stderr
    assert not (tmp_path / "c").exists()


def test_demo_latency_helper_needs_an_emulated_cluster(tmp_path):
    done = subprocess.run(["/usr/bin/python3", str(REPO / "vstart-configs" / "rails_latency.py"), "--conf", "c",
                           "--cluster-dir", str(tmp_path), "--pool", "p", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=30,
                          env={"PYTHONPATH": f"{REPO}/bench/rails:{REPO}/src/mgr"})
    assert done.returncode != 0
    assert f"--cluster-dir {tmp_path}: no emulator/model.conf" in done.stderr


@pytest.mark.parametrize("script", ["stop.sh", "status.sh"])
def test_stop_and_status_need_a_cluster(tmp_path, script):
    done = subprocess.run([str(REPO / "vstart-configs" / script), "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert f"no cluster in {tmp_path}" in done.stderr


@pytest.mark.parametrize("text,named", [
    ("plugin=erails k=4", "lacks 'm='"),
    ("plugin=erails k=4 m", "'m' is not key=value"),
    ("k=4 m=2", "lacks 'plugin='"),
])
def test_bench_refuses_bad_profiles(text, named):
    with pytest.raises(ValueError, match=named):
        compare_profiles.parse_profile(text)


def test_bench_parses_rados_bench_summaries():
    out = "Total time run: 10.1\nBandwidth (MB/sec):     140.28\nAverage IOPS:           35\n" \
          "Average Latency(s):     0.4538\n"
    assert compare_profiles.parse_summary(out, "write") == \
        {"mb_per_s": 140.28, "iops": 35.0, "latency_s": 0.4538}
    with pytest.raises(RuntimeError, match="no 'iops' summary"):
        compare_profiles.parse_summary("Bandwidth (MB/sec): 1\n", "seq")


@pytest.mark.parametrize("args,named", [
    ([], "no module name"),
    (["rails", "qbox"], "one module name, got 'rails' and 'qbox'"),
    (["--bogus", "rails"], "unknown option --bogus"),
    (["nosuch"], "no mgr module 'nosuch'"),
    (["tests"], "no mgr module 'tests'"),
])
def test_enable_module_refuses_bad_arguments(tmp_path, args, named):
    done = subprocess.run([str(REPO / "vstart-configs" / "enable_module.sh"), "--dir", str(tmp_path)] + args,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert named in done.stderr
    assert not (tmp_path / "mgr-modules").exists()


def test_enable_module_needs_a_cluster_with_its_mgr(tmp_path):
    script = str(REPO / "vstart-configs" / "enable_module.sh")
    done = subprocess.run([script, "--dir", str(tmp_path), "rails"], capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert f"no cluster in {tmp_path}" in done.stderr
    (tmp_path / "cluster.params").write_text("osds=1\n")
    done = subprocess.run([script, "--dir", str(tmp_path), "rails"], capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert "mgr.x of" in done.stderr and "is not running" in done.stderr
    assert not (tmp_path / "mgr-modules").exists()
