# plot.dpsco: coefficient paths against log(lambda) or the L1 norm.

plot_fit <- function() {
  set.seed(404)
  n <- 80
  p <- 3
  x <- matrix(runif(n * p, -1, 1), n, p)
  y <- drop(x %*% c(2, -1, 0.3)) + rnorm(n, sd = 0.3)
  dpsco(tuning = "public", x, y, method = "none", iterations = 20, nlambda = 6, step_size = 0.4)
}

# open a null pdf device that keeps a display list; closed on exit of `env`
local_null_device <- function(env = parent.frame()) {
  grDevices::pdf(NULL)
  dev <- grDevices::dev.cur()
  grDevices::dev.control("enable")
  withr::defer(if (dev %in% grDevices::dev.list()) grDevices::dev.off(dev),
               envir = env)
  invisible(dev)
}

# the expected plotting range with R's default 4% extension (xaxs = "r")
extend <- function(lim) lim + c(-1, 1) * 0.04 * (lim[2] - lim[1])

# the graphics calls recorded on the display list: name and arguments
recorded_calls <- function() {
  dl <- grDevices::recordPlot()[[1]]
  lapply(dl, function(e) {
    a <- as.list(e[[2]])
    list(name = a[[1]]$name, args = a[-1])
  })
}

test_that("plot(fit) draws, returns the fit invisibly, x axis is increasing log(lambda) as in glmnet", {
  fit <- plot_fit()
  local_null_device()
  res <- withVisible(plot(fit))
  expect_false(res$visible)
  expect_identical(res$value, fit)
  usr <- par("usr")
  h <- log(fit$lambda)
  expect_lt(usr[1], usr[2])
  expect_equal(usr[1:2], extend(range(h)), tolerance = 1e-10)
  # the y range covers the coefficients
  expect_equal(usr[3:4], extend(range(fit$beta)), tolerance = 1e-10)
})

test_that("plot(fit, xvar = 'norm', label = TRUE) spans the L1 norms", {
  fit <- plot_fit()
  local_null_device()
  res <- withVisible(plot(fit, xvar = "norm", label = TRUE))
  expect_false(res$visible)
  expect_identical(res$value, fit)
  usr <- par("usr")
  l1 <- apply(fit$beta, 2, function(b) sum(abs(b)))
  expect_lt(usr[1], usr[2])
  expect_equal(usr[1:2], extend(range(l1)), tolerance = 1e-10)
  expect_true(usr[1] <= min(l1) && usr[2] >= max(l1))
})

test_that("the drawn curves are the coefficient paths", {
  fit <- plot_fit()
  p <- nrow(fit$beta)
  for (xv in c("lambda", "norm")) {
    local({
      local_null_device()
      plot(fit, xvar = xv)
      calls <- recorded_calls()
      xy <- Filter(function(cl) cl$name == "C_plotXY", calls)
      expect_length(xy, p)
      h <- if (xv == "lambda") log(fit$lambda) else colSums(abs(fit$beta))
      for (j in seq_len(p)) {
        expect_equal(unname(xy[[j]]$args[[1]]$x), unname(h), tolerance = 1e-12)
        expect_equal(unname(xy[[j]]$args[[1]]$y), unname(fit$beta[j, ]),
                     tolerance = 1e-12)
      }
    })
  }
})

test_that("the top axis shows Df at pretty positions and labels mark the path end", {
  fit <- plot_fit()
  local_null_device()
  plot(fit, label = TRUE)
  calls <- recorded_calls()
  axes <- Filter(function(cl) cl$name == "C_axis" && identical(cl$args[[1]], 3),
                 calls)
  expect_length(axes, 1)
  h <- log(fit$lambda)
  at <- pretty(h)
  at <- at[at >= min(h) & at <= max(h)]
  df_at <- vapply(at, function(a) fit$df[which.min(abs(h - a))], 1)
  expect_equal(axes[[1]]$args[[2]], at)
  expect_equal(unname(axes[[1]]$args[[3]]), unname(df_at))
  txt <- Filter(function(cl) cl$name == "C_text", calls)
  expect_length(txt, 1)
  K <- length(fit$lambda)
  expect_equal(txt[[1]]$args[[1]]$x, rep(h[K], nrow(fit$beta)))
  expect_equal(unname(txt[[1]]$args[[1]]$y), unname(fit$beta[, K]))
  expect_equal(as.numeric(txt[[1]]$args[[2]]), seq_len(nrow(fit$beta)))
  # without label = TRUE there is no text
  plot(fit)
  expect_length(Filter(function(cl) cl$name == "C_text", recorded_calls()), 0)
})

