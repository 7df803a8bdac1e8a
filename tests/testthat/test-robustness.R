# Numerical robustness and reproducibility of dpsco().
#
# Extreme data -- values up to 1e12 in x or y, all-zero columns, perfectly
# separable classes, p > n -- must give finite fits whose privacy record is
# exactly the record of a benign data set of the same shape (the record may
# depend on public quantities only).  The fits themselves are checked
# against plain-R computations: a full-batch reference path written from the
# algorithm's description (oracles, noise, proximal step, averaging, warm
# starts), the closed-form path of a coefficient whose data gradient is
# exactly zero, the analytic Gaussian composition for the noise multipliers,
# and glmnet for method "none".
#
# Reproducibility: all random draws come from R's generator in a fixed
# order, before the pass over a batch; the pass is cut into `threads`
# chunks whose sums are added in chunk order.  A seed and `threads`
# therefore fix a fit bit for bit, whatever number of OpenMP threads runs
# the chunks.

rob_data <- function(n = 40, p = 4, seed = 1) {
  set.seed(seed)
  x <- matrix(stats::runif(n * p, -1, 1), n, p)
  eta <- drop(x %*% c(1, -1, 0.5, rep(0, p - 3)))
  list(x = x, yg = eta + stats::rnorm(n),
       yb = as.numeric(stats::runif(n) < stats::plogis(eta)))
}

# Extreme versions of a benign data set, same shape: a whole column on the
# 1e12 scale plus a single -1e12 entry, responses of +-1e12, an all-zero
# column, perfectly separable classes (also with the 1e12 column).
extreme_sets <- function(d) {
  x <- d$x
  big_x <- x
  big_x[, 1] <- big_x[, 1] * 1e12
  big_x[2, 3] <- -1e12
  big_y <- d$yg
  big_y[c(1, 5)] <- c(1e12, -1e12)
  zero <- x
  zero[, 2] <- 0
  list(
    gaussian = list(big_x = list(big_x, d$yg), big_y = list(x, big_y),
                    big_xy = list(big_x, big_y), zero = list(zero, d$yg)),
    binomial = list(big_x = list(big_x, d$yb), zero = list(zero, d$yb),
                    separable = list(x, as.numeric(x[, 1] - x[, 2] > 0)),
                    big_separable = list(big_x, as.numeric(x[, 1] > 0))))
}

# the engine's path, before the support rule (tested in test-support.R)
raw_beta <- function(fit) if (is.null(fit$support)) fit$beta else fit$support$beta_raw
fit_matrix <- function(fit) rbind(fit$a0, unname(raw_beta(fit)))

all_finite <- function(fit) all(is.finite(fit$beta)) && all(is.finite(fit$a0))

# Closed forms of the record of a full-batch (q = 1) fit, written from the
# documentation: per-lambda budget (share * epsilon / K, share * delta / K),
# the oracles' sensitivities with the paper's default rho and s, the paper's
# printed multipliers, and the accountant's z checked against the analytic
# Gaussian composition of every step (and of the three private
# standardisation releases, which have their own z).
expect_record_closed_form <- function(pr, method, n, d, K, T, eps, delta,
                                      calibration, std_private, info) {
  share <- if (std_private) 0.9 else 1
  eK <- share * eps / K
  dK <- share * delta / K
  k <- min(ceiling(3 * log(2 * d / 0.1)), n)
  sens <- switch(method,
    clip = 1 / n,
    kamath = {
      rho <- (eK * n / sqrt(d * log(1 / dK)))^(1 / 2)
      # halved for an even number of groups
      rho * k * sqrt(d) * median_factor_ref(k) / (2 * n)
    },
    holland = {
      s <- sqrt(n * eK) / (log(1 / 0.1) * log(1 / dK)^(1 / 4))
      2 * sqrt(2) * s * sqrt(d) / (3 * n)
    })
  z <- pr$noise_multiplier
  opt <- nrow(pr$shares)
  expect_equal(
    c(pr$sensitivity, pr$noise_sd, pr$sample_rate, pr$steps, pr$nlambda,
      pr$shares$steps[opt], pr$shares$share[opt]),
    c(sens, z * sens, 1, T, K, K * T, share), tolerance = 1e-12, label = info)
  mu2_std <- 0
  tight <- logical(0)
  if (std_private) {
    zs <- pr$shares$noise_multiplier[1]
    expect_identical(pr$shares$part, c("standardize", "optimizer"))
    # the standardisation's three releases spend 0.1 of the mu^2 of the
    # single release that meets (epsilon, delta) tightly
    mu1 <- sqrt(3 / 0.1) / zs
    tight <- c(gauss_delta_ref(eps, mu1) <= delta * (1 + 1e-9),
               gauss_delta_ref(eps, mu1 / (1 - 1e-5)) > delta)
    mu2_std <- 3 / zs^2
  }
  # k steps with multiplier z compose to a Gaussian mechanism of
  # mu = sqrt(k) / z (sensitivity over noise sd)
  mu <- function(z) sqrt(mu2_std + K * T / z^2)
  if (calibration == "paper") {
    base <- sqrt(log(1 / dK)) / eK
    expect_equal(z, switch(method, clip = base, holland = 2 * base,
                           kamath = 2 * base / median_factor_ref(k)),
                 tolerance = 1e-12, label = info)
    # i.e. the paper's printed noise sd
    if (method == "kamath")
      expect_equal(pr$noise_sd, (eK * n / sqrt(d * log(1 / dK)))^(1 / 2) * k *
                     sqrt(d * log(1 / dK)) / (n * eK), tolerance = 1e-12,
                   label = info)
  } else {
    # the smallest z whose composition of every step meets the target
    tight <- c(tight, gauss_delta_ref(eps, mu(z)) <= delta * (1 + 1e-9),
               gauss_delta_ref(eps, mu(z * (1 - 1e-5))) > delta)
  }
  expect_true(all(tight), label = info)
  # the reported epsilon is the one the whole release delivers at delta
  expect_equal(gauss_delta_ref(pr$epsilon_accounted, mu(z)), delta,
               tolerance = 1e-6, label = info)
}

