# The privacy record of a fit, checked against the calibration formulas
# written out independently.  Two calibrations: "accountant" (default), the
# smallest noise multiplier whose accounted epsilon over the whole path
# (K lambdas x T steps at Poisson rate q) meets the target, and "paper", the
# paper's printed noise scales at (epsilon / K, delta / K) per lambda, whose
# delivered epsilon the record reports.

priv_data <- function(n = 200, p = 3) {
  set.seed(505)
  x <- matrix(runif(n * p, -1, 1), n, p)
  y <- drop(x %*% c(1, -1, rep(0, p - 2))) + rt(n, df = 3)
  list(n = n, p = p, x = x, y = y)
}

# expected noise multiplier of the paper's calibration for one lambda: the
# printed sd over the add/remove sensitivity, so Kamath's multiplier doubles
# for an even number of groups k, whose sensitivity is halved
hand_multiplier <- function(method, eps, delta, K, k = 1) {
  base <- sqrt(log(K / delta)) / (eps / K)
  switch(method, clip = base, holland = 2 * base,
         kamath = 2 * base / median_factor_ref(k))
}

record_fields <- c("private", "epsilon", "delta", "epsilon_accounted",
                   "calibration", "accountant", "noise_multiplier",
                   "sensitivity", "noise_sd", "sample_rate", "steps",
                   "nlambda", "batch_size", "epsilon_per_lambda",
                   "delta_per_lambda", "shares", "adjacency", "sampling",
                   "public", "not_covered", "rng", "public_n",
                   "epsilon_replace_one", "guarantee")

test_that("privacy() returns the record attached to the fit", {
  d <- priv_data()
  set.seed(1)
  fit <- dpsco(tuning = "public", d$x, d$y, method = "clip", epsilon = 1, iterations = 2,
               nlambda = 3)
  rec <- privacy(fit)
  expect_s3_class(rec, "dpsco_privacy")
  expect_identical(rec, fit$privacy)
  expect_true(all(record_fields %in% names(rec)))
  expect_true(rec$private)
  expect_identical(rec$calibration, "accountant")       # the default
  expect_identical(fit$settings$calibration, "accountant")
  expect_type(rec$epsilon_accounted, "double")
  expect_lte(rec$epsilon_accounted, 1)
  # full batches (q = 1): the exact analytic Gaussian composition
  expect_match(rec$accountant, "analytic Gaussian", fixed = TRUE)
  expect_match(rec$sampling, "none", fixed = TRUE)
  # one neighbouring relation: a record added or removed at the public n
  n <- nrow(d$x)
  expect_identical(rec$public_n, as.double(n))
  expect_identical(rec$adjacency,
                   paste("add/remove one record at the public size n =", n))
  expect_true(sprintf("n = %d, the number of records (not protected)", n) %in%
                rec$public)
  # replace-one, for these 6 full-batch Gaussian releases: the analytic
  # Gaussian at half the multiplier (mu = 2 sqrt(6) / z)
  z <- rec$noise_multiplier
  expect_equal(rec$epsilon_replace_one, gauss_eps_ref(2 * sqrt(6) / z, rec$delta),
               tolerance = 1e-7)
  expect_equal(rec$epsilon_replace_one, dp_epsilon(z / 2, 1, 6, rec$delta),
               tolerance = 1e-9)
  expect_identical(rec$guarantee, paste0(
    "(", format(signif(rec$epsilon_accounted, 4)), ", ",
    format(signif(rec$delta, 4)), ")-differential privacy for data sets that ",
    "differ by one record added or removed, with the number of records n = ",
    n, " treated as public (the count itself is not protected); for two ",
    "data sets of the same size that differ in one record, epsilon = ",
    format(signif(rec$epsilon_replace_one, 4)), " at the same delta."))
  expect_true(any(format(rec) == paste("Guarantee:", rec$guarantee)))
  expect_false(any(grepl("^Adjacency:", format(rec))))
  expect_identical(nrow(rec$not_covered), 0L)
  expect_true("lambda grid" %in% rec$public)
  # one part (the optimiser) holding the whole budget
  expect_identical(rec$shares$part, "optimizer")
  expect_identical(rec$shares$share, 1)
  expect_identical(rec$shares$steps, 6)
  expect_equal(rec$shares$epsilon_alone, rec$epsilon_accounted,
               tolerance = 1e-12)
  expect_identical(names(rec$shares),
                   c("part", "share", "noise_multiplier", "sample_rate",
                     "steps", "sensitivity", "mechanism", "released",
                     "kind", "epsilon_stated", "delta_stated",
                     "epsilon_alone"))
  expect_identical(rec$shares$kind, "gaussian")
  expect_identical(rec$shares$sensitivity, rec$sensitivity)
  expect_match(rec$shares$mechanism, "^Gaussian: clip oracle")
  # 3 lambdas x 2 steps = 6 gradients, the public grid not among them
  expect_identical(rec$shares$released, "6 gradients")
})