test_that("arguments in ... reach matplot and override the defaults", {
  fit <- plot_fit()
  local_null_device()
  plot(fit, xlim = c(-12, 2), ylim = c(-5, 5), xaxs = "i", yaxs = "i",
       col = "black")
  expect_equal(par("usr"), c(-12, 2, -5, 5))
  expect_error(plot(fit, xvar = "deviance"))
})

test_that("a private binomial fit plots too", {
  # (a seed whose noisy path leaves zero: its norms set the axis)
  set.seed(8)
  x <- matrix(runif(100 * 2, -1, 1), 100, 2)
  y <- rbinom(100, 1, plogis(2 * x[, 1]))
  fit <- dpsco(tuning = "public", x, y, family = "binomial", method = "kamath", epsilon = 2,
               iterations = 3, nlambda = 4)
  local_null_device()
  expect_invisible(plot(fit, xvar = "norm"))
  usr <- par("usr")
  expect_equal(usr[1:2], extend(range(colSums(abs(fit$beta)))), tolerance = 1e-10)
})

test_that("a radius path is drawn against increasing log(radius)", {
  set.seed(32)
  x <- matrix(runif(900, -1, 1), 300, 3)
  y <- drop(x %*% c(1, -1, 0)) + rnorm(300)
  fit <- dpsco(x, y, method = "htdp_fw", epsilon = 2, radius = c(0.2, 1, 3))
  local_null_device()
  plot(fit)
  usr <- par("usr")
  expect_lt(usr[1], usr[2])
  expect_equal(usr[1:2], extend(range(log(fit$radius))), tolerance = 1e-10)
})

# ---- plot.cv.dpsco --------------------------------------------------------

plot_cv <- function(curve = 0.25, seed = 3, epsilon = 0.5, method = "clip") {
  set.seed(401)
  n <- 400
  x <- matrix(exp(rnorm(n * 3)), n, 3)
  y <- drop(x %*% c(1, -1, 0)) + rt(n, df = 3)
  set.seed(seed)
  cv.dpsco(x, y, method = method, epsilon = epsilon, curve = curve,
           nlambda = 6)
}

calls_named <- function(calls, name) Filter(function(cl) cl$name == name, calls)

test_that("plot(fit) and plot(cvfit) share glmnet's direction: log(lambda) increasing", {
  cvf <- plot_cv()
  h <- log(cvf$lambda)
  local_null_device()
  plot(cvf)
  usr_cv <- par("usr")
  expect_lt(usr_cv[1], usr_cv[2])
  expect_equal(usr_cv[1:2], extend(range(h)), tolerance = 1e-10)
  plot(cvf$dpsco.fit)
  usr_fit <- par("usr")
  expect_equal(usr_fit[1:2], usr_cv[1:2], tolerance = 1e-10)
  # glmnet's own plots of a path go the same way
  skip_if_not_installed("glmnet")
  set.seed(1)
  gx <- matrix(rnorm(200), 50, 4)
  gfit <- glmnet::glmnet(gx, gx[, 1] + rnorm(50), nlambda = 10)
  plot(gfit, xvar = "lambda")
  expect_lt(par("usr")[1], par("usr")[2])
  expect_equal(par("usr")[1:2], extend(range(log(gfit$lambda))),
               tolerance = 1e-10)
})