# ---- the privacy record does not depend on the data ------------------------

test_that("extreme data leave the privacy record, grid and settings unchanged", {
  n <- 40
  p <- 4
  d0 <- rob_data(n, p, seed = 11)
  sets <- extreme_sets(d0)
  # every kind of extreme value per family (each data set alone is checked
  # for finiteness against the reference paths below)
  sets$gaussian[c("big_x", "big_y")] <- NULL
  sets$binomial[c("big_x", "separable")] <- NULL
  # p > n: a benign and an extreme wide data set of the same shape (the 1e12
  # column, a zero column and +-1e12 responses or separable classes)
  w0 <- rob_data(20, 50, seed = 12)
  xw <- extreme_sets(w0)$gaussian$big_x[[1]]
  xw[, 7] <- 0
  yw <- list(gaussian = extreme_sets(w0)$gaussian$big_y[[2]],
             binomial = as.numeric(w0$x[, 1] > 0))
  eps <- 2
  delta <- 1e-3
  pub <- list(center = c(0.1, 0, -0.2, 0), scale = c(2, 1, 0.5, 3))
  configs <- list(
    list(calibration = "accountant", standardize = FALSE, wide = TRUE),
    list(calibration = "paper", standardize = pub, wide = FALSE),
    list(calibration = "accountant", standardize = "private", wide = FALSE))
  public_part <- c("lambda", "settings", "privacy")
  for (method in c("clip", "kamath", "holland")) {
    for (family in c("gaussian", "binomial")) {
      for (cf in configs) {
        run <- function(x, y) {
          set.seed(3)
          dpsco(tuning = "public", x, y, family = family, method = method, epsilon = eps,
                delta = delta, nlambda = 3, calibration = cf$calibration,
                standardize = cf$standardize)
        }
        ref <- run(d0$x, if (family == "gaussian") d0$yg else d0$yb)
        private_std <- identical(cf$standardize, "private")
        info <- paste(method, family, cf$calibration,
                      if (is.list(cf$standardize)) "public" else cf$standardize)
        # default T = 5 at full batches, d = p + 1
        expect_record_closed_form(privacy(ref), method, n, p + 1, 3, 5, eps,
                                  delta, cf$calibration, private_std, info)
        fits <- lapply(sets[[family]], function(dat) run(dat[[1]], dat[[2]]))
        if (cf$wide) {
          wref <- run(w0$x, if (family == "gaussian") w0$yg else w0$yb)
          expect_record_closed_form(privacy(wref), method, 20, 51, 3, 5, eps,
                                    delta, cf$calibration, private_std,
                                    paste(info, "p > n"))
          wfit <- run(xw, yw[[family]])
          expect_identical(wfit[public_part], wref[public_part],
                           label = paste(info, "p > n"))
          fits <- c(fits, list(wref, wfit))
        }
        expect_true(all(vapply(c(list(ref), fits), all_finite, NA)),
                    label = info)
        for (nm in names(sets[[family]]))
          expect_identical(fits[[nm]][public_part], ref[public_part],
                           label = paste(info, nm))
      }
    }
  }
})

