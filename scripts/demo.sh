#!/usr/bin/env bash
# From a fresh Debian 12 machine to a running local cluster with an erails pool under rados bench:
# installs the Debian packages, builds the plugin, starts 1 mon + 1 mgr + 6 OSDs on 127.0.0.1 in
# ./cluster, creates an erails k=4 m=2 pool, runs rados bench write/seq/rand, and leaves the
# cluster running (it prints how to use and stop it).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
"$repo/scripts/install-deps.sh"
cmake -S "$repo" -B "$repo/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$repo/build" -j "${ERAILS_JOBS:-2}" --target ec_erails
"$repo/vstart-configs/demo.sh" --plugin-dir "$repo/build/erasure-code" "$@"
