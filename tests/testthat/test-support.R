# The support rule (R/support.R): a penalised coefficient within
# `support_level` noise sds of 0 is 0.  The reference recomputes the noise
# sd from the fit's stored released values in plain R by another route
# than the package's: the joint covariance of the optimiser's linearised
# state in the coordinates (3d x 3d matrices), not per eigen-direction.

support_data <- function(n = 3000, seed = 11) {
  set.seed(seed)
  x <- matrix(rnorm(n * 4), n, 4)
  y <- drop(x %*% c(1, -1, 1, 0)) + rt(n, df = 3)
  list(x = cbind(x, 0), y = y)
}

# The optimisers linearised in the coordinates themselves (full matrices,
# no eigenbasis), under the optimiser's own model: the loss's curvature is
# H = (A - r I) / eta ("newton") or A - r I ("spgd"), A the released
# curvature, with r = 0 (the rule takes A as it is, ridge included).
# "newton": state (c, x, m), c the carried gradient error, x the iterate's
# deviation, m the tail average; per step eps = w c + (1 - w) n,
# x' = x - eta A^-1 (H x + eps), c' = eps + (r / eta)(x' - x).
# "spgd": x' = (I - g H) x + g n.  Each lambda starts from its output.
sd_ref <- function(sp, nlambda) {
  A <- sp$curvature
  d <- nrow(A)
  I <- diag(d)
  O <- matrix(0, d, d)
  r <- 0
  eta <- sp$step_size
  newton <- sp$optimizer == "newton"
  T <- sp$steps
  from <- T %/% 2
  S <- matrix(0, 3 * d, 3 * d)
  out <- matrix(0, d, nlambda)
  cov <- vector("list", nlambda)
  first <- TRUE
  for (l in seq_len(nlambda)) {
    for (t in seq_len(T)) {
      b <- if (t > from) 1 / (t - from) else 0
      if (newton) {
        w <- if (first) 0 else sp$memory
        K <- eta * solve(A)
        H <- (A - r * I) / eta
        # eps = w c + (1 - w) n; x' = (I - K H) x - K eps
        Xc <- -K * w
        Xx <- I - K %*% H
        Xn <- -K * (1 - w)
        Cc <- w * I + (r / eta) * Xc
        Cx <- (r / eta) * (Xx - I)
        Cn <- (1 - w) * I + (r / eta) * Xn
      } else {
        g <- eta
        Xc <- O
        Xx <- I - g * (A - r * I)
        Xn <- g * I
        Cc <- Cx <- Cn <- O
      }
      first <- FALSE
      F <- rbind(cbind(Cc, Cx, O), cbind(Xc, Xx, O),
                 cbind(b * Xc, b * Xx, (1 - b) * I))
      G <- rbind(Cn, Xn, b * Xn)
      S <- F %*% S %*% t(F) + G %*% t(G)
    }
    q <- if (newton) r / eta else 0
    E <- rbind(cbind(I, -q * I, q * I), cbind(O, O, I), cbind(O, O, I))
    S <- E %*% S %*% t(E)
    out[, l] <- diag(S[d + seq_len(d), d + seq_len(d)])
    cov[[l]] <- sp$noise_sd^2 * S[d + seq_len(d), d + seq_len(d)]
  }
  structure(sp$noise_sd * sqrt(out), cov = cov)
}

# The kept set K among the non-zeros N of one raw column b by backward
# elimination, each model refitted from the raw column itself (not by
# the package's recursive updates): with D = N \ K dropped, the kept
# coefficients are b_K + A_KK^-1 A_KD b_D, a linear map T = [I, A_KK^-1
# A_KD] of (b_K, b_D), whose noise covariance is T C T' for the raw
# noise covariance C; the penalised coefficient with the smallest |.| /
# sd goes while that ratio is at most the level.  Those beyond the level
# in the full model are never dropped.
stepwise_ref <- function(b, a, C, pen, level) {
  nz <- which(b != 0)
  kept <- nz
  stay <- c(setdiff(nz, pen), pen[abs(b[pen]) > level * sqrt(diag(C))[pen]])
  repeat {
    dr <- setdiff(nz, kept)
    m <- if (length(dr)) solve(a[kept, kept, drop = FALSE],
                               a[kept, dr, drop = FALSE])
         else matrix(0, length(kept), 0)
    bk <- b[kept] + drop(m %*% b[dr])
    tm <- cbind(diag(length(kept)), m)
    v <- diag(tm %*% C[c(kept, dr), c(kept, dr), drop = FALSE] %*% t(tm))
    z <- abs(bk) / sqrt(v)
    z[kept %in% stay] <- Inf
    if (!length(kept) || min(z) > level) break
    kept <- kept[-which.min(z)]
  }
  kept
}

