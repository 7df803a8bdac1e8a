# deviance() of a private fit on user-given data (never on the training
# data silently) and nobs() as the public n.

dv_data <- function(n = 300) {
  set.seed(31)
  x <- matrix(rnorm(n * 4), n, 4)
  list(x = x, y = drop(x %*% c(1, -1, 0, 0)) + rt(n, 3),
       yb = as.numeric(runif(n) < plogis(drop(x %*% c(1, -1, 0, 0)))))
}
# the linear predictor, new data clamped to the fit's private bounds as
# predict() documents (fit$x_range: lower and upper bound per column)
lin <- function(fit, x) {
  if (!is.null(fit$x_range))
    x <- sweep(sweep(x, 2, fit$x_range[1, ], pmax), 2, fit$x_range[2, ], pmin)
  sweep(x %*% fit$beta, 2, fit$a0, "+")
}

test_that("deviance on new data is twice the summed loss, per lambda", {
  d <- dv_data()
  tr <- 1:200
  te <- 201:300
  f <- dpsco(d$x[tr, ], d$y[tr], epsilon = 1, nlambda = 4)
  eta <- lin(f, d$x[te, ])
  expect_equal(unname(deviance(f, newx = d$x[te, ], newy = d$y[te])),
               unname(colSums((d$y[te] - eta)^2)), tolerance = 1e-10)
  fb <- dpsco(d$x[tr, ], d$yb[tr], family = "binomial", epsilon = 1,
              nlambda = 3)
  eb <- lin(fb, d$x[te, ])
  pr <- plogis(eb)
  ref <- -2 * colSums(d$yb[te] * log(pr) + (1 - d$yb[te]) * log(1 - pr))
  expect_equal(unname(deviance(fb, newx = d$x[te, ], newy = d$yb[te])),
               unname(ref), tolerance = 1e-8)
  fq <- dpsco(d$x[tr, ], d$y[tr], family = "quantile", tau = 0.3,
              method = "none", lambda = c(0.1, 0.01))
  u <- d$y[te] - lin(fq, d$x[te, ])
  expect_equal(unname(deviance(fq, newx = d$x[te, ], newy = d$y[te])),
               unname(2 * colSums(u * (0.3 - (u < 0)))), tolerance = 1e-10)
  # at chosen penalties: the interpolated path's
  s <- f$lambda[2]
  expect_equal(unname(deviance(f, newx = d$x[te, ], newy = d$y[te], s = s)),
               sum((d$y[te] - predict(f, d$x[te, ], s = s))^2),
               tolerance = 1e-10)
})

test_that("deviance without data is an error that says why", {
  d <- dv_data()
  f <- dpsco(d$x, d$y, epsilon = 1, nlambda = 2)
  e <- tryCatch(deviance(f), error = function(e) e)
  expect_s3_class(e, "dpsco_error")
  expect_match(conditionMessage(e), "not released")
  expect_identical(conditionCall(e), quote(deviance(f)))
})

test_that("nobs() is the public number of records", {
  d <- dv_data()
  f <- dpsco(d$x, d$y, epsilon = 1, nlambda = 2, public_n = 350)
  expect_identical(nobs(f), 350)
  expect_identical(nobs(dpsco(d$x, d$y, epsilon = 1, nlambda = 2)), 300)
  cvf <- cv.dpsco(d$x, d$y, epsilon = 1, public_n = 320)
  expect_identical(nobs(cvf), 320)
})

test_that("a poisson fit's deviance is glm's Poisson deviance on new data", {
  set.seed(4)
  n <- 300
  x <- matrix(stats::rnorm(n * 3), n, 3)
  y <- stats::rpois(n, exp(0.3 + 0.5 * x[, 1]))
  fit <- dpsco(x[1:200, ], y[1:200], family = "poisson", epsilon = 2,
               nlambda = 3)
  mu <- predict(fit, x[201:300, ], type = "response")
  ref <- apply(mu, 2L, function(m)
    sum(stats::poisson()$dev.resids(y[201:300], m, 1)))
  expect_equal(unname(deviance(fit, newx = x[201:300, ], newy = y[201:300])),
               unname(ref), tolerance = 1e-12)
})

