#!/usr/bin/env bash
# Encode and decode throughput of erails next to stock jerasure (reed_sol_van, w=8), both loaded
# through Ceph's plugin ABI in the same process, for k=m=2..6 at 128 KiB and 1 MiB objects.
# Decode loses m data chunks. Throughput is MB (10^6 bytes of object) per CPU second of the
# benchmarking thread, median of 7 alternating rounds. Prints CSV and writes it to OUTPUT.csv
# (default bench/ec/results/throughput.csv).
# usage: bench/ec/run.sh [OUTPUT.csv]   (needs a build in ./build, or in $ERAILS_BUILD)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bench=${ERAILS_BUILD:-$repo/build}/tools/ec_bench/erails-ec-bench
[ -x "$bench" ] || { echo "build first: $bench is missing" >&2; exit 1; }
out=${1:-$repo/bench/ec/results/throughput.csv}

echo "workload,k,m,size,erails_MB_per_cpu_s,jerasure_MB_per_cpu_s,ratio" | tee "$out"
for km in 2 3 4 5 6; do
  for size in 131072 1048576; do
    iterations=$((1048576 * 200 / size / km))
    for workload in encode decode; do
      result=$("$bench" --workload "$workload" -k "$km" -m "$km" --size "$size" \
                        --iterations "$iterations" --rounds 7)
      erails=$(sed -n 's/^plugin=erails .*MB\/s(cpu)=\(.*\)$/\1/p' <<<"$result")
      jerasure=$(sed -n 's/^plugin=jerasure .*MB\/s(cpu)=\(.*\)$/\1/p' <<<"$result")
      ratio=$(sed -n 's/^ratio erails\/jerasure=\(.*\)$/\1/p' <<<"$result")
      echo "$workload,$km,$km,$size,$erails,$jerasure,$ratio" | tee -a "$out"
    done
  done
done
