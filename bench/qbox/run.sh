#!/usr/bin/env bash
# QBox's benchmarks (bench/qbox/README.md), by part, each writing its outputs to --out:
#   simulated  figs. 3.2, 3.15, 3.16 and 3.17 on the simulated HDD and SSD (reproduce.sh, seconds)
#   overhead   enqueue + dequeue cost per request, QBox and mClock (queue_overhead.csv, seconds)
#   osd-overhead  rados bench 4 KiB write and rand read with QBox inside the OSDs against wpq,
#              4 rounds (wpq qbox | qbox wpq | ...) on one cluster of plain files (in_osd.py,
#              ports 20900.., about 8 minutes); prints each round's QBox/wpq ratios of IOPS and
#              of the OSDs' CPU time per op, and their medians, after QBox's own CPU per op
#              (qbox-shard-overhead)
#   file       the same figures on this machine's disk (file.sh, about 11 minutes)
#   rados      the same figures on a RADOS pool of a cluster of its own (rados.sh, about 11 minutes)
#   osd        QBox inside the OSDs against wpq and mclock_scheduler, figs. 3.2/3.2r/3.15 and an OSD
#              restart, on an emulated HDD, an emulated SSD and plain files (osd_shares.py, about
#              25-30 minutes; needs the build's libec_qbox.so and device emulator)
#   osd-quick  the part of osd that shows read sizes and writes: figs. 3.2r and 3.2 on the
#              emulated SSD x10 under QBox, wpq and mclock_scheduler (ports 20950.., about 7
#              minutes)
#   all        every part, in this order
# usage: bench/qbox/run.sh [simulated|overhead|osd-overhead|osd-quick|file|rados|osd|all]
#                         [--build DIR] [--out DIR]
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
        simulated|overhead|osd-overhead|osd-quick|file|rados|osd|all) part=$1; shift ;;
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,24s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ -d $build ]] || { echo "--build: $build is not a directory" >&2; exit 2; }

overhead() {
    mkdir -p "$out"
    "$build/tools/qbox_bench/qbox-queue-overhead" > "$out/queue_overhead.csv"
}

# Plain files, where the CPU is the bottleneck and what the scheduler costs shows; the rounds
# alternate wpq and QBox on one cluster (only the OSDs restart), so a load change from other work
# on the machine hits both.
osd_overhead() {
    mkdir -p "$out"
    {
        echo "QBox's own CPU per op (shard queue and OSD-wide accounting, qbox-shard-overhead):"
        "$build/src/qbox/tests/qbox-shard-overhead"
        /usr/bin/python3 "$here/in_osd.py" --plugin-dir "$build/erasure-code" --no-shares --rounds 4 \
            --port-base 20900 --dir /tmp/erails-qbox-osd-overhead
    } | tee "$out/osd_overhead.txt"
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

osd_quick() {
    mkdir -p "$out"
    /usr/bin/python3 "$here/osd_shares.py" --plugin-dir "$build/erasure-code" --device ssd \
        --time-scale 10 --figures 3.2r,3.2 --tag quick --port-base 20950 \
        --dir /tmp/erails-qbox-osd-quick --out "$out" | tee "$out/osd_ssd_quick.txt"
}

case $part in
    simulated) "$here/reproduce.sh" "$build" "$out" ;;
    overhead) overhead ;;
    file) "$here/file.sh" "$build" "$out" ;;
    rados) "$here/rados.sh" "$build" "$out" ;;
    osd) osd ;;
    osd-overhead) osd_overhead ;;
    osd-quick) osd_quick ;;
    all)
        "$here/reproduce.sh" "$build" "$out"
        overhead
        "$here/file.sh" "$build" "$out"
        "$here/rados.sh" "$build" "$out"
        osd_overhead
        osd
        ;;
esac
