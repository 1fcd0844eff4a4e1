#!/usr/bin/env bash
# The debugger layer's first question of a big object (bench_debug_layer.c)
# against libdw's getscopes path (peer_libdw_scopes.c), on one core, at the
# address bench/oneshot.sh uses (0xcc into the last local function).
# Usage: bench/debug_layer.sh BUILD_DIR OBJECT [RUNS]
set -euo pipefail
build=$(cd "${1:?BUILD_DIR}" && pwd)
object=${2:?OBJECT}
runs=${3:-9}
last=$(llvm-nm-19 --defined-only "$object" | awk '$2 == "t" { print $1 }' | sort | tail -1)
addr=$(printf '0x%x' $((16#$last + 0xcc)))
out=$(mktemp)
trap 'rm -f "$out"' EXIT
taskset -c 0 "$build/bench/bench_debug_layer" "$object" "$addr" "$out" "$runs"
taskset -c 0 "$build/bench/peer_libdw_scopes" "$object" "$out" "$runs"