test_that("with Poisson sampling too, the record ignores the data values", {
  d0 <- rob_data(60, 4, seed = 13)
  sets <- extreme_sets(d0)
  run <- function(x, y, family, calibration) {
    dpsco(tuning = "public", x, y, family = family, method = "holland", epsilon = 1,
          nlambda = 2, batch_size = 15, iterations = 6,
          calibration = calibration)
  }
  for (cal in c("accountant", "paper")) {
    ref <- run(d0$x, d0$yg, "gaussian", cal)
    pr <- privacy(ref)
    expect_identical(pr$sample_rate, 0.25)
    if (cal == "accountant") expect_lte(pr$epsilon_accounted, 1)
    big <- run(sets$gaussian$big_xy[[1]], sets$gaussian$big_xy[[2]],
               "gaussian", cal)
    expect_true(all_finite(big))
    expect_identical(privacy(big), pr)
    if (cal == "paper") {
      # nor on the family: the binomial fits carry the very same record
      for (dat in sets$binomial) {
        fit <- run(dat[[1]], dat[[2]], "binomial", cal)
        expect_true(all_finite(fit))
        expect_identical(privacy(fit), pr)
      }
    }
  }
})

# ---- full-batch reference path ---------------------------------------------

# Private SPGD at sampling rate 1 (every record in every step, so the only
# draws are Kamath's labels, one runif per record as it is visited, then one
# rnorm per gradient coordinate, intercept first), written from the
# algorithm's description.  Returns the path and, per step, the norm of the
# standard normal noise vector.
ref_full <- function(x, y, family, method, lambda, steps, step, noise_sd,
                     par) {
  n <- nrow(x)
  p <- ncol(x)
  d <- p + 1
  X1 <- cbind(1, x)
  beta <- numeric(d)
  out <- matrix(0, d, length(lambda))
  noise_norm <- numeric(0)
  for (l in seq_along(lambda)) {
    avg <- numeric(d)
    for (t in seq_len(steps)) {
      labels <- if (method == "kamath") floor(stats::runif(n) * par$k)
      eta <- drop(X1 %*% beta)
      r <- if (family == "gaussian") eta - y else stats::plogis(eta) - y
      G <- r * X1
      est <- switch(method,
        none = colSums(G),
        clip = {
          nrm <- sqrt(rowSums(G^2))
          colSums(G * ifelse(nrm > par$clip, par$clip / nrm, 1))
        },
        kamath = {
          v <- pmin(pmax(G, -par$rho / 2), par$rho / 2)
          sums <- matrix(0, par$k, d)  # empty groups count, as zeros
          for (g in unique(labels))
            sums[g + 1, ] <- colSums(v[labels == g, , drop = FALSE])
          apply(sums * par$k, 2, stats::median)
        },
        holland = colSums(matrix(par$s * h_ref(G / par$s, par$nu), n, d))
      ) / n
      xi <- if (method == "none") numeric(d) else stats::rnorm(d)
      noise_norm <- c(noise_norm, sqrt(sum(xi^2)))
      est <- est + noise_sd * xi
      beta[1] <- beta[1] - step * est[1]
      u <- beta[-1] - step * est[-1]
      beta[-1] <- sign(u) * pmax(abs(u) - step * lambda[l], 0)
      avg <- avg + (beta - avg) / t
    }
    beta <- avg
    out[, l] <- beta
  }
  list(beta = out, noise_norm = noise_norm)
}

test_that("on 1e12 values and separable classes the fits are the reference paths, with bounded steps", {
  d0 <- rob_data(24, 3, seed = 21)
  sets <- extreme_sets(d0)
  lambda <- c(0.2, 0.02)
  steps <- 4
  step <- 0.5
  for (family in c("gaussian", "binomial")) {
    for (nm in names(sets[[family]])) {
      if (nm == "zero") next
      dat <- sets[[family]][[nm]]
      # Holland's reference integrates each contribution numerically: two
      # data sets suffice for it
      methods <- c("clip", "kamath",
                   if (nm %in% c("big_xy", "big_separable")) "holland")
      for (method in methods) {
        info <- paste(method, family, nm)
        set.seed(4)
        fit <- dpsco(tuning = "public", dat[[1]], dat[[2]], family = family, method = method,
                     epsilon = 2, lambda = lambda, iterations = steps,
                     step_size = step, calibration = "paper")
        set_fit_seed(4)
        ref <- ref_full(dat[[1]], dat[[2]], family, method, lambda, steps,
                        step, fit$privacy$noise_sd, fit$settings)
        got <- fit_matrix(fit)
        expect_true(all_finite(fit), label = info)
        expect_lte(max(abs(got - ref$beta)), 1e-9 * max(1, abs(ref$beta)))
        # Whatever the data values, each released gradient is the oracle's
        # bounded estimate plus noise, and the prox never increases a norm:
        # ||beta_t|| <= sum over steps of step * (oracle bound + sd ||xi||).
        d <- ncol(dat[[1]]) + 1
        st <- fit$settings
        bound <- switch(method, clip = st$clip,
                        kamath = sqrt(d) * st$k * st$rho / 2,
                        holland = sqrt(d) * st$s * 2 * sqrt(2) / 3)
        cum <- cumsum(step * (bound + fit$privacy$noise_sd * ref$noise_norm))
        expect_true(all(sqrt(colSums(got^2)) <= cum[steps * seq_along(lambda)]),
                    label = info)
      }
    }
  }
})

