# bench/path.R -- a whole dpsco path versus glmnet on the BlogFeedback data
#
# What it measures
#   Seconds to fit a 20-lambda path with dpsco() for each method (holland,
#   kamath, clip, none) with full batches (batch_size = n) and 5 iterations
#   per lambda (100 full passes over the data in all), everything else at
#   dpsco's defaults (epsilon = 1 for the whole path, delta = 0.1/n,
#   intercept, step size 1/(p + 1), default private grid, calibration by the
#   accountant), against glmnet::glmnet(x, y) with its defaults (100 lambdas,
#   standardize = TRUE) on the same data in the same process.
#   Data: dpsco::blog, x = the 280 features through the public transform
#   sign(x) * log1p(|x|) / log1p(1e5) clamped to [-1, 1], y =
#   comments_next24h, a fixed 70% training split (set.seed(20240501), as in
#   inst/scripts/blog_lasso.R): n = 36678, p = 280.
#   Each method runs with its default threads = 2 (every step's batch in two
#   chunks on up to two threads) and with threads = 1 ("_1thread").
#   Raw rows: the same on the raw features (counts up to ~1e5, no
#   transform, as users pass them): glmnet(x_raw, y) and clip, kamath,
#   holland (threads = 2, tuning = "public", defaults otherwise), with their
#   ratios to glmnet on the raw data and to clip on the raw data.
#   Storage: x and x_raw have 16.7% non-zeros, so the engine stores these
#   dense matrices sparse by default (options(dpsco.sparse_density), 0.2):
#   the rows above already run sparse passes.
#   Sparse rows (when Matrix is installed): the raw-data fits again with
#   x_raw passed as a dgCMatrix (as(x_raw, "CsparseMatrix")), "_sparse",
#   and with the dense x_raw stored row-major, every value kept
#   (options(dpsco.sparse_density = 0), the dense pass), "_rowmajor";
#   glmnet(x_sparse, y) as a glmnet user with sparse data calls it.  For
#   each method: dense row-major seconds, dense (default storage) seconds,
#   sparse seconds, and the speed-ups row-major / sparse and dense /
#   sparse; holland on the sparse input over glmnet on the sparse and on
#   the dense matrix and over clip on the sparse input.  The sparse fits'
#   coefficients (beta, a0, lambda of round 1) are compared with the dense
#   and row-major fits for the same seed: max |difference|, expected 0.
#   Runs are interleaved (round 1: glmnet and the eight dpsco fits, the raw
#   rows, the sparse rows, round 2: ...),
#   so that load from other jobs hits all of them alike.  Medians of 5
#   rounds of elapsed seconds and of CPU seconds (user + sys); if a round
#   would push the script past its time budget (~3 minutes) it stops early
#   and says how many rounds it used (a run takes about 1 minute).
#   Ratio: dpsco seconds / glmnet seconds (ratio of the medians), on elapsed
#   and on CPU time; CPU time is the steadier of the two when other jobs
#   share the machine.
#
# Command (from the top of the source tree):
#   sh bench/install.sh       # once: HEAD, compiled from scratch, into /tmp/benchlib
#   R_LIBS=/tmp/benchlib Rscript bench/path.R
#
# Targets: dpsco / glmnet <= 1.0 for every method; on the raw features
# holland / glmnet <= 1.0 and holland / clip <= 1.5; on the sparse input
# row-major / sparse >= 3 for clip and > 1 for every method, holland_sparse /
# glmnet <= 1.0 (sparse and dense glmnet) and holland_sparse / clip_sparse
# <= 1.5; sparse fits equal to the dense ones (max |difference| 0).

suppressPackageStartupMessages({
  library(dpsco)
  library(glmnet)
})

# the commit bench/install.sh installed, if it did
installed_commit <- function() {
  f <- system.file("BENCH_COMMIT", package = "dpsco")
  if (nzchar(f)) readLines(f)[1L] else "unknown (not installed by bench/install.sh)"
}

rounds <- 5L
budget_s <- 200        # start no round that would end (at the slowest
                       # round so far) past this many seconds
nlambda <- 20L
iterations <- 5L
methods <- c("holland", "kamath", "clip", "none")
script_start <- proc.time()[["elapsed"]]