# The rule itself, applied to the stored raw path: the coefficients it
# drops are 0 (within the level marginally, or by stepwise_ref() with the
# raw noise covariances `cov`, attribute of sd_ref()'s result), and the
# others (the intercept too) take over what the dropped ones predicted in
# the metric of the released curvature A, b_R + A_RR^-1 A_RD b_D (D
# dropped, R kept), computed here by plain R.
expect_rule <- function(fit, sd) {
  sp <- fit$support
  pen <- seq_len(nrow(fit$beta)) + fit$intercept
  a <- sp$curvature
  small <- abs(sp$raw[pen, ]) <= sp$level * sd[pen, ]
  if (identical(sp$rule, "stepwise")) {
    for (l in seq_len(ncol(small))) {
      kept <- stepwise_ref(sp$raw[, l], a, attr(sd, "cov")[[l]], pen,
                           sp$level)
      small[, l] <- !(pen %in% kept)
    }
  } else {
    expect_identical(sp$rule, "marginal")
  }
  expect_true(any(small) && any(!small))
  expect_true(all(fit$beta[small] == 0))
  ref <- sp$raw
  for (l in seq_len(ncol(ref))) {
    dr <- pen[small[, l] & sp$raw[pen, l] != 0]
    kp <- setdiff(which(sp$raw[, l] != 0), dr)
    if (length(dr) && length(kp) && !is.null(a))
      ref[kp, l] <- ref[kp, l] +
        solve(a[kp, kp, drop = FALSE], a[kp, dr, drop = FALSE] %*% sp$raw[dr, l])
    ref[dr, l] <- 0
  }
  expect_equal(unname(fit$beta), unname(ref[pen, ] / fit$standardize$scale),
               tolerance = 1e-10)
  if (fit$intercept)
    expect_equal(unname(fit$a0), unname(ref[1L, ]), tolerance = 1e-10)
}

test_that("the all-zero column gets exactly 0, the true effects stay", {
  dat <- support_data()
  set.seed(1)
  fit <- dpsco(dat$x, dat$y, epsilon = 3)
  set.seed(1)
  raw <- dpsco(dat$x, dat$y, epsilon = 3,
               control = dpsco_control(support = "none"))
  # its gradient is only noise: without the rule it is not 0
  expect_true(any(raw$beta[5, ] != 0))
  expect_true(all(fit$beta[5, ] == 0))
  # the true effects are selected together at some penalty
  expect_true(any(colSums(fit$beta[1:3, ] != 0) == 3))
  # the rule draws no random numbers: the raw path is the fit without it,
  # and the intercept takes over the dropped coefficients' share of the
  # mean prediction
  expect_identical(fit$support$beta_raw, raw$beta)
  expect_rule(fit, sd_ref(fit$support, length(fit$lambda)))
  expect_null(raw$support)
})

test_that("correlated columns: stepwise keeps the combination the marginal rule drops", {
  # six noisy copies of one factor carry the signal together; each copy's
  # coefficient alone is within its noise, since any other copy could
  # replace it
  copies <- function(n) {
    f <- stats::rnorm(n)
    x <- cbind(f + 0.3 * matrix(stats::rnorm(n * 6), n), stats::rnorm(n))
    list(x = x, mean = drop(x[, 1:6] %*% rep(1 / 3, 6)))
  }
  set.seed(32)
  tr <- copies(2000)
  y <- tr$mean + stats::rt(2000, df = 3)
  te <- copies(2000)
  set.seed(2)
  st <- dpsco(tr$x, y, epsilon = 1, nlambda = 6)
  set.seed(2)
  mg <- dpsco(tr$x, y, epsilon = 1, nlambda = 6,
              control = dpsco_control(support = "marginal"))
  expect_identical(st$support$rule, "stepwise")
  expect_identical(mg$support$rule, "marginal")
  expect_identical(st$support$raw, mg$support$raw)
  expect_rule(st, sd_ref(st$support, 6))
  expect_rule(mg, mg$support$sd)
  mse <- function(f) colMeans((predict(f, te$x) - te$mean)^2)
  null <- mean((mean(y) - te$mean)^2)
  # at the second and third penalties the marginal rule keeps nothing: the
  # null model's error; stepwise keeps copies and a fraction of it
  expect_equal(unname(mg$df[2:3]), c(0, 0))
  expect_true(all(st$df[2:3] >= 1))
  expect_equal(unname(mse(mg)[2:3]), rep(null, 2), tolerance = 0.02)
  expect_true(all(mse(st)[2:5] < 0.25 * null))
  # the pure-noise column stays out
  expect_true(all(st$beta[7, ] == 0))
  # what the marginal rule keeps, stepwise keeps
  expect_true(all(st$beta[mg$beta != 0] != 0))
})

