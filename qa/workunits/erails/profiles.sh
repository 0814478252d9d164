#!/usr/bin/env bash
# The monitor stores the erails profile under test with the plugin's defaults filled in, and
# refuses broken variants of it with a message naming the offending key, without going down.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

good=erails-good-$SUFFIX
ceph osd erasure-code-profile set "$good" $ERAILS_PROFILE
stored=$(ceph osd erasure-code-profile get "$good")
for key in plugin k m technique w crush-failure-domain rails-frame rails-readers rails-guard; do
    grep -q "^$key=" <<<"$stored" || { echo "stored profile lacks $key:"; echo "$stored"; exit 1; }
done
grep -qx "k=$(profile_value k)" <<<"$stored"
ceph osd erasure-code-profile rm "$good"

k=$(profile_value k)
m=$(profile_value m)
bad=erails-bad-$SUFFIX
refused() {
    local key=$1 value=$2 out
    if out=$(ceph osd erasure-code-profile set "$bad" $(profile_with "$key" "$value") 2>&1); then
        echo "FAIL: $key=$value was accepted"
        ceph osd erasure-code-profile rm "$bad"
        exit 1
    fi
    grep -qF "$key=" <<<"$out" || { echo "FAIL: refusal of $key=$value does not name $key: $out"; exit 1; }
    echo "refused as expected: $out"
}
refused k 0
refused m 0
refused k abc
refused technique nope
refused w 1
refused rails-readers $((k + m))
refused rails-frame 0
refused colour red

ceph osd erasure-code-profile ls | grep -qx "$bad" && { echo "FAIL: $bad was stored"; exit 1; }
# Every refusal above went through the plugin inside the monitor; they must all still be in quorum.
ceph quorum_status --format json | "$PYTHON" -c \
    'import json, sys; q = json.load(sys.stdin); sys.exit(0 if len(q["quorum"]) == len(q["monmap"]["mons"]) else 1)'
echo OK
