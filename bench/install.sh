#!/bin/sh
# bench/install.sh -- install the committed state of dpsco into a private
# library for the benchmarks, compiled from scratch.
#
#   sh bench/install.sh [LIB]        (LIB defaults to /tmp/benchlib)
#
# Why not `R CMD INSTALL -l LIB .` in the working tree: R CMD INSTALL reuses
# any object files left in src/ by earlier builds, whatever flags they were
# compiled with (a debug build's -O0 objects halve the speed), and the
# working tree may hold uncommitted edits.  This script exports
# HEAD with `git archive` into a temporary directory (no objects, no
# untracked files), installs from there, and records the commit in
# LIB/dpsco/BENCH_COMMIT, which the benchmark scripts print.
# It installs dpsco only.  bench/utility.R also needs DPpack in LIB
# (once: Rscript -e 'install.packages("DPpack", lib = "/tmp/benchlib")');
# glmnet and mlbench come from `make deps`.
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-/tmp/benchlib}
src=$(mktemp -d /tmp/dpsco_bench_src.XXXXXX)
trap 'rm -rf "$src"' EXIT
mkdir -p "$lib"
commit=$(git -C "$here" rev-parse HEAD)
git -C "$here" archive --format=tar HEAD | tar -x -C "$src"
log=/tmp/bench_inst.log
if ! R CMD INSTALL --no-multiarch -l "$lib" "$src" > "$log" 2>&1; then
  tail -n 30 "$log"
  exit 1
fi
printf '%s %s\n' "$commit" "$(git -C "$here" log -1 --format=%cI HEAD)" \
  > "$lib/dpsco/BENCH_COMMIT"
echo "installed dpsco $(grep '^Version' "$src/DESCRIPTION" | cut -d' ' -f2)" \
  "at commit $commit into $lib (log: $log)"