test_that("stepwise never drops what passes in the full model", {
  # a 300-record logistic fit whose strongest raw coefficient, 5.6 sds in
  # the full model, fell within the level once the others' transfers
  # added their noise to it
  set.seed(9)
  x <- matrix(stats::rnorm(1600), 400, 4)
  eta <- drop(x %*% c(1.5, -1, 0.5, 0))
  stats::rnorm(400)                       # (the draws of test-assess.R's data)
  y <- stats::rbinom(400, 1, stats::plogis(eta))
  fit <- withr::with_seed(3, dpsco(x[1:300, ], y[1:300], family = "binomial",
                                   epsilon = 1, nlambda = 5))
  sp <- fit$support
  expect_identical(sp$rule, "stepwise")
  pass <- abs(sp$raw[-1, ]) > sp$level * sp$sd[-1, ]
  expect_true(any(pass))
  expect_true(all(fit$beta[pass] != 0))
  expect_rule(fit, sd_ref(sp, 5))
})

test_that("newton: the rule matches a plain-R reference from released values", {
  dat <- support_data()
  set.seed(2)
  fit <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 6)
  sp <- fit$support
  expect_identical(sp$optimizer, "newton")
  expect_identical(sp$steps, 2L)
  # the optimiser's noise sd of the privacy record
  expect_equal(sp$noise_sd, privacy(fit)$noise_sd)
  sd <- sd_ref(sp, 6)
  expect_equal(unname(sp$sd), unname(sd[, , drop = FALSE]), tolerance = 1e-8)
  expect_rule(fit, sd)
  expect_equal(fit$df, colSums(sp$beta_raw != 0) -
                 colSums(sp$beta_raw != 0 & fit$beta == 0))
})

test_that("spgd: the rule matches a plain-R reference from released values", {
  dat <- support_data()
  set.seed(3)
  fit <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 3, optimizer = "spgd",
               iterations = 20, method = "holland")
  sp <- fit$support
  sd <- sd_ref(sp, 3)
  expect_equal(unname(sp$sd), unname(sd[, , drop = FALSE]), tolerance = 1e-8)
  expect_rule(fit, sd)
})

test_that("every oracle of the path, and the level, reach the rule", {
  dat <- support_data(n = 2000)
  for (m in c("clip", "kamath", "holland")) {
    set.seed(4)
    # (kamath's median adds noise k f(k) times its clip: at epsilon 1 every
    # coefficient is within it here)
    fit <- dpsco(dat$x, dat$y, method = m, epsilon = if (m == "kamath") 4 else 1,
                 nlambda = 4)
    expect_rule(fit, sd_ref(fit$support, 4))
  }
  set.seed(4)
  lo <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 4,
              control = dpsco_control(support_level = 0.5))
  set.seed(4)
  hi <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 4,
              control = dpsco_control(support_level = 4))
  expect_identical(lo$support$raw, hi$support$raw)
  expect_true(sum(hi$df) < sum(lo$df))
  expect_rule(hi, sd_ref(hi$support, 4))
  # the marginal rule keeps what passes the level in the full model
  set.seed(4)
  mg <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 4,
              control = dpsco_control(support_level = 4, support = "marginal"))
  expect_identical(mg$support$raw, hi$support$raw)
  expect_equal(unname(mg$df),
               colSums(abs(mg$support$raw[-1, ]) > 4 * mg$support$sd[-1, ]))
  expect_rule(mg, mg$support$sd)
})

test_that("method = \"none\" is unchanged and carries no support record", {
  dat <- support_data(n = 500)
  fit <- dpsco(dat$x, dat$y, method = "none", nlambda = 5, iterations = 50)
  fit2 <- dpsco(dat$x, dat$y, method = "none", nlambda = 5, iterations = 50,
                control = dpsco_control(support = "none"))
  expect_null(fit$support)
  expect_identical(fit$beta, fit2$beta)
})

test_that("set.seed() reproduces a fit with its support", {
  dat <- support_data(n = 1000)
  set.seed(5)
  a <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 4)
  set.seed(5)
  b <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 4)
  expect_identical(a$beta, b$beta)
  expect_identical(a$support, b$support)
})

test_that("print() and plot() show the support", {
  dat <- support_data(n = 1000)
  set.seed(6)
  fit <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 4)
  out <- utils::capture.output(print(fit))
  df <- as.integer(sapply(strsplit(trimws(out[grep("^[0-9]+ ", trimws(out))]),
                                   " +"), `[`, 2L))
  expect_equal(df, unname(colSums(fit$beta != 0)))
  expect_true(sum(df) < sum(colSums(fit$support$beta_raw != 0)))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(fit))
})

test_that("bad support settings are errors naming the argument", {
  expect_error(dpsco_control(support = "yes"), "support")
  expect_error(dpsco_control(support_level = -1), "support_level")
  expect_error(dpsco_control(support_level = NA), "support_level")
})

