# dpsco() end to end.  The reference below is a plain-R implementation of the
# whole private SPGD path written from the algorithm's description: Poisson
# batches by geometric gaps, Kamath labels, the four oracles, Gaussian noise,
# the elastic-net proximal step, iterate averaging and warm starts.  It draws
# from R's generator in the documented order (per step: one rexp(1) per gap,
# i.e. per sampled record plus one that ends the batch, each sampled record's
# Kamath label runif(1) right after the gap that selected it; then one
# rnorm(1) per gradient coordinate, intercept first), so with the same seed
# it must reproduce a fit to rounding error, noise included.

# The oracles on the rows of G (per-record gradients), dividing by m.
oracle_ref <- function(G, method, m, par, labels) {
  d <- ncol(G)
  if (nrow(G) == 0L) return(numeric(d))
  switch(method,
    none = colSums(G) / m,
    clip = {
      nrm <- sqrt(rowSums(G^2))
      colSums(G * ifelse(nrm > par$clip, par$clip / nrm, 1)) / m
    },
    kamath = {
      nrm <- sqrt(rowSums(G^2))
      G <- G * ifelse(nrm > par$clip, par$clip / nrm, 1)
      v <- pmin(pmax(G, -par$rho / 2), par$rho / 2)
      sums <- matrix(0, par$k, d)
      for (i in seq_len(nrow(G)))
        sums[labels[i] + 1, ] <- sums[labels[i] + 1, ] + v[i, ]
      apply(sums * (par$k / m), 2, stats::median)
    },
    holland = {
      # the l2 clip first (none at clip = Inf), then s h(g / s), which
      # never exceeds |g|
      nrm <- sqrt(rowSums(G^2))
      G <- G * ifelse(nrm > par$clip, par$clip / nrm, 1)
      H <- matrix(par$s * h_ref(G / par$s, par$nu), nrow(G), d)
      colSums(sign(H) * pmin(abs(H), abs(G))) / m
    }
  )
}

# `public_n` is the public number of records: the Poisson rate is m over
# it (capped at 1), whatever the number of rows the gaps run over.
ref_path <- function(x, y, family, method, lambda, m, steps, step_size,
                     schedule = "constant", output = "average", alpha = 1,
                     pf = rep(1, ncol(x)), intercept = TRUE, noise_sd = 0,
                     par = list(), public_n = nrow(x)) {
  n <- nrow(x)
  p <- ncol(x)
  d <- p + intercept
  X1 <- if (intercept) cbind(1, x) else x
  pen <- seq_len(p) + intercept
  pf <- pf * p / sum(pf)
  q <- min(1, m / public_n)
  beta <- numeric(d)
  out <- matrix(0, d, length(lambda))
  trace <- array(0, c(d, steps, length(lambda)))
  for (l in seq_along(lambda)) {
    total <- numeric(d)
    for (t in seq_len(steps)) {
      idx <- integer(0)
      labels <- integer(0)
      cur <- -1
      repeat {
        nxt <- if (q >= 1) cur + 1 else cur + 1 + floor(stats::rexp(1) / -log1p(-q))
        if (nxt >= n) break
        idx <- c(idx, nxt + 1)
        if (method == "kamath")
          labels <- c(labels, floor(stats::runif(1) * par$k))
        cur <- nxt
      }
      Xb <- X1[idx, , drop = FALSE]
      eta <- drop(Xb %*% beta)
      r <- if (family == "gaussian") eta - y[idx] else stats::plogis(eta) - y[idx]
      est <- oracle_ref(r * Xb, method, m, par, labels)
      if (method != "none") est <- est + noise_sd * stats::rnorm(d)
      gam <- if (schedule == "sqrt") step_size / sqrt(t) else step_size
      if (intercept) beta[1] <- beta[1] - gam * est[1]
      u <- beta[pen] - gam * est[pen]
      thr <- gam * lambda[l] * alpha * pf
      beta[pen] <- sign(u) * pmax(abs(u) - thr, 0) /
        (1 + gam * lambda[l] * (1 - alpha) * pf)
      total <- total + beta
      trace[, t, l] <- if (output == "last") beta else total / t
    }
    if (output == "average") beta <- total / steps
    out[, l] <- beta
  }
  list(beta = out, trace = trace)
}

make_data <- function(n, p, family, seed) {
  set.seed(seed)
  x <- matrix(stats::runif(n * p, -1, 1), n, p)
  x[, p] <- stats::rt(n, df = 3) / 2            # one heavy-tailed column
  b <- c(1.5, -1, rep(0, p - 2))
  eta <- drop(x %*% b)
  y <- if (family == "gaussian") eta + stats::rt(n, df = 2)
       else stats::rbinom(n, 1, stats::plogis(2 * eta))
  list(x = x, y = y)
}

# the engine's path: before the support rule (test-support.R tests the rule)
fit_matrix <- function(fit) {
  b <- fit$support$beta_raw %||% fit$beta
  if (fit$intercept) rbind(fit$a0, b) else unname(b)
}

expect_close <- function(got, ref, tol = 1e-10) {
  expect_identical(dim(unname(as.matrix(got))), dim(as.matrix(ref)))
  expect_lte(max(abs(unname(got) - ref)), tol * max(1, abs(ref)))
}

# `calibration` only changes the noise sd, which the reference takes from the
# record; the accountant's calibration costs ~0.3 s per fit at q < 1, so it
# runs in a few cases (both q < 1 and q = 1, and the all-defaults case) and
# the paper's scales in the others.
cases <- list(
  list(method = "clip", family = "gaussian", intercept = TRUE,
       lambda = c(0.4, 0.15, 0.05), m = 30, step = 0.3, seed = 1,
       calibration = "accountant"),
  list(method = "kamath", family = "gaussian", intercept = FALSE,
       lambda = c(0.3, 0.1), m = 30, step = 0.25, seed = 2, alpha = 0.5,
       pf = c(1, 2, 0, 1), calibration = "paper"),
  list(method = "holland", family = "binomial", intercept = TRUE,
       lambda = c(0.2, 0.05, 0.01), m = 30.5, step = 1, seed = 3,
       schedule = "sqrt", calibration = "accountant"),
  list(method = "none", family = "binomial", intercept = FALSE,
       lambda = c(0.1, 0.02), m = 30, step = 1, seed = 4, output = "last",
       calibration = "paper"),
  list(method = "clip", family = "binomial", intercept = FALSE,
       lambda = c(0.1, 0.03, 0.01), m = 40, step = 1.5, seed = 5,
       output = "last", control = list(clip = 0.4), calibration = "paper"),
  list(method = "kamath", family = "binomial", intercept = TRUE,
       lambda = c(0.1, 0.01), m = 30, step = 1, seed = 6, schedule = "sqrt",
       calibration = "paper"),
  list(method = "holland", family = "gaussian", intercept = FALSE,
       lambda = c(0.3, 0.1, 0.03), m = 30, step = 0.3, seed = 7,
       output = "last", alpha = 0.7, control = list(s = 1.5, nu = 0.5),
       calibration = "paper"),
  list(method = "none", family = "gaussian", intercept = TRUE,
       lambda = c(0.3, 0.05), m = 30, step = 0.3, seed = 8),
  list(method = "kamath", family = "gaussian", intercept = TRUE,  # q = 1
       lambda = c(0.3, 0.1), m = 120, step = 0.3, seed = 9,
       control = list(rho = 3), calibration = "accountant"),
  list(method = "holland", family = "gaussian", intercept = TRUE,
       lambda = c(0.3, 0.1), m = 30, step = 0.3, seed = 10,
       epsilon = 20, calibration = "paper"),
  list(method = "clip", family = "gaussian", intercept = TRUE,   # defaults
       lambda = NULL, m = NULL, step = NULL, seed = 11),
  # a declared public n, more or fewer than the 120 rows: the rate m / n
  # and the defaults (m = n, 5 (n / m)^2 steps, delta = 0.1 / n) from it
  list(method = "clip", family = "gaussian", intercept = TRUE,
       lambda = c(0.4, 0.1), m = 30, step = 0.3, seed = 12, public_n = 160,
       calibration = "paper"),
  list(method = "kamath", family = "binomial", intercept = TRUE,
       lambda = c(0.1, 0.02), m = 25, step = 1, seed = 13, public_n = 90,
       calibration = "paper"),
  list(method = "clip", family = "gaussian", intercept = TRUE,   # defaults
       lambda = NULL, m = NULL, step = NULL, seed = 14, public_n = 200)
)

