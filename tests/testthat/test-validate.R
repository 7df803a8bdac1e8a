# Input checking: every bad argument raises a `dpsco_arg_error` whose `arg`
# field names the offending argument and whose message mentions it.

val_data <- function() {
  set.seed(101)
  n <- 30
  p <- 2
  x <- matrix(runif(n * p, -1, 1), n, p)
  y <- drop(x %*% c(1, -1)) + rnorm(n, sd = 0.3)
  yb <- as.numeric(runif(n) < plogis(drop(x %*% c(2, -2))))
  list(n = n, p = p, x = x, y = y, yb = yb)
}

# Evaluate `call` in an environment holding the data; return the condition.
catch_arg_error <- function(call, env) {
  tryCatch(eval(call, env), dpsco_arg_error = function(e) e)
}

check_case <- function(case, env) {
  lab <- paste0(case$label, ": ", deparse(case$call, width.cutoff = 500L)[1])
  expect_error(eval(case$call, env), class = "dpsco_arg_error", label = lab)
  cnd <- catch_arg_error(case$call, env)
  expect_s3_class(cnd, "dpsco_arg_error")
  expect_s3_class(cnd, "dpsco_error")
  expect_identical(cnd$arg, case$arg, label = paste0("arg of ", lab))
  expect_true(grepl(paste0("`", case$arg, "`"), conditionMessage(cnd),
                    fixed = TRUE),
              label = paste0("message of ", lab, " mentions `", case$arg, "`"))
}

make_env <- function() {
  d <- val_data()
  env <- new.env()
  list2env(d, env)
  with(env, {
    x_na <- x; x_na[3, 1] <- NA
    x_nan <- x; x_nan[2, 2] <- NaN
    x_inf <- x; x_inf[5, 1] <- Inf
    x_ninf <- x; x_ninf[5, 2] <- -Inf
    x_chr <- matrix(as.character(x), n, p)
    x_df_chr <- data.frame(a = x[, 1], b = as.character(x[, 2]),
                           stringsAsFactors = FALSE)
    x_df_fac <- data.frame(a = x[, 1], b = factor(x[, 2] > 0))
    x_p0 <- matrix(numeric(0), n, 0)
    x_n1 <- x[1, , drop = FALSE]
    y_na <- y; y_na[4] <- NA
    y_inf <- y; y_inf[6] <- Inf
    y_nan <- y; y_nan[6] <- NaN
    y_chr <- as.character(y)
    y012 <- yb; y012[1:3] <- c(0, 1, 2)
    y_f1 <- factor(rep("a", n))
    y_f3 <- factor(rep(c("a", "b", "c"), length.out = n))
    yb_na <- yb; yb_na[2] <- NA
    gfit <- dpsco(x, y, method = "none", iterations = 2, nlambda = 3,
                  step_size = 0.3)
  })
  env
}

test_that("the base calls used below are valid", {
  env <- make_env()
  f <- eval(quote(dpsco(x, y, method = "clip", iterations = 2, nlambda = 2)),
            env)
  expect_s3_class(f, "dpsco")
  f <- eval(quote(dpsco(x, yb, family = "binomial", method = "clip",
                        iterations = 2, nlambda = 2)), env)
  expect_s3_class(f, "dpsco")
  expect_s3_class(env$gfit, "dpsco")
  expect_s3_class(dpsco_control(), "dpsco_control")
})

