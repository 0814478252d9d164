#!/bin/bash
# Rails on a real local cluster, measured (bench/rails/README.md): starts a 6-OSD cluster whose
# data devices are loop devices (needs root), runs bench/rails/evidence.py, writes its results to
# --out, and stops the cluster (removing it unless the run failed). With --emulate-ssd the data
# devices are files under the device emulator instead (start.sh --emulate-ssd), for the latency
# step; the steps that count the kernel's I/O (mixed, crash) need the loop devices.
#   bench/rails/run.sh [--plugin-dir <build>/erasure-code] [--out DIR] [--dir DIR] [--port-base P]
#       [--emulate-ssd[=MODEL_FILE]] [--emulate-time-scale X] [--sim <build>/tools/erails_sim/erails-sim]
#       [evidence.py options...]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
plugin_dir=${ERAILS_PLUGIN_DIR:-$repo/build/erasure-code}
out=$repo/bench/rails/results
cluster_dir=$repo/cluster-rails
port_base=17300
emulate=()
evidence_args=()
while (($#)); do
    case $1 in
        --plugin-dir) plugin_dir=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --dir) cluster_dir=$2; shift 2 ;;
        --port-base) port_base=$2; shift 2 ;;
        --emulate-ssd|--emulate-ssd=*) emulate+=("$1"); shift ;;
        --emulate-time-scale) emulate+=("$1" "$2"); shift 2 ;;
        *) evidence_args+=("$1"); shift ;;
    esac
done
[[ -e $plugin_dir/libec_erails.so ]] || { echo "no libec_erails.so in $plugin_dir (build target ec_erails)" >&2; exit 2; }

devices=(--loop-data)
if ((${#emulate[@]})); then
    devices=("${emulate[@]}")
    # start.sh writes the model the OSDs run there; the latency step and the simulator read it.
    evidence_args+=(--model "$cluster_dir/emulator/model.conf")
    # The emulator's shortest stats interval, so that model counters are read close to each
    # phase change (the OSDs inherit it; start.sh sets only the emulator's other variables).
    export ERAILS_EMULATOR_STATS_INTERVAL=0.1
fi
"$repo/vstart-configs/start.sh" --dir "$cluster_dir" --osds 6 --port-base "$port_base" \
    --plugin-dir "$plugin_dir" "${devices[@]}" --fresh
status=0
PYTHONPATH="$repo/src/mgr" /usr/bin/python3 "$repo/bench/rails/evidence.py" --conf "$cluster_dir/ceph.conf" --cluster-dir "$cluster_dir" \
    --out "$out" "${evidence_args[@]}" || status=$?
"$repo/vstart-configs/stop.sh" --dir "$cluster_dir"
if ((status == 0)); then
    rm -rf "$cluster_dir"
else
    echo "evidence.py exited $status; the cluster's logs stay in $cluster_dir/log" >&2
fi
exit $status