test_that("dpsco() reproduces a plain-R private SPGD path, noise included", {
  n <- 120
  p <- 4
  for (cs in cases) {
    dat <- make_data(n, p, cs$family, 100 + cs$seed)
    ctl <- do.call(dpsco_control,
                   c(cs$control, list(schedule = cs$schedule %||% "constant",
                                      output = cs$output %||% "average")))
    steps <- if (is.null(cs$m)) NULL else 6
    pn <- cs$public_n %||% n
    fit_it <- function()
      dpsco(tuning = "public", dat$x, dat$y, family = cs$family, method = cs$method,
            epsilon = cs$epsilon %||% 2, public_n = cs$public_n,
            lambda = cs$lambda,
            nlambda = 3, alpha = cs$alpha %||% 1,
            penalty.factor = cs$pf, intercept = cs$intercept,
            batch_size = cs$m, iterations = steps, step_size = cs$step,
            calibration = cs$calibration %||% "accountant",
            control = ctl, trace = c(1, 4))
    set.seed(cs$seed)
    fit <- fit_it()
    m <- cs$m %||% pn
    steps <- steps %||% 5                       # ceiling(5 (n / m)^2)
    expect_identical(fit$nobs, as.double(pn))
    expect_equal(fit$settings$batch_size, m)
    expect_equal(fit$privacy$delta, if (cs$method == "none") 0 else 0.1 / pn)
    d <- p + cs$intercept
    curv <- if (cs$family == "binomial") 1 / 4 else 1
    step <- cs$step %||% (1 / (d * curv))
    lambda <- cs$lambda
    if (is.null(lambda)) {
      # private default grid: from the public bound (C for clip) down to
      # 1e-4 of it
      lambda <- exp(seq(log(1), log(1e-4), length.out = 3))
      expect_equal(fit$lambda, lambda, tolerance = 1e-14)
    }
    expect_identical(fit$settings$iterations, as.integer(steps))
    expect_equal(fit$settings$step_size, step, tolerance = 1e-15)
    # under memcheck the fit above has run the case's C path; the plain-R
    # reference below is R code only
    if (memcheck()) next
    # the fit's draws on its own stream (R/rng.R), with the switch off so
    # that where the fit leaves that stream shows
    set_fit_seed(cs$seed)
    without_fit_stream(fit_it())
    u_fit <- stats::runif(1)
    set_fit_seed(cs$seed)
    ref <- ref_path(dat$x, dat$y, cs$family, cs$method, lambda, m, steps,
                    step, schedule = cs$schedule %||% "constant",
                    output = cs$output %||% "average",
                    alpha = cs$alpha %||% 1, pf = cs$pf %||% rep(1, p),
                    intercept = cs$intercept,
                    noise_sd = fit$privacy$noise_sd,
                    par = fit$settings[c("clip", "rho", "k", "s", "nu")],
                    public_n = pn)
    info <- paste(cs$method, cs$family, "seed", cs$seed)
    # the generator is left where the reference left it: same draws
    expect_identical(u_fit, stats::runif(1), label = info)
    expect_close(fit_matrix(fit), ref$beta)
    if (!cs$intercept) expect_equal(unname(fit$a0), rep(0, length(lambda)))
    # traced iterates at steps 1 and 4
    tr_ref <- ref$trace[, c(1, 4), , drop = FALSE]
    tr_got <- if (cs$intercept) {
      both <- array(0, dim(tr_ref))
      both[1, , ] <- fit$trace$a0
      both[-1, , ] <- fit$trace$beta
      both
    } else fit$trace$beta
    expect_identical(fit$trace$steps, c(1L, 4L))
    expect_lte(max(abs(unname(tr_got) - tr_ref)), 1e-10 * max(1, abs(tr_ref)))
    # the private methods really are noisy, with the requested calibration
    if (cs$method != "none") {
      expect_gt(fit$privacy$noise_sd, 0)
      pr <- fit$privacy
      expect_identical(pr$calibration, cs$calibration %||% "accountant",
                       label = info)
      expect_equal(pr$sample_rate, min(1, m / pn))
      acc <- dp_epsilon(pr$noise_multiplier, min(1, m / pn),
                        length(lambda) * steps, pr$delta)
      expect_equal(pr$epsilon_accounted, acc, tolerance = 1e-12)
      if (pr$calibration == "accountant")
        expect_lte(acc, cs$epsilon %||% 2)
    } else {
      expect_identical(fit$privacy$calibration, "none")
    }
    # the path is not trivial: some coefficients move off zero
    expect_true(any(abs(ref$beta[seq_len(p) + cs$intercept, ]) > 1e-3),
                label = info)
  }
})

test_that("public_n: the record's sensitivity and noise sd scale as 1 / public_n, nobs is public_n", {
  dat <- make_data(120, 4, "gaussian", 21)
  N <- c(60, 120, 240, 480)
  # full batches (the default batch size is the public n) of clip at the
  # public C = 1: sensitivity C / n, the same multiplier for every n
  fits <- lapply(N, function(nn) {
    set.seed(1)
    dpsco(tuning = "public", dat$x, dat$y, method = "clip", epsilon = 1,
          delta = 1e-4, public_n = nn, nlambda = 2, iterations = 3,
          step_size = 0.1)
  })
  z <- dp_noise_multiplier(1, 1e-4, 1, 2 * 3)
  for (k in seq_along(N)) {
    pr <- privacy(fits[[k]])
    expect_identical(fits[[k]]$nobs, N[k])
    expect_identical(pr$public_n, N[k])
    expect_equal(pr$sensitivity, 1 / N[k], tolerance = 1e-15)
    expect_equal(pr$noise_multiplier, z, tolerance = 1e-8)
    expect_equal(pr$noise_sd, z / N[k], tolerance = 1e-8)
    expect_identical(pr$sample_rate, 1)
    # the replace-one epsilon of this full-batch Gaussian fit: its 6
    # releases at half the multiplier (twice the sensitivity)
    expect_equal(pr$epsilon_replace_one, dp_epsilon(z / 2, 1, 6, 1e-4),
                 tolerance = 1e-6)
    txt <- gsub("\\s+", " ", paste(capture.output(summary(fits[[k]])), collapse = " "))
    expect_match(txt, sprintf("fitted on n = %d records", N[k]), fixed = TRUE)
    expect_match(txt, sprintf("with the number of records n = %d treated as public", N[k]),
                 fixed = TRUE)
  }
  sds <- vapply(fits, function(f) privacy(f)$noise_sd, 0)
  expect_equal(sds * N, rep(sds[1] * N[1], length(N)), tolerance = 1e-12)
  # private tuning: the settings' divisors are the public n too (the
  # centre's sensitivity (hi - lo) / (2 n) on its clamp, the curvature's
  # row_bound^2 / n)
  set.seed(2)
  fp <- dpsco(dat$x, dat$y, method = "clip", public_n = 300, nlambda = 2,
              iterations = 3)
  pr <- privacy(fp)
  sh <- pr$shares
  expect_equal(sh$sensitivity[sh$part == "centre"],
               diff(pr$released$centre_range) / 2 / 300, tolerance = 1e-14)
  expect_equal(sh$sensitivity[sh$part == "curvature"],
               pr$released$row_bound^2 / 300, tolerance = 1e-14)
  expect_equal(pr$sensitivity, fp$settings$clip / fp$settings$batch_size,
               tolerance = 1e-14)
  expect_equal(pr$delta, 0.1 / 300)
  expect_identical(fp$nobs, 300)
})

