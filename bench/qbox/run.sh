#!/usr/bin/env bash
# QBox's benchmarks (bench/qbox/README.md), by part, each writing its outputs to --out:
#   simulated  figs. 3.2, 3.15, 3.16 and 3.17 on the simulated HDD and SSD (reproduce.sh, seconds)
#   overhead   enqueue + dequeue cost per request, QBox and mClock (queue_overhead.csv, seconds)
#   file       the same figures on this machine's disk (file.sh, about 11 minutes)
#   rados      the same figures on a RADOS pool of a cluster of its own (rados.sh, about 11 minutes)
#   all        every part, in this order
# usage: bench/qbox/run.sh [simulated|overhead|file|rados|all] [--build DIR] [--out DIR]
#   --build  the build tree with qbox-bench and qbox-queue-overhead (default $ERAILS_BUILD or
#            <repo>/build); simulated needs -DERAILS_WITH_SIM=ON and rados -DERAILS_WITH_CEPH=ON
#   --out    default bench/qbox/results
# The part defaults to simulated, the only one quick enough to run on a whim.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${ERAILS_BUILD:-$repo/build}
out=$here/results
part=simulated
while (($#)); do
    case $1 in
        simulated|overhead|file|rados|all) part=$1; shift ;;
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ -d $build ]] || { echo "--build: $build is not a directory" >&2; exit 2; }

overhead() {
    mkdir -p "$out"
    "$build/tools/qbox_bench/qbox-queue-overhead" > "$out/queue_overhead.csv"
}

case $part in
    simulated) "$here/reproduce.sh" "$build" "$out" ;;
    overhead) overhead ;;
    file) "$here/file.sh" "$build" "$out" ;;
    rados) "$here/rados.sh" "$build" "$out" ;;
    all)
        "$here/reproduce.sh" "$build" "$out"
        overhead
        "$here/file.sh" "$build" "$out"
        "$here/rados.sh" "$build" "$out"
        ;;
esac
