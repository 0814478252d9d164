#!/usr/bin/env bash
# Objects from 1 byte to several MiB come back byte for byte from an erails pool, through the
# rados tool (4 MiB ops, so the largest objects take several).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pool=erails-rt-$SUFFIX
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; remove_pool "$pool"' EXIT
create_pool "$pool"

for size in 1 4095 4096 4097 65537 1048579 5242881 9437184; do
    head -c "$size" /dev/urandom >"$scratch/in"
    rados -p "$pool" put "obj-$size" "$scratch/in"
    rados -p "$pool" get "obj-$size" "$scratch/out"
    cmp "$scratch/in" "$scratch/out" || { echo "FAIL: $size-byte object differs"; exit 1; }
    stat_size=$(rados -p "$pool" stat "obj-$size" | sed -n 's/.* size \([0-9]*\).*/\1/p')
    [[ $stat_size == "$size" ]] || { echo "FAIL: $size-byte object has size $stat_size"; exit 1; }
done
echo OK
