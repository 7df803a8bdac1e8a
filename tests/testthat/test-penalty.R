# glmnet's penalty arguments (R/penalty.R): exclude, penalty.factor = Inf,
# lower.limits / upper.limits, dfmax / pmax, type.multinomial = "grouped"
# and penalty.scale = "glmnet", against refits without the columns, glmnet
# and the path itself.

penalty_data <- function(n = 1500, p = 6, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, dimnames = list(NULL, paste0("x", 1:p)))
  y <- drop(x %*% c(2, -1, 0.5, 0, 0, 1)) + rnorm(n)
  list(x = x, y = y)
}

# Three classes, two informative columns of four.
class_data <- function(n = 300) {
  set.seed(4)
  x <- matrix(rnorm(n * 4), n)
  cl <- factor(sample(c("a", "b", "c"), n, TRUE))
  x[, 1] <- x[, 1] + (cl == "a")
  x[, 2] <- x[, 2] - 0.7 * (cl == "b")
  list(x = x, cl = cl)
}

test_that("exclude and penalty.factor = Inf fit the other columns alone", {
  d <- penalty_data()
  set.seed(3); a <- dpsco(d$x, d$y, exclude = c(2, 4), epsilon = 2)
  set.seed(3); b <- dpsco(d$x, d$y, exclude = c("x2", "x4"), epsilon = 2)
  set.seed(3); i <- dpsco(d$x, d$y, penalty.factor = c(1, Inf, 1, Inf, 1, 1),
                          epsilon = 2)
  set.seed(3); r <- dpsco(d$x[, -c(2, 4)], d$y, epsilon = 2)
  expect_equal(dim(coef(a)), c(7L, 10L))
  expect_equal(rownames(coef(a)), c("(Intercept)", colnames(d$x)))
  expect_equal(unname(coef(a)[c(3, 5), ]), matrix(0, 2, 10))
  expect_equal(coef(a)[-c(3, 5), ], coef(r), tolerance = 1e-12)
  expect_equal(coef(b), coef(a))
  expect_equal(coef(i), coef(a))
  expect_equal(predict(a, d$x), predict(r, d$x[, -c(2, 4)]),
               tolerance = 1e-12)
  expect_equal(a$df, r$df)
  # the support rule's band: the kept columns' as without them, the
  # excluded ones (exactly 0) inside it
  expect_equal(unname(noise_band(a)[-c(2, 4), ]), unname(noise_band(r)))
  expect_true(all(noise_band(a)[c(2, 4), ]))
  pdf(NULL)
  expect_silent(plot(a))
  dev.off()
  # a cut path keeps the band's columns in step
  set.seed(3); cut <- dpsco(d$x, d$y, exclude = 4, dfmax = 1, epsilon = 2)
  expect_identical(ncol(noise_band(cut)), length(cut$lambda))
})

test_that("cv.dpsco() passes exclude on and predicts from the whole x", {
  d <- penalty_data(4000)
  set.seed(5); cv <- cv.dpsco(d$x, d$y, exclude = 6, epsilon = 2)
  expect_equal(unname(coef(cv)[7, 1]), 0)
  expect_equal(drop(predict(cv, d$x[1:5, ])),
               drop(cbind(1, d$x[1:5, ]) %*% coef(cv)), tolerance = 1e-12,
               ignore_attr = TRUE)
})

test_that("the penalty arguments are checked with the argument named", {
  d <- penalty_data(200)
  expect_error(dpsco(d$x, d$y, exclude = 1:6), "`exclude` leaves no column")
  expect_error(dpsco(d$x, d$y, exclude = 9), "`exclude` must be column")
  expect_error(dpsco(d$x, d$y, exclude = "z"), "names columns x does not")
  expect_error(dpsco(d$x, d$y, lower.limits = 1), "`lower.limits` must be")
  expect_error(dpsco(d$x, d$y, upper.limits = c(-1, 1)), "`upper.limits`")
  expect_error(dpsco(d$x, d$y, type.multinomial = "grouped"),
               "applies to family \"multinomial\" only")
  expect_error(dpsco(d$x, d$y, penalty.factor = c(1, 1)), "`penalty.factor`")
  expect_error(dpsco(d$x, d$y, method = "fw", lower.limits = 0),
               "`lower.limits`")
})

test_that("limits hold on private paths and match glmnet's converged fit", {
  skip_if_not_installed("glmnet")
  d <- penalty_data()
  set.seed(7)
  lo <- dpsco(d$x, d$y, lower.limits = 0, epsilon = 1)
  hi <- dpsco(d$x, d$y, upper.limits = c(1, rep(Inf, 5)), epsilon = 1)
  expect_gte(min(coef(lo)[-1, ]), 0)
  expect_equal(max(coef(hi)[2, ]), 1)   # x1's coefficient is 2 unbounded
  lam <- c(0.3, 0.05)
  g <- glmnet::glmnet(d$x, d$y, lambda = lam, lower.limits = -0.5,
                      upper.limits = c(1.5, rep(Inf, 5)),
                      standardize = FALSE, thresh = 1e-14)
  f <- dpsco(d$x, d$y, method = "none", lambda = lam, lower.limits = -0.5,
             upper.limits = c(1.5, rep(Inf, 5)), penalty.scale = "glmnet")
  expect_equal(unname(coef(f)), unname(as.matrix(coef(g))), tolerance = 1e-6)
})