test_that("bad x, y and family responses raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "NA in x", arg = "x",
         call = quote(dpsco(x_na, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "NaN in x", arg = "x",
         call = quote(dpsco(x_nan, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "Inf in x", arg = "x",
         call = quote(dpsco(x_inf, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "-Inf in x", arg = "x",
         call = quote(dpsco(x_ninf, y, method = "none", iterations = 2, nlambda = 2))),
    list(label = "character x", arg = "x",
         call = quote(dpsco(x_chr, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "data.frame with character column", arg = "x",
         call = quote(dpsco(x_df_chr, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "data.frame with factor column", arg = "x",
         call = quote(dpsco(x_df_fac, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "x a vector", arg = "x",
         call = quote(dpsco(x[, 1], y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "p = 0", arg = "x",
         call = quote(dpsco(x_p0, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "n < 2", arg = "x",
         call = quote(dpsco(x_n1, y[1], method = "clip", iterations = 2, nlambda = 2))),
    list(label = "mismatched rows (y shorter)", arg = "y",
         call = quote(dpsco(x, y[-1], method = "clip", iterations = 2, nlambda = 2))),
    list(label = "mismatched rows (y longer)", arg = "y",
         call = quote(dpsco(x, c(y, 1), method = "clip", iterations = 2, nlambda = 2))),
    list(label = "NA in y", arg = "y",
         call = quote(dpsco(x, y_na, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "NaN in y", arg = "y",
         call = quote(dpsco(x, y_nan, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "Inf in y", arg = "y",
         call = quote(dpsco(x, y_inf, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "gaussian y character", arg = "y",
         call = quote(dpsco(x, y_chr, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "binomial y with 0/1/2", arg = "y",
         call = quote(dpsco(x, y012, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2))),
    list(label = "binomial y continuous", arg = "y",
         call = quote(dpsco(x, y, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2))),
    list(label = "binomial y with NA", arg = "y",
         call = quote(dpsco(x, yb_na, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2))),
    list(label = "binomial factor with 1 level", arg = "y",
         call = quote(dpsco(x, y_f1, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2))),
    list(label = "binomial factor with 3 levels", arg = "y",
         call = quote(dpsco(x, y_f3, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2)))
  )
  for (case in cases) check_case(case, env)
})

test_that("bad privacy targets raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "epsilon 0", arg = "epsilon",
         call = quote(dpsco(x, y, method = "clip", epsilon = 0, iterations = 2, nlambda = 2))),
    list(label = "epsilon -1", arg = "epsilon",
         call = quote(dpsco(x, y, method = "clip", epsilon = -1, iterations = 2, nlambda = 2))),
    list(label = "epsilon NA", arg = "epsilon",
         call = quote(dpsco(x, y, method = "clip", epsilon = NA, iterations = 2, nlambda = 2))),
    list(label = "epsilon NA_real_", arg = "epsilon",
         call = quote(dpsco(x, y, method = "kamath", epsilon = NA_real_,
                            iterations = 2, nlambda = 2))),
    list(label = "epsilon of length 2", arg = "epsilon",
         call = quote(dpsco(x, y, method = "clip", epsilon = c(1, 2), iterations = 2, nlambda = 2))),
    list(label = "epsilon character", arg = "epsilon",
         call = quote(dpsco(x, y, method = "clip", epsilon = "1", iterations = 2, nlambda = 2))),
    list(label = "epsilon Inf with clip", arg = "epsilon",
         call = quote(dpsco(x, y, method = "clip", epsilon = Inf, iterations = 2, nlambda = 2))),
    list(label = "epsilon Inf with default (holland)", arg = "epsilon",
         call = quote(dpsco(x, y, epsilon = Inf, iterations = 2, nlambda = 2))),
    list(label = "epsilon Inf with kamath", arg = "epsilon",
         call = quote(dpsco(x, y, method = "kamath", epsilon = Inf, iterations = 2, nlambda = 2))),
    list(label = "epsilon -1 with none", arg = "epsilon",
         call = quote(dpsco(x, y, method = "none", epsilon = -1, iterations = 2, nlambda = 2))),
    list(label = "delta 0", arg = "delta",
         call = quote(dpsco(x, y, method = "clip", delta = 0, iterations = 2, nlambda = 2))),
    list(label = "delta 1", arg = "delta",
         call = quote(dpsco(x, y, method = "clip", delta = 1, iterations = 2, nlambda = 2))),
    list(label = "delta 2", arg = "delta",
         call = quote(dpsco(x, y, method = "clip", delta = 2, iterations = 2, nlambda = 2))),
    list(label = "delta -1e-3", arg = "delta",
         call = quote(dpsco(x, y, method = "clip", delta = -1e-3, iterations = 2, nlambda = 2))),
    list(label = "delta NA", arg = "delta",
         call = quote(dpsco(x, y, method = "holland", delta = NA, iterations = 2, nlambda = 2)))
  )
  for (case in cases) check_case(case, env)
})

test_that("bad optimiser settings raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "batch_size 0", arg = "batch_size",
         call = quote(dpsco(x, y, method = "clip", batch_size = 0, iterations = 2, nlambda = 2))),
    list(label = "batch_size n + 1", arg = "batch_size",
         call = quote(dpsco(x, y, method = "clip", batch_size = n + 1, iterations = 2,
                            nlambda = 2))),
    list(label = "iterations 0", arg = "iterations",
         call = quote(dpsco(x, y, method = "clip", iterations = 0, nlambda = 2))),
    list(label = "iterations 2.5", arg = "iterations",
         call = quote(dpsco(x, y, method = "clip", iterations = 2.5, nlambda = 2))),
    list(label = "iterations -1", arg = "iterations",
         call = quote(dpsco(x, y, method = "clip", iterations = -1, nlambda = 2))),
    list(label = "step_size 0", arg = "step_size",
         call = quote(dpsco(x, y, method = "clip", step_size = 0, iterations = 2, nlambda = 2))),
    list(label = "step_size -1", arg = "step_size",
         call = quote(dpsco(x, y, method = "clip", step_size = -1, iterations = 2, nlambda = 2))),
    list(label = "step_size Inf", arg = "step_size",
         call = quote(dpsco(x, y, method = "clip", step_size = Inf, iterations = 2, nlambda = 2))),
    list(label = "alpha -0.1", arg = "alpha",
         call = quote(dpsco(x, y, method = "clip", alpha = -0.1, iterations = 2, nlambda = 2))),
    list(label = "alpha 1.1", arg = "alpha",
         call = quote(dpsco(x, y, method = "clip", alpha = 1.1, iterations = 2, nlambda = 2))),
    list(label = "intercept NA", arg = "intercept",
         call = quote(dpsco(x, y, method = "clip", intercept = NA, iterations = 2, nlambda = 2))),
    list(label = "intercept character", arg = "intercept",
         call = quote(dpsco(x, y, method = "clip", intercept = "yes", iterations = 2,
                            nlambda = 2))),
    list(label = "trace step 0", arg = "trace",
         call = quote(dpsco(x, y, method = "clip", trace = 0, iterations = 2, nlambda = 2))),
    list(label = "trace beyond iterations", arg = "trace",
         call = quote(dpsco(x, y, method = "clip", trace = c(1, 3), iterations = 2,
                            nlambda = 2))),
    list(label = "trace fractional", arg = "trace",
         call = quote(dpsco(x, y, method = "clip", trace = 1.5, iterations = 2, nlambda = 2))),
    list(label = "control not from dpsco_control", arg = "control",
         call = quote(dpsco(x, y, method = "clip", control = list(clip = 1),
                            iterations = 2, nlambda = 2))),
    list(label = "nlambda 0", arg = "nlambda",
         call = quote(dpsco(x, y, method = "clip", nlambda = 0, iterations = 2))),
    list(label = "lambda.min.ratio 0", arg = "lambda.min.ratio",
         call = quote(dpsco(x, y, method = "clip", lambda.min.ratio = 0, iterations = 2,
                            nlambda = 2)))
  )
  for (case in cases) check_case(case, env)
})

test_that("bad lambda and penalty.factor raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "lambda negative", arg = "lambda",
         call = quote(dpsco(x, y, method = "clip", lambda = c(0.5, -0.1), iterations = 2))),
    list(label = "lambda NA", arg = "lambda",
         call = quote(dpsco(x, y, method = "clip", lambda = c(0.5, NA), iterations = 2))),
    list(label = "lambda Inf", arg = "lambda",
         call = quote(dpsco(x, y, method = "clip", lambda = c(Inf, 0.5), iterations = 2))),
    list(label = "lambda increasing", arg = "lambda",
         call = quote(dpsco(x, y, method = "clip", lambda = c(0.1, 0.2, 0.3), iterations = 2))),
    list(label = "lambda unsorted", arg = "lambda",
         call = quote(dpsco(x, y, method = "clip", lambda = c(0.3, 0.1, 0.2), iterations = 2))),
    list(label = "lambda duplicated", arg = "lambda",
         call = quote(dpsco(x, y, method = "clip", lambda = c(0.3, 0.3, 0.1), iterations = 2))),
    list(label = "lambda character", arg = "lambda",
         call = quote(dpsco(x, y, method = "clip", lambda = "0.1", iterations = 2))),
    list(label = "penalty.factor wrong length", arg = "penalty.factor",
         call = quote(dpsco(x, y, method = "clip", penalty.factor = rep(1, p + 1),
                            iterations = 2, nlambda = 2))),
    list(label = "penalty.factor negative", arg = "penalty.factor",
         call = quote(dpsco(x, y, method = "clip", penalty.factor = c(-1, 1),
                            iterations = 2, nlambda = 2))),
    list(label = "penalty.factor all zero", arg = "penalty.factor",
         call = quote(dpsco(x, y, method = "clip", penalty.factor = c(0, 0),
                            iterations = 2, nlambda = 2))),
    list(label = "penalty.factor NA", arg = "penalty.factor",
         call = quote(dpsco(x, y, method = "clip", penalty.factor = c(NA, 1),
                            iterations = 2, nlambda = 2)))
  )
  for (case in cases) check_case(case, env)
})

test_that("bad dpsco_control() values raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "clip 0", arg = "clip", call = quote(dpsco_control(clip = 0))),
    list(label = "clip -1", arg = "clip", call = quote(dpsco_control(clip = -1))),
    list(label = "clip NA", arg = "clip", call = quote(dpsco_control(clip = NA))),
    list(label = "rho 0", arg = "rho", call = quote(dpsco_control(rho = 0))),
    list(label = "s -1", arg = "s", call = quote(dpsco_control(s = -1))),
    list(label = "nu 0", arg = "nu", call = quote(dpsco_control(nu = 0))),
    list(label = "tau 0", arg = "tau", call = quote(dpsco_control(tau = 0))),
    list(label = "zeta 0", arg = "zeta", call = quote(dpsco_control(zeta = 0))),
    list(label = "zeta 1", arg = "zeta", call = quote(dpsco_control(zeta = 1))),
    list(label = "kmom 1", arg = "kmom", call = quote(dpsco_control(kmom = 1)))
  )
  for (case in cases) check_case(case, env)
})

test_that("bad coef() and predict() arguments raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "predict class on gaussian", arg = "type",
         call = quote(predict(gfit, x, type = "class"))),
    list(label = "predict newx wrong columns", arg = "newx",
         call = quote(predict(gfit, cbind(x, 1)))),
    list(label = "predict newx too few columns", arg = "newx",
         call = quote(predict(gfit, x[, 1, drop = FALSE]))),
    list(label = "predict link without newx", arg = "newx",
         call = quote(predict(gfit, type = "link"))),
    list(label = "predict negative s", arg = "s",
         call = quote(predict(gfit, x, s = -0.1))),
    list(label = "coef negative s", arg = "s",
         call = quote(coef(gfit, s = -1))),
    list(label = "coef NA s", arg = "s",
         call = quote(coef(gfit, s = c(0.1, NA)))),
    list(label = "coef character s", arg = "s",
         call = quote(coef(gfit, s = "0.1")))
  )
  for (case in cases) check_case(case, env)
})

test_that("epsilon = Inf is accepted with method 'none' and recorded as Inf", {
  d <- val_data()
  fit <- dpsco(d$x, d$y, method = "none", epsilon = Inf, iterations = 2,
               nlambda = 2, step_size = 0.3)
  expect_s3_class(fit, "dpsco")
  expect_identical(fit$privacy$epsilon, Inf)
  expect_false(fit$privacy$private)
  # a finite epsilon given with "none" is ignored: the fit is not private
  fit2 <- dpsco(d$x, d$y, method = "none", epsilon = 3, iterations = 2,
                nlambda = 2, step_size = 0.3)
  expect_identical(fit2$privacy$epsilon, Inf)
  expect_identical(fit2$privacy$delta, 0)
})

test_that("a numeric data.frame x gives the same fit as the matrix", {
  d <- val_data()
  xm <- d$x
  colnames(xm) <- c("a", "b")
  xdf <- as.data.frame(xm)
  set.seed(11)
  f_df <- dpsco(xdf, d$y, method = "clip", epsilon = 5, iterations = 3,
                nlambda = 3)
  set.seed(11)
  f_m <- dpsco(xm, d$y, method = "clip", epsilon = 5, iterations = 3,
               nlambda = 3)
  expect_identical(f_df$beta, f_m$beta)
  expect_identical(f_df$a0, f_m$a0)
  expect_identical(f_df$lambda, f_m$lambda)
  expect_identical(rownames(f_df$beta), c("a", "b"))
  # sanity: the noise really is seed dependent, so identical fits need the
  # same data after conversion
  set.seed(12)
  f_other <- dpsco(xm, d$y, method = "clip", epsilon = 5, iterations = 3,
                   nlambda = 3)
  expect_false(identical(f_other$beta, f_m$beta))
})

test_that("an integer matrix x is accepted and equals the double matrix", {
  set.seed(5)
  n <- 40
  xi <- matrix(sample(-2:2, n * 2, replace = TRUE), n, 2)
  expect_true(is.integer(xi))
  y <- drop(xi %*% c(0.5, -0.5)) + rnorm(n, sd = 0.2)
  xd <- xi
  storage.mode(xd) <- "double"
  set.seed(3)
  fi <- dpsco(xi, y, method = "holland", epsilon = 4, iterations = 3,
              nlambda = 3, step_size = 0.1)
  set.seed(3)
  fd <- dpsco(xd, y, method = "holland", epsilon = 4, iterations = 3,
              nlambda = 3, step_size = 0.1)
  expect_identical(fi$beta, fd$beta)
  expect_identical(fi$a0, fd$a0)
})

test_that("logical y for binomial equals the 0/1 numeric y", {
  d <- val_data()
  yl <- d$yb == 1
  set.seed(21)
  fl <- dpsco(d$x, yl, family = "binomial", method = "clip", epsilon = 5,
              iterations = 3, nlambda = 3)
  set.seed(21)
  fn <- dpsco(d$x, d$yb, family = "binomial", method = "clip", epsilon = 5,
              iterations = 3, nlambda = 3)
  expect_identical(fl$beta, fn$beta)
  expect_identical(fl$a0, fn$a0)
  expect_identical(fn$classnames, c("0", "1"))
})

test_that("a two-level factor y equals the 0/1 y with the second level as 1", {
  d <- val_data()
  yf <- factor(ifelse(d$yb == 1, "yes", "no"), levels = c("no", "yes"))
  set.seed(31)
  ff <- dpsco(d$x, yf, family = "binomial", method = "none", iterations = 5,
              nlambda = 3, step_size = 0.5)
  set.seed(31)
  fn <- dpsco(d$x, d$yb, family = "binomial", method = "none", iterations = 5,
              nlambda = 3, step_size = 0.5)
  expect_identical(ff$beta, fn$beta)
  expect_identical(ff$a0, fn$a0)
  expect_identical(ff$classnames, c("no", "yes"))

  # reversed level order: "no" becomes the event
  yr <- factor(as.character(yf), levels = c("yes", "no"))
  fr <- dpsco(d$x, yr, family = "binomial", method = "none", iterations = 5,
              nlambda = 3, step_size = 0.5)
  fflip <- dpsco(d$x, 1 - d$yb, family = "binomial", method = "none",
                 iterations = 5, nlambda = 3, step_size = 0.5)
  expect_identical(fr$beta, fflip$beta)
  expect_false(isTRUE(all.equal(fr$beta, fn$beta)))

  # predict(type = "class") returns the level names, thresholding at 0.5
  newx <- d$x[1:8, ]
  cls <- predict(ff, newx, type = "class")
  eta <- cbind(1, newx) %*% rbind(ff$a0, ff$beta)
  prob <- 1 / (1 + exp(-eta))
  expect_identical(unname(cls),
                   unname(ifelse(prob > 0.5, "yes", "no")))
  expect_true(all(cls %in% c("no", "yes")))
  expect_identical(dim(cls), c(8L, 3L))
})

test_that("lambda.min.ratio = 1 is rejected (it would repeat lambda)", {
  d <- val_data()
  cnd <- tryCatch(dpsco(d$x, d$y, method = "clip", lambda.min.ratio = 1,
                        iterations = 2, nlambda = 3),
                  dpsco_arg_error = function(e) e)
  expect_s3_class(cnd, "dpsco_arg_error")
  expect_identical(cnd$arg, "lambda.min.ratio")
})

test_that("a bad newx in predict() is reported as `newx`", {
  env <- make_env()
  newx <- env$x
  newx[1, 1] <- NA
  cnd <- tryCatch(predict(env$gfit, newx), dpsco_arg_error = function(e) e)
  expect_s3_class(cnd, "dpsco_arg_error")
  expect_identical(cnd$arg, "newx")
})