test_that("entries up to the largest double still give bounded steps", {
  d0 <- rob_data(24, 3, seed = 22)
  big <- .Machine$double.xmax
  x <- d0$x
  x[, 1] <- x[, 1] * big
  x[3, 2] <- -big
  yg <- d0$yg
  yg[2] <- big
  for (family in c("gaussian", "binomial")) {
    y <- if (family == "gaussian") yg else as.numeric(x[, 1] > 0)
    for (method in c("clip", "kamath", "holland")) {
      set.seed(5)
      fit <- dpsco(tuning = "public", x, y, family = family, method = method, epsilon = 2,
                   lambda = c(0.2, 0.02), iterations = 4, step_size = 0.5,
                   calibration = "paper")
      expect_true(all_finite(fit), label = paste(method, family))
      # replay the noise (full batches: Kamath's labels, then d normals)
      set.seed(5)
      xi <- vapply(1:8, function(t) {
        if (method == "kamath") stats::runif(nrow(x))
        sqrt(sum(stats::rnorm(4)^2))
      }, 0)
      st <- fit$settings
      bound <- switch(method, clip = st$clip, kamath = 2 * st$k * st$rho / 2,
                      holland = 2 * st$s * 2 * sqrt(2) / 3)  # sqrt(d) = 2
      cum <- cumsum(0.5 * (bound + fit$privacy$noise_sd * xi))
      expect_true(all(sqrt(colSums(fit_matrix(fit)^2)) <= cum[c(4, 8)]),
                  label = paste(method, family))
    }
  }
})

test_that("method none: 1e12 values need a matching scale; y outliers and separable data match glmnet", {
  skip_if_not_installed("glmnet")
  d0 <- rob_data(40, 4, seed = 31)
  sets <- extreme_sets(d0)
  x <- d0$x
  n <- nrow(x)
  L <- max(eigen(crossprod(cbind(1, x)) / n, symmetric = TRUE,
                 only.values = TRUE)$values)
  # x entries of 1e12 with the default step for [-1, 1] data: the plain
  # gradient is unbounded, the iterates overflow and a warning says so
  expect_warning(f <- dpsco(tuning = "public", sets$gaussian$big_x[[1]], d0$yg, method = "none",
                            lambda = 0.01, iterations = 50),
                 "diverged")
  expect_false(all_finite(f))
  # a column on the 1e12 scale with that scale declared public is the
  # benign problem: glmnet on x / scale, coefficients divided by the scale
  xc <- x
  xc[, 1] <- xc[, 1] * 1e12
  sc <- c(1e12, 1, 1, 1)
  fit <- dpsco(tuning = "public", xc, d0$yg, method = "none", lambda = 0.05, iterations = 3000,
               step_size = 1 / L, standardize = list(scale = sc),
               control = dpsco_control(output = "last"))
  g <- glmnet::glmnet(sweep(xc, 2, sc, "/"), d0$yg, lambda = 0.05,
                      standardize = FALSE, thresh = 1e-14, maxit = 1e6)
  gb <- as.numeric(glmnet::coef.glmnet(g))
  expect_lt(max(abs(c(fit$a0, fit$beta[, 1] * sc) - gb)), 1e-6)
  # responses of +-1e12: least squares follows them (coefficients ~ 1e10),
  # finite, the same lasso solution as glmnet's to 1e-7 relative
  yb <- sets$gaussian$big_y[[2]]
  fit <- dpsco(tuning = "public", x, yb, method = "none", lambda = c(1e9, 1e8),
               iterations = 3000, step_size = 1 / L,
               control = dpsco_control(output = "last"))
  g <- glmnet::glmnet(x, yb, lambda = c(1e9, 1e8), standardize = FALSE,
                      thresh = 1e-14, maxit = 1e6)
  gb <- as.matrix(glmnet::coef.glmnet(g))
  expect_true(all_finite(fit))
  expect_gt(max(abs(fit$beta)), 1e10)
  expect_lt(max(abs(fit_matrix(fit) - unname(gb))), 1e-7 * max(abs(gb)))
  # perfectly separable classes: the l1 penalty keeps the solution finite,
  # F(beta) <= F(0) <= log 2 bounds ||beta||_1 by log(2) / lambda, and the
  # fit is glmnet's
  ys <- sets$binomial$separable[[2]]
  for (lam in c(0.05, 0.01)) {
    fit <- dpsco(tuning = "public", x, ys, family = "binomial", method = "none", lambda = lam,
                 iterations = 4000, step_size = 4 / L,
                 control = dpsco_control(output = "last"))
    g <- glmnet::glmnet(x, ys, family = "binomial", lambda = lam,
                        standardize = FALSE, thresh = 1e-14, maxit = 1e6)
    gb <- as.numeric(glmnet::coef.glmnet(g))
    expect_lt(max(abs(c(fit$a0, fit$beta) - gb)), 1e-5)
    eta <- fit$a0 + drop(x %*% fit$beta)
    obj <- mean(log1p(exp(eta)) - ys * eta) + lam * sum(abs(fit$beta))
    expect_lte(obj, log(2))
    expect_lte(sum(abs(fit$beta)), log(2) / lam)
  }
  # along the default path down to lambda_max / 1e4 the averaged iterates
  # stay finite: |r| <= 1, so T steps move beta by at most T step max||(1, x_i)||
  fit <- dpsco(tuning = "public", x, ys, family = "binomial", method = "none", nlambda = 5,
               iterations = 200, step_size = 4 / L)
  expect_true(all_finite(fit))
  move <- 200 * (4 / L) * max(sqrt(1 + rowSums(x^2)))
  expect_true(all(sqrt(colSums(fit_matrix(fit)^2)) <= move * seq_len(5)))
})

