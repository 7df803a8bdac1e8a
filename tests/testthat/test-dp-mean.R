# dp_mean(): one private release of a robust mean, checked against plain-R
# estimators written from the documentation, noise included.  The C oracles
# draw from R's generator in a fixed order: kamath first draws one group
# label per row, floor(runif(1) * k), in row order; then every oracle draws
# one rnorm(1) per column for the noise.  The trimmed mean (in R) draws
# rnorm(d).  So with the same seed the references below reproduce the
# released values to rounding error.

psi_cap <- 2 * sqrt(2) / 3

# E psi(a + b Z), Z ~ N(0, 1), for the Catoni-Giulini psi (x - x^3 / 6 on
# [-sqrt(2), sqrt(2)], +-2 sqrt(2) / 3 beyond): exact normal tails plus
# numerical integration of the cubic piece over the standard normal.
e_psi <- function(a, b) {
  lo <- (-sqrt(2) - a) / b
  hi <- (sqrt(2) - a) / b
  tails <- psi_cap * (pnorm(hi, lower.tail = FALSE) - pnorm(lo))
  l <- max(lo, -12)
  u <- min(hi, 12)
  mid <- if (l < u) {
    stats::integrate(function(z) {
      v <- a + b * z
      (v - v^3 / 6) * dnorm(z)
    }, l, u, rel.tol = 1e-12, abs.tol = 1e-15, subdivisions = 2000L)$value
  } else 0
  tails + mid
}

# Holland's contribution of one value v at scale s: s h(v / s), with
# h(a) = E psi(a + |a| Z / sqrt(nu)) clamped to +-2 sqrt(2) / 3, h(0) = 0.
holland_contrib <- function(v, s, nu) {
  vapply(v, function(vi) {
    a <- vi / s
    if (a == 0) return(0)
    s * min(max(e_psi(a, abs(a) / sqrt(nu)), -psi_cap), psi_cap)
  }, numeric(1))
}

# The estimators without noise; x is a matrix of rows records, n the public
# number of records that divides every sum (by default the rows).
ref_estimate <- function(x, method, par, labels = NULL, n = nrow(x)) {
  switch(method,
    holland = apply(x, 2, function(col)
      sum(holland_contrib(col, par$s, par$nu)) / n),
    clip = {
      nrm <- sqrt(rowSums(x^2))
      w <- ifelse(nrm > par$clip, par$clip / nrm, 1)
      colSums(x * w) / n
    },
    kamath = {
      v <- pmin(pmax(x, -par$rho / 2), par$rho / 2)
      apply(v, 2, function(col) {
        grp <- vapply(seq_len(par$k) - 1, function(g) sum(col[labels == g]),
                      numeric(1))
        stats::median(grp * par$k / n)
      })
    },
    trimmed = {
      # the centred sum over the public n: the midpoint plus the summed
      # deviations of the clamped values from it (the plain mean when n is
      # the number of rows)
      r <- par$range
      vapply(seq_len(ncol(x)), function(j) {
        mid <- (r[1, j] + r[2, j]) / 2
        mid + sum(pmin(pmax(x[, j], r[1, j]), r[2, j]) - mid) / n
      }, numeric(1))
    })
}

# The documented public defaults for expected batch size n, dimension d and
# the target (eps, delta), with dpsco_control() defaults.
ref_params <- function(method, n, d, eps, delta, range = NULL) {
  zeta <- 0.1
  switch(method,
    holland = list(nu = sqrt(log(1 / zeta)),
                   s = sqrt(n * eps * 1) / (log(1 / zeta) * log(1 / delta)^(1 / 4))),
    kamath = list(rho = (eps * n / sqrt(d * log(1 / delta)))^(1 / 2),
                  k = min(ceiling(3 * log(2 * d / zeta)), n)),
    clip = list(clip = 1),
    trimmed = list(range = range))
}

ref_sensitivity <- function(method, par, n, d) {
  switch(method,
    holland = 2 * sqrt(2) * par$s * sqrt(d) / (3 * n),
    kamath = par$rho * par$k * sqrt(d) * median_factor_ref(par$k) / (2 * n),
    clip = par$clip / n,
    trimmed = sqrt(sum(((par$range[2, ] - par$range[1, ]) / 2)^2)) / n)
}

