#!/usr/bin/env bash
# From a fresh Debian 12 machine to a running local cluster with an erails pool under rados bench
# and Rails at work: installs the Debian packages, builds the plugin and the device emulator,
# starts 1 mon + 1 mgr + 6 OSDs on emulated SSDs on 127.0.0.1 in ./cluster, creates an erails k=4
# m=2 pool, runs rados bench write/seq/rand, then a Rails pool with the rails module, its mixed
# load and the read-latency comparison, and leaves the cluster running (it prints how to use and
# stop it). ERAILS_BUILD names another build directory (default ./build).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${ERAILS_BUILD:-$repo/build}
"$repo/scripts/install-deps.sh"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "${ERAILS_JOBS:-2}" --target ec_erails erails_device_emulator
"$repo/vstart-configs/demo.sh" --plugin-dir "$build/erasure-code" "$@"
