#!/bin/bash
# Makes (once) and prints the directory of a minimal Debian root of another release with that
# release's Ceph daemons in it, for local clusters of another Ceph build than the host's: Debian 13
# (trixie) ships Ceph 18.2.7 where Debian 12 ships 16.2.15. Needs root (debootstrap, chroot) and
# the Debian mirror the host's apt sources name; about two minutes and 1 GB the first time.
#
#   vstart-configs/debian-root.sh [--dir DIR] RELEASE
#
# Idempotent: a root whose stamp names the same packages is left alone, so every later call
# returns at once; one made half-way (an interrupted run) is made again. Runs at the same moment
# wait for each other.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { echo "usage: $(basename "$0") [--dir DIR] RELEASE   (RELEASE: trixie)"; }
# What a local cluster needs inside the root: the daemons, the CLI and librados for the tests and
# tools, and what start.sh and stop.sh call (ss, pgrep/ps, fuser); and what building, testing
# and packaging erails against that release's Ceph needs (scripts/install-deps.sh's list, less the
# fuzzing compiler).
packages=(ceph-osd ceph-mon ceph-mgr ceph-common librados-dev libradospp-dev python3-rados
          iproute2 procps psmisc git
          build-essential cmake googletest libgtest-dev libjerasure-dev libgf-complete-dev libisal-dev
          libboost-dev libaio-dev python3-pytest python3-yaml python3-matplotlib
          debhelper dh-python)

dir=""
release=""
while (($#)); do
    case $1 in
        --dir) dir=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) usage >&2; die "unknown argument '$1'" ;;
        *) [[ -z $release ]] || { usage >&2; die "one RELEASE, got '$release' and '$1'"; }; release=$1; shift ;;
    esac
done
[[ $release == trixie ]] || { usage >&2; die "RELEASE must be trixie (Debian 13, Ceph 18.2.7), got '${release}'"; }
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap and chroot)"
dir=${dir:-${ERAILS_ROOTS:-/var/cache/erails/roots}/$release}

mkdir -p "$(dirname "$dir")"
exec {lock}>"$dir.lock"
flock "$lock"

stamp="$dir/.erails-root"
wanted="release=$release packages=${packages[*]}"
if [[ -f $stamp && $(<"$stamp") == "$wanted" ]]; then
    echo "$dir"
    exit 0
fi

: >"$dir.log"
# A root of this release with other packages only needs them installed; anything else (none, an
# interrupted debootstrap) is made from the start.
if [[ ! -f $stamp || $(<"$stamp") != "release=$release "* ]]; then
    # The mirror the host installs from; the root gets the same one for its own release.
    mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n1)
    [[ -n $mirror ]] || mirror=$(sed -n 's/^deb \(\[[^]]*\] \)\?\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2>/dev/null | grep -v security | head -n1)
    [[ -n $mirror ]] || die "no Debian mirror found in the host's apt sources"
    echo "making a Debian $release root in $dir from $mirror (log: $dir.log)" >&2
    if ! command -v debootstrap >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >>"$dir.log" 2>&1 \
            || die "cannot install debootstrap; see $dir.log"
    fi
    rm -rf "${dir:?}"
    debootstrap --variant=minbase "$release" "$dir" "$mirror" >>"$dir.log" 2>&1 \
        || die "debootstrap failed; see $dir.log"
else
    echo "installing packages into the Debian $release root in $dir (log: $dir.log)" >&2
fi
# apt inside the root needs /proc and /dev; a private mount namespace drops both when it ends.
unshare --mount --propagation private sh -c '
    mount -t proc proc "$1/proc" && mount --bind /dev "$1/dev" &&
    chroot "$1" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $2"
' sh "$dir" "${packages[*]}" >>"$dir.log" 2>&1 || die "installing packages in the root failed; see $dir.log"
echo "$wanted" >"$stamp"
echo "Debian $release root ready in $dir: ${SECONDS} s, $(du -sh "$dir" | cut -f1)" >&2
echo "$dir"
