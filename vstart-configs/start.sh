#!/bin/bash
# Starts a local Ceph cluster from the Debian packages in a directory of its own: 1 mon, 1 mgr and
# N BlueStore OSDs, each OSD in its own CRUSH host, cephx on, everything on 127.0.0.1.
#
# A directory that already holds a cluster is restarted (only the daemons that are not running),
# never re-created; --fresh wipes it first. See doc/local-cluster.rst.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

usage() {
    cat <<EOF
usage: $(basename "$0") [options]
  --dir DIR          cluster directory (env ERAILS_CLUSTER_DIR; default <repo>/cluster)
  --osds N           number of OSDs, one CRUSH host each (env ERAILS_OSDS; default 6)
  --port-base P      mon listens on P (msgr2) and P+1 (msgr1); daemons bind P+10 upwards
                     (env ERAILS_PORT_BASE; default 17100, below Linux's ephemeral range);
                     auto: the first free range from 17200 that no other cluster of this
                     machine was created on (what the tests use)
  --plugin-dir DIR   directory with libec_*.so to load next to the stock plugins, e.g.
                     <build>/erasure-code (env ERAILS_PLUGIN_DIR); without it the cluster runs
                     what is installed, such as the erails package's plugin and mgr module
  --scheduler S      the OSDs' op scheduler: wpq (default) or mclock_scheduler, Ceph's own, or
                     qbox, libec_qbox.so from --plugin-dir or Ceph's plugin directory
                     (doc/dev/qbox-in-osd.md); chosen on every start
  --block-size SIZE  sparse size of each OSD's data, WAL and DB file (default 4G)
  --emulate-ssd[=MODEL_FILE]
                     run a device model under each OSD's data device (an LD_PRELOAD library in
                     the OSDs only; doc/local-cluster.rst): the last [ssd]/[hdd] section of
                     MODEL_FILE (default: drive B, src/devices/models/intel510_drive_b.conf or
                     the installed copy); kept in cluster.params for later starts
  --emulate-time-scale X
                     multiply every modeled duration by X (default: the model file's
                     time_scale, else 1); kept like --emulate-ssd
  --no-emulate       start the OSDs without the emulator again
  --emulator-lib PATH
                     liberails_device_emulator.so to preload (env ERAILS_EMULATOR_LIB); default:
                     <plugin-dir>/../lib/erails/ of a build tree, else the installed one
  --loop-data        put each OSD's data file behind a loop device (needs root), so that
                     /sys/block/loopN/stat counts exactly what BlueStore reads and writes on
                     its data device, apart from the WAL and DB; kept for the cluster's life
  --controllers      also run the rails and qbox controllers outside ceph-mgr (erails-controller,
                     from this source tree, on librados), as on a Ceph whose ceph-mgr runs no
                     Python module (doc/controllers.rst); kept in cluster.params
  --no-controllers   start without them again
  --fresh            delete an existing cluster in DIR (stopping it first) and create a new one
  --no-wait          return once the daemons are started, without waiting for active+clean
  --timeout S        how long to wait for all OSDs up and PGs active+clean (default 120)
  --ceph-build V     the Ceph the daemons run (env ERAILS_CEPH_BUILD): one of the builds
                     described in src/ceph_abi/builds/; default the host's, or the one the
                     cluster last ran. Another build than the host's runs from a root of its
                     Debian release (debian-root.sh, in-root.sh; needs root), and naming a
                     newer build for an existing cluster upgrades it; kept in cluster.params
EOF
}

dir_arg=""
osds=${ERAILS_OSDS:-6}
port_base=${ERAILS_PORT_BASE:-17100}
plugin_dir=${ERAILS_PLUGIN_DIR:-}
block_size=4G
scheduler=wpq
loop_data=0
emulate=""
controllers=""
emulator_model=""
emulator_time_scale=""
emulator_lib=${ERAILS_EMULATOR_LIB:-}
fresh=0
wait_healthy=1
timeout=120
ceph_build=${ERAILS_CEPH_BUILD:-}
arguments=("$@")
while (($#)); do
    case $1 in
        --dir) dir_arg=$2; shift 2 ;;
        --osds) osds=$2; shift 2 ;;
        --port-base) port_base=$2; shift 2 ;;
        --plugin-dir) plugin_dir=$2; shift 2 ;;
        --block-size) block_size=$2; shift 2 ;;
        --scheduler) scheduler=$2; shift 2 ;;
        --loop-data) loop_data=1; shift ;;
        --emulate-ssd) emulate=1; shift ;;
        --emulate-ssd=*) emulate=1; emulator_model=${1#*=}; shift ;;
        --emulate-time-scale) emulate=1; emulator_time_scale=$2; shift 2 ;;
        --no-emulate) emulate=0; shift ;;
        --controllers) controllers=1; shift ;;
        --no-controllers) controllers=0; shift ;;
        --emulator-lib) emulator_lib=$2; shift 2 ;;
        --fresh) fresh=1; shift ;;
        --no-wait) wait_healthy=0; shift ;;
        --timeout) timeout=$2; shift 2 ;;
        --ceph-build) ceph_build=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done
