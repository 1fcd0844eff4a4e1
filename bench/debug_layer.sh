#!/usr/bin/env bash
# The debugger layer's first question of a big object (bench_debug_layer.c)
# against libdw's getscopes path (peer_libdw_scopes.c), on one core, at a PC
# of the last unit that stands in 8 frames: the body of d1, inlined seven
# calls deep in `deep` (gen_object.sh writes its offset to OBJECT's .deep
# file). An object without that file is asked at the address bench/oneshot.sh
# uses (0xcc into the last local function, one frame).
# Usage: bench/debug_layer.sh BUILD_DIR OBJECT [RUNS]
set -euo pipefail
build=$(cd "${1:?BUILD_DIR}" && pwd)
object=${2:?OBJECT}
runs=${3:-9}
if [ -f "${object%.so}.deep" ]; then
  deep=$(llvm-nm-19 --defined-only "$object" | awk '$3 ~ /_deep$/ { print $1 }' | sort | tail -1)
  addr=$(printf '0x%x' $((16#$deep + $(cat "${object%.so}.deep"))))
else
  echo "debug_layer: no ${object%.so}.deep (an object from an older gen_object.sh): one frame" >&2
  last=$(llvm-nm-19 --defined-only "$object" | awk '$2 == "t" { print $1 }' | sort | tail -1)
  addr=$(printf '0x%x' $((16#$last + 0xcc)))
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
taskset -c 0 "$build/bench/bench_debug_layer" "$object" "$addr" "$out" "$runs"
taskset -c 0 "$build/bench/peer_libdw_scopes" "$object" "$out" "$runs"
