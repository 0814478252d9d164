#!/bin/bash
# The one-command tour: start a local cluster with the build's plugins on emulated SSDs, create an
# erails profile and pool, run rados bench write, seq and rand on it briefly, print a summary; then
# Rails: split the OSDs into colors, create a Rails pool, enable the rails mgr module (or, where
# ceph-mgr runs no Python module, run it outside with start.sh --controllers), run a mixed
# read/write load on that pool, print where each OSD's writes and reads fell in its schedule and a
# timeline PNG; then the read-latency comparison (4 KiB reads alone, with a writer and Rails off,
# with a writer and Rails on, and the last again with every device model off) and its PNG; print
# `rails status` and a summary, and leave the cluster running for you to explore. With
# --ceph-build 18.2.7 the same on Debian 13's Ceph.
#   vstart-configs/demo.sh [--plugin-dir <build>/erasure-code] [--seconds S] [--rails-seconds S]
#                          [--latency-seconds S] [start.sh options]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

plugin_dir=${ERAILS_PLUGIN_DIR:-$ERAILS_REPO/build/erasure-code}
seconds=5
rails_seconds=40
latency_seconds=30
# A new cluster's data devices run drive B's model slowed 10 times (start.sh --emulate-ssd): at 1
# this 2-core CPU's own tail hides garbage collection, at 30 Rails cost the writer 44%
# (bench/rails/README.md, "The time_scale").
time_scale=10
emulate_given=0
dir_arg=""
fresh=0
start_args=()
while (($#)); do
    case $1 in
        --plugin-dir) plugin_dir=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --rails-seconds) rails_seconds=$2; shift 2 ;;
        --latency-seconds) latency_seconds=$2; shift 2 ;;
        --emulate-ssd*|--emulate-time-scale|--no-emulate) emulate_given=1; start_args+=("$1"); shift ;;
        --dir) dir_arg=$2; start_args+=("$1" "$2"); shift 2 ;;
        --fresh) fresh=1; start_args+=("$1"); shift ;;
        *) start_args+=("$1"); shift ;;
    esac
done
[[ $seconds =~ ^[0-9]+$ ]] && ((seconds >= 1 && seconds <= 120)) \
    || die "--seconds must be 1..120, got '$seconds'"
[[ $rails_seconds =~ ^[0-9]+$ ]] && ((rails_seconds >= 10 && rails_seconds <= 600)) \
    || die "--rails-seconds must be 10..600, got '$rails_seconds'"
[[ $latency_seconds =~ ^[0-9]+$ ]] && ((latency_seconds >= 10 && latency_seconds <= 600)) \
    || die "--latency-seconds must be 10..600, got '$latency_seconds'"
[[ -e $plugin_dir/libec_erails.so ]] \
    || die "no libec_erails.so in $plugin_dir: build it (cmake --build build) or pass --plugin-dir"

# Where each OSD's writes fall is read from the kernel's counts for its data device, which needs
# that device to be a loop device of its own (root); the emulator runs under a loop device as under
# a file. An existing cluster keeps how it was made.
if ((fresh)) || [[ ! -e ${dir_arg:-${ERAILS_CLUSTER_DIR:-$ERAILS_REPO/cluster}}/cluster.params ]]; then
    [[ -w /dev/loop-control ]] && start_args+=(--loop-data)
    ((emulate_given)) || start_args+=(--emulate-ssd --emulate-time-scale "$time_scale")
fi
# The latency comparison files each OSD's model counters under the phase they grew in; the
# emulator's shortest stats interval keeps that close to each switch (the OSDs inherit it).
export ERAILS_EMULATOR_STATS_INTERVAL=0.1
"$ERAILS_VSTART/start.sh" --plugin-dir "$plugin_dir" "${start_args[@]}"
resolve_cluster_dir "$dir_arg"
export CEPH_CONF=$CLUSTER_CONF
emulated=0
grep -qx 'emulate=1' "$CLUSTER_DIR/cluster.params" && emulated=1
# Where the cluster's ceph-mgr runs no Python module (Debian 13's), the rails controller runs
# outside it (doc/controllers.rst), started with the cluster, and its commands go through erails-ctl.
build_description=$(ceph_build_description "$(sed -n 's/^ceph_build=//p' "$CLUSTER_DIR/cluster.params")")
if grep -q '^mgr_runs_python_modules *= *false' "$build_description" \
        && ! grep -qx 'controllers=1' "$CLUSTER_DIR/cluster.params"; then
    "$ERAILS_VSTART/start.sh" --dir "$CLUSTER_DIR" --controllers
fi
standalone=0
grep -qx 'controllers=1' "$CLUSTER_DIR/cluster.params" && standalone=1
rails_command() {
    if ((standalone)); then "$ERAILS_VSTART/erails-ctl.sh" --dir "$CLUSTER_DIR" rails "$@"; else ceph rails "$@"; fi
}
rails_status_command=$( ((standalone)) && echo "$ERAILS_VSTART/erails-ctl.sh --dir $CLUSTER_DIR rails status" \
    || echo "ceph rails status")
bench_path="$ERAILS_REPO/bench/rails:$ERAILS_REPO/src/mgr"

wait_healthy() {
    "$SYSTEM_PYTHON3" "$ERAILS_VSTART/ceph_admin.py" --conf "$CLUSTER_CONF" wait-healthy --timeout 120
}

