#!/usr/bin/env bash
# Runs the README's test command while two CPU-bound processes keep both cores busy, as a second
# build or a busy CI machine would. A test that passes only on an idle machine fails here.
#
#   Scripts/test-under-load.sh [--runs N] [--workers W] [-- ARGS…]
#
# ARGS go to every `swift test` call (CI passes `-Xswiftc -warnings-as-errors`).
# The tests are built first, without the load: what this checks is the tests, not the compiler.
# Then `swift test --enable-all-traits ARGS` runs N times (1 by default) beside
# `stress-ng --cpu W` (2 by default); the script stops at the first run that fails and prints
# how many runs passed. Needs stress-ng (Debian: apt-get install stress-ng).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

runs=1
workers=2
while (($# > 0)); do
  case $1 in
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --workers) workers=${2:?--workers needs a number}; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--runs N] [--workers W] [-- ARGS…]" >&2; exit 64 ;;
  esac
done

if ! command -v stress-ng >/dev/null 2>&1; then
  echo "error: stress-ng is not installed (Debian: apt-get install stress-ng)" >&2
  exit 2
fi

# `swift test list` builds exactly what `swift test` runs, with its build parameters (a plain
# `swift build --build-tests` differs from them, and `swift test` would rebuild every module).
build_log=$(mktemp)
if ! swift test list --enable-all-traits "$@" >"${build_log}" 2>&1; then
  cat "${build_log}" >&2
  rm -f "${build_log}"
  exit 1
fi
grep -E 'Build complete|: (warning|error): ' "${build_log}" || true
rm -f "${build_log}"

stress-ng --cpu "${workers}" --quiet &
load=$!
trap 'kill "${load}" 2>/dev/null || true; wait "${load}" 2>/dev/null || true' EXIT

for run in $(seq 1 "${runs}"); do
  echo "==> run ${run} of ${runs}, beside stress-ng --cpu ${workers}"
  started=${SECONDS}
  if ! swift test --enable-all-traits "$@"; then
    echo "==> run ${run} failed after $((SECONDS - started))s; $((run - 1)) of ${runs} passed" >&2
    exit 1
  fi
  echo "==> run ${run} passed in $((SECONDS - started))s"
done
echo "==> ${runs} of ${runs} runs passed under load"
