#!/bin/bash
# Enables a mgr module from this source tree (src/mgr/NAME) on a local cluster, even where the
# erails package installed one: ceph-mgr gets a module directory of Ceph's modules and this one,
# and, since it reads that directory only when it starts, is restarted.
#   vstart-configs/enable_module.sh [--dir DIR] NAME
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { echo "usage: $(basename "$0") [--dir DIR] NAME   (NAME: a directory of $ERAILS_REPO/src/mgr)"; }
dir_arg=""
name=""
while (($#)); do
    case $1 in
        --dir) dir_arg=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) usage >&2; die "unknown option $1" ;;
        *) [[ -z $name ]] || { usage >&2; die "one module name, got '$name' and '$1'"; }
           name=$1; shift ;;
    esac
done
[[ -n $name ]] || { usage >&2; die "no module name"; }
source_dir=$ERAILS_REPO/src/mgr/$name
[[ -f $source_dir/module.py ]] || die "no mgr module '$name': $source_dir/module.py does not exist"
resolve_cluster_dir "$dir_arg"
[[ -e $CLUSTER_DIR/cluster.params ]] || die "no cluster in $CLUSTER_DIR"
mgr_pid=$(daemon_pid mgr.x) || die "mgr.x of $CLUSTER_DIR is not running (vstart-configs/start.sh starts it)"
export CEPH_CONF=$CLUSTER_CONF
# Ceph's own modules are where a mgr looks by default.
ceph_modules=$(ceph-conf -c /dev/null --show-config-value mgr_module_path)
[[ -d $ceph_modules ]] || die "Ceph's mgr module directory '$ceph_modules' (mgr_module_path) does not exist"

module_dir=$CLUSTER_DIR/mgr-modules
echo "enabling the $name mgr module from $source_dir (mgr_module_path $module_dir)"
mkdir -p "$module_dir"
for module in "$ceph_modules"/*; do
    [[ ${module##*/} == "$name" ]] || ln -sfn "$module" "$module_dir/${module##*/}"
done
ln -sfn "$source_dir" "$module_dir/$name"
ceph config set mgr mgr_module_path "$module_dir"
kill -TERM "$mgr_pid"
wait_for "mgr.x to stop" 30 eval "! kill -0 $mgr_pid"
ceph-mgr -c "$CLUSTER_CONF" -i x >>"$CLUSTER_DIR/log/mgr.x.stdout" 2>&1 \
    || die "ceph-mgr -i x failed to start; see $CLUSTER_DIR/log/mgr.x.log"
wait_for "the mgr to offer the $name module" 120 mgr_offers_module "$name"
ceph mgr module enable "$name"
