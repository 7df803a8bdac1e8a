# bench/adassp.R -- AdaSSP, a peer for bench/utility.R, in plain R
#
# AdaSSP ("adaptive sufficient statistics perturbation") is Algorithm 2 of
#   Y.-X. Wang (2018), "Revisiting differentially private linear regression:
#   optimal and adaptive prediction & estimation in unbounded domain",
#   Proceedings of UAI 2018 (arXiv:1803.02596).
# It releases noisy versions of the two sufficient statistics of least
# squares, X'X and X'y, and returns the ridge solution, with a ridge
# parameter chosen from a private estimate of the smallest eigenvalue of X'X.
#
# Usage (source the file; it defines two functions and nothing else):
#   source("bench/adassp.R")
#   b <- adassp(x, y, epsilon = 1, delta = 1e-5, bx = 1, by = 1)
#   yhat <- adassp_predict(b, newx)
#
# Public bounds and clipping.  The guarantee rests on two bounds fixed
# before seeing the data: bx on the L2 norm of a row of the design and by on
# |y|.  The design is z = (1, x): the constant 1 (the intercept) is part of
# every row, so it counts towards bx.  Each row x_i is scaled down, when it
# is longer, to L2 norm sqrt(bx^2 - 1), which leaves ||z_i|| <= bx and keeps
# the intercept column exactly 1; y is clipped to [-by, by].  Both operations
# act on each record alone, so they do not change the sensitivities below.
# adassp_predict() applies the same row scaling to newx, so the model is
# evaluated on the features it was fitted to.
#
# Privacy.  Neighbouring data sets differ by adding or removing one record
# (as in dpsco's accountant).  With d = p + 1 columns in z, the three
# releases and their L2 sensitivities are:
#   (1) lambda_min(Z'Z), the smallest eigenvalue: adding z_i z_i' (positive
#       semi-definite, operator norm ||z_i||^2) moves every eigenvalue by at
#       most bx^2 (Weyl's inequality), so the sensitivity is bx^2;
#   (2) Z'Z, released as its d (d + 1) / 2 entries on and above the
#       diagonal: the change z_i z_i' has Frobenius norm ||z_i||^2, so the
#       sensitivity is at most bx^2;
#   (3) Z'y: the change z_i y_i has norm at most bx * by.
# Each is a Gaussian mechanism with (epsilon/3, delta/3)-DP, so the whole
# fit is (epsilon, delta)-DP by basic composition; everything after the
# three releases is post-processing.
#
# Noise scale.  The paper writes the noise standard deviation of each
# release as sensitivity * sqrt(log(6 / delta)) / (epsilon / 3).  For
# epsilon / 3 above roughly 0.6 that is less than the Gaussian mechanism
# needs for (epsilon/3, delta/3)-DP (e.g. 1.29 against 1.52 times the
# sensitivity at epsilon = 8, delta = 1/25000).  The default here,
# calibration = "analytic", therefore takes the smallest standard deviation
# that makes the mechanism (epsilon/3, delta/3)-DP exactly, from the
# condition of Balle and Wang (2018, "Improving the Gaussian mechanism for
# differential privacy", ICML, Theorem 8):
#   Phi(D/(2 s) - e s/D) - exp(e) Phi(-D/(2 s) - e s/D) <= d
# for sensitivity D, noise s and privacy (e, d); the result agrees with
# dpsco::dp_noise_multiplier(e, d, 1, 1).  It is smaller than the paper's
# scale when epsilon is small and larger when epsilon is large.
# calibration = "paper" uses the paper's expression as printed.
#
# The algorithm, with sigma_1 and sigma_2 the noise standard deviations of
# releases (1) and (2), bound = sqrt(log(6 / delta)) and rho = 0.05 (the
# paper's failure probability):
#   lambda_min~ = max(lambda_min(Z'Z) + sigma_1 N(0, 1) - sigma_1 * bound, 0)
#       (the shift makes lambda_min~ <= lambda_min with high probability;
#       in the paper sigma_1 * bound = bx^2 log(6/delta) / (epsilon/3));
#   lambda = max(0, sigma_2 * sqrt(d log(2 d^2 / rho)) - lambda_min~)
#       (sigma_2 sqrt(d log(2 d^2 / rho)) bounds the operator norm of the
#       noise added to Z'Z with probability 1 - rho; in the paper this is
#       sqrt(d log(6/delta) log(2 d^2/rho)) bx^2 / (epsilon/3));
#   XX~ = Z'Z + sigma_2 E, E symmetric with iid N(0, 1) entries on and above
#       the diagonal;
#   Xy~ = Z'y + sigma_3 N(0, I_d);
#   theta = (XX~ + lambda I)^(-1) Xy~.

