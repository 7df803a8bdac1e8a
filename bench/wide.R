# bench/wide.R -- private tuning of wide sparse data: dpsco(x, y,
# epsilon = 1) with every default on a 50,000 x 40,000 dgCMatrix at 0.1%
# density (2e6 non-zeros, exponential values, 20 true effects, t(3)
# errors).  Above d = 4000 no curvature is released and the path runs
# "spgd" with the row bound's step; the target is a fit in under a minute.
# Prints the elapsed and CPU seconds of one fit, the optimiser and the
# R heap's peak.
#
# Command (from the top of the source tree):
#   sh bench/install.sh && R_LIBS=/tmp/benchlib Rscript bench/wide.R

suppressPackageStartupMessages({
  library(dpsco)
  library(Matrix)
})
f <- system.file("BENCH_COMMIT", package = "dpsco")
if (nzchar(f)) cat("dpsco commit", readLines(f), "\n")
set.seed(1)
n <- 50000
p <- 40000
nnz <- n * p * 0.001
x <- sparseMatrix(sample.int(n, nnz, TRUE), sample.int(p, nnz, TRUE),
                  x = rexp(nnz) * 10, dims = c(n, p))
y <- as.vector(x %*% c(rep(2, 20), rep(0, p - 20))) + rt(n, 3)
invisible(gc(reset = TRUE))
t <- system.time(fit <- dpsco(x, y, epsilon = 1))
g <- gc()
cat(sprintf("wide sparse fit: %.1f s elapsed, %.1f s CPU, optimizer %s, R heap peak %.0f MB\n",
            t[["elapsed"]], t[["user.self"]] + t[["sys.self"]],
            fit$settings$optimizer, sum(g[, ncol(g)])))
