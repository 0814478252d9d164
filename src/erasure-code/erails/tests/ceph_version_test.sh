#!/usr/bin/env bash
# Configuring must refuse a Ceph whose ABI was not checked, name the checked list, and say why.
# Runs cmake/CephVersion.cmake against fake `ceph` commands.
# usage: ceph_version_test.sh REPO
set -euo pipefail
repo=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/bin"
cat >"$work/src/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(version_check NONE)
include($repo/cmake/CephVersion.cmake)
message(STATUS "version=\${ERAILS_CEPH_VERSION}")
CMAKE

configure_with() {  # prints cmake's output for a `ceph --version` that prints $1
  printf '#!/bin/sh\necho "%s"\n' "$1" >"$work/bin/ceph"
  chmod +x "$work/bin/ceph"
  rm -rf "$work/build"
  PATH="$work/bin:$PATH" cmake -S "$work/src" -B "$work/build" 2>&1 | tr -s " \n" " "; return "${PIPESTATUS[0]}"
}

out=$(configure_with "ceph version 17.2.7 (abc) quincy (stable)") && { echo "FAIL: 17.2.7 accepted"; exit 1; }
grep -q "found Ceph 17.2.7, but the Ceph ABI declared in src/ceph_abi.*checked only against Ceph 16.2.15" <<<"$out" ||
  { echo "FAIL: refusal of 17.2.7 does not say why:"; echo "$out"; exit 1; }
out=$(configure_with "no version here") && { echo "FAIL: unreadable version accepted"; exit 1; }
grep -q "could not read a version" <<<"$out" || { echo "FAIL: $out"; exit 1; }
out=$(configure_with "ceph version 16.2.9 (abc) pacific (stable)") && { echo "FAIL: unchecked 16.2.9 accepted"; exit 1; }
grep -q "found Ceph 16.2.9.*checked only against Ceph 16.2.15" <<<"$out" ||
  { echo "FAIL: refusal of 16.2.9 does not name the checked list:"; echo "$out"; exit 1; }
out=$(configure_with "ceph version 16.2.15 (abc) pacific (stable)") || { echo "FAIL: 16.2.15 refused: $out"; exit 1; }
grep -q "version=16.2.15" <<<"$out" || { echo "FAIL: detected version not reported: $out"; exit 1; }
echo "ok: 16.2.15 accepted with its version; 17.2.7, unchecked 16.2.9 and garbage refused with a reason"
