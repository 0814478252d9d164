#!/usr/bin/env bash
# Configuring must refuse a Ceph whose ABI was not checked, name the checked builds, and say why;
# and refuse a build description (src/ceph_abi/builds/<version>/build.conf) it cannot trust.
# Runs cmake/CephVersion.cmake against fake `ceph` commands, on a copy of the descriptions.
# usage: ceph_version_test.sh REPO
set -euo pipefail
repo=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tree/cmake" "$work/tree/src/ceph_abi" "$work/bin"
cp "$repo/cmake/CephVersion.cmake" "$work/tree/cmake/"
cp -r "$repo/src/ceph_abi/builds" "$work/tree/src/ceph_abi/"
checked=$(cd "$repo/src/ceph_abi/builds" && ls | paste -sd, | sed 's/,/, /g')
cat >"$work/tree/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(version_check NONE)
include(cmake/CephVersion.cmake)
message(STATUS "version=\${ERAILS_CEPH_VERSION} osd=\${ERAILS_CEPH_BUILD_OSD_BUILD_ID} parts=\${ERAILS_CEPH_BUILD_CHECKED_PARTS}")
CMAKE

# No Ceph package installed, as far as configure can tell: the fake version is the only Ceph here.
printf '#!/bin/sh\nexit 1\n' >"$work/bin/dpkg-query"
chmod +x "$work/bin/dpkg-query"
configure_with() {  # prints cmake's output for a `ceph --version` that prints $1
  printf '#!/bin/sh\necho "%s"\n' "$1" >"$work/bin/ceph"
  chmod +x "$work/bin/ceph"
  rm -rf "$work/build"
  PATH="$work/bin:$PATH" cmake -S "$work/tree" -B "$work/build" 2>&1 | tr -s " \n" " "; return "${PIPESTATUS[0]}"
}
fail() { echo "FAIL: $1:"; echo "$2"; exit 1; }

out=$(configure_with "ceph version 17.2.7 (abc) quincy (stable)") && fail "17.2.7 accepted" "$out"
grep -qF "found Ceph 17.2.7, but the Ceph ABI declared in src/ceph_abi was checked only against Ceph $checked" <<<"$out" ||
  fail "refusal of 17.2.7 does not say why" "$out"
out=$(configure_with "no version here") && fail "unreadable version accepted" "$out"
grep -q "could not read a version" <<<"$out" || fail "no reason" "$out"
out=$(configure_with "ceph version 16.2.9 (abc) pacific (stable)") && fail "unchecked 16.2.9 accepted" "$out"
grep -qF "found Ceph 16.2.9, but the Ceph ABI declared in src/ceph_abi was checked only against Ceph $checked" <<<"$out" || fail "refusal of 16.2.9 does not name the checked list" "$out"
for version in ${checked//,/}; do
  out=$(configure_with "ceph version $version (abc) x (stable)") || fail "$version refused" "$out"
  grep -q "version=$version osd=[0-9a-f]\{40\} parts=plugin" <<<"$out" || fail "$version's description not read" "$out"
done

# A description it cannot trust: each edit of a copy of 16.2.15's, refused with the key named.
description="$work/tree/src/ceph_abi/builds/16.2.15/build.conf"
cp "$description" "$work/build.conf.good"
refused_with() {  # $1: sed expression applied to the good description, $2: what the error must say
  sed "$1" "$work/build.conf.good" >"$description"
  out=$(configure_with "ceph version 16.2.15 (abc) pacific (stable)") && fail "description accepted after '$1'" "$out"
  grep -qF -- "$2" <<<"$out" || fail "after '$1' the error does not say '$2'" "$out"
}
refused_with 's/^version = .*/version = 16.2.14/' "describes Ceph 16.2.14, not the 16.2.15 its folder is named after"
refused_with '/^osd_build_id/d' "has no 'osd_build_id'"
refused_with 's/^checked_parts = .*/checked_parts = plugin rails/' "checked_parts names 'rails'; the parts are plugin, rails_lease, qbox_scheduler and device_emulator"
refused_with 's/^checked_parts = .*/checked_parts = rails_lease/' "checked_parts must name plugin"
refused_with '/^make_scheduler_first_bytes/d' "names qbox_scheduler checked but has no 'make_scheduler_first_bytes'"
refused_with 's/^crush_map_offset = /crush_map_offset /' "'crush_map_offset 0x180' is not 'key = value'"
refused_with '/^mgr_runs_python_modules/d' "has no 'mgr_runs_python_modules'"
refused_with 's/^mgr_runs_python_modules = .*/mgr_runs_python_modules = yes/' "mgr_runs_python_modules is 'yes'; accepted: true or false"
echo "ok: $checked accepted with their descriptions; 17.2.7, unchecked 16.2.9, garbage and eight broken descriptions refused with a reason"