mean_data <- function(n = 30, seed = 11) {
  set.seed(seed)
  list(v = stats::rt(n, df = 3) + 1,
       m = cbind(a = stats::rt(n, df = 3) * 2 - 1,
                 b = stats::rexp(n, 0.5),
                 c = stats::runif(n, -3, 3)))
}

test_that("dp_mean() reproduces plain-R estimators plus noise, vector and matrix", {
  dat <- mean_data()
  eps <- 1.3
  # the public n: the number of rows (30) by default, or declared, more or
  # fewer than the rows; it divides the sums and sets the defaults
  for (pn in list(NULL, 45, 20)) for (input in c("vector", "matrix")) {
    x <- if (input == "vector") dat$v else dat$m
    xm <- if (input == "vector") matrix(x, ncol = 1) else x
    rows <- nrow(xm)
    n <- pn %||% rows
    d <- ncol(xm)
    delta <- 0.1 / n
    rng <- rbind(rep(-2, d), seq(1, 3, length.out = d))
    for (method in c("holland", "kamath", "clip", "trimmed")) {
      info <- paste(method, input, n)
      fit_it <- function() if (method == "trimmed") {
        dp_mean(x, method = method, epsilon = eps, public_n = pn, range = rng)
      } else dp_mean(x, method = method, epsilon = eps, public_n = pn)
      set.seed(42)
      res <- fit_it()

      par <- ref_params(method, n, d, eps, delta, rng)
      z <- dp_noise_multiplier(eps, delta, 1, 1)
      sens <- ref_sensitivity(method, par, n, d)
      ref_draw <- function() {
        # one group label per row present
        labels <- if (method == "kamath")
          vapply(seq_len(rows), function(i) floor(stats::runif(1) * par$k), 0)
        ref_estimate(xm, method, par, labels, n) + z * sens * stats::rnorm(d)
      }
      set_fit_seed(42)
      est <- ref_draw()
      # dp_mean() draws exactly what the reference draws: without its own
      # stream it leaves the generator where the reference leaves it
      set.seed(42)
      without_fit_stream(fit_it())
      u_after <- stats::runif(1)
      set.seed(42)
      ref_draw()
      expect_identical(stats::runif(1), u_after, label = info)

      expect_s3_class(res, "dp_mean")
      expect_identical(res$method, method)
      expect_identical(res$n, as.double(n))
      expect_identical(names(res$estimate),
                       if (input == "vector") "mean" else colnames(dat$m))
      expect_lte(max(abs(unname(res$estimate) - est)),
                 1e-10 * max(1, abs(est)))
      pr <- privacy(res)
      expect_s3_class(pr, "dpsco_privacy")
      expect_equal(pr$sensitivity, sens, tolerance = 1e-12, label = info)
      expect_equal(pr$noise_multiplier, z, tolerance = 1e-12, label = info)
      expect_equal(pr$noise_sd, z * sens, tolerance = 1e-12, label = info)
      expect_identical(pr$calibration, "accountant")
      expect_equal(pr$delta, delta, tolerance = 1e-15)   # default 0.1 / n
      expect_identical(pr$steps, 1)
      expect_identical(pr$sample_rate, 1)
      expect_lte(pr$epsilon_accounted, eps)
      expect_equal(pr$epsilon_accounted, dp_epsilon(z, 1, 1, delta),
                   tolerance = 1e-12)
      expect_identical(nrow(pr$not_covered), 0L)
      # the guarantee: add/remove one record at the public n; for a record
      # replaced, the analytic Gaussian at twice the sensitivity (mu = 2 / z)
      expect_identical(pr$public_n, as.double(n))
      expect_identical(pr$adjacency, paste("add/remove one record at the public size n =", n))
      expect_true(sprintf("n = %d, the number of records (not protected)", n) %in% pr$public)
      expect_equal(pr$epsilon_replace_one, gauss_eps_ref(2 / z, delta),
                   tolerance = 1e-8, label = info)
      expect_equal(pr$epsilon_replace_one, dp_epsilon(z / 2, 1, 1, delta),
                   tolerance = 1e-10, label = info)
      expect_match(pr$guarantee, sprintf(paste0(
        "(%s, %s)-differential privacy for data sets that differ by one ",
        "record added or removed, with the number of records n = %d treated ",
        "as public"), format(signif(pr$epsilon_accounted, 4)),
        format(signif(delta, 4)), n), fixed = TRUE)
      expect_match(pr$guarantee, sprintf("differ in one record, epsilon = %s at the same delta.",
                                         format(signif(pr$epsilon_replace_one, 4))),
                   fixed = TRUE)
      # the settings hold the public parameters actually used
      if (method == "holland") {
        expect_equal(res$settings$s, par$s, tolerance = 1e-14)
        expect_equal(res$settings$nu, par$nu, tolerance = 1e-14)
      }
      if (method == "kamath") {
        expect_equal(res$settings$rho, par$rho, tolerance = 1e-14)
        expect_identical(res$settings$k, as.integer(par$k))
      }
      if (method == "trimmed")
        expect_equal(res$settings$range, rng)
    }
  }
})

