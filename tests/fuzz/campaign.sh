#!/bin/sh
# A fuzzing campaign: every libFuzzer target of a clang build configured with
# -DAMDDWARF_SANITIZE=ON -DAMDDWARF_FUZZ=ON runs for SECONDS, one target after
# another, starting from its seeds (tests/fuzz/corpus/<name>/) and regression
# inputs (tests/fuzz/regressions/<name>/). New inputs that reach new coverage
# are kept in WORK/<name>/corpus (reused by the next campaign); crashing,
# leaking, timing-out or out-of-memory inputs land in WORK/<name>/artifacts/.
#
# Usage: tests/fuzz/campaign.sh BUILD_DIR [SECONDS] [WORK]
#   SECONDS  per target (default 600)
#   WORK     work directory (default BUILD_DIR/fuzz-campaign)
#   FUZZ_TARGETS="eval cfi"  runs only these targets (names without fuzz_)
#   FUZZ_TIMEOUT             seconds one input may take (default 10)
#   FUZZ_RSS_MB              memory limit per target (default 2048)
# Run it on one core with e.g. `taskset -c 1 nice tests/fuzz/campaign.sh ...`.
#
# Prints, per target: executions, coverage (cov: edges and ft: features from
# libFuzzer's final line), corpus size, crashes (artifact files), and a
# status. Exits 1 if any target crashed, leaked, timed out, ran out of memory
# or printed a sanitizer report; 2 on bad usage.
set -u

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILD_DIR [SECONDS] [WORK]" >&2
  exit 2
fi
build=$1
seconds=${2:-600}
work=${3:-$build/fuzz-campaign}
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2048}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)

case $seconds in
  ''|*[!0-9]*) echo "$0: SECONDS must be a number" >&2; exit 2 ;;
esac
if [ ! -d "$build/tests" ]; then
  echo "$0: $build/tests not found (build with -DAMDDWARF_FUZZ=ON first)" >&2
  exit 2
fi

if [ -n "${FUZZ_TARGETS:-}" ]; then
  names=$FUZZ_TARGETS
else
  names=$(for f in "$source_dir"/tests/fuzz/fuzz_*.c; do
            basename "$f" .c | sed 's/^fuzz_//'
          done)
fi

mkdir -p "$work" || exit 2
summary=$work/summary.md
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
{
  echo "| target | seconds | executions | cov | ft | corpus | crashes | status |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|"
} > "$summary"
printf '%-16s %8s %12s %7s %8s %7s %8s  %s\n' target seconds executions cov ft corpus crashes status

for name in $names; do
  binary=$build/tests/fuzz_$name
  dir=$work/$name
  mkdir -p "$dir/corpus" "$dir/artifacts"
  log=$dir/fuzz.log
  if [ ! -x "$binary" ]; then
    printf '%-16s %s\n' "$name" "missing $binary"
    echo "| $name | - | - | - | - | - | - | missing binary |" >> "$summary"
    failed=1
    continue
  fi
  inputs=
  for d in "$source_dir/tests/fuzz/corpus/$name" "$source_dir/tests/fuzz/regressions/$name"; do
    [ -d "$d" ] && inputs="$inputs $d"
  done
  # The first directory receives the new inputs; the others are read only.
  # shellcheck disable=SC2086
  "$binary" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$dir/corpus" $inputs \
    > "$log" 2>&1
  rc=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  final=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
  cov=$(printf '%s\n' "$final" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(printf '%s\n' "$final" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  corpus=$(find "$dir/corpus" -type f | wc -l)
  crashes=$(find "$dir/artifacts" -type f | wc -l)
  status=ok
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status="FAILED (exit $rc)"
  elif grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
    status="FAILED (sanitizer report)"
  fi
  [ "$status" = ok ] || failed=1
  printf '%-16s %8s %12s %7s %8s %7s %8s  %s\n' "$name" "$seconds" "${executions:-?}" \
    "${cov:-?}" "${ft:-?}" "$corpus" "$crashes" "$status"
  echo "| $name | $seconds | ${executions:-?} | ${cov:-?} | ${ft:-?} | $corpus | $crashes | $status |" \
    >> "$summary"
  if [ "$status" != ok ]; then
    grep -E 'ERROR:|runtime error:|SUMMARY:|Test unit written' "$log" | head -n 5 | sed 's/^/    /'
  fi
done

echo "summary: $summary; logs: $work/<target>/fuzz.log"
exit $failed
