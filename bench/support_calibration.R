# bench/support_calibration.R -- probe (issue 50): is the support rule's
# noise sd (R/support.R, support_sd()) the spread of the raw path over the
# optimiser's own noise, and which model of the Newton path gives that
# spread?  dpsco(x, y, epsilon = 1) is fitted with 20 (blog and the panel
# sets: 15) private seeds while every private setting is held at the first
# draw's (tune_private() is replaced, inside the namespace, by a cache of
# its first result), so only the path's gradient noise varies.  Printed per
# data set, at the middle, third-last and last lambda: the median and
# quartiles, over the coefficients that are non-zero in at least 90% of the
# draws, of (sd of the raw coefficient over the draws) / (a model's sd).
# The models:
#   rule     the package's: every Newton step converges (Hessian A / eta)
#   full     the path linearised in all coordinates with the true Hessian H
#            of the engine's scaled design (not private: a yardstick)
#   active   the same in each lambda's active set (the prox holds the
#            zeros), with the true H
#   released the active-set model with H = (A - r I) / eta, r the released
#            ridge: released values only
# Data: independent Gaussian columns (n = 5,000, p = 20, 100, 300, five
# effects of 1, t3 noise), the blog split of bench/settings.R and split 1
# of satellite, cps and diamonds (bench/data.R).
# Command: R_LIBS=/tmp/benchlib Rscript bench/support_calibration.R
script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
suppressPackageStartupMessages(library(dpsco)); ns <- asNamespace("dpsco")
orig <- ns$tune_private; cache <- NULL
fixed <- function(...) { if (is.null(cache)) cache <<- orig(...); cache }
unlockBinding("tune_private", ns); assign("tune_private", fixed, ns)

# The Newton path's output covariance (d x d matrices in the coordinates)
# for a Hessian H, restricted to each lambda's non-zeros when `active`:
# x' = x - (1 - w) eta A_S^-1 (H_S x + n) inside a lambda (the carried
# gradient's error is then -H x), w = 0 at the path's first step.  (With
# the default 2 steps the output is the last iterate, so no lambda starts
# with a carried error.)
sd_model <- function(rec, H, nlambda, active) {
  A <- rec$curvature; eta <- rec$step_size; w <- rec$memory
  stopifnot(rec$steps - rec$steps %/% 2L == 1L)
  d <- nrow(A); X <- matrix(0, d, d); out <- matrix(0, d, nlambda); first <- TRUE
  for (l in seq_len(nlambda)) {
    S <- if (active) union(1L, which(rec$raw[, l] != 0)) else seq_len(d)
    Ai <- solve(A[S, S, drop = FALSE]); XS <- X[S, S, drop = FALSE]
    for (t in seq_len(rec$steps)) {
      wt <- if (first) 0 else w; first <- FALSE
      M <- diag(length(S)) - (1 - wt) * eta * Ai %*% H[S, S, drop = FALSE]
      K <- (1 - wt) * eta * Ai
      XS <- M %*% XS %*% t(M) + K %*% t(K)
    }
    X <- matrix(0, d, d); X[S, S] <- XS; out[, l] <- diag(X)
  }
  rec$noise_sd * sqrt(out)
}
run <- function(x, y, label, draws = 20, family = "gaussian") {
  cache <<- NULL; raws <- list()
  for (s in 1:draws) {
    set.seed(100 + s)
    f <- suppressWarnings(dpsco(x, y, family = family, epsilon = 1))
    raws[[s]] <- f$support$raw
  }
  rec <- f$support; L <- ncol(rec$raw); R <- simplify2array(raws)
  # the engine's Hessian: the loss's curvature at the start times the
  # second moments of the scaled rows
  W <- cbind(1, cache$x); H <- cache$curvature_weight * crossprod(W) / nrow(W)
  Hr <- (rec$curvature - f$privacy$released$ridge * diag(nrow(rec$curvature))) / rec$step_size
  sds <- list(rule = rec$sd, full = sd_model(rec, H, L, FALSE),
              active = sd_model(rec, H, L, TRUE),
              released = sd_model(rec, Hr, L, TRUE))
  for (l in c(L %/% 2, L - 2, L)) {
    emp <- apply(R[-1, l, ], 1, sd); nz <- rowMeans(R[-1, l, ] != 0) > 0.9
    cat(sprintf("%-10s lambda %2d (%3d coefs):", label, l, sum(nz)))
    for (k in names(sds)) {
      q <- quantile((emp / sds[[k]][-1, l])[nz], c(.25, .5, .75))
      cat(sprintf("  %s %.2f [%.2f %.2f]", k, q[2], q[1], q[3]))
    }
    cat("\n")
  }
}
set.seed(1); n <- 5000
for (p in c(20, 100, 300)) {
  x <- matrix(rnorm(n * p), n); y <- drop(x[, 1:5] %*% rep(1, 5)) + rt(n, 3)
  run(x, y, paste0("iid p=", p))
}
source(file.path(script_dir, "data.R")); d <- load_data("blog")
set.seed(20240501); tr <- sample.int(nrow(d$x), round(0.7 * nrow(d$x)))
run(d$x[tr, ], d$y[tr], "blog", 15)
for (nm in c("satellite", "cps", "diamonds")) {
  dat <- load_data(nm); sp <- split_data(dat, 1, 0.7)
  run(sp$xtr, sp$ytr, nm, 15, dat$family)
}