test_that("a privacy warning shows the user's call", {
  set.seed(1)
  x <- matrix(rnorm(60), 30, 2)
  y <- rnorm(30)
  w <- tryCatch(dpsco(x, y, delta = 0.5, nlambda = 2),
                dpsco_privacy_warning = function(w) w)
  expect_identical(conditionCall(w), quote(dpsco(x, y, delta = 0.5, nlambda = 2)))
  expect_match(conditionMessage(w), "1 / n = 0.03333")
})

test_that("clip: record fields equal the formulas", {
  d <- priv_data()
  eps <- 2
  del <- 1e-4
  K <- 4
  m <- 50
  C <- 1.5
  set.seed(2)
  fit <- dpsco(tuning = "public", d$x, d$y, method = "clip", epsilon = eps, delta = del,
               nlambda = K, batch_size = m, iterations = 3,
               calibration = "paper", control = dpsco_control(clip = C))
  rec <- privacy(fit)
  expect_identical(rec$calibration, "paper")
  expect_equal(rec$epsilon, eps)
  expect_equal(rec$delta, del)
  expect_equal(rec$epsilon_per_lambda, 0.5, tolerance = 1e-14)
  expect_equal(rec$delta_per_lambda, 2.5e-5, tolerance = 1e-14)
  expect_equal(rec$sample_rate, 0.25, tolerance = 1e-14)
  expect_equal(rec$batch_size, 50)
  expect_equal(rec$steps, 3)
  expect_equal(rec$nlambda, 4)
  expect_equal(rec$sensitivity, C / m, tolerance = 1e-14)
  z <- sqrt(log(4 / 1e-4)) / 0.5
  expect_equal(rec$noise_multiplier, z, tolerance = 1e-12)
  expect_equal(rec$noise_multiplier, hand_multiplier("clip", eps, del, K),
               tolerance = 1e-12)
  expect_equal(rec$noise_sd, z * C / m, tolerance = 1e-12)
  # what these scales deliver over the K x T steps at q = 1/4
  expect_equal(rec$epsilon_accounted, dp_epsilon(z, 0.25, K * 3, del),
               tolerance = 1e-12)
  expect_match(rec$accountant, "Renyi", fixed = TRUE)
  expect_match(rec$sampling, "Poisson", fixed = TRUE)
})

test_that("kamath: sensitivity rho k sqrt(d) f(k) / (2 m), multiplier 2 sqrt(log(K/delta)) / (eps/K) / f(k)", {
  d <- priv_data()
  eps <- 3
  del <- 1e-5
  K <- 3
  m <- 40
  set.seed(3)
  fit <- dpsco(tuning = "public", d$x, d$y, method = "kamath", epsilon = eps, delta = del,
               nlambda = K, batch_size = m, iterations = 2,
               calibration = "paper")
  rec <- privacy(fit)
  dd <- d$p + 1
  rho <- ((eps / K) * m / sqrt(dd * log(K / del)))^(1 / 2)
  k <- min(ceiling(3 * log(2 * dd / 0.1)), m)
  expect_equal(k, 14)        # even: the median moves by half a group's move
  expect_equal(fit$settings$rho, rho, tolerance = 1e-12)
  expect_equal(fit$settings$k, k)
  expect_equal(rec$sensitivity, rho * k * sqrt(dd) / (4 * m), tolerance = 1e-12)
  z <- 4 * sqrt(log(K / del)) / (eps / K)
  expect_equal(rec$noise_multiplier, z, tolerance = 1e-12)
  expect_equal(rec$noise_multiplier, hand_multiplier("kamath", eps, del, K, k),
               tolerance = 1e-12)
  # the noise sd is still the paper's printed rho k sqrt(d log(K/delta)) /
  # (m eps / K)
  expect_equal(rec$noise_sd, rho * k * sqrt(dd * log(K / del)) / (m * eps / K),
               tolerance = 1e-12)
  expect_equal(rec$sample_rate, m / d$n, tolerance = 1e-14)
  expect_equal(rec$epsilon_per_lambda, 1, tolerance = 1e-14)
  expect_equal(rec$delta_per_lambda, del / K, tolerance = 1e-14)
  expect_equal(rec$epsilon_accounted, dp_epsilon(z, m / d$n, K * 2, del),
               tolerance = 1e-12)

  # user rho, no intercept (d = p), and k capped at the batch size
  fit2 <- dpsco(tuning = "public", d$x, d$y, method = "kamath", epsilon = eps, delta = del,
                nlambda = K, batch_size = 5, iterations = 2, intercept = FALSE,
                calibration = "paper", control = dpsco_control(rho = 3))
  rec2 <- privacy(fit2)
  expect_equal(fit2$settings$k, 5)           # odd: the full bound
  expect_equal(rec2$sensitivity, 3 * 5 * sqrt(3) / (2 * 5), tolerance = 1e-12)
  z2 <- 2 * sqrt(log(K / del)) / (eps / K)
  expect_equal(rec2$noise_multiplier, z2, tolerance = 1e-12)
  expect_equal(rec2$noise_sd, z2 * 3 * 5 * sqrt(3) / (2 * 5), tolerance = 1e-12)
  expect_equal(rec2$sample_rate, 5 / d$n, tolerance = 1e-14)
})

