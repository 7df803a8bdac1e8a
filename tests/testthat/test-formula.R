# The formula methods of dpsco() and cv.dpsco(): the same fit as the
# matrix interface on a model matrix built by hand, levels declared or
# warned about, predict(newdata = ) through the stored terms and levels.

form_data <- function(n = 400) {
  set.seed(11)
  df <- data.frame(a = rnorm(n), b = runif(n, -1, 1),
                   g = factor(sample(c("u", "v", "w"), n, TRUE),
                              levels = c("u", "v", "w")))
  df$y <- 1 + 2 * df$a - df$b + (df$g == "v") - 0.5 * (df$g == "w") +
    rnorm(n, sd = 0.5)
  df
}
# the treatment coding written out (first level the baseline)
hand_x <- function(df) cbind(a = df$a, b = df$b, gv = as.numeric(df$g == "v"),
                             gw = as.numeric(df$g == "w"))
levs <- list(g = c("u", "v", "w"))

test_that("a formula fit equals the matrix fit on the hand-built design", {
  df <- form_data()
  lam <- c(0.2, 0.05, 0.01)
  ff <- dpsco(y ~ a + b + g, data = df, xlev = levs, method = "none",
              lambda = lam)
  fm <- dpsco(hand_x(df), df$y, method = "none", lambda = lam)
  expect_equal(unname(coef(ff)), unname(coef(fm)), tolerance = 1e-12)
  expect_identical(rownames(ff$beta), c("a", "b", "gv", "gw"))
  # a private fit draws the same noise: identical at the same seed
  set.seed(3)
  fp <- dpsco(y ~ ., data = df, xlev = levs, epsilon = 1, nlambda = 3)
  set.seed(3)
  mp <- dpsco(hand_x(df), df$y, epsilon = 1, nlambda = 3)
  expect_equal(unname(coef(fp)), unname(coef(mp)), tolerance = 1e-12)
  expect_identical(deparse(fp$call[[2L]]), "y ~ .")
})

test_that("predict(newdata = ) uses the fit's terms and declared levels", {
  df <- form_data()
  ff <- dpsco(y ~ a + b + g, data = df, xlev = levs, method = "none",
              lambda = c(0.1, 0.01))
  new <- data.frame(a = c(0.3, -1), b = c(0, 0.5),
                    g = c("w", "u"))      # character, one level each
  b <- coef(ff, s = 0.01)
  xn <- cbind(new$a, new$b, c(0, 0), c(1, 0))
  expect_equal(unname(drop(predict(ff, newdata = new, s = 0.01))),
               drop(b[1] + xn %*% b[-1]), tolerance = 1e-12)
  expect_error(predict(ff, newdata = data.frame(a = 1, b = 1, g = "z")),
               class = "dpsco_arg_error")
})

test_that("levels read from the data are warned about; declared ones are not", {
  df <- form_data()
  expect_warning(dpsco(y ~ ., data = df, method = "none", lambda = 0.1),
                 class = "dpsco_privacy_warning")
  expect_warning(dpsco(y ~ ., data = df, xlev = levs, method = "none",
                       lambda = 0.1), NA)
  # a declared level absent from the data still has its column (all zero)
  xl <- list(g = c("u", "v", "w", "z"))
  ff <- dpsco(y ~ ., data = df, xlev = xl, method = "none", lambda = 0.01)
  expect_identical(nrow(ff$beta), 5L)
  expect_equal(ff$beta["gz", 1], 0)
  # a value outside the declared levels is an error, not a silent NA
  e <- tryCatch(dpsco(y ~ ., data = df, xlev = list(g = c("u", "v")),
                      method = "none", lambda = 0.1),
                dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "xlev")
  # transformations with parameters from the data are warned about
  expect_warning(dpsco(y ~ poly(a, 2) + g, data = df, xlev = levs,
                       method = "none", lambda = 0.1),
                 class = "dpsco_privacy_warning")
})

