# Shared by the scripts in vstart-configs/: where a cluster lives, whether one of its daemons is
# running, waiting for it. Sourced, never executed.

ERAILS_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ERAILS_VSTART="$ERAILS_REPO/vstart-configs"
SYSTEM_PYTHON3=/usr/bin/python3

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# The cluster directory comes from --dir, else ERAILS_CLUSTER_DIR, else <repo>/cluster (gitignored).
# Only start.sh passes "create"; the other scripts must not leave empty directories behind.
resolve_cluster_dir() {
    local dir=${1:-${ERAILS_CLUSTER_DIR:-$ERAILS_REPO/cluster}}
    if [[ ${2:-} == create ]]; then
        mkdir -p "$dir" 2>/dev/null || die "cannot create cluster directory $dir"
    fi
    [[ -d $dir ]] || die "no cluster directory $dir"
    CLUSTER_DIR=$(cd "$dir" && pwd)
    CLUSTER_CONF="$CLUSTER_DIR/ceph.conf"
}

# A pid file alone is not proof: the pid may have been reused by an unrelated process after a
# crash. A daemon counts as ours only if its command line names this cluster's ceph.conf.
daemon_pid() {
    local name=$1 pidfile="$CLUSTER_DIR/run/$1.pid" pid
    [[ -s $pidfile ]] || return 1
    pid=$(<"$pidfile")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    tr '\0' ' ' </proc/"$pid"/cmdline | grep -qF -- "-c $CLUSTER_CONF" || return 1
    echo "$pid"
}

daemon_running() { daemon_pid "$1" >/dev/null; }

# Daemon names in start order, from what exists on disk (mkfs creates the data directories).
cluster_daemons() {
    local d
    for d in "$CLUSTER_DIR"/mon.* "$CLUSTER_DIR"/mgr.*; do [[ -d $d ]] && basename "$d"; done
    for d in $(ls -d "$CLUSTER_DIR"/osd.* 2>/dev/null | sort -t. -k2 -n); do basename "$d"; done
}

# Runs the command until it succeeds, once a second; dies after the given seconds naming `what`.
wait_for() {
    local what=$1 deadline=$((SECONDS + $2)); shift 2
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || die "timed out waiting for $what"
        sleep 1
    done
}

# ceph-mgr lists a module only once it has loaded it, which can take a while after a restart.
mgr_offers_module() { grep -qw "$1" <<<"$(ceph mgr module ls)"; }

# The description of a checked Ceph build (src/ceph_abi/builds/<version>/build.conf), or death
# naming the builds there are.
ceph_build_description() {
    local description="$ERAILS_REPO/src/ceph_abi/builds/$1/build.conf"
    [[ -f $description ]] || die "--ceph-build must be one of $(cd "$ERAILS_REPO/src/ceph_abi/builds" && ls | paste -sd' '), got '$1'"
    echo "$description"
}
