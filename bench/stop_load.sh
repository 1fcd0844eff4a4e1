#!/usr/bin/env bash
# Writes the 2,560-wave stop of bench/gpu_stop_workload.h (355 MB,
# gpu_stop_write) and compares the two ways of opening it (bench/stop_load.c).
# Usage: bench/stop_load.sh BUILD_DIR [WAVES] [--indexed]
set -euo pipefail
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
writer=$(find "$build" -name gpu_stop_write -type f -perm -u+x | head -1)
"$writer" "$work" > /dev/null
"$build/bench/stop_load" "$work/gpu_stop.json" "${2:-200}" ${3:+"$3"}