test_that("holland: sensitivity 2 sqrt(2) s sqrt(d) / (3 m), multiplier 2 sqrt(log(K/delta)) / (eps/K)", {
  d <- priv_data()
  eps <- 1
  del <- 1e-4
  K <- 5
  set.seed(4)
  fit <- dpsco(tuning = "public", d$x, d$y, method = "holland", epsilon = eps, delta = del,
               nlambda = K, iterations = 2, calibration = "paper")
  rec <- privacy(fit)
  m <- d$n
  dd <- d$p + 1
  s <- sqrt(m * (eps / K) * 1) / (log(1 / 0.1) * log(K / del)^(1 / 4))
  expect_equal(fit$settings$s, s, tolerance = 1e-12)
  expect_equal(fit$settings$nu, sqrt(log(10)), tolerance = 1e-12)
  expect_equal(rec$sensitivity, 2 * sqrt(2) * s * sqrt(dd) / (3 * m),
               tolerance = 1e-12)
  z <- 2 * sqrt(log(K / del)) / (eps / K)
  expect_equal(rec$noise_multiplier, z, tolerance = 1e-12)
  expect_equal(rec$noise_sd, z * 2 * sqrt(2) * s * sqrt(dd) / (3 * m),
               tolerance = 1e-12)
  expect_equal(rec$sample_rate, 1)
  expect_equal(rec$epsilon_accounted, dp_epsilon(z, 1, K * 2, del),
               tolerance = 1e-12)
  # default iterations: ceiling(5 (n/m)^2) with m = n is 5
  fd <- dpsco(tuning = "public", d$x, d$y, method = "holland", epsilon = eps, delta = del,
              nlambda = 2)
  expect_equal(privacy(fd)$steps, 5)
  # user s and batch size: default iterations 5 * (200/80)^2 = 31.25 -> 32
  fs <- dpsco(tuning = "public", d$x, d$y, method = "holland", epsilon = eps, delta = del,
              nlambda = 2, batch_size = 80, calibration = "paper",
              control = dpsco_control(s = 0.7))
  rs <- privacy(fs)
  expect_equal(rs$steps, 32)
  expect_equal(rs$sensitivity, 2 * sqrt(2) * 0.7 * sqrt(dd) / (3 * 80),
               tolerance = 1e-12)
  expect_equal(rs$noise_multiplier, 2 * sqrt(log(2 / del)) / (eps / 2),
               tolerance = 1e-12)
})

test_that("method 'none' is recorded as not private", {
  d <- priv_data()
  fit <- dpsco(tuning = "public", d$x, d$y, method = "none", iterations = 2, nlambda = 3,
               step_size = 0.2)
  rec <- privacy(fit)
  expect_false(rec$private)
  expect_identical(rec$epsilon, Inf)
  expect_identical(rec$delta, 0)
  expect_identical(rec$noise_sd, 0)
  expect_identical(rec$noise_multiplier, 0)
  expect_identical(rec$sensitivity, 0)
  expect_identical(rec$calibration, "none")
  expect_identical(rec$epsilon_per_lambda, Inf)
  expect_identical(rec$epsilon_accounted, Inf)
  expect_identical(rec$accountant, "not private")
  expect_identical(fit$settings$calibration, "accountant")
  out <- format(rec)
  expect_true(any(grepl("Not private", out, fixed = TRUE)))
  expect_true(any(grepl("epsilon = Inf", out, fixed = TRUE)))
})

test_that("the default delta is 0.1 / n", {
  for (n in c(50, 200)) {
    d <- priv_data(n = n)
    fit <- dpsco(tuning = "public", d$x, d$y, method = "clip", epsilon = 1, iterations = 2,
                 nlambda = 2, calibration = "paper")
    expect_equal(privacy(fit)$delta, 0.1 / n, tolerance = 1e-14)
    expect_equal(privacy(fit)$delta_per_lambda, 0.05 / n, tolerance = 1e-14)
    expect_equal(privacy(fit)$noise_multiplier,
                 sqrt(log(2 / (0.1 / n))) / 0.5, tolerance = 1e-12)
    # the accountant calibrates at the same default delta
    fa <- dpsco(tuning = "public", d$x, d$y, method = "clip", epsilon = 1, iterations = 2,
                nlambda = 2)
    ra <- privacy(fa)
    expect_equal(ra$delta, 0.1 / n, tolerance = 1e-14)
    expect_equal(ra$noise_multiplier, dp_noise_multiplier(1, 0.1 / n, 1, 4),
                 tolerance = 1e-12)
  }
})

