#!/bin/bash
# Runs the erails workunits (qa/workunits/erails/) against a local cluster from
# vstart-configs/start.sh, once per erasure-code facet of the teuthology suite, the way the
# suite's workunit task would run them against a lab cluster.
#   qa/run-local.sh [--plugin-dir DIR] [--dir DIR] [--port-base P] [--keep]
#                   [--facet erasure-code/FILE.yaml]... [WORKUNIT]...
# Defaults: every facet, every workunit, a cluster of its own in <repo>/cluster-qa on ports from
# 17700, stopped at the end unless --keep. ERAILS_SECONDS (default 20 here) sets the write time
# of acked-writes.sh. Exit status: the number of failed runs (capped at 100).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
suite=$repo/qa/suites/rados/erails
workunits=$repo/qa/workunits
plugin_dir=${ERAILS_PLUGIN_DIR:-$repo/build/erasure-code}
cluster_dir=$repo/cluster-qa
port_base=17700
keep=0
facets=()
units=()
while (($#)); do
    case $1 in
        --plugin-dir) plugin_dir=$2; shift 2 ;;
        --dir) cluster_dir=$2; shift 2 ;;
        --port-base) port_base=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        --facet) facets+=("$suite/$2"); shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        -*) echo "unknown option '$1'" >&2; exit 2 ;;
        *) units+=("$1"); shift ;;
    esac
done
((${#facets[@]})) || facets=("$suite"/erasure-code/*.yaml)
if ((${#units[@]} == 0)); then
    # The workunits the suite schedules, in its order.
    mapfile -t units < <(/usr/bin/python3 -c '
import sys, yaml
for task in yaml.safe_load(open(sys.argv[1]))["tasks"]:
    for client_units in task.get("workunit", {}).get("clients", {}).values():
        print("\n".join(client_units))' "$suite/workloads/workunits.yaml")
fi
for unit in "${units[@]}"; do
    [[ -x $workunits/$unit ]] || { echo "no executable workunit $workunits/$unit" >&2; exit 2; }
done
[[ -e $plugin_dir/libec_erails.so ]] \
    || { echo "no libec_erails.so in $plugin_dir (pass --plugin-dir <build>/erasure-code)" >&2; exit 2; }

"$repo/vstart-configs/start.sh" --dir "$cluster_dir" --port-base "$port_base" --plugin-dir "$plugin_dir"
# Without --keep the cluster is stopped at the end, and removed too when every run passed (its
# OSD files hold gigabytes; the logs only matter after a failure).
finish() {
    ((keep)) && return
    "$repo/vstart-configs/stop.sh" --dir "$cluster_dir" >/dev/null
    ((failed == 0)) && rm -rf "$cluster_dir"
}
failed=0
trap finish EXIT

# Workunits are run as teuthology runs them: from a scratch directory, with the cluster reachable
# through the environment, and the facet's workunit env applied.
results=()
for facet in "${facets[@]}"; do
    profile=$(/usr/bin/python3 -c '
import sys, yaml
print(yaml.safe_load(open(sys.argv[1]))["overrides"]["workunit"]["env"]["ERAILS_PROFILE"])' "$facet")
    for unit in "${units[@]}"; do
        scratch=$(mktemp -d)
        log=$cluster_dir/log/workunit-$(basename "$facet" .yaml)-$(basename "$unit" .sh).log
        began=$SECONDS
        if (cd "$scratch" && CEPH_CONF=$cluster_dir/ceph.conf ERAILS_PROFILE=$profile \
                ERAILS_SECONDS=${ERAILS_SECONDS:-20} \
                PYTHON=/usr/bin/python3 TESTDIR=$scratch "$workunits/$unit") >"$log" 2>&1; then
            status=PASS
        else
            status=FAIL
            failed=$((failed + 1))
        fi
        rm -rf "$scratch"
        results+=("$(printf '%s  %-40s %-24s %4ss  %s' "$status" "$(basename "$facet")" "$unit" \
            $((SECONDS - began)) "$log")")
        echo "${results[-1]}"
    done
done
echo
echo "$((${#results[@]} - failed)) passed, $failed failed"
((failed == 0)) || echo "logs in $cluster_dir/log"
exit $((failed > 100 ? 100 : failed))