# ---- all-zero columns ------------------------------------------------------

# The coefficient of a column whose standardised values are all zero:
# every oracle's estimate of its gradient is exactly 0 (a zero contribution
# from every record), so its path is the prox of pure noise, replayed from
# the generator: `skip` normals first (private standardisation), then per
# step `n` uniforms (Kamath's labels) when `labels` and `d` normals.
zero_col_path <- function(j, d, n, lambda, steps, step, noise_sd,
                          labels = FALSE, skip = 0) {
  if (skip) stats::rnorm(skip)
  b <- 0
  out <- numeric(length(lambda))
  for (l in seq_along(lambda)) {
    avg <- 0
    for (t in seq_len(steps)) {
      if (labels) stats::runif(n)
      xi <- stats::rnorm(d)[j + 1]
      u <- b - step * noise_sd * xi
      b <- sign(u) * max(abs(u) - step * lambda[l], 0)
      avg <- avg + (b - avg) / t
    }
    b <- avg
    out[l] <- b
  }
  out
}

test_that("a zero column's coefficient is the prox of pure noise", {
  d0 <- rob_data(40, 4, seed = 41)
  x <- d0$x
  x[, 2] <- 0
  n <- nrow(x)
  lambda <- c(0.3, 0.03, 0.003)
  pub <- list(center = c(0.1, 0, -0.2, 0), scale = c(2, 4, 0.5, 3))
  for (method in c("clip", "kamath", "holland")) {
    for (family in c("gaussian", "binomial")) {
      for (std in list(FALSE, pub)) {
        y <- if (family == "gaussian") d0$yg else d0$yb
        set.seed(5)
        fit <- dpsco(tuning = "public", x, y, family = family, method = method, epsilon = 1,
                     lambda = lambda, iterations = 6, step_size = 0.5,
                     calibration = "paper", standardize = std)
        set_fit_seed(5)
        b <- zero_col_path(2, 5, n, lambda, 6, 0.5, fit$privacy$noise_sd,
                           labels = method == "kamath")
        scl <- if (is.list(std)) 4 else 1
        info <- paste(method, family, is.list(std))
        expect_equal(unname(raw_beta(fit)[2, ]), b / scl, tolerance = 1e-12,
                     label = info)
        # pure noise: not zero along the whole path
        expect_gt(max(abs(b)), 0)
      }
    }
  }
})

test_that("private standardisation leaves an all-zero column unscaled", {
  # Regression test: the column's noisy variance used to set its scale to
  # ~2^-30 times the root of pure noise, so its (noise-only) coefficient came
  # out around 1e5-1e8 on the original scale.  Large n: the zero column's
  # histogram count clears the noise in the lowest bin (2^-30).
  set.seed(6)
  n <- 3000
  p <- 3
  x <- matrix(stats::runif(n * p, -1, 1), n, p)
  x[, 3] <- 0
  y <- drop(x %*% c(1, -1, 0)) + stats::rnorm(n)
  lambda <- c(1e-3, 1e-4)
  for (method in c("clip", "holland")) {
    set.seed(7)
    fit <- dpsco(tuning = "public", x, y, method = method, epsilon = 2, lambda = lambda,
                 iterations = 5, step_size = 0.5, standardize = "private")
    expect_identical(fit$standardize$center[3], 0)
    expect_identical(fit$standardize$scale[3], 1)
    # the other columns are standardised (sd of U(-1, 1) is 0.577)
    expect_lt(max(abs(fit$standardize$scale[1:2] - 1 / sqrt(3))), 0.1)
    # after the standardisation's draws (a 62-bin histogram per column and
    # two means), the coefficient is the prox of the optimiser's noise
    set_fit_seed(7)
    b <- zero_col_path(3, 4, n, lambda, 5, 0.5, fit$privacy$noise_sd,
                       skip = 64 * p)
    expect_equal(unname(raw_beta(fit)[3, ]), b, tolerance = 1e-12)
    expect_gt(max(abs(b)), 0)
    expect_lt(max(abs(raw_beta(fit)[3, ])), 0.1)
  }
  # the bin-range limit: a column whose bulk lies beyond 2^31 gets its bound
  # (and so its scale) saturated near 2^31, not its true sd of ~5.8e11
  xb <- x
  xb[, 1] <- xb[, 1] * 1e12
  set.seed(8)
  fit <- dpsco(tuning = "public", xb, y, method = "clip", epsilon = 2, nlambda = 2,
               standardize = "private")
  expect_true(all_finite(fit))
  expect_lte(fit$standardize$scale[1], 2^31 * 1.05)
  expect_gt(fit$standardize$scale[1], 2^31 * 0.9)
})