test_that("the estimators differ from the plain mean where they should", {
  # guards against a vacuous match: clipping, truncation and trimming are
  # active on these data (checked without noise via the references)
  dat <- mean_data()
  x <- dat$m
  n <- nrow(x)
  par <- ref_params("clip", n, 3, 1, 0.1 / n)
  expect_gt(max(abs(ref_estimate(x, "clip", par) - colMeans(x))), 0.1)
  par <- ref_params("holland", n, 3, 1, 0.1 / n)
  expect_gt(max(abs(ref_estimate(x, "holland", par) - colMeans(x))), 0.05)
  rng <- rbind(rep(-1, 3), rep(1, 3))
  expect_gt(max(abs(ref_estimate(x, "trimmed", list(range = rng)) -
                      colMeans(x))), 0.1)
})

test_that("user parameters and a user delta enter estimate and sensitivity", {
  dat <- mean_data(n = 25, seed = 5)
  x <- dat$m[, 1:2]
  n <- nrow(x)
  d <- 2
  eps <- 2
  del <- 1e-3
  cases <- list(
    list(method = "clip", ctl = dpsco_control(clip = 1.5),
         par = list(clip = 1.5)),
    # k = ceiling(3 log(2 d / zeta)) = 6 groups: the median of an even count
    list(method = "kamath", ctl = dpsco_control(rho = 3, zeta = 0.6),
         par = list(rho = 3, k = ceiling(3 * log(2 * 2 / 0.6)))),
    list(method = "holland", ctl = dpsco_control(s = 0.8, nu = 2),
         par = list(s = 0.8, nu = 2)))
  for (cs in cases) {
    set.seed(7)
    res <- dp_mean(x, method = cs$method, epsilon = eps, delta = del,
                   control = cs$ctl)
    z <- dp_noise_multiplier(eps, del, 1, 1)
    sens <- ref_sensitivity(cs$method, cs$par, n, d)
    set_fit_seed(7)
    labels <- if (cs$method == "kamath")
      vapply(seq_len(n), function(i) floor(stats::runif(1) * cs$par$k), 0)
    est <- ref_estimate(x, cs$method, cs$par, labels) + z * sens * rnorm(d)
    expect_lte(max(abs(unname(res$estimate) - est)), 1e-10 * max(1, abs(est)))
    expect_equal(privacy(res)$sensitivity, sens, tolerance = 1e-12)
    expect_equal(privacy(res)$noise_sd, z * sens, tolerance = 1e-12)
    expect_equal(privacy(res)$delta, del)
    if (cs$method == "kamath") expect_identical(res$settings$k, 6L)
  }
})

