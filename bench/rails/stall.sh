#!/bin/bash
# Release stalls measured (bench/rails/README.md, "Release stalls and faults"): starts a 4-OSD
# cluster of its own (one OSD per color), an erails k=2 m=2 pool `railspool` with rails-frame=6,
# the rails module from this source tree, runs release_stall.py on it with the given options, and
# stops the cluster (removing it unless the run failed).
#   bench/rails/stall.sh [--plugin-dir <build>/erasure-code] [--dir DIR] [--port-base P]
#       [release_stall.py options: --size 4096 --in-flight 64 --budgets-mib 512,64 --runs 3 ...]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
plugin_dir=${ERAILS_PLUGIN_DIR:-$repo/build/erasure-code}
cluster_dir=$repo/cluster-stall
port_base=17400
stall_args=()
while (($#)); do
    case $1 in
        --plugin-dir) plugin_dir=$2; shift 2 ;;
        --dir) cluster_dir=$2; shift 2 ;;
        --port-base) port_base=$2; shift 2 ;;
        *) stall_args+=("$1"); shift ;;
    esac
done
[[ -e $plugin_dir/libec_erails.so ]] || { echo "no libec_erails.so in $plugin_dir (build target ec_erails)" >&2; exit 2; }

"$repo/vstart-configs/start.sh" --dir "$cluster_dir" --osds 4 --block-size 2G --port-base "$port_base" \
    --plugin-dir "$plugin_dir" --fresh
export CEPH_CONF=$cluster_dir/ceph.conf
export PYTHONPATH=$repo/bench/rails:$repo/src/mgr
status=0
{
    /usr/bin/python3 "$repo/tools/rails_colors/rails_colors.py" --colors 4 --apply >/dev/null
    ceph osd erasure-code-profile set railsprofile plugin=erails k=2 m=2 \
        crush-colors=color0,color1,color2,color3 rails-frame=6
    ceph osd pool create railspool 16 16 erasure railsprofile
    "$repo/vstart-configs/enable_module.sh" --dir "$cluster_dir" rails
    timeout 90 bash -c 'until ceph rails status >/dev/null 2>&1; do sleep 1; done'
    /usr/bin/python3 "$repo/vstart-configs/ceph_admin.py" --conf "$CEPH_CONF" wait-healthy --osds 4 --timeout 180
    echo "$(date -u '+%F %H:%M') UTC, $(nproc) cores, $(uptime | sed 's/.*load/load/')"
    /usr/bin/python3 "$repo/bench/rails/release_stall.py" --pool railspool "${stall_args[@]}"
} || status=$?
"$repo/vstart-configs/stop.sh" --dir "$cluster_dir"
if ((status == 0)); then
    rm -rf "$cluster_dir"
else
    echo "release_stall.py exited $status; the cluster's logs stay in $cluster_dir/log" >&2
fi
exit $status