test_that("the formula's intercept decides the fit's, as glmnet's", {
  skip_if_not_installed("glmnet")
  df <- form_data()
  lam <- c(0.1, 0.02)
  ff <- dpsco(y ~ a + b - 1, data = df, method = "none", tuning = "public",
              lambda = lam)
  g <- glmnet::glmnet(cbind(df$a, df$b), df$y, lambda = lam,
                      intercept = FALSE, standardize = FALSE, thresh = 1e-13)
  expect_equal(unname(ff$a0), c(0, 0))
  expect_equal(unname(as.matrix(ff$beta)), unname(as.matrix(g$beta)),
               tolerance = 1e-6)
  e <- tryCatch(dpsco(y ~ a, data = df, intercept = FALSE),
                dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "intercept")
})

test_that("cv.dpsco() takes a formula and predicts from a data frame", {
  df <- form_data()
  set.seed(5)
  cf <- cv.dpsco(y ~ ., data = df, xlev = levs, epsilon = 1, curve = 0.5)
  set.seed(5)
  cm <- cv.dpsco(hand_x(df), df$y, epsilon = 1, curve = 0.5)
  expect_equal(cf$cvm, cm$cvm, tolerance = 1e-12)
  expect_equal(cf$lambda.min, cm$lambda.min)
  expect_equal(unname(drop(predict(cf, newdata = df[1:4, ]))),
               drop(predict(cm, newx = hand_x(df)[1:4, ])), tolerance = 1e-12)
  expect_identical(cf$call[[1L]], as.name("cv.dpsco"))
})

test_that("a binomial formula keeps the response factor's declared classes", {
  df <- form_data()
  df$z <- factor(ifelse(df$y > 1, "hi", "lo"), levels = c("lo", "hi"))
  ff <- dpsco(z ~ a + b, data = df, family = binomial(), method = "none",
              lambda = 0.01)
  fm <- dpsco(cbind(df$a, df$b), as.numeric(df$z == "hi"),
              family = "binomial", method = "none", lambda = 0.01)
  expect_identical(ff$classnames, c("lo", "hi"))
  expect_equal(unname(coef(ff)), unname(coef(fm)), tolerance = 1e-12)
})

test_that("deviance() of a formula fit reads new data from a data frame", {
  df <- form_data()
  ff <- dpsco(y ~ a + b + g, data = df[1:300, ], xlev = levs,
              method = "none", lambda = c(0.1, 0.01))
  te <- df[301:400, ]
  b <- coef(ff)
  eta <- sweep(hand_x(te) %*% b[-1, ], 2, b[1, ], "+")
  expect_equal(unname(deviance(ff, newx = te)),
               unname(colSums((te$y - eta)^2)), tolerance = 1e-10)
})

test_that("the call is recorded without evaluating its arguments again", {
  # x given as an expression that draws from the generator: recording the
  # call must not draw again (the fit would no longer follow the seed)
  y <- seq_len(100) / 100
  set.seed(3)
  fit <- dpsco(matrix(stats::rnorm(200), 100, 2), y, method = "none",
               lambda = 0.1)
  after <- .Random.seed
  set.seed(3)
  x <- matrix(stats::rnorm(200), 100, 2)
  ref <- dpsco(x, y, method = "none", lambda = 0.1)
  expect_identical(after, .Random.seed)
  expect_identical(names(fit$call)[2L], "x")
  expect_identical(deparse(fit$call[[2L]]),
                   "matrix(stats::rnorm(200), 100, 2)")
})

# ---- what the formula reads from the data, in the privacy record ----

lev_item <- paste("the levels of `g` were read from the data, which reveals",
                  "which levels occur (fix: declare them with",
                  "xlev = list(g = c(...)))")
poly_item <- paste("the coefs of `poly(a, 2)` were read from the data (fix:",
                   "use raw = TRUE or declare coefs in `poly(a, 2)`)")

# every display of a fit and of its record, each as one flat text
all_displays <- function(fit) {
  lapply(list(print = capture.output(print(fit)),
              summary = capture.output(print(summary(fit))),
              record = capture.output(print(privacy(fit))),
              record_summary = capture.output(print(summary(privacy(fit))))),
         flat_text)
}