test_that("multinomial: the deviance is -2 sum log p_y of the plain-R softmax", {
  d <- mn_data(n = 400)
  set.seed(3)
  fit <- dpsco(d$x[1:300, ], d$y[1:300], family = "multinomial", epsilon = 2,
               nlambda = 5)
  nx <- d$x[301:400, ]
  ny <- d$y[301:400]
  dev <- deviance(fit, newx = nx, newy = ny)
  expect_identical(names(dev), paste0("s", 0:4))
  ref <- vapply(1:5, function(j) {
    pr <- mn_prob(fit, nx, j)
    -2 * sum(log(pr[cbind(seq_along(ny), as.integer(ny))]))
  }, 0)
  expect_equal(unname(dev), ref, tolerance = 1e-10)
  # at s, the deviance of the interpolated path
  s <- sqrt(fit$lambda[3] * fit$lambda[4])
  pr <- predict(fit, nx, s = s, type = "response")[, , 1]
  expect_equal(unname(deviance(fit, nx, ny, s = s)),
               -2 * sum(log(pr[cbind(1:100, as.integer(ny))])), tolerance = 1e-10)
  # newy: a factor with the fit's classes
  expect_error(deviance(fit, nx, as.integer(ny)), class = "dpsco_arg_error",
               regexp = "factor")
  expect_error(deviance(fit, nx, factor(ny, levels = c("w", "v", "u"))),
               class = "dpsco_arg_error", regexp = "classes")
  expect_error(deviance(fit, nx), class = "dpsco_error", regexp = "not released")
})

test_that("deviance() of a fit with an offset takes the new records' newoffset", {
  set.seed(5)
  n <- 300
  x <- matrix(stats::rnorm(n * 3), n, 3)
  off <- log(stats::runif(n, 0.5, 3))
  y <- stats::rpois(n, exp(0.3 + off + 0.5 * x[, 1]))
  fit <- dpsco(x[1:200, ], y[1:200], family = "poisson", method = "none",
               lambda = c(0.05, 0.005), offset = off[1:200])
  te <- 201:300
  mu <- exp(lin(fit, x[te, ]) + off[te])
  ref <- apply(mu, 2L, function(m)
    sum(stats::poisson()$dev.resids(y[te], m, 1)))
  expect_equal(unname(deviance(fit, newx = x[te, ], newy = y[te],
                               newoffset = off[te])),
               unname(ref), tolerance = 1e-10)
  e <- tryCatch(deviance(fit, newx = x[te, ], newy = y[te]),
                dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "newoffset")
})

test_that("weights weigh each record's deviance; the null deviance is glm's intercept-only fit on the data", {
  d <- dv_data()
  tr <- 1:200
  te <- 201:300
  set.seed(5)
  w <- runif(100, 0, 3)
  f <- dpsco(d$x[tr, ], d$y[tr], epsilon = 1, nlambda = 4)
  eta <- lin(f, d$x[te, ])
  y <- d$y[te]
  expect_equal(unname(deviance(f, newx = d$x[te, ], newy = y, weights = w)),
               unname(colSums(w * (y - eta)^2)), tolerance = 1e-10)
  expect_equal(null_deviance(f$settings$family_object, y, w),
               sum(w * (y - weighted.mean(y, w))^2), tolerance = 1e-10)
  expect_equal(unname(dev_fraction(f, d$x[te, ], y, weights = w)),
               unname(1 - colSums(w * (y - eta)^2) /
                        sum(w * (y - weighted.mean(y, w))^2)),
               tolerance = 1e-10)
  # binomial and poisson, with an offset: glm's null deviance
  off <- rnorm(100, sd = 0.3)
  yb <- d$yb[te]
  fam_b <- dpsco(d$x[tr, ], d$yb[tr], family = "binomial", epsilon = 1,
                 nlambda = 3)$settings$family_object
  g <- suppressWarnings(glm(yb ~ 1, family = binomial(), weights = w,
                           offset = off))   # (non-integer weighted counts)
  expect_equal(null_deviance(fam_b, yb, w, off), g$deviance, tolerance = 1e-8)
  yp <- rpois(100, 2)
  fam_p <- family_object("poisson")
  g <- glm(yp ~ 1, family = poisson(), offset = off)
  expect_equal(null_deviance(fam_p, yp, NULL, off), g$deviance,
               tolerance = 1e-8)
  # quantile: twice the check loss at the tau-quantile of y
  fam_q <- family_object("quantile", list(tau = 0.3))
  q <- sort(y)[ceiling(0.3 * 100)]
  u <- y - q
  expect_equal(null_deviance(fam_q, y), 2 * sum(u * (0.3 - (u < 0))),
               tolerance = 1e-12)
  # the records' deviances sum to the family's deviance
  expect_equal(unname(colSums(record_deviance(fam_b, eta, yb))),
               unname(fam_b$deviance(eta, yb)), tolerance = 1e-10)
  expect_error(deviance(f, newx = d$x[te, ], newy = y, weights = -w),
               class = "dpsco_arg_error")
})
