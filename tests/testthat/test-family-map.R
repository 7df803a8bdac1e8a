# family = as glmnet users give it: stats family objects mapped to the
# package's families, the refused ones with their reasons.

fm_data <- function(n = 300) {
  set.seed(21)
  x <- matrix(rnorm(n * 3), n, 3)
  list(x = x, y = drop(x %*% c(1, -1, 0)) + rnorm(n),
       yb = as.numeric(runif(n) < plogis(drop(x %*% c(1, -1, 0)))))
}

test_that("gaussian() and binomial() fit exactly as their names", {
  d <- fm_data()
  for (f in list(list(obj = gaussian(), name = "gaussian", y = d$y),
                 list(obj = binomial(), name = "binomial", y = d$yb),
                 list(obj = binomial, name = "binomial", y = d$yb))) {
    set.seed(1)
    a <- dpsco(d$x, f$y, family = f$obj, epsilon = 1, nlambda = 3)
    set.seed(1)
    b <- dpsco(d$x, f$y, family = f$name, epsilon = 1, nlambda = 3)
    expect_identical(a$family, f$name)
    expect_equal(coef(a), coef(b), tolerance = 0)
  }
  set.seed(2)
  cv1 <- cv.dpsco(d$x, d$yb, family = binomial(), epsilon = 1, curve = 0.5)
  set.seed(2)
  cv2 <- cv.dpsco(d$x, d$yb, family = "binomial", epsilon = 1, curve = 0.5)
  expect_equal(cv1$cvm, cv2$cvm, tolerance = 0)
})

test_that("other links, cox and unknown families are refused with a reason", {
  d <- fm_data()
  e <- tryCatch(dpsco(d$x, d$yb, family = binomial(link = "probit")),
                dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "family")
  expect_match(conditionMessage(e), "probit")
  e <- tryCatch(dpsco(d$x, d$y, family = "cox"),
                dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "family")
  expect_match(conditionMessage(e), "risk set")
  e <- tryCatch(dpsco(d$x, d$y, family = Gamma()),
                dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "family")
  if (!"poisson" %in% names(family_codes)) {
    expect_error(dpsco(d$x, rpois(300, 1), family = poisson()),
                 class = "dpsco_arg_error")
  } else {
    set.seed(1)
    a <- dpsco(d$x, rpois(300, 1), family = poisson(), epsilon = 1,
               nlambda = 2)
    expect_identical(a$family, "poisson")
  }
})

test_that("a binomial count matrix is refused with the expansion to records", {
  d <- fm_data(6)
  counts <- cbind(succ = c(2, 0, 1, 3, 1, 0), fail = c(1, 2, 0, 0, 1, 3))
  e <- tryCatch(dpsco(d$x, counts, family = "binomial"),
                dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "y")
  expect_match(conditionMessage(e), "one 0/1 record per trial")
  # the expansion the message gives: one record per trial, successes first
  y <- counts
  y01 <- rep(rep(c(1, 0), nrow(y)), t(y))
  rows <- rep(seq_len(nrow(y)), rowSums(y))
  expect_identical(length(y01), as.integer(sum(counts)))
  expect_identical(as.vector(tapply(y01, rows, sum)),
                   as.vector(counts[rowSums(counts) > 0, 1]))
  e <- tryCatch(cv.dpsco(d$x, counts, family = "binomial"),
                dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "y")
})

test_that("quasi families are refused with the plain family named", {
  x <- matrix(rnorm(40), 20)
  expect_error(dpsco(x, rpois(20, 2), family = quasipoisson()),
               "quasipoisson\\(\\) is not available.*use \"poisson\"")
  expect_error(dpsco(x, rbinom(20, 1, 0.5), family = quasibinomial()),
               "quasibinomial\\(\\) is not available.*use \"binomial\"")
})
