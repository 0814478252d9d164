#!/bin/bash
# Shows which daemons of one local cluster run, and the cluster's own view (`ceph -s`).
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
if ((mon_up)); then
    echo
    CEPH_CONF=$CLUSTER_CONF timeout 20 ceph -s
fi