test_that("format() and print() show the target, the accounted epsilon and the noise multiplier", {
  d <- priv_data()
  eps <- 2.5
  del <- 3e-4
  K <- 4
  fit <- dpsco(tuning = "public", d$x, d$y, method = "kamath", epsilon = eps, delta = del,
               nlambda = K, iterations = 2, calibration = "paper",
               control = dpsco_control(rho = 2))
  rec <- privacy(fit)
  expect_identical(fit$settings$k, 14L)          # even: multiplier doubled
  z <- 4 * sqrt(log(K / del)) / (eps / K)
  acc <- dp_epsilon(z, 1, K * 2, del)
  expect_lt(acc, eps)   # at q = 1 and 8 steps these scales undershoot
  txt <- format(rec)
  expect_type(txt, "character")
  expect_true(any(txt == "Target: (epsilon, delta) = (2.5, 3e-04) for the whole path"))
  expect_true(any(txt == sprintf("Accounted: epsilon = %s at delta = 3e-04",
                                 format(signif(acc, 4)))))
  expect_false(any(grepl("ABOVE", txt, fixed = TRUE)))
  expect_true(any(txt == "Calibration: paper"))
  expect_true(any(grepl("^Accountant: exact composition", txt)))
  expect_true(any(grepl(paste0("Noise multiplier z = ", format(signif(z, 4))),
                        txt, fixed = TRUE)))
  expect_true(any(txt == sprintf("Steps: %d lambdas x %d steps = %d noisy releases",
                                 K, 2L, 2L * K)))
  # the guarantee line, with the replace-one epsilon of these 8 full-batch
  # releases at half the multiplier, in place of the adjacency line
  acc_r <- dp_epsilon(z / 2, 1, K * 2, del)
  g <- grep("^Guarantee: ", txt, value = TRUE)
  expect_length(g, 1L)
  expect_match(g, sprintf("^Guarantee: \\(%s, 3e-04\\)-differential privacy for data sets",
                          format(signif(acc, 4))))
  expect_match(g, sprintf("differ in one record, epsilon = %s at the same delta.",
                          format(signif(acc_r, 4))), fixed = TRUE)
  expect_equal(rec$epsilon_replace_one, acc_r, tolerance = 1e-9)
  expect_false(any(grepl("^Adjacency", txt)))
  res <- NULL
  out <- capture.output(res <- withVisible(print(rec)))
  expect_false(res$visible)
  expect_identical(res$value, rec)
  expect_identical(out[1], "Differential privacy record")
  expect_identical(out[-1], paste0("  ", txt))
  expect_true(any(grepl("(2.5, 3e-04)", out, fixed = TRUE)))
  expect_true(any(grepl(format(signif(z, 4)), out, fixed = TRUE)))
  expect_true(any(grepl(format(signif(acc, 4)), out, fixed = TRUE)))

  # the default calibration with Poisson sampling
  fa <- dpsco(tuning = "public", d$x, d$y, method = "clip", epsilon = eps, delta = del,
              nlambda = K, iterations = 2, batch_size = 50)
  ta <- format(privacy(fa))
  expect_true(any(ta == "Calibration: accountant"))
  expect_true(any(ta == sprintf("Accounted: epsilon = %s at delta = 3e-04",
                                format(signif(privacy(fa)$epsilon_accounted, 4)))))
  expect_true(any(grepl("^Accountant: privacy loss distribution of the Poisson-subsampled Gaussian", ta)))
  expect_true(any(grepl("rate q = 0.25", ta, fixed = TRUE)))
  expect_false(any(grepl("ABOVE", ta, fixed = TRUE)))
  # subsampled: the add/remove guarantee carried over by group privacy,
  # 2 eps1 with eps1 the (Renyi) epsilon at delta1, delta1 (1 + e^eps1) = del
  pa <- privacy(fa)
  za <- pa$noise_multiplier
  eps_at <- function(ld) dp_epsilon(za, 0.25, K * 2, exp(ld), accountant = "rdp")
  ld <- stats::uniroot(function(ld) ld + log1p(exp(eps_at(ld))) - log(del),
                       c(log(del) - 40, log(del / 2)), tol = 1e-12)$root
  expect_equal(pa$epsilon_replace_one, 2 * eps_at(ld), tolerance = 1e-6)
  expect_gt(pa$epsilon_replace_one, 2 * pa$epsilon_accounted)
  expect_true(any(ta == paste("Guarantee:", pa$guarantee)))

  # print.dpsco states target and accounted epsilon on one line
  line <- grep("^Privacy:", capture.output(print(fit)), value = TRUE)
  expect_identical(line, sprintf(paste0(
    "Privacy: target (epsilon, delta) = (2.5, 3e-04), accounted epsilon %s, ",
    "over %d lambdas x 2 steps, calibration \"paper\""),
    format(signif(acc, 4)), K))
  line_a <- grep("^Privacy:", capture.output(print(fa)), value = TRUE)
  expect_identical(line_a, sprintf(paste0(
    "Privacy: target (epsilon, delta) = (2.5, 3e-04), accounted epsilon %s, ",
    "over %d lambdas x 2 steps, calibration \"accountant\""),
    format(signif(privacy(fa)$epsilon_accounted, 4)), K))
})

