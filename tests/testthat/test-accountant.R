# The privacy accountant, checked against independent computations written
# out here: numerical integration of the Renyi moment, the finite binomial
# sum, a bisection on the analytic Gaussian delta(eps), and the RDP -> DP
# conversion formula.

arg_of <- function(expr) {
  cond <- tryCatch({
    force(expr)
    NULL
  }, error = function(e) e)
  expect_s3_class(cond, "dpsco_arg_error")
  cond$arg
}

test_that("dp_delta and dp_epsilon are inverse", {
  for (p in list(c(1.1, 0.01, 1000), c(0.8, 0.2, 50), c(3, 1, 10))) {
    for (eps in c(0.5, 1, 4)) {
      d <- dp_delta(p[1], p[2], p[3], eps, accountant = "rdp")
      expect_gt(d, 0)
      expect_lt(d, 1)
      expect_equal(dp_epsilon(p[1], p[2], p[3], d, accountant = "rdp"), eps,
                   tolerance = 1e-9)
      # the privacy loss distribution's two bounds: epsilon at its own delta
      # is at least eps (its tail allowance) and close to it
      dl <- dp_delta(p[1], p[2], p[3], eps)
      if (dl >= 1e-10 && dl <= 0.1) {  # where the distribution answers
        el <- dp_epsilon(p[1], p[2], p[3], dl)
        expect_gte(el, eps * (1 - 1e-9))
        expect_lt(el, eps * (1 + 2e-3))
      }
    }
    for (delta in c(1e-3, 1e-7)) {
      e <- dp_epsilon(p[1], p[2], p[3], delta, accountant = "rdp")
      expect_equal(dp_delta(p[1], p[2], p[3], e, accountant = "rdp"), delta,
                   tolerance = 1e-8)
      e <- dp_epsilon(p[1], p[2], p[3], delta)
      expect_lte(dp_delta(p[1], p[2], p[3], e), delta * (1 + 1e-9))
    }
  }
  # the conversions invert each other on a grid of one RDP curve
  r <- 300 * rdp_subsampled_gaussian(0.05, 1.1, dp_orders())
  for (delta in 10^-(2:9)) {
    e <- rdp_to_epsilon(r, dp_orders(), delta)
    expect_equal(rdp_to_delta(r, dp_orders(), e), delta, tolerance = 1e-10)
  }
})

test_that("calibration: the multiplier meets the target, 0.99 times it does not", {
  cases <- list(c(1, 1e-5, 0.01, 1000), c(0.5, 1e-4, 1 / 6, 180),
                c(3, 1e-6, 0.2, 50), c(8, 1e-5, 0.004, 20000),
                c(2, 1e-5, 1, 10), c(0.5, 1e-4, 1, 5))
  for (p in cases) {
    z <- dp_noise_multiplier(p[1], p[2], p[3], p[4], accountant = "rdp")
    expect_lte(dp_epsilon(z, p[3], p[4], p[2], accountant = "rdp"), p[1])
    expect_gt(dp_epsilon(0.99 * z, p[3], p[4], p[2], accountant = "rdp"), p[1])
    # bisected to a relative 1e-6
    expect_gt(dp_epsilon(z * (1 - 1e-5), p[3], p[4], p[2], accountant = "rdp"), p[1])
  }
  # q = 1 against the analytic formula: mu = sqrt(T) / z solves delta(eps)
  z <- dp_noise_multiplier(1, 1e-5, 1, 4, accountant = "rdp")
  expect_equal(ag_delta(sqrt(4) / z, 1), 1e-5, tolerance = 1e-4)
  # unreachable with finite orders
  expect_identical(arg_of(dp_noise_multiplier(0.05, 1e-5, 0.01, 100, accountant = "rdp")), "epsilon")
})

test_that("composition: K x T steps of one component = one component with K T steps", {
  one <- list(noise_multiplier = 1.3, sample_rate = 0.05, steps = 200)
  many <- list(noise_multiplier = 1.3, sample_rate = 0.05, steps = 800)
  expect_equal(account_epsilon(rep(list(one), 4), 1e-5),
               account_epsilon(list(many), 1e-5), tolerance = 1e-12)
  expect_equal(account_delta(rep(list(one), 4), 2),
               account_delta(list(many), 2), tolerance = 1e-10)
  expect_equal(account_epsilon(list(many), 1e-5), dp_epsilon(1.3, 0.05, 800, 1e-5))
  # unsampled: exact Gaussian composition
  g <- list(noise_multiplier = 4, sample_rate = 1, steps = 3)
  expect_equal(account_epsilon(rep(list(g), 5), 1e-6), dp_epsilon(4, 1, 15, 1e-6),
               tolerance = 1e-12)
  # unnamed components are (noise_multiplier, sample_rate, steps)
  expect_equal(account_epsilon(list(c(1.3, 0.05, 800)), 1e-5),
               account_epsilon(list(many), 1e-5))
})