test_that("plot(cvfit) draws the clamped noisy release, never below 0, and says so", {
  for (seed in 1:6) local({
    cvf <- plot_cv(seed = seed)
    local_null_device()
    plot(cvf)
    calls <- recorded_calls()
    h <- log(cvf$lambda)
    L <- cvf$loss_bound
    expected <- pmin(pmax(cvf$cvm_noisy, 0), L)
    # the points: the release projected on [0, L]
    pts <- Filter(function(cl) length(cl$args[[1]]$x) == length(h) &&
                    !identical(cl$args[[2]], "n"), calls_named(calls, "C_plotXY"))
    expect_length(pts, 1)
    expect_equal(unname(pts[[1]]$args[[1]]$x), h)
    expect_equal(unname(pts[[1]]$args[[1]]$y), unname(expected))
    expect_true(all(pts[[1]]$args[[1]]$y >= 0))
    # the bars: +-1 noise sd around it, inside [0, L]
    bars <- calls_named(calls, "C_segments")[[1]]
    expect_equal(unname(bars$args[[2]]), unname(pmax(expected - cvf$cvsd, 0)))
    expect_equal(unname(bars$args[[4]]), unname(pmin(expected + cvf$cvsd, L)))
    # the dotted line at the private choice
    ab <- calls_named(calls, "C_abline")
    expect_equal(ab[[1]]$args[[4]], log(cvf$lambda.min))
    # title and legend name the noisy release and its sd, and the choice
    sd_txt <- format(signif(cvf$cvsd, 3))
    ttl <- Filter(function(cl) !is.null(cl$args[[1]]), calls_named(calls, "C_title"))
    expect_identical(ttl[[1]]$args[[1]], paste0(
      "Noisy private release of the validation curve (noise sd ", sd_txt, ")"))
    leg <- calls_named(calls, "C_text")[[1]]$args[[2]]
    expect_identical(leg[1], paste0("noisy release, clamped at 0; bars +-1 noise sd = ",
                                    sd_txt))
    expect_match(leg[2], "^private choice, lambda = ")
    expect_false(any(grepl("min", c(leg, ttl[[1]]$args[[1]]))))
    sub <- Filter(function(cl) length(cl$args) > 1 && !is.null(cl$args[[2]]),
                  calls_named(calls, "C_title"))
    # the zeros explained only where a release went below 0
    expect_identical(sub[[1]]$args[[2]], paste0(
      "noisy validation curve, released with share 0.25 of the budget",
      if (any(cvf$cvm_noisy < 0)) ": points at 0 are clamped noise" else ""))
  })
  # the seeds include releases that went below 0
  raw <- unlist(lapply(1:6, function(s) plot_cv(seed = s)$cvm_noisy))
  expect_true(any(raw < 0))
})

test_that("a title given as main sits above the Df labels of both plots", {
  cvf <- plot_cv()
  for (what in list(cvf, cvf$dpsco.fit, plot_cv(curve = 0))) local({
    local_null_device()
    plot(what, main = "My title")
    calls <- recorded_calls()
    ttl <- Filter(function(cl) identical(cl$args[[1]], "My title"),
                  calls_named(calls, "C_title"))
    expect_length(ttl, 1)
    df_lab <- Filter(function(cl) identical(cl$args[[1]], "Df"),
                     calls_named(calls, "C_mtext"))
    expect_length(df_lab, 1)
    # line 3 of the top margin, above the axis labels; "Df" on the labels'
    # line, right-aligned left of the plot region, where no label is
    expect_identical(ttl[[1]]$args[[5]], 3)
    expect_identical(df_lab[[1]]$args[[3]], 1)
    usr <- par("usr")
    expect_lt(df_lab[[1]]$args[[5]], usr[1])
    expect_identical(df_lab[[1]]$args[[6]], 1)
    expect_gt(ttl[[1]]$args[[5]], df_lab[[1]]$args[[3]] + 1)
    # the top axis carries the Df labels
    top <- Filter(function(cl) identical(cl$args[[1]], 3), calls_named(calls, "C_axis"))
    expect_length(top, 1)
  })
})

