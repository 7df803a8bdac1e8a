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
# It also installs into LIB, from CRAN, the data packages of bench/data.R
# and bench/inference_real.R that `make deps` does not bring, when R cannot
# load them already: kernlab (the spam data), ggplot2 (diamonds),
# nycflights13 (flights), Lahman (batting), modeldata (ames, concrete) and
# AER (CPS1988; large: on
# Debian, `apt-get install r-cran-aer r-cran-ggplot2` is quicker and is
# tried first when this runs as root); a failure there is reported and
# leaves those data sets skipped.  bench/utility.R also needs DPpack in LIB
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
# the data packages of bench/data.R and bench/inference_real.R that
# `make deps` does not install (Debian's builds first, where they exist)
if [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null; then
  for p in r-cran-ggplot2 r-cran-aer; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$p" \
        >> "$log" 2>&1 || true
  done
fi
R_LIBS="$lib${R_LIBS:+:$R_LIBS}" Rscript --vanilla -e '
  lib <- commandArgs(TRUE)[1L]
  pk <- c("kernlab", "ggplot2", "nycflights13", "Lahman", "AER", "modeldata")
  miss <- pk[!vapply(pk, requireNamespace, NA, quietly = TRUE)]
  if (length(miss)) {
    repos <- getOption("repos")
    if (is.null(repos) || identical(unname(repos["CRAN"]), "@CRAN@"))
      repos <- "https://cloud.r-project.org"
    cat("installing", miss, "into", lib, "\n")
    tryCatch(utils::install.packages(miss, lib = lib, repos = repos, quiet = TRUE),
             error = function(e) cat("  failed:", conditionMessage(e), "\n"))
    still <- miss[!vapply(miss, requireNamespace, NA, quietly = TRUE)]
    if (length(still)) cat("  NOT installed:", still, "(their data sets are skipped)\n")
  }' "$lib" >> "$log" 2>&1 || true
grep -E "^(installing|  failed|  NOT installed)" "$log" || true
echo "installed dpsco $(grep '^Version' "$src/DESCRIPTION" | cut -d' ' -f2)" \
  "at commit $commit into $lib (log: $log)"
