#!/usr/bin/env bash
# QBox against a RADOS pool: starts its own one-OSD local cluster (vstart-configs, 127.0.0.1,
# cephx), creates a size-1 pool, runs qbox-bench with the qbox and fifo schedulers for 15 s each,
# stops the cluster and summarizes. Writes rados_<scheduler>.csv and rados.summary.csv to OUT.
#
# usage: bench/qbox/rados.sh BUILD_DIR OUT_DIR
#   BUILD_DIR: a tree configured with -DERAILS_WITH_CEPH=ON (qbox-bench with --backend rados)
set -euo pipefail
build=${1:?build dir}
out=${2:?output dir}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cluster=${QBOX_CLUSTER_DIR:-/tmp/qbox-rados-cluster}
mkdir -p "$out"

"$repo/vstart-configs/start.sh" --dir "$cluster" --osds 1 --port-base "${QBOX_PORT_BASE:-18300}" \
    --block-size 2G --fresh --timeout 150
trap '"$repo/vstart-configs/stop.sh" --dir "$cluster"' EXIT
export CEPH_CONF=$cluster/ceph.conf
ceph osd pool create qbox 8 8
ceph osd pool set qbox size 1 --yes-i-really-mean-it
ceph osd pool application enable qbox rados

for sched in qbox fifo; do
  "$build/src/mclock_qbox/qbox-bench" --backend rados --pool qbox --conf "$CEPH_CONF" \
    --object-size 4194304 --objects 32 --scheduler $sched --duration 15 --window 1 --depth 16 \
    --client name=S,pattern=sequential,util=0.3,depth=32 \
    --client name=R,pattern=random,util=0.7,depth=32 > "$out/rados_$sched.csv"
done
/usr/bin/python3 "$here/summarize.py" --skip 5 "$out"/rados_*.csv > "$out/rados.summary.csv"