test_that("without a curve plot(cvfit) shows the path with the private choice marked", {
  cvf <- plot_cv(curve = 0)
  expect_null(cvf$cvm)
  local_null_device()
  expect_invisible(plot(cvf))
  calls <- recorded_calls()
  fit <- cvf$dpsco.fit
  xy <- calls_named(calls, "C_plotXY")
  # one line per coefficient: the path (legend symbols are lines too),
  # grey under the colour beyond the support rule's noise band
  paths <- Filter(function(cl) length(cl$args[[1]]$x) == length(fit$lambda), xy)
  band <- noise_band(fit)
  expect_true(any(band))
  expect_length(paths, 2 * nrow(fit$beta))
  bright <- fit$beta
  bright[band] <- NA
  for (j in seq_len(nrow(fit$beta))) {
    expect_equal(unname(paths[[j]]$args[[1]]$y), unname(fit$beta[j, ]))
    expect_equal(unname(paths[[nrow(fit$beta) + j]]$args[[1]]$y),
                 unname(bright[j, ]))
  }
  ab <- Filter(function(cl) !is.null(cl$args[[4]]), calls_named(calls, "C_abline"))
  expect_equal(ab[[1]]$args[[4]], log(cvf$lambda.min))
  leg <- calls_named(calls, "C_text")[[1]]$args[[2]]
  expect_identical(leg, sprintf("private choice, lambda = %s (exponential mechanism)",
                                format(signif(cvf$lambda.min, 3))))
  ttl <- Filter(function(cl) !is.null(cl$args[[1]]), calls_named(calls, "C_title"))
  expect_match(ttl[[1]]$args[[1]], "no validation curve released", fixed = TRUE)
})

# ---- multinomial ----------------------------------------------------------

mn_plot_fit <- function() {
  d <- mn_data(n = 200)
  dpsco(d$x, d$y, family = "multinomial", method = "none", tuning = "public",
        nlambda = 6)
}

test_that("plot() of a multinomial fit draws one panel per class, its paths and Df", {
  fit <- mn_plot_fit()
  local_null_device()
  old_mfrow <- par("mfrow")
  res <- withVisible(plot(fit))
  expect_false(res$visible)
  expect_identical(res$value, fit)
  # the layout is restored
  expect_identical(par("mfrow"), old_mfrow)
  calls <- recorded_calls()
  xy <- calls_named(calls, "C_plotXY")
  p <- nrow(fit$beta$u)
  h <- log(fit$lambda)
  expect_length(xy, 3 * p)
  for (k in 1:3) for (j in seq_len(p)) {
    cl <- xy[[(k - 1) * p + j]]
    expect_equal(unname(cl$args[[1]]$x), h, tolerance = 1e-12)
    expect_equal(unname(cl$args[[1]]$y), unname(fit$beta[[k]][j, ]),
                 tolerance = 1e-12)
  }
  # each panel's top axis: that class's own number of non-zeros
  axes <- Filter(function(cl) identical(cl$args[[1]], 3),
                 calls_named(calls, "C_axis"))
  expect_length(axes, 3)
  at <- pretty(h)
  at <- at[at >= min(h) & at <= max(h)]
  for (k in 1:3)
    expect_equal(unname(axes[[k]]$args[[3]]),
                 unname(fit$dfmat[k, vapply(at, function(a) which.min(abs(h - a)), 1L)]))
  ttl <- Filter(function(cl) !is.null(cl$args[[1]]), calls_named(calls, "C_title"))
  expect_identical(vapply(ttl, function(cl) cl$args[[1]], ""), c("u", "v", "w"))
})

