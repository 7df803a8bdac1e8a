# Empirical privacy audit of one clipped noisy block step of each one-pass
# loop (R/one-pass.R): "acsa", "clipped_sgd", "localized" and
# "prox_clipped_sgd".  Neighbours (helper-audit.R's bounded_neighbours()):
# D ends with a null record (zero gradient at the start), D' with the
# record x = K (1, -1), y = -K, whose gradient K (1, K, -K) has norm
# K sqrt(1 + 2 K^2) = 6 > C = 1, so per-record clipping makes it move the
# block's sum by exactly C.  One step from w = 0 over a block of all n
# records (n public) is the Gaussian release of the clipped mean with noise
# z C / n, mapped linearly (no projection binds, lambda's prox is linear
# with alpha = 0): the audit projects the output on the direction of the
# noise-free difference.  Accounted at (2, 0.01) for one release.  Broken
# variants: half the noise; clipping after averaging (the raw mean, whose
# move is 6 / n, clipped to norm C, with the noise of sensitivity C / n).

audit_one_pass_delta <- 0.01

one_pass_audit <- function(method, trials) {
  set.seed(20261215)
  n <- 30
  K <- 2
  C <- 1
  nb <- bounded_neighbours(n, 2, K)
  z <- dp_noise_multiplier(2, audit_one_pass_delta, 1, 1)
  prob <- function(x, y)
    list(x = x, y = y, family = "gaussian",
         fam = dpsco:::family_settings("gaussian"), intercept = TRUE,
         offset = 0, n = n, p = 2, d = 3L, threads = 1L, smoothness = 1,
         clip = C)
  budget <- list(epsilon = 2, delta = audit_one_pass_delta, fixed = list())
  big <- 1e6  # no radius binds
  if (method == "prox_clipped_sgd") {
    run <- function(x, y, sd, clip)
      .Call(dpsco:::C_dpsco_fit, x, y, list(
        oracle = 1L, m = n, clip = clip, rho = 0, k = 1L, s = 1, nu = 1,
        family = 0L, intercept = 1L, noise_sd = sd, steps = 1L,
        step_size = 0.5, sqrt_schedule = 0L, last_iterate = 1L,
        tail_average = 0L, alpha = 0, penalty_factor = c(1, 1), threads = 1L,
        disjoint = 1L), 0.1, rep(0, 3), integer())$beta[, 1]
    fit <- withr::with_seed(1, dpsco(nb$x1, nb$y1, method = method,
                                     tuning = "public", lambda = 0.1,
                                     iterations = 1, alpha = 0, step_size = 0.5,
                                     epsilon = 2, delta = audit_one_pass_delta,
                                     threads = 1, control = dpsco_control(clip = C)))
    sd_fit <- fit$privacy$noise_multiplier * C / n
    same <- identical(withr::with_seed(1, run(nb$x1, nb$y1, sd_fit, C)),
                      unname(c(fit$a0, fit$beta[, 1])))
    accounted <- fit$privacy$epsilon_accounted
  } else {
    steps <- 1L
    mu <- if (method == "clipped_sgd") dpsco:::one_pass_ridge(dpsco_control(), 1)
          else 0
    plan <- dpsco:::one_pass_radius_plan(method, n, 3L, big, z, C, 1, mu,
                                         steps)
    eng <- plan$engine
    if (method == "localized") {
      # one phase of one step over all n records: the plan's own formula
      # for its noise, z sqrt(T_i) C / n_i, at T_i = 1, n_i = n
      eng$batch <- as.integer(n)
      eng$steps <- 1L
      eng$noise_sd <- z * sqrt(1) * C / n
      eng$weight <- big
    }
    run <- function(x, y, sd, clip) {
      e <- eng
      e$noise_sd <- sd
      dpsco:::one_pass_run(prob(x, y), big, method, e, clip, mu, rep(0, 3))
    }
    fit <- withr::with_seed(1, dpsco:::fit_one_pass(prob(nb$x1, nb$y1), big,
                                                    method, budget,
                                                    dpsco_control(), steps))
    sd_fit <- eng$noise_sd
    same <- if (method == "localized") NA
            else identical(withr::with_seed(1, run(nb$x1, nb$y1, sd_fit, C)),
                           fit$beta[, 1])
    accounted <- dpsco:::account_parts(fit$parts, audit_one_pass_delta)
  }
  honest <- function(x, y, f = 1) function() run(x, y, f * sd_fit, C)
  # the loop's map from the noisy mean to the output is diagonal, out =
  # a * mean (a scalar, or for the prox step (-gamma, -gamma / (1 +
  # gamma lambda), ...)): read off the engine without noise or clipping on
  # D' and checked on D
  raw0 <- run(nb$x0, nb$y0, 0, 1e300)
  raw1 <- run(nb$x1, nb$y1, 0, 1e300)
  mean_of <- function(x, y) {
    x1 <- cbind(1, x)
    colMeans(drop(x1 %*% rep(0, 3) - y) * x1)
  }
  a <- raw1 / mean_of(nb$x1, nb$y1)
  # clipping after averaging: the raw mean clipped to norm C, noise z C / n
  after <- function(x, y) {
    g <- mean_of(x, y)
    g <- g * min(1, C / sqrt(sum(g^2)))
    function() a * (g + sd_fit * stats::rnorm(3))
  }
  u <- unit(run(nb$x1, nb$y1, 0, C) - run(nb$x0, nb$y0, 0, C))
  list(same = same, z = z, sd = sd_fit, accounted = accounted,
       linear = max(abs(raw0 - a * mean_of(nb$x0, nb$y0))) / max(abs(raw0)),
       shift = sqrt(sum(((run(nb$x1, nb$y1, 0, C) -
                            run(nb$x0, nb$y0, 0, C)) / a)^2)),
       honest = audit_releases(honest(nb$x0, nb$y0), honest(nb$x1, nb$y1), u,
                               trials, audit_one_pass_delta),
       half = audit_releases(honest(nb$x0, nb$y0, 1 / 2),
                             honest(nb$x1, nb$y1, 1 / 2), u, trials,
                             audit_one_pass_delta),
       after = audit_releases(after(nb$x0, nb$y0), after(nb$x1, nb$y1), u,
                              trials, audit_one_pass_delta),
       n = n, C = C)
}

expect_one_pass_audit <- function(a) {
  if (!is.na(a$same)) expect_true(a$same)
  # the release is the clipped mean (moved by exactly C / n by the record)
  # with noise z C / n, linearly mapped
  expect_lt(a$linear, 1e-10)
  expect_equal(a$shift, a$C / a$n, tolerance = 1e-10)
  expect_equal(a$sd, a$z * a$C / a$n, tolerance = 1e-12)
  expect_lte(a$accounted, 2 * (1 + 1e-9))
  expect_audit(a$honest, a$half, a$accounted)
  expect_gt(a$after, a$accounted)
}

for (m in c("acsa", "clipped_sgd", "localized", "prox_clipped_sgd")) {
  test_that(paste("quick audit: one", m, "step stays within its epsilon"), {
    expect_one_pass_audit(one_pass_audit(m, trials = 6000))
  })
  test_that(paste("long audit: one", m, "step stays within its epsilon"), {
    skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
    a <- one_pass_audit(m, trials = 1e5)
    message(sprintf("audit %-16s accounted %.3f  eps_lb %.3f  half %.3f  after %.3f",
                    m, a$accounted, a$honest, a$half, a$after))
    expect_one_pass_audit(a)
    expect_gt(a$honest, 0.7 * a$accounted)
  })
}
