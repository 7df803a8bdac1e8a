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
    gfit <- dpsco(tuning = "public", x, y, method = "none", iterations = 2, nlambda = 3,
                  step_size = 0.3)
  })
  env
}

test_that("the base calls used below are valid", {
  env <- make_env()
  f <- eval(quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 2, nlambda = 2)),
            env)
  expect_s3_class(f, "dpsco")
  f <- eval(quote(dpsco(tuning = "public", x, yb, family = "binomial", method = "clip",
                        iterations = 2, nlambda = 2)), env)
  expect_s3_class(f, "dpsco")
  expect_s3_class(env$gfit, "dpsco")
  expect_s3_class(dpsco_control(), "dpsco_control")
})

test_that("bad x, y and family responses raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "NA in x", arg = "x",
         call = quote(dpsco(tuning = "public", x_na, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "NaN in x", arg = "x",
         call = quote(dpsco(tuning = "public", x_nan, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "Inf in x", arg = "x",
         call = quote(dpsco(tuning = "public", x_inf, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "-Inf in x", arg = "x",
         call = quote(dpsco(tuning = "public", x_ninf, y, method = "none", iterations = 2, nlambda = 2))),
    list(label = "character x", arg = "x",
         call = quote(dpsco(tuning = "public", x_chr, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "data.frame with character column", arg = "x",
         call = quote(dpsco(tuning = "public", x_df_chr, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "data.frame with factor column", arg = "x",
         call = quote(dpsco(tuning = "public", x_df_fac, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "x a vector", arg = "x",
         call = quote(dpsco(tuning = "public", x[, 1], y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "p = 0", arg = "x",
         call = quote(dpsco(tuning = "public", x_p0, y, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "n < 2", arg = "x",
         call = quote(dpsco(tuning = "public", x_n1, y[1], method = "clip", iterations = 2, nlambda = 2))),
    list(label = "mismatched rows (y shorter)", arg = "y",
         call = quote(dpsco(tuning = "public", x, y[-1], method = "clip", iterations = 2, nlambda = 2))),
    list(label = "mismatched rows (y longer)", arg = "y",
         call = quote(dpsco(tuning = "public", x, c(y, 1), method = "clip", iterations = 2, nlambda = 2))),
    list(label = "NA in y", arg = "y",
         call = quote(dpsco(tuning = "public", x, y_na, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "NaN in y", arg = "y",
         call = quote(dpsco(tuning = "public", x, y_nan, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "Inf in y", arg = "y",
         call = quote(dpsco(tuning = "public", x, y_inf, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "gaussian y character", arg = "y",
         call = quote(dpsco(tuning = "public", x, y_chr, method = "clip", iterations = 2, nlambda = 2))),
    list(label = "binomial y with 0/1/2", arg = "y",
         call = quote(dpsco(tuning = "public", x, y012, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2))),
    list(label = "binomial y continuous", arg = "y",
         call = quote(dpsco(tuning = "public", x, y, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2))),
    list(label = "binomial y with NA", arg = "y",
         call = quote(dpsco(tuning = "public", x, yb_na, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2))),
    list(label = "binomial factor with 1 level", arg = "y",
         call = quote(dpsco(tuning = "public", x, y_f1, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2))),
    list(label = "binomial factor with 3 levels", arg = "y",
         call = quote(dpsco(tuning = "public", x, y_f3, family = "binomial", method = "clip",
                            iterations = 2, nlambda = 2)))
  )
  for (case in cases) check_case(case, env)
})

test_that("bad privacy targets raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "epsilon 0", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = 0, iterations = 2, nlambda = 2))),
    list(label = "epsilon -1", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = -1, iterations = 2, nlambda = 2))),
    list(label = "epsilon NA", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = NA, iterations = 2, nlambda = 2))),
    list(label = "epsilon NA_real_", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, method = "kamath", epsilon = NA_real_,
                            iterations = 2, nlambda = 2))),
    list(label = "epsilon of length 2", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = c(1, 2), iterations = 2, nlambda = 2))),
    list(label = "epsilon character", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = "1", iterations = 2, nlambda = 2))),
    list(label = "epsilon Inf with clip", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = Inf, iterations = 2, nlambda = 2))),
    list(label = "epsilon Inf with default (holland)", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, epsilon = Inf, iterations = 2, nlambda = 2))),
    list(label = "epsilon Inf with kamath", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, method = "kamath", epsilon = Inf, iterations = 2, nlambda = 2))),
    list(label = "epsilon -1 with none", arg = "epsilon",
         call = quote(dpsco(tuning = "public", x, y, method = "none", epsilon = -1, iterations = 2, nlambda = 2))),
    list(label = "delta 0", arg = "delta",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", delta = 0, iterations = 2, nlambda = 2))),
    list(label = "delta 1", arg = "delta",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", delta = 1, iterations = 2, nlambda = 2))),
    list(label = "delta 2", arg = "delta",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", delta = 2, iterations = 2, nlambda = 2))),
    list(label = "delta -1e-3", arg = "delta",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", delta = -1e-3, iterations = 2, nlambda = 2))),
    list(label = "delta NA", arg = "delta",
         call = quote(dpsco(tuning = "public", x, y, method = "holland", delta = NA, iterations = 2, nlambda = 2)))
  )
  for (case in cases) check_case(case, env)
})

test_that("bad optimiser settings raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "threads 0", arg = "threads",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", threads = 0, iterations = 2, nlambda = 2))),
    list(label = "threads 1.5", arg = "threads",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", threads = 1.5, iterations = 2, nlambda = 2))),
    list(label = "threads 65", arg = "threads",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", threads = 65, iterations = 2, nlambda = 2))),
    list(label = "threads NA", arg = "threads",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", threads = NA, iterations = 2, nlambda = 2))),
    list(label = "batch_size 0", arg = "batch_size",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", batch_size = 0, iterations = 2, nlambda = 2))),
    list(label = "batch_size n + 1", arg = "batch_size",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", batch_size = n + 1, iterations = 2,
                            nlambda = 2))),
    list(label = "iterations 0", arg = "iterations",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 0, nlambda = 2))),
    list(label = "iterations 2.5", arg = "iterations",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 2.5, nlambda = 2))),
    list(label = "iterations -1", arg = "iterations",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", iterations = -1, nlambda = 2))),
    list(label = "step_size 0", arg = "step_size",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", step_size = 0, iterations = 2, nlambda = 2))),
    list(label = "step_size -1", arg = "step_size",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", step_size = -1, iterations = 2, nlambda = 2))),
    list(label = "step_size Inf", arg = "step_size",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", step_size = Inf, iterations = 2, nlambda = 2))),
    list(label = "alpha -0.1", arg = "alpha",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", alpha = -0.1, iterations = 2, nlambda = 2))),
    list(label = "alpha 1.1", arg = "alpha",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", alpha = 1.1, iterations = 2, nlambda = 2))),
    list(label = "intercept NA", arg = "intercept",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", intercept = NA, iterations = 2, nlambda = 2))),
    list(label = "intercept character", arg = "intercept",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", intercept = "yes", iterations = 2,
                            nlambda = 2))),
    list(label = "trace step 0", arg = "trace",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", trace = 0, iterations = 2, nlambda = 2))),
    list(label = "trace beyond iterations", arg = "trace",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", trace = c(1, 3), iterations = 2,
                            nlambda = 2))),
    list(label = "trace fractional", arg = "trace",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", trace = 1.5, iterations = 2, nlambda = 2))),
    list(label = "control not from dpsco_control", arg = "control",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", control = list(clip = 1),
                            iterations = 2, nlambda = 2))),
    list(label = "nlambda 0", arg = "nlambda",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", nlambda = 0, iterations = 2))),
    list(label = "lambda.min.ratio 0", arg = "lambda.min.ratio",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", lambda.min.ratio = 0, iterations = 2,
                            nlambda = 2)))
  )
  for (case in cases) check_case(case, env)
})

