#!/bin/bash
# Compares erails with stock jerasure (same k/m, same cluster, one run) using rados bench write,
# seq and rand, and appends the figures to bench/cluster/results/rados_bench.csv.
#
# It starts a cluster of its own (directory <repo>/cluster-bench, ports from 17800) so that it
# never measures, or disturbs, a demo cluster; the cluster is stopped at the end and removed unless
# the run failed.
#   bench/cluster/run.sh [--plugin-dir <build>/erasure-code] [--seconds S] [--rounds R] [--k K --m M]
# Without libec_erails.so in the plugin directory it compares jerasure with isa instead, which
# checks the script, not erails. It runs the host's Ceph; for another build, run it in that build's
# root with that build's plugin (doc/local-cluster.rst), e.g.
#   vstart-configs/in-root.sh "$(vstart-configs/debian-root.sh trixie)" \
#       bench/cluster/run.sh --plugin-dir build-18.2.7/erasure-code
set -euo pipefail
invocation="bench/cluster/run.sh $*"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
plugin_dir=${ERAILS_PLUGIN_DIR:-$repo/build/erasure-code}
seconds=10
rounds=2
k=4
m=2
csv=$repo/bench/cluster/results/rados_bench.csv
cluster_dir=$repo/cluster-bench
while (($#)); do
    case $1 in
        --plugin-dir) plugin_dir=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --k) k=$2; shift 2 ;;
        --m) m=$2; shift 2 ;;
        --csv) csv=$2; shift 2 ;;
        --dir) cluster_dir=$2; shift 2 ;;
        *) echo "unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
    esac
done

"$repo/vstart-configs/start.sh" --fresh --dir "$cluster_dir" --port-base 17800 \
    --plugin-dir "$plugin_dir"
# The OSD files hold gigabytes after a bench; logs are only worth keeping when something failed.
finish() {
    local status=$?
    "$repo/vstart-configs/stop.sh" --dir "$cluster_dir" >/dev/null
    if ((status == 0)); then rm -rf "$cluster_dir"; else echo "logs kept in $cluster_dir/log" >&2; fi
}
trap finish EXIT
export CEPH_CONF=$cluster_dir/ceph.conf

# The checkout's commit does not say which plugin binary ran (the build may be older or newer).
plugin_identity() {
    local lib=$cluster_dir/erasure-code/libec_erails.so
    if [[ -e $lib ]]; then
        echo "libec_erails.so sha256 $(sha256sum "$(readlink -f "$lib")" | cut -c1-12)"
    else
        echo "no erails plugin"
    fi
}

reference="plugin=jerasure technique=reed_sol_van k=$k m=$m"
if [[ -e $cluster_dir/erasure-code/libec_erails.so ]]; then
    candidate="plugin=erails technique=reed_sol_van k=$k m=$m"
else
    echo "no libec_erails.so in $plugin_dir: comparing isa with jerasure instead" >&2
    candidate="plugin=isa technique=reed_sol_van k=$k m=$m"
fi
/usr/bin/python3 "$repo/bench/cluster/compare_profiles.py" --a "$candidate" --b "$reference" \
    --seconds "$seconds" --rounds "$rounds" --csv "$csv" --recorded-command "$invocation" \
    --where "this machine ($(nproc) cores, $(hostname)), Ceph $(ceph --version | cut -d' ' -f3) daemons and client, checkout $(git -C "$repo" rev-parse --short HEAD), $(plugin_identity), $(ls -d "$cluster_dir"/osd.* | wc -l) BlueStore OSDs on sparse files, vstart-configs/start.sh"
