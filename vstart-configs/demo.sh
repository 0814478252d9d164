#!/bin/bash
# The one-command tour: start a local cluster with the build's plugins, create an erails profile
# and pool, run rados bench write, seq and rand on it briefly, print a summary, and leave the
# cluster running for you to explore.
#   vstart-configs/demo.sh [--plugin-dir <build>/erasure-code] [--seconds S] [start.sh options]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

plugin_dir=${ERAILS_PLUGIN_DIR:-$ERAILS_REPO/build/erasure-code}
seconds=5
dir_arg=""
start_args=()
while (($#)); do
    case $1 in
        --plugin-dir) plugin_dir=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --dir) dir_arg=$2; start_args+=("$1" "$2"); shift 2 ;;
        *) start_args+=("$1"); shift ;;
    esac
done
[[ $seconds =~ ^[0-9]+$ ]] && ((seconds >= 1 && seconds <= 120)) \
    || die "--seconds must be 1..120, got '$seconds'"
[[ -e $plugin_dir/libec_erails.so ]] \
    || die "no libec_erails.so in $plugin_dir: build it (cmake --build build) or pass --plugin-dir"

"$ERAILS_VSTART/start.sh" --plugin-dir "$plugin_dir" "${start_args[@]}"
resolve_cluster_dir "$dir_arg"
export CEPH_CONF=$CLUSTER_CONF

pool=erails-demo
if ! ceph osd pool ls | grep -qx "$pool"; then
    ceph osd erasure-code-profile set "$pool" plugin=erails k=4 m=2 crush-failure-domain=host
    ceph osd pool create "$pool" 32 32 erasure "$pool" 2>&1
    ceph osd pool application enable "$pool" rados >/dev/null 2>&1
    "$SYSTEM_PYTHON3" "$ERAILS_VSTART/ceph_admin.py" --conf "$CLUSTER_CONF" wait-healthy --timeout 120
fi
echo "profile $pool: $(ceph osd erasure-code-profile get "$pool" | tr '\n' ' ')"

summary=()
for phase in write seq rand; do
    extra=()
    [[ $phase == write ]] && extra=(--no-cleanup)
    echo "rados bench $phase, ${seconds} s ..."
    out=$(rados bench -p "$pool" "$seconds" "$phase" -t 16 "${extra[@]}")
    mbs=$(awk -F: '/^Bandwidth \(MB\/sec\)/ {gsub(/ /, "", $2); print $2}' <<<"$out")
    iops=$(awk -F: '/^Average IOPS/ {gsub(/ /, "", $2); print $2}' <<<"$out")
    lat=$(awk -F: '/^Average Latency\(s\)/ {gsub(/ /, "", $2); print $2}' <<<"$out")
    summary+=("$(printf '%-6s %9s MB/s %7s IOPS  avg latency %s s' "$phase" "$mbs" "$iops" "$lat")")
done
rados -p "$pool" cleanup >/dev/null

echo
echo "erails k=4 m=2 pool '$pool', 4 MiB objects, 16 ops in flight, ${seconds} s per phase:"
printf '  %s\n' "${summary[@]}"
cat <<EOF

The cluster is still running. Use it with:
  source $CLUSTER_DIR/env
  ceph -s; rados -p $pool ls
Stop it with:
  $ERAILS_VSTART/stop.sh --dir $CLUSTER_DIR
EOF