test_that("method none: a zero column stays exactly 0 and changes nothing else", {
  skip_if_not_installed("glmnet")
  d0 <- rob_data(40, 4, seed = 51)
  x0 <- cbind(d0$x[, 1:2], 0, d0$x[, 3:4])
  n <- nrow(x0)
  L <- max(eigen(crossprod(cbind(1, d0$x)) / n, symmetric = TRUE,
                 only.values = TRUE)$values)
  for (family in c("gaussian", "binomial")) {
    y <- if (family == "gaussian") d0$yg else d0$yb
    step <- if (family == "gaussian") 1 / L else 4 / L
    fit0 <- dpsco(tuning = "public", x0, y, family = family, method = "none", nlambda = 4,
                  iterations = 3000, step_size = step,
                  control = dpsco_control(output = "last"))
    expect_identical(unname(fit0$beta[3, ]), rep(0, 4))
    # the same path as without the column (same lambda grid), to rounding:
    # the column shifts which partial sum of x'beta each term joins
    fit <- dpsco(tuning = "public", d0$x, y, family = family, method = "none",
                 lambda = fit0$lambda, iterations = 3000, step_size = step,
                 control = dpsco_control(output = "last"))
    expect_equal(fit0$lambda, fit$lambda, tolerance = 1e-15)
    expect_equal(unname(fit0$beta[-3, ]), unname(fit$beta), tolerance = 1e-12)
    expect_equal(fit0$a0, fit$a0, tolerance = 1e-12)
    # and glmnet's solution, where the zero column is 0 too
    g <- glmnet::glmnet(x0, y, family = family, lambda = fit0$lambda[3],
                        standardize = FALSE, thresh = 1e-14, maxit = 1e6)
    gb <- as.numeric(glmnet::coef.glmnet(g))
    expect_identical(gb[4], 0)
    expect_lt(max(abs(c(fit0$a0[3], fit0$beta[, 3]) - gb)), 1e-6)
  }
})

# ---- p > n -----------------------------------------------------------------

test_that("p > n: method none matches glmnet, private noise grows as sqrt(d)", {
  skip_if_not_installed("glmnet")
  set.seed(61)
  n <- 25
  p <- 60
  x <- matrix(stats::runif(n * p, -1, 1), n, p)
  y <- drop(x[, 1:3] %*% c(2, -2, 1)) + stats::rnorm(n, sd = 0.3)
  L <- max(eigen(crossprod(cbind(1, x)) / n, symmetric = TRUE,
                 only.values = TRUE)$values)
  fit <- dpsco(tuning = "public", x, y, method = "none", lambda = 0.1, iterations = 20000,
               step_size = 1 / L, control = dpsco_control(output = "last"))
  g <- glmnet::glmnet(x, y, lambda = 0.1, standardize = FALSE,
                      thresh = 1e-15, maxit = 1e7)
  gb <- as.numeric(glmnet::coef.glmnet(g))
  expect_lt(max(abs(c(fit$a0, fit$beta[, 1]) - gb)), 1e-5)
  expect_identical(sum(fit$beta != 0), sum(gb[-1] != 0))
  expect_lt(sum(gb[-1] != 0), n)
  # the private oracles: Holland's and Kamath's sensitivities carry
  # sqrt(d) (noise sd per coordinate), clipping's does not (its noise vector
  # grows in norm as sqrt(d)); the noise multiplier is the same
  fits <- lapply(c(4, p), function(pp) lapply(
    c(clip = "clip", holland = "holland", kamath = "kamath"), function(m) {
      set.seed(9)
      dpsco(tuning = "public", x[, seq_len(pp)], y, method = m, epsilon = 1, nlambda = 2,
            control = switch(m, kamath = dpsco_control(rho = 2),
                             holland = dpsco_control(s = 1), dpsco_control()))
    }))
  for (m in c("clip", "holland", "kamath")) {
    small <- privacy(fits[[1]][[m]])
    wide <- privacy(fits[[2]][[m]])
    expect_true(all_finite(fits[[2]][[m]]))
    expect_identical(wide$noise_multiplier, small$noise_multiplier)
    k_ratio <- if (m == "kamath")
      min(ceiling(3 * log(2 * 61 / 0.1)), n) / min(ceiling(3 * log(2 * 5 / 0.1)), n)
      else 1
    ratio <- if (m == "clip") 1 else sqrt(61 / 5) * k_ratio
    expect_equal(wide$noise_sd / small$noise_sd, ratio, tolerance = 1e-12)
  }
})

