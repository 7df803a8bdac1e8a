# risk_path(), plot_risk() and plot_utility(), checked against hand
# computations of the held-out loss and of the per-setting summaries.

study_fit <- function(family = "gaussian", seed = 5) {
  set.seed(seed)
  n <- 300
  p <- 4
  x <- matrix(stats::runif(n * p, -1, 1), n, p)
  eta <- drop(x %*% c(1.5, -1, 0, 0))
  y <- if (family == "gaussian") eta + stats::rt(n, df = 3)
       else stats::rbinom(n, 1, stats::plogis(2 * eta))
  train <- seq_len(200)
  fit <- dpsco(tuning = "public", x[train, ], y[train], family = family, method = "clip",
               lambda = c(0.2, 0.02), iterations = 12, step_size = 0.5,
               trace = c(1, 4, 12), calibration = "paper")
  list(fit = fit, newx = x[-train, ], newy = y[-train])
}

test_that("risk_path() is the held-out loss of each traced iterate", {
  for (family in c("gaussian", "binomial")) {
    d <- study_fit(family)
    tr <- d$fit$trace
    for (s in 1:2) {
      rp <- risk_path(d$fit, d$newx, d$newy, s = s)
      expect_identical(rp$step, c(1L, 4L, 12L))
      hand <- vapply(1:3, function(i) {
        eta <- tr$a0[i, s] + drop(d$newx %*% tr$beta[, i, s])
        if (family == "gaussian") mean((d$newy - eta)^2) / 2
        else mean(log(1 + exp(eta)) - d$newy * eta)
      }, 0)
      expect_equal(rp$risk, hand, tolerance = 1e-12)
    }
    # the last traced step of the average is the fitted coefficient vector
    # (before the support rule: the trace holds the optimiser's iterates)
    b <- if (is.null(d$fit$support)) d$fit$beta else d$fit$support$beta_raw
    eta <- d$fit$a0[2] + drop(d$newx %*% b[, 2])
    last <- if (family == "gaussian") mean((d$newy - eta)^2) / 2
            else mean(log(1 + exp(eta)) - d$newy * eta)
    expect_equal(tail(risk_path(d$fit, d$newx, d$newy)$risk, 1), last,
                 tolerance = 1e-12)
  }
})

test_that("risk_path() rejects fits without a trace and bad indices", {
  d <- study_fit()
  bare <- dpsco(tuning = "public", d$newx, d$newy, method = "none", lambda = 0.1, iterations = 2)
  cnd <- tryCatch(risk_path(bare, d$newx, d$newy), dpsco_arg_error = identity)
  expect_identical(cnd$arg, "fit")
  cnd <- tryCatch(risk_path(d$fit, d$newx, d$newy, s = 3), dpsco_arg_error = identity)
  expect_identical(cnd$arg, "s")
  cnd <- tryCatch(risk_path(d$fit, d$newx[, 1:2], d$newy), dpsco_arg_error = identity)
  expect_identical(cnd$arg, "newx")
})

test_that("plot_risk() draws every path and returns them", {
  d <- study_fit()
  fits <- list(a = d$fit, b = d$fit)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  out <- plot_risk(fits, d$newx, d$newy, reference = 1)
  expect_named(out, c("a", "b"))
  expect_equal(out$a, risk_path(d$fit, d$newx, d$newy))
  usr <- graphics::par("usr")
  # y range covers the risks and the reference, with R's 4% extension
  r <- range(c(out$a$risk, 1))
  expect_equal(usr[3:4], r + c(-1, 1) * 0.04 * diff(r), tolerance = 1e-12)
})

test_that("plot_utility() summarises mean and sd per setting and group", {
  set.seed(2)
  d <- expand.grid(epsilon = c(0.5, 1, 3), method = c("a", "b"), rep = 1:4)
  d$error <- 1 / d$epsilon + (d$method == "b") + stats::rnorm(nrow(d), sd = 0.1)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  agg <- plot_utility(d, x = "epsilon", y = "error", group = "method")
  for (i in seq_len(nrow(agg))) {
    v <- d$error[d$epsilon == agg$epsilon[i] & d$method == agg$method[i]]
    expect_equal(agg$mean[i], mean(v), tolerance = 1e-14)
    expect_equal(agg$sd[i], stats::sd(v), tolerance = 1e-14)
    expect_identical(agg$n[i], 4)
  }
  # one panel per value of a third variable
  d$p <- rep(c(10, 20), each = nrow(d) / 2)  # reps 1-2 and 3-4
  agg2 <- plot_utility(d, x = "epsilon", y = "error", group = "method", panel = "p")
  expect_identical(nrow(agg2), 12L)
  cnd <- tryCatch(plot_utility(d, x = "nope", y = "error", group = "method"),
                  dpsco_arg_error = identity)
  expect_identical(cnd$arg, "data")
})