test_that("privacy() on a non-fit raises a dpsco_arg_error for 'fit'", {
  d <- priv_data()
  fit <- dpsco(tuning = "public", d$x, d$y, method = "clip", iterations = 2, nlambda = 2)
  for (bad in list(list(), fit$privacy, unclass(fit), 1)) {
    expect_error(privacy(bad), class = "dpsco_arg_error")
    cnd <- tryCatch(privacy(bad), dpsco_arg_error = function(e) e)
    expect_identical(cnd$arg, "fit")
    expect_match(conditionMessage(cnd), "`fit`", fixed = TRUE)
  }
})

test_that("the noise actually added has the recorded standard deviation", {
  # Two all-zero columns: their gradient is exactly 0 under every oracle, so
  # with lambda = 0, one step of size 1 from 0 and the last iterate as output
  # each coefficient is minus one draw of the Gaussian noise.
  n <- 20
  x <- matrix(0, n, 2)
  y <- rep(5, n)
  for (m in c("clip", "kamath", "holland")) {
    set.seed(99)
    # (support = "none": the coefficients are the raw noisy step)
    ctl <- switch(m, clip = dpsco_control(output = "last", clip = 1,
                                          support = "none"),
                  kamath = dpsco_control(output = "last", rho = 2,
                                         support = "none"),
                  holland = dpsco_control(output = "last", s = 1,
                                          support = "none"))
    draws <- unlist(lapply(1:250, function(i) {
      f <- dpsco(tuning = "public", x, y, method = m, epsilon = 40, delta = 1e-3, lambda = 0,
                 iterations = 1, step_size = 1, calibration = "paper",
                 control = ctl)
      -unname(f$beta[, 1])
    }))
    dd <- 3
    kk <- min(ceiling(3 * log(2 * dd / 0.1)), n)   # 13 groups: odd
    sens <- switch(m, clip = 1 / n,
                   kamath = 2 * kk * sqrt(dd) * median_factor_ref(kk) / (2 * n),
                   holland = 2 * sqrt(2) * sqrt(dd) / (3 * n))
    sd_hand <- hand_multiplier(m, 40, 1e-3, 1, kk) * sens
    f <- dpsco(tuning = "public", x, y, method = m, epsilon = 40, delta = 1e-3, lambda = 0,
               iterations = 1, step_size = 1, calibration = "paper",
               control = ctl)
    expect_equal(privacy(f)$noise_sd, sd_hand, tolerance = 1e-12)
    # 500 draws: the sample sd is within ~3% (1 se) of the truth
    expect_equal(sd(draws), sd_hand, tolerance = 0.12, label = paste(m, "noise sd"))
    expect_lt(abs(mean(draws)), 4 * sd_hand / sqrt(length(draws)))
  }
  # method "none" adds nothing
  f <- dpsco(tuning = "public", x, y, method = "none", lambda = 0, iterations = 1, step_size = 1,
             control = dpsco_control(output = "last"))
  expect_identical(unname(f$beta[, 1]), c(0, 0))
})

# ---- calibration -----------------------------------------------------------

# the add/remove L2 sensitivity of each oracle from the fit's public settings
hand_sensitivity <- function(fit) {
  st <- fit$settings
  m <- st$batch_size
  d <- nrow(fit$beta) + fit$intercept
  switch(fit$method,
    clip = st$clip / m,
    kamath = st$rho * st$k * sqrt(d) * median_factor_ref(st$k) / (2 * m),
    holland = 2 * sqrt(2) * st$s * sqrt(d) / (3 * m))
}

test_that("default calibration: the whole path (K lambdas x T steps) meets the target tightly", {
  d <- priv_data()
  eps <- 1.5
  del <- 1e-4
  runs <- list(
    list(method = "clip", m = 50, K = 3, T = 4),         # q < 1: Renyi
    list(method = "kamath", m = 80, K = 2, T = 5),
    list(method = "holland", m = d$n, K = 4, T = 3))     # q = 1: analytic
  for (r in runs) {
    info <- paste(r$method, "q =", r$m / d$n)
    q <- r$m / d$n
    KT <- r$K * r$T
    set.seed(8)
    fit <- dpsco(tuning = "public", d$x, d$y, method = r$method, epsilon = eps, delta = del,
                 nlambda = r$K, iterations = r$T, batch_size = r$m)
    rec <- privacy(fit)
    z <- rec$noise_multiplier
    expect_identical(rec$calibration, "accountant")
    expect_equal(rec$sample_rate, q, tolerance = 1e-15)
    expect_equal(rec$steps, r$T)
    expect_equal(rec$nlambda, r$K)
    # what the path spends is what K x T steps spend, and it meets the target
    expect_equal(rec$epsilon_accounted, dp_epsilon(z, q, KT, del),
                 tolerance = 1e-12, label = info)
    expect_lte(rec$epsilon_accounted, eps)
    # ... tightly: 1% less noise would exceed it
    expect_gt(dp_epsilon(0.99 * z, q, KT, del), eps, label = info)
    # (the distribution's calibration stops within about 1e-3)
    expect_gt(rec$epsilon_accounted, eps * (1 - 3e-3))
    # the budget covers every lambda, not one: a single lambda spends less
    expect_lt(dp_epsilon(z, q, r$T, del), 0.9 * rec$epsilon_accounted)
    # the multiplier is the public calibration for K x T steps ...
    expect_equal(z, dp_noise_multiplier(eps, del, q, KT), tolerance = 1e-12)
    # ... so one lambda with K x T steps gets the same noise
    if (r$method != "kamath") {        # one q < 1 and one q = 1 case suffice
      f1 <- dpsco(tuning = "public", d$x, d$y, method = r$method, epsilon = eps, delta = del,
                  nlambda = 1, iterations = KT, batch_size = r$m)
      expect_equal(privacy(f1)$noise_multiplier, z, tolerance = 1e-12)
    }
    # noise sd = z times the oracle's sensitivity
    expect_equal(rec$sensitivity, hand_sensitivity(fit), tolerance = 1e-12)
    expect_equal(rec$noise_sd, z * hand_sensitivity(fit), tolerance = 1e-12)
    # the oracles' paper defaults still use (epsilon/K, delta/K) per lambda
    expect_equal(rec$epsilon_per_lambda, eps / r$K, tolerance = 1e-15)
    expect_equal(rec$delta_per_lambda, del / r$K, tolerance = 1e-15)
    expect_match(rec$accountant, if (q < 1) "Renyi" else "analytic Gaussian",
                 fixed = TRUE)
  }
})

