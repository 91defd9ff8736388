#!/usr/bin/env bash
# Instructions per operation of one sluice-bench case, measured with callgrind.
#
#   Benchmarks/Scripts/callgrind-per-op.sh dispatch.observers0 [ITERATIONS]
#
# Runs the case's loop once (`--once`) for N and for 2N iterations under
# `valgrind --tool=callgrind` and prints (Ir(2N) - Ir(N)) / N: setup, process start-up and the
# fixture's own checks cancel out. The 2N profile is kept for callgrind_annotate; its path is
# printed at the end. Build first: swift build -c release --package-path Benchmarks
set -euo pipefail

case_name=${1:?usage: $0 CASE [ITERATIONS]}
iterations=${2:-100000}
here=$(cd "$(dirname "$0")/.." && pwd)
bench="$here/.build/release/sluice-bench"
out_dir=${CALLGRIND_OUT_DIR:-$(mktemp -d /tmp/sluice-callgrind.XXXXXX)}
extra_flag=""
case "$case_name" in extra.*) extra_flag="--extra" ;; esac

[ -x "$bench" ] || { echo "build first: swift build -c release --package-path Benchmarks" >&2; exit 1; }
# valgrind 3.19 cannot read the DWARF of C thread-local variables: profile a stripped copy.
stripped="$out_dir/sluice-bench"
cp "$bench" "$stripped"
strip --strip-debug "$stripped"
bench="$stripped"

collect() {
  local n=$1 file="$out_dir/callgrind.out.$case_name.$1"
  valgrind --tool=callgrind --callgrind-out-file="$file" \
    "$bench" $extra_flag --filter "$case_name" --iterations "$n" --once >/dev/null 2>"$file.log"
  # "summary: N" is the total Ir of the run.
  grep -E '^(summary|totals):' "$file" | head -1 | awk '{print $2}'
}

small=$(collect "$iterations")
large=$(collect $((2 * iterations)))
awk -v a="$small" -v b="$large" -v n="$iterations" -v c="$case_name" \
  'BEGIN { printf "%s: %.1f instructions/op (Ir %.0f at N=%d, %.0f at 2N)\n", c, (b - a) / n, a, n, b }'
echo "profile: $out_dir/callgrind.out.$case_name.$((2 * iterations))"
echo "  callgrind_annotate --inclusive=yes $out_dir/callgrind.out.$case_name.$((2 * iterations)) | head -60"