data_env <- new.env(parent = emptyenv())
utils::data("blog", package = "dpsco", envir = data_env)
blog <- data_env$blog
response <- "comments_next24h"
x <- as.matrix(blog[, setdiff(names(blog), response)])
x_raw <- x
x <- sign(x) * log1p(abs(x)) / log1p(1e5)
x <- pmin(pmax(x, -1), 1)
storage.mode(x) <- "double"
y <- as.double(blog[[response]])
set.seed(20240501)
train <- sort(sample.int(nrow(x), round(0.7 * nrow(x))))
x <- x[train, , drop = FALSE]
x_raw <- x_raw[train, , drop = FALSE]
storage.mode(x_raw) <- "double"
y <- y[train]
# the sparse rows need Matrix (only for them)
has_matrix <- requireNamespace("Matrix", quietly = TRUE)
x_sparse <- if (has_matrix) methods::as(x_raw, "CsparseMatrix")
n <- nrow(x)
p <- ncol(x)
rm(blog, data_env)

timed <- function(f) {
  invisible(gc(FALSE))
  t0 <- proc.time()
  val <- f()
  d <- proc.time() - t0
  list(value = val,
       t = c(elapsed = d[["elapsed"]], cpu = d[["user.self"]] + d[["sys.self"]]))
}

# each method with its default threads (2: the batch of every step is cut
# into two chunks run in parallel) and with threads = 1 (one chunk, one
# thread: the single-core cost, comparable with glmnet's one thread)
# density: options(dpsco.sparse_density =) for the call (NULL: the default;
# 0: a dense x stored row-major, every value kept)
dpsco_runner <- function(m, threads, xm = x, density = NULL) {
  force(m)
  force(threads)
  force(xm)
  force(density)
  function() {
    op <- options(dpsco.sparse_density = density)
    on.exit(options(op))
    set.seed(1)
    dpsco(xm, y, method = m, tuning = "public", nlambda = nlambda, batch_size = n,
          iterations = iterations, threads = threads)
  }
}
raw_methods <- c("clip", "kamath", "holland")
raw_fits <- paste0(raw_methods, "_raw")
fits <- c(methods, paste0(methods, "_1thread"))
runners <- c(
  list(glmnet = function() glmnet::glmnet(x, y)),
  stats::setNames(lapply(methods, dpsco_runner, threads = 2L), methods),
  stats::setNames(lapply(methods, dpsco_runner, threads = 1L),
                  paste0(methods, "_1thread")),
  list(glmnet_raw = function() glmnet::glmnet(x_raw, y)),
  stats::setNames(lapply(raw_methods, dpsco_runner, threads = 2L, xm = x_raw),
                  raw_fits))
rm_fits <- paste0(raw_methods, "_rowmajor")
sp_fits <- paste0(raw_methods, "_sparse")
if (has_matrix)
  runners <- c(runners,
    list(glmnet_sparse = function() glmnet::glmnet(x_sparse, y)),
    stats::setNames(lapply(raw_methods, dpsco_runner, threads = 2L, xm = x_raw,
                           density = 0), rm_fits),
    stats::setNames(lapply(raw_methods, dpsco_runner, threads = 2L, xm = x_sparse),
                    sp_fits))
main <- c("glmnet", fits)

el <- cpu <- matrix(NA_real_, rounds, length(runners),
                    dimnames = list(NULL, names(runners)))
info <- list()
coefs <- list()        # round 1's raw-data fits, for the sparse = dense check
done <- 0L
for (r in seq_len(rounds)) {
  spent <- proc.time()[["elapsed"]] - script_start
  if (r > 1L && spent + max(rowSums(el[seq_len(done), , drop = FALSE])) > budget_s)
    break
  for (k in names(runners)) {
    out <- timed(runners[[k]])
    el[r, k] <- out$t[["elapsed"]]
    cpu[r, k] <- out$t[["cpu"]]
    if (r == 1L) {
      f <- out$value
      info[[k]] <- sprintf("%d lambdas, df %d..%d", length(f$lambda),
                           min(f$df), max(f$df))
      if (k %in% c(raw_fits, rm_fits, sp_fits))
        coefs[[k]] <- list(beta = as.matrix(f$beta), a0 = f$a0, lambda = f$lambda)
    }
  }
  done <- r
}
el <- el[seq_len(done), , drop = FALSE]
cpu <- cpu[seq_len(done), , drop = FALSE]
med_el <- apply(el, 2, median)
med_cpu <- apply(cpu, 2, median)

