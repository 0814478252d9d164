#!/usr/bin/env bash
# Builds everything and runs every test: unit tests, the plugin under Ceph's own tools, the
# simulator and QBox, end-to-end tests on a real local cluster (short version), and each fuzz
# target for a few seconds in a separate clang build. Then, for every other Ceph build described
# in src/ceph_abi/builds/ (Debian 13's 18.2.7 on a Debian 12 host), the plugin's tests and the
# cluster tests labelled each_build (those of the parts checked on that build) again, built and
# run inside a root of that build's Debian release.
#   scripts/test.sh                    as CI runs it
#   ERAILS_CLUSTER_FULL=1 scripts/test.sh    with the long cluster tests
#   ERAILS_FUZZ_SECONDS=300 scripts/test.sh  fuzz each parser for longer
# A skipped test is listed with its reason at the end; with CI=true a skip fails the run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${ERAILS_BUILD:-$repo/build}
fuzz_build=${ERAILS_FUZZ_BUILD:-$repo/build-fuzz}
jobs=${ERAILS_JOBS:-2}

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$jobs"

cmake -S "$repo" -B "$fuzz_build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DERAILS_FUZZ=ON -DERAILS_FUZZ_SECONDS="${ERAILS_FUZZ_SECONDS:-10}" >/dev/null
# Only the fuzzers: the clang tree would otherwise build the whole project a second time.
mapfile -t fuzzers < <(cmake --build "$fuzz_build" --target help | sed -n 's/^\.\.\. \(fuzz_[A-Za-z0-9_]*\).*/\1/p')
[ "${#fuzzers[@]}" -gt 0 ] || { echo "test.sh: no fuzz targets found" >&2; exit 1; }
cmake --build "$fuzz_build" -j "$jobs" --target "${fuzzers[@]}"
(cd "$fuzz_build" && ctest --output-on-failure -L fuzz)

cd "$build"
# The rails fault suite takes about 20 minutes: `ctest -L faults` runs it (doc/rails.rst). The
# upgrade tests need the other builds' trees, made below.
status=0
ctest --output-on-failure -j "$jobs" -LE '^(faults|upgrade)$' --output-junit "$build/ctest-results.xml" || status=$?
# A skipped test did not run: say which and why; in CI, where everything is installed, it fails.
skip_args=()
[[ ${CI:-} == true ]] && skip_args=(--fail)
report_skips() { /usr/bin/python3 "$repo/scripts/skipped_tests.py" "$1" "${skip_args[@]}" || { ((status)) || status=1; }; }
report_skips "$build/ctest-results.xml"

# The unit tests do not depend on the Ceph build; what loads into or talks to its daemons does.
host_build=$(ceph --version | sed -n 's/^ceph version \([0-9.]*\) .*/\1/p')
for description in "$repo"/src/ceph_abi/builds/*/build.conf; do
  version=$(basename "$(dirname "$description")")
  [[ $version == "$host_build" ]] && continue
  release=$(sed -n 's/^debian_release *= *//p' "$description")
  root=$("$repo/vstart-configs/debian-root.sh" "$release")
  other_build=$build-$version
  mkdir -p "$other_build"
  in_root=("$repo/vstart-configs/in-root.sh" --bind "$other_build" "$root")
  echo "test.sh: Ceph $version, in the Debian $release root $root, build tree $other_build"
  "${in_root[@]}" cmake -S "$repo" -B "$other_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DERAILS_WITH_SIM=OFF >/dev/null
  "${in_root[@]}" cmake --build "$other_build" -j "$jobs"
  (cd "$other_build" && "${in_root[@]}" ctest --output-on-failure -j "$jobs" -L '^(ec|each_build)$' \
     --output-junit "$other_build/ctest-results.xml") || status=$?
  report_skips "$other_build/ctest-results.xml"
done

# From this build to each newer one, whose tree is now built.
(cd "$build" && ctest --output-on-failure -L '^upgrade$' --output-junit "$build/upgrade-results.xml") || status=$?
report_skips "$build/upgrade-results.xml"
exit "$status"
