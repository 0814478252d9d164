"""What vstart-configs/start.sh promises about the cluster it makes: one CRUSH host per OSD,
cephx enforced, daemons reachable on 127.0.0.1 only, and keys that never leave their keyrings."""
import re
import subprocess


def test_each_osd_is_its_own_crush_host(cluster):
    nodes = cluster.command("osd tree")["nodes"]
    hosts = [n for n in nodes if n["type"] == "host"]
    assert len(hosts) == cluster.osds
    assert sorted(len(h["children"]) for h in hosts) == [1] * cluster.osds


def test_a_client_without_a_key_is_refused(cluster):
    done = cluster.cli("ceph", "--keyring=/dev/null", "--connect-timeout=10", "-s",
                       check=False, timeout=60)
    assert done.returncode != 0


def daemon_pids(cluster):
    names = [p.stem for p in (cluster.directory / "run").glob("*.pid")]
    return {name: cluster.pid(name) for name in names if cluster.pid(name)}


def test_daemons_listen_on_localhost_only(cluster):
    pids = daemon_pids(cluster)
    assert len(pids) == cluster.osds + 2, f"expected mon, mgr and {cluster.osds} OSDs: {pids}"
    listening = subprocess.run(["ss", "-Htlnp"], capture_output=True, text=True, check=True).stdout
    seen = set()
    for line in listening.splitlines():
        for owner in re.findall(r"pid=(\d+)", line):
            if int(owner) in pids.values():
                seen.add(int(owner))
                local = line.split()[3]
                assert local.startswith("127.0.0.1:"), f"a cluster daemon listens on {local}"
    silent = sorted(name for name, pid in pids.items() if pid not in seen)
    assert not silent, f"no listening socket found for {silent}"


def test_runtime_files_stay_in_the_cluster_directory(cluster):
    for name in daemon_pids(cluster):
        assert (cluster.directory / "run" / f"{name}.asok").exists(), f"{name} has no admin socket"
        assert (cluster.directory / "log" / f"{name}.log").exists(), f"{name} has no log"


def test_keys_appear_in_no_log(cluster):
    keys = set()
    for keyring in cluster.directory.rglob("keyring"):
        keys.update(re.findall(r"key = (\S+)", keyring.read_text()))
    assert keys
    for path in list((cluster.directory / "log").iterdir()) + [cluster.directory / "env",
                                                               cluster.conf]:
        text = path.read_text(errors="replace")
        for key in keys:
            assert key not in text, f"a secret key appears in {path}"
