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
#   Runs are interleaved (round 1: glmnet and the eight dpsco fits, round 2: ...),
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
# Target: dpsco / glmnet <= 1.0 for every method.

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
x <- sign(x) * log1p(abs(x)) / log1p(1e5)
x <- pmin(pmax(x, -1), 1)
storage.mode(x) <- "double"
y <- as.double(blog[[response]])
set.seed(20240501)
train <- sort(sample.int(nrow(x), round(0.7 * nrow(x))))
x <- x[train, , drop = FALSE]
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
dpsco_runner <- function(m, threads) {
  force(m)
  force(threads)
  function() {
    set.seed(1)
    dpsco(x, y, method = m, tuning = "public", nlambda = nlambda, batch_size = n,
          iterations = iterations, threads = threads)
  }
}
fits <- c(methods, paste0(methods, "_1thread"))
runners <- c(
  list(glmnet = function() glmnet::glmnet(x, y)),
  stats::setNames(lapply(methods, dpsco_runner, threads = 2L), methods),
  stats::setNames(lapply(methods, dpsco_runner, threads = 1L),
                  paste0(methods, "_1thread")))

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
  fit = names(runners),
  elapsed_s = sprintf("%.2f", med_el),
  cpu_s = sprintf("%.2f", med_cpu),
  ratio_elapsed = sprintf("%.2f", med_el / med_el[["glmnet"]]),
  ratio_cpu = sprintf("%.2f", med_cpu / med_cpu[["glmnet"]]),
  ns_per_record_feature_pass = c("-", sprintf("%.2f",
    1e9 * med_cpu[fits] / (n * p * nlambda * iterations))),
  path = unlist(info[names(runners)]),
  target_elapsed = c("-", ifelse(med_el[fits] / med_el[["glmnet"]] <= 1,
                                 "MET", "NOT MET")),
  target_cpu = c("-", ifelse(med_cpu[fits] / med_cpu[["glmnet"]] <= 1,
                             "MET", "NOT MET")),
  stringsAsFactors = FALSE)
print(tab, row.names = FALSE, right = TRUE)
cat("\n(ratio_* = dpsco / glmnet, measured in this run; ns_per_record_feature_pass =",
    "dpsco CPU time / (n p x 100 passes); target <= 1.0 judged on elapsed and on CPU time)\n")
cat("All rounds, elapsed seconds:\n")
print(round(el, 2))
cat("All rounds, CPU seconds:\n")
print(round(cpu, 2))
cat(sprintf("Script time %.0f s\n", proc.time()[["elapsed"]] - script_start))