test_that("bad lambda and penalty.factor raise dpsco_arg_error naming the argument", {
  env <- make_env()
  cases <- list(
    list(label = "lambda negative", arg = "lambda",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", lambda = c(0.5, -0.1), iterations = 2))),
    list(label = "lambda NA", arg = "lambda",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", lambda = c(0.5, NA), iterations = 2))),
    list(label = "lambda Inf", arg = "lambda",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", lambda = c(Inf, 0.5), iterations = 2))),
    list(label = "lambda increasing", arg = "lambda",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", lambda = c(0.1, 0.2, 0.3), iterations = 2))),
    list(label = "lambda unsorted", arg = "lambda",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", lambda = c(0.3, 0.1, 0.2), iterations = 2))),
    list(label = "lambda duplicated", arg = "lambda",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", lambda = c(0.3, 0.3, 0.1), iterations = 2))),
    list(label = "lambda character", arg = "lambda",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", lambda = "0.1", iterations = 2))),
    list(label = "penalty.factor wrong length", arg = "penalty.factor",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", penalty.factor = rep(1, p + 1),
                            iterations = 2, nlambda = 2))),
    list(label = "penalty.factor negative", arg = "penalty.factor",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", penalty.factor = c(-1, 1),
                            iterations = 2, nlambda = 2))),
    list(label = "penalty.factor all zero", arg = "penalty.factor",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", penalty.factor = c(0, 0),
                            iterations = 2, nlambda = 2))),
    list(label = "penalty.factor NA", arg = "penalty.factor",
         call = quote(dpsco(tuning = "public", x, y, method = "clip", penalty.factor = c(NA, 1),
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
    list(label = "moment_bound 0", arg = "moment_bound",
         call = quote(dpsco_control(moment_bound = 0))),
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
  fit <- dpsco(tuning = "public", d$x, d$y, method = "none", epsilon = Inf, iterations = 2,
               nlambda = 2, step_size = 0.3)
  expect_s3_class(fit, "dpsco")
  expect_identical(fit$privacy$epsilon, Inf)
  expect_false(fit$privacy$private)
  # a finite epsilon given with "none" is ignored: the fit is not private
  fit2 <- dpsco(tuning = "public", d$x, d$y, method = "none", epsilon = 3, iterations = 2,
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
  f_df <- dpsco(tuning = "public", xdf, d$y, method = "clip", epsilon = 5, iterations = 3,
                nlambda = 3)
  set.seed(11)
  f_m <- dpsco(tuning = "public", xm, d$y, method = "clip", epsilon = 5, iterations = 3,
               nlambda = 3)
  expect_identical(f_df$beta, f_m$beta)
  expect_identical(f_df$a0, f_m$a0)
  expect_identical(f_df$lambda, f_m$lambda)
  expect_identical(rownames(f_df$beta), c("a", "b"))
  # sanity: the noise really is seed dependent, so identical fits need the
  # same data after conversion
  set.seed(12)
  f_other <- dpsco(tuning = "public", xm, d$y, method = "clip", epsilon = 5, iterations = 3,
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
  fi <- dpsco(tuning = "public", xi, y, method = "holland", epsilon = 4, iterations = 3,
              nlambda = 3, step_size = 0.1)
  set.seed(3)
  fd <- dpsco(tuning = "public", xd, y, method = "holland", epsilon = 4, iterations = 3,
              nlambda = 3, step_size = 0.1)
  expect_identical(fi$beta, fd$beta)
  expect_identical(fi$a0, fd$a0)
})

test_that("logical y for binomial equals the 0/1 numeric y", {
  d <- val_data()
  yl <- d$yb == 1
  set.seed(21)
  fl <- dpsco(tuning = "public", d$x, yl, family = "binomial", method = "clip", epsilon = 5,
              iterations = 3, nlambda = 3)
  set.seed(21)
  fn <- dpsco(tuning = "public", d$x, d$yb, family = "binomial", method = "clip", epsilon = 5,
              iterations = 3, nlambda = 3)
  expect_identical(fl$beta, fn$beta)
  expect_identical(fl$a0, fn$a0)
  expect_identical(fn$classnames, c("0", "1"))
})

test_that("a two-level factor y equals the 0/1 y with the second level as 1", {
  d <- val_data()
  yf <- factor(ifelse(d$yb == 1, "yes", "no"), levels = c("no", "yes"))
  set.seed(31)
  ff <- dpsco(tuning = "public", d$x, yf, family = "binomial", method = "none", iterations = 5,
              nlambda = 3, step_size = 0.5)
  set.seed(31)
  fn <- dpsco(tuning = "public", d$x, d$yb, family = "binomial", method = "none", iterations = 5,
              nlambda = 3, step_size = 0.5)
  expect_identical(ff$beta, fn$beta)
  expect_identical(ff$a0, fn$a0)
  expect_identical(ff$classnames, c("no", "yes"))

  # reversed level order: "no" becomes the event
  yr <- factor(as.character(yf), levels = c("yes", "no"))
  fr <- dpsco(tuning = "public", d$x, yr, family = "binomial", method = "none", iterations = 5,
              nlambda = 3, step_size = 0.5)
  fflip <- dpsco(tuning = "public", d$x, 1 - d$yb, family = "binomial", method = "none",
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
  cnd <- tryCatch(dpsco(tuning = "public", d$x, d$y, method = "clip", lambda.min.ratio = 1,
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

# ---------------------------------------------------------------------------
# Hardening table: bad inputs across every exported entry point.  Each row is
# a call and the argument its dpsco_arg_error must name.  Every call runs
# under an elapsed-time limit, so a calibration loop or a run that never
# ends shows up as a failure (a time-limit error is not a dpsco_arg_error)
# instead of a hung check; all rows take milliseconds when correct.

guarded <- function(call, env, limit = 20) {
  setTimeLimit(elapsed = limit, transient = TRUE)
  on.exit(setTimeLimit(elapsed = Inf))
  tryCatch(eval(call, env), dpsco_arg_error = function(e) e,
           error = function(e) e)
}

check_hard_case <- function(row, env) {
  lab <- paste0(row$label, ": ", deparse(row$call, width.cutoff = 500L)[1])
  cnd <- guarded(row$call, env)
  expect_s3_class(cnd, "dpsco_arg_error")
  if (!inherits(cnd, "dpsco_arg_error")) {
    fail(paste0(lab, " gave ", class(cnd)[1L], ": ",
                if (inherits(cnd, "condition")) conditionMessage(cnd)))
    return(invisible())
  }
  expect_identical(cnd$arg, row$arg, label = paste0("arg of ", lab))
  msg <- conditionMessage(cnd)
  expect_true(grepl(paste0("`", row$arg, "`"), msg, fixed = TRUE),
              label = paste0("message of ", lab, " names `", row$arg, "`"))
  # actionable: the message says what is valid or what to change
  expect_match(msg, row$says, label = paste0("message of ", lab))
}

hard_env <- function() {
  env <- make_env()
  with(env, {
    v <- rt(50, df = 3)
    x_big_n <- matrix(runif(20730), 20730, 1)   # default T = 5 n^2 > 2^31
    y_big_n <- runif(20730)
    y_f_unused <- factor(rep("a", n), levels = c("a", "b"))
    f1 <- function(z) z
    cvfit <- cv.dpsco(x, y, method = "none", nlambda = 2, iterations = 2)
  })
  env
}

row <- function(label, arg, says, call) list(label = label, arg = arg,
                                              says = says, call = call)

# shorthand for the common arguments of a quick private fit
q2 <- function(call) {
  call$iterations <- call$iterations %||% 2
  call$nlambda <- call$nlambda %||% 2
  call
}

hard_table <- list(
  # dpsco(): types and shapes of x and y
  row("list x", "x", "numeric matrix", quote(dpsco(tuning = "public", list(1, 2), y))),
  row("function x", "x", "numeric matrix", quote(dpsco(tuning = "public", f1, y))),
  row("complex x", "x", "numeric matrix", quote(dpsco(tuning = "public", x + 0i, y))),
  row("3-d array x", "x", "numeric matrix", quote(dpsco(tuning = "public", array(1, c(n, 2, 2)), y))),
  row("0-row x", "x", "at least 2 rows", quote(dpsco(tuning = "public", x[0, , drop = FALSE], y[0]))),
  row("0 x 0 x", "x", "no columns", quote(dpsco(tuning = "public", matrix(0, 0, 0), numeric(0)))),
  row("empty data frame", "x", "no columns", quote(dpsco(tuning = "public", data.frame(), numeric(0)))),
  row("one record (n = 1)", "x", "at least 2 rows",
      quote(dpsco(tuning = "public", x[1, , drop = FALSE], y[1], method = "none"))),
  row("character column in data frame", "x", "model.matrix",
      quote(dpsco(tuning = "public", x_df_chr, y))),
  row("list y", "y", "numeric vector", quote(dpsco(tuning = "public", x, as.list(y)))),
  row("function y", "y", "numeric vector", quote(dpsco(tuning = "public", x, f1))),
  row("complex y", "y", "numeric vector", quote(dpsco(tuning = "public", x, y + 0i))),
  row("length-0 y", "y", "has length 0", quote(dpsco(tuning = "public", x, numeric(0)))),
  row("two-column y", "y", "2-column matrix", quote(dpsco(tuning = "public", x, cbind(y, y)))),
  row("factor y for gaussian", "y", "binomial", quote(dpsco(tuning = "public", x, factor(y > 0)))),
  row("one-value character y for binomial", "y", "two classes",
      quote(dpsco(tuning = "public", x, rep("a", n), family = "binomial"))),
  # choices
  row("unknown family", "family", "one of", quote(dpsco(tuning = "public", x, y, family = "tweedie"))),
  row("unknown method", "method", "one of", quote(dpsco(tuning = "public", x, y, method = "foo"))),
  row("NA method", "method", "one of", quote(dpsco(tuning = "public", x, y, method = NA))),
  row("two methods", "method", "one of", quote(dpsco(tuning = "public", x, y, method = c("clip", "none")))),
  row("unknown calibration", "calibration", "one of",
      quote(dpsco(tuning = "public", x, y, calibration = "exact"))),
  # an abbreviation is an error, not a guess
  row("abbreviated family", "family", "got \"binom\" \\(choices are matched exactly\\)",
      quote(dpsco(tuning = "public", x, yb, family = "binom"))),
  row("abbreviated method", "method", "got \"kam\" \\(choices are matched exactly\\)",
      quote(dpsco(tuning = "public", x, y, method = "kam"))),
  row("abbreviated calibration", "calibration", "matched exactly",
      quote(dpsco(tuning = "public", x, y, method = "clip", calibration = "pap"))),
  row("abbreviated tuning", "tuning", "matched exactly",
      quote(dpsco(x, y, tuning = "pub"))),
  row("abbreviated optimizer", "optimizer", "matched exactly",
      quote(dpsco(x, y, optimizer = "newt"))),
  # privacy targets at the extremes
  row("delta 1e-300 with subsampling", "epsilon", "cannot be met",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", delta = 1e-300, batch_size = 10)))),
  row("epsilon NaN", "epsilon", "single number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = NaN)))),
  row("epsilon a list", "epsilon", "single number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = list(1))))),
  row("delta NaN", "delta", "single number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", delta = NaN)))),
  row("delta rounding to 1", "delta", "must lie in \\(0, 1\\); got 1\\.",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", delta = 1 - 1e-17)))),
  row("delta 1", "delta", "must lie in \\(0, 1\\); got 1\\.",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", delta = 1)))),
  row("delta 2", "delta", "must lie in \\(0, 1\\); got 2\\.",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", delta = 2)))),
  row("epsilon -1", "epsilon", "must lie in \\(0, Inf\\); got -1\\.",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = -1)))),
  row("epsilon Inf for a private method", "epsilon",
      "must be finite for a private method \\(Inf only with method = \"none\"\\)",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", epsilon = Inf)))),
  row("epsilon Inf for a constraint-set method", "epsilon",
      "Inf only with method = \"none\"",
      quote(dpsco(tuning = "public", x, y, method = "fw", epsilon = Inf, radius = 1))),
  # without privacy epsilon may be Inf, so the interval is closed there
  row("epsilon -1 for method none", "epsilon", "must lie in \\(0, Inf\\]; got -1\\.",
      q2(quote(dpsco(tuning = "public", x, y, method = "none", epsilon = -1)))),
  row("delta 1 for method none", "delta", "must lie in \\(0, 1\\); got 1\\.",
      q2(quote(dpsco(tuning = "public", x, y, method = "none", delta = 1)))),
  # the public number of records
  row("public_n 0", "public_n", "must lie in \\[1, Inf\\); got 0\\.",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", public_n = 0)))),
  row("public_n fractional", "public_n", "whole number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", public_n = 40.5)))),
  row("public_n Inf", "public_n", "finite",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", public_n = Inf)))),
  row("public_n NA", "public_n", "single number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", public_n = NA)))),
  # batch sizes, iterations and path length
  row("batch_size 1e300", "batch_size", "\\[1, 30\\]",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", batch_size = 1e300)))),
  row("batch_size Inf", "batch_size", "finite",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", batch_size = Inf)))),
  row("batch_size NA", "batch_size", "single number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", batch_size = NA_real_)))),
  row("batch_size 0.5", "batch_size", "\\[1, 30\\]",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", batch_size = 0.5)))),
  row("iterations 1e12", "iterations", "at most 2147483647",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 1e12)))),
  row("iterations beyond the int range", "iterations", "fewer iterations",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 3e9)))),
  row("iterations Inf", "iterations", "finite",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", iterations = Inf)))),
  row("iterations x nlambda overflows int", "iterations", "fewer iterations",
      quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 1e7, nlambda = 1000))),
  row("default iterations 5 (n/m)^2 beyond the int range", "batch_size",
      "larger batch_size",
      quote(dpsco(tuning = "public", x_big_n, y_big_n, method = "clip", batch_size = 1, nlambda = 2))),
  row("nlambda 1e12", "nlambda", "\\[1, 2147483647\\]",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", nlambda = 1e12)))),
  row("nlambda 1e8 (used to run for minutes)", "nlambda", "at most 10000",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", nlambda = 1e8)))),
  row("nlambda NA", "nlambda", "single number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", nlambda = NA)))),
  row("lambda of 10001 values", "lambda", "at most 10000",
      quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 2, lambda = 10001:1 / 1e4))),
  row("lambda empty", "lambda", "numeric vector",
      quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 2, lambda = numeric(0)))),
  row("lambda NaN", "lambda", "without missing",
      quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 2, lambda = c(1, NaN)))),
  row("trace of every step on a long path", "trace", "trace fewer steps",
      quote(dpsco(tuning = "public", x, y, method = "clip", iterations = 1e6, nlambda = 1000,
                  trace = TRUE))),
  row("step_size NaN", "step_size", "single number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", step_size = NaN)))),
  row("alpha character", "alpha", "single number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", alpha = "1")))),
  row("penalty.factor NA", "penalty.factor", "non-negative numbers",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", penalty.factor = c(NA, 1))))),
  row("declared scale NA", "standardize", "finite positive",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", standardize = list(scale = c(NA, 1)))))),
  row("lambda.min.ratio NaN", "lambda.min.ratio", "single number",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", lambda.min.ratio = NaN)))),
  row("lambda.min.ratio negative", "lambda.min.ratio", "\\(0, 1\\]",
      q2(quote(dpsco(tuning = "public", x, y, method = "clip", lambda.min.ratio = -1)))),
  # predict() and coef()
  row("predict type unknown", "type", "one of", quote(predict(gfit, x, type = "probability"))),
  row("predict type NA", "type", "one of", quote(predict(gfit, x, type = NA))),
  row("predict type abbreviated", "type", "got \"resp\" \\(choices are matched exactly\\)",
      quote(predict(gfit, x, type = "resp"))),
  # `...` of coef() and predict() takes nothing
  row("coef exact = TRUE", "exact", "refitting at new penalties",
      quote(coef(gfit, exact = TRUE))),
  row("predict exact = TRUE", "exact", "refitting at new penalties",
      quote(predict(gfit, x, s = 0.1, exact = TRUE))),
  row("predict foo", "foo", "is not an argument of predict\\(\\)",
      quote(predict(gfit, x, foo = 1))),
  row("coef foo", "foo", "is not an argument of coef\\(\\)",
      quote(coef(gfit, foo = 1))),
  row("predict newx a vector", "newx", "drop = FALSE", quote(predict(gfit, x[1, ]))),
  row("predict newx 0 rows", "newx", "at least 1 row",
      quote(predict(gfit, x[0, , drop = FALSE]))),
  row("predict newx with Inf", "newx", "NA, NaN or infinite", quote(predict(gfit, x_inf))),
  row("predict newx with NaN", "newx", "NA, NaN or infinite", quote(predict(gfit, x_nan))),
  row("predict newx data frame with character", "newx", "model.matrix",
      quote(predict(gfit, x_df_chr))),
  row("predict s NA", "s", "non-negative", quote(predict(gfit, x, s = NA))),
  row("predict s NaN", "s", "non-negative", quote(predict(gfit, x, s = NaN))),
  row("coef s TRUE", "s", "non-negative", quote(coef(gfit, s = TRUE))),
  row("coef s a list", "s", "non-negative", quote(coef(gfit, s = list(0.1)))),
  row("coef s empty", "s", "non-negative", quote(coef(gfit, s = numeric(0)))),
  row("coef s NaN", "s", "non-negative", quote(coef(gfit, s = NaN))),
  # dp_mean()
  row("dp_mean of nothing", "x", "at least 2 rows", quote(dp_mean(numeric(0)))),
  row("dp_mean of one value", "x", "at least 2 rows", quote(dp_mean(3))),
  row("dp_mean with NA", "x", "NA, NaN or infinite", quote(dp_mean(c(v, NA)))),
  row("dp_mean with Inf", "x", "NA, NaN or infinite", quote(dp_mean(c(v, Inf)))),
  row("dp_mean of characters", "x", "numeric matrix", quote(dp_mean(c("1", "2")))),
  row("dp_mean of a factor", "x", "numeric matrix", quote(dp_mean(factor(1:3)))),
  row("dp_mean unknown method", "method", "one of", quote(dp_mean(v, method = "median"))),
  row("dp_mean epsilon Inf", "epsilon", "must be finite for a private method",
      quote(dp_mean(v, epsilon = Inf))),
  row("dp_mean epsilon 0", "epsilon", "must lie in \\(0, Inf\\); got 0\\.",
      quote(dp_mean(v, epsilon = 0))),
  row("dp_mean epsilon -1", "epsilon", "must lie in \\(0, Inf\\); got -1\\.",
      quote(dp_mean(v, epsilon = -1))),
  row("dp_mean delta 0", "delta", "must lie in \\(0, 1\\); got 0\\.",
      quote(dp_mean(v, delta = 0))),
  row("dp_mean delta 1", "delta", "must lie in \\(0, 1\\); got 1\\.",
      quote(dp_mean(v, delta = 1))),
  row("dp_mean delta 2", "delta", "must lie in \\(0, 1\\); got 2\\.",
      quote(dp_mean(v, delta = 2))),
  row("dp_mean public_n 0.5", "public_n", "\\[1, Inf\\); got 0.5",
      quote(dp_mean(v, public_n = 0.5))),
  row("dp_mean delta NaN", "delta", "single number", quote(dp_mean(v, delta = NaN))),
  # accountant
  row("orders 1e300 (used to fail allocating)", "orders", "at most 10000",
      quote(dp_epsilon(1, 0.01, 10, 1e-5, orders = 1e300))),
  row("orders 1", "orders", "greater than 1",
      quote(dp_epsilon(1, 0.01, 10, 1e-5, orders = c(1, 2)))),
  row("steps 1e300", "steps", "\\[1, 9007199254740992\\]",
      quote(dp_epsilon(1, 0.01, 1e300, 1e-5))),
  row("dp_epsilon delta 1e300", "delta", "\\(0, 1\\]",
      quote(dp_epsilon(1, 0.01, 10, 1e300))),
  row("dp_epsilon delta 0", "delta", "\\(0, 1\\]", quote(dp_epsilon(1, 0.01, 10, 0))),
  row("dp_delta epsilon NaN", "epsilon", "single number",
      quote(dp_delta(1, 0.01, 10, NaN))),
  row("dp_delta epsilon Inf", "epsilon", "finite", quote(dp_delta(1, 0.01, 10, Inf))),
  row("noise multiplier for epsilon 1e-300, subsampled, Renyi DP", "epsilon",
      "cannot be met",
      quote(dp_noise_multiplier(1e-300, 1e-5, 0.01, 100, accountant = "rdp"))),
  row("noise multiplier for delta 1e-300, subsampled", "epsilon", "cannot be met",
      quote(dp_noise_multiplier(1, 1e-300, 0.01, 100))),
  row("noise multiplier steps 0.5", "steps", "\\[1, ", quote(dp_noise_multiplier(1, 1e-5, 1, 0.5))),
  row("noise multiplier sample_rate 0", "sample_rate", "\\(0, 1\\]",
      quote(dp_noise_multiplier(1, 1e-5, 0, 10))),
  row("noise multiplier sample_rate above 1", "sample_rate", "\\(0, 1\\]",
      quote(dp_noise_multiplier(1, 1e-5, 1 + 1e-10, 10))),
  # dpsco_control()
  row("schedule unknown", "schedule", "one of", quote(dpsco_control(schedule = "log"))),
  row("output not a string", "output", "one of", quote(dpsco_control(output = 1))),
  row("output unknown", "output", "one of", quote(dpsco_control(output = "median"))),
  row("shares adding up to 1 or more", "shares", "below 1",
      quote(dpsco_control(shares = c(curvature = 0.9, scale = 0.2)))),
  row("shares with an unknown name", "shares", "names among",
      quote(dpsco_control(shares = c(speed = 0.1)))),
  row("shares unnamed", "shares", "names among", quote(dpsco_control(shares = 0.1))),
  row("share of 1", "shares", "\\(0, 1\\)", quote(dpsco_control(shares = c(scale = 1)))),
  row("x_bound zero", "x_bound", "positive", quote(dpsco_control(x_bound = 0))),
  row("quantiles unnamed", "quantiles", "c\\(clip = , row = \\)",
      quote(dpsco_control(quantiles = c(0.9, 0.9)))),
  # dpsco(): the private tuning
  row("tuning unknown", "tuning", "one of", quote(dpsco(x, y, tuning = "secret"))),
  row("optimizer unknown", "optimizer", "one of", quote(dpsco(x, y, optimizer = "adam"))),
  row("newton with public tuning", "optimizer", "tuning = \"private\"",
      quote(dpsco(x, y, tuning = "public", optimizer = "newton"))),
  row("paper calibration with private tuning", "calibration", "tuning = \"public\"",
      quote(dpsco(x, y, tuning = "private", calibration = "paper"))),
  # cv.dpsco()
  row("holdout above 1/2", "holdout", "0.5", quote(cv.dpsco(x, y, holdout = 0.6))),
  row("holdout 0", "holdout", "0", quote(cv.dpsco(x, y, holdout = 0))),
  row("curve 1", "curve", "below 1", quote(cv.dpsco(x, y, curve = 1))),
  row("type.measure of the other family", "type.measure", "does not apply",
      quote(cv.dpsco(x, y, type.measure = "class"))),
  row("type.measure unknown", "type.measure", "one of",
      quote(cv.dpsco(x, y, type.measure = "rmse"))),
  row("type.measure auc", "type.measure", "is not available",
      quote(cv.dpsco(x, y, type.measure = "auc"))),
  row("type.measure abbreviated", "type.measure", "matched exactly",
      quote(cv.dpsco(x, y, type.measure = "ms"))),
  row("misspelt argument passed on to dpsco()", "nlamda",
      "is not an argument of dpsco\\(\\)", quote(cv.dpsco(x, y, nlamda = 5))),
  row("cv coef exact = TRUE", "exact", "refitting", quote(coef(cvfit, exact = TRUE))),
  row("cv predict foo", "foo", "is not an argument of predict\\(\\)",
      quote(predict(cvfit, x, foo = 1))),
  row("loss_bound 0", "loss_bound", "0", quote(cv.dpsco(x, y, loss_bound = 0))),
  row("std_share 1", "std_share", "below 1", quote(dpsco_control(std_share = 1))),
  row("kmom Inf", "kmom", "finite", quote(dpsco_control(kmom = Inf))),
  row("clip Inf", "clip", "finite", quote(dpsco_control(clip = Inf)))
)

test_that("the hardening table: every bad input gives a quick, named, actionable error", {
  env <- hard_env()
  expect_gte(length(hard_table), 50L)
  for (r in hard_table) check_hard_case(r, env)
})

test_that("size guards work on dimensions too large to allocate in a test", {
  # A matrix with 2^31 - 1 columns cannot be built here, so the guard that
  # dpsco() runs before the engine is called directly with fake sizes.
  int_max <- .Machine$integer.max
  # p + intercept would overflow the engine's int dimension
  expect_identical(arg_of(check_sizes(int_max, 1L, 1L, 1, FALSE, FALSE)), "x")
  expect_identical(check_sizes(int_max - 1, 1L, 1L, 1, FALSE, FALSE), 1)
  # total steps in double: 10000 x 214749 overflows int, x 214748 does not
  expect_identical(arg_of(check_sizes(5, 1L, 10000L, 214749, FALSE, FALSE)),
                   "iterations")
  expect_identical(check_sizes(5, 1L, 10000L, 214748, FALSE, FALSE), 2147480000)
  expect_identical(arg_of(check_sizes(5, 1L, 10L, int_max, FALSE, TRUE)),
                   "batch_size")
  # trace array: d x traced steps x nlambda numbers
  expect_identical(arg_of(check_sizes(1e7, 0L, 100L, 1e4, c(1, 5e3, 1e4), FALSE)),
                   "trace")
  expect_identical(arg_of(check_sizes(3e4, 0L, 10000L, 2e4, TRUE, FALSE)),
                   "trace")
  expect_identical(check_sizes(2e4, 1L, 10L, 1e4, TRUE, FALSE), 1e5)
  expect_identical(arg_of(check_sizes(2, 1L, 10001L, 1, FALSE, FALSE)), "nlambda")
})

test_that("extreme privacy targets give finite answers that match closed forms", {
  guard <- function(expr) {
    setTimeLimit(elapsed = 20, transient = TRUE)
    on.exit(setTimeLimit(elapsed = Inf))
    expr
  }
  # no noise to speak of: no finite epsilon can be certified, delta is 1
  expect_identical(guard(dp_epsilon(1e-300, 0.01, 100, 1e-5)), Inf)
  expect_identical(guard(dp_epsilon(1e-300, 1, 100, 1e-5)), Inf)
  expect_identical(guard(dp_epsilon(1e-160, 0.5, 3, 1e-5, orders = 2.5)), Inf)
  expect_identical(guard(dp_delta(1e-300, 0.01, 100, 1)), 1)
  # epsilon 1e300 (Gaussian): delta <= pnorm(mu/2 - eps/mu), which is 0
  expect_identical(guard(dp_delta(1, 1, 100, 1e300)), 0)
  expect_identical(guard(dp_delta(1, 0.01, 100, 1e300)), 0)
  # calibration at the extremes of epsilon, exact Gaussian: for huge epsilon
  # eps ~ mu^2 / 2, for tiny epsilon delta ~ mu dnorm(0), mu = sqrt(T) / z
  expect_equal(guard(dp_noise_multiplier(1e300, 1e-5, 1, 100)),
               10 / sqrt(2e300), tolerance = 1e-6)
  expect_equal(guard(dp_noise_multiplier(1e-300, 1e-5, 1, 100)),
               10 / (1e-5 * sqrt(2 * pi)), tolerance = 1e-5)
  z <- guard(dp_noise_multiplier(1e300, 1e-5, 0.01, 100))
  expect_true(is.finite(z) && z > 0)
  expect_lte(dp_epsilon(z, 0.01, 100, 1e-5), 1e300)
  # the privacy loss distribution certifies epsilon 0 with enough noise
  # (total variation below delta), where Renyi DP cannot
  z <- guard(dp_noise_multiplier(1e-300, 1e-5, 0.01, 100))
  expect_identical(dp_epsilon(z, 0.01, 100, 1e-5), 0)
  expect_gt(dp_epsilon(z / 2, 0.01, 100, 1e-5), 0)
  # delta next to 1 still calibrates
  z <- guard(dp_noise_multiplier(1, 1 - 1e-16, 0.01, 100))
  expect_lte(dp_epsilon(z, 0.01, 100, 1 - 1e-16), 1)
})

test_that("a Renyi order just above 1 is not taken for the integer order 1", {
  # It used to be rounded to order 1, whose series is empty, certifying
  # epsilon 0 for any mechanism whose grid included it.
  a <- 1 + 1e-10
  eps <- dp_epsilon(1, 0.01, 10, 1e-5, orders = a, accountant = "rdp")
  # any RDP between 0 and the unsampled Gaussian's 10 a / 2 brackets it
  conv <- function(rdp) rdp + log1p(-1 / a) - (log(1e-5) + log(a)) / (a - 1)
  expect_gte(eps, conv(0))
  expect_lte(eps, conv(10 * a / 2))
  expect_identical(dp_epsilon(1, 0.01, 10, 1e-5, orders = c(1 + 1e-15, 2, 32.5),
                              accountant = "rdp"),
                   dp_epsilon(1, 0.01, 10, 1e-5, orders = c(2, 32.5),
                              accountant = "rdp"))
})

test_that("dpsco at epsilon 1e-300 and 1e300 runs and accounts correctly", {
  d <- val_data()
  T <- 2
  K <- 2
  for (eps in c(1e-300, 1e300)) {
    set.seed(1)
    f <- dpsco(tuning = "public", d$x, d$y, method = "clip", epsilon = eps, iterations = T,
               nlambda = K)
    pr <- privacy(f)
    expect_true(all(is.finite(f$beta)) && all(is.finite(f$a0)))
    expect_identical(pr$noise_multiplier,
                     dp_noise_multiplier(eps, 0.1 / d$n, 1, K * T))
    expect_lte(pr$epsilon_accounted, eps)
  }
  # the paper's noise for epsilon 1e300 is ~1e-300: nothing can be certified
  fp <- dpsco(tuning = "public", d$x, d$y, method = "clip", epsilon = 1e300, calibration = "paper",
              iterations = T, nlambda = K)
  expect_identical(privacy(fp)$epsilon_accounted, Inf)
  mp <- dp_mean(rt(50, 3), epsilon = 1e300, calibration = "paper")
  expect_true(is.finite(mp$estimate))
  expect_identical(mp$privacy$epsilon_accounted, Inf)
})

# The fits of two argument lists after the same seed: an input and its
# documented coercion must give identical results.
fits_same_seed <- function(seed, args1, args2, fun = dpsco) {
  lapply(list(args1, args2), function(a) {
    set.seed(seed)
    do.call(fun, a)
  })
}

test_that("a sparse Matrix x or newx gives the dense fit and predictions", {
  skip_if_not_installed("Matrix")
  d <- val_data()
  xs <- Matrix::Matrix(d$x * (abs(d$x) > 0.5), sparse = TRUE)
  expect_s4_class(xs, "dgCMatrix")
  xd <- as.matrix(xs)
  common <- list(y = d$y, method = "holland", epsilon = 3, iterations = 3,
                 nlambda = 3)
  f <- fits_same_seed(4, c(list(xs), common), c(list(xd), common))
  expect_identical(f[[1]]$beta, f[[2]]$beta)
  expect_identical(f[[1]]$a0, f[[2]]$a0)
  expect_identical(predict(f[[2]], xs), predict(f[[2]], xd))
  m <- fits_same_seed(5, list(xs, "clip", 2), list(xd, "clip", 2), dp_mean)
  expect_identical(m[[1]]$estimate, m[[2]]$estimate)
})

test_that("documented coercions in predict() and coef()", {
  env <- make_env()
  fit <- env$gfit
  x <- env$x
  # a numeric data frame newx predicts as the matrix
  expect_identical(predict(fit, as.data.frame(x)), predict(fit, x))
  # s beyond the fitted range takes the nearest end, Inf included
  cf <- coef(fit)
  expect_equal(unname(coef(fit, s = Inf)), unname(cf[, 1, drop = FALSE]))
  expect_equal(unname(coef(fit, s = 0)), unname(cf[, ncol(cf), drop = FALSE]))
  # type is matched exactly: an abbreviation is an error naming it, the
  # full name predicts
  err <- expect_error(predict(fit, x, type = "resp"), class = "dpsco_arg_error")
  expect_identical(err$arg, "type")
  # (a gaussian fit's response is its link)
  expect_identical(predict(fit, x, type = "response"), predict(fit, x))
})

test_that("a factor y keeps its declared levels; a method name is matched exactly", {
  d <- val_data()
  # all records in the first class: the fit is that of y = 0, and no error
  # reveals from the data that a class is absent
  yf <- factor(rep("a", d$n), levels = c("a", "b"))
  common <- list(x = d$x, family = "binomial", method = "clip", iterations = 3,
                 nlambda = 2)
  f <- fits_same_seed(8, c(list(y = yf), common), c(list(y = rep(0, d$n)), common))
  expect_identical(f[[1]]$beta, f[[2]]$beta)
  expect_identical(f[[1]]$classnames, c("a", "b"))
  common <- list(x = d$x, y = d$y, iterations = 3, nlambda = 2)
  # an abbreviation is an error naming the argument, before anything is
  # drawn; the full name fits
  seed <- rng_state()
  for (m in c("kam", "cl", "clipped", "mirror_shuf")) {
    err <- expect_error(do.call(dpsco, c(list(method = m), common)),
                        class = "dpsco_arg_error")
    expect_identical(err$arg, "method")
    expect_match(conditionMessage(err), paste0('got "', m, '"'), fixed = TRUE)
  }
  expect_identical(rng_state(), seed)
  f <- fits_same_seed(9, c(list(method = "kamath"), common),
                      c(list(method = "kamath"), common))
  expect_identical(f[[1]]$beta, f[[2]]$beta)
  expect_identical(f[[1]]$method, "kamath")
})

# Errors show the call the user wrote, not the helper that found the
# problem (check_number(), check_x(), ...).
test_that("conditionCall() of an argument error is the user's call", {
  d <- val_data()
  x <- d$x
  y <- d$y
  e <- tryCatch(dpsco(x, y, epsilon = -1), error = function(e) e)
  expect_identical(conditionCall(e), quote(dpsco(x, y, epsilon = -1)))
  fit <- dpsco(x, y, method = "none", lambda = 0.1)
  e <- tryCatch(predict(fit, newx = "a"), error = function(e) e)
  expect_identical(conditionCall(e), quote(predict(fit, newx = "a")))
  e <- tryCatch(cv.dpsco(x, y, holdout = 2), error = function(e) e)
  expect_identical(conditionCall(e), quote(cv.dpsco(x, y, holdout = 2)))
  # an error found in the dpsco() that cv.dpsco() runs still shows cv.dpsco()
  e <- tryCatch(cv.dpsco(x, y, nlambda = -1), error = function(e) e)
  expect_identical(conditionCall(e), quote(cv.dpsco(x, y, nlambda = -1)))
  e <- tryCatch(coef(fit, s = -1), error = function(e) e)
  expect_identical(conditionCall(e), quote(coef(fit, s = -1)))
  # called from the user's own function: the package's call in it
  wrap <- function(eps) dpsco(x, y, epsilon = eps)
  e <- tryCatch(wrap(-2), error = function(e) e)
  expect_identical(conditionCall(e), quote(dpsco(x, y, epsilon = eps)))
  expect_match(paste(format(conditionCall(e)), collapse = ""), "^dpsco\\(")
})

test_that("a multinomial y is a factor whose levels are the classes", {
  fam <- family_multinomial()
  yy <- check_y(factor(c("b", "c", "b"), levels = c("a", "b", "c")),
                        3, fam)
  # an absent level keeps its class
  expect_identical(yy$classnames, c("a", "b", "c"))
  expect_identical(yy$y, c(1, 2, 1))
  expect_error(check_y(c("a", "b"), 2, fam), "levels declare")
  expect_error(check_y(c(0, 1, 2), 3, fam), "must be a factor")
  expect_error(check_y(factor(c("a", NA)), 2, fam), "missing")
  expect_error(check_y(factor(c("a", "a")), 2, fam),
               "between 2 and 256 classes")
  expect_error(check_y(factor(1:300), 300, fam),
               "it has 300")
})

test_that("an error about the data names the problem, not values of the data", {
  d <- val_data()
  # a weight of 123.456 (out of range) and a count of -123.456 (negative):
  # neither value, nor how many there are, appears in the message
  w <- rep(0.5, d$n)
  w[c(3, 9)] <- c(123.456, 1.5)
  err <- expect_error(dpsco(d$x, d$y, weights = w), class = "dpsco_arg_error")
  expect_identical(err$arg, "weights")
  expect_match(conditionMessage(err), "[0, 1]", fixed = TRUE)
  expect_match(conditionMessage(err), "some lie outside it", fixed = TRUE)
  expect_false(grepl("123|456|1\\.5", conditionMessage(err)))
  yc <- rep(2, d$n)
  yc[c(4, 5)] <- c(-123.456, -7)
  err <- expect_error(dpsco(d$x, yc, family = "poisson"),
                      class = "dpsco_arg_error")
  expect_identical(err$arg, "y")
  expect_match(conditionMessage(err), "negative values", fixed = TRUE)
  # nothing of the data: not the values, not their count (2)
  expect_false(grepl("[0-9]", conditionMessage(err)))
  # cv.dpsco() makes the same checks
  err <- expect_error(cv.dpsco(d$x, d$y, weights = w), class = "dpsco_arg_error")
  expect_false(grepl("123", conditionMessage(err)))
  # a factor value outside the declared levels: the variable is named,
  # the value is not
  df <- data.frame(a = d$x[, 1], g = factor(rep(c("u", "v", "secret123"),
                                               length.out = d$n)), y = d$y)
  err <- expect_error(dpsco(y ~ a + g, data = df,
                            xlev = list(g = c("u", "v"))),
                      class = "dpsco_arg_error")
  expect_identical(err$arg, "xlev")
  expect_match(conditionMessage(err), "factor g has values outside its declared levels",
               fixed = TRUE)
  expect_false(grepl("secret|123", conditionMessage(err)))
})