test_that("without a released curvature: step size times the noise, averaged", {
  dat <- support_data(n = 800)
  set.seed(7)
  fit <- dpsco(tuning = "public", dat$x, dat$y, epsilon = 2, nlambda = 3,
               iterations = 12, step_size = 0.2, calibration = "paper")
  sp <- fit$support
  expect_null(sp$curvature)
  # each iterate carries its own step's noise: the average of 12 of them
  sd <- 0.2 * privacy(fit)$noise_sd / sqrt(12)
  expect_equal(unname(sp$sd), matrix(sd, 6, 3), tolerance = 1e-12)
  expect_rule(fit, sp$sd)
})

test_that("the constraint-set methods do not take the support settings", {
  dat <- support_data(n = 300)
  expect_error(dpsco(dat$x, dat$y, method = "fw", epsilon = 1,
                     control = dpsco_control(support = "none")),
               class = "dpsco_arg_error")
})

# Three classes from two real features, plus an all-zero column.
multinomial_data <- function(n = 3000, seed = 12) {
  set.seed(seed)
  x <- matrix(rnorm(n * 2), n, 2)
  eta <- cbind(0, 1.5 * x[, 1], -1.5 * x[, 2])
  pr <- exp(eta) / rowSums(exp(eta))
  y <- factor(apply(pr, 1, function(q) sample(3, 1, prob = q)), 1:3,
              c("a", "b", "c"))
  list(x = cbind(x, 0), y = y)
}

test_that("multinomial: the grouped rule from released values, in plain R", {
  dat <- multinomial_data()
  set.seed(6)
  fit <- dpsco(dat$x, dat$y, family = "multinomial", epsilon = 1, nlambda = 4,
               iterations = 2)
  sp <- fit$support
  expect_identical(sp$steps, 2L)
  expect_identical(sp$memory, 0)
  # two Newton steps without memory: the output is the second step's
  # iterate, whose deviation is -eta (S (x) A)^-1 P n for the gradient
  # noise n after the engine's centring over the classes,
  # P = (I - 11'/K) (x) I
  A <- sp$curvature
  S <- sp$class_matrix
  d <- nrow(A)
  M <- solve(kronecker(S, A))
  P <- kronecker(diag(3) - 1 / 3, diag(d))
  sd <- sp$noise_sd * sp$step_size * sqrt(diag(M %*% P %*% M))
  expect_equal(unname(sp$sd), matrix(sd, 3 * d, 4), tolerance = 1e-8)
  # a feature is dropped in every class when no class's raw coefficient
  # passes 5 sds; the kept non-zeros of its class then take over its part
  # of the predictor in the metric of A
  raw <- sp$raw
  for (l in 1:4) {
    blocks <- lapply(1:3, function(k) (k - 1) * d + 1:d)
    keep <- Reduce(`|`, lapply(blocks, function(r)
      abs(raw[r[-1], l]) > 5 * sd[r[-1]]))
    for (k in 1:3) {
      b <- raw[blocks[[k]], l]
      drop <- which(c(FALSE, !keep) & b != 0)
      rest <- setdiff(which(b != 0), drop)
      if (length(drop))
        b[rest] <- b[rest] + solve(A[rest, rest, drop = FALSE],
                                   A[rest, drop, drop = FALSE] %*% b[drop])
      b[drop] <- 0
      # in the engine's units: x over its released bounds (the fit's
      # intercepts are centred over the classes afterwards)
      got <- fit$beta[[k]][, l] * privacy(fit)$released$x_bound
      expect_equal(unname(got), b[-1], tolerance = 1e-10)
    }
  }
  # the all-zero column is out of the selected models, the real ones in
  expect_true(all(vapply(fit$beta, function(b) b[3, 4] == 0, TRUE)))
  expect_true(all(fit$beta$b[1, 2:4] != 0) && all(fit$beta$c[2, 2:4] != 0))
  # the rule off: the raw path
  set.seed(6)
  off <- dpsco(dat$x, dat$y, family = "multinomial", epsilon = 1, nlambda = 4,
               iterations = 2, control = dpsco_control(support = "none"))
  expect_equal(off$beta, fit$support$beta_raw)
})

test_that("a ridge fit keeps every coefficient: the rule acts on sparse penalties", {
  set.seed(8)
  n <- 400
  x <- matrix(stats::rnorm(n * 6), n)
  y <- drop(x %*% c(1, -1, 0.5, 0, 0, 0)) + stats::rnorm(n)
  ridge <- dpsco(x, y, alpha = 0, epsilon = 1)
  # every penalty but the first (the trivial model, all zero by design)
  expect_identical(unname(ridge$df[-1L]), rep(6, length(ridge$lambda) - 1L))
  expect_null(ridge$support)
  # the same fit with a lasso is thinned by the rule
  lasso <- withr::with_seed(1, dpsco(x, y, alpha = 1, epsilon = 1))
  expect_false(is.null(lasso$support))
})
