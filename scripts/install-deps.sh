#!/usr/bin/env bash
# Installs every Debian package erails needs to build, test and run a local cluster.
# Idempotent: packages already present are left alone, so CI can run it on every build.
set -euo pipefail

packages=(
  build-essential cmake clang libclang-rt-14-dev
  googletest libgtest-dev
  libjerasure-dev libgf-complete-dev libisal-dev
  ceph ceph-base ceph-common ceph-mon ceph-osd ceph-mgr
  libradospp-dev librados-dev
  libboost-dev libaio-dev iproute2
  debhelper dh-python dpkg-dev fakeroot
  python3-rados python3-pytest python3-yaml python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
