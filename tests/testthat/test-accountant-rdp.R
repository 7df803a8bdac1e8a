# The Renyi DP of the subsampled Gaussian mechanism and the analytic
# Gaussian mechanism (R/accountant-rdp.R), against numerical integration of
# the Renyi moment, the finite binomial sum, a published check value and a
# bisection on the analytic Gaussian delta(eps).

# Renyi divergence of order a between mu = (1-q) N(0, z^2) + q N(1, z^2) and
# mu0 = N(0, z^2) by integrate(): with L = mu1/mu0 = exp((2x - 1)/(2 z^2)) and
# w = q (L - 1) (so E_mu0[w] = 0),
#   A - 1 = E_mu0[(1 + w)^a - 1 - a w],
# a non-negative integrand, so no cancellation.  Scaled by exp(-K) so that
# large moments do not overflow.
ref_rdp_integrate <- function(q, z, a) {
  parts <- function(x) {
    w <- q * expm1((2 * x - 1) / (2 * z * z))
    list(l = dnorm(x, 0, z, log = TRUE), lw = a * log1p(w), w = w)
  }
  lo <- -40 * z
  hi <- a + 40 * z
  g <- parts(seq(lo, hi, length.out = 4001))
  K <- max(0, max(g$l + g$lw))
  f <- function(x) {
    g <- parts(x)
    w <- g$w
    # (1 + w)^a - 1 - a w: series for small |w|, else directly
    ser <- a * (a - 1) / 2 * w^2 * (1 + (a - 2) / 3 * w * (1 + (a - 3) / 4 * w *
             (1 + (a - 4) / 5 * w * (1 + (a - 5) / 6 * w))))
    direct <- expm1(g$lw) - a * w
    ifelse(g$lw < 500,
           exp(g$l - K) * ifelse(abs(w) < 1e-3, ser, direct),
           exp(g$l + g$lw - K))
  }
  br <- unique(sort(c(seq(lo, hi, by = 4 * z), 0.5, hi)))
  I <- sum(vapply(seq_len(length(br) - 1L), function(k)
    integrate(f, br[k], br[k + 1L], rel.tol = 1e-11,
              subdivisions = 1000L)$value, 0))
  (K + log(I + exp(-K))) / (a - 1)
}

# integer orders: the binomial sum written out directly
ref_rdp_binomial <- function(q, z, a) {
  i <- 0:a
  log(sum(choose(a, i) * (1 - q)^(a - i) * q^i * exp((i^2 - i) / (2 * z^2)))) /
    (a - 1)
}

test_that("dp_orders is the documented grid", {
  expect_equal(dp_orders(), c(seq(1.1, 10.9, by = 0.1), 12:63))
  expect_length(dp_orders(), 151L)
})

test_that("q = 1: RDP is a / (2 z^2) exactly; q = 0 or z = Inf: 0", {
  a <- c(1.1, 1.5, 2, 2.5, 7.3, 32, 63)
  for (z in c(0.3, 1, 4.5))
    expect_identical(rdp_subsampled_gaussian(1, z, a), a / (2 * z^2))
  expect_identical(rdp_subsampled_gaussian(0, 1, a), rep(0, length(a)))
  expect_identical(rdp_subsampled_gaussian(0.3, Inf, a), rep(0, length(a)))
  expect_identical(dp_epsilon(Inf, 0.3, 10, 1e-5), 0)
  expect_identical(dp_delta(Inf, 0.3, 10, 0.1), 0)
})

test_that("integer and fractional orders agree with integrate() of the Renyi moment", {
  worst <- 0
  for (q in c(0.01, 0.1, 0.5)) for (z in c(0.7, 1, 2, 5)) {
    a <- c(1.1, 1.5, 2, 2.5, 3, 7.3, 10, 32)
    got <- rdp_subsampled_gaussian(q, z, a)
    ref <- vapply(a, function(ai) ref_rdp_integrate(q, z, ai), 0)
    worst <- max(worst, abs(got - ref) / ref)
  }
  expect_lt(worst, 1e-8)
})

test_that("integer orders equal the binomial sum", {
  for (q in c(0.02, 0.3, 0.9)) for (z in c(0.8, 1.5, 4)) for (a in c(2, 3, 5, 12)) {
    expect_equal(rdp_subsampled_gaussian(q, z, a), ref_rdp_binomial(q, z, a),
                 tolerance = 1e-11)
  }
})

test_that("fractional orders are continuous across integers and in q -> 1", {
  for (a in c(2, 3, 7)) {
    r <- rdp_subsampled_gaussian(0.2, 1.3, c(a - 1e-7, a, a + 1e-7))
    expect_equal(r[1], r[2], tolerance = 1e-5)
    expect_equal(r[3], r[2], tolerance = 1e-5)
  }
  a <- c(1.5, 2.5, 7.3)
  expect_equal(rdp_subsampled_gaussian(1 - 1e-10, 1.2, a), a / (2 * 1.2^2),
               tolerance = 1e-8)
})

test_that("the published check value: z = 1.5, q = 0.04, T = 2250, delta = 1e-5", {
  e <- dp_epsilon(1.5, 0.04, 2250, 1e-5, accountant = "rdp")
  expect_lt(abs(e - 7.32911117), 1e-6)
  # the same through the conversion written out here
  r <- 2250 * rdp_subsampled_gaussian(0.04, 1.5, dp_orders())
  expect_equal(e, ref_conv_eps(r, dp_orders(), 1e-5), tolerance = 1e-14)
})

test_that("q = 1 uses the exact analytic Gaussian mechanism with mu = sqrt(T) / z", {
  for (z in c(0.8, 2, 5)) for (T in c(1, 7, 100)) for (delta in c(1e-3, 1e-6)) {
    mu <- sqrt(T) / z
    e <- dp_epsilon(z, 1, T, delta)
    expect_equal(e, ag_eps(mu, delta), tolerance = 1e-9)
    expect_equal(dp_delta(z, 1, T, e), delta, tolerance = 1e-8)
    # tighter than the RDP route (Gaussian RDP a / (2 z^2) per step)
    a <- dp_orders()
    expect_lte(e, ref_conv_eps(T * a / (2 * z^2), a, delta))
  }
  expect_equal(dp_delta(2, 1, 9, 1.3), ag_delta(1.5, 1.3), tolerance = 1e-12)
  # delta(0) <= delta: epsilon is 0
  expect_identical(dp_epsilon(1e4, 1, 1, 1e-3), 0)
})
