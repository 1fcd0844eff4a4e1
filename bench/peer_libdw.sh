#!/usr/bin/env bash
# Runs elfutils libdw on bench_object's code object, on one core, and prints
# its rows next to ours from the same run's results (peer_libdw_object.c).
# Usage: bench/peer_libdw.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:-build-bench}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
taskset -c 0 "$build/bench/peer_libdw_object" "$here"