# ---- reproducibility --------------------------------------------------------

test_that("a seed reproduces every fit bit for bit; the trace draws nothing", {
  d0 <- rob_data(60, 4, seed = 71)
  for (method in c("clip", "kamath", "holland", "none")) {
    stds <- list(FALSE, if (method == "none") TRUE else "private")
    for (family in c("gaussian", "binomial")) {
      y <- if (family == "gaussian") d0$yg else d0$yb
      for (std in stds) {
        info <- paste(method, family, format(std))
        # a 3-lambda path, each lambda warm-started from the previous
        # output; Poisson batches (q = 1/2, so the sampler draws too) without
        # standardisation, full batches with it (cheaper accounting)
        m <- if (isFALSE(std)) 30 else 60
        # `bare`: the fit's own stream (R/rng.R) switched off, so that
        # .Random.seed shows where the fit leaves the generator
        run <- function(seed, trace = FALSE, bare = FALSE) {
          set.seed(seed)
          fit_it <- function()
            dpsco(tuning = "public", d0$x, y, family = family, method = method, epsilon = 2,
                  nlambda = 3, batch_size = m, iterations = 5,
                  step_size = 0.5, calibration = "paper",
                  standardize = std, trace = trace)
          f <- if (bare) without_fit_stream(fit_it()) else fit_it()
          f$call <- NULL
          list(fit = f, seed = .Random.seed)
        }
        a <- run(1)
        expect_identical(run(1), a, label = info)
        tr <- if (isFALSE(std)) TRUE else c(2, 5)
        ta <- run(1, trace = tr)
        # the generator ends where it ends without a trace
        expect_identical(run(1, trace = tr, bare = TRUE)$seed,
                         run(1, bare = TRUE)$seed, label = info)
        expect_identical(dim(ta$fit$trace$beta), c(4L, if (isFALSE(std)) 5L else 2L, 3L))
        ta$fit["trace"] <- list(NULL)
        expect_identical(ta$fit, a$fit, label = info)
        # a different seed gives a different path: the identity is not
        # vacuous (method none draws only its batches)
        # (the intercepts too: a path can be all zero at both seeds)
        if (isFALSE(std)) {
          b <- run(2)$fit
          expect_false(identical(c(b$a0, b$beta), c(a$fit$a0, a$fit$beta)),
                       label = info)
        }
      }
    }
  }
})

test_that("a warm-started path's first lambda is the one-lambda fit, bit for bit", {
  d0 <- rob_data(40, 4, seed = 81)
  for (method in c("clip", "kamath", "holland", "none")) {
    for (family in c("gaussian", "binomial")) {
      y <- if (family == "gaussian") d0$yg else d0$yb
      # the paper's scales on (epsilon / K, delta / K): K = 3 at (3, 3e-3)
      # gives each lambda the noise of K = 1 at (1, 1e-3)
      set.seed(2)
      path <- dpsco(tuning = "public", d0$x, y, family = family, method = method, epsilon = 3,
                    delta = 3e-3, lambda = c(0.1, 0.03, 0.01),
                    batch_size = 40, iterations = 8, step_size = 0.5,
                    calibration = "paper")
      set.seed(2)
      one <- dpsco(tuning = "public", d0$x, y, family = family, method = method, epsilon = 1,
                   delta = 1e-3, lambda = 0.1, batch_size = 40,
                   iterations = 8, step_size = 0.5, calibration = "paper")
      expect_identical(privacy(path)$noise_sd, privacy(one)$noise_sd)
      expect_identical(unname(path$beta[, 1]), unname(one$beta[, 1]))
      expect_identical(unname(path$a0[1]), unname(one$a0[1]))
      # and later lambdas start from it: they differ from cold starts
      set.seed(2)
      cold <- dpsco(tuning = "public", d0$x, y, family = family, method = method, epsilon = 1,
                    delta = 1e-3, lambda = 0.01, batch_size = 40,
                    iterations = 8, step_size = 0.5, calibration = "paper")
      expect_false(identical(unname(path$beta[, 3]), unname(cold$beta[, 1])))
    }
  }
})

