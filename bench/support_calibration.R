# bench/support_calibration.R -- probe (issue 50): is the support rule's
# noise sd (R/support.R, support_sd()) the spread of the raw path over the
# optimiser's own noise?  dpsco(x, y, epsilon = 1) is fitted with 30 (blog:
# 20) private seeds while every private setting is held at the first
# draw's (tune_private() is replaced, inside the namespace, by a cache of
# its first result), so only the path's gradient noise varies.  Printed per
# data set, at the middle, third-last and last lambda: the median and
# quartiles over the coefficients that are non-zero in at least 90% of
# the draws of (sd of the raw coefficient over the draws) / (the rule's
# sd).  Data: independent Gaussian columns (n = 5,000, p = 20, 100, 300,
# five effects of 1, t3 noise) and the blog split of bench/settings.R.
# Command: R_LIBS=/tmp/benchlib Rscript bench/support_calibration.R
script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
suppressPackageStartupMessages(library(dpsco)); ns <- asNamespace("dpsco")
orig <- ns$tune_private; cache <- NULL
fixed <- function(...) { if (is.null(cache)) cache <<- orig(...); cache }
unlockBinding("tune_private", ns); assign("tune_private", fixed, ns)
run <- function(x, y, label, draws = 30) {
  cache <<- NULL; raws <- list(); sds <- NULL
  for (s in 1:draws) { set.seed(100 + s); f <- suppressWarnings(dpsco(x, y, epsilon = 1)); raws[[s]] <- f$support$raw; sds <- f$support$sd }
  R <- simplify2array(raws); L <- dim(R)[2]
  for (l in c(L %/% 2, L - 2, L)) {
    emp <- apply(R[-1, l, ], 1, sd); mod <- sds[-1, l]; nz <- rowMeans(R[-1, l, ] != 0) > 0.9
    cat(label, "lambda", l, ": median spread/sd", round(median((emp / mod)[nz]), 2), " quartiles", round(quantile((emp / mod)[nz], c(.25, .75)), 2), " (", sum(nz), "coefs mostly non-zero)\n")
  }
}
set.seed(1); n <- 5000
for (p in c(20, 100, 300)) { x <- matrix(rnorm(n * p), n); y <- drop(x[, 1:5] %*% rep(1, 5)) + rt(n, 3); run(x, y, paste0("iid p=", p)) }
source(file.path(script_dir, "data.R")); d <- load_data("blog"); set.seed(20240501); tr <- sample.int(nrow(d$x), round(0.7 * nrow(d$x)))
run(d$x[tr, ], d$y[tr], "blog", 20)
