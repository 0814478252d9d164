#!/bin/bash
# Makes one OSD's emulated data device K times slower than its model, or healthy again (K = 1),
# while the OSD runs: a fail-slow drive on demand; and with --model off, lets that device's
# requests complete at their real time, the model bypassed, until --model on
# (src/device_emulator/config.h, "CONTROL"). What is not given stays as it was. The emulator reads
# the change within 0.1 s and logs it in log/osd.N.emulator.log; `status.sh` and
# emulator/osd.N.json show what is in force. Only a cluster started with --emulate-ssd has
# emulated devices.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
    echo "usage: $(basename "$0") [--dir DIR] --osd N [--slowdown K] [--model on|off]   (K from 1, healthy, to 1000)"
}
dir_arg=""
osd=""
slowdown=""
model=""
while (($#)); do
    case $1 in
        --dir) dir_arg=$2; shift 2 ;;
        --osd) osd=$2; shift 2 ;;
        --slowdown) slowdown=$2; shift 2 ;;
        --model) model=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
[[ $osd =~ ^[0-9]+$ ]] || die "--osd must be an OSD id (0, 1, ...), got '$osd'"
in_range() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v k="$1" 'BEGIN { exit !(k >= 1 && k <= 1000) }'; }
[[ -n $slowdown || -n $model ]] || { usage >&2; die "give --slowdown, --model or both"; }
[[ -z $slowdown ]] || in_range "$slowdown" || die "--slowdown must be a number from 1 (healthy) to 1000, got '$slowdown'"
[[ -z $model || $model == on || $model == off ]] || die "--model must be on or off, got '$model'"
resolve_cluster_dir "$dir_arg"
[[ -e $CLUSTER_DIR/cluster.params ]] || die "no cluster in $CLUSTER_DIR"
[[ -e $CLUSTER_DIR/emulator/osd.$osd.json ]] \
    || die "osd.$osd of $CLUSTER_DIR has no emulated device (start the cluster with --emulate-ssd)"
# Written whole and renamed, so the emulator never reads half a file.
control=$CLUSTER_DIR/emulator/osd.$osd.control
if [[ -e $control ]]; then
    [[ -n $slowdown ]] || slowdown=$(sed -n 's/^ *slowdown *= *\([^ #]*\).*/\1/p' "$control")
    [[ -n $model ]] || model=$(sed -n 's/^ *model *= *\([^ #]*\).*/\1/p' "$control")
fi
printf 'slowdown = %s\nmodel = %s\n' "${slowdown:-1}" "${model:-on}" >"$control.tmp.$$"
mv -f "$control.tmp.$$" "$control"
echo "osd.$osd: slowdown ${slowdown:-1}, model ${model:-on} (the emulator takes it within 0.1 s; see" \
     "$CLUSTER_DIR/log/osd.$osd.emulator.log)"