[[ $osds =~ ^[0-9]+$ ]] && ((osds >= 1 && osds <= 32)) || die "--osds must be 1..32, got '$osds'"
[[ $port_base == auto ]] || { [[ $port_base =~ ^[0-9]+$ ]] && ((port_base >= 1024 && port_base <= 65000)); } \
    || die "--port-base must be 1024..65000 or auto, got '$port_base'"
[[ $block_size =~ ^[0-9]+[MG]$ ]] || die "--block-size must look like 4G or 512M, got '$block_size'"
[[ -z $plugin_dir || -d $plugin_dir ]] || die "--plugin-dir '$plugin_dir' is not a directory"
[[ -n $plugin_dir ]] && plugin_dir=$(cd "$plugin_dir" && pwd)
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout must be seconds, got '$timeout'"
[[ -z $emulator_model || -f $emulator_model ]] || die "--emulate-ssd: no model file '$emulator_model'"
[[ -n $emulator_model ]] && emulator_model=$(realpath "$emulator_model")
[[ -z $emulator_time_scale || $emulator_time_scale =~ ^[0-9]+(\.[0-9]+)?([eE]-?[0-9]+)?$ ]] \
    || die "--emulate-time-scale must be a number > 0 (the model's time_scale key checks the range), got '$emulator_time_scale'"
[[ -z $emulator_lib || -f $emulator_lib ]] || die "--emulator-lib: no file '$emulator_lib'"
[[ -n $emulator_lib ]] && emulator_lib=$(realpath "$emulator_lib")
[[ $scheduler =~ ^(wpq|mclock_scheduler|qbox)$ ]] \
    || die "--scheduler must be wpq, mclock_scheduler or qbox, got '$scheduler'"

[[ -z $ceph_build ]] || ceph_build_description "$ceph_build" >/dev/null

resolve_cluster_dir "$dir_arg" create
params="$CLUSTER_DIR/cluster.params"

# The Ceph build: named, else the one the cluster last ran (not for --fresh, which makes a new
# one), else the host's. Another build than the one here starts this script again inside a root
# of its Debian release, where it is the one.
[[ -n $ceph_build || ! -e $params ]] || ((fresh)) || ceph_build=$(sed -n 's/^ceph_build=//p' "$params")
running_build=$(ceph --version | sed -n 's/^ceph version \([0-9.]*\) .*/\1/p')
ceph_build=${ceph_build:-$running_build}
if [[ $ceph_build != "$running_build" ]]; then
    [[ -z ${ERAILS_IN_ROOT:-} ]] || die "--ceph-build $ceph_build: the root has Ceph $running_build"
    release=$(sed -n 's/^debian_release *= *//p' "$(ceph_build_description "$ceph_build")")
    root=$("$ERAILS_VSTART/debian-root.sh" "$release") || die "--ceph-build $ceph_build: no Debian $release root"
    binds=(--bind "$CLUSTER_DIR")
    for path in "$plugin_dir" "$(dirname "${emulator_lib:-.}")" "$(dirname "${emulator_model:-.}")"; do
        [[ -n $path && -d $path ]] && binds+=(--bind "$path")
    done
    exec "$ERAILS_VSTART/in-root.sh" "${binds[@]}" "$root" env ERAILS_IN_ROOT=1 ERAILS_CEPH_BUILD="$ceph_build" \
        "$ERAILS_VSTART/start.sh" "${arguments[@]}"
fi

