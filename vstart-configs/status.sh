#!/bin/bash
# Shows which daemons of one local cluster run, each OSD's emulated device if it has one, and the
# cluster's own view (`ceph -s`).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { echo "usage: $(basename "$0") [--dir DIR]"; }
dir_arg=""
while (($#)); do
    case $1 in
        --dir) dir_arg=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
resolve_cluster_dir "$dir_arg"
[[ -e $CLUSTER_DIR/cluster.params ]] || die "no cluster in $CLUSTER_DIR"

mon_up=0
for name in $(cluster_daemons); do
    if pid=$(daemon_pid "$name"); then
        rss=$(awk '/^VmRSS/ {printf "%d MiB", $2 / 1024}' /proc/"$pid"/status 2>/dev/null || true)
        printf '%-8s running  pid %-8s %s\n' "$name" "$pid" "$rss"
        [[ $name == mon.* ]] && mon_up=1
    else
        printf '%-8s stopped\n' "$name"
    fi
done
# The emulated data devices (start.sh --emulate-ssd): one line per OSD from its stats file.
if compgen -G "$CLUSTER_DIR/emulator/osd.*.json" >/dev/null; then
    echo
    "$SYSTEM_PYTHON3" - "$CLUSTER_DIR"/emulator/osd.*.json <<'EOF'
import json, os, sys, time
for path in sorted(sys.argv[1:], key=lambda p: int(os.path.basename(p).split(".")[1])):
    name = os.path.basename(path)[:-len(".json")]
    try:
        with open(path) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{name:<8} emulator stats unreadable: {e}")
        continue
    r = s["requests"]
    age = time.time() - os.path.getmtime(path)
    slowed = f", {s['slowdown']:g} times slower now (slow-device.sh)" if s.get("slowdown", 1) != 1 else ""
    slowed += ", model off now: requests at their real time (slow-device.sh)" if not s.get("model_on", True) else ""
    print(f"{name:<8} emulated {s['model']} x{s['time_scale']:g}{slowed}: {r['read']} reads, {r['write']} writes, "
          f"{r['sync_read'] + r['sync_write']} sync, {s['gc_events']} GC events "
          f"({s['gc_blocked_seconds']:.2f} s blocked), held {s['held_seconds']:.2f} s, "
          f"{s['errors']} errors (stats {age:.0f} s old)")
EOF
fi
if ((mon_up)); then
    echo
    CEPH_CONF=$CLUSTER_CONF timeout 20 ceph -s
fi