test_that("paper calibration: the record reports the epsilon the printed scales deliver", {
  # the paper's setting, scaled down: m = n / 6 and T = 5 (n / m)^2 = 180
  # steps, K = 1, delta = 1 / n
  set.seed(606)
  n <- 600
  p <- 3
  x <- matrix(runif(n * p, -1, 1), n, p)
  y <- drop(x %*% c(1, -1, 0)) + rt(n, df = 3)
  m <- n / 6
  q <- m / n
  eps <- 1
  del <- 1 / n
  for (method in c("clip", "kamath", "holland")) {
    set.seed(1)
    # the paper's delta = 1 / n is warned about
    expect_warning(
      fit <- dpsco(tuning = "public", x, y, method = method, epsilon = eps, delta = del,
                   nlambda = 1, batch_size = m, calibration = "paper"),
      class = "dpsco_privacy_warning")
    rec <- privacy(fit)
    expect_identical(rec$steps, 180L)
    base <- sqrt(log(1 / del)) / eps
    # kamath: d = 4 gives k = ceiling(3 log 80) = 14 groups, an even count,
    # so its sensitivity is halved and the printed sd is twice as many
    # multiples of it
    if (method == "kamath") expect_identical(fit$settings$k, 14L)
    z_paper <- switch(method, clip = base, holland = 2 * base,
                      kamath = 4 * base)
    expect_equal(rec$noise_multiplier, z_paper, tolerance = 1e-12)
    expect_equal(rec$noise_sd, z_paper * hand_sensitivity(fit),
                 tolerance = 1e-12)
    expect_equal(rec$epsilon_accounted, dp_epsilon(z_paper, q, 180, del),
                 tolerance = 1e-12)
    ratio <- rec$epsilon_accounted / rec$epsilon
    txt <- paste(summary(fit)$text, collapse = " ")
    if (method == "kamath") {
      # the printed noise at the halved sensitivity stays within the target
      expect_lt(ratio, 1)
      expect_false(any(grepl("ABOVE", format(rec), fixed = TRUE)))
      expect_false(grepl("times the nominal epsilon", txt, fixed = TRUE))
      expect_match(txt, sprintf("they give epsilon = %s at delta",
                                format(signif(rec$epsilon_accounted, 4))),
                   fixed = TRUE)
      next
    }
    # the delivered epsilon exceeds the nominal one
    expect_gt(ratio, 1, label = paste(method, "delivered / nominal epsilon"))
    # and the record and the summary say so
    expect_true(any(grepl("ABOVE the target", format(rec), fixed = TRUE)))
    expect_match(txt, sprintf("%s times the nominal epsilon = 1",
                              format(signif(ratio, 4))), fixed = TRUE)
  }
  # clip: about 3.15 by Renyi DP, 2.9 by the privacy loss distribution
  expect_gt(dp_epsilon(sqrt(log(n)), q, 180, del, accountant = "rdp"), 3)
  expect_gt(dp_epsilon(sqrt(log(n)), q, 180, del), 2.5)
  # the default calibration needs more noise than the paper's here
  set.seed(1)
  expect_warning(
    fa <- dpsco(tuning = "public", x, y, method = "clip", epsilon = eps, delta = del,
                nlambda = 1, batch_size = m),
    class = "dpsco_privacy_warning")
  expect_gt(privacy(fa)$noise_multiplier, sqrt(log(n)))
  expect_lte(privacy(fa)$epsilon_accounted, eps)
})

