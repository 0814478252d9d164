#!/usr/bin/env bash
# Looks for tests that pass only by luck: runs the tests that need no cluster many times over, in
# parallel, while a busy loop keeps every core busy, then the cluster tests several times in a row.
# A test that fails here depends on timing, on the machine's load or on another test.
#   scripts/stress-tests.sh                      20 rounds under load, the cluster tests 3 times
#   scripts/stress-tests.sh --repeat 50 --cluster-runs 0
# Builds like scripts/test.sh (ERAILS_BUILD, ERAILS_JOBS); run scripts/install-deps.sh first.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${ERAILS_BUILD:-$repo/build}
jobs=${ERAILS_JOBS:-2}
repeat=20
cluster_runs=3
parallel=4
# Each busy loop ends by itself after this long, even if this script is killed.
hog_seconds=7200

die() { echo "stress-tests.sh: $*" >&2; exit 2; }
while (($#)); do
    case $1 in
        --repeat) repeat=$2; shift 2 ;;
        --cluster-runs) cluster_runs=$2; shift 2 ;;
        --parallel) parallel=$2; shift 2 ;;
        -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (accepted: --repeat N, --cluster-runs N, --parallel N)" ;;
    esac
done
[[ $repeat =~ ^[0-9]+$ ]] && ((repeat >= 1)) || die "--repeat must be a whole number >= 1, got '$repeat'"
[[ $cluster_runs =~ ^[0-9]+$ ]] || die "--cluster-runs must be a whole number >= 0, got '$cluster_runs'"
[[ $parallel =~ ^[0-9]+$ ]] && ((parallel >= 1)) || die "--parallel must be a whole number >= 1, got '$parallel'"

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$jobs"
cd "$build"

hogs=()
stop_hogs() { ((${#hogs[@]} == 0)) || kill "${hogs[@]}" 2>/dev/null || true; hogs=(); }
trap stop_hogs EXIT
for ((i = 0; i < $(nproc); i++)); do
    timeout "$hog_seconds" sh -c 'while :; do :; done' &
    hogs+=($!)
done

failed=0
began=$SECONDS
echo "stress-tests: the tests without a cluster, $repeat rounds, $parallel at once, beside ${#hogs[@]} busy loops"
ctest --output-on-failure -j "$parallel" -LE 'cluster|fuzz|faults' --repeat "until-fail:$repeat" || failed=1
echo "stress-tests: $((SECONDS - began)) s under load"
stop_hogs

for ((run = 1; run <= cluster_runs; run++)); do
    echo "stress-tests: the cluster tests, run $run of $cluster_runs"
    ctest --output-on-failure -L cluster -LE faults || failed=1
done
if ((failed)); then echo "stress-tests: FAILED (see above)"; exit 1; fi
echo "stress-tests: every run passed"
