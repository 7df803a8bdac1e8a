# bench/settings.R -- what a user runs: dpsco(x, y, epsilon = 1) with the
# default private tuning versus glmnet::glmnet(x, y), on the raw features
#
# What it measures
#   Data: dpsco::blog, x = the 280 raw features (counts up to ~1e5, no
#   transform), y = comments_next24h, the fixed 70% training split of
#   bench/path.R (set.seed(20240501)).
#   Cases, interleaved in each round so that load from other jobs hits them
#   alike:
#     glmnet    glmnet::glmnet(x, y) with its defaults;
#     dpsco     dpsco(x, y, epsilon = 1), every default (private tuning);
#     cv_glmnet, cv_dpsco  glmnet::cv.glmnet(x, y) and cv.dpsco(x, y,
#               epsilon = 1) with their defaults;
#     settings  the private settings alone: dpsco:::tune_private() as
#               dpsco() calls it (after the private standardisation, which
#               the default does not do), seed fixed;
#     sparse, mapped (when Matrix / bigmemory are installed): the private
#               settings on x as a dgCMatrix and as a file-backed big.matrix.
#   Medians of `rounds` rounds of elapsed and CPU (user + sys) seconds, and
#   the ratio dpsco / glmnet of the medians.  The script also checks that
#   the three layouts give the same settings (max |difference|).
#
# Command (from the top of the source tree):
#   sh bench/install.sh && R_LIBS=/tmp/benchlib Rscript bench/settings.R [rounds]

suppressPackageStartupMessages({
  library(dpsco)
  library(glmnet)
})
args <- commandArgs(TRUE)
rounds <- if (length(args)) as.integer(args[1L]) else 5L
f <- system.file("BENCH_COMMIT", package = "dpsco")
cat("dpsco", as.character(utils::packageVersion("dpsco")), "from",
    find.package("dpsco"), if (nzchar(f)) paste("commit", readLines(f)[1L]), "\n")

data_env <- new.env(parent = emptyenv())
utils::data("blog", package = "dpsco", envir = data_env)
blog <- data_env$blog
response <- "comments_next24h"
x <- as.matrix(blog[, setdiff(names(blog), response)])
storage.mode(x) <- "double"
y <- as.double(blog[[response]])
set.seed(20240501)
train <- sort(sample.int(nrow(x), round(0.7 * nrow(x))))
x <- x[train, , drop = FALSE]
y <- y[train]
rm(blog, data_env)
n <- nrow(x)
cat(sprintf("n = %d, p = %d\n", n, ncol(x)))

# the private settings as dpsco(x, y, epsilon = 1) makes them
ctl <- dpsco::dpsco_control()
z1 <- dpsco:::calibrate_noise(list(), 1, 1, 1, 0.1 / n)
settings <- function(xm) function() {
  set.seed(3)
  dpsco:::tune_private(xm, y, "gaussian", "l2", "newton", TRUE, z1, NULL,
                       ctl, n = n)
}
runners <- list(glmnet = function() glmnet::glmnet(x, y),
                dpsco = function() { set.seed(1); dpsco(x, y, epsilon = 1) },
                settings = settings(x),
                cv_glmnet = function() { set.seed(2); glmnet::cv.glmnet(x, y) },
                cv_dpsco = function() { set.seed(2); cv.dpsco(x, y, epsilon = 1) })
if (requireNamespace("Matrix", quietly = TRUE))
  runners$sparse <- settings(dpsco:::check_design.default(
    methods::as(x, "CsparseMatrix")))
if (requireNamespace("bigmemory", quietly = TRUE)) {
  dir <- tempfile("bench_settings")
  dir.create(dir)
  bm <- bigmemory::as.big.matrix(x, backingfile = "x.bin",
                                 descriptorfile = "x.desc", backingpath = dir)
  runners$mapped <- settings(dpsco:::check_design.default(bm))
}

timed <- function(f) {
  invisible(gc(FALSE))
  t0 <- proc.time()
  val <- f()
  d <- proc.time() - t0
  list(value = val,
       t = c(elapsed = d[["elapsed"]], cpu = d[["user.self"]] + d[["sys.self"]]))
}

times <- array(NA_real_, c(length(runners), 2L, rounds),
               list(names(runners), c("elapsed", "cpu"), NULL))
vals <- list()
for (r in seq_len(rounds)) {
  for (k in names(runners)) {
    o <- timed(runners[[k]])
    times[k, , r] <- o$t
    if (r == 1L) vals[[k]] <- o$value
  }
}
med <- apply(times, c(1, 2), stats::median)
print(round(med, 3))
cat(sprintf("dpsco / glmnet: elapsed %.2f, cpu %.2f (medians of %d rounds)\n",
            med["dpsco", "elapsed"] / med["glmnet", "elapsed"],
            med["dpsco", "cpu"] / med["glmnet", "cpu"], rounds))
cat(sprintf("cv.dpsco / cv.glmnet: elapsed %.2f, cpu %.2f\n",
            med["cv_dpsco", "elapsed"] / med["cv_glmnet", "elapsed"],
            med["cv_dpsco", "cpu"] / med["cv_glmnet", "cpu"]))
cat(sprintf("settings / dpsco: elapsed %.2f, cpu %.2f\n",
            med["settings", "elapsed"] / med["dpsco", "elapsed"],
            med["settings", "cpu"] / med["dpsco", "cpu"]))
same <- function(a, b) max(abs(unlist(a[c("bound", "beta0", "clip", "row_bound",
                                          "curvature", "step_size")]) -
                               unlist(b[c("bound", "beta0", "clip", "row_bound",
                                          "curvature", "step_size")])))
for (k in intersect(c("sparse", "mapped"), names(vals)))
  cat(sprintf("settings %s vs dense: max |difference| %g\n", k,
              same(vals[[k]], vals$settings)))