test_that("threads: a seed and a chunk count fix the fit, whatever threads run it", {
  # full batches of n (p + 1) = 123,000 values per step: above the size at
  # which the engine starts threads
  set.seed(91)
  n <- 3000
  p <- 40
  x <- matrix(stats::runif(n * p, -1, 1), n, p)
  y <- drop(x[, 1:3] %*% c(2, -1, 1)) + stats::rt(n, df = 2)
  fit_with <- function(method, threads) {
    set.seed(5)
    f <- dpsco(tuning = "public", x, y, method = method, epsilon = 2, lambda = c(0.05, 0.01),
               batch_size = n, iterations = 3, step_size = 0.5,
               calibration = "paper", threads = threads)
    rbind(f$a0, f$beta)
  }
  methods <- c("clip", "kamath", "holland", "none")
  fits <- lapply(methods, function(m) lapply(1:3, function(k) fit_with(m, k)))
  names(fits) <- methods
  for (m in methods) {
    for (k in 1:3)
      expect_identical(fit_with(m, k), fits[[m]][[k]], label = paste(m, k))
    # other chunk counts only reorder the sums: equal up to rounding
    expect_equal(fits[[m]][[2]], fits[[m]][[1]], tolerance = 1e-12,
                 label = paste(m, "2 vs 1 chunks"))
    expect_equal(fits[[m]][[3]], fits[[m]][[1]], tolerance = 1e-12,
                 label = paste(m, "3 vs 1 chunks"))
  }
  # the chunking is real: some method's last bits move with it
  expect_false(all(vapply(methods, function(m)
    identical(fits[[m]][[2]], fits[[m]][[1]]), NA)))

  # a separate R limited to one thread (OMP_THREAD_LIMIT = 1) runs the two
  # chunks one after the other and must give the same bits
  skip_on_os("windows")
  dat <- tempfile(fileext = ".rds")
  out <- tempfile(fileext = ".rds")
  on.exit(unlink(c(dat, out)), add = TRUE)
  saveRDS(list(x = x, y = y), dat)
  script <- sprintf(paste0(
    "d <- readRDS('%s'); set.seed(5); ",
    "f <- dpsco::dpsco(d$x, d$y, tuning = 'public', method = 'holland', epsilon = 2, ",
    "lambda = c(0.05, 0.01), batch_size = nrow(d$x), iterations = 3, ",
    "step_size = 0.5, calibration = 'paper', threads = 2); ",
    "saveRDS(list(beta = rbind(f$a0, f$beta), used = f$settings$threads_used), '%s')"),
    dat, out)
  status <- system2(file.path(R.home("bin"), "Rscript"), c("-e", shQuote(script)),
                    env = c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)),
                            "OMP_THREAD_LIMIT=1"),
                    stdout = FALSE, stderr = FALSE)
  expect_identical(status, 0L)
  res <- readRDS(out)
  expect_identical(res$beta, fits$holland[[2]])
  expect_identical(res$used, 1L)
})

# ---- do no harm at small n ----------------------------------------------------

test_that("small and wide data: finite fits never far worse than the mean", {
  # n = 50 records, p = 200 features (0.11.0: intercepts up to 8e14)
  harm <- vapply(1:4, function(s) {
    set.seed(s)
    x <- matrix(stats::rnorm(80 * 200), 80)
    y <- drop(x[, 1:5] %*% rep(1, 5)) + stats::rnorm(80)
    tr <- 1:50
    cv <- cv.dpsco(x[tr, ], y[tr], epsilon = 1)
    expect_true(all(is.finite(coef(cv))))
    sqrt(mean((y[-tr] - predict(cv, x[-tr, ]))^2)) /
      sqrt(mean((y[-tr] - mean(y[tr]))^2))
  }, 0)
  expect_true(all(harm <= 1.5))
})

test_that("at epsilon 1e-4 the intercept stays inside the released range of y", {
  # 0.11.0 released centres of 1e16 for a y in [5, 50] at this epsilon
  set.seed(5)
  n <- 350
  x <- matrix(stats::rexp(n * 6), n)
  y <- 5 + 45 * stats::rbeta(n, 2, 5) + x[, 1]
  for (s in 1:3) {
    fit <- withr::with_seed(s, dpsco(x, y, epsilon = 1e-4))
    yr <- fit$privacy$released$y_range
    expect_true(all(is.finite(yr)))
    cen <- fit$privacy$released$centre
    expect_gte(cen, yr[1L])
    expect_lte(cen, yr[2L])
    expect_gte(unname(fit$a0[1L]), yr[1L])
    expect_lte(unname(fit$a0[1L]), yr[2L])
  }
})