test_that("public_n: fits on no row or one row are fits, not errors", {
  dat <- make_data(10, 3, "gaussian", 22)
  yb <- factor(c("a", "b")[1 + (dat$y > 0)], levels = c("a", "b"))
  for (rows in list(integer(0), 1L)) {
    for (cs in list(list(method = "clip"), list(method = "holland"),
                    list(method = "none"), list(method = "clip", tuning = "public"),
                    list(method = "clip", family = "binomial"),
                    list(method = "fw", radius = 1),
                    list(method = "sample_aggregate", radius = 1))) {
      info <- paste(length(rows), "rows:", paste(unlist(cs), collapse = " "))
      y <- if (identical(cs$family, "binomial")) yb else dat$y
      set.seed(3)
      fit <- do.call(dpsco, c(list(dat$x[rows, , drop = FALSE], y[rows],
                                   public_n = 400, nlambda = 2), cs))
      expect_s3_class(fit, "dpsco")
      expect_identical(fit$nobs, 400, label = info)
      expect_true(all(is.finite(fit$beta)) && all(is.finite(fit$a0)), label = info)
      if (cs$method != "none") {
        expect_identical(privacy(fit)$public_n, 400, label = info)
        expect_equal(privacy(fit)$delta, 0.1 / 400)
      }
    }
  }
  # without public_n the rows are the public n, and one is too few
  err <- expect_error(dpsco(dat$x[1, , drop = FALSE], dat$y[1]),
                      class = "dpsco_arg_error")
  expect_identical(err$arg, "x")
})

test_that("a delta of 1 / n or more (n the public n) gets a dpsco_privacy_warning, the default does not", {
  dat <- make_data(120, 3, "gaussian", 23)
  fit_with <- function(...) dpsco(dat$x, dat$y, method = "clip", tuning = "public",
                                  nlambda = 2, iterations = 2, ...)
  w <- expect_warning(fit_with(delta = 1 / 120), class = "dpsco_privacy_warning")
  expect_match(conditionMessage(w), "1 / n", fixed = TRUE)
  expect_warning(fit_with(delta = 0.5), class = "dpsco_privacy_warning")
  expect_warning(fit_with(delta = 1 / 500, public_n = 1000),
                 class = "dpsco_privacy_warning")
  expect_no_warning(fit_with())
  expect_no_warning(fit_with(delta = 0.99 / 120))
  # the public n sets the threshold, not the rows: 1 / 200 is below 1 / 120
  expect_no_warning(fit_with(delta = 1 / 200, public_n = 150))
  expect_warning(fit_with(delta = 1 / 200, public_n = 400),
                 class = "dpsco_privacy_warning")
  expect_no_warning(cv.dpsco(dat$x, dat$y, method = "clip", tuning = "public",
                             nlambda = 2, iterations = 2))
  expect_warning(cv.dpsco(dat$x, dat$y, method = "clip", tuning = "public",
                          nlambda = 2, iterations = 2, delta = 0.01),
                 class = "dpsco_privacy_warning")
})

test_that("the noise enters the path: a noise-free replay differs", {
  dat <- make_data(120, 4, "gaussian", 55)
  set.seed(5)
  fit <- dpsco(tuning = "public", dat$x, dat$y, method = "clip", epsilon = 5,
               lambda = c(0.2, 0.05), batch_size = 30, iterations = 6,
               step_size = 0.3, calibration = "paper")
  set.seed(5)
  quiet <- ref_path(dat$x, dat$y, "gaussian", "clip", c(0.2, 0.05), 30, 6,
                    0.3, noise_sd = 0, par = list(clip = 1))
  expect_gt(max(abs(fit_matrix(fit) - quiet$beta)), 1e-4)
})

# ---- convergence to glmnet -------------------------------------------------

objective <- function(b0, b, x, y, family, lambda, alpha = 1, pf = NULL) {
  pf <- pf %||% rep(1, ncol(x))
  pf <- pf * ncol(x) / sum(pf)
  eta <- b0 + drop(x %*% b)
  loss <- if (family == "gaussian") sum((y - eta)^2) / (2 * length(y))
          else mean(log1p(exp(eta)) - y * eta)
  loss + lambda * sum(pf * (alpha * abs(b) + (1 - alpha) * b^2 / 2))
}

test_that("method none with full batches converges to glmnet's solution", {
  skip_if_not_installed("glmnet")
  set.seed(2024)
  n <- 100
  p <- 5
  x <- matrix(stats::rnorm(n * p), n, p)
  eta <- drop(x %*% c(1, -0.7, 0, 0, 0.4))
  ys <- list(gaussian = eta + stats::rnorm(n),
             binomial = stats::rbinom(n, 1, stats::plogis(eta)))
  runs <- list(
    list(family = "gaussian", lambda = 0.1, alpha = 1, intercept = TRUE,
         pf = NULL),
    list(family = "binomial", lambda = 0.03, alpha = 1, intercept = TRUE,
         pf = NULL),
    list(family = "binomial", lambda = 0.05, alpha = 0.5, intercept = FALSE,
         pf = c(1, 1, 2, 0.5, 1)),
    list(family = "gaussian", lambda = 0.2, alpha = 1, intercept = FALSE,
         pf = NULL)
  )
  for (rn in runs) {
    y <- ys[[rn$family]]
    X1 <- if (rn$intercept) cbind(1, x) else x
    L <- max(eigen(crossprod(X1) / n, symmetric = TRUE, only.values = TRUE)$values)
    if (rn$family == "binomial") L <- L / 4
    fit <- dpsco(tuning = "public", x, y, family = rn$family, method = "none", lambda = rn$lambda,
                 alpha = rn$alpha, penalty.factor = rn$pf,
                 intercept = rn$intercept, batch_size = n, iterations = 3000,
                 step_size = 1 / L, control = dpsco_control(output = "last"))
    gfit <- glmnet::glmnet(x, y, family = rn$family, lambda = rn$lambda,
                           alpha = rn$alpha, standardize = FALSE,
                           intercept = rn$intercept, thresh = 1e-14,
                           penalty.factor = rn$pf %||% rep(1, p),
                           maxit = 1e6)
    gb <- as.numeric(glmnet::coef.glmnet(gfit))
    f_dp <- objective(fit$a0[[1]], fit$beta[, 1], x, y, rn$family, rn$lambda,
                      rn$alpha, rn$pf)
    f_gl <- objective(gb[1], gb[-1], x, y, rn$family, rn$lambda, rn$alpha,
                      rn$pf)
    expect_lt(abs(f_dp - f_gl) / f_gl, 1e-4)
    expect_lt(max(abs(c(fit$a0[[1]], fit$beta[, 1]) - gb)), 1e-6)
    # the lasso solution is sparse where glmnet's is
    expect_identical(unname(fit$beta[, 1] == 0), gb[-1] == 0)
    # and better than the zero start, so the optimiser really moved
    f_zero <- objective(0, numeric(p), x, y, rn$family, rn$lambda, rn$alpha,
                        rn$pf)
    expect_lt(f_dp, f_zero - 1e-3)
  }
})

# ---- reproducibility and trace --------------------------------------------