test_that("calibration = 'paper' uses the printed scales and reports what they deliver", {
  dat <- mean_data()
  x <- dat$v
  n <- length(x)
  eps <- 0.8
  del <- 1e-4
  for (method in c("clip", "kamath", "holland")) {
    set.seed(3)
    res <- dp_mean(x, method = method, epsilon = eps, delta = del,
                   calibration = "paper")
    pr <- privacy(res)
    base <- sqrt(log(1 / del)) / eps
    par <- ref_params(method, n, 1, eps, del)
    # k = ceiling(3 log 20) = 9 groups here: odd, the paper's own multiplier
    if (method == "kamath") expect_identical(as.integer(par$k), 9L)
    z <- if (method == "clip") base else 2 * base
    sens <- ref_sensitivity(method, par, n, 1)
    expect_identical(pr$calibration, "paper")
    expect_equal(pr$noise_multiplier, z, tolerance = 1e-12)
    expect_equal(pr$noise_sd, z * sens, tolerance = 1e-12)
    expect_equal(pr$epsilon_accounted, dp_epsilon(z, 1, 1, del),
                 tolerance = 1e-12)
    set_fit_seed(3)
    labels <- if (method == "kamath")
      vapply(seq_len(n), function(i) floor(stats::runif(1) * par$k), 0)
    est <- ref_estimate(matrix(x), method, par, labels) + z * sens * rnorm(1)
    expect_lte(abs(unname(res$estimate) - est), 1e-10 * max(1, abs(est)))
  }
  expect_error(dp_mean(x, "trimmed", range = c(-5, 5), calibration = "paper"),
               class = "dpsco_arg_error")
  cnd <- tryCatch(dp_mean(x, "trimmed", range = c(-5, 5), calibration = "paper"),
                  dpsco_arg_error = function(e) e)
  expect_identical(cnd$arg, "calibration")
})

test_that("kamath with an even number of groups: half the sensitivity, the paper's printed noise", {
  # zeta = 0.6, d = 1: k = ceiling(3 log(2 / 0.6)) = 4 groups, an even
  # count, so the median moves by at most half of one group's move
  dat <- mean_data()
  x <- dat$v
  n <- length(x)
  eps <- 0.8
  del <- 1e-4
  rho <- 2
  k <- ceiling(3 * log(2 / 0.6))
  expect_identical(k, 4)
  ctl <- dpsco_control(rho = rho, zeta = 0.6)
  # the printed sd of Algorithm 3 does not depend on the parity of k
  printed_sd <- rho * k * sqrt(log(1 / del)) / (n * eps)
  set.seed(4)
  res <- dp_mean(x, method = "kamath", epsilon = eps, delta = del,
                 calibration = "paper", control = ctl)
  pr <- privacy(res)
  expect_equal(pr$sensitivity, rho * k / (4 * n), tolerance = 1e-12)
  expect_equal(pr$noise_sd, printed_sd, tolerance = 1e-12)
  expect_equal(pr$noise_multiplier, 4 * sqrt(log(1 / del)) / eps,
               tolerance = 1e-12)
  # ... and the epsilon that noise delivers at the halved sensitivity
  expect_equal(pr$epsilon_accounted,
               dp_epsilon(4 * sqrt(log(1 / del)) / eps, 1, 1, del),
               tolerance = 1e-12)
  # the accountant's calibration gets half the noise sd of the odd-k bound
  set.seed(4)
  ra <- dp_mean(x, method = "kamath", epsilon = eps, delta = del, control = ctl)
  z <- dp_noise_multiplier(eps, del, 1, 1)
  expect_equal(privacy(ra)$noise_sd, z * rho * k / (4 * n), tolerance = 1e-12)
})

test_that("the noise of dp_mean has the recorded standard deviation", {
  # a constant column: every estimator's noise-free value is a constant, so
  # repeated releases scatter with the recorded noise sd (the C oracles share
  # one noise step, the trimmed mean has its own in R)
  x <- rep(0.5, 40)
  for (method in c("clip", "trimmed")) {
    set.seed(10)
    draws <- vapply(1:250, function(i) {
      r <- if (method == "trimmed") dp_mean(x, method, epsilon = 2, range = c(-1, 1))
           else dp_mean(x, method, epsilon = 2)
      unname(r$estimate)
    }, 0)
    r <- if (method == "trimmed") dp_mean(x, method, epsilon = 2, range = c(-1, 1))
         else dp_mean(x, method, epsilon = 2)
    sd_rec <- privacy(r)$noise_sd
    # 250 draws: the sample sd is within ~4.5% (1 se) of the truth
    expect_equal(stats::sd(draws), sd_rec, tolerance = 0.15, label = method)
    expect_lt(abs(mean(draws) - 0.5), 4 * sd_rec / sqrt(length(draws)))
  }
})