cat(sprintf("dpsco %s, commit %s\n", utils::packageVersion("dpsco"), installed_commit()))
cat(sprintf(paste0("BlogFeedback training split: n = %d, p = %d; dpsco: %d lambdas x %d ",
                   "full-batch steps (%d passes), epsilon = 1, defaults otherwise;\n",
                   "glmnet: glmnet(x, y) defaults.  Medians of %d interleaved round%s ",
                   "(R %s, %s)\n\n"),
            n, p, nlambda, iterations, nlambda * iterations, done,
            if (done == 1L) "" else "s", getRversion(),
            format(Sys.time(), "%Y-%m-%d %H:%M")))
cat(sprintf("dpsco threads: 2 (default) and 1; this machine lets a fit use %d\n\n",
            dpsco:::max_threads()))
tab <- data.frame(
  fit = main,
  elapsed_s = sprintf("%.2f", med_el[main]),
  cpu_s = sprintf("%.2f", med_cpu[main]),
  ratio_elapsed = sprintf("%.2f", med_el[main] / med_el[["glmnet"]]),
  ratio_cpu = sprintf("%.2f", med_cpu[main] / med_cpu[["glmnet"]]),
  ns_per_record_feature_pass = c("-", sprintf("%.2f",
    1e9 * med_cpu[fits] / (n * p * nlambda * iterations))),
  path = unlist(info[main]),
  target_elapsed = c("-", ifelse(med_el[fits] / med_el[["glmnet"]] <= 1,
                                 "MET", "NOT MET")),
  target_cpu = c("-", ifelse(med_cpu[fits] / med_cpu[["glmnet"]] <= 1,
                             "MET", "NOT MET")),
  stringsAsFactors = FALSE)
print(tab, row.names = FALSE, right = TRUE)
cat("\n(ratio_* = dpsco / glmnet, measured in this run; ns_per_record_feature_pass =",
    "dpsco CPU time / (n p x 100 passes); target <= 1.0 judged on elapsed and on CPU time)\n")

# the raw features (counts up to ~1e5, no transform), as users pass them:
# the heavy-tailed case the Holland estimator is for.  Targets: holland <=
# 1.0 x glmnet(x_raw, y) and <= 1.5 x clip, both on the raw data.
raw <- c("glmnet_raw", raw_fits)
tab_raw <- data.frame(
  fit = raw,
  elapsed_s = sprintf("%.2f", med_el[raw]),
  cpu_s = sprintf("%.2f", med_cpu[raw]),
  ratio_elapsed = sprintf("%.2f", med_el[raw] / med_el[["glmnet_raw"]]),
  ratio_cpu = sprintf("%.2f", med_cpu[raw] / med_cpu[["glmnet_raw"]]),
  x_clip_elapsed = c("-", sprintf("%.2f", med_el[raw_fits] / med_el[["clip_raw"]])),
  x_clip_cpu = c("-", sprintf("%.2f", med_cpu[raw_fits] / med_cpu[["clip_raw"]])),
  path = unlist(info[raw]),
  stringsAsFactors = FALSE)
cat("\nRaw features (no transform), dpsco threads = 2; ratio_* = dpsco / glmnet(x_raw, y),",
    "x_clip_* = method / clip on the raw data:\n")
print(tab_raw, row.names = FALSE, right = TRUE)
verdict <- function(ok) if (ok) "MET" else "NOT MET"
for (kind in c("elapsed", "cpu")) {
  med <- if (kind == "elapsed") med_el else med_cpu
  g <- med[["holland_raw"]] / med[["glmnet_raw"]]
  cl <- med[["holland_raw"]] / med[["clip_raw"]]
  cat(sprintf("  raw holland / glmnet = %.2f (<= 1.0) %s;  holland / clip = %.2f (<= 1.5) %s  [%s]\n",
              g, verdict(g <= 1), cl, verdict(cl <= 1.5), kind))
}

