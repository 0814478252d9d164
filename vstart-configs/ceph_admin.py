"""Cluster set-up steps that need many monitor round trips, done over one librados connection.

start.sh calls this instead of the `ceph` CLI because each CLI call pays a Python start-up and a
fresh authentication; the set-up of six OSDs would spend most of its time there.

Run with /usr/bin/python3 (Debian's), the interpreter python3-rados is built for.
"""
import argparse
import json
import sys
import time

import rados


def mon_command(cluster, prefix, inbuf=b"", **args):
    """Runs one monitor command; returns (parsed JSON output or None, status text) or raises."""
    cmd = dict(args, prefix=prefix, format="json")
    ret, out, status = cluster.mon_command(json.dumps(cmd), inbuf, timeout=30)
    if ret != 0:
        raise RuntimeError(f"'{prefix}' failed ({ret}): {status.strip()}")
    return (json.loads(out) if out else None), status


def create_osds(cluster, uuids):
    """Registers OSD ids 0..n-1 with the given fsids; already-registered ids are left alone."""
    for osd_id, uuid in enumerate(uuids):
        mon_command(cluster, "osd new", uuid=uuid, id=osd_id)


def cluster_state(cluster):
    """Returns (mgr available, osds up, osds in, osds defined, PGs the pools define, PGs
    active+clean in the mgr's report).

    The PG count comes from the OSD map rather than the mgr's report, so that a pool the mgr has
    not heard of yet still counts as not clean.
    """
    status, _ = mon_command(cluster, "status")
    osd_dump, _ = mon_command(cluster, "osd dump")
    defined = sum(pool["pg_num"] for pool in osd_dump["pools"])
    clean = sum(s["count"] for s in status["pgmap"].get("pgs_by_state", [])
                if s["state_name"] == "active+clean")
    osdmap = status["osdmap"]
    return (status["mgrmap"]["available"], osdmap["num_up_osds"], osdmap["num_in_osds"],
            osdmap["num_osds"], defined, clean)


def wait_healthy(cluster, osds, timeout, settle=2.0, out=sys.stdout):
    """Waits until a mgr is active, `osds` OSDs (None: every OSD in the map) are up and in and
    every PG is active+clean; False on timeout. Without an active mgr no PG state is reported,
    so a cluster without pools would otherwise look clean.

    The mgr's PG report lags the OSD map by up to mgr_stats_period (1 s in start.sh's clusters):
    just after an OSD restart it can still say clean. The state must therefore hold for `settle`
    seconds before it counts.
    """
    deadline = time.monotonic() + timeout
    healthy_since = None
    while True:
        mgr, up, inn, defined, pgs, clean = cluster_state(cluster)
        want = defined if osds is None else osds
        now = time.monotonic()
        if mgr and up >= want and inn >= want and clean == pgs:
            healthy_since = healthy_since or now
            if now - healthy_since >= settle:
                return True
        else:
            healthy_since = None
        if now >= deadline:
            print(f"timed out after {timeout}s: mgr {'active' if mgr else 'not active'}, "
                  f"{up}/{want} OSDs up, {inn} in, "
                  f"{clean}/{pgs} PGs active+clean", file=out)
            return False
        time.sleep(0.25)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conf", required=True, help="the cluster's ceph.conf")
    parser.add_argument("--connect-timeout", type=int, default=60)
    sub = parser.add_subparsers(dest="command", required=True)
    new = sub.add_parser("create-osds", help="register OSD ids 0..n-1")
    new.add_argument("uuids", nargs="+")
    wait = sub.add_parser("wait-healthy", help="wait for OSDs up/in and all PGs active+clean")
    wait.add_argument("--osds", type=int, help="how many OSDs must be up (default: all defined)")
    wait.add_argument("--timeout", type=int, default=120)
    args = parser.parse_args(argv)

    cluster = rados.Rados(conffile=args.conf)
    cluster.conf_set("client_mount_timeout", str(args.connect_timeout))
    cluster.connect(timeout=args.connect_timeout)
    try:
        if args.command == "create-osds":
            create_osds(cluster, args.uuids)
            return 0
        return 0 if wait_healthy(cluster, args.osds, args.timeout) else 1
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