test_that("penalty.scale = \"glmnet\" puts lambda on glmnet's scale", {
  skip_if_not_installed("glmnet")
  skip_if_not_installed("mlbench")
  e <- new.env()
  utils::data("PimaIndiansDiabetes2", package = "mlbench", envir = e)
  pima <- stats::na.omit(e$PimaIndiansDiabetes2)
  x <- as.matrix(pima[, 1:8])
  y <- as.integer(pima$diabetes == "pos")
  g <- glmnet::glmnet(x, y, family = "binomial", lambda = 0.01,
                      thresh = 1e-14)
  f <- suppressWarnings(dpsco(x, y, family = "binomial", method = "none",
                              standardize = TRUE, lambda = 0.01,
                              penalty.scale = "glmnet"))
  expect_equal(unname(coef(f)[, 1]), unname(as.matrix(coef(g))[, 1]),
               tolerance = 1e-5)
  # on the bounded scale the same lambda is a different penalty
  b <- suppressWarnings(dpsco(x, y, family = "binomial", method = "none",
                              standardize = TRUE, lambda = 0.01))
  expect_lt(b$df, g$df)
})

test_that("dfmax and pmax cut the path where glmnet stops", {
  d <- penalty_data()
  set.seed(9); full <- dpsco(d$x, d$y, epsilon = 2)
  set.seed(9); cut <- dpsco(d$x, d$y, dfmax = 2, epsilon = 2)
  k <- unname(which(full$df > 2)[1L]) - 1L
  expect_equal(length(cut$lambda), k)
  expect_equal(coef(cut), coef(full)[, seq_len(k)])
  nz <- full$beta != 0
  ever <- vapply(seq_len(ncol(nz)),
                 function(j) sum(rowSums(nz[, seq_len(j), drop = FALSE]) > 0),
                 0)
  set.seed(9); cp <- dpsco(d$x, d$y, pmax = 3, epsilon = 2)
  expect_equal(length(cp$lambda), which(ever > 3)[1L] - 1L)
  expect_error(dpsco(d$x, d$y, dfmax = -1), "`dfmax`")
})

test_that("grouped multinomial paths match glmnet's grouped lasso", {
  skip_if_not_installed("glmnet")
  d <- class_data()
  x <- d$x
  cl <- d$cl
  lam <- c(0.05, 0.02)
  g <- glmnet::glmnet(x, cl, family = "multinomial", lambda = lam,
                      type.multinomial = "grouped", standardize = FALSE,
                      thresh = 1e-14)
  gb <- sapply(coef(g, s = 0.02), function(m) as.matrix(m)[-1, 1])
  # the proximal step (spgd) and the Newton model's block sweeps
  s <- dpsco(x, cl, family = "multinomial", type.multinomial = "grouped",
             method = "none", tuning = "public", lambda = lam,
             iterations = 20000, step_size = 1,
             control = dpsco_control(output = "last"))
  nw <- dpsco(x, cl, family = "multinomial", type.multinomial = "grouped",
              method = "none", lambda = lam, iterations = 400,
              penalty.scale = "glmnet")
  for (f in list(s, nw))
    expect_equal(unname(sapply(coef(f), function(m) m[-1, 2])), unname(gb),
                 tolerance = 1e-5)
  # a private grouped path keeps or drops a feature in every class at once
  set.seed(2)
  pg <- dpsco(x, cl, family = "multinomial", type.multinomial = "grouped",
              epsilon = 2)
  z <- Reduce(`+`, lapply(pg$beta, function(b) b == 0))
  expect_true(all(z %in% c(0, 3)))
})

test_that("a longer path says what its noise costs", {
  d <- penalty_data(1000)
  expect_message(f <- dpsco(d$x, d$y, nlambda = 100),
                 "nlambda = 100: the budget is shared by 100 penalties")
  # Gaussian composition: the multiplier grows about as the square root of
  # the number of releases
  expect_equal(f$path_cost$ratio, sqrt(10), tolerance = 0.05)
  expect_silent(g <- dpsco(d$x, d$y))
  expect_null(g$path_cost)
})

test_that("multinomial limits match glmnet's converged fit", {
  skip_if_not_installed("glmnet")
  d <- class_data()
  x <- d$x
  cl <- d$cl
  lam <- c(0.05, 0.01)
  g <- glmnet::glmnet(x, cl, family = "multinomial", lambda = lam,
                      lower.limits = 0, standardize = FALSE, thresh = 1e-14)
  f <- dpsco(x, cl, family = "multinomial", method = "none", lambda = lam,
             lower.limits = 0, penalty.scale = "glmnet")
  expect_equal(unname(sapply(coef(f), function(m) m[-1, 2])),
               unname(sapply(coef(g, s = 0.01),
                             function(m) as.matrix(m)[-1, 1])),
               tolerance = 1e-6)
})

test_that("print() shows what the grid size did to the noise", {
  d <- penalty_data(1000)
  f <- suppressMessages(dpsco(d$x, d$y, nlambda = 40))
  out <- utils::capture.output(print(f))
  expect_true(any(out == sprintf(paste0("Path: 40 penalties share the ",
    "budget; each step's noise sd is %s x that of the default 10."),
    format(signif(f$path_cost$ratio, 3)))))
  expect_equal(f$path_cost$ratio, 2, tolerance = 0.05)
  s <- dpsco(d$x, d$y, nlambda = 5)
  expect_lt(s$path_cost$ratio, 1)
})

test_that("an unnamed x keeps its column names V1, ... with columns excluded", {
  d <- penalty_data(600)
  x <- unname(d$x)
  f <- dpsco(x, d$y, exclude = c(1, 3), epsilon = 2)
  expect_identical(rownames(coef(f)), c("(Intercept)", paste0("V", 1:6)))
  expect_identical(rownames(f$beta), paste0("V", 1:6))
})