test_that("range is validated with dpsco_arg_errors naming 'range'", {
  dat <- mean_data()
  xv <- dat$v
  xm <- dat$m
  bad <- list(
    list(x = xv, range = c(1, 0)),               # lo > hi
    list(x = xv, range = c(1, 1)),               # lo == hi
    list(x = xv, range = c(0, NA)),
    list(x = xv, range = c(-Inf, 1)),
    list(x = xv, range = "a"),
    list(x = xv, range = c(0, 1, 2)),            # neither c(lo, hi) nor 2 x d
    list(x = xm, range = c(0, 1, 2)),
    list(x = xm[, 1:2], range = c(-1, 1, -2, 2, -3, 3)),     # 6 numbers, d = 2
    list(x = xm, range = matrix(c(0, 1, 2, 3), 2, 2)),        # 2 x 2, d = 3
    list(x = xm, range = matrix(c(0, 1, 2, 3, 4, 5), 3, 2)),  # 3 rows
    list(x = xm, range = rbind(c(0, 0, 1), c(1, 1, 0))))      # lo > hi in col 3
  for (b in bad) {
    lab <- paste("range =", deparse(b$range))
    cnd <- tryCatch(dp_mean(b$x, "trimmed", range = b$range),
                    dpsco_arg_error = function(e) e,
                    warning = function(w) w)
    expect_s3_class(cnd, "dpsco_arg_error")
    expect_identical(cnd$arg, "range", label = lab)
    expect_match(conditionMessage(cnd), "`range`", fixed = TRUE)
  }
  # valid forms: c(lo, hi) recycled over the columns, or a 2 x d matrix
  set.seed(1)
  r1 <- dp_mean(xm, "trimmed", range = c(-2, 2))
  set.seed(1)
  r2 <- dp_mean(xm, "trimmed", range = rbind(rep(-2, 3), rep(2, 3)))
  expect_identical(r1$estimate, r2$estimate)
  expect_identical(r1$privacy$sensitivity, sqrt(3 * 2^2) / nrow(xm))
  expect_true("range of each column" %in% privacy(r1)$public)
})

test_that("trimmed without a range warns, uses the data range and says so", {
  dat <- mean_data()
  x <- dat$m
  n <- nrow(x)
  expect_warning(res <- dp_mean(x, "trimmed", epsilon = 1),
                 class = "dpsco_privacy_warning")
  pr <- privacy(res)
  expect_gt(nrow(pr$not_covered), 0)
  expect_true(all(nzchar(pr$not_covered$reason)))
  expect_false("range of each column" %in% pr$public)
  rng <- apply(x, 2, range)
  expect_equal(res$settings$range, rng)
  expect_equal(pr$sensitivity, sqrt(sum(((rng[2, ] - rng[1, ]) / 2)^2)) / n,
               tolerance = 1e-12)
  # the format() of the record lists what is not covered
  expect_true(any(grepl("NOT covered", format(pr), fixed = TRUE)))
  # and so does the result's print(), with the fix
  out <- capture.output(print(res))
  expect_true(any(out == paste0(status_not_covered, ":")))
  expect_true(any(out == paste0("  - the range of each column was read from ",
                                "the data, as no range was given (fix: ",
                                "declare range = c(lo, hi), or a 2 x d ",
                                "matrix)")))
  pc <- capture.output(print(dp_mean(x, "trimmed", range = c(-9, 9))))
  expect_identical(pc[length(pc)], status_covered)
  # and reproduces: clamping to the data range leaves the plain mean
  set.seed(9)
  res2 <- suppressWarnings(dp_mean(x, "trimmed", epsilon = 1))
  set_fit_seed(9)
  z <- dp_noise_multiplier(1, 0.1 / n, 1, 1)
  est <- colMeans(x) + z * pr$sensitivity * rnorm(3)
  expect_lte(max(abs(unname(res2$estimate) - est)), 1e-10 * max(1, abs(est)))
  # no warning when a range is given, nor for the other methods
  expect_no_warning(dp_mean(x, "trimmed", range = c(-5, 5)))
  expect_no_warning(dp_mean(x, "holland"))
})

