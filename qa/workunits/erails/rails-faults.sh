#!/usr/bin/env bash
# Turns the rails mgr module off (mgr/rails/active false), then disables and enables it again,
# each under an acknowledged-writes workload on the Rails pool named by ERAILS_RAILS_POOL: no OSD
# may stay held once the module is inactive, held bytes must stay within its held_bytes_budget and
# no acknowledged write may be lost. Needs a cluster running the rails module and a pool whose
# erails profile has crush-colors, so the suite does not schedule it (its clusters run no module
# of ours); tests/cluster/test_rails_faults.py runs it locally with the daemon kills added.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

: "${ERAILS_RAILS_POOL:?ERAILS_RAILS_POOL must name a pool whose erails profile has crush-colors}"
# rails_faults.py reads BlueStore's counters through the installed rails module's accounting: in
# ceph-mgr's module directory, or erails' own where ceph-mgr runs no Python module.
modules=$(ceph-conf -c /dev/null --show-config-value mgr_module_path):/usr/share/erails/python
PYTHONPATH=$modules${PYTHONPATH:+:$PYTHONPATH} \
    "$PYTHON" "$WORKUNIT_DIR/rails_faults.py" --pool "$ERAILS_RAILS_POOL" --seconds "${ERAILS_SECONDS:-30}"
echo OK
