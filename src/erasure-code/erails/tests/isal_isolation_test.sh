#!/usr/bin/env bash
# libec_erails.so runs on Debian's libisal.so, while Ceph's libec_isa.so carries its own copy of
# ISA-L under the same function names (and libceph-common.so, in every daemon, ISA-L's crc ones).
# Loads both plugins (and jerasure) into one process, isa first, has each encode and decode, and
# checks with the dynamic linker's own trace that every ISA-L name used by erails or by Debian's
# ISA-L resolved into Debian's ISA-L, and every one used by libec_isa.so into libec_isa.so. Once
# as Ceph loads plugins (RTLD_LOCAL), once with libec_isa.so preloaded into the global scope, the
# worst a host could do.
# usage: isal_isolation_test.sh PLUGIN_DIR ERAILS_EC_BENCH
set -euo pipefail
plugin_dir=$1
bench=$2
stock=/usr/lib/x86_64-linux-gnu/ceph/erasure-code
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for preload in "" "$stock/libec_isa.so"; do
  for workload in encode decode; do
    LD_PRELOAD=$preload LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/trace.$workload${preload:+.preload}" \
      "$bench" --plugin "isa=$stock" --plugin "erails=$plugin_dir" --plugin "jerasure=$stock" \
               -k 4 -m 2 --workload "$workload" --size 65536 --iterations 5 --rounds 1 >"$work/out" ||
      { echo "FAIL: erails-ec-bench $workload with isa, erails and jerasure (preload: ${preload:-none})"
        cat "$work/out"; exit 1; }
  done
done

# "binding file FROM [0] to TO [0]: normal symbol `NAME'" -> FROM TO NAME
sed -nE "s/.*binding file ([^ ]+) \[[0-9]+\] to ([^ ]+) \[[0-9]+\]: [a-z]+ symbol \`([^']+)'.*/\1 \2 \3/p" \
  "$work"/trace.* | sort -u >"$work/bindings"
isal=$(awk '$2 ~ /\/libisal\.so\.[0-9]+$/ {print $2; exit}' "$work/bindings")
[ -n "$isal" ] || { echo "FAIL: nothing bound into Debian's libisal.so: is erails using ISA-L?"; exit 1; }
nm -D --defined-only "$isal" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$work/isal_names"

status=0
checked_erails=0
checked_isa=0
while read -r from to name; do
  grep -qx "$name" "$work/isal_names" || continue
  case "$from" in
    */libec_erails.so | */libisal.so.*)
      checked_erails=$((checked_erails + 1))
      [ "$to" = "$isal" ] || { echo "FAIL: $from's $name bound to $to, not $isal"; status=1; } ;;
    */libec_isa.so)
      checked_isa=$((checked_isa + 1))
      [ "$to" = "$from" ] || { echo "FAIL: libec_isa.so's $name bound to $to"; status=1; } ;;
  esac
done <"$work/bindings"
for name in ec_encode_data ec_init_tables gf_invert_matrix; do
  grep -q " $isal $name\$" "$work/bindings" || { echo "FAIL: erails never resolved $name in $isal"; status=1; }
done
[ "$checked_isa" -gt 0 ] || { echo "FAIL: no ISA-L binding of libec_isa.so seen: was it loaded?"; status=1; }
[ "$status" -eq 0 ] &&
  echo "ok: $checked_erails ISA-L bindings of erails and libisal, $checked_isa of libec_isa.so, none crossed"
exit "$status"
