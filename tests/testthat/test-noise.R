# The secure release (R/noise.R, src/discrete_gaussian.c, src/csprng.c):
# the exact discrete Gaussian sampler against its probabilities, the grid,
# the floating-point attack it prevents, and that R's generator is never
# touched.

# Exact discrete Gaussian probabilities on -kmax .. kmax (the rest of the
# mass is below 1e-30 for the sigmas used here).
dg_pmf <- function(sigma2, kmax) {
  k <- -kmax:kmax
  w <- exp(-k^2 / (2 * sigma2))
  stats::setNames(w / sum(w), k)
}

# Pearson's chi-square p-value of draws against the pmf, pooling the tails
# until every expected count is at least 5.
dg_chisq_p <- function(y, pmf) {
  n <- length(y)
  k <- as.numeric(names(pmf))
  keep <- n * pmf >= 5
  lo <- min(k[keep])
  hi <- max(k[keep])
  obs <- c(sum(y < lo), tabulate(y - lo + 1, hi - lo + 1), sum(y > hi))
  ex <- n * c(sum(pmf[k < lo]), pmf[k >= lo & k <= hi], sum(pmf[k > hi]))
  stats::pchisq(sum((obs - ex)^2 / ex), length(obs) - 1, lower.tail = FALSE)
}

test_that("the discrete Gaussian sampler has the exact probabilities", {
  seed <- rng_state()
  for (s2 in list(c(2, 1), c(7, 3))) {
    y <- dg_sample(1e6, s2[1], s2[2])
    expect_true(all(y == round(y)))
    pmf <- dg_pmf(s2[1] / s2[2], 40)
    expect_gt(dg_chisq_p(y, pmf), 1e-6)
    # the tails: |Y| >= 5 at sigma^2 = 2 has probability 2.1e-3; the
    # count must match its binomial expectation within 5 sds
    k <- as.numeric(names(pmf))
    pt <- sum(pmf[abs(k) >= 5])
    expect_lt(abs(sum(abs(y) >= 5) - 1e6 * pt), 5 * sqrt(1e6 * pt) + 1)
    # symmetric
    expect_lt(abs(mean(y)), 5 * sqrt(s2[1] / s2[2] / 1e6))
  }
  # a large sigma^2, as the secure releases use: variance and kurtosis of
  # the (nearly continuous) Gaussian
  big <- 2^49
  y <- dg_sample(1e5, big)
  expect_equal(stats::var(y) / big, 1, tolerance = 0.025)
  expect_equal(mean((y / sqrt(big))^4), 3, tolerance = 0.06)
  expect_identical(rng_state(), seed)
})

test_that("the discrete Gaussian's far tail is not cut off", {
  # sigma^2 = 1/4: P(|Y| >= 2) = 2 e^-8 / Z, about 6.7e-4
  pmf <- dg_pmf(0.25, 20)
  k <- as.numeric(names(pmf))
  p2 <- sum(pmf[abs(k) >= 2])
  y <- dg_sample(2e5, 1, 4)
  expect_lt(abs(sum(abs(y) >= 2) - 2e5 * p2), 5 * sqrt(2e5 * p2))
  expect_gt(max(abs(y)), 1)
})

test_that("secure releases lie on their grid with the intended noise", {
  seed <- rng_state()
  g <- secure_gaussian(z = 1.5, sensitivity = 0.2, dim = 4)
  expect_equal(g$grid, 2^(floor(log2(0.3)) - 24))
  expect_equal(g$sensitivity, 0.2 + g$grid * 2)
  expect_equal(g$sd, 1.5 * g$sensitivity)
  v <- c(-3.14159, 0, 2.5e-9, 1e3)
  out <- replicate(3000, .Call(C_dpsco_secure_noise, v, g$sd, g$grid))
  expect_true(all(out / g$grid == round(out / g$grid)))
  expect_lt(max(abs(rowMeans(out) - v)), 5 * g$sd / sqrt(3000))
  expect_equal(apply(out, 1, stats::sd), rep(g$sd, 4), tolerance = 0.07)
  # a value already on the grid moves by the noise alone
  on <- 17 * g$grid
  d <- .Call(C_dpsco_secure_noise, rep(on, 2000), g$sd, g$grid) - on
  expect_true(all(d / g$grid == round(d / g$grid)))
  expect_identical(rng_state(), seed)
})

test_that("the operating system's uniforms are uniform", {
  seed <- rng_state()
  u <- .Call(C_dpsco_secure_unif, 1e5)
  expect_true(all(u > 0 & u < 1))
  expect_gt(suppressWarnings(stats::ks.test(u, "punif"))$p.value, 1e-6)
  expect_true(secure_available())
  expect_identical(rng_state(), seed)
})

