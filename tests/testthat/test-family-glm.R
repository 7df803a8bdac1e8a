# The generalised linear families (R/family-glm.R): the poisson family's
# functions and the engine's poisson gradient against plain R; the
# gaussian and binomial families are checked beside the others in
# test-family.R.

test_that("the poisson family: loss, residual, start, link and measures", {
  f <- family_poisson()
  expect_s3_class(f, c("dpsco_family_poisson", "dpsco_family"), exact = TRUE)
  expect_identical(f$code, 3L)
  expect_identical(f$settings, family_settings("poisson"))
  eta <- c(-3, -0.5, 0, 0.4, 2)
  y <- c(0, 2, 1, 0, 7)
  expect_equal(f$loss(eta, y), exp(eta) - y * eta)
  expect_equal(f$residual(eta, y), exp(eta) - y)
  e <- 1e-6
  expect_equal(f$residual(eta, y),
               (f$loss(eta + e, y) - f$loss(eta - e, y)) / (2 * e),
               tolerance = 1e-7)
  # glm's poisson deviance is twice the loss's excess over the saturated fit
  mu <- exp(eta)
  sat <- ifelse(y > 0, y - y * log(y), 0)
  expect_equal(2 * (f$loss(eta, y) - sat), stats::poisson()$dev.resids(y, mu, 1))
  expect_equal(f$inverse_link(eta), exp(eta))
  expect_identical(f$start(2.5, 100), log(2.5))
  expect_identical(f$start(0, 100), log(1 / 100))
  # the mean count is clamped to [0, the top of the released range of y]
  expect_identical(f$centre_range(c(2, 7)), c(0, 7))
  expect_identical(f$centre_range(c(-3, -1)), c(0, 0))
  expect_equal(f$start_curvature(log(3), TRUE, NULL), 3)
  expect_identical(f$measures, c("deviance", "mse", "mae"))
  expect_false(f$bounded)
  expect_identical(f$model_step, 0.5)
  expect_true(f$centre_floor)
  expect_identical(family_gaussian()$centre_range(c(-2, 5)), c(-2, 5))
  # the null residual at the intercept-only fit is y - mean(y) (the Poisson
  # MLE of a mean is the sample mean)
  x <- matrix(stats::rnorm(20), 10)
  yy <- c(0, 1, 3, 0, 2, 5, 1, 0, 0, 4)
  expect_equal(f$null_residual(x, yy, TRUE, c(FALSE, FALSE)), yy - mean(yy))
  g <- stats::glm.fit(cbind(1, x[, 1]), yy, family = stats::poisson())
  expect_equal(f$null_residual(x, yy, TRUE, c(TRUE, FALSE)),
               yy - g$fitted.values, tolerance = 1e-6)
  expect_identical(family_object("poisson")$name, "poisson")
})

test_that("the engine's poisson gradient is the plain-R gradient", {
  set.seed(4)
  n <- 50
  x <- matrix(stats::rnorm(n * 3), n)
  y <- as.double(stats::rpois(n, 2))
  beta <- c(0.3, 0.5, -0.2, 0.1)
  s <- list(oracle = 0L, m = n, clip = 1, rho = 0, k = 1L, s = 1, nu = 1,
            family = 3L, intercept = 1L, noise_sd = 0, rate = 1,
            threads = 1L)
  g <- .Call(C_dpsco_release, x, y, s, beta)
  r <- exp(drop(cbind(1, x) %*% beta)) - y
  expect_equal(g, drop(crossprod(cbind(1, x), r)) / n, tolerance = 1e-12)
  # an overflowing predictor (e^800) still gives a clipped release within
  # the clipping level
  s$oracle <- 1L
  g_big <- .Call(C_dpsco_release, x, y, s, c(800, 0, 0, 0))
  w <- cbind(1, x)
  expect_equal(g_big, colMeans(w / sqrt(rowSums(w^2))), tolerance = 1e-12,
               ignore_attr = TRUE)
})