# the sparse input: dense row-major, dense (default storage) and dgCMatrix
# fits of the raw data.  Targets: row-major / sparse >= 3 for clip and > 1
# for every method; holland_sparse <= 1.0 x glmnet (sparse and dense x) and
# <= 1.5 x clip_sparse.
if (has_matrix) {
  maxdiff <- function(a, b)
    max(abs(a$beta - b$beta), abs(a$a0 - b$a0), abs(a$lambda - b$lambda))
  cat(sprintf(paste0("\nSparse input: x_raw as a dgCMatrix (%.1f%% non-zeros), ",
                     "dpsco threads = 2; rowmajor = dense x_raw with ",
                     "options(dpsco.sparse_density = 0),\ndense = dense x_raw ",
                     "(default storage: sparse at <= 20%% non-zeros); ",
                     "speedup_* = that time / sparse time:\n"),
              100 * length(x_sparse@x) / (as.double(n) * p)))
  sp_tab <- do.call(rbind, lapply(c("elapsed", "cpu"), function(kind) {
    med <- if (kind == "elapsed") med_el else med_cpu
    rmj <- med[rm_fits]; dns <- med[raw_fits]; spr <- med[sp_fits]
    goal <- ifelse(raw_methods == "clip", 3, 1)
    data.frame(
      method = raw_methods, time = kind,
      rowmajor_s = sprintf("%.3f", rmj), dense_s = sprintf("%.3f", dns),
      sparse_s = sprintf("%.3f", spr),
      speedup_rowmajor = sprintf("%.2f", rmj / spr),
      speedup_dense = sprintf("%.2f", dns / spr),
      target = ifelse(raw_methods == "clip", ">= 3", "> 1"),
      met = ifelse(ifelse(raw_methods == "clip", rmj / spr >= goal, rmj / spr > goal),
                   "MET", "NOT MET"),
      stringsAsFactors = FALSE)
  }))
  print(sp_tab, row.names = FALSE, right = TRUE)
  cat(sprintf("  glmnet: dense x_raw %.3f s, sparse x %.3f s elapsed (%.3f / %.3f s CPU)\n",
              med_el[["glmnet_raw"]], med_el[["glmnet_sparse"]],
              med_cpu[["glmnet_raw"]], med_cpu[["glmnet_sparse"]]))
  for (kind in c("elapsed", "cpu")) {
    med <- if (kind == "elapsed") med_el else med_cpu
    gs <- med[["holland_sparse"]] / med[["glmnet_sparse"]]
    gd <- med[["holland_sparse"]] / med[["glmnet_raw"]]
    cl <- med[["holland_sparse"]] / med[["clip_sparse"]]
    cat(sprintf(paste0("  sparse holland / glmnet(sparse) = %.2f (<= 1.0) %s;  ",
                       "/ glmnet(dense) = %.2f (<= 1.0) %s;  / clip_sparse = %.2f ",
                       "(<= 1.5) %s  [%s]\n"),
                gs, verdict(gs <= 1), gd, verdict(gd <= 1), cl, verdict(cl <= 1.5),
                kind))
  }
  same <- vapply(raw_methods, function(m) {
    s <- coefs[[paste0(m, "_sparse")]]
    c(dense = maxdiff(s, coefs[[paste0(m, "_raw")]]),
      rowmajor = maxdiff(s, coefs[[paste0(m, "_rowmajor")]]))
  }, c(dense = 0, rowmajor = 0))
  cat("  sparse fit vs dense fit, same seed (beta, a0, lambda), max |difference|:",
      paste(sprintf("%s %g (rowmajor %g)", raw_methods, same["dense", ],
                    same["rowmajor", ]), collapse = ", "),
      if (all(same == 0)) "-- all 0: EQUAL" else "-- NOT EQUAL (expected 0)", "\n")
} else {
  cat("\nSparse rows skipped: the Matrix package is not installed.\n")
}
cat("All rounds, elapsed seconds:\n")
print(round(el, 2))
cat("All rounds, CPU seconds:\n")
print(round(cpu, 2))
cat(sprintf("Script time %.0f s\n", proc.time()[["elapsed"]] - script_start))