test_that("a seed reproduces a fit exactly; another seed does not", {
  dat <- make_data(120, 4, "gaussian", 77)
  for (method in c("clip", "kamath", "holland")) {
    # the accountant's calibration is deterministic but costs ~0.3 s per fit
    # at q < 1; one method runs it, the others use the paper's scales
    cal <- if (method == "clip") "accountant" else "paper"
    run <- function(seed) {
      set.seed(seed)
      dpsco(tuning = "public", dat$x, dat$y, method = method, epsilon = 2, lambda = c(0.2, 0.05),
            batch_size = 30, iterations = 5, step_size = 0.3,
            calibration = cal)
    }
    f1 <- run(1)
    f2 <- run(1)
    f3 <- run(2)
    f1$call <- f2$call <- f3$call <- NULL
    expect_identical(f1, f2)
    # (the intercepts too: a path can be all zero at both seeds)
    expect_gt(max(abs(c(f1$a0, f1$beta) - c(f3$a0, f3$beta))), 1e-6)
  }
})

test_that("an interrupted fit leaves the session, the generator and memory as before", {
  # A fit of minutes stopped by an elapsed-time limit after 0.5 s: the R side
  # takes some 30 ms here, so the limit fires in the engine's interrupt check
  # (R_CheckUserInterrupt, every 1e6 streamed records), the same path as a
  # user's Ctrl-C (under valgrind it may fire in R code first; the checks
  # hold either way).  The transposed copy of x (8 MB) is R_alloc memory,
  # which R releases when the error unwinds; the fit runs on a stream of
  # its own (R/rng.R), and the caller's is put back one draw on either way.
  set.seed(3)
  n <- 1e5
  x <- matrix(runif(n * 10, -1, 1), n, 10)
  y <- rnorm(n)
  fit <- function(iterations) {
    set.seed(11)
    f <- dpsco(tuning = "public", x, y, method = "clip", calibration = "paper",
               lambda = c(0.1, 0.05), batch_size = 200, iterations = iterations)
    f$call <- NULL
    f
  }
  seed <- function() get(".Random.seed", envir = globalenv())
  fresh <- fit(20)
  after_fit <- seed()
  used <- function() gc()["Vcells", "used"]
  before <- used()
  err <- tryCatch({
    setTimeLimit(elapsed = 0.5, transient = TRUE)
    fit(1e6)
  }, error = identity, finally = setTimeLimit())
  expect_s3_class(err, "error")
  expect_match(conditionMessage(err), "time limit")
  # the seed's state one draw on (the draw that seeds the fit's stream), as
  # after the completed fit; the engine's own draws are not seen
  interrupted <- seed()
  set.seed(11)
  stats::runif(1)
  expect_identical(interrupted, seed())
  expect_identical(after_fit, seed())
  expect_lt(used() - before, 1e5)
  expect_identical(fit(20), fresh)
})

test_that("the trace at the last step is the reported output", {
  dat <- make_data(120, 4, "binomial", 88)
  for (method in c("clip", "kamath", "holland", "none")) {
    for (output in c("average", "last")) {
      set.seed(3)
      # the calibration does not matter here; the paper's is instantaneous
      fit <- dpsco(tuning = "public", dat$x, dat$y, family = "binomial", method = method,
                   epsilon = 3, lambda = c(0.1, 0.03, 0.01), batch_size = 40,
                   iterations = 7, step_size = 1, calibration = "paper",
                   control = dpsco_control(output = output), trace = TRUE)
      expect_identical(fit$trace$steps, 1:7)
      expect_identical(dim(fit$trace$beta), c(4L, 7L, 3L))
      for (l in 1:3) {
        # the trace holds the iterates before the support rule
        expect_identical(unname(fit$trace$beta[, 7, l]),
                         unname((fit$support$beta_raw %||% fit$beta)[, l]))
        expect_identical(unname(fit$trace$a0[7, l]), unname(fit$a0[l]))
      }
      # with averaging, step t's trace is the mean of the iterates so far:
      # step 1 equals the first iterate, and step 7 differs from it
      expect_gt(max(abs(fit$trace$beta[, 7, 3] - fit$trace$beta[, 1, 3])), 1e-6)
    }
  }
})

# ---- noise calibration -----------------------------------------------------

test_that("noise sd is the paper's printed scale with (epsilon/K, delta/K)", {
  n <- 150
  p <- 6
  set.seed(99)
  x <- matrix(stats::runif(n * p, -1, 1), n, p)
  y <- drop(x %*% c(1, -1, rep(0, p - 2))) + stats::rt(n, df = 2)
  grid <- list(
    list(method = "clip", eps = 2, delta = 1e-4, K = 4, m = 50, int = TRUE,
         ctl = dpsco_control(clip = 3)),
    list(method = "clip", eps = 0.5, delta = NULL, K = 2, m = 150, int = FALSE,
         ctl = dpsco_control()),
    list(method = "kamath", eps = 1, delta = 1e-5, K = 3, m = 60, int = TRUE,
         ctl = dpsco_control()),
    list(method = "kamath", eps = 3, delta = NULL, K = 5, m = 10, int = FALSE,
         ctl = dpsco_control(kmom = 4, zeta = 0.01)),
    list(method = "holland", eps = 1, delta = 1e-6, K = 3, m = 75, int = TRUE,
         ctl = dpsco_control()),
    list(method = "holland", eps = 4, delta = NULL, K = 2, m = 40, int = FALSE,
         ctl = dpsco_control(moment_bound = 2, zeta = 0.05))
  )
  for (g in grid) {
    set.seed(1)
    fit <- dpsco(tuning = "public", x, y, method = g$method, epsilon = g$eps, delta = g$delta,
                 nlambda = g$K, intercept = g$int, batch_size = g$m,
                 iterations = 2, step_size = 0.1, calibration = "paper",
                 control = g$ctl)
    expect_identical(fit$privacy$calibration, "paper")
    expect_identical(fit$settings$calibration, "paper")
    delta <- g$delta %||% (0.1 / n)                # documented default
    e <- g$eps / g$K
    dl <- delta / g$K
    d <- p + g$int
    st <- fit$settings
    expected <- switch(g$method,
      clip = st$clip * sqrt(log(1 / dl)) / (g$m * e),
      kamath = st$rho * st$k * sqrt(d * log(1 / dl)) / (g$m * e),
      holland = 4 * st$s * sqrt(2 * d * log(1 / dl)) / (3 * g$m * e))
    expect_equal(fit$privacy$noise_sd, expected, tolerance = 1e-12)
    expect_equal(fit$privacy$delta, delta, tolerance = 1e-15)
    expect_equal(fit$privacy$epsilon_per_lambda, e, tolerance = 1e-15)
    expect_equal(fit$privacy$delta_per_lambda, dl, tolerance = 1e-15)
    # the record reports what these scales deliver over the K x 2 steps
    expect_equal(fit$privacy$epsilon_accounted,
                 dp_epsilon(fit$privacy$noise_multiplier, g$m / n, g$K * 2,
                            delta), tolerance = 1e-12)
    # the oracle parameters are the documented public defaults
    ctl <- g$ctl
    # clip: the documented public default C = 1 when none is declared
    if (g$method == "clip") expect_identical(st$clip, ctl$clip %||% 1)
    if (g$method == "kamath") {
      expect_equal(st$rho, (e * g$m / sqrt(d * log(1 / dl)))^(1 / ctl$kmom),
                   tolerance = 1e-14)
      expect_identical(st$k, as.integer(min(ceiling(3 * log(2 * d / ctl$zeta)),
                                            floor(g$m))))
    }
    if (g$method == "holland") {
      expect_equal(st$nu, sqrt(log(1 / ctl$zeta)), tolerance = 1e-15)
      expect_equal(st$s, sqrt(g$m * e * ctl$moment_bound) /
                     (log(1 / ctl$zeta) * log(1 / dl)^(1 / 4)), tolerance = 1e-14)
    }
  }
  # a non-private fit has no noise
  fit <- dpsco(tuning = "public", x, y, method = "none", nlambda = 2, iterations = 2)
  expect_identical(fit$privacy$noise_sd, 0)
})

