#!/usr/bin/env bash
# Writes checksummed objects for ERAILS_SECONDS (default 60) and reads every acknowledged one
# back. Under teuthology's thrasher, OSDs die and return meanwhile; nothing acknowledged may be lost.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pool=erails-ack-$SUFFIX
trap 'remove_pool "$pool"' EXIT
create_pool "$pool"
"$PYTHON" "$WORKUNIT_DIR/ack_workload.py" --pool "$pool" --seconds "${ERAILS_SECONDS:-60}"
echo OK