test_that("levels and transformations read from the data are in the record and every display", {
  df <- form_data()
  fitf <- function(f, ...) {
    set.seed(8)
    dpsco(f, data = df, tuning = "public", method = "clip", epsilon = 1,
          iterations = 2, nlambda = 2, ...)
  }
  # one warning per kind, as before, and the record lists both uses
  warns <- list()
  fit <- withCallingHandlers(fitf(y ~ poly(a, 2) + g),
    dpsco_privacy_warning = function(w) {
      warns[[length(warns) + 1L]] <<- conditionMessage(w)
      invokeRestart("muffleWarning")
    })
  expect_length(warns, 2L)
  expect_match(warns[[1]], "the levels of `g` were read from the data",
               fixed = TRUE)
  expect_match(warns[[2]], "the coefs of `poly(a, 2)` were read from the data",
               fixed = TRUE)
  nc <- privacy(fit)$not_covered
  expect_identical(paste0(nc$reason, " (fix: ", nc$fix, ")"),
                   c(lev_item, poly_item))
  for (txt in all_displays(fit)) {
    expect_match(txt, status_not_covered, fixed = TRUE)
    expect_match(txt, lev_item, fixed = TRUE)
    expect_match(txt, poly_item, fixed = TRUE)
    expect_false(grepl("Privacy status: covered", txt, fixed = TRUE))
  }
  expect_identical(glance(fit)$privacy_status, "not covered")
  expect_identical(summary(privacy(fit))$status, "not covered")
  # the same terms declared: nothing read, every display says covered
  kn <- c(-0.5, 0.5)
  clean <- expect_no_warning(fitf(
    y ~ poly(a, 2, raw = TRUE) + splines::ns(b, knots = kn,
                                             Boundary.knots = c(-1, 1)) + g,
    xlev = levs))
  expect_identical(nrow(privacy(clean)$not_covered), 0L)
  for (txt in all_displays(clean)) {
    expect_match(txt, status_covered, fixed = TRUE)
    expect_false(grepl("NOT covered", txt, fixed = TRUE))
  }
  expect_identical(glance(clean)$privacy_status, "covered")
  # the transformation's parameters that are read, and only those
  sc <- suppressWarnings(fitf(y ~ scale(a) + b, xlev = levs))
  expect_identical(privacy(sc)$not_covered$reason,
                   "the center and scale of `scale(a)` were read from the data")
  sn <- suppressWarnings(fitf(y ~ splines::ns(b, knots = kn) + a))
  expect_identical(privacy(sn)$not_covered$fix, paste(
    "declare Boundary.knots in `splines::ns(b, knots = kn)`"))
  expect_no_warning(fitf(y ~ scale(a, center = 0, scale = 2) + b))
  # knots computed from a data column are read, even when declared
  expect_warning(fitf(y ~ splines::ns(b, knots = quantile(b, 0.5),
                                      Boundary.knots = c(-1, 1))),
                 class = "dpsco_privacy_warning")
})

test_that("cv.dpsco() with a formula: the uses are in the procedure's record and displays", {
  df <- form_data()
  set.seed(9)
  expect_warning(cvf <- cv.dpsco(y ~ a + b + g, data = df, epsilon = 1,
                                 nlambda = 3),
                 class = "dpsco_privacy_warning")
  nc <- privacy(cvf)$not_covered
  expect_identical(paste0(nc$reason, " (fix: ", nc$fix, ")"), lev_item)
  expect_identical(cvf$dpsco.fit$privacy$not_covered, nc)
  out <- capture.output(print(cvf))
  expect_identical(out[length(out) - 1L], paste0(status_not_covered, ":"))
  expect_identical(out[length(out)], paste("  -", lev_item))
  expect_true(endsWith(summary(cvf)$text[4],
                       paste0(status_not_covered, ": ", lev_item, ".")))
  expect_identical(glance(cvf)$privacy_status, "not covered")
  set.seed(9)
  cv0 <- cv.dpsco(y ~ a + b + g, data = df, xlev = levs, epsilon = 1,
                  nlambda = 3)
  out <- capture.output(print(cv0))
  expect_identical(out[length(out)], status_covered)
  expect_identical(glance(cv0)$privacy_status, "covered")
})

# ---- offsets ----

