#!/usr/bin/env bash
# QBox's benchmarks (bench/qbox/README.md), by part, each writing its outputs to --out:
#   simulated  figs. 3.2, 3.15, 3.16 and 3.17 on the simulated HDD and SSD (reproduce.sh, seconds)
#   overhead   enqueue + dequeue cost per request, QBox and mClock (queue_overhead.csv, seconds)
#   file       the same figures on this machine's disk (file.sh, about 11 minutes)
#   rados      the same figures on a RADOS pool of a cluster of its own (rados.sh, about 11 minutes)
#   osd        QBox inside the OSDs against wpq and mclock_scheduler, figs. 3.2/3.2r/3.15 and an OSD
#              restart, on an emulated HDD, an emulated SSD and plain files (osd_shares.py, about
#              25-30 minutes; needs the build's libec_qbox.so and device emulator)
#   all        every part, in this order
# usage: bench/qbox/run.sh [simulated|overhead|file|rados|osd|all] [--build DIR] [--out DIR]
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
        simulated|overhead|file|rados|osd|all) part=$1; shift ;;
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ -d $build ]] || { echo "--build: $build is not a directory" >&2; exit 2; }

overhead() {
    mkdir -p "$out"
    "$build/tools/qbox_bench/qbox-queue-overhead" > "$out/queue_overhead.csv"
}

# One cluster per device kind, one after the other (ports 20600-20899); each run's printout,
# with its per-client errors and verdicts, is kept next to its CSVs.
osd() {
    mkdir -p "$out"
    local device
    for device in hdd ssd files; do
        local extra=()
        case $device in
            hdd) extra=(--recovery --recovery-mix 3.2r --port-base 20600) ;;
            ssd) extra=(--port-base 20700) ;;
            files) extra=(--figures 3.2,3.2r --port-base 20800) ;;
        esac
        /usr/bin/python3 "$here/osd_shares.py" --plugin-dir "$build/erasure-code" --device "$device" \
            --out "$out" "${extra[@]}" | tee "$out/osd_$device.txt"
    done
}

case $part in
    simulated) "$here/reproduce.sh" "$build" "$out" ;;
    overhead) overhead ;;
    file) "$here/file.sh" "$build" "$out" ;;
    rados) "$here/rados.sh" "$build" "$out" ;;
    osd) osd ;;
    all)
        "$here/reproduce.sh" "$build" "$out"
        overhead
        "$here/file.sh" "$build" "$out"
        "$here/rados.sh" "$build" "$out"
        osd
        ;;
esac