test_that("default noise sd is the accountant's z for the whole path times the sensitivity", {
  n <- 150
  p <- 6
  set.seed(99)
  x <- matrix(stats::runif(n * p, -1, 1), n, p)
  y <- drop(x %*% c(1, -1, rep(0, p - 2))) + stats::rt(n, df = 2)
  grid <- list(
    list(method = "clip", eps = 2, delta = 1e-4, K = 4, m = 50, int = TRUE,
         ctl = dpsco_control(clip = 3)),
    list(method = "kamath", eps = 3, delta = NULL, K = 5, m = 150, int = FALSE,
         ctl = dpsco_control(kmom = 4, zeta = 0.01)),
    list(method = "holland", eps = 1, delta = 1e-6, K = 3, m = 150, int = TRUE,
         ctl = dpsco_control()))
  for (g in grid) {
    set.seed(1)
    fit <- dpsco(tuning = "public", x, y, method = g$method, epsilon = g$eps, delta = g$delta,
                 nlambda = g$K, intercept = g$int, batch_size = g$m,
                 iterations = 2, step_size = 0.1, control = g$ctl)
    pr <- fit$privacy
    delta <- g$delta %||% (0.1 / n)
    e <- g$eps / g$K
    dl <- delta / g$K
    d <- p + g$int
    st <- fit$settings
    # the oracle parameters keep the paper's defaults at (epsilon/K, delta/K)
    sens <- switch(g$method,
      clip = st$clip / g$m,
      kamath = st$rho * st$k * sqrt(d) * median_factor_ref(st$k) / (2 * g$m),
      holland = 2 * sqrt(2) * st$s * sqrt(d) / (3 * g$m))
    if (g$method == "kamath")
      expect_equal(st$rho, (e * g$m / sqrt(d * log(1 / dl)))^(1 / 4),
                   tolerance = 1e-14)
    if (g$method == "holland")
      expect_equal(st$s, sqrt(g$m * e) / (log(10) * log(1 / dl)^(1 / 4)),
                   tolerance = 1e-14)
    z <- pr$noise_multiplier
    expect_equal(pr$sensitivity, sens, tolerance = 1e-12)
    expect_equal(pr$noise_sd, z * sens, tolerance = 1e-12)
    q <- g$m / n
    expect_lte(dp_epsilon(z, q, g$K * 2, delta), g$eps)
    expect_gt(dp_epsilon(0.99 * z, q, g$K * 2, delta), g$eps)
    expect_equal(pr$epsilon_accounted, dp_epsilon(z, q, g$K * 2, delta),
                 tolerance = 1e-12)
    # not the paper's scale
    expect_false(isTRUE(all.equal(pr$noise_multiplier,
      (if (g$method == "clip") 1 else 2) * sqrt(log(1 / dl)) / e)))
  }
})

test_that("the newton path (memory, tail average, reused first gradient) matches a plain-R reference", {
  set.seed(3)
  n <- 300
  p <- 4
  x <- matrix(rexp(n * p), n, p)
  y <- drop(x %*% c(1, -1, 0, 0.5)) + rnorm(n)
  # a small declared row bound and a half step keep the model away from the
  # Hessian, so the carried gradient changes the iterates (by about 0.14
  # here against memory = 0)
  ctl <- dpsco_control(memory = 0.5, row_bound = 1.5)
  nl <- 3
  steps <- 3
  fit <- dpsco(x, y, method = "none", control = ctl, nlambda = nl,
               iterations = steps, step_size = 0.5)
  fit0 <- dpsco(x, y, method = "none", nlambda = nl, iterations = steps,
                step_size = 0.5,
                control = dpsco_control(memory = 0, row_bound = 1.5))
  expect_gt(max(abs(fit$beta - fit0$beta)), 0.05)
  # the same private settings, noise-free, from the one place that sets them
  tn <- tune_private(x, y, "gaussian", "none", "newton", TRUE, 0,
                             0.5, ctl, n = n)
  w <- cbind(1, tn$x)
  a <- tn$curvature
  eta <- tn$step_size
  grad <- function(b) drop(crossprod(w, w %*% b - y)) / n
  # the penalised quadratic model by plain coordinate descent
  model_min <- function(g, centre, lam) {
    q <- a / eta
    b <- centre
    for (sweep in 1:10000) {
      old <- b
      for (j in seq_along(b)) {
        s_j <- g[j] + sum(q[j, ] * (b - centre))
        u <- q[j, j] * b[j] - s_j
        b[j] <- if (j == 1) u / q[j, j] else sign(u) * max(abs(u) - lam, 0) / q[j, j]
      }
      if (max(abs(b - old)) < 1e-14) break
    }
    b
  }
  b <- tn$beta0
  ghat <- NULL
  ref <- matrix(0, p + 1, nl)
  for (l in seq_len(nl)) {
    tail_sum <- 0
    for (t in seq_len(steps)) {
      g <- grad(b)
      if (!is.null(ghat)) g <- 0.5 * g + 0.5 * ghat
      nb <- model_min(g, b, fit$lambda[l])
      ghat <- g + drop(a %*% (nb - b)) / eta
      b <- nb
      if (t > steps %/% 2) tail_sum <- tail_sum + b
    }
    avg <- tail_sum / (steps - steps %/% 2)
    ghat <- ghat + drop(a %*% (avg - b)) / eta
    b <- avg
    ref[, l] <- b
  }
  bound <- fit$standardize$scale
  expect_equal(unname(fit$a0), ref[1, ], tolerance = 1e-6)
  expect_equal(unname(fit$beta), ref[-1, ] / bound, tolerance = 1e-6)
  # the grid starts at the largest penalised coordinate of the first gradient
  expect_equal(fit$lambda[1], max(abs(grad(tn$beta0)[-1])), tolerance = 1e-12)
})

test_that("one_release: the engine carries one release to every penalty and draws nothing more", {
  set.seed(3)
  n <- 200
  x <- matrix(runif(n * 3, -1, 1), n, 3)
  y <- drop(x %*% c(1, -0.5, 0)) + rnorm(n)
  # a released gradient at b0 and a released curvature, as the settings
  # would give them (here: made up, positive definite, not the Hessian)
  b0 <- c(0.1, 0, 0, 0)
  g1 <- c(-0.05, -0.3, 0.2, 0.01)
  a <- crossprod(cbind(1, x)) / n + diag(0.05, 4)
  a[2, 3] <- a[3, 2] <- a[2, 3] + 0.1
  lam <- c(0.25, 0.1, 0.02)
  s <- list(oracle = 1L, m = n, clip = 1, rho = 0, k = 1L, s = 1, nu = 1,
            family = 0L, intercept = 1L, noise_sd = 0.5, rate = 1, steps = 1L,
            step_size = 1, sqrt_schedule = 0L, last_iterate = 1L,
            tail_average = 0L, alpha = 1, penalty_factor = rep(1, 3),
            threads = 1L, curvature = a, first_gradient = g1, memory = 1)
  fit <- function(s, seed) {
    set.seed(seed)
    .Call(C_dpsco_fit, x, y, s, lam, b0, integer())$beta
  }
  # the noise sd is large, yet nothing is drawn: any seed gives the same
  # path, and R's generator is where it was
  b <- fit(s, 1)
  expect_identical(fit(s, 2), b)
  set.seed(1)
  before <- .Random.seed
  fit(s, 1)
  expect_identical(.Random.seed, before)
  # every penalty: the minimiser of the one model g1'(v - b0) +
  # (v - b0)' a (v - b0) / 2 + lambda |v[-1]|_1 (plain coordinate descent)
  model_min <- function(l) {
    v <- b0
    for (sweep in 1:10000) {
      old <- v
      for (j in seq_along(v)) {
        u <- a[j, j] * v[j] - (g1[j] + sum(a[j, ] * (v - b0)))
        v[j] <- if (j == 1) u / a[j, j]
                else sign(u) * max(abs(u) - l, 0) / a[j, j]
      }
      if (max(abs(v - old)) < 1e-15) break
    }
    v
  }
  expect_equal(b, vapply(lam, model_min, numeric(4)), tolerance = 1e-8)
  # below memory 1 each later step draws a fresh release
  s$memory <- 0.99
  expect_false(identical(fit(s, 1), fit(s, 2)))
  set.seed(1)
  before <- .Random.seed
  fit(s, 1)
  expect_false(identical(.Random.seed, before))
})

