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
#   Runs are interleaved (round 1: glmnet and the eight dpsco fits, the raw
#   rows, round 2: ...),
#   so that load from other jobs hits all of them alike.  Medians of 3
#   rounds of elapsed seconds and of CPU seconds (user + sys); if a round
#   would push the script past its time budget (~3 minutes) it stops early
#   and says how many rounds it used.
#   Ratio: dpsco seconds / glmnet seconds (ratio of the medians), on elapsed
#   and on CPU time; CPU time is the steadier of the two when other jobs
#   share the machine.
#
# Command (from the top of the source tree):
#   sh bench/install.sh       # once: HEAD, compiled from scratch, into /tmp/benchlib
#   R_LIBS=/tmp/benchlib Rscript bench/path.R
#
# Targets: dpsco / glmnet <= 1.0 for every method; on the raw features
# holland / glmnet <= 1.0 and holland / clip <= 1.5.

suppressPackageStartupMessages({
  library(dpsco)
  library(glmnet)
})

# the commit bench/install.sh installed, if it did
installed_commit <- function() {
  f <- system.file("BENCH_COMMIT", package = "dpsco")
  if (nzchar(f)) readLines(f)[1L] else "unknown (not installed by bench/install.sh)"
}

rounds <- 3L
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
dpsco_runner <- function(m, threads, xm = x) {
  force(m)
  force(threads)
  force(xm)
  function() {
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
main <- c("glmnet", fits)

el <- cpu <- matrix(NA_real_, rounds, length(runners),
                    dimnames = list(NULL, names(runners)))
info <- list()
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
cat("All rounds, elapsed seconds:\n")
print(round(el, 2))
cat("All rounds, CPU seconds:\n")
print(round(cpu, 2))
cat(sprintf("Script time %.0f s\n", proc.time()[["elapsed"]] - script_start))