test_that("bad inputs to the secure release are R errors", {
  f <- function(v, sd, grid) .Call(C_dpsco_secure_noise, v, sd, grid)
  expect_error(f(1, 1, 0.3), "power of two")
  expect_error(f(1, 0, 2^-10), "sd / grid")
  expect_error(f(NA_real_, 1, 2^-24), "not a number")
  expect_error(f(NaN, 1, 2^-24), "not a number")
  expect_error(dg_sample(5, 0), "whole")
  expect_error(dg_sample(5, 1.5), "whole")
})

test_that("a value beyond its grid's range saturates at the largest grid value", {
  f <- function(v, sd, grid) .Call(C_dpsco_secure_noise, v, sd, grid)
  # noise sd 1 on the grid 2^-24: the largest grid value before noise is
  # 2^52 steps, 2^28; beyond it (+-Inf too) the release is that limit plus
  # the noise, with no error (the noise stays within 8 sds here)
  lim <- 2^52 * 2^-24
  v <- c(123.456e20, -2^40, Inf, -Inf, 2^28 + 1e3, 2^27)
  out <- f(v, 1, 2^-24)
  expect_true(all(is.finite(out)))
  expect_lt(max(abs(out[1:5] - c(lim, -lim, lim, -lim, lim))), 8)
  # below the limit a value is released as it was
  expect_lt(abs(out[6] - 2^27), 8)
  expect_true(all(out / 2^-24 == round(out / 2^-24)))
  # the same through release() with secure noise: sd about 1e-3, grid
  # 2^-34, so the largest grid value is 2^18
  set.seed(1)
  seed <- rng_state()
  g <- secure_gaussian(1, 1e-3, 1)
  expect_identical(g$grid, 2^-34)
  r <- release(123.456e9, 1, 1e-3, secure = TRUE)
  expect_lt(abs(r - 2^18), 8 * g$sd)
  expect_identical(rng_state(), seed)
})

# The floating-point attack in miniature (Mironov 2012; Jin et al. 2022).
# With its default generators R draws a standard normal as qnorm(U), and in
# the upper tail the values U can take (doubles near 1, spaced 2^-53) map
# to about one double in a thousand.  So a release y = f + Z of a value
# f0 = 0 lies in that image, while y = f1 + Z with f1 = 2^-40 (1024 units
# in the last place near 4) almost never does: testing membership tells
# the two apart, although with sensitivity 1 and noise sd 1 differential
# privacy says they are nearly indistinguishable.  The secure release puts
# every output of both on the grid, and the same test is blind.
in_normal_image <- function(y) {
  m <- round(stats::pnorm(y) * 2^53)
  vapply(seq_along(y), function(i)
    any(stats::qnorm((m[i] + (-3:3)) / 2^53) == y[i]), NA)
}

test_that("floating-point noise reveals a value through its low-order bits; secure noise does not", {
  old <- RNGkind()
  on.exit(RNGkind(old[1], old[2], old[3]))
  RNGkind("Mersenne-Twister", "Inversion", "Rejection")
  set.seed(2012)
  f0 <- 0
  f1 <- 2^-40
  # floating-point releases with sd 1, kept where the noise is in the tail
  z0 <- stats::rnorm(4e6)
  z1 <- stats::rnorm(4e6)
  y0 <- (f0 + z0)[z0 > 3.8]
  y1 <- (f1 + z1)[z1 > 3.8]
  expect_gt(length(y0), 100)
  # the attacker: "f0 if y - f0 is a value R's normal can take"
  guess0 <- in_normal_image(y0 - f0)
  guess1 <- in_normal_image(y1 - f0)
  accuracy <- (sum(guess0) + sum(!guess1)) / (length(y0) + length(y1))
  expect_gt(accuracy, 0.95)
  # secure releases with the same sd: every output of either value is on
  # the grid, so "is (y - f) / grid whole?" says the same for both
  g <- secure_gaussian(1, 1, 1)
  s0 <- .Call(C_dpsco_secure_noise, rep(f0, 1e5), g$sd, g$grid)
  s1 <- .Call(C_dpsco_secure_noise, rep(f1, 1e5), g$sd, g$grid)
  on_grid <- function(y, f) (y - f) / g$grid == round((y - f) / g$grid)
  expect_true(all(on_grid(s0, f0)) && all(on_grid(s1, f0)))
  expect_identical(on_grid(s0, f1), on_grid(s1, f1))
  # and the normal-image test finds nothing either way
  t0 <- s0[s0 > 2]
  t1 <- s1[s1 > 2]
  # (about 2300 values each: the difference has sd about 0.01)
  expect_lt(abs(mean(in_normal_image(t0 - f0)) - mean(in_normal_image(t1 - f0))),
            0.05)
})
