#!/usr/bin/env bash
# QBox figures 3.2, 3.15, 3.16 and 3.17 on a RADOS pool: starts its own local cluster of 2 BlueStore
# OSDs (vstart-configs, 127.0.0.1, cephx), creates a size-1 pool laid out as 64 objects of 4 MiB
# (reads spread over both OSDs, like the thesis' two-disk RAID 0), runs the same set as file.sh
# (figures.sh) through librados, stops the cluster. About 11 minutes. Writes
# rados_<fig>_*.csv, rados_<fig>.summary.csv, rados_<fig>.png and rados.conditions.txt to OUT.
#
# usage: bench/qbox/rados.sh BUILD_DIR OUT_DIR
#   BUILD_DIR: a tree configured with -DERAILS_WITH_CEPH=ON (qbox-bench with --backend rados)
#   QBOX_CLUSTER_DIR (default <repo>/cluster-qbox) and QBOX_PORT_BASE (default 18300) place the
#   cluster; a cluster already in that directory is wiped.
set -euo pipefail
build=${1:?build dir}
out=${2:?output dir}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/qbox/figures.sh
source "$here/figures.sh"
repo=$(cd "$here/../.." && pwd)
cluster=${QBOX_CLUSTER_DIR:-$repo/cluster-qbox}
object_size=4194304
objects=64

"$repo/vstart-configs/start.sh" --dir "$cluster" --osds 2 --port-base "${QBOX_PORT_BASE:-18300}" \
    --block-size 2G --fresh --timeout 150
trap '"$repo/vstart-configs/stop.sh" --dir "$cluster"' EXIT
export CEPH_CONF=$cluster/ceph.conf
ceph osd pool create qbox 16 16
ceph osd pool set qbox size 1 --yes-i-really-mean-it
ceph osd pool application enable qbox rados

bench=$build/tools/qbox_bench/qbox-bench
capacity=$((object_size * objects))
backend=(--backend rados --pool qbox --conf "$CEPH_CONF" --object-size "$object_size" --objects "$objects")
device="pool qbox (size 1, 16 PGs, $objects x $object_size B objects) on $(ceph osd ls | wc -l) BlueStore OSDs \
of Ceph $(ceph --version | cut -d' ' -f3), files in $cluster on $(df --output=source "$cluster" | tail -1), \
daemons and client on this machine's $(nproc) cores"
run_figures rados
