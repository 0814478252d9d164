#!/usr/bin/env bash
# Every Ceph symbol libec_erails.so needs must be exported by each host that loads it: the OSD
# (ceph-common linked in) and the tools and monitor (libceph-common.so.2). A symbol missing from
# one of them makes dlopen(RTLD_NOW) fail only on that daemon, so check them all here. And the
# plugin itself must export nothing but the two entry points the registry looks up: anything
# more could bind to, or be bound by, a same-named symbol of another plugin in the same daemon.
# usage: exported_symbols_test.sh PLUGIN
set -euo pipefail
plugin=$1
exports=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort | paste -sd' ')
[ "$exports" = "__erasure_code_init __erasure_code_version" ] ||
  { echo "FAIL: $plugin exports more than its two entry points: $exports"; exit 1; }
ceph_common=/usr/lib/x86_64-linux-gnu/ceph/libceph-common.so.2
needed=$(nm -D --undefined-only "$plugin" | awk '{print $2}' | sed 's/@.*//' |
         grep -E '^_ZN4ceph|^_ZNK4ceph|^_ZN12CrushWrapper|^crush_' || true)
[ -n "$needed" ] || { echo "FAIL: $plugin needs no Ceph symbol at all?"; exit 1; }
status=0
for host in /usr/bin/ceph-osd /usr/bin/ceph-mon; do
  exported=$(nm -D --defined-only "$host" | awk '{print $3}')
  [ "$host" = /usr/bin/ceph-mon ] && exported+=$'\n'$(nm -D --defined-only "$ceph_common" | awk '{print $3}' | sed 's/@.*//')
  missing=$(comm -23 <(sort -u <<<"$needed") <(sort -u <<<"$exported"))
  for symbol in $missing; do
    echo "FAIL: $host does not export $(echo "$symbol" | c++filt)"
    status=1
  done
done
[ "$status" -eq 0 ] && echo "ok: $(wc -w <<<"$needed") Ceph symbols, all exported by ceph-osd and ceph-mon"
exit "$status"