test_that("one_release: one release in the record, its multiplier sqrt(20) times smaller", {
  set.seed(3)
  n <- 300
  x <- matrix(rexp(n * 4), n, 4)
  y <- drop(x %*% c(1, -1, 0, 0.5)) + rnorm(n)
  set.seed(5)
  f1 <- dpsco(x, y, epsilon = 1, control = dpsco_control(one_release = TRUE))
  set.seed(5)
  f20 <- dpsco(x, y, epsilon = 1)
  expect_true(f1$settings$one_release)
  expect_false(f20$settings$one_release)
  # the same settings releases, then 1 optimiser release against 20 at the
  # same share: in mu^2 units the multiplier scales with sqrt(releases)
  expect_equal(privacy(f1)$steps, 1)
  expect_equal(privacy(f20)$steps * privacy(f20)$nlambda, 20)
  expect_equal(privacy(f20)$noise_multiplier / privacy(f1)$noise_multiplier,
               sqrt(20), tolerance = 1e-6)
  expect_lte(privacy(f1)$epsilon_accounted, 1 + 1e-9)
  expect_true(any(grepl("10 lambdas from 1 noisy release",
                        format(privacy(f1)), fixed = TRUE)))
  # only a quadratic loss's Newton path can carry the one release
  expect_error(dpsco(x, as.numeric(y > 0), family = "binomial", epsilon = 1,
                     control = dpsco_control(one_release = TRUE)),
               "one_release")
  expect_error(dpsco_control(one_release = NA), "one_release")
})

# secure = TRUE: plain-R accounting of parts that are each a discrete
# Gaussian release, rho = steps / (2 z^2) summed, through the conversion
# eps = min_a rho a + log((a - 1) / a) - (log(delta) + log(a)) / (a - 1)
# over the package's orders.
zcdp_epsilon_ref <- function(z, steps, delta) {
  rho <- sum(steps / (2 * z^2))
  a <- c(seq(1.1, 10.9, by = 0.1), 12:63)
  min(rho * a + log((a - 1) / a) - (log(delta) + log(a)) / (a - 1))
}

test_that("secure = TRUE: releases on their grids from the OS generator, accounted as zCDP", {
  set.seed(31)
  n <- 600
  p <- 4
  x <- matrix(stats::rt(n * p, df = 3), n, p)
  y <- drop(x %*% c(2, -1, 0, 0)) + stats::rt(n, df = 3)
  seed <- rng_state()
  fit <- without_fit_stream(dpsco(x, y, epsilon = 2, nlambda = 4, secure = TRUE))
  # nothing came from R's generator (its own stream switched off to see it)
  expect_identical(rng_state(), seed)
  pr <- privacy(fit)
  expect_match(pr$noise, "discrete Gaussian")
  expect_match(pr$rng, "not reproducible with set.seed", ignore.case = TRUE)
  expect_true(all(pr$shares$kind == "rdp"))
  expect_true(fit$settings$secure)
  # every part is accounted through the Gaussian's Renyi curve
  expect_equal(pr$epsilon_accounted,
               zcdp_epsilon_ref(pr$shares$noise_multiplier, pr$shares$steps,
                                pr$delta), tolerance = 1e-9)
  expect_lte(pr$epsilon_accounted, 2)
  expect_gt(pr$epsilon_accounted, 2 * (1 - 1e-4))
  # the optimiser's noise is scaled to the sensitivity with the rounding
  # inside it: at most grid * sqrt(d) more, a relative 2^-20 here
  nominal <- fit$settings$clip / n  # the clip oracle's C / m
  expect_gt(pr$sensitivity, nominal)
  expect_lte(pr$sensitivity - nominal, pr$noise_grid * sqrt(p + 1))
  expect_equal(pr$noise_grid, 2^(floor(log2(pr$noise_multiplier * nominal)) - 24))
  # a fit of the same data with floating-point noise needs less noise
  # (exact accounting) and has the same form
  plain <- dpsco(x, y, epsilon = 2, nlambda = 4)
  expect_lt(privacy(plain)$noise_multiplier, pr$noise_multiplier)
  expect_equal(dim(coef(fit)), dim(coef(plain)))
  expect_true(all(is.finite(coef(fit))))
})

test_that("the engine's fit and release refuse unknown and missing settings fields", {
  x <- matrix(c(0.5, -1, 0.25, 1, 0, -0.5), 3)
  y <- c(1, -1, 0.5)
  s <- list(oracle = 1L, m = 3, clip = 1, rho = 0, k = 1L, s = 1, nu = 1,
            family = 0L, intercept = 1L, noise_sd = 0, rate = 1, steps = 2L,
            step_size = 0.1, sqrt_schedule = 0L, last_iterate = 0L,
            tail_average = 0L, alpha = 1, penalty_factor = c(1, 1),
            threads = 1L)
  fit <- function(s) .Call(C_dpsco_fit, x, y, s, 0.1, rep(0, 3), integer())
  release <- function(s) .Call(C_dpsco_release, x, y, s, rep(0, 3))
  expect_equal(dim(fit(s)$beta), c(3L, 1L))
  expect_length(release(s), 3L)
  # a misspelt optional field is not silently defaulted
  expect_error(fit(c(s, noise_grd = 0)),
               "dpsco_fit: unknown settings field 'noise_grd'", fixed = TRUE)
  expect_error(release(c(s, ofset = 1)),
               "dpsco_release: unknown settings field 'ofset'", fixed = TRUE)
  s$step_size <- NULL
  expect_error(fit(s), "dpsco_fit: settings field 'step_size' is missing",
               fixed = TRUE)
  s$rate <- NULL
  expect_error(release(s), "dpsco_release: settings field 'rate' is missing",
               fixed = TRUE)
  expect_error(fit(c(s, step_size = 0.1, rate = 1, alpha = 1)),
               "dpsco_fit: settings field 'alpha' given twice", fixed = TRUE)
})