test_that("composition of different components", {
  a <- dp_orders()
  c1 <- list(noise_multiplier = 1.1, sample_rate = 0.02, steps = 500)
  c2 <- list(noise_multiplier = 3, sample_rate = 0.3, steps = 40)
  c3 <- list(noise_multiplier = 10, sample_rate = 1, steps = 2)
  r12 <- 500 * rdp_subsampled_gaussian(0.02, 1.1, a) +
    40 * rdp_subsampled_gaussian(0.3, 3, a)
  expect_equal(account_epsilon(list(c1, c2), 1e-5, accountant = "rdp"), ref_conv_eps(r12, a, 1e-5),
               tolerance = 1e-12)
  # a q = 1 component among subsampled ones enters with RDP a / (2 z^2)
  r123 <- r12 + 2 * a / (2 * 10^2)
  expect_equal(account_epsilon(list(c1, c2, c3), 1e-5, accountant = "rdp"),
               ref_conv_eps(r123, a, 1e-5), tolerance = 1e-12)
  # all unsampled: mu_total = sqrt(sum T_i / z_i^2)
  c4 <- list(noise_multiplier = 2, sample_rate = 1, steps = 5)
  mu <- sqrt(2 / 10^2 + 5 / 2^2)
  expect_equal(account_epsilon(list(c3, c4), 1e-5, accountant = "rdp"), ag_eps(mu, 1e-5),
               tolerance = 1e-9)
  expect_equal(account_delta(list(c3, c4), 1, accountant = "rdp"), ag_delta(mu, 1), tolerance = 1e-10)
})

test_that("calibrate_components meets the total with fixed components", {
  pre <- list(list(noise_multiplier = 8, sample_rate = 1, steps = 1))
  z <- calibrate_components(pre, sample_rate = 0.05, steps = 400,
                            epsilon = 2, delta = 1e-5, accountant = "rdp")
  tot <- function(z) c(pre, list(list(noise_multiplier = z, sample_rate = 0.05,
                                      steps = 400)))
  expect_lte(account_epsilon(tot(z), 1e-5, accountant = "rdp"), 2)
  expect_gt(account_epsilon(tot(0.99 * z), 1e-5, accountant = "rdp"), 2)
  # the fixed part costs something: more noise than without it
  expect_gt(z, dp_noise_multiplier(2, 1e-5, 0.05, 400, accountant = "rdp"))
  # all unsampled: exact Gaussian total
  z1 <- calibrate_components(pre, sample_rate = 1, steps = 10, epsilon = 1,
                             delta = 1e-5, accountant = "rdp")
  expect_equal(ag_delta(sqrt(1 / 64 + 10 / z1^2), 1), 1e-5, tolerance = 1e-4)
  # a fixed part that alone exceeds the budget
  big <- list(list(noise_multiplier = 0.5, sample_rate = 1, steps = 10))
  expect_identical(arg_of(calibrate_components(big, 1, 10, 1, 1e-5, accountant = "rdp")), "epsilon")
})

test_that("bad inputs raise classed errors naming the argument", {
  ok <- function(z = 1, q = 0.1, T = 10, d = 1e-5) dp_epsilon(z, q, T, d)
  for (z in list(-1, 0, NA, NaN, "1", c(1, 2)))
    expect_identical(arg_of(ok(z = z)), "noise_multiplier")
  for (q in list(0, -0.1, 1.5, NA, Inf))
    expect_identical(arg_of(ok(q = q)), "sample_rate")
  for (T in list(0, 2.5, -1, NA, Inf))
    expect_identical(arg_of(ok(T = T)), "steps")
  for (d in list(0, 1, 1.5, -1e-5, NA))
    expect_identical(arg_of(ok(d = d)), "delta")
  for (e in list(0, -1, NA, Inf)) {
    expect_identical(arg_of(dp_delta(1, 0.1, 10, e)), "epsilon")
    expect_identical(arg_of(dp_noise_multiplier(e, 1e-5, 0.1, 10)), "epsilon")
  }
  expect_identical(arg_of(dp_noise_multiplier(1, 2, 0.1, 10)), "delta")
  expect_identical(arg_of(dp_noise_multiplier(1, 1e-5, 0, 10)), "sample_rate")
  expect_identical(arg_of(dp_noise_multiplier(1, 1e-5, 0.1, 0.5)), "steps")
  for (o in list(c(1, 2), 0.5, c(2, NA), "a", numeric(0), c(2, Inf)))
    expect_identical(arg_of(dp_epsilon(1, 0.1, 10, 1e-5, orders = o)), "orders")
  expect_identical(arg_of(account_epsilon(list(), 1e-5)), "components")
  expect_identical(arg_of(account_epsilon(list(c(1, 0.1, 10)), 2)), "delta")
  expect_identical(arg_of(account_delta(list(c(1, 0.1, 10)), -1)), "epsilon")
  expect_identical(arg_of(account_epsilon(list(c(1, 1.1, 10)), 1e-5)),
                   "components")
  expect_identical(arg_of(account_epsilon(list(c(1, 0.1, 2.5)), 1e-5)),
                   "components")
  expect_identical(arg_of(account_epsilon(list(list(noise_multiplier = -1,
    sample_rate = 0.1, steps = 1)), 1e-5)), "components")
})
