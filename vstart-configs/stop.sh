#!/bin/bash
# Stops the daemons of one local cluster, found by their pid files, OSDs first: an OSD shutting
# down after its monitor waits for it, and a quick restart then trips on the pid-file lock.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { echo "usage: $(basename "$0") [--dir DIR] [--timeout S]"; }
dir_arg=""
timeout=30
while (($#)); do
    case $1 in
        --dir) dir_arg=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout must be seconds, got '$timeout'"
resolve_cluster_dir "$dir_arg"
[[ -e $CLUSTER_DIR/cluster.params ]] || die "no cluster in $CLUSTER_DIR"

# SIGTERM, then SIGKILL if a daemon outlives the timeout; only pids whose command line names this
# cluster's ceph.conf are signalled (see daemon_pid).
stop_group() {
    local names=("$@") pids=() name pid deadline
    for name in "${names[@]}"; do
        pid=$(daemon_pid "$name") || continue
        kill -TERM "$pid" 2>/dev/null && pids+=("$pid") && echo "stopping $name (pid $pid)"
    done
    deadline=$((SECONDS + timeout))
    for pid in "${pids[@]}"; do
        while kill -0 "$pid" 2>/dev/null; do
            if ((SECONDS >= deadline)); then
                echo "pid $pid still running after ${timeout}s; sending SIGKILL"
                kill -KILL "$pid" 2>/dev/null || true
            fi
            sleep 0.1
        done
    done
}

daemons=$(cluster_daemons)
# The controllers first, while the OSDs can still take the releases they send as they stop.
stop_group erails-rails erails-qbox
stop_group $(grep '^osd\.' <<<"$daemons" || true)
stop_group $(grep '^mgr\.' <<<"$daemons" || true)
stop_group $(grep '^mon\.' <<<"$daemons" || true)
# Loop devices of a --loop-data cluster: only those backed by this cluster's own data files.
for file in "$CLUSTER_DIR"/osd.*/data.img; do
    [[ -e $file ]] || continue
    for dev in $(losetup -j "$file" -O NAME -n 2>/dev/null); do
        losetup -d "$dev" && echo "detached $dev"
    done
done
echo "cluster in $CLUSTER_DIR stopped"
