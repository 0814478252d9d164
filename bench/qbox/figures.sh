# shellcheck shell=bash disable=SC2154  # bench, out, device, backend, capacity: set by the caller
# The thesis figures' runs on a real device (sourced by file.sh and rados.sh, which say which
# device): figs. 3.2, 3.15, 3.16 and 3.17 under qbox and fifo, then every client of each figure
# alone on the same device with the same pattern, which black_box.py needs to measure shares from
# throughput (a real device does not report per-request time). Summaries, PNGs and a conditions
# file (when, where, how loaded the machine was before each run) go next to the CSVs.
#
# Before calling run_figures, set:
#   bench     the qbox-bench binary
#   out       the output directory
#   device    what the device is, one line, for the conditions file
#   backend   array of qbox-bench arguments that select the device (--backend ... --path/--pool ...)
#   capacity  the device's size in bytes as qbox-bench will see it (placement of the streams)
# On a shared machine, QBOX_WAIT_WHILE=FILE holds each run back while FILE exists (another user's
# sign that they are measuring); the waits go to the conditions file.

qbox_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py=/usr/bin/python3

# Windows are 2 s. The estimator starts from disk-like default prices (0.2 ms sequential, 8 ms
# random), tens to hundreds of times what these devices take, and reaches theirs after about 14 s;
# until then QBox's own accounting holds the targets but the device's time does not. So the
# summaries leave out the first 16 s of the figure runs and the first window of the standalone
# runs. Figure runs take 30 s (fixed targets) or 60 s (ramps, traces) and standalone runs 16 s:
# about 10 minutes for the whole set on one device.
report_window=2
skip=16
alone_skip=2
fixed_seconds=30
ramp_seconds=60
alone_seconds=16
dispatch_depth=32
# Twice the dispatch depth, so every client stays backlogged while its requests are in flight.
client_depth=64
request=8192  # the thesis' request size in ch. 3

# Sequential streams get disjoint regions (the n-th of `parts` equal parts of the device, on a
# 1 MiB boundary) so that standalone runs read exactly where the stream read in the figure run.
region_start() {  # n parts
  echo $(( capacity * $1 / $2 / 1048576 * 1048576 ))
}

note() {  # text...
  echo "$*" >> "$out/$prefix.conditions.txt"
}

run_one() {  # name scheduler duration client-spec...
  local name=$1 scheduler=$2 duration=$3
  shift 3
  local clients=()
  for spec in "$@"; do clients+=(--client "$spec"); done
  if [[ -n ${QBOX_WAIT_WHILE:-} && -e $QBOX_WAIT_WHILE ]]; then
    note "$(date -u +%H:%M:%S) waiting while $QBOX_WAIT_WHILE exists"
    while [[ -e $QBOX_WAIT_WHILE ]]; do sleep 10; done
  fi
  note "$(date -u +%H:%M:%S) $name: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$bench" "${backend[@]}" --scheduler "$scheduler" --duration "$duration" --window "$report_window" \
    --depth "$dispatch_depth" "${clients[@]}" > "$out/${prefix}_$name.csv"
}

# One figure: its runs under qbox and fifo, then each client alone (util=1: the whole device),
# then the summary and the PNG. Specs are given without util; targets follow, one per client.
figure() {  # fig duration "spec|target" ...
  local fig=$1 duration=$2
  shift 2
  local with_targets=() alone=() spec name
  for pair in "$@"; do with_targets+=("${pair%|*},util=${pair#*|}"); done
  for scheduler in qbox fifo; do
    run_one "${fig}_$scheduler" "$scheduler" "$duration" "${with_targets[@]}"
  done
  for pair in "$@"; do
    spec=${pair%|*}
    name=${spec#name=}
    name=${name%%,*}
    # One client: every scheduler serves it in order.
    run_one "${fig}_alone_$name" fifo "$alone_seconds" "$spec,util=1"
    alone+=(--alone "$out/${prefix}_${fig}_alone_$name.csv")
  done
  "$py" "$qbox_dir/summarize.py" --skip "$skip" --alone-skip "$alone_skip" "${alone[@]}" --png "$out/${prefix}_$fig.png" \
    "$out/${prefix}_${fig}_qbox.csv" "$out/${prefix}_${fig}_fifo.csv" > "$out/${prefix}_$fig.summary.csv"
}

run_figures() {  # prefix
  prefix=$1
  mkdir -p "$out"
  : > "$out/$prefix.conditions.txt"
  note "started $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n), $(uname -sr)"
  note "cpu: $(nproc) x $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1), memory $(free -g | awk '/^Mem:/ {print $2}') GiB"
  note "device: $device"
  local seq="pattern=sequential,size=$request,depth=$client_depth"
  local rand="pattern=random,size=$request,depth=$client_depth"
  "$py" "$qbox_dir/make_trace.py" "$out/trace_a.csv" 1
  "$py" "$qbox_dir/make_trace.py" "$out/trace_b.csv" 2

  # Fig. 3.2: three sequential streams at 10% each, a random stream at 70%.
  figure fig3_2 "$fixed_seconds" \
    "name=S1,$seq,start=$(region_start 0 4)|0.1" "name=S2,$seq,start=$(region_start 1 4)|0.1" \
    "name=S3,$seq,start=$(region_start 2 4)|0.1" "name=R,$rand|0.7"
  # Fig. 3.15: sequential A 50% -> 0, sequential B 0 -> 50%, random C fixed at 50%.
  figure fig3_15 "$ramp_seconds" \
    "name=A,$seq,start=$(region_start 0 3)|0.5:0" "name=B,$seq,start=$(region_start 1 3)|0:0.5" \
    "name=C,$rand|0.5"
  # Fig. 3.16: random A 50% -> 0, random B 0 -> 50%, sequential S fixed at 50%.
  figure fig3_16 "$ramp_seconds" \
    "name=A,$rand|0.5:0" "name=B,$rand|0:0.5" "name=S,$seq,start=$(region_start 2 3)|0.5"
  # Fig. 3.17: two synthetic semi-sequential traces (the thesis' Deasna2 days are not available
  # here) and a random stream.
  figure fig3_17 "$ramp_seconds" \
    "name=A,pattern=trace,trace=$out/trace_a.csv,depth=$client_depth,start=$(region_start 0 3)|0.3" \
    "name=B,pattern=trace,trace=$out/trace_b.csv,depth=$client_depth,start=$(region_start 1 3)|0.2" \
    "name=C,$rand|0.5"
  note "finished $(date -u '+%H:%M:%S'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
