# tidy(), glance() and augment() of dpsco and cv.dpsco objects against the
# fit's own released values.

td_data <- function(n = 300) {
  set.seed(41)
  x <- matrix(rnorm(n * 4), n, 4)
  list(x = x, y = drop(x %*% c(1, -1, 0, 0)) + rnorm(n))
}

test_that("tidy() lists the path's coefficients as broom does for glmnet", {
  d <- td_data()
  f <- dpsco(d$x, d$y, epsilon = 1, nlambda = 4)
  b <- coef(f)
  td <- tidy(f)
  nz <- which(b != 0, arr.ind = TRUE)
  expect_identical(nrow(td), nrow(nz))
  expect_equal(td$estimate, b[b != 0])
  expect_identical(td$term, rownames(b)[nz[, 1]])
  expect_identical(td$step, unname(nz[, 2]))
  expect_equal(td$lambda, f$lambda[nz[, 2]])
  tz <- tidy(f, return_zeros = TRUE)
  expect_identical(nrow(tz), length(b))
  expect_equal(tz$estimate, as.vector(b))
  # a constraint-set method's path is one of radii
  fw <- dpsco(d$x, d$y, method = "fw", epsilon = 1, radius = c(0.5, 2))
  tr <- tidy(fw, return_zeros = TRUE)
  expect_equal(tr$radius, rep(c(0.5, 2), each = 5))
})

test_that("glance() gives the public n, the steps and the privacy spent", {
  d <- td_data()
  f <- dpsco(d$x, d$y, epsilon = 0.5, delta = 1e-5, nlambda = 3,
             public_n = 310)
  g <- glance(f)
  expect_identical(nrow(g), 1L)
  expect_identical(g$nobs, 310)
  expect_identical(g$npasses, as.double(f$settings$iterations * 3))
  expect_identical(g$epsilon, 0.5)
  expect_identical(g$delta, 1e-5)
  expect_equal(g$epsilon_accounted, privacy(f)$epsilon_accounted)
  expect_lte(g$epsilon_accounted, 0.5)
  expect_identical(g$method, "clip")
})

test_that("augment() adds fitted values and residuals of given data", {
  d <- td_data()
  f <- dpsco(d$x, d$y, method = "none", lambda = c(0.1, 0.01))
  a <- augment(f, newx = d$x[1:5, ], newy = d$y[1:5], s = 0.01)
  b <- coef(f, s = 0.01)
  fit <- drop(b[1] + d$x[1:5, ] %*% b[-1])
  expect_equal(a$.fitted, fit, tolerance = 1e-12)
  expect_equal(a$.resid, d$y[1:5] - fit, tolerance = 1e-12)
  expect_equal(as.matrix(a[, 1:4]), d$x[1:5, ], ignore_attr = TRUE)
  expect_error(augment(f), class = "dpsco_arg_error")
  # a fit with an offset: the records' offsets enter .fitted
  off <- seq(-0.5, 0.5, length.out = nrow(d$x))
  fo <- dpsco(d$x, d$y, method = "none", lambda = 0.01, offset = off)
  ao <- augment(fo, newx = d$x[1:5, ], newy = d$y[1:5], newoffset = off[1:5])
  bo <- coef(fo)
  expect_equal(ao$.fitted, drop(bo[1] + d$x[1:5, ] %*% bo[-1]) + off[1:5],
               tolerance = 1e-12)
  expect_error(augment(fo, newx = d$x[1:5, ]), class = "dpsco_arg_error")
})

test_that("tidy() and glance() of cv.dpsco follow tidy.cv.glmnet", {
  d <- td_data()
  set.seed(7)
  cvf <- cv.dpsco(d$x, d$y, epsilon = 1, curve = 0.5)
  td <- tidy(cvf)
  expect_equal(td$lambda, cvf$lambda)
  expect_equal(td$estimate, unname(cvf$cvm))
  expect_identical(names(td), c("lambda", "estimate", "noise.sd", "noise.low",
                                "noise.high", "nzero"))
  expect_equal(td$noise.sd, rep(cvf$cvsd, length(cvf$lambda)))
  # one noise sd either side of the clamped release, kept in [0, L]
  expect_equal(td$noise.low, unname(pmax(cvf$cvm - cvf$cvsd, 0)))
  expect_equal(td$noise.high, unname(pmin(cvf$cvm + cvf$cvsd, cvf$loss_bound)))
  expect_true(all(td$noise.low < td$noise.high))
  expect_equal(td$nzero, unname(cvf$dpsco.fit$df))
  gl <- glance(cvf)
  expect_equal(gl$lambda.min, cvf$lambda.min)
  expect_equal(gl$epsilon_accounted, cvf$privacy$epsilon_accounted)
  # no curve released: its columns are NA
  cv0 <- cv.dpsco(d$x, d$y, epsilon = 1, curve = 0)
  expect_true(all(is.na(tidy(cv0)$estimate)))
})

