"""The cluster and bench scripts refuse bad input with a message naming the option and what it
accepts, before touching anything. No cluster needed."""
import os
import shutil
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
    (["--port-base", "80"], "--port-base must be 1024..65000 or auto"),
    (["--port-base", "any"], "--port-base must be 1024..65000 or auto, got 'any'"),
    (["--block-size", "4T"], "--block-size must look like 4G or 512M"),
    (["--plugin-dir", "/nonexistent"], "--plugin-dir '/nonexistent' is not a directory"),
    (["--timeout", "soon"], "--timeout must be seconds"),
    (["--bogus"], "unknown argument '--bogus'"),
    (["--emulate-ssd=/nonexistent.conf"], "--emulate-ssd: no model file '/nonexistent.conf'"),
    (["--emulate-time-scale", "fast"], "--emulate-time-scale must be a number > 0"),
    (["--emulator-lib", "/nonexistent.so"], "--emulator-lib: no file '/nonexistent.so'"),
    (["--ceph-build", "17.2.7"], "--ceph-build must be one of 16.2.15 18.2.7, got '17.2.7'"),
])
def test_start_refuses_bad_arguments(tmp_path, args, named):
    done = subprocess.run([str(START), "--dir", str(tmp_path / "c")] + args,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert named in done.stderr
    assert not (tmp_path / "c").exists()


def test_start_refuses_a_port_range_in_use(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([str(START), "--dir", str(tmp_path / "c"), "--port-base", str(port)],
                              capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert f"ports in use in {port}.." in done.stderr


def claim(registry, directory, base="auto", osds=2):
    """start.sh's claim of a port range for a cluster created in `directory` (vstart-configs/ports.sh)."""
    script = f'source "{REPO}/vstart-configs/common.sh"; source "{REPO}/vstart-configs/ports.sh"; ' \
             f'claim_port_base {base} {osds} "{directory}"'
    return subprocess.run(["bash", "-c", script], env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                                                       "ERAILS_PORT_REGISTRY": str(registry)},
                          capture_output=True, text=True, timeout=30)


def claimed(registry, directory, **kwargs):
    done = claim(registry, directory, **kwargs)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_auto_gives_clusters_created_at_once_ranges_that_do_not_overlap(tmp_path):
    dirs = [tmp_path / f"c{i}" for i in range(6)]
    for d in dirs:
        d.mkdir()
    script = f'source "{REPO}/vstart-configs/common.sh"; source "{REPO}/vstart-configs/ports.sh"; ' \
             f'claim_port_base auto 6 "$1"'
    runs = [subprocess.Popen(["bash", "-c", script, "bash", str(d)], stdout=subprocess.PIPE, text=True,
                             env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "ERAILS_PORT_REGISTRY": str(tmp_path / "r")})
            for d in dirs]
    bases = sorted(int(run.communicate(timeout=60)[0]) for run in runs)
    # A 6-OSD cluster spans 90 ports from its base.
    assert all(b - a > 90 for a, b in zip(bases, bases[1:])), bases
    assert sorted(p.name for p in (tmp_path / "r").iterdir() if p.is_symlink()) == \
        sorted(f"{b}-{b + 90}" for b in bases)


def links(registry):
    """range name -> cluster directory, for every cluster the registry holds."""
    return {p.name: os.readlink(p) for p in registry.iterdir() if p.is_symlink()}


def test_auto_passes_over_ports_in_use_and_ranges_of_stopped_clusters(tmp_path):
    registry = tmp_path / "r"
    stopped, second, third, fourth = (tmp_path / name for name in ("stopped", "second", "third", "fourth"))
    for d in (stopped, second, third, fourth):
        d.mkdir()
    base = claimed(registry, stopped)
    # A cluster created on that range keeps it while stopped: its cluster.params names the base.
    (stopped / "cluster.params").write_text(f"port_base={base}\nosds=2\n")
    second_base = claimed(registry, second)
    assert second_base != base
    with socket.socket() as busy:
        busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        busy.bind(("127.0.0.1", second_base + 60))
        busy.listen()
        # Created again on other ports, the stopped cluster gives its range up; the second's range
        # is held by its link and something listens in it.
        (stopped / "cluster.params").write_text("port_base=17100\nosds=2\n")
        third_base = claimed(registry, third)
        assert third_base != second_base
        assert str(stopped) not in links(registry).values()
    # A cluster whose directory is gone holds nothing.
    shutil.rmtree(second)
    fourth_base = claimed(registry, fourth)
    assert fourth_base != third_base and str(second) not in links(registry).values()
    assert sorted(links(registry).values()) == sorted([str(third), str(fourth)])


def test_an_explicit_port_base_in_use_is_refused_and_not_recorded(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = claim(tmp_path / "r", tmp_path, base=port)
    assert done.returncode != 0 and f"ports in use in {port}.." in done.stderr
    assert not [p for p in (tmp_path / "r").iterdir() if p.is_symlink()]


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


@pytest.mark.parametrize("args,named", [
    ([], "RELEASE must be trixie (Debian 13, Ceph 18.2.7), got ''"),
    (["bookworm"], "RELEASE must be trixie (Debian 13, Ceph 18.2.7), got 'bookworm'"),
    (["trixie", "sid"], "one RELEASE, got 'trixie' and 'sid'"),
    (["--bogus", "trixie"], "unknown argument '--bogus'"),
])
def test_debian_root_refuses_bad_arguments(tmp_path, args, named):
    done = subprocess.run([str(REPO / "vstart-configs" / "debian-root.sh"), "--dir", str(tmp_path / "root")] + args,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert named in done.stderr
    assert not (tmp_path / "root").exists() and not (tmp_path / "root.lock").exists()


@pytest.mark.parametrize("args,named", [
    ([], "needs ROOT and COMMAND"),
    (["{tmp}"], "needs ROOT and COMMAND"),
    (["{tmp}", "true"], "'{tmp}' is not a root made by debian-root.sh (no .erails-root stamp)"),
    (["--bind", "{tmp}/none", "{tmp}", "true"], "--bind: '{tmp}/none' is not a directory"),
    (["--bogus", "{tmp}", "true"], "unknown argument '--bogus'"),
])
def test_in_root_refuses_bad_arguments(tmp_path, args, named):
    done = subprocess.run([str(REPO / "vstart-configs" / "in-root.sh")] + [a.format(tmp=tmp_path) for a in args],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert named.format(tmp=tmp_path) in done.stderr


def test_demo_latency_lines_say_what_the_device_still_adds_to_rails_on():
    import types
    from latency_step import PoolShape
    from rails_latency import summary_lines
    from read_latency import ReadSummary

    def load(p99_ms, p999_ms, mb_s, gc):
        return {"summary": ReadSummary(1000, 0, 0.001, p99_ms / 1000, p999_ms / 1000, p999_ms / 1000),
                "writer_mb_s": mb_s, "gc_events": gc}
    loads = {"read-only": load(2, 4, 0, None),
             "rails off": load(40, 80, 10, {"read": 3, "guard": 0, "write": 2}),
             "rails on": load(6, 12, 9, {"read": 0, "guard": 0, "write": 5}),
             "model off": load(4, 8, 9, {"read": 0, "guard": 0, "write": 0})}
    step = types.SimpleNamespace(describe_device=lambda: "data devices emulated")
    lines = summary_lines(step, PoolShape("erails k=4 m=2", "p", 4, 2),
                          {"frame_seconds": 5, "guard_seconds": 1.1}, loads, 30)
    assert lines[4].startswith("  the same, device model off p99") and "( 2.00x)" in lines[4]
    assert "GC events" not in lines[4]
    assert lines[-1] == ("  Rails on / the same without the device model: read p99 1.50x, p99.9 1.50x "
                         "(what the device still adds to the tail)")
