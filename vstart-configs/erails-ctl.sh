#!/bin/bash
# Runs erails-ctl from this source tree against a local cluster: the commands of the rails and
# qbox controllers that `start.sh --controllers` runs (doc/controllers.rst).
#   vstart-configs/erails-ctl.sh [--dir DIR] MODULE COMMAND...    e.g. rails status -f json
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
dir_arg=""
if [[ ${1:-} == --dir ]]; then dir_arg=${2:-}; shift 2; fi
resolve_cluster_dir "$dir_arg"
[[ -e $CLUSTER_DIR/cluster.params ]] || die "no cluster in $CLUSTER_DIR"
PYTHONPATH=$ERAILS_REPO/src/mgr:$ERAILS_REPO/src/mgr_standalone \
    exec "$SYSTEM_PYTHON3" -m erails_standalone.cli -c "$CLUSTER_CONF" "$@"