test_that("dp_mean checks its other arguments", {
  x <- mean_data()$v
  n <- length(x)
  cases <- list(
    list(call = quote(dp_mean(x, epsilon = 0)), arg = "epsilon"),
    list(call = quote(dp_mean(x, epsilon = Inf)), arg = "epsilon"),
    list(call = quote(dp_mean(x, delta = 1)), arg = "delta"),
    list(call = quote(dp_mean(x, delta = 0)), arg = "delta"),
    list(call = quote(dp_mean(x, control = list(clip = 1))), arg = "control"),
    list(call = quote(dp_mean(c(x, NA))), arg = "x"),
    list(call = quote(dp_mean(letters)), arg = "x"),
    # without public_n the rows are the public n: one row is too few
    list(call = quote(dp_mean(x[1])), arg = "x"),
    list(call = quote(dp_mean(x, public_n = 0)), arg = "public_n"),
    list(call = quote(dp_mean(x, public_n = 30.5)), arg = "public_n"),
    list(call = quote(dp_mean(x, public_n = NA)), arg = "public_n"),
    list(call = quote(dp_mean(x, public_n = Inf)), arg = "public_n"),
    list(call = quote(dp_mean(x, public_n = c(30, 31))), arg = "public_n"),
    # choices are matched exactly: an abbreviation is an error
    list(call = quote(dp_mean(x, method = "cl")), arg = "method"),
    list(call = quote(dp_mean(x, "clip", calibration = "acc")), arg = "calibration"))
  for (cs in cases) {
    cnd <- tryCatch(eval(cs$call), dpsco_arg_error = function(e) e)
    expect_s3_class(cnd, "dpsco_arg_error")
    expect_identical(cnd$arg, cs$arg, label = deparse(cs$call))
  }
  expect_error(dp_mean(x, method = "median"))
  expect_error(privacy(unclass(dp_mean(x))), class = "dpsco_arg_error")
  cnd <- tryCatch(dp_mean(x, method = "cl"), dpsco_arg_error = function(e) e)
  expect_match(conditionMessage(cnd), 'got "cl" (choices are matched exactly)',
               fixed = TRUE)
  # a delta of 1 / n or more (n the public n) is warned about, the default
  # 0.1 / n is not
  for (del in c(1 / n, 0.5, 1 / 100))
    expect_warning(dp_mean(x, "clip", delta = del,
                           public_n = if (del == 1 / 100) 100),
                   class = "dpsco_privacy_warning", label = paste(del))
  expect_no_warning(dp_mean(x, "clip"))
  expect_no_warning(dp_mean(x, "clip", delta = 0.99 / n))
  expect_no_warning(dp_mean(x, "clip", public_n = 1000, delta = 0.99 / 1000))
})

test_that("dp_mean(public_n =): the sums over the rows present, divided by the public n", {
  x <- mean_data()$v                            # 30 rows
  eps <- 1
  for (N in c(50, 12)) {
    delta <- 0.1 / N
    z <- dp_noise_multiplier(eps, delta, 1, 1)
    # clip: the clipped sum / N plus N(0, (z / N)^2)
    set.seed(21)
    res <- dp_mean(x, method = "clip", epsilon = eps, public_n = N)
    set_fit_seed(21)
    ref <- sum(pmin(pmax(x, -1), 1)) / N + z * (1 / N) * stats::rnorm(1)
    expect_equal(unname(res$estimate), ref, tolerance = 1e-12)
    expect_equal(privacy(res)$sensitivity, 1 / N, tolerance = 1e-15)
    expect_equal(privacy(res)$noise_sd, z / N, tolerance = 1e-12)
    expect_equal(privacy(res)$delta, delta, tolerance = 1e-15)
    expect_identical(res$n, as.double(N))
    # trimmed: the midpoint plus the centred clamped sum / N
    set.seed(22)
    res <- dp_mean(x, method = "trimmed", epsilon = eps, public_n = N,
                   range = c(-1, 3))
    set_fit_seed(22)
    ref <- 1 + sum(pmin(pmax(x, -1), 3) - 1) / N + z * (2 / N) * stats::rnorm(1)
    expect_equal(unname(res$estimate), ref, tolerance = 1e-12)
    out <- capture.output(print(res))
    expect_match(out[1], sprintf("mean of %d records", N), fixed = TRUE)
  }
  # the noise sd scales as 1 / public_n at a fixed delta
  sds <- vapply(c(40, 80, 160), function(N)
    privacy(dp_mean(x, "clip", delta = 1e-4, public_n = N))$noise_sd, 0)
  expect_equal(sds * c(40, 80, 160), rep(sds[1] * 40, 3), tolerance = 1e-12)
  # no rows, or one: a release (of the public record's value plus noise),
  # not an error that would depend on the data
  for (method in c("holland", "kamath", "clip", "trimmed")) {
    rng <- if (method == "trimmed") c(-1, 3)
    for (xx in list(numeric(0), 2.5, matrix(0, 0, 2), matrix(c(2.5, -4), 1))) {
      info <- paste(method, length(xx))
      set.seed(23)
      res <- dp_mean(xx, method, public_n = 50, range = rng)
      expect_s3_class(res, "dp_mean")
      expect_identical(res$n, 50)
      expect_length(res$estimate, NCOL(xx))
      expect_true(all(is.finite(res$estimate)), label = info)
      z <- dp_noise_multiplier(1, 0.1 / 50, 1, 1)
      expect_equal(privacy(res)$noise_multiplier, z, tolerance = 1e-12)
      if (method %in% c("clip", "trimmed")) {
        set_fit_seed(23)
        xm <- matrix(xx, ncol = NCOL(xx))
        par <- ref_params(method, 50, ncol(xm), 1, 0.1 / 50, rbind(rep(-1, ncol(xm)), rep(3, ncol(xm))))
        sens <- ref_sensitivity(method, par, 50, ncol(xm))
        ref <- ref_estimate(xm, method, par, n = 50) + z * sens * stats::rnorm(ncol(xm))
        expect_equal(unname(res$estimate), ref, tolerance = 1e-12, label = info)
      }
    }
  }
})