# counts over an exposure e: log(e) is the natural offset
count_data <- function(n = 600) {
  set.seed(21)
  df <- data.frame(a = rnorm(n), b = runif(n, -1, 1), e = runif(n, 0.2, 5))
  df$k <- rpois(n, df$e * exp(0.5 + 0.6 * df$a - 0.4 * df$b))
  df
}

test_that("an offset() term gives the fit of the same vector as offset =", {
  df <- count_data()
  x <- cbind(a = df$a, b = df$b)
  fits <- lapply(1:3, function(k) {
    set.seed(4)
    switch(k,
      dpsco(k ~ a + b + offset(log(e)), data = df, family = "poisson",
            epsilon = 1, nlambda = 3),
      dpsco(k ~ a + b, data = df, family = "poisson", epsilon = 1,
            nlambda = 3, offset = log(df$e)),
      dpsco(x, df$k, family = "poisson", epsilon = 1, nlambda = 3,
            offset = log(df$e)))
  })
  expect_equal(unname(coef(fits[[1]])), unname(coef(fits[[2]])),
               tolerance = 1e-12)
  expect_equal(unname(coef(fits[[1]])), unname(coef(fits[[3]])),
               tolerance = 1e-12)
  expect_true(fits[[1]]$offset)
  # the offset is not dropped: without it the exact fit's intercept moves
  # by about the mean log exposure (glm's, converged)
  lam <- 1e-9
  f_off <- dpsco(k ~ a + b + offset(log(e)), data = df, family = "poisson",
                 method = "none", tuning = "public", lambda = lam)
  f_no <- dpsco(k ~ a + b, data = df, family = "poisson", method = "none",
                tuning = "public", lambda = lam)
  g_off <- stats::glm(k ~ a + b + offset(log(e)), data = df,
                      family = stats::poisson(),
                      control = stats::glm.control(epsilon = 1e-12))
  expect_equal(unname(coef(f_off)[, 1]), unname(coef(g_off)), tolerance = 1e-6)
  expect_gt(abs(coef(f_no)[1, 1] - coef(f_off)[1, 1]), 0.3)
  # two offset() terms and the argument all add up, as in glm()
  df$h <- log(df$e) / 2
  set.seed(4)
  f2 <- dpsco(k ~ a + b + offset(h) + offset(h / 2), data = df,
              family = "poisson", epsilon = 1, nlambda = 3,
              offset = log(df$e) / 4)
  expect_equal(unname(coef(f2)), unname(coef(fits[[1]])), tolerance = 1e-12)
})

test_that("cv.dpsco() with an offset() term is the cv of offset =", {
  df <- count_data()
  set.seed(6)
  cf <- cv.dpsco(k ~ a + b + offset(log(e)), data = df, family = "poisson",
                 epsilon = 1, nlambda = 4, curve = 0.5)
  set.seed(6)
  ca <- cv.dpsco(k ~ a + b, data = df, family = "poisson", epsilon = 1,
                 nlambda = 4, curve = 0.5, offset = log(df$e))
  expect_equal(unname(coef(cf$dpsco.fit)), unname(coef(ca$dpsco.fit)),
               tolerance = 1e-12)
  expect_equal(cf$cvm, ca$cvm, tolerance = 1e-12)
  expect_identical(cf$index, ca$index)
  # predict(newdata = ) takes the offset from newdata
  nd <- df[1:5, ]
  b <- coef(cf)
  eta <- drop(b[1] + cbind(nd$a, nd$b) %*% b[-1]) + log(nd$e)
  expect_equal(unname(drop(predict(cf, newdata = nd))), eta, tolerance = 1e-12)
  expect_equal(unname(drop(predict(ca, newdata = nd,
                                   newoffset = log(nd$e)))),
               eta, tolerance = 1e-12)
})