if ((fresh)) && [[ -e $params ]]; then
    "$ERAILS_VSTART/stop.sh" --dir "$CLUSTER_DIR" >/dev/null
    rm -rf "${CLUSTER_DIR:?}"/*
fi

# An existing cluster keeps the shape and ports it was created with; only the plugin directory may
# change between starts (the point of restarting after a rebuild).
if [[ -e $params ]]; then
    requested_plugin_dir=$plugin_dir
    requested_loop_data=$loop_data
    requested_emulator=("$emulate" "$emulator_model" "$emulator_time_scale" "$emulator_lib")
    requested_controllers=$controllers
    loop_data=0
    source "$params"
    # The emulator's settings stay as the last start chose them unless given again.
    [[ -n ${requested_emulator[0]} ]] && emulate=${requested_emulator[0]}
    [[ -n ${requested_emulator[1]} ]] && emulator_model=${requested_emulator[1]}
    [[ -n ${requested_emulator[2]} ]] && emulator_time_scale=${requested_emulator[2]}
    [[ -n ${requested_emulator[3]} ]] && emulator_lib=${requested_emulator[3]}
    [[ -n $requested_controllers ]] && controllers=$requested_controllers
    ((loop_data || !requested_loop_data)) \
        || die "--loop-data: the cluster in $CLUSTER_DIR was created without it (use --fresh to re-create it)"
    [[ -n $requested_plugin_dir ]] && plugin_dir=$requested_plugin_dir
    creating=0
else
    fsid=$(cat /proc/sys/kernel/random/uuid)
    creating=1
fi
if ((creating)); then
    port_base=$(claim_port_base "$port_base" "$osds" "$CLUSTER_DIR")
fi
port_min=$((port_base + 10))
port_max=$((port_base + $(port_span "$osds")))

# The controllers' pool holds one small object per module. It is made here with a size this
# cluster can place; a controller that finds no pool makes it with Ceph's default size.
start_controllers() {
    local module name
    export CEPH_CONF=$CLUSTER_CONF
    if ! ceph osd pool ls | grep -qx erails; then
        ceph osd pool create erails 1 1 replicated >/dev/null 2>&1
        ceph osd pool set erails size $((osds < 3 ? osds : 3)) --yes-i-really-mean-it >/dev/null 2>&1
        ceph osd pool application enable erails erails >/dev/null 2>&1
    fi
    for module in rails qbox; do
        name=erails-$module
        daemon_running "$name" && continue
        PYTHONPATH=$ERAILS_REPO/src/mgr:$ERAILS_REPO/src/mgr_standalone setsid "$SYSTEM_PYTHON3" \
            -m erails_standalone.service "$module" -c "$CLUSTER_CONF" --id local \
            >>"$CLUSTER_DIR/log/$name.log" 2>&1 </dev/null &
        echo $! >"$CLUSTER_DIR/run/$name.pid"
    done
    echo "controllers:   erails-controller rails and qbox, logs in $CLUSTER_DIR/log/erails-*.log"
    echo "               their commands: $ERAILS_VSTART/erails-ctl.sh --dir $CLUSTER_DIR rails status"
}

all_running=1
for name in $(cluster_daemons); do daemon_running "$name" || all_running=0; done
if ((!creating && all_running)) && [[ -n $(cluster_daemons) ]]; then
    echo "cluster in $CLUSTER_DIR is already running; leaving its daemons alone"
    if ((${requested_controllers:-0})); then
        sed -i '/^controllers=/d' "$params" && echo controllers=1 >>"$params"
        start_controllers
    fi
    echo "use it with:  source $CLUSTER_DIR/env"
    exit 0
fi

# A restart needs its range back (claim_port_base checked it for a new cluster).
if ((!creating)) && ! daemon_running mon.a; then
    require_ports_free "$port_base" "$port_max"
fi

# Measured here: an OSD holds 4 x bdev_aio_max_queue_depth kernel AIO slots. Failing now names
# the cause; running out inside mkfs or mount only logs EAGAIN in an OSD log.
aio_per_osd=$((4 * 256))
to_start=0
for ((i = 0; i < osds; i++)); do daemon_running "osd.$i" || to_start=$((to_start + 1)); done
aio_free=$(($(</proc/sys/fs/aio-max-nr) - $(</proc/sys/fs/aio-nr)))
((aio_free >= to_start * aio_per_osd)) || die "only $aio_free kernel AIO slots free (fs.aio-max-nr), \
$((to_start * aio_per_osd)) needed for $to_start OSDs: stop another cluster or raise fs.aio-max-nr"

# The emulated device (doc/local-cluster.rst): a model file of this cluster's own that derives from
# the chosen model and sets the time scale, and the library, looked for in the build tree next to
# --plugin-dir, then where the package installs it. Resolved before cluster.params is written, so
# that a refused setting leaves no half-made cluster behind.
emulator_conf="$CLUSTER_DIR/emulator/model.conf"
if ((${emulate:-0})); then
    if [[ -z $emulator_model ]]; then
        for f in "$ERAILS_REPO/src/devices/models/intel510_drive_b.conf" \
                 /usr/share/erails/device-models/intel510_drive_b.conf; do
            [[ -f $f ]] && { emulator_model=$f; break; }
        done
        [[ -n $emulator_model ]] || die "--emulate-ssd: drive B's model file is neither in the source tree nor installed"
    fi
    if [[ -z $emulator_lib ]]; then
        for f in ${plugin_dir:+"$plugin_dir/../lib/erails/liberails_device_emulator.so"} \
                 /usr/lib/"$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)"/erails/liberails_device_emulator.so \
                 /usr/local/lib/erails/liberails_device_emulator.so; do
            [[ -f $f ]] && { emulator_lib=$(realpath "$f"); break; }
        done
        [[ -n $emulator_lib ]] \
            || die "--emulate-ssd: liberails_device_emulator.so not found; give --emulator-lib or --plugin-dir <build>/erasure-code"
    fi
    model_section=$(sed -n 's/^\[\(ssd\|hdd\) \([^] ]*\)\] *$/\1 \2/p' "$emulator_model" | tail -n1)
    [[ -n $model_section ]] || die "--emulate-ssd: $emulator_model has no [ssd NAME] or [hdd NAME] section"
    mkdir -p "$CLUSTER_DIR/emulator"
    {
        echo "# Generated by vstart-configs/start.sh on every start: the model under each OSD's data device."
        echo "include = $emulator_model"
        echo "[${model_section%% *} emulated-${model_section#* }]"
        echo "base = ${model_section#* }"
        [[ -z $emulator_time_scale ]] || echo "time_scale = $emulator_time_scale"
    } >"$emulator_conf"
fi

cat >"$params" <<EOF
fsid=$fsid
ceph_build=$running_build
osds=$osds
port_base=$port_base
plugin_dir=$plugin_dir
block_size=$block_size
loop_data=$loop_data
emulate=${emulate:-0}
emulator_model=$emulator_model
emulator_time_scale=$emulator_time_scale
emulator_lib=$emulator_lib
controllers=${controllers:-0}
EOF

mkdir -p "$CLUSTER_DIR"/{log,crash,run,erasure-code}

# erasure_code_dir is read once at daemon start-up, so it must hold every plugin a pool may name:
# those in Ceph's own directory (the stock ones, and erails where its package is installed), plus
# whatever the build produced (which wins on a name clash).
rm -f "$CLUSTER_DIR"/erasure-code/libec_*.so
ceph_plugin_dir=$(ceph-conf -c /dev/null --show-config-value erasure_code_dir)
ln -s "$ceph_plugin_dir"/libec_*.so "$CLUSTER_DIR/erasure-code/"
if [[ -n $plugin_dir ]]; then
    for lib in "$plugin_dir"/libec_*.so; do
        [[ -e $lib ]] && ln -sfn "$lib" "$CLUSTER_DIR/erasure-code/"
    done
fi
# A daemon exits at start if a preloaded plugin is missing, so erails is preloaded only when present.
preload="jerasure lrc isa"
[[ -e $CLUSTER_DIR/erasure-code/libec_erails.so ]] && preload+=" erails"
# QBox replaces the scheduler from inside a preloaded plugin and needs osd_op_queue=wpq, so that
# no mClock-only code runs (doc/dev/ceph-abi.md).
op_queue=$scheduler
if [[ $scheduler == qbox ]]; then
    [[ -e $CLUSTER_DIR/erasure-code/libec_qbox.so ]] \
        || die "--scheduler qbox: no libec_qbox.so in --plugin-dir or $ceph_plugin_dir"
    preload+=" qbox"
    op_queue=wpq
fi

# The loop device of each OSD's data file, attached on every start (stop.sh detaches them) and
# named in ceph.conf; BlueStore opens its data device through the `block` link mkfs made, so an
# existing link is pointed at the device of this start.
declare -A data_loop=()
attach_data_loops() {
    [[ -w /dev/loop-control ]] || die "--loop-data needs root and /dev/loop-control"
    local i file dev
    for ((i = 0; i < osds; i++)); do
        mkdir -p "$CLUSTER_DIR/osd.$i"
        file="$CLUSTER_DIR/osd.$i/data.img"
        [[ -e $file ]] || truncate -s "$block_size" "$file"
        dev=$(losetup -j "$file" -O NAME -n | head -n1)
        [[ -n $dev ]] || dev=$(losetup --find --show --direct-io=on "$file") \
            || die "cannot attach $file to a loop device"
        data_loop[$i]=$dev
        if [[ -L $CLUSTER_DIR/osd.$i/block ]]; then ln -sfn "$dev" "$CLUSTER_DIR/osd.$i/block"; fi
    done
}

write_conf() {
    local d=$CLUSTER_DIR
    cat >"$CLUSTER_CONF" <<EOF
# Generated by vstart-configs/start.sh from cluster.params; rewritten on every start.
[global]
fsid = $fsid
mon_host = [v2:127.0.0.1:$port_base,v1:127.0.0.1:$((port_base + 1))]
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_ipv4 = true
ms_bind_ipv6 = false
ms_bind_port_min = $port_min
ms_bind_port_max = $port_max
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
auth_allow_insecure_global_id_reclaim = false
keyring = $d/\$name/keyring
run_dir = $d/run
admin_socket = $d/run/\$name.asok
pid_file = $d/run/\$name.pid
log_file = $d/log/\$name.log
mon_cluster_log_file = $d/log/cluster.log
crash_dir = $d/crash
erasure_code_dir = $d/erasure-code
osd_erasure_code_plugins = $preload
osd_pool_default_pg_autoscale_mode = off
mon_allow_pool_delete = true
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
mon_data_avail_warn = 2
mon_data_avail_crit = 1
# Set-up and test steps wait for each map change; a tenth of the default batching delay keeps
# them short on a single-monitor cluster that has no peers to batch for.
paxos_propose_interval = 0.1
# PG states reach the mgr once per period; waiting for active+clean is only as fresh as that.
mgr_stats_period = 1

[client]
keyring = $d/keyring
admin_socket = $d/run/\$name.\$pid.asok
log_file = $d/log/\$name.log

[mon]
mon_data = $d/\$name

[mgr]
mgr_data = $d/\$name

[osd]
osd_data = $d/\$name
osd_objectstore = bluestore
osd_op_queue = $op_queue
# Separate WAL and DB files: the WAL is the thesis' journal device, and it must be large enough
# that RocksDB never spills WAL data onto the block file (doc/dev/ceph-abi.md).
bluestore_block_path = $d/\$name/data.img
bluestore_block_size = $block_size
bluestore_block_create = true
bluestore_block_wal_path = $d/\$name/wal.img
bluestore_block_wal_size = $block_size
bluestore_block_wal_create = true
bluestore_block_db_path = $d/\$name/db.img
bluestore_block_db_size = $block_size
bluestore_block_db_create = true
bluestore_fsck_on_mount = false
# Debian's ceph-osd has no tcmalloc, so osd_memory_target does nothing; bound the caches directly.
bluestore_cache_autotune = false
bluestore_cache_size = 128M
bluestore_rocksdb_options = compression=kNoCompression,max_write_buffer_number=2,min_write_buffer_number_to_merge=1,recycle_log_file_num=4,write_buffer_size=33554432,writable_file_max_buffer_size=0,compaction_readahead_size=2097152,max_background_compactions=1,max_total_wal_size=268435456
osd_check_max_object_name_len_on_startup = false
# Each op shard opens and closes the block device at start-up (~0.3 s each here) and owns a
# thread; two shards suit a 2-core machine and halve OSD start time. One thread each, as Ceph
# 16.2.15 gives files (they report rotational), on every build: 18.2.7's rotational default is 5
# per shard, which changes how ops share the device, so the same bench would measure another
# layout on Reef (bench/qbox/README.md, "Reef's threads per shard").
osd_op_num_shards = 2
osd_op_num_threads_per_shard = 1
# Every BlueStore device reserves this many kernel AIO slots, out of fs.aio-max-nr (65536) for
# the whole machine; at the default 1024, two or three clusters here exhaust it and mkfs fails
# with EAGAIN. 256 is still deeper than a sparse file gains from.
bdev_aio_max_queue_depth = 256
# Files report rotational, so the HDD recovery throttle (a 0.1 s sleep per recovery op) would
# apply; it makes recovery after an OSD restart take minutes on a cluster that has no disk to spare.
osd_recovery_sleep_hdd = 0
osd_recovery_max_active_hdd = 8
EOF
    if ((${emulate:-0})); then
        cat >>"$CLUSTER_CONF" <<EOF
# The emulated device (--emulate-ssd): reads must reach it rather than BlueStore's cache, and
# through libaio, the path the emulator times (it refuses io_uring as well).
bluestore_default_buffered_read = false
bdev_ioring = false
EOF
    fi
    local i
    for ((i = 0; i < osds; i++)); do
        printf '\n[osd.%d]\ncrush_location = root=default host=host-%d\n' "$i" "$i" >>"$CLUSTER_CONF"
        if ((loop_data)); then
            printf 'bluestore_block_path = %s\n' "${data_loop[$i]}" >>"$CLUSTER_CONF"
        fi
    done
}

# Keyring files are written directly so that no key ever passes through a command's output.
keyring_entry() {
    local name=$1 key; shift
    key=$(ceph-authtool --gen-print-key)
    printf '[%s]\n\tkey = %s\n' "$name" "$key"
    while (($#)); do printf '\tcaps %s = "%s"\n' "$1" "$2"; shift 2; done
}

start_daemon() {
    local name=$1 type=${1%%.*} id=${1#*.}
    daemon_running "$name" && return 0
    rm -f "$CLUSTER_DIR/run/$name.pid"
    local emulator=()
    if [[ $type == osd ]] && ((${emulate:-0})); then
        local data="$CLUSTER_DIR/$name/data.img"
        ((loop_data)) && data=${data_loop[$id]}
        emulator=(env "LD_PRELOAD=$emulator_lib" "ERAILS_EMULATOR_CONFIG=$emulator_conf"
                  "ERAILS_EMULATOR_DEVICE=$data" "ERAILS_EMULATOR_STATS=$CLUSTER_DIR/emulator/$name.json"
                  "ERAILS_EMULATOR_LOG=$CLUSTER_DIR/log/$name.emulator.log"
                  "ERAILS_EMULATOR_CONTROL=$CLUSTER_DIR/emulator/$name.control")
    fi
    # From /, as systemd starts them: Debian 13's Ceph has a relative osd_class_dir
    # (doc/dev/ceph-abi.md), and an OSD started elsewhere loads no object class (no RADOS lock).
    (cd / && "${emulator[@]}" "ceph-$type" -c "$CLUSTER_CONF" -i "$id") >>"$CLUSTER_DIR/log/$name.stdout" 2>&1 \
        || die "ceph-$type -i $id failed to start; see $CLUSTER_DIR/log/$name.log"
}

osd_uuid() { cat "$CLUSTER_DIR/osd.$1/osd-uuid"; }

if ((loop_data)); then attach_data_loops; fi
write_conf
umask 077
began=$SECONDS

# A cluster that failed half-way through creation is of no use; stop what was started so that no
# daemon outlives the attempt (the directory stays, for its logs).
created=0
mkfs_pids=()
abandon_creation() {
    if ((created)); then return; fi
    if ((${#mkfs_pids[@]})); then kill "${mkfs_pids[@]}" 2>/dev/null || true; fi
    "$ERAILS_VSTART/stop.sh" --dir "$CLUSTER_DIR" >/dev/null 2>&1 || true
}
((creating)) && trap abandon_creation EXIT

if ((creating)); then
    echo "creating cluster $fsid in $CLUSTER_DIR ($osds OSDs, mon on 127.0.0.1:$port_base)"
    mkdir -p "$CLUSTER_DIR/mgr.x"
    keyring_entry client.admin mon 'allow *' osd 'allow *' mds 'allow *' mgr 'allow *' \
        >"$CLUSTER_DIR/keyring"
    # 'sessions' lets the qbox module map cephx names to the global ids OSDs see (doc/qbox.rst).
    keyring_entry mgr.x mon 'allow profile mgr, allow command sessions' osd 'allow *' mds 'allow *' \
        >"$CLUSTER_DIR/mgr.x/keyring"
    for ((i = 0; i < osds; i++)); do
        mkdir -p "$CLUSTER_DIR/osd.$i"
        keyring_entry "osd.$i" mon 'allow profile osd' mgr 'allow profile osd' osd 'allow *' \
            >"$CLUSTER_DIR/osd.$i/keyring"
        cat /proc/sys/kernel/random/uuid >"$CLUSTER_DIR/osd.$i/osd-uuid"
    done
    # The monitor imports every key of its mkfs keyring into its auth database, so all daemons
    # can authenticate without further `ceph auth` calls; mkfs writes the mon's own keyring.
    initial=$(mktemp "$CLUSTER_DIR/run/initial-keyring.XXXXXX")
    keyring_entry mon. mon 'allow *' >"$initial"
    cat "$CLUSTER_DIR"/{mgr.x,osd.*}/keyring "$CLUSTER_DIR/keyring" >>"$initial"
    monmaptool --create --fsid "$fsid" \
        --addv a "[v2:127.0.0.1:$port_base,v1:127.0.0.1:$((port_base + 1))]" \
        "$CLUSTER_DIR/run/monmap" >/dev/null
    ceph-mon -c "$CLUSTER_CONF" -i a --mkfs --monmap "$CLUSTER_DIR/run/monmap" \
        --keyring "$initial" >>"$CLUSTER_DIR/log/mon.a.stdout" 2>&1 \
        || die "ceph-mon --mkfs failed; see $CLUSTER_DIR/log/mon.a.log"
    rm -f "$initial" "$CLUSTER_DIR/run/monmap"

    # BlueStore mkfs needs no monitor, so it overlaps with the monitor's start.
    for ((i = 0; i < osds; i++)); do
        ceph-osd -c "$CLUSTER_CONF" -i "$i" --mkfs --no-mon-config --osd-uuid "$(osd_uuid "$i")" \
            >>"$CLUSTER_DIR/log/osd.$i.stdout" 2>&1 &
        mkfs_pids+=($!)
    done
    start_daemon mon.a
    start_daemon mgr.x
    for ((i = 0; i < osds; i++)); do
        wait "${mkfs_pids[$i]}" || die "ceph-osd -i $i --mkfs failed; see $CLUSTER_DIR/log/osd.$i.log"
    done
    uuids=()
    for ((i = 0; i < osds; i++)); do uuids+=("$(osd_uuid "$i")"); done
    "$SYSTEM_PYTHON3" "$ERAILS_VSTART/ceph_admin.py" --conf "$CLUSTER_CONF" create-osds "${uuids[@]}"
else
    echo "restarting stopped daemons of the cluster in $CLUSTER_DIR"
    start_daemon mon.a
    start_daemon mgr.x
fi

# Each ceph-osd returns only after its store is mounted, so they are started side by side.
start_pids=()
for ((i = 0; i < osds; i++)); do start_daemon "osd.$i" & start_pids+=($!); done
for pid in "${start_pids[@]}"; do wait "$pid" || exit 1; done

cat >"$CLUSTER_DIR/env" <<EOF
# Source this file to use the cluster in $CLUSTER_DIR with the ceph, rados and librados tools.
export CEPH_CONF=$CLUSTER_CONF
EOF

if ((wait_healthy)); then
    "$SYSTEM_PYTHON3" "$ERAILS_VSTART/ceph_admin.py" --conf "$CLUSTER_CONF" \
        wait-healthy --osds "$osds" --timeout "$timeout" \
        || die "cluster did not become healthy; logs are in $CLUSTER_DIR/log"
    created=1
    echo "cluster up: $osds OSDs up and in, all PGs active+clean ($((SECONDS - began)) s)"
else
    created=1
    echo "daemons started ($((SECONDS - began)) s); not waiting for active+clean"
fi
((${controllers:-0})) && start_controllers
echo "erasure-code plugins preloaded: $preload"
if ((${emulate:-0})); then
    echo "emulated data devices: $model_section of $emulator_model, time_scale ${emulator_time_scale:-as the model file sets it (default 1)}"
fi
cat <<EOF
use it with:   source $CLUSTER_DIR/env     (or: export CEPH_CONF=$CLUSTER_CONF)
status:        $ERAILS_VSTART/status.sh --dir $CLUSTER_DIR
stop:          $ERAILS_VSTART/stop.sh --dir $CLUSTER_DIR
EOF