test_that("print.dp_mean shows the target, noise sd and estimates", {
  x <- mean_data()$v
  set.seed(2)
  res <- dp_mean(x, "clip", epsilon = 1.5)
  out <- NULL
  txt <- capture.output(out <- withVisible(print(res)))
  expect_false(out$visible)
  expect_identical(out$value, res)
  expect_match(txt[1], sprintf("Private clip mean of %d records", length(x)),
               fixed = TRUE)
  expect_match(txt[1], "(epsilon, delta) = (1.5, ", fixed = TRUE)
  expect_match(txt[1], format(signif(privacy(res)$noise_sd, 4)), fixed = TRUE)
  expect_true(any(grepl(format(signif(unname(res$estimate), 4)), txt,
                        fixed = TRUE)))
  # the record's format shows one step and no budget shares
  f <- format(privacy(res))
  expect_true(any(f == "Steps: 1"))
  expect_false(any(grepl("Budget shares", f, fixed = TRUE)))
})

test_that("dp_mean(secure = TRUE): the estimate on its grid, zCDP accounting", {
  set.seed(33)
  x <- cbind(stats::rt(500, df = 3), stats::rt(500, df = 3) + 5)
  seed <- rng_state()
  for (method in c("holland", "kamath", "clip", "trimmed")) {
    # (its own stream switched off: the release draws nothing from R's)
    m <- without_fit_stream(
      dp_mean(x, method, epsilon = 1, delta = 1e-5,
              range = if (method == "trimmed") c(-10, 10), secure = TRUE))
    pr <- privacy(m)
    expect_match(pr$noise, "discrete Gaussian")
    expect_equal(unname(m$estimate / pr$noise_grid),
                 round(unname(m$estimate / pr$noise_grid)))
    # plain-R Renyi accounting of one Gaussian release, optimised over the
    # package's orders
    a <- c(seq(1.1, 10.9, by = 0.1), 12:63)
    ref <- min(a / (2 * pr$noise_multiplier^2) + log((a - 1) / a) -
                 (log(1e-5) + log(a)) / (a - 1))
    expect_equal(pr$epsilon_accounted, ref, tolerance = 1e-9)
    expect_lte(pr$epsilon_accounted, 1)
  }
  expect_identical(rng_state(), seed)
  # the noise is that of the record: the spread of repeated releases
  reps <- replicate(400, dp_mean(x[, 1], "trimmed", epsilon = 1, delta = 1e-5,
                                 range = c(-10, 10), secure = TRUE)$estimate)
  sd_ref <- privacy(dp_mean(x[, 1], "trimmed", epsilon = 1, delta = 1e-5,
                            range = c(-10, 10), secure = TRUE))$noise_sd
  expect_equal(stats::sd(reps), sd_ref, tolerance = 0.15)
})
