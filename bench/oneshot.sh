#!/usr/bin/env bash
# One question about a big code object, as a user asks it from the shell:
# `amddwarf lines ADDR`, `amddwarf vars --pc ADDR` and `amddwarf eval` of a
# parameter with a snapshot, against llvm-symbolizer-19 and
# `llvm-dwarfdump-19 --lookup` on the same address, in the same run. Each
# command runs RUNS times (cache warm); the median wall time and the largest
# peak RSS (GNU time's %M) are printed, with the ratios to the peers.
#
# Usage: bench/oneshot.sh AMDDWARF OBJECT [RUNS]
#   OBJECT: bench/gen_object.sh's object (generate it outside the tree:
#   bench/gen_object.sh /tmp/bigobj 200). ADDR is in the last function of the
#   last copy, so that a reader that walks units in order pays for all of them.
set -euo pipefail
amddwarf=${1:?AMDDWARF}
object=${2:?OBJECT}
runs=${3:-5}
for tool in llvm-symbolizer-19 llvm-dwarfdump-19 llvm-nm-19 /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "oneshot: $tool is missing" >&2; exit 1; }
done
# The last local function symbol (f399 of the last copy), 0xcc into it.
last=$(llvm-nm-19 --defined-only "$object" | awk '$2 == "t" { print $1 }' | sort | tail -1)
addr=$(printf '0x%x' $((16#$last + 0xcc)))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A wave stopped at ADDR: frame base register s33 = 0, lane 0's private
# memory from 0 holding the bytes 0, 1, 2, ...
python3 - "$addr" > "$work/stop.json" <<'PY'
import json, sys
print(json.dumps({"architecture": "gfx900", "pc": sys.argv[1], "exec": 1,
                  "registers": {"s33": 0, "s32": 4096},
                  "memory": [{"address_space": "private_lane", "lane": 0, "address": 0,
                              "bytes": "".join("%02x" % (i % 256) for i in range(512))}]}))
PY

# measure NAME CMD...: prints "NAME wall_seconds peak_kb"
measure() {
  local name=$1
  shift
  local walls=() peak=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> /dev/null || {
      echo "oneshot: failed: $*" >&2
      exit 1
    }
    read -r wall kb < "$work/time"
    walls+=("$wall")
    [ "$kb" -gt "$peak" ] && peak=$kb
  done
  local median
  median=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  echo "$name $median $peak"
}

{
  measure symbolizer llvm-symbolizer-19 --obj="$object" "$addr"
  measure lookup llvm-dwarfdump-19 --lookup="$addr" "$object"
  measure lines "$amddwarf" lines "$object" "$addr"
  measure vars "$amddwarf" vars "$object" --pc "$addr"
  measure eval "$amddwarf" eval "$object" --state "$work/stop.json" --lane 0 a
} > "$work/results"

echo "# one-shot queries on $(basename "$object") ($(du -m "$object" | cut -f1) MB) at $addr," \
  "median of $runs runs, $(nproc) cores"
echo
echo "| command | wall (s) | peak RSS (MB) | wall / llvm-symbolizer | RSS / llvm-symbolizer | wall / dwarfdump --lookup | RSS / dwarfdump --lookup |"
echo "|---|---|---|---|---|---|---|"
awk '
  { wall[$1] = $2; kb[$1] = $3; order[NR] = $1 }
  END {
    label["symbolizer"] = "llvm-symbolizer-19 --obj OBJ ADDR"
    label["lookup"] = "llvm-dwarfdump-19 --lookup=ADDR OBJ"
    label["lines"] = "amddwarf lines OBJ ADDR"
    label["vars"] = "amddwarf vars OBJ --pc ADDR"
    label["eval"] = "amddwarf eval OBJ --state STOP --lane 0 a"
    for (i = 1; i <= NR; ++i) {
      n = order[i]
      printf "| `%s` | %.3f | %.0f | %.2f | %.2f | %.2f | %.2f |\n", label[n], wall[n], kb[n] / 1024,
             wall[n] / wall["symbolizer"], kb[n] / kb["symbolizer"], wall[n] / wall["lookup"],
             kb[n] / kb["lookup"]
    }
  }' "$work/results"
