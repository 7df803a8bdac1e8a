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
