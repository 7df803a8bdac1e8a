# Empirical privacy audits of the one-pass loops (R/one-pass.R):
# "acsa", "clipped_sgd", "localized" and "prox_clipped_sgd".
#
# Part 1, one step.  Neighbours (helper-audit.R's bounded_neighbours()): D
# ends with a null record (zero gradient at the start), D' with the record
# x = K (1, -1), y = -K, whose gradient K (1, K, -K) has norm
# K sqrt(1 + 2 K^2) = 6 > C = 1, so per-record clipping makes it move the
# block's sum by exactly C.  One step from w = 0 over one block holding
# every record (T = 1: each record's label is that block; n public) is the
# Gaussian release of the clipped sum over n with noise z C / n, mapped
# linearly (no projection binds, lambda's prox is linear with alpha = 0):
# the audit projects the output on the direction of the noise-free
# difference.  Accounted at (2, 0.01) for one release.  Broken variants:
# half the noise; clipping after averaging (the raw mean, whose move is
# 6 / n, clipped to norm C, with the noise of sensitivity C / n).
# "localized" has no block of every record (phase 1 holds each record with
# probability 1/2), so its step is audited on records of zero gradient at
# w = 0 besides D''s, where the labels of the others do not matter.
#
# Part 2, the regression audit of fixed-size blocks: D = n0 records x = 0,
# y = -big, D' = D plus x = 0, y = +big, at the public n = 200 on both sides
# and with the same public settings (T = 2 blocks of expected size 100;
# "localized": one phase of expected size 100), in both directions: n0 =
# 199 (D' has n rows) and n0 = 200 (D' has n + 1).  Every gradient is
# clipped to +-C in the intercept.  The old mechanism, a uniform
# permutation cut into blocks of m = n %/% T records, lets the added record
# push a -big record out of its block, a move of 2 C / m: it must be caught.

audit_one_pass_delta <- 0.01

