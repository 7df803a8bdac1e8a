# The inference stage's estimating equations (R/inference.R): without a
# row bound or a clamp they are glm's, and their sandwich glm's HC0
# covariance; with them every record's terms stay within their bounds.

inf_design <- function(n, p, seed) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, p)
  list(x = x, w = cbind(1, x))
}

test_that("without bounds the root is glm's estimate, the sandwich glm's HC0", {
  d <- inf_design(500, 3, 1)
  eta <- drop(d$w %*% c(0.3, 0.8, -0.5, 0))
  ys <- list(gaussian = eta + rnorm(500),
             binomial = rbinom(500, 1, plogis(eta)),
             poisson = rpois(500, exp(0.5 * eta)))
  glm_fams <- list(gaussian = gaussian(), binomial = binomial(),
                   poisson = poisson())
  for (nm in names(ys)) {
    fam <- family_object(nm)
    g <- glm(ys[[nm]] ~ d$x, family = glm_fams[[nm]])
    b <- inference_root(fam, d$w, ys[[nm]], rep(0, 4), Inf, Inf)
    expect_equal(b, unname(coef(g)), tolerance = 1e-8, info = nm)
    # HC0 by hand: (X'WX)^-1 X' diag(r^2) X (X'WX)^-1, r the response
    # residual and W the variance function at the fit (canonical links)
    mu <- fitted(g)
    wt <- switch(nm, gaussian = rep(1, 500), binomial = mu * (1 - mu),
                 poisson = mu)
    bread <- solve(crossprod(d$w * wt, d$w))
    meat <- crossprod(d$w * (ys[[nm]] - mu))
    hc0 <- bread %*% meat %*% bread
    mo <- inference_moments(fam, d$w, ys[[nm]], b, Inf, Inf)
    expect_equal(inference_sandwich(mo, 500), hc0, tolerance = 1e-7,
                 info = nm)
  }
})

test_that("each record's score, bread and meat terms stay within their bounds", {
  d <- inf_design(50, 2, 2)
  w <- rbind(d$w, c(1, 1e8, -1e8), c(1, 0, 0))
  R <- 3
  c0 <- 2
  ys <- list(gaussian = c(rnorm(50), -1e12, 1e12),
             binomial = c(rbinom(50, 1, 0.5), 1, 0),
             poisson = c(rpois(50, 2), 1e6, 0))
  for (nm in names(ys)) {
    fam <- family_object(nm)
    tm <- inference_terms(fam, w, ys[[nm]], c(0.2, 0.5, -0.5), R, c0,
                          d_cap = 10)
    norms2 <- rowSums(w * w)
    score <- abs(tm$v * tm$psi) * sqrt(norms2)
    expect_true(all(score <= tm$bound * R * (1 + 1e-12)), info = nm)
    # a bread term's Frobenius norm v d ||w||^2 stays within d_cap R^2
    expect_true(all(tm$v * tm$d * norms2 <= 10 * R^2 * (1 + 1e-12)),
                info = nm)
    expect_true(all(is.finite(tm$psi)) && all(is.finite(tm$d)), info = nm)
  }
})

test_that("the Poisson clamp moments match their sums and limits", {
  m <- c(0.3, 2, 15)
  mo <- poisson_clamp_moments(m, Inf)
  expect_identical(mo$a, c(0, 0, 0))
  expect_identical(mo$d, m)
  # a direct sum far into the tail
  ref <- vapply(m, function(mu) {
    k <- 0:400
    p <- dpois(k, mu)
    cl <- pmin(pmax(k - mu, -1.5), 1.5)
    c(sum(p * cl), sum(p * cl * (k - mu)))
  }, c(0, 0))
  mo <- poisson_clamp_moments(m, 1.5)
  expect_equal(mo$a, ref[1, ], tolerance = 1e-13)
  expect_equal(mo$d, ref[2, ], tolerance = 1e-13)
  # the normal limit above a mean of 1e6, continuous there
  near <- poisson_clamp_moments(c(1e6 - 1, 1e6 + 1), 3)
  expect_equal(near$d[1], near$d[2], tolerance = 1e-4)
  expect_identical(poisson_clamp_moments(Inf, 3)$d, Inf)
})

test_that("the clamped Poisson score stays Fisher-consistent", {
  # with c = 1 most residuals are clamped, yet the root estimates the
  # model's coefficients (an uncorrected clamp would bias the intercept)
  d <- inf_design(20000, 2, 3)
  beta <- c(1, 0.4, -0.3)
  y <- rpois(20000, exp(drop(d$w %*% beta)))
  b <- inference_root(family_object("poisson"), d$w, y, rep(0, 3), Inf, 1)
  expect_equal(b, beta, tolerance = 0.03)
})
