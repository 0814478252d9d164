#!/usr/bin/env bash
# Drives libec_erails.so through Ceph's own ceph-erasure-code-tool: the plugin must load in a
# Ceph executable, validate profiles, and encode objects that decode after losing any shard.
# usage: ceph_tool_test.sh PLUGIN_DIR
set -euo pipefail
plugin_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
tool() { ceph-erasure-code-tool -c /dev/null --crash_dir "$work" --erasure_code_dir "$plugin_dir" "$@" 2>"$work/stderr"; }
fail() { echo "FAIL: $*"; cat "$work/stderr"; exit 1; }

tool test-plugin-exists erails || fail "test-plugin-exists erails"
[ "$(tool validate-profile plugin=erails,k=4,m=2 chunk_count)" = "6" ] ||
  fail "validate-profile k=4 m=2 should report 6 chunks"
[ "$(tool calc-chunk-size plugin=erails,k=4,m=2 100000)" = "25024" ] ||
  fail "calc-chunk-size: 100000 bytes over k=4 rounds up to 25024 (a multiple of 64)"

# The tool itself crashes after reporting an invalid profile, even with the stock plugins:
# what matters is that it fails and prints the plugin's message naming the key.
if (tool validate-profile plugin=erails,k=4,m=2,technique=nope >/dev/null) 2>/dev/null; then
  fail "a bad technique was accepted"
fi
grep -q "technique=nope is invalid: expected one of reed_sol_van, cauchy_orig, cauchy_good" stderr ||
  fail "the refusal does not name the key and the accepted values"
if (tool validate-profile plugin=erails,k=0 >/dev/null) 2>/dev/null; then fail "k=0 was accepted"; fi
grep -q "k=0 is invalid" stderr || fail "k=0 refusal does not name k"

for profile in plugin=erails,k=4,m=2 plugin=erails,k=3,m=3,technique=cauchy_good,packetsize=512 \
               plugin=erails,k=1,m=2; do
  k=$(echo "$profile" | sed 's/.*k=\([0-9]*\).*/\1/')
  m=$(echo "$profile" | sed 's/.*m=\([0-9]*\).*/\1/')
  n=$((k + m))
  head -c 1000003 /dev/urandom >object.orig
  cp object.orig object
  tool encode "$profile" 4096 "$(seq -s, 0 $((n - 1)))" object || fail "encode $profile"
  for lost in $(seq 0 $((n - 1))); do
    # Read the first k shards that survive the loss of shard $lost.
    survivors=$(seq 0 $((n - 1)) | grep -vx "$lost" | head -n "$k" | paste -sd,)
    rm -f object
    tool decode "$profile" 4096 "$survivors" object || fail "decode $profile from $survivors"
    cmp -s -n 1000003 object object.orig || fail "$profile: object differs after losing shard $lost"
  done
  rm -f object.*
  echo "ok: $profile round-trips after losing each of its $n shards"
done
echo "ceph-erasure-code-tool: all checks passed"