# The smallest noise standard deviation, per unit of L2 sensitivity, for
# which one Gaussian mechanism is (epsilon, delta)-DP (Balle and Wang 2018,
# Theorem 8).  delta_of(s) is decreasing in s; solved on log(s).
gaussian_sd_analytic <- function(epsilon, delta) {
  delta_of <- function(log_s) {
    s <- exp(log_s)
    a <- 1 / (2 * s)
    b <- epsilon * s
    stats::pnorm(a - b) - exp(epsilon + stats::pnorm(-a - b, log.p = TRUE))
  }
  r <- stats::uniroot(function(ls) delta_of(ls) - delta, c(log(1e-6), log(1e6)),
                      tol = 1e-12)
  exp(r$root)
}

# Noise standard deviation per unit of sensitivity for one of the three
# (epsilon/3, delta/3) releases.
adassp_noise_sd <- function(epsilon, delta, calibration) {
  if (calibration == "paper") sqrt(log(6 / delta)) / (epsilon / 3)
  else gaussian_sd_analytic(epsilon / 3, delta / 3)
}

# Scales each row of x down to L2 norm at most r (rows already shorter are
# left alone).
clip_rows <- function(x, r) {
  len <- sqrt(rowSums(x^2))
  x * ifelse(len > r, r / len, 1)
}

# x: n x p numeric matrix (no intercept column); y: numeric vector;
# epsilon, delta: the total privacy budget; bx: public bound on the L2 norm
# of (1, x_i); by: public bound on |y_i|.  Returns the p + 1 coefficients,
# intercept first, of a linear model on the row-clipped features.
adassp <- function(x, y, epsilon, delta, bx, by, rho = 0.05,
                   calibration = c("analytic", "paper")) {
  calibration <- match.arg(calibration)
  x <- as.matrix(x)
  storage.mode(x) <- "double"
  y <- as.double(y)
  stopifnot(nrow(x) == length(y), epsilon > 0, delta > 0, delta < 1,
            bx > 1, by > 0, !anyNA(x), !anyNA(y))
  z <- cbind(1, clip_rows(x, sqrt(bx^2 - 1)))
  y <- pmin(pmax(y, -by), by)
  d <- ncol(z)
  unit_sd <- adassp_noise_sd(epsilon, delta, calibration)
  sd_eig <- unit_sd * bx^2          # release (1)
  sd_xx <- unit_sd * bx^2           # release (2)
  sd_xy <- unit_sd * bx * by        # release (3)

  xx <- crossprod(z)
  xy <- drop(crossprod(z, y))

  # (1) private smallest eigenvalue, shifted down to be a lower bound
  lam_min <- min(eigen(xx, symmetric = TRUE, only.values = TRUE)$values)
  lam_min_priv <- max(lam_min + sd_eig * stats::rnorm(1) -
                        sd_eig * sqrt(log(6 / delta)), 0)
  # ridge parameter: the noise's operator-norm bound minus what the data's
  # own curvature already provides
  lambda <- max(0, sd_xx * sqrt(d * log(2 * d^2 / rho)) - lam_min_priv)

  # (2) symmetric noise on X'X, one draw per entry on or above the diagonal
  e <- matrix(0, d, d)
  upper <- upper.tri(e, diag = TRUE)
  e[upper] <- stats::rnorm(sum(upper))
  e[lower.tri(e)] <- t(e)[lower.tri(e)]
  xx_priv <- xx + sd_xx * e
  # (3) noise on X'y
  xy_priv <- xy + sd_xy * stats::rnorm(d)

  a <- xx_priv + diag(lambda, d)
  theta <- tryCatch(solve(a, xy_priv), error = function(err) {
    # a singular noisy system (possible only when lambda is 0): least-norm
    # solution through the pseudo-inverse
    s <- svd(a)
    keep <- s$d > max(s$d) * d * .Machine$double.eps
    drop(s$v[, keep, drop = FALSE] %*%
           (crossprod(s$u[, keep, drop = FALSE], xy_priv) / s$d[keep]))
  })
  names(theta) <- c("(Intercept)", colnames(x) %||% paste0("x", seq_len(d - 1L)))
  attr(theta, "adassp") <- list(lambda = lambda, lambda_min = lam_min_priv,
                                bx = bx, by = by, epsilon = epsilon,
                                delta = delta, calibration = calibration,
                                noise_sd = c(eig = sd_eig, xx = sd_xx, xy = sd_xy))
  theta
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# Linear predictions of an adassp() fit for the rows of newx, after the same
# row clipping as in the fit.
adassp_predict <- function(coef, newx) {
  newx <- as.matrix(newx)
  bx <- attr(coef, "adassp")$bx
  if (!is.null(bx)) newx <- clip_rows(newx, sqrt(bx^2 - 1))
  drop(newx %*% coef[-1L]) + coef[[1L]]
}
