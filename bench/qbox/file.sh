#!/usr/bin/env bash
# QBox figures 3.2, 3.15, 3.16 and 3.17 on this machine's disk: qbox-bench's file backend (O_DIRECT,
# Linux AIO) on a 512 MiB file, under qbox and fifo, plus each client alone (figures.sh). About
# 11 minutes. Writes file_<fig>_*.csv, file_<fig>.summary.csv, file_<fig>.png and
# file.conditions.txt to OUT.
#
# usage: bench/qbox/file.sh BUILD_DIR OUT_DIR
#   BUILD_DIR: any tree with qbox-bench built; QBOX_FILE overrides the file (default
#   /var/tmp/qbox-figures.img; a block device works too, and is read only)
set -euo pipefail
build=${1:?build dir}
out=${2:?output dir}
# shellcheck source=bench/qbox/figures.sh
source "$(cd "$(dirname "$0")" && pwd)/figures.sh"

bench=$build/tools/qbox_bench/qbox-bench
img=${QBOX_FILE:-/var/tmp/qbox-figures.img}
capacity=536870912
backend=(--backend file --path "$img" --file-size "$capacity")
source_dev=$(df --output=source "$(dirname "$img")" | tail -1)
disk=$(lsblk -ndo SIZE,ROTA "$source_dev" 2>/dev/null | tr -s ' ' || echo unknown)
device="$img, 512 MiB, $(findmnt -no FSTYPE -T "$(dirname "$img")") on $source_dev (size, rotational: $disk), O_DIRECT + libaio"
# A file created here is removed at the end; the first run fills it with data before timing.
[[ -e $img ]] || trap 'rm -f "$img"' EXIT
run_figures file
