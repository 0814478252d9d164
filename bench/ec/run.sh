#!/usr/bin/env bash
# Encode and decode throughput of erails next to Ceph's own isa (ISA-L) and jerasure plugins,
# reed_sol_van with w=8, all three loaded through Ceph's plugin ABI in one erails-ec-bench process
# per row with alternating rounds. Geometries 2+1 2+2 3+2 4+2 6+3 8+3 8+4; objects of 4 KiB,
# 64 KiB and 1 MiB; encode, decode after losing 1 data chunk, and after losing m data chunks.
# Throughput is MB (10^6 bytes of object) per CPU second of the benchmarking thread, median of
# the rounds; each row also times memcpy of the object (the most one core moves through these
# buffers), erails' codec without the Ceph adapter, and reports its decode-table cache.
#
# Writes OUTPUT_DIR/throughput.csv, OUTPUT_DIR/throughput.png and OUTPUT_DIR/machine.txt (when,
# where, build type, load average before and after, run time), and prints the ratio table.
# usage: bench/ec/run.sh [OUTPUT_DIR]   (default bench/ec/results; needs a build in ./build or
#        $ERAILS_BUILD; ERAILS_EC_ROUNDS (7) and ERAILS_EC_ROUND_MB (256, object MB per plugin
#        per round) trade run time for steadier medians)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${ERAILS_BUILD:-$repo/build}
bench=$build/tools/ec_bench/erails-ec-bench
[ -x "$bench" ] || { echo "build first: $bench is missing" >&2; exit 1; }
out=${1:-$repo/bench/ec/results}
stock=/usr/lib/x86_64-linux-gnu/ceph/erasure-code
rounds=${ERAILS_EC_ROUNDS:-7}
round_mb=${ERAILS_EC_ROUND_MB:-256}
mkdir -p "$out"
csv=$out/throughput.csv
start=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

field() { sed -n "s/^$1.* $2=\([^ ]*\).*/\1/p" <<<"$result"; }
ratio() { sed -n "s/^ratio erails\/$1=//p" <<<"$result"; }
echo "workload,k,m,erasures,size,erails_MBps,isa_MBps,jerasure_MBps,codec_MBps,memcpy_MBps,erails_over_isa,erails_over_jerasure,erails_of_memcpy,isa_of_memcpy,jerasure_of_memcpy,cache_entries,cache_hit_rate" >"$csv"
for geometry in 2+1 2+2 3+2 4+2 6+3 8+3 8+4; do
  k=${geometry%+*} m=${geometry#*+}
  cases="encode:0 decode:1"
  [ "$m" -gt 1 ] && cases+=" decode:$m"
  for size in 4096 65536 1048576; do
    for case in $cases; do
      workload=${case%:*} erasures=${case#*:}
      result=$("$bench" --plugin "erails=$build/erasure-code" --plugin "isa=$stock" \
                        --plugin "jerasure=$stock" --codec --workload "$workload" -k "$k" -m "$m" \
                        --erasures "$erasures" --size "$size" --rounds "$rounds" \
                        --iterations $((round_mb * 1048576 / size)))
      cache_entries="" hit_rate=""
      if [ "$workload" = decode ]; then
        cache_entries=$(field decode_cache entries) hit_rate=$(field decode_cache hit_rate)
      fi
      echo "$workload,$k,$m,$erasures,$size,$(field 'plugin=erails ' 'MB\/s(cpu)'),$(field 'plugin=isa ' 'MB\/s(cpu)'),$(field 'plugin=jerasure ' 'MB\/s(cpu)'),$(field codec= 'MB\/s(cpu)'),$(field baseline= 'MB\/s(cpu)'),$(ratio isa),$(ratio jerasure),$(field 'plugin=erails ' of_memcpy),$(field 'plugin=isa ' of_memcpy),$(field 'plugin=jerasure ' of_memcpy),$cache_entries,$hit_rate" >>"$csv"
      tail -n 1 "$csv" >&2
    done
  done
done

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "build type: $(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt")"
  echo "plugins: erails from $build/erasure-code; isa and jerasure from $stock ($(dpkg-query -W -f='${Version}' ceph-osd))"
  echo "ISA-L: $(dpkg-query -W -f='${Version}' libisal2)"
  echo "rounds: $rounds, $round_mb MB of objects per plugin per round"
  echo "load average before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "run time: $(($(date +%s) - start)) s"
} >"$out/machine.txt"
/usr/bin/python3 "$repo/bench/ec/plot.py" "$csv" "$out/throughput.png"
cat "$out/machine.txt"
/usr/bin/python3 "$repo/bench/ec/plot.py" --table "$csv"