test_that("predict(newdata = ) computes the formula's offset from newdata", {
  df <- count_data()
  f <- dpsco(k ~ a + b + offset(log(e)), data = df, family = "poisson",
             method = "none", lambda = c(0.01, 0.001))
  nd <- data.frame(a = c(0.5, -1), b = c(0, 0.3), e = c(2, 0.25))
  b <- coef(f)
  eta <- sweep(cbind(nd$a, nd$b) %*% b[-1, ], 2, b[1, ], "+") + log(nd$e)
  expect_equal(unname(predict(f, newdata = nd)), unname(eta),
               tolerance = 1e-12)
  expect_equal(unname(predict(f, newdata = nd, type = "response")),
               unname(exp(eta)), tolerance = 1e-12)
  # the matrix interface needs the whole offset, as for offset =
  expect_equal(unname(predict(f, newx = cbind(nd$a, nd$b),
                             newoffset = log(nd$e))),
               unname(predict(f, newdata = nd)), tolerance = 1e-12)
  # both an offset() term and the argument: newoffset is the argument's part
  f2 <- dpsco(k ~ a + b + offset(log(e) / 2), data = df, family = "poisson",
              method = "none", lambda = c(0.01, 0.001),
              offset = log(df$e) / 2)
  expect_equal(unname(coef(f2)), unname(b), tolerance = 1e-12)
  expect_equal(predict(f2, newdata = nd, newoffset = log(nd$e) / 2),
               predict(f, newdata = nd), tolerance = 1e-12)
  # deviance() and augment() read the offset from a data frame the same way
  mu <- exp(eta)
  y <- c(1, 0)
  ylog <- y * log(y / mu)
  ylog[y == 0, ] <- 0
  dev <- 2 * colSums(ylog - (y - mu))
  nd$k <- y
  expect_equal(unname(deviance(f, newx = nd)), unname(dev), tolerance = 1e-10)
  expect_equal(unname(deviance(f2, newx = nd, newoffset = log(nd$e) / 2)),
               unname(dev), tolerance = 1e-10)
  aug <- augment(f, newdata = nd, s = 0.001)
  expect_equal(aug$.fitted, unname(mu[, 2]), tolerance = 1e-12)
  expect_equal(aug$.resid, y - unname(mu[, 2]), tolerance = 1e-12)
  # newoffset stands for the argument only, and newdata must hold e
  err <- function(expr, arg) {
    e <- tryCatch(expr, dpsco_arg_error = function(e) e)
    expect_s3_class(e, "dpsco_arg_error")
    expect_identical(e$arg, arg)
  }
  err(predict(f, newdata = nd, newoffset = log(nd$e)), "newoffset")
  err(predict(f2, newdata = nd), "newoffset")
  err(predict(f2, newdata = nd, newoffset = 1:3), "newoffset")
  err(predict(f, newdata = nd[, c("a", "b")]), "newdata")
  g <- dpsco(k ~ a + b, data = df, family = "poisson", method = "none",
             lambda = 0.01)
  err(predict(g, newdata = nd, newoffset = c(0, 0)), "newoffset")
})

test_that("where offsets are refused, an offset() term is the same error", {
  df <- count_data()
  df$y <- df$a + rnorm(nrow(df))
  df$cl <- factor(sample(c("p", "q", "r"), nrow(df), TRUE))
  msg <- function(expr) tryCatch(expr, dpsco_arg_error = function(e) e)
  cases <- list(
    list(term = y ~ a + offset(log(e)), args = list(method = "fw")),
    list(term = cl ~ a + offset(log(e)), args = list(family = "multinomial")))
  for (cs in cases) {
    plain <- update(cs$term, . ~ a)
    e_term <- msg(do.call(dpsco, c(list(cs$term, data = df), cs$args)))
    e_arg <- msg(do.call(dpsco, c(list(plain, data = df,
                                       offset = log(df$e)), cs$args)))
    expect_s3_class(e_term, "dpsco_arg_error")
    expect_identical(e_term$arg, "offset")
    expect_identical(conditionMessage(e_term), conditionMessage(e_arg))
    e_cv <- msg(do.call(cv.dpsco, c(list(cs$term, data = df), cs$args)))
    expect_identical(e_cv$arg, "offset")
  }
  # a wrong-length argument is refused before it is added
  e <- msg(dpsco(k ~ a + offset(log(e)), data = df, family = "poisson",
                 offset = 1:3))
  expect_identical(e$arg, "offset")
})
