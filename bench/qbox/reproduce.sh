#!/usr/bin/env bash
# Reproduces QBox figures 3.2, 3.15/3.16 and 3.17 on the simulated HDD and SSD of src/sim, and
# runs the mixes of the OSD benchmark with the OSD's pricing beside the thesis' (a few seconds;
# file.sh and rados.sh run the figures on real devices). Writes CSVs, summaries and PNGs to OUT.
#
# usage: bench/qbox/reproduce.sh BUILD_DIR OUT_DIR
#   BUILD_DIR: a tree configured with -DERAILS_WITH_SIM=ON (qbox-bench with sim-hdd/sim-ssd)
set -euo pipefail
build=${1:?build dir}
out=${2:?output dir}
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/tools/qbox_bench/qbox-bench
py=/usr/bin/python3
mkdir -p "$out"

run() {  # name, then qbox-bench arguments
  local name=$1; shift
  "$bench" "$@" > "$out/$name.csv"
}

# The HDD model serves requests in submission order with no elevator: a request is cheap only if it
# starts where the previously dispatched one ended. So on it QBox classifies requests in dispatch
# order (each client pays for the seeks its own requests make), lets a sequential run keep the
# device while its deadline is within 0.05 s of the earliest (no seek per interleaved request), and
# estimates over 0.4 s windows (a 100 ms window holds only ~4 random requests at NCQ 1, and the
# one cut at each window edge then dominates the estimate). doc/qbox.rst shows the runs without.
hdd_qbox=(--classify dispatch --sequential-slack 0.05 --estimator-window 0.4)

# Fig. 3.2 / 3.8a: three sequential streams at 10% each and a random stream at 70% (HDD, 8 KiB,
# no NCQ). QBox keeps the sequential streams' share; throughput-based scheduling gives the random
# stream as many requests as each sequential one and the sequential streams starve.
for sched in qbox fifo mclock; do
  run fig3_2_hdd_$sched --backend sim-hdd "${hdd_qbox[@]}" --ncq 1 --scheduler $sched --duration 60 --window 2 --depth 32 \
    --client name=S1,pattern=sequential,size=8192,util=0.1,depth=64 \
    --client name=S2,pattern=sequential,size=8192,util=0.1,depth=64 \
    --client name=S3,pattern=sequential,size=8192,util=0.1,depth=64 \
    --client name=R,pattern=random,size=8192,util=0.7,depth=64
done
# The same on the simulated SSD, where random and sequential reads differ far less.
for sched in qbox fifo; do
  run fig3_2_ssd_$sched --backend sim-ssd --scheduler $sched --duration 20 --window 1 --depth 32 \
    --client name=S1,pattern=sequential,size=8192,util=0.1,depth=64 \
    --client name=S2,pattern=sequential,size=8192,util=0.1,depth=64 \
    --client name=S3,pattern=sequential,size=8192,util=0.1,depth=64 \
    --client name=R,pattern=random,size=65536,util=0.7,depth=64
done

# Figs. 3.2 and 3.2w with their writers: the mixes osd_shares.py runs inside ceph-osd, in front of
# the device models it emulates there, at the same time scales (its --device ssd --time-scale 10
# and --device hdd). Three ways to share: QBox pricing with the thesis' estimator (qbox), QBox
# pricing as it does inside the OSD (qbox_osd: a read costs its measured time, a write what the
# write pricer infers, src/qbox/osd_shares.h), and fifo. Each client keeps 16 requests
# outstanding, as there. At dispatch depth 8 every client's backlog waits in QBox's queue (thesis
# §3.4.1); at depth 32 (the *_depth32 runs) a client's 16 can all be at the device at once, as a
# write is in the OSD once its thread has submitted it. Black-box shares (a client's IOPS / its
# IOPS alone, as osd_shares.py measures them) need each client alone on a fresh device.
ssd_x10=(--backend sim-ssd --time-scale 10)
hdd_x2=(--backend sim-hdd --ncq 32 --device-size 2e12 --time-scale 2)
declare -A client_spec=(
  [SR]=pattern=sequential,size=131072
  [SW]=pattern=sequential,op=write,size=1048576
  [RW]=pattern=random,op=write,size=4096
  [RR]=pattern=random,size=4096
  [SR2]=pattern=sequential,size=131072
)
declare -A osd_mix=([fig3_2_writers]="SR:0.125 SW:0.125 RW:0.125 RR:0.625" [fig3_2w]="RW:0.2 SW:0.2 RR:0.6"
  [fig3_2r]="SR:0.125 SR2:0.125 RR:0.75")