test_that("paper calibration over several lambdas composes K x T steps", {
  d <- priv_data()
  eps <- 2
  del <- 1e-5
  K <- 3
  T <- 4
  for (m in c(40, d$n)) {
    fit <- dpsco(tuning = "public", d$x, d$y, method = "holland", epsilon = eps, delta = del,
                 nlambda = K, iterations = T, batch_size = m,
                 calibration = "paper")
    rec <- privacy(fit)
    z <- hand_multiplier("holland", eps, del, K)
    expect_equal(rec$noise_multiplier, z, tolerance = 1e-12)
    expect_equal(rec$epsilon_accounted, dp_epsilon(z, m / d$n, K * T, del),
                 tolerance = 1e-12)
    expect_gt(rec$epsilon_accounted, dp_epsilon(z, m / d$n, T, del))
  }
})

test_that("calibration is checked", {
  d <- priv_data()
  expect_error(dpsco(tuning = "public", d$x, d$y, method = "clip", calibration = "exact",
                     nlambda = 2, iterations = 2))
  # method "none" records calibration "none" whatever is asked
  fn <- dpsco(tuning = "public", d$x, d$y, method = "none", calibration = "paper", nlambda = 2,
              iterations = 2, step_size = 0.2)
  expect_identical(privacy(fn)$calibration, "none")
  expect_identical(privacy(fn)$noise_sd, 0)
})

test_that("parts with a stated guarantee add by basic composition; RDP-only parts skip the analytic route", {
  delta <- 1e-5
  g <- privacy_part("g", 3, 1, 4, 1, 0.5)
  # alone, a Gaussian part is accounted exactly (analytic Gaussian)
  mu <- sqrt(4) / 3
  expect_equal(account_parts(list(g), delta),
               gaussian_epsilon(mu, delta))
  # the same curve marked RDP-only goes through the RDP conversion
  r <- g
  r$kind <- "rdp"
  a <- dp_orders()
  rdp_ref <- min(a * 4 / (2 * 9) + log1p(-1 / a) - (log(delta) + log(a)) / (a - 1))
  expect_equal(account_parts(list(r), delta), rdp_ref, tolerance = 1e-12)
  expect_gt(rdp_ref, gaussian_epsilon(mu, delta))
  # a stated (0.4, delta / 2) part adds 0.4 and leaves delta / 2
  s <- dp_part("s", 0.4, delta / 2, 1, 1, 0.5, mechanism = "stated")
  expect_equal(account_parts(list(g, s), delta),
               gaussian_epsilon(mu, delta / 2) + 0.4, tolerance = 1e-12)
  expect_equal(account_parts(list(s), delta), 0.4)
  # a stated delta that uses up the target leaves nothing for the rest
  big <- dp_part("b", 0.1, delta, 1, 1, 0.5, mechanism = "stated")
  expect_equal(account_parts(list(g, big), delta), Inf)
})

test_that("remaining_budget() leaves exactly what composes to the target", {
  delta <- 1e-6
  fixed <- list(privacy_part("scale", 8, 1, 2, 1, 0.05),
                privacy_part("centre", 10, 1, 1, 1, 0.03))
  rb <- remaining_budget(fixed, 1, delta)
  mu <- sqrt(2 / 64 + 1 / 100)
  expect_equal(rb$delta, 0.75 * delta)
  expect_equal(rb$epsilon, 1 - gaussian_epsilon(mu, delta / 4),
               tolerance = 1e-12)
  s <- dp_part("m", rb$epsilon, rb$delta, 1, 1, 0.9, mechanism = "m")
  expect_equal(account_parts(c(fixed, list(s)), delta), 1,
               tolerance = 1e-12)
  expect_identical(remaining_budget(list(), 1, delta),
                   list(epsilon = 1, delta = delta))
  err <- expect_error(remaining_budget(fixed, 0.01, delta),
                      class = "dpsco_arg_error")
  expect_equal(err$arg, "epsilon")
})

test_that("privacy(cvfit) prints every budget share with its pool and values", {
  set.seed(8)
  n <- 600
  x <- matrix(exp(rnorm(n * 3)), n, 3)
  y <- drop(x %*% c(1, -1, 0)) + rt(n, df = 3)
  cvf <- cv.dpsco(x, y, method = "clip", epsilon = 1, curve = 0.25, nlambda = 4)
  pr <- privacy(cvf)
  sh <- pr$shares
  expect_identical(nrow(sh), 7L)
  check_rows <- function(txt, sh, eps_alone) {
    i <- grep("^Budget shares", txt)
    expect_length(i, 1)
    rows <- txt[i + seq_len(nrow(sh))]
    for (k in seq_len(nrow(sh))) {
      # part (pool), its share, its own epsilon, read against the record
      expect_match(rows[k], sprintf("^  %s \\(%s\\) +share %s: ", sh$part[k],
                                    sh$pool[k], num(sh$share[k])))
      expect_match(rows[k], sprintf("epsilon alone %s$", num(eps_alone[k])))
      expect_match(rows[k], if (sh$kind[k] == "dp") "stated guarantee, 1 steps"
                            else sprintf("z = %s, q = %s, %d steps",
                                         num(sh$noise_multiplier[k]),
                                         num(sh$sample_rate[k]),
                                         as.integer(sh$steps[k])), fixed = TRUE)
    }
    # the next line is not a share
    expect_false(grepl("share", txt[i + nrow(sh) + 1L]))
  }
  check_rows(format(pr), sh, sh$epsilon_alone)
  printed <- capture.output(print(pr))
  check_rows(sub("^  ", "", printed[-1]), sh, sh$epsilon_alone)
  expect_identical(sh$pool, c(rep("training", 5), rep("validation", 2)))
  expect_equal(sh$share[sh$pool == "validation"], c(0.75, 0.25))
  # a record without the kind and epsilon_alone columns (as stored by an
  # older version) still lists all seven parts (it printed a bare heading)
  old <- pr
  old$shares$kind <- NULL
  old$shares$epsilon_alone <- NULL
  txt <- format(old)
  i <- grep("^Budget shares", txt)
  rows <- txt[i + 1:7]
  expect_identical(sum(grepl("share", rows)), 7L)
  for (k in 1:7)
    expect_match(rows[k], paste0("^  ", sh$part[k], " "), label = sh$part[k])
  expect_match(rows[6], "z = NA, q = 1, 1 steps, epsilon alone NA", fixed = TRUE)
})

