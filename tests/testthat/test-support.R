# The support rule (R/support.R): a penalised coefficient within
# `support_level` noise sds of 0 is 0.  The references recompute the noise
# sd from the fit's stored released values in plain R, by routes other than
# the package's (inverse matrices and closed-form recursions for "newton",
# the joint d x d covariance of iterate and average for "spgd").

support_data <- function(n = 3000, seed = 11) {
  set.seed(seed)
  x <- matrix(rnorm(n * 4), n, 4)
  y <- drop(x %*% c(1, -1, 1, 0)) + rt(n, df = 3)
  list(x = cbind(x, 0), y = y)
}

# "newton" with its default 2 steps, output the tail (the second iterate):
# under the quadratic model the iterate's error is -eta A^-1 e, e the
# gradient error of the step, e_1 = n_1 and e_t = w e_(t-1) + (1 - w) n_t.
newton_sd_ref <- function(sp, nlambda) {
  ainv <- solve(sp$curvature)
  w <- sp$memory
  v <- numeric(2 * nlambda)
  v[1] <- 1
  for (t in 2:length(v)) v[t] <- w^2 * v[t - 1] + (1 - w)^2
  base <- sp$noise_sd * sp$step_size * sqrt(diag(ainv %*% ainv))
  outer(base, sqrt(v[2 * seq_len(nlambda)]))
}

# "spgd", output the tail average: x_t = (I - g A) x_(t-1) + g n_t over
# every step of the path, the average over steps > T/2 of each lambda, the
# next lambda started from it.
spgd_sd_ref <- function(sp, nlambda) {
  d <- nrow(sp$curvature)
  g <- sp$step_size
  M <- diag(d) - g * sp$curvature
  T <- sp$steps
  from <- T %/% 2
  S <- matrix(0, 2 * d, 2 * d)  # joint covariance of (x, average)
  out <- matrix(0, d, nlambda)
  ix <- seq_len(d)
  im <- d + ix
  for (l in seq_len(nlambda)) {
    for (t in seq_len(T)) {
      b <- if (t > from) 1 / (t - from) else 0
      F <- rbind(cbind(M, matrix(0, d, d)), cbind(b * M, (1 - b) * diag(d)))
      G <- rbind(g * diag(d), b * g * diag(d))
      S <- F %*% S %*% t(F) + G %*% t(G)
    }
    S[ix, ix] <- S[im, im]
    S[ix, im] <- S[im, im]
    S[im, ix] <- S[im, im]
    out[, l] <- diag(S[im, im])
  }
  sp$noise_sd * sqrt(out)
}

# The rule itself, applied to the stored raw path.
expect_rule <- function(fit, sd) {
  sp <- fit$support
  pen <- seq_len(nrow(fit$beta)) + fit$intercept
  small <- abs(sp$raw[pen, ]) <= sp$level * sd[pen, ]
  expect_true(any(small) && any(!small))
  expect_true(all(fit$beta[small] == 0))
  expect_equal(unname(fit$beta[!small]), unname(sp$beta_raw[!small]),
               tolerance = 1e-12)
}

test_that("the all-zero column gets exactly 0, the true effects stay", {
  dat <- support_data()
  set.seed(1)
  fit <- dpsco(dat$x, dat$y, epsilon = 1)
  set.seed(1)
  raw <- dpsco(dat$x, dat$y, epsilon = 1,
               control = dpsco_control(support = "none"))
  # its gradient is only noise: without the rule it is not 0
  expect_true(any(raw$beta[5, ] != 0))
  expect_true(all(fit$beta[5, ] == 0))
  # the true effects are selected at the small penalties
  expect_true(all(fit$beta[1:3, fit$dim[2]] != 0))
  # the rule draws no random numbers: the raw path is the fit without it
  expect_identical(fit$support$beta_raw, raw$beta)
  expect_identical(fit$a0, raw$a0)
  expect_null(raw$support)
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
  sd <- newton_sd_ref(sp, 6)
  expect_equal(unname(sp$sd), unname(sd), tolerance = 1e-8)
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
  sd <- spgd_sd_ref(sp, 3)
  expect_equal(unname(sp$sd), unname(sd), tolerance = 1e-8)
  expect_rule(fit, sd)
})

test_that("every oracle of the path, and the level, reach the rule", {
  dat <- support_data(n = 2000)
  for (m in c("clip", "kamath", "holland")) {
    set.seed(4)
    fit <- dpsco(dat$x, dat$y, method = m, epsilon = 1, nlambda = 4)
    expect_rule(fit, fit$support$sd)
  }
  set.seed(4)
  lo <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 4,
              control = dpsco_control(support_level = 0.5))
  set.seed(4)
  hi <- dpsco(dat$x, dat$y, epsilon = 1, nlambda = 4,
              control = dpsco_control(support_level = 4))
  expect_identical(lo$support$raw, hi$support$raw)
  expect_true(sum(hi$df) < sum(lo$df))
  expect_equal(unname(hi$df),
               colSums(abs(hi$support$raw[-1, ]) > 4 * hi$support$sd[-1, ]))
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
