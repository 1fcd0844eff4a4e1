#!/usr/bin/env bash
# Builds the gimli peer of bench_eval and bench_gpu_stop (bench/gimli,
# offline from Debian's librust-gimli-dev: apt-get install librust-gimli-dev
# cargo) in the build directory, runs it on one core and prints their tables
# with both columns through --peer. Usage: bench/peer_gimli.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:-build-bench}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v cargo > /dev/null || [ ! -d /usr/share/cargo/registry ]; then
  echo "peer_gimli: cargo or /usr/share/cargo/registry missing (apt-get install cargo librust-gimli-dev)" >&2
  exit 1
fi
work="$build/peer-gimli"
rm -rf "$work/src-copy"
mkdir -p "$work"
cp -r "$here/gimli" "$work/src-copy"
(cd "$work/src-copy" && CARGO_TARGET_DIR="$work/target" cargo build --release --quiet)
taskset -c 0 "$work/target/release/amddwarf-peer-gimli" > "$work/results.txt"
taskset -c 0 "$build/bench/bench_eval" --peer "$work/results.txt"
taskset -c 0 "$build/bench/bench_gpu_stop" --peer "$work/results.txt"