test_that("tidy() of a multinomial fit: a class column, one row per non-zero", {
  d <- mn_data(n = 200)
  set.seed(4)
  fit <- dpsco(d$x, d$y, family = "multinomial", epsilon = 2, nlambda = 4)
  td <- tidy(fit)
  expect_identical(names(td), c("class", "term", "step", "estimate", "lambda"))
  for (k in c("u", "v", "w")) {
    b <- rbind(`(Intercept)` = fit$a0[k, ], fit$beta[[k]])
    nz <- which(b != 0, arr.ind = TRUE)
    nz <- nz[order(nz[, 2], nz[, 1]), , drop = FALSE]
    tk <- td[td$class == k, ]
    expect_identical(tk$term, rownames(b)[nz[, 1]])
    expect_identical(tk$step, unname(nz[, 2]))
    expect_equal(tk$estimate, b[nz])
    expect_equal(tk$lambda, fit$lambda[nz[, 2]])
  }
  expect_identical(nrow(tidy(fit, return_zeros = TRUE)), 3L * 5L * 4L)
  expect_identical(glance(fit)$family, "multinomial")
})

test_that("augment() of a multinomial fit: the predicted class and the probabilities", {
  d <- mn_data(n = 200)
  set.seed(4)
  fit <- dpsco(d$x, d$y, family = "multinomial", epsilon = 2, nlambda = 4)
  s <- fit$lambda[3]
  au <- augment(fit, newx = d$x[1:30, ], newy = d$y[1:30], s = s)
  pr <- mn_prob(fit, d$x[1:30, ], 3)
  expect_equal(unname(as.matrix(au[, c(".pred_u", ".pred_v", ".pred_w")])), pr,
               tolerance = 1e-12)
  expect_identical(au$.fitted,
                   factor(c("u", "v", "w")[max.col(pr, "first")],
                          levels = c("u", "v", "w")))
  expect_false(".resid" %in% names(au))
  expect_error(augment(fit, newx = d$x[1:30, ], newy = as.integer(d$y[1:30])),
               class = "dpsco_arg_error", regexp = "factor")
})

test_that("glance() gives the privacy status that the displays state", {
  d <- td_data()
  set.seed(2)
  clean <- dpsco(d$x, d$y, epsilon = 1, nlambda = 2)
  expect_warning(std <- dpsco(d$x, d$y, epsilon = 1, nlambda = 2,
                              standardize = TRUE),
                 class = "dpsco_privacy_warning")
  none <- dpsco(d$x, d$y, method = "none", lambda = 0.1)
  expect_identical(glance(clean)$privacy_status, "covered")
  expect_identical(glance(std)$privacy_status, "not covered")
  expect_identical(glance(none)$privacy_status, "not private")
  # the same status as the record's print() and the fit's print()
  expect_true(any(capture.output(print(std)) == paste0(status_not_covered, ":")))
  expect_true(any(capture.output(print(clean)) == status_covered))
  # the accounted epsilon alone would claim the target: the status qualifies it
  expect_lte(glance(std)$epsilon_accounted, 1)
  # cv.dpsco: the status of the whole procedure
  set.seed(3)
  expect_warning(cvs <- cv.dpsco(d$x, d$y, epsilon = 1, nlambda = 3,
                                 standardize = TRUE),
                 class = "dpsco_privacy_warning")
  cv0 <- cv.dpsco(d$x, d$y, epsilon = 1, nlambda = 3)
  expect_identical(glance(cvs)$privacy_status, "not covered")
  expect_identical(glance(cv0)$privacy_status, "covered")
  expect_identical(names(glance(cv0)),
                   c("lambda.min", "nobs", "epsilon", "delta",
                     "epsilon_accounted", "privacy_status"))
})

test_that("augment() of a cv.dpsco object predicts at lambda.min, as predict() does", {
  d <- td_data()
  set.seed(17)
  cvf <- cv.dpsco(d$x, d$y, epsilon = 1, nlambda = 5)
  nx <- d$x[1:20, ]
  ny <- d$y[1:20]
  au <- augment(cvf, newx = nx, newy = ny)
  fitted <- drop(predict(cvf, nx, type = "response"))
  b <- coef(cvf$dpsco.fit, s = cvf$lambda.min)
  expect_equal(au$.fitted, fitted, tolerance = 1e-12)
  expect_equal(au$.fitted, drop(cbind(1, clamp_x(cvf, nx)) %*% b),
               tolerance = 1e-12)
  expect_equal(au$.resid, ny - au$.fitted, tolerance = 1e-12)
  expect_equal(unname(as.matrix(au[, 1:ncol(nx)])), unname(nx))
  # another s, and a binomial fit's probabilities
  s2 <- cvf$lambda[2]
  expect_equal(augment(cvf, newx = nx, s = s2)$.fitted,
               drop(predict(cvf$dpsco.fit, nx, s = s2, type = "response")))
  yb <- as.numeric(d$y > median(d$y))
  set.seed(18)
  cvb <- cv.dpsco(d$x, yb, family = "binomial", epsilon = 1, nlambda = 4)
  ab <- augment(cvb, newx = nx, newy = yb[1:20])
  pb <- plogis(drop(cbind(1, clamp_x(cvb, nx)) %*%
                      coef(cvb$dpsco.fit, s = cvb$lambda.min)))
  expect_equal(ab$.fitted, pb, tolerance = 1e-12)
  expect_equal(ab$.resid, yb[1:20] - pb, tolerance = 1e-12)
  expect_error(augment(cvf), class = "dpsco_arg_error")
})
