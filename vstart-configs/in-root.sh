#!/bin/bash
# Runs a command inside a Debian root made by debian-root.sh, as if it were on the host: the same
# working directory, /tmp, this checkout and every --bind directory at their own paths, the host's
# network and process ids. The mounts live in a mount namespace of the command's own, so they
# disappear with the last process started in it (a cluster's daemons included) and never show on
# the host. Needs root (unshare, chroot).
#
#   vstart-configs/in-root.sh [--bind DIR]... ROOT COMMAND [ARG]...
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { echo "usage: $(basename "$0") [--bind DIR]... ROOT COMMAND [ARG]..."; }
binds=("$ERAILS_REPO" /tmp "$PWD")
while (($#)); do
    case $1 in
        --bind) [[ -d ${2:-} ]] || die "--bind: '${2:-}' is not a directory"
                binds+=("$(cd "$2" && pwd)"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) usage >&2; die "unknown argument '$1'" ;;
        *) break ;;
    esac
done
(($# >= 2)) || { usage >&2; die "needs ROOT and COMMAND"; }
root=$1; shift
[[ -f $root/.erails-root ]] || die "'$root' is not a root made by debian-root.sh (no .erails-root stamp)"
root=$(cd "$root" && pwd)
[[ $(id -u) -eq 0 ]] || die "needs root (unshare and chroot)"

# Inner directories are bound after the directories holding them, or the outer bind would hide them.
mapfile -t binds < <(printf '%s\n' "${binds[@]}" | sort -u)
exec unshare --mount --propagation private /bin/bash -c '
    set -e
    root=$1; shift; nbinds=$1; shift
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/run"
    mkdir -p "$root/run/lock"
    for ((i = 0; i < nbinds; i++)); do
        mkdir -p "$root$1"
        mount --bind "$1" "$root$1"
        shift
    done
    exec chroot "$root" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$PWD" "$@"
' in-root "$root" "${#binds[@]}" "${binds[@]}" "$@"
