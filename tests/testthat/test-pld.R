# The privacy loss distribution accountant (R/pld.R) against published
# tight values, plain-R integration and the Renyi accountant.

test_that("the PLD accountant reproduces published tight epsilons, from above", {
  # TensorFlow Privacy's compute_dp_sgd_privacy (PLD accountant) statements
  e1 <- dp_epsilon(0.7, 0.01, 120, 1e-5)
  expect_gte(e1, 2.4612 - 1e-3)
  expect_lte(e1, 2.4612 + 2e-3)
  e2 <- dp_epsilon(1, 0.0064, 782, 1e-6)
  expect_gte(e2, 1.199 - 2e-3)
  expect_lte(e2, 1.199 + 2e-3)
  # Opacus' PRV accountant test: 6.7774 with its stated eps_error 0.01.
  # Ours is an upper bound that a grid ten times finer leaves unchanged
  # (6.76705 at h = 3e-5), so the exact value lies 0.0104 below Opacus'
  e3 <- dp_epsilon(1.5, 0.04, 2249, 1e-5)
  expect_lte(e3, 6.7774)
  expect_gte(e3, 6.7774 - 0.011)
  fine <- pld_epsilon(acc_cm(1.5, 0.04, 2249), 1e-5, h = 3e-5)
  expect_gte(e3, fine)
  expect_lt(e3 - fine, 1e-3)
  # the Renyi accountant at the same settings is much looser
  expect_gt(dp_epsilon(0.7, 0.01, 120, 1e-5, accountant = "rdp"), 3.2)
})

test_that("PLD against RDP at the package's own settings", {
  # exact values 5.193 and 0.945 from an independent PLD computation
  e <- dp_epsilon(1.1, 0.01, 1e4, 1e-5)
  r <- dp_epsilon(1.1, 0.01, 1e4, 1e-5, accountant = "rdp")
  expect_equal(r, 5.632, tolerance = 1e-3)
  expect_gte(e, 5.193 - 1e-3)
  expect_lte(e, 5.193 + 2e-3)
  e <- dp_epsilon(30, 0.5, 200, 2.7e-6)
  r <- dp_epsilon(30, 0.5, 200, 2.7e-6, accountant = "rdp")
  expect_equal(r, 1.024, tolerance = 1e-3)
  expect_gte(e, 0.945 - 1e-3)
  expect_lte(e, 0.945 + 1e-3)
})

# One subsampled step (z, q) in plain R: the hockey-stick divergence of
# each direction by numerical integration, delta(eps) = int (p - e^eps q)_+.
one_step_delta_ref <- function(z, q, eps) {
  p_mix <- function(x) (1 - q) * stats::dnorm(x, 0, z) + q * stats::dnorm(x, 1, z)
  p0 <- function(x) stats::dnorm(x, 0, z)
  hs <- function(a, b) stats::integrate(function(x) pmax(a(x) - exp(eps) * b(x), 0),
                                        -Inf, Inf, rel.tol = 1e-12,
                                        subdivisions = 1000L)$value
  max(hs(p_mix, p0), hs(p0, p_mix))
}

test_that("one step's delta matches numerical integration, never below it", {
  for (v in list(c(0.8, 0.1, 0.5), c(1.5, 0.3, 0.2), c(0.5, 0.02, 1))) {
    ref <- one_step_delta_ref(v[1], v[2], v[3])
    d <- dp_delta(v[1], v[2], 1, v[3])
    expect_gte(d, ref * (1 - 1e-9))
    expect_lte(d, ref * (1 + 1e-3) + 1e-12)
  }
})

test_that("unsampled Gaussian parts: the discretised PLD bounds the analytic epsilon", {
  cm <- acc_cm(c(2, 3), c(1, 1), c(3, 5))
  exact <- account_epsilon(cm, 1e-5)
  pld <- pld_epsilon(cm, 1e-5)
  expect_gte(pld, exact)
  expect_lt(pld - exact, 1e-3)
  # mixed with a subsampled component: more than either part, below RDP
  mixed <- acc_cm(c(2, 1.2), c(1, 0.02), c(3, 500))
  e_mixed <- account_epsilon(mixed, 1e-5)
  expect_gt(e_mixed, dp_epsilon(1.2, 0.02, 500, 1e-5))
  expect_lt(e_mixed, account_epsilon(mixed, 1e-5, accountant = "rdp"))
})

test_that("the PLD is never looser than RDP and dp_delta inverts dp_epsilon", {
  grid <- expand.grid(z = c(0.6, 1, 3, 30), q = c(0.002, 0.05, 0.5),
                      steps = c(1, 100, 1e4), delta = c(1e-8, 1e-5, 1e-3))
  set.seed(7)
  # (under memcheck 4 of them: each is the same C path at other values)
  grid <- grid[sample(nrow(grid), if (memcheck()) 4 else 18), ]
  for (i in seq_len(nrow(grid))) {
    g <- grid[i, ]
    e <- dp_epsilon(g$z, g$q, g$steps, g$delta)
    r <- dp_epsilon(g$z, g$q, g$steps, g$delta, accountant = "rdp")
    # the distribution alone, before the smaller of the two is taken
    pld <- pld_epsilon(acc_cm(g$z, g$q, g$steps), g$delta)
    expect_lte(pld, r, label = paste(unlist(g), collapse = " "))
    expect_equal(e, min(pld, r))
    if (e > 0) expect_lte(dp_delta(g$z, g$q, g$steps, e), g$delta * (1 + 1e-6))
  }
})

test_that("PLD calibration meets the target and is nearly the smallest", {
  for (v in list(c(1, 1e-5, 0.01, 1000), c(2, 1e-6, 0.004, 1e4), c(0.3, 1e-5, 0.001, 500))) {
    z <- dp_noise_multiplier(v[1], v[2], v[3], v[4])
    expect_lte(dp_epsilon(z, v[3], v[4], v[2]), v[1])
    expect_gt(dp_epsilon(z * (1 - 3e-3), v[3], v[4], v[2]), v[1])
    # and needs less noise than Renyi accounting
    expect_lt(z, dp_noise_multiplier(v[1], v[2], v[3], v[4], accountant = "rdp"))
  }
  expect_error(dp_epsilon(1, 0.1, 10, 1e-5, accountant = "exact"),
               class = "dpsco_arg_error", regexp = "accountant")
})