# ---- the privacy status ----------------------------------------------------------

status_fits <- function() {
  d <- priv_data()
  f <- clean_and_standardised(d$x, d$y, 3)
  f$none <- dpsco(tuning = "public", d$x, d$y, method = "none", iterations = 2,
                  nlambda = 2, step_size = 0.2, standardize = TRUE)
  f
}

test_that("privacy_status() reads covered, not covered or not private from the record", {
  f <- status_fits()
  st <- privacy_status(privacy(f$clean))
  expect_identical(st$status, "covered")
  expect_identical(nrow(st$not_covered), 0L)
  expect_identical(st$lines, status_covered)
  expect_identical(st$sentence, status_covered)
  # standardize = TRUE: the record lists the use with its fix, and the
  # status says the accounted epsilon does not cover it
  pr <- privacy(f$std)
  expect_identical(pr$not_covered,
                   data.frame(reason = std_reason, fix = std_fix))
  st <- privacy_status(pr)
  expect_identical(st$status, "not covered")
  expect_identical(st$lines, c(paste0(status_not_covered, ":"),
                               paste0("  - ", std_reason, " (fix: ", std_fix, ")")))
  expect_identical(st$sentence, paste0(status_not_covered, ": ", std_reason,
                                       " (fix: ", std_fix, ")."))
  # not private wins over what is not covered, whose fix is then moot
  st <- privacy_status(privacy(f$none))
  expect_identical(st$status, "not private")
  expect_identical(st$lines, c(paste0(status_not_private,
                                      "; data statistics used:"),
                               paste("  -", std_reason)))
  # a record of 0.10.0 kept its reasons as a character vector, without fixes
  old <- pr
  old$not_covered <- "column means and standard deviations of x"
  st <- privacy_status(old)
  expect_identical(st$status, "not covered")
  expect_identical(st$not_covered$fix, NA_character_)
  expect_identical(st$lines[2], "  - column means and standard deviations of x")
})

test_that("print() and summary() of the record state its status", {
  f <- status_fits()
  out <- capture.output(print(privacy(f$clean)))
  expect_true(any(out == paste0("  ", status_covered)))
  expect_false(any(grepl("NOT covered", out, fixed = TRUE)))
  out <- capture.output(print(privacy(f$std)))
  i <- which(out == paste0("  ", status_not_covered, ":"))
  expect_length(i, 1L)
  expect_identical(out[i + 1L], paste0("    - ", std_reason, " (fix: ",
                                       std_fix, ")"))
  expect_false(any(grepl(status_covered, out, fixed = TRUE)))
  out <- capture.output(print(privacy(f$none)))
  expect_true(any(out == paste0("  ", status_not_private,
                                "; data statistics used:")))
  # summary(): the status, the table of what is not covered, and the text
  for (k in c("clean", "std", "none")) {
    pr <- privacy(f[[k]])
    sm <- summary(pr)
    expect_s3_class(sm, "summary.dpsco_privacy")
    expect_identical(sm$status, c(clean = "covered", std = "not covered",
                                  none = "not private")[[k]], label = k)
    expect_identical(sm$not_covered, pr$not_covered)
    expect_identical(sm$epsilon_accounted, pr$epsilon_accounted)
    res <- NULL
    printed <- capture.output(res <- withVisible(print(sm)))
    expect_false(res$visible)
    expect_identical(paste(printed, collapse = " "),
                     paste(strwrap(sm$text, exdent = 2), collapse = " "))
  }
  expect_identical(summary(privacy(f$clean))$text[3], status_covered)
  expect_identical(summary(privacy(f$std))$text[3],
                   paste0(status_not_covered, ": ", std_reason, " (fix: ",
                          std_fix, ")."))
  expect_identical(summary(privacy(f$clean))$text[2],
                   paste("Guarantee:", privacy(f$clean)$guarantee))
  expect_length(summary(privacy(f$none))$text, 1L)
  expect_match(summary(privacy(f$none))$text, status_not_private, fixed = TRUE)
})
