#!/bin/bash
# The Debian package, as an operator meets it: built with Debian's tooling from a clean copy of
# the source tree, installed with apt, a 4-OSD cluster started from the installed files only (no
# --plugin-dir, no mgr_module_path), the rails module enabled, colors made with the installed
# rails-colors, a Rails pool created and an object written and read back; then the cluster is
# stopped and the package removed, leaving none of its files behind. Where the Ceph build's
# ceph-mgr runs no Python modules (MGR_RUNS_MODULES false: Debian 13's), the package has none,
# and the installed erails-controller runs the rails module outside ceph-mgr instead.
#
#   install_remove.sh SOURCE_DIR WORK_DIR VERSION MGR_RUNS_MODULES [PORT_BASE]
#
# Needs root, for apt. Exits 77 (skipped) without root, or when an erails package is already
# installed: that one belongs to the machine's owner and is not touched, unless it is the very
# install an earlier, killed run of this test made (see `marker`). Apart from erails the
# install changes no package (checked with apt's simulation first) and starts or restarts no
# service; the cluster is its own daemons on 127.0.0.1 ports PORT_BASE.. (default auto: a free range
# that start.sh chooses).
set -euo pipefail
src=$(cd "$1" && pwd)
work=$2
version=$3
mgr_runs_modules=$4
port_base=${5:-auto}
[[ $mgr_runs_modules == true || $mgr_runs_modules == false ]] \
    || { echo "MGR_RUNS_MODULES is '$mgr_runs_modules'; accepted: true or false" >&2; exit 2; }
jobs=${ERAILS_JOBS:-2}
osds=4

say() { echo "package test: $*"; }
fail() { echo "package test: FAILED: $*" >&2; exit 1; }
wait_until() {  # what timeout command...
    local what=$1 deadline=$((SECONDS + $2)); shift 2
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || fail "timed out waiting for $what"
        sleep 1
    done
}

apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 "$@"; }

# A run killed past its EXIT trap (SIGKILL, a reboot) leaves its package installed. The marker
# holds the time dpkg recorded that install, so the next run removes a package only if it is still
# that one, never an owner's install made since.
marker=/var/tmp/erails-package-test.installed
dpkg_list=/var/lib/dpkg/info/erails.list
install_time() { stat -c %Y "$dpkg_list" 2>/dev/null; }

if [[ $(id -u) -ne 0 ]]; then say "skipped: needs root to install the package"; exit 77; fi
# One erails can be installed at a time: a run of another checkout waits for this one (the lock
# goes with the process), and only a run holding the lock may take an install for a leftover.
exec {lock}>/run/lock/erails-package-test.lock
flock -w 1200 "$lock" || fail "another run of this test held /run/lock/erails-package-test.lock for 20 minutes"
if dpkg-query -W -f='${db:Status-Abbrev}' erails 2>/dev/null | grep -q '^[ih]'; then
    if [[ -f $marker && $(<"$marker") == "$(install_time)" ]]; then
        say "removing the erails package an earlier run of this test installed and did not remove"
        apt_get remove -y -qq erails >/dev/null 2>&1 || fail "apt-get remove of the earlier run's erails failed"
    else
        say "skipped: an erails package is already installed on this machine; leaving it alone"
        exit 77
    fi
fi
rm -f "$marker"
began=$SECONDS

rm -rf "${work:?}"
mkdir -p "$work/source"
cluster=""
installed=0
controller=""
cleanup() {
    local status=$?
    [[ -n $controller ]] && kill -TERM "$controller" 2>/dev/null && wait "$controller" || true
    if [[ -n $cluster ]]; then
        "$src/vstart-configs/stop.sh" --dir "$cluster" >/dev/null 2>&1 || true
        ((status == 0)) && rm -rf "$cluster"
    fi
    if ((installed)) && apt_get remove -y -qq erails >/dev/null 2>&1; then rm -f "$marker"; fi
    ((status == 0)) && rm -rf "$work/source" "$work"/object*
    ((status == 0)) || echo "package test: logs kept in $work${cluster:+ and $cluster/log}" >&2
}
trap cleanup EXIT

# The files git knows, as they are now (committed or not), without build trees or clusters.
git -C "$src" ls-files -z --cached --others --exclude-standard \
    | (cd "$src" && tar --null -T - --ignore-failed-read -cf - 2>/dev/null) \
    | tar -C "$work/source" -xf -