test_that("the records built once for a path are x's, and the engine reads them", {
  set.seed(11)
  n <- 700
  p <- 5
  x <- matrix(stats::rnorm(n * p), n, p)
  x[stats::runif(n * p) < 0.85] <- 0   # 15% non-zero: stored CSR at 0.2
  y <- stats::rnorm(n)
  tx <- t(x)
  nz <- tx != 0
  lay <- .Call(C_dpsco_layout, x, 1L, 0.2, 1L)
  # CSR of the rows, against plain R's non-zeros of t(x) in column order
  expect_identical(lay$layout, 1L)
  expect_identical(lay$rp, c(0L, as.integer(cumsum(colSums(nz)))))
  expect_identical(lay$ci, row(tx)[nz] - 1L)
  expect_identical(lay$xv, tx[nz])
  expect_equal(lay$norm, sqrt(1 + rowSums(x^2)), tolerance = 1e-14)
  expect_equal(lay$xmax, apply(abs(x), 1L, max), tolerance = 0)
  # two threads build the same copy; a dgCMatrix gives the same CSR
  lay2 <- .Call(C_dpsco_layout, x, 1L, 0.2, 2L)
  for (f in c("rp", "ci", "xv", "norm", "xmax"))
    expect_identical(lay2[[f]], lay[[f]])
  if (requireNamespace("Matrix", quietly = TRUE)) {
    lays <- .Call(C_dpsco_layout, methods::as(x, "CsparseMatrix"), 1L, 0.2, 1L)
    for (f in c("rp", "ci", "xv", "norm", "xmax"))
      expect_identical(lays[[f]], lay[[f]])
  }
  # density -1 (a shard's): the row-major copy; without intercept no 1
  layd <- .Call(C_dpsco_layout, x, 0L, -1, 2L)
  expect_identical(layd$layout, 0L)
  expect_identical(layd$xt, as.vector(tx))
  expect_equal(layd$norm, sqrt(rowSums(x^2)), tolerance = 1e-14)
  # the release reading the layout is the one that copies x itself
  s <- list(oracle = 1L, m = n, clip = 1, rho = 0, k = 1L, s = 1, nu = 1,
            family = 0L, intercept = 1L, noise_sd = 0, rate = 1, steps = 2L,
            step_size = 0.1, sqrt_schedule = 0L, last_iterate = 0L,
            tail_average = 0L, alpha = 1, penalty_factor = rep(1, p),
            threads = 1L)
  beta <- c(0.1, 0.2, -0.3, 0, 0.4, -0.1)
  release <- function(x, s) .Call(C_dpsco_release, x, y, s, beta)
  g <- release(x, s)
  r <- y - drop(cbind(1, x) %*% beta)
  expect_equal(g, -drop(crossprod(cbind(1, x), r *
                 pmin(1, 1 / (abs(r) * sqrt(1 + rowSums(x^2)))))) / n,
               tolerance = 1e-12)
  expect_identical(release(x, c(s, list(records = lay))), g)
  # it is read: a tampered copy of this x changes the release ...
  bad <- lay
  bad$xv <- 2 * bad$xv
  expect_false(isTRUE(all.equal(release(x, c(s, list(records = bad))), g)))
  # ... and a layout of another object (equal values or not), or of x
  # without intercept, is not used
  x2 <- x + 0
  expect_identical(release(x2, c(s, list(records = bad))), g)
  badd <- .Call(C_dpsco_layout, x, 0L, 0.2, 1L)
  badd$xv <- 2 * badd$xv
  expect_identical(release(x, c(s, list(records = badd))), g)
})

test_that("dpsco() is a generic whose default method keeps the matrix call", {
  set.seed(1)
  x <- matrix(rnorm(100), 50, 2)
  y <- drop(x %*% c(1, -1)) + rnorm(50)
  f <- dpsco(x, y, method = "none", lambda = 0.05)
  expect_identical(f$call[[1L]], as.name("dpsco"))
  expect_equal(coef(f), coef(dpsco.default(x, y, method = "none",
                                           lambda = 0.05)), tolerance = 0)
  # a name that is no argument is an error naming it (not swallowed by ...)
  e <- tryCatch(dpsco(x, y, epsilonn = 1), dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "epsilonn")
  # partial matching of the arguments before ... is unchanged
  set.seed(2)
  a <- dpsco(x, y, eps = 0.5, nlambda = 2)
  expect_identical(privacy(a)$epsilon, 0.5)
})

# ---- poisson ----------------------------------------------------------------

test_that("poisson with method none converges to glmnet's solution", {
  skip_if_not_installed("glmnet")
  set.seed(7)
  n <- 300
  p <- 4
  x <- matrix(stats::rnorm(n * p), n, p)
  y <- stats::rpois(n, exp(0.4 + drop(x %*% c(0.5, -0.3, 0, 0))))
  lam <- c(0.1, 0.03, 0.005)
  fit <- dpsco(x, y, family = "poisson", method = "none", tuning = "public",
               lambda = lam, iterations = 4000, step_size = 0.2,
               control = dpsco_control(output = "last"))
  g <- glmnet::glmnet(x, y, family = "poisson", lambda = lam,
                      standardize = FALSE, thresh = 1e-14, maxit = 1e6)
  expect_lt(max(abs(as.matrix(coef(fit)) - as.matrix(coef(g)))), 1e-5)
  expect_identical(unname(as.matrix(fit$beta) == 0),
                   unname(as.matrix(g$beta) == 0))
  # the response is exp(eta)
  expect_equal(predict(fit, x[1:3, ], type = "response"),
               exp(predict(fit, x[1:3, ], type = "link")))
})

test_that("a private poisson fit records every release and refuses bad y", {
  set.seed(8)
  n <- 400
  x <- matrix(stats::rnorm(n * 3), n)
  y <- stats::rpois(n, exp(1 + 0.5 * x[, 1]))
  for (m in c("clip", "kamath", "holland")) {
    fit <- dpsco(x, y, family = "poisson", method = m, epsilon = 2)
    pr <- privacy(fit)
    expect_equal(pr$epsilon, 2, tolerance = 1e-6)
    expect_identical(pr$shares$part, c("scale", "centre", "quantiles",
                                       "curvature", "optimizer"))
    expect_equal(sum(pr$shares$share), 1)
    expect_true(all(is.finite(as.matrix(coef(fit)))))
    # the centre is the mean count clamped to [0, the top of the released
    # centre range], and kept in it; that range lies within y's
    expect_identical(pr$shares$mechanism[2], paste0(
      "Gaussian: mean of y clamped to [0, ",
      format(signif(pr$released$centre_range[2], 3)), "]"))
    expect_gte(pr$released$y_range[1], 0)
    expect_identical(pr$released$y_bound, pr$released$y_range[2])
    expect_gt(pr$released$centre_range[2], 0)
    expect_lte(pr$released$centre_range[2], pr$released$y_range[2])
    expect_lte(pr$released$centre, pr$released$centre_range[2])
    expect_named(pr$released, c("x_bound", "y_bound", "y_range", "centre_range",
                                "centre", "clip", "row_bound", "ridge"))
  }
  expect_error(dpsco(x, y - 1, family = "poisson"), class = "dpsco_arg_error",
               regexp = "y")
  expect_error(dpsco(x, y, family = "poisson", method = "fw"),
               class = "dpsco_arg_error", regexp = "family")
})

# ---- weights and offset ------------------------------------------------------

wo_data <- function(n = 200, family = "gaussian") {
  set.seed(12)
  x <- matrix(stats::rnorm(n * 4), n, 4)
  eta <- drop(x %*% c(0.6, -0.4, 0, 0))
  off <- stats::runif(n, -0.5, 0.5)
  y <- if (family == "poisson") as.double(stats::rpois(n, exp(0.3 + off + eta)))
       else eta + off + stats::rnorm(n)
  list(x = x, y = y, off = off, w = stats::runif(n))
}

test_that("weights of 1 give the unweighted fit exactly", {
  d <- wo_data()
  for (args in list(list(), list(family = "poisson", y = wo_data(family = "poisson")$y),
                    list(method = "kamath", optimizer = "spgd"))) {
    base <- c(list(x = d$x, y = d$y, epsilon = 1, nlambda = 4),
              args[setdiff(names(args), "y")])
    if (!is.null(args$y)) base$y <- args$y
    set.seed(5)
    a <- do.call(dpsco, base)
    set.seed(5)
    b <- do.call(dpsco, c(base, list(weights = rep(1, nrow(d$x)))))
    expect_identical(coef(a), coef(b))
    expect_identical(a$privacy$released, b$privacy$released)
  }
})