pool=erails-demo
if ! ceph osd pool ls | grep -qx "$pool"; then
    ceph osd erasure-code-profile set "$pool" plugin=erails k=4 m=2 crush-failure-domain=host
    ceph osd pool create "$pool" 32 32 erasure "$pool" 2>&1
    ceph osd pool application enable "$pool" rados >/dev/null 2>&1
    wait_healthy
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

# --- Rails (doc/rails.rst, "Deploying it") ------------------------------------------------------

# k+m colors, one CRUSH bucket each; shard i of every PG of the Rails pool is on color i.
rails_pool=rails-demo
colors=6
crush_colors=$(seq -s, -f 'color%g' 0 $((colors - 1)))
echo
if ! ceph osd pool ls | grep -qx "$rails_pool"; then
    echo "Rails: $colors colors of whole hosts (tools/rails_colors/rails_colors.py --colors $colors --apply):"
    "$SYSTEM_PYTHON3" "$ERAILS_REPO/tools/rails_colors/rails_colors.py" --colors "$colors" --apply | sed 's/^/  /'
    # A 5 s frame, as doc/rails.rst deploys it: above the 2 s the module needs to carry a switch.
    # On emulated devices the guard must outlast the model's longest GC event, which grows with
    # the time scale (1.1 s at 10, against the default 0.5 s).
    guard=()
    if ((emulated)); then
        seconds_of_guard=$(PYTHONPATH=$bench_path "$SYSTEM_PYTHON3" "$ERAILS_VSTART/rails_latency.py" \
            --guard-for "$CLUSTER_DIR/emulator/model.conf")
        [[ -z $seconds_of_guard ]] || guard=(rails-guard="$seconds_of_guard")
    fi
    ceph osd erasure-code-profile set "$rails_pool" plugin=erails k=4 m=2 crush-colors="$crush_colors" \
        rails-frame=5 "${guard[@]}"
    ceph osd pool create "$rails_pool" 32 32 erasure "$rails_pool" 2>&1
    ceph osd pool application enable "$rails_pool" rados >/dev/null 2>&1
    wait_healthy
fi
echo "profile $rails_pool: $(ceph osd erasure-code-profile get "$rails_pool" | tr '\n' ' ')"

if ((standalone)); then
    wait_for "the rails controller to answer" 120 rails_command status
elif ! ceph rails status >/dev/null 2>&1; then
    if dpkg-query -W -f='${Status}' erails 2>/dev/null | grep -q 'install ok installed'; then
        echo "enabling the rails mgr module the erails package installed"
        wait_for "the mgr to offer the rails module" 120 mgr_offers_module rails
        ceph mgr module enable rails
    else
        "$ERAILS_VSTART/enable_module.sh" --dir "$CLUSTER_DIR" rails
    fi
    wait_for "ceph rails status to answer" 120 ceph rails status
fi

timeline_dir=$CLUSTER_DIR/rails-demo
recordable=1
for block in "$CLUSTER_DIR"/osd.*/block; do
    [[ $(readlink -f "$block") == /dev/loop* ]] || recordable=0
done
echo
if ((recordable)); then
    PYTHONPATH=$bench_path "$SYSTEM_PYTHON3" "$ERAILS_VSTART/rails_mixed.py" \
        --conf "$CLUSTER_CONF" --cluster-dir "$CLUSTER_DIR" --pool "$rails_pool" --out "$timeline_dir" \
        --seconds "$rails_seconds"
else
    echo "No mixed load: where each OSD's writes fall is read from its data device's loop device, and this"
    echo "cluster's OSDs have none (create it as root, e.g. with --fresh, so that start.sh gets --loop-data)."
fi

echo
latency_summary=$timeline_dir/latency_demo.txt
rm -f "$latency_summary"
if ((emulated)); then
    echo "Read latency: the same pool, $latency_seconds s per load"
    PYTHONPATH=$bench_path "$SYSTEM_PYTHON3" "$ERAILS_VSTART/rails_latency.py" \
        --conf "$CLUSTER_CONF" --cluster-dir "$CLUSTER_DIR" --pool "$rails_pool" --out "$timeline_dir" \
        --seconds "$latency_seconds"
else
    echo "No read-latency comparison: this cluster's OSDs run without the device emulator, so no garbage"
    echo "collection delays reads (create it with --fresh: the demo then starts it with --emulate-ssd)."
fi

echo
echo "$rails_status_command:"
rails_command status | sed 's/^/  /'

echo
echo "Summary"
echo "erails k=4 m=2 pool '$pool', 4 MiB objects, 16 ops in flight, ${seconds} s per phase:"
printf '  %s\n' "${summary[@]}"
[[ -e $latency_summary ]] && cat "$latency_summary"
((recordable)) && echo "timeline (data-device writes, shard reads, read phases shaded): $timeline_dir/timeline.png"
[[ -e $latency_summary ]] && echo "read latency per second, each load shaded: $timeline_dir/latency.png"
read -r load1 load5 _ </proc/loadavg
echo "demo took $SECONDS s; load average $load1 (1 min), $load5 (5 min) on $(nproc) cores"
cat <<EOF

The cluster is still running. Use it with:
  source $CLUSTER_DIR/env
  ceph -s; rados -p $pool ls; $rails_status_command
Turn Rails off: doc/rails.rst, "Turning it off". Stop the cluster with:
  $ERAILS_VSTART/stop.sh --dir $CLUSTER_DIR
EOF