side_by_side() {  # figure, device (ssd|hdd), dispatch depth, then the device's qbox-bench arguments
  local fig=$1 device=$2 depth=$3; shift 3
  local name=${fig}_${device}; ((depth == 8)) || name+=_depth$depth
  local clients=() alone=() entry client
  for entry in ${osd_mix[$fig]}; do
    client=${entry%%:*}
    clients+=(--client "name=$client,${client_spec[$client]},util=${entry#*:},depth=16")
    run "${name}_alone_$client" "$@" --scheduler fifo --duration 40 --window 2 --depth "$depth" \
      --client "name=$client,${client_spec[$client]},util=1,depth=16"
    alone+=(--alone "$out/${name}_alone_$client.csv")
  done
  run "${name}_qbox" "$@" --scheduler qbox --duration 40 --window 2 --depth "$depth" "${clients[@]}"
  run "${name}_qbox_osd" "$@" --scheduler qbox --pricing osd --duration 40 --window 2 \
    --depth "$depth" "${clients[@]}"
  run "${name}_fifo" "$@" --scheduler fifo --duration 40 --window 2 --depth "$depth" "${clients[@]}"
  $py "$here/summarize.py" --skip 4 "${alone[@]}" --png "$out/$name.png" "$out/${name}_qbox.csv" \
    "$out/${name}_qbox_osd.csv" "$out/${name}_fifo.csv" > "$out/$name.summary.csv"
}
for fig in fig3_2_writers fig3_2w; do
  for depth in 8 32; do
    side_by_side $fig ssd $depth "${ssd_x10[@]}"
    side_by_side $fig hdd $depth "${hdd_x2[@]}"
  done
done
# The control for the 128 KiB reader: at depth 4, drive B's parallelism, no request waits in the
# drive's own queue, so a request's time in flight is its time on a unit. With and without writers.
side_by_side fig3_2_writers ssd 4 "${ssd_x10[@]}"
for depth in 4 8; do side_by_side fig3_2r ssd $depth "${ssd_x10[@]}"; done

# Fig. 3.15: sequential A ramps 50%->0, sequential B 0->50%, random C fixed at 50%; NCQ 1 and 32.
# Fig. 3.16: random A 50%->0, random B 0->50%, sequential S fixed at 50%.
for ncq in 1 32; do
  for sched in qbox fifo; do
    run fig3_15_hdd_ncq${ncq}_$sched --backend sim-hdd "${hdd_qbox[@]}" --ncq $ncq --scheduler $sched --duration 120 --window 4 --depth 32 \
      --client name=A,pattern=sequential,size=8192,util=0.5:0,depth=64 \
      --client name=B,pattern=sequential,size=8192,util=0:0.5,depth=64 \
      --client name=C,pattern=random,size=8192,util=0.5,depth=64
    run fig3_16_hdd_ncq${ncq}_$sched --backend sim-hdd "${hdd_qbox[@]}" --ncq $ncq --scheduler $sched --duration 120 --window 4 --depth 32 \
      --client name=A,pattern=random,size=8192,util=0.5:0,depth=64 \
      --client name=B,pattern=random,size=8192,util=0:0.5,depth=64 \
      --client name=S,pattern=sequential,size=8192,util=0.5,depth=64
  done
done

# Fig. 3.17: two trace streams (synthetic semi-sequential traces in MSR format: the thesis'
# Deasna2 days are not available here) and a random stream.
$py "$here/make_trace.py" "$out/trace_a.csv" 1
$py "$here/make_trace.py" "$out/trace_b.csv" 2
for sched in qbox fifo; do
  run fig3_17_hdd_$sched --backend sim-hdd "${hdd_qbox[@]}" --ncq 1 --scheduler $sched --duration 120 --window 4 --depth 32 \
    --client name=A,pattern=trace,trace="$out/trace_a.csv",util=0.3,depth=64 \
    --client name=B,pattern=trace,trace="$out/trace_b.csv",util=0.2,depth=64 \
    --client name=C,pattern=random,size=8192,util=0.5,depth=64
done

for fig in fig3_2_hdd fig3_2_ssd fig3_15_hdd_ncq1 fig3_15_hdd_ncq32 fig3_16_hdd_ncq1 fig3_16_hdd_ncq32 fig3_17_hdd; do
  $py "$here/summarize.py" --skip 4 --png "$out/$fig.png" "$out/${fig}"_*.csv > "$out/$fig.summary.csv"
done