one_pass_audit <- function(method, trials) {
  set.seed(20261215)
  n <- 30
  K <- 2
  C <- 1
  nb <- bounded_neighbours(n, 2, K)
  z <- dp_noise_multiplier(2, audit_one_pass_delta, 1, 1)
  prob <- function(x, y)
    list(x = x, y = y, family = family_object("gaussian"),
         intercept = TRUE,
         offset = 0, n = n, p = 2, d = 3L, threads = 1L, smoothness = 1,
         clip = C)
  budget <- list(epsilon = 2, delta = audit_one_pass_delta, fixed = list())
  big <- 1e6  # no radius binds
  if (method == "prox_clipped_sgd") {
    run <- function(x, y, sd, clip)
      .Call(C_dpsco_fit, x, y, list(
        oracle = 1L, m = n, clip = clip, rho = 0, k = 1L, s = 1, nu = 1,
        family = 0L, intercept = 1L, noise_sd = sd, steps = 1L,
        step_size = 0.5, sqrt_schedule = 0L, last_iterate = 1L,
        tail_average = 0L, alpha = 0, penalty_factor = c(1, 1), threads = 1L,
        rate = 1, disjoint = 1L), 0.1, rep(0, 3), integer())$beta[, 1]
    fit <- withr::with_seed(1, dpsco(nb$x1, nb$y1, method = method,
                                     tuning = "public", lambda = 0.1,
                                     iterations = 1, alpha = 0, step_size = 0.5,
                                     epsilon = 2, delta = audit_one_pass_delta,
                                     threads = 1,
                                     control = dpsco_control(clip = C,
                                                             support = "none")))
    sd_fit <- fit$privacy$noise_multiplier * C / n
    # (dpsco() draws on a stream of its own, R/rng.R)
    same <- identical(withr::with_seed(1, with_fit_stream(
                        run(nb$x1, nb$y1, sd_fit, C))),
                      unname(c(fit$a0, fit$beta[, 1])))
    accounted <- fit$privacy$epsilon_accounted
  } else {
    steps <- 1L
    mu <- if (method == "clipped_sgd") one_pass_ridge(dpsco_control(), 1)
          else 0
    plan <- one_pass_radius_plan(method, n, 3L, big, z, C, 1, mu,
                                         steps)
    eng <- plan$engine
    run <- function(x, y, sd, clip) {
      e <- eng
      e$noise_sd <- sd
      one_pass_run(prob(x, y), big, method, e, clip, mu, rep(0, 3))
    }
    fit <- withr::with_seed(1, fit_one_pass(prob(nb$x1, nb$y1), big,
                                                    method, budget,
                                                    dpsco_control(), steps))
    sd_fit <- eng$noise_sd
    same <- identical(withr::with_seed(1, run(nb$x1, nb$y1, sd_fit, C)),
                      fit$beta[, 1])
    accounted <- account_parts(fit$parts, audit_one_pass_delta)
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
  expect_true(a$same)
  # the release is the clipped mean (moved by exactly C / n by the record)
  # with noise z C / n, linearly mapped
  expect_lt(a$linear, 1e-10)
  expect_equal(a$shift, a$C / a$n, tolerance = 1e-10)
  expect_equal(a$sd, a$z * a$C / a$n, tolerance = 1e-12)
  expect_lte(a$accounted, 2 * (1 + 1e-9))
  expect_audit(a$honest, a$half, a$accounted)
  expect_gt(a$after, a$accounted)
}

for (m in c("acsa", "clipped_sgd", "prox_clipped_sgd")) {
  test_that(paste("quick audit: one", m, "step stays within its epsilon"), {
    expect_one_pass_audit(one_pass_audit(m, trials = 6000))
  })
  test_that(paste("long audit: one", m, "step stays within its epsilon"), {
    skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
    a <- one_pass_audit(m, trials = 2e4)
    message(sprintf("audit %-16s accounted %.3f  eps_lb %.3f  half %.3f  after %.3f",
                    m, a$accounted, a$honest, a$half, a$after))
    expect_one_pass_audit(a)
    expect_gt(a$honest, 0.7 * a$accounted)
  })
}

# "localized", one phase (k = 1) of one step: each record joins it with
# probability 1/2, and its clipped sum is divided by n_1 = n / 2 with noise
# z C / n_1 (the plan's z sqrt(T_1) C / n_1 at T_1 = 1).  The n - 1 records
# shared by D and D' have y = 0, hence gradient 0 at w = 0; D ends with a
# null record, D' with x = K (1, -1), y = -K.  From w = 0 with a radius and
# a local ball that do not bind, the output is -(1 / lambda_1) times the
# noisy clipped mean: on D pure noise, on D' the same plus, when the record
# drew phase 1, -(1 / lambda_1) C g / (|g| n_1), g = K (1, K, -K).
localized_audit <- function(trials) {
  set.seed(20261216)
  n <- 30
  K <- 2
  C <- 1
  big <- 1e6
  z <- dp_noise_multiplier(2, audit_one_pass_delta, 1, 1)
  real_x <- matrix(stats::runif((n - 1) * 2, -K, K), n - 1, 2)
  x0 <- rbind(real_x, 0)
  x1 <- rbind(real_x, K * c(1, -1))
  y0 <- rep(0, n)
  y1 <- c(rep(0, n - 1), -K)
  prob <- function(x, y)
    list(x = x, y = y, family = family_object("gaussian"),
         intercept = TRUE,
         offset = 0, n = n, p = 2, d = 3L, threads = 1L, smoothness = 1,
         clip = C)
  eng <- one_pass_radius_plan("localized", n, 3L, big, z, C, 1, 0,
                                      1L)$engine
  eng$steps <- 1L
  eng$noise_sd <- z * sqrt(1) * C / eng$batch
  eng$weight <- big
  run <- function(x, y, sd, clip) {
    e <- eng
    e$noise_sd <- sd
    one_pass_run(prob(x, y), big, "localized", e, clip, 0, rep(0, 3))
  }
  g <- K * c(1, K, -K)
  jump <- -(1 / eng$step) * C * g / sqrt(sum(g^2)) / (n / 2)
  # noise-free outputs on D' over 40 draws of the labels: 0 or the jump
  free <- vapply(1:40, function(s) withr::with_seed(s, run(x1, y1, 0, C)),
                 numeric(3))
  hit <- apply(free, 2, function(v) max(abs(v - jump)) < 1e-12 * max(abs(jump)))
  miss <- apply(free, 2, function(v) max(abs(v)) == 0)
  honest <- function(x, y, f = 1) function() run(x, y, f * z * C / (n / 2), C)
  # clipping after averaging: the block's raw mean (the record's raw
  # gradient over n_1 when it drew phase 1), clipped to norm C
  after <- function(x, y) function() {
    in1 <- stats::runif(1) < 1 / 2 && y[n] != 0
    m <- if (in1) g / (n / 2) else rep(0, 3)
    m <- m * min(1, C / sqrt(sum(m^2)))
    -(1 / eng$step) * (m + z * C / (n / 2) * stats::rnorm(3))
  }
  u <- unit(jump)
  list(batch = eng$batch, free0 = max(abs(run(x0, y0, 0, C))),
       hit = sum(hit), miss = sum(miss),
       accounted = dp_epsilon(z, 1, 1, audit_one_pass_delta),
       honest = audit_releases(honest(x0, y0), honest(x1, y1), u, trials,
                               audit_one_pass_delta),
       after = audit_releases(after(x0, y0), after(x1, y1), u, trials,
                              audit_one_pass_delta))
}

expect_localized_audit <- function(a) {
  expect_equal(a$batch, 15)
  expect_equal(a$free0, 0)
  # every noise-free output is 0 or the jump, both seen
  expect_equal(a$hit + a$miss, 40)
  expect_gt(min(a$hit, a$miss), 5)
  expect_lte(a$accounted, 2 * (1 + 1e-9))
  expect_lte(a$honest, a$accounted)
  expect_gt(a$after, a$accounted)
}

test_that("quick audit: one localized step stays within its epsilon", {
  expect_localized_audit(localized_audit(6000))
})

test_that("long audit: one localized step stays within its epsilon", {
  skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
  a <- localized_audit(5e4)
  message(sprintf("audit %-16s accounted %.3f  eps_lb %.3f  after %.3f",
                  "localized", a$accounted, a$honest, a$after))
  expect_localized_audit(a)
  # the record sits the phase out half the time: a weaker but real signal
  expect_gt(a$honest, 0.4 * a$accounted)
})

# ---------------------------------------------------------------------------
# Part 2: fixed-size blocks against per-record labels (see the header).

reg_n <- 200  # the public n, on both sides
reg_T <- 2L   # blocks per pass
reg_big <- 1e6

reg_data <- function(n0)
  list(x0 = matrix(0, n0, 1), y0 = rep(-reg_big, n0),
       x1 = matrix(0, n0 + 1, 1), y1 = c(rep(-reg_big, n0), reg_big))

# The engine's intercept after one pass (one lambda, or one radius), the
# records' own labels drawn inside.  The step maps the noisy clipped means
# to the intercept with negative coefficients: the record of D' (clipped
# gradient -C) raises it.
reg_engine <- function(method, z, C = 1) {
  N <- reg_n / reg_T
  if (method == "prox_clipped_sgd") {
    settings <- list(
      oracle = 1L, m = N, rate = N / reg_n, clip = C, rho = 0, k = 1L, s = 1,
      nu = 1, family = 0L, intercept = 1L, noise_sd = z * C / N,
      steps = reg_T, step_size = 0.5, sqrt_schedule = 0L, last_iterate = 1L,
      tail_average = 0L, alpha = 0, penalty_factor = 1, threads = 1L,
      disjoint = 1L)
    return(function(x, y, sd = settings$noise_sd) {
      settings$noise_sd <- sd
      .Call(C_dpsco_fit, x, y, settings, 1e-9, c(0, 0),
            integer())$beta[1, 1]
    })
  }
  mu <- if (method == "clipped_sgd") one_pass_ridge(dpsco_control(), 1)
        else 0
  k <- if (method == "localized") 1L else reg_T
  eng <- one_pass_radius_plan(method, reg_n, 2L, 1e12, z, C, 1, mu,
                                      k)$engine
  if (method == "localized") {
    # one step in the phase: noise z sqrt(T_1) C / n_1 at T_1 = 1
    eng$steps <- 1L
    eng$noise_sd <- z * C / eng$batch
    eng$weight <- 1e12
  }
  function(x, y, sd = eng$noise_sd) {
    e <- eng
    e$noise_sd <- sd
    prob <- list(x = x, y = y, family = family_object("gaussian"),
                 intercept = TRUE,
                 offset = 0, n = reg_n, p = 1L, d = 2L, threads = 1L)
    one_pass_run(prob, 1e12, method, e, C, mu, c(0, 0))[1]
  }
}

# The old mechanism in plain R: the first block of m = n %/% T records of a
# uniform permutation of the rows, its clipped mean over m plus the same
# noise z C / m, negated (the methods' steps map it to the intercept by a
# negative factor, which the threshold test does not see).
reg_fixed_blocks <- function(y, z, C = 1) function() {
  m <- reg_n %/% reg_T
  blk <- sample.int(length(y), m)
  -(sum(pmax(-C, pmin(C, -y[blk]))) / m + z * C / m * stats::rnorm(1))
}

regression_audit <- function(methods, n0, trials, broken_trials) {
  set.seed(20261217 + n0)
  z <- dp_noise_multiplier(2, audit_one_pass_delta, 1, 1)
  dat <- reg_data(n0)
  honest <- vapply(methods, function(m) {
    run <- reg_engine(m, z)
    audit_releases(function() run(dat$x0, dat$y0),
                   function() run(dat$x1, dat$y1), 1, trials,
                   audit_one_pass_delta)
  }, 0)
  # prox_clipped_sgd without noise: its T blocks hold every record, each
  # block sum over the public N = n / T, so the pass moves the intercept by
  # -gamma C (records of y = -big) / N minus the record's share
  prox <- reg_engine("prox_clipped_sgd", z)
  free <- c(prox(dat$x0, dat$y0, 0), prox(dat$x1, dat$y1, 0))
  list(honest = honest, free = free,
       free_ref = -0.5 * c(n0, n0 - 1) / (reg_n / reg_T),
       broken = audit_releases(reg_fixed_blocks(dat$y0, z),
                               reg_fixed_blocks(dat$y1, z), 1,
                               broken_trials, audit_one_pass_delta),
       accounted = dp_epsilon(z, 1, 1, audit_one_pass_delta))
}

expect_regression_audit <- function(a) {
  expect_equal(a$free, a$free_ref, tolerance = 1e-12)
  expect_lte(a$accounted, 2 * (1 + 1e-9))
  for (m in names(a$honest))
    expect_lte(a$honest[[m]], a$accounted, label = m)
  expect_gt(a$broken, a$accounted)
}

reg_methods <- c("prox_clipped_sgd", "acsa", "clipped_sgd", "localized")

for (n0 in c(reg_n - 1, reg_n)) {
  what <- sprintf("an added record moves one block only (D with %d rows)", n0)
  test_that(paste("quick audit:", what), {
    expect_regression_audit(regression_audit(reg_methods, n0, 3000, 20000))
  })
  test_that(paste("long audit:", what), {
    skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
    a <- regression_audit(reg_methods, n0, 1e4, 5e4)
    message(sprintf("audit blocks n0 = %d  accounted %.3f  fixed-size %.3f  %s",
                    n0, a$accounted, a$broken,
                    paste(sprintf("%s %.3f", names(a$honest), a$honest),
                          collapse = "  ")))
    expect_regression_audit(a)
  })
}