test_that("type.coef = '2norm' draws each predictor's norm over the classes", {
  fit <- mn_plot_fit()
  local_null_device()
  plot(fit, type.coef = "2norm", xvar = "norm")
  calls <- recorded_calls()
  xy <- calls_named(calls, "C_plotXY")
  p <- nrow(fit$beta$u)
  expect_length(xy, p)
  nrm <- sqrt(fit$beta$u^2 + fit$beta$v^2 + fit$beta$w^2)
  for (j in seq_len(p)) {
    expect_equal(unname(xy[[j]]$args[[1]]$y), unname(nrm[j, ]), tolerance = 1e-12)
    expect_equal(unname(xy[[j]]$args[[1]]$x), unname(colSums(nrm)),
                 tolerance = 1e-12)
  }
  expect_equal(par("usr")[1:2], extend(range(colSums(nrm))), tolerance = 1e-10)
  expect_error(plot(fit, type.coef = "3norm"), class = "dpsco_arg_error",
               regexp = "type.coef")
})

test_that("plot(cvfit) of a multinomial fit: the 2-norm path with the choice, or the curve", {
  d <- mn_data(n = 400)
  set.seed(8)
  cvf <- cv.dpsco(d$x, d$y, family = "multinomial", epsilon = 2, nlambda = 5)
  local_null_device()
  plot(cvf)
  calls <- recorded_calls()
  fit <- cvf$dpsco.fit
  nrm <- sqrt(fit$beta$u^2 + fit$beta$v^2 + fit$beta$w^2)
  xy <- calls_named(calls, "C_plotXY")
  # grey under the colour: a norm is within the band where every class is
  band <- Reduce(`&`, noise_band(fit))
  expect_true(any(band))
  expect_length(xy, 2 * nrow(nrm))
  expect_equal(unname(xy[[1]]$args[[1]]$y), unname(nrm[1, ]), tolerance = 1e-12)
  bright <- nrm
  bright[band] <- NA
  expect_equal(unname(xy[[nrow(nrm) + 1]]$args[[1]]$y), unname(bright[1, ]),
               tolerance = 1e-12)
  ab <- calls_named(calls, "C_abline")
  expect_equal(ab[[length(ab)]]$args[[4]], log(cvf$lambda.min))
  set.seed(8)
  cvc <- cv.dpsco(d$x, d$y, family = "multinomial", epsilon = 2, nlambda = 5,
                  curve = 0.5)
  plot(cvc)
  pts <- Filter(function(cl) !identical(cl$args[[2]], "n"),
                calls_named(recorded_calls(), "C_plotXY"))
  expect_equal(unname(pts[[1]]$args[[1]]$y),
               unname(pmin(pmax(cvc$cvm_noisy, 0), cvc$loss_bound)))
})

# ---- xvar = "dev" and the noise band --------------------------------------

# x clamped to a fit's bounds, column by column (NULL: none)
clamp_to <- function(x, range) {
  if (is.null(range)) return(x)
  for (j in seq_len(ncol(x)))
    x[, j] <- pmin(pmax(x[, j], range[1, j]), range[2, j])
  x
}

dev_data <- function(family, n = 1500, seed = 61) {
  set.seed(seed)
  x <- matrix(rnorm(n * 4), n, 4)
  eta <- drop(x %*% c(1, -1, 0.5, 0))
  y <- if (family == "binomial") rbinom(n, 1, plogis(eta)) else eta + rnorm(n)
  list(x = x, y = y, fit = dpsco(x[1:1000, ], y[1:1000], family = family,
                                 epsilon = 2, nlambda = 6),
       nx = x[1001:n, ], ny = y[1001:n])
}

test_that("xvar = 'dev' plots against the fraction of deviance explained on newx, newy", {
  for (family in c("gaussian", "binomial")) local({
    d <- dev_data(family)
    fit <- d$fit
    eta <- sweep(clamp_to(d$nx, fit$x_range) %*% fit$beta, 2, fit$a0, `+`)
    y <- d$ny
    if (family == "gaussian") {
      dev <- colSums((y - eta)^2)
      null <- sum((y - mean(y))^2)
    } else {
      pr <- plogis(eta)
      dev <- -2 * colSums(y * log(pr) + (1 - y) * log(1 - pr))
      p0 <- mean(y)
      null <- -2 * sum(y * log(p0) + (1 - y) * log(1 - p0))
    }
    ref <- 1 - dev / null
    local_null_device()
    plot(fit, xvar = "dev", newx = d$nx, newy = d$ny)
    calls <- recorded_calls()
    xy <- calls_named(calls, "C_plotXY")
    expect_equal(unname(xy[[1]]$args[[1]]$x), unname(ref), tolerance = 1e-10)
    xlab <- Filter(function(cl) identical(cl$args[[3]],
                                          "Fraction of deviance explained (newx, newy)"),
                   calls_named(calls, "C_title"))
    expect_length(xlab, 1)
    # the first penalty is the intercept-only model: about 0 explained
    expect_lt(abs(ref[1]), 0.01)
  })
})