test_that("0/1 weights drop the zero-weight records at the same public n", {
  d <- wo_data()
  keep <- d$w > 0.3
  w01 <- as.double(keep)
  n <- nrow(d$x)
  for (fam in c("gaussian", "poisson")) {
    y <- if (fam == "poisson") wo_data(family = "poisson")$y else d$y
    a <- dpsco(d$x, y, family = fam, method = "none", tuning = "public",
               lambda = c(0.1, 0.02), iterations = 50, step_size = 0.2,
               weights = w01)
    b <- dpsco(d$x[keep, ], y[keep], family = fam, method = "none",
               tuning = "public", lambda = c(0.1, 0.02), iterations = 50,
               step_size = 0.2, public_n = n)
    expect_equal(coef(a), coef(b), tolerance = 1e-14)
  }
  # a private release of the clipped gradient: the zero-weight records add
  # nothing, the divisor stays the public n
  s <- list(oracle = 1L, m = n, clip = 2, rho = 0, k = 1L, s = 1, nu = 1,
            family = 0L, intercept = 1L, noise_sd = 0, rate = 1, threads = 1L)
  beta <- c(0.1, 0.2, -0.1, 0, 0.3)
  ga <- .Call(C_dpsco_release, d$x, d$y, c(s, list(weights = w01)), beta)
  gb <- .Call(C_dpsco_release, d$x[keep, ], d$y[keep], s, beta)
  expect_equal(ga, gb, tolerance = 1e-14)
  # and the weight scales the record's gradient before the clip
  r <- d$w * (drop(cbind(1, d$x) %*% beta) - d$y)
  wn <- sqrt(1 + rowSums(d$x^2))
  g_ref <- drop(crossprod(cbind(1, d$x), r * pmin(1, 2 / (abs(r) * wn)))) / n
  expect_equal(.Call(C_dpsco_release, d$x, d$y,
                     c(s, list(weights = d$w)), beta), g_ref,
               tolerance = 1e-12)
})

test_that("weights and offsets with method none give glmnet's solution", {
  skip_if_not_installed("glmnet")
  lam <- c(0.05, 0.01)
  n <- 200
  for (fam in c("gaussian", "poisson")) {
    d <- wo_data(n, fam)
    # the weighted loss is divided by the public n, glmnet's by sum(w):
    # the same solution at lambda n / sum(w)
    fit <- dpsco(d$x, d$y, family = fam, method = "none", tuning = "public",
                 lambda = lam, iterations = 4000,
                 step_size = if (fam == "poisson") 0.2 else 0.5,
                 weights = d$w, offset = d$off,
                 control = dpsco_control(output = "last"))
    g <- glmnet::glmnet(d$x, d$y, family = fam, weights = d$w,
                        offset = d$off, lambda = lam * n / sum(d$w),
                        standardize = FALSE, thresh = 1e-14, maxit = 1e6)
    expect_lt(max(abs(as.matrix(coef(fit)) - as.matrix(coef(g)))), 1e-6)
    nx <- d$x[1:5, ]
    expect_equal(unname(predict(fit, nx, newoffset = d$off[1:5],
                                type = "response")),
                 unname(predict(g, nx, newoffset = d$off[1:5],
                                type = "response")), tolerance = 1e-6)
  }
})

test_that("a private fit with an offset starts beside it", {
  d <- wo_data(3000, "poisson")
  set.seed(2)
  fit <- dpsco(d$x, d$y, family = "poisson", epsilon = 2, offset = d$off)
  # the centre released is the mean count per unit of exposure e^offset
  expect_lt(abs(log(fit$privacy$released$centre) -
                  log(mean(d$y * exp(-d$off)))), 0.2)
  # (seeds 1 to 6: errors 0.15 to 0.27, against 0.08 to 0.18 in 0.12.0:
  # the curvature's rows are weighted by their exposures over the
  # exposure bound's octave edge, 2 for exposures in [0.6, 1.65], which
  # halves the curvature's signal against its noise; in exchange a shift
  # of the offsets no longer scales the Newton steps)
  expect_lt(max(abs(coef(fit)[2:3, 10] - c(0.6, -0.4))), 0.3)
  # cv.dpsco() carries the weights and offsets to its parts
  set.seed(3)
  cv <- cv.dpsco(d$x, d$y, family = "poisson", epsilon = 2, offset = d$off,
                 weights = d$w)
  p1 <- predict(cv, d$x[1:3, ], newoffset = d$off[1:3], type = "link")
  p0 <- predict(cv, d$x[1:3, ], newoffset = rep(0, 3), type = "link")
  expect_equal(drop(p1 - p0), d$off[1:3])
})

test_that("bad weights, offsets and newoffset are argument errors", {
  d <- wo_data(50)
  err <- function(expr, arg)
    expect_error(expr, class = "dpsco_arg_error", regexp = paste0("`", arg, "`"))
  err(dpsco(d$x, d$y, weights = d$w * 2), "weights")
  err(dpsco(d$x, d$y, weights = -d$w), "weights")
  err(dpsco(d$x, d$y, weights = d$w[-1]), "weights")
  err(dpsco(d$x, d$y, weights = replace(d$w, 3, NA)), "weights")
  err(dpsco(d$x, d$y, weights = as.character(d$w)), "weights")
  err(dpsco(d$x, d$y, offset = d$off[-1]), "offset")
  err(dpsco(d$x, d$y, offset = replace(d$off, 2, Inf)), "offset")
  err(cv.dpsco(d$x, d$y, weights = d$w + 1), "weights")
  fit <- dpsco(d$x, d$y, offset = d$off, nlambda = 2)
  err(predict(fit, d$x), "newoffset")
  err(predict(fit, d$x, newoffset = 1:2), "newoffset")
  plain <- dpsco(d$x, d$y, nlambda = 2)
  err(predict(plain, d$x, newoffset = d$off), "newoffset")
})

test_that("a multinomial fit: glmnet's shape, reproducible, its errors", {
  set.seed(6)
  n <- 400
  x <- matrix(stats::rnorm(n * 3), n)
  y <- factor(sample(c("u", "v", "w"), n, replace = TRUE),
              levels = c("u", "v", "w", "z"))
  set.seed(1)
  fit <- dpsco(x, y, family = "multinomial", epsilon = 1, nlambda = 3)
  set.seed(1)
  again <- dpsco(x, y, family = "multinomial", epsilon = 1, nlambda = 3)
  expect_identical(fit$beta, again$beta)
  expect_s3_class(fit, "dpsco_multinomial")
  # the declared level z, absent from the data, is a class of the model
  expect_identical(rownames(fit$a0), c("u", "v", "w", "z"))
  expect_identical(names(fit$beta), c("u", "v", "w", "z"))
  expect_equal(unname(colSums(fit$a0)), rep(0, 3), tolerance = 1e-12)
  expect_identical(dim(fit$beta$u), c(3L, 3L))
  expect_equal(fit$df, colSums(Reduce(`|`, lapply(fit$beta, `!=`, 0))))
  # the noise covers all K (p + 1) coordinates: holland's sensitivity
  # 2 sqrt(2) s sqrt(d) / (3 m) at d = 4 x 4
  set.seed(1)
  h <- dpsco(x, y, family = "multinomial", method = "holland", epsilon = 1,
             nlambda = 2, tuning = "public", iterations = 3)
  expect_equal(privacy(h)$sensitivity,
               2 * sqrt(2) * h$settings$s * sqrt(16) / (3 * n))
  expect_error(dpsco(x, y, family = "multinomial", offset = rep(0, n)),
               "offset")
  expect_error(dpsco(x, y, family = "multinomial", trace = TRUE), "trace")
  expect_error(dpsco(x, as.integer(y), family = "multinomial"),
               "must be a factor")
  expect_error(dpsco(x, y, family = "multinomial", method = "fw"),
               "is not fitted by method")
})
