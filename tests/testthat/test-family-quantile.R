# The quantile family (R/family-quantile.R): its intercept-only fit and
# record deviance against brute-force minimisation and the check loss in
# plain R (its losses and kernels are tested in test-quantile.R).

test_that("the intercept-only fit minimises the weighted check loss", {
  set.seed(7)
  n <- 41
  y <- rexp(n) * 3
  w <- runif(n, 0.2, 3)
  off <- rnorm(n)
  for (tau in c(0.1, 0.5, 0.83)) {
    f <- family_quantile(tau, bandwidth = 0.5)
    eta <- f$null_eta(y, w, off)
    r <- y - off
    check <- function(c) sum(w * (r - c) * (tau - (r - c < 0)))
    # the minimiser over a fine grid and at the data points
    cand <- sort(c(r, seq(min(r), max(r), length.out = 2001)))
    best <- min(vapply(cand, check, 0))
    c_got <- eta[1, 1] - off[1]
    expect_equal(check(c_got), best, tolerance = 1e-12)
    expect_equal(drop(eta), off + c_got)
  }
})

test_that("the record deviance is twice the unsmoothed check loss", {
  f <- family_quantile(0.25, bandwidth = 0.5)
  eta <- matrix(c(0, 1, -2, 0.5), 2)
  y <- c(1, -1)
  u <- y - eta
  expect_equal(f$record_deviance(eta, y), 2 * u * (0.25 - (u < 0)))
})