test_that("xvar = 'dev' without newx and newy says why and what to pass", {
  d <- dev_data("gaussian")
  local_null_device()
  err <- expect_error(plot(d$fit, xvar = "dev"), class = "dpsco_arg_error")
  expect_identical(err$arg, "xvar")
  expect_match(conditionMessage(err), "training data is not released",
               fixed = TRUE)
  expect_match(conditionMessage(err), "newx = , newy = ", fixed = TRUE)
})

test_that("the noise band is the support rule's: |raw| <= level x sd on the penalised columns", {
  set.seed(71)
  n <- 3000
  x <- matrix(rexp(n * 6), n, 6)
  y <- drop(x[, 1:2] %*% c(1, -1)) + rt(n, df = 3)
  fit <- dpsco(x, y, epsilon = 1, nlambda = 8,
               penalty.factor = c(0, 1, 1, 1, 1, 1),
               control = dpsco_control(support = "marginal"))
  sup <- fit$support
  # the record in the units of beta: the engine's slopes over the scale
  sd_beta <- sup$sd[-1, ] / fit$standardize$scale
  ref <- abs(sup$beta_raw) <= sup$level * sd_beta
  ref[1, ] <- FALSE                       # penalty factor 0: never zeroed
  band <- noise_band(fit)
  expect_identical(unname(band), unname(ref))
  expect_true(any(band) && !all(band[-1, ]))
  # on a one-class path the penalised zeros, and nothing else
  expect_identical(unname(band[-1, ]), unname(fit$beta[-1, ] == 0))
  # the plot draws grey under everything and colour beyond the band only
  local_null_device()
  plot(fit)
  calls <- recorded_calls()
  xy <- calls_named(calls, "C_plotXY")
  expect_length(xy, 2 * 6)
  bright <- fit$beta
  bright[band] <- NA
  for (j in 1:6)
    expect_equal(unname(xy[[6 + j]]$args[[1]]$y), unname(bright[j, ]))
  sub <- Filter(function(cl) identical(cl$args[[2]],
                                       "grey: within the noise band (support rule)"),
                calls_named(calls, "C_title"))
  expect_length(sub, 1)
  # a fit without the rule has no band and no subtitle
  expect_null(noise_band(dpsco(x, y, epsilon = 1, nlambda = 4,
                               control = dpsco_control(support = "none"))))
  # a fit saved by 0.23 or earlier names the marginal rule "noise"
  old <- fit
  old$support$rule <- "noise"
  expect_identical(noise_band(old), band)
})

test_that("the stepwise rule's noise band is what it set to 0", {
  # correlated copies of one factor: the rule keeps copies that are within
  # their noise in the full model, so its band is not the marginal one
  set.seed(32)
  f <- stats::rnorm(2000)
  x <- cbind(f + 0.3 * matrix(stats::rnorm(2000 * 6), 2000), stats::rnorm(2000))
  y <- drop(x[, 1:6] %*% rep(1 / 3, 6)) + stats::rt(2000, df = 3)
  fit <- withr::with_seed(2, dpsco(x, y, epsilon = 1, nlambda = 6))
  sup <- fit$support
  expect_identical(sup$rule, "stepwise")
  band <- noise_band(fit)
  expect_identical(unname(band), unname(as.matrix(fit$beta) == 0))
  marginal <- abs(sup$beta_raw) <= sup$level * sup$sd[-1, ] / fit$standardize$scale
  expect_true(any(band != marginal))
  expect_true(any(!band))
})
