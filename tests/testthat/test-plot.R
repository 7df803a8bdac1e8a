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

test_that("plot(fit) draws, returns the fit invisibly, x axis is reversed log(lambda)", {
  fit <- plot_fit()
  local_null_device()
  res <- withVisible(plot(fit))
  expect_false(res$visible)
  expect_identical(res$value, fit)
  usr <- par("usr")
  h <- log(fit$lambda)
  expect_gt(usr[1], usr[2])
  expect_equal(usr[1:2], rev(extend(range(h))), tolerance = 1e-10)
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
  set.seed(5)
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