say "building the package ($jobs jobs, nocheck)"
(cd "$work/source" && DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=$jobs" \
    dpkg-buildpackage -b -us -uc -Pnocheck) >"$work/build.log" 2>&1 \
    || { tail -40 "$work/build.log"; fail "dpkg-buildpackage failed; log: $work/build.log"; }
deb=$work/erails_${version}_amd64.deb
[[ -f $deb ]] || fail "expected $deb; built: $(ls "$work"/*.deb 2>/dev/null)"
say "built $(basename "$deb") in $((SECONDS - began)) s"

depends=$(dpkg-deb -f "$deb" Depends)
for package in ceph-base ceph-mon ceph-osd ceph-mgr; do
    have=$(dpkg-query -W -f='${Version}' "$package")
    grep -qF "$package (= $have)" <<<"$depends" \
        || fail "Depends does not pin $package to $have: $depends"
done
say "Depends: $depends"

changes=$(apt_get install -s --no-install-recommends "$deb" | grep -E '^(Inst|Remv|Conf) ' \
    | cut -d' ' -f1,2 | sort -u)
[[ $changes == $'Conf erails\nInst erails' ]] \
    || fail "installing would change other packages: $changes"
installed=1
apt_get install -y -qq --no-install-recommends "$deb" >"$work/install.log" 2>&1 \
    || { cat "$work/install.log"; fail "apt-get install failed"; }
install_time >"$marker"
mapfile -t files < <(dpkg -L erails | while read -r f; do [[ -f $f ]] && echo "$f"; done)

ec_dir=$(ceph-conf -c /dev/null --show-config-value erasure_code_dir)
mgr_dir=$(ceph-conf -c /dev/null --show-config-value mgr_module_path)
modules=()
[[ $mgr_runs_modules == true ]] && modules=("$mgr_dir/rails/module.py" "$mgr_dir/rails/__init__.py")
[[ $mgr_runs_modules == false && -e $mgr_dir/rails ]] && fail "mgr modules installed for a ceph-mgr that runs none"
for f in "$ec_dir/libec_erails.so" "$ec_dir/libec_qbox.so" "${modules[@]}" \
         /usr/share/doc/erails/README.md.gz /usr/share/doc/erails/copyright \
         "/usr/lib/$(gcc -dumpmachine)/erails/liberails_device_emulator.so" \
         /usr/share/erails/device-models/intel510_drive_b.conf; do
    [[ -f $f ]] || fail "$f not installed"
done
[[ -f /usr/lib/systemd/system/erails-controller@.service || -f /lib/systemd/system/erails-controller@.service ]] \
    || fail "erails-controller@.service not installed"
for tool in rails-colors rails-timeline qbox-bench erails-sim erails-controller erails-ctl; do
    [[ $(command -v "$tool") == /usr/bin/$tool ]] || fail "$tool not installed in /usr/bin"
    usage=$("$tool" --help 2>&1 || true)
    grep -q "^usage: " <<<"$usage" || fail "the installed $tool does not run: $usage"
done

# The cluster sees only what the package installed: no plugin directory, no module path.
unset ERAILS_PLUGIN_DIR
cluster=$(mktemp -d /tmp/erails-package-XXXXXX)
say "starting a $osds-OSD cluster in $cluster from the installed files"
# The daemons must not inherit the lock: one left running would hold it.
"$src/vstart-configs/start.sh" --dir "$cluster" --osds "$osds" --port-base "$port_base" \
    --block-size 2G --timeout 120 >"$work/start.log" 2>&1 {lock}>&- \
    || { cat "$work/start.log"; fail "the cluster did not start"; }
[[ $(readlink -f "$cluster/erasure-code/libec_erails.so") == "$ec_dir/libec_erails.so" ]] \
    || fail "the cluster does not load the installed plugin"
grep -q "preloaded:.* erails" "$work/start.log" \
    || fail "erails not preloaded: $(tail -5 "$work/start.log")"
export CEPH_CONF=$cluster/ceph.conf
[[ $(ceph config get mgr mgr_module_path) == "$mgr_dir" ]] \
    || fail "the mgr does not use Ceph's own module path"

if [[ $mgr_runs_modules == true ]]; then
    wait_until "the mgr to offer the rails module" 60 \
        sh -c 'ceph mgr module ls -f json | grep -q "\"rails\""'
    ceph mgr module enable rails
    wait_until "ceph rails status" 90 ceph rails status
fi

rails-colors --colors "$osds" --apply >"$work/colors.log" 2>&1 \
    || { cat "$work/colors.log"; fail "rails-colors --apply failed"; }
ceph osd erasure-code-profile set railsprofile plugin=erails k=2 m=2 \
    crush-colors=color0,color1,color2,color3
ceph osd pool create railspool 8 8 erasure railsprofile >/dev/null
if [[ $mgr_runs_modules == true ]]; then
    wait_until "railspool in ceph rails status" 60 \
        sh -c 'ceph rails status -f json | grep -q "\"railspool\""'
else
    # The installed controller runs the module outside ceph-mgr, as its systemd unit would.
    erails-controller rails --conf "$CEPH_CONF" --id package >"$work/controller.log" 2>&1 {lock}>&- &
    controller=$!
    wait_until "railspool in erails-ctl rails status" 120 \
        sh -c 'erails-ctl rails status -f json | grep -q "\"railspool\""'
fi

head -c 1048576 /dev/urandom >"$work/object"
timeout 120 rados -p railspool put object "$work/object" || fail "rados put failed"
timeout 60 rados -p railspool get object "$work/object.read" || fail "rados get failed"
cmp -s "$work/object" "$work/object.read" || fail "the object read back is not the one written"
say "cluster from the installed files: railspool written and read (mgr modules: $mgr_runs_modules)"
if [[ -n $controller ]]; then
    kill -TERM "$controller" && wait "$controller" || fail "erails-controller did not stop cleanly: $(tail -5 "$work/controller.log")"
    controller=""
fi

"$src/vstart-configs/stop.sh" --dir "$cluster" >/dev/null
rm -rf "$cluster"
cluster=""

installed=0
apt_get remove -y -qq erails >"$work/remove.log" 2>&1 \
    || { cat "$work/remove.log"; fail "apt-get remove failed"; }
rm -f "$marker"
status=$(dpkg-query -W -f='${db:Status-Abbrev}' erails 2>/dev/null || true)
[[ -z $status || $status == un* || $status == pn* ]] \
    || fail "erails still known to dpkg as '$status'"
left=()
for f in "${files[@]}"; do [[ -e $f ]] && left+=("$f"); done
for d in "$mgr_dir/rails" /usr/share/doc/erails; do [[ -e $d ]] && left+=("$d"); done
((${#left[@]} == 0)) || fail "left behind after removal: ${left[*]}"
say "removed; none of its ${#files[@]} files left ($((SECONDS - began)) s in all)"
