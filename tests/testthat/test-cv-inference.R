# Inference in cv.dpsco() (R/cv-inference.R): the training fit's stage
# (inference = TRUE), or the selected model refitted on a third part of
# the records (inference = "selected").

cv_inf_data <- function(n, seed) {
  set.seed(seed)
  x <- matrix(rnorm(n * 6), n, 6, dimnames = list(NULL, paste0("x", 1:6)))
  list(x = x, y = drop(x %*% c(1, -0.8, 0.6, 0, 0, 0)) + rnorm(n))
}

test_that("selected: the chosen support, refitted on the inference part", {
  # (an n whose parts' expected sizes are not whole numbers)
  d <- cv_inf_data(19999, 21)
  set.seed(22)
  cv <- cv.dpsco(d$x, d$y, epsilon = 1, inference = "selected")
  beta <- cv$dpsco.fit$beta[, cv$index]
  sel <- names(beta)[beta != 0]
  inf <- cv$inference
  expect_true(isTRUE(inf$selected))
  expect_identical(inf$names, c("(Intercept)", sel))
  expect_identical(rownames(confint(cv)), c("(Intercept)", sel))
  # the parts' public sizes: 0.4 n for the pool, the rest split by holdout
  expect_equal(cv$n_pool, round(0.4 * 19999))
  expect_equal(cv$inference_fit$privacy$public_n, round(0.4 * 19999))
  expect_equal(cv$n_fit, round(0.6 * 19999 * 0.8))
  expect_equal(cv$n_hold, 0.6 * 19999 * 0.2)
  # the pool's fit spends its own budget, cv_selected_share of it on the
  # stage; the guarantee is the largest of the three parts'
  pools <- cv$privacy$pools
  expect_identical(pools$pool, c("training", "validation", "inference"))
  expect_lte(max(pools$epsilon), 1 + 1e-9)
  expect_equal(cv$privacy$epsilon_accounted, max(pools$epsilon))
  sh <- cv$privacy$shares
  expect_equal(sum(sh$share[sh$pool == "inference" &
                              startsWith(sh$part, "inference_")]),
               cv_selected_share, tolerance = 1e-12)
  # the estimand is the selected model's coefficients: the true support
  # was kept, and the intervals are those of the pool's stage
  expect_true(all(c("x1", "x2", "x3") %in% sel))
  expect_equal(confint(cv), confint(cv$inference_fit))
  expect_equal(vcov(cv), vcov(cv$inference_fit))
  td <- tidy(cv, conf.int = TRUE)
  expect_identical(td$term, c("(Intercept)", sel))
  expect_equal(td$conf.high, unname(confint(cv)[, 2]), tolerance = 1e-12)
  expect_true("lambda" %in% names(tidy(cv)))
  out <- capture.output(print(summary(cv)))
  expect_true(any(grepl("Inference after selection", out)))
})

test_that("inference = TRUE in cv.dpsco() is the training fit's stage", {
  d <- cv_inf_data(6000, 23)
  set.seed(24)
  cv <- cv.dpsco(d$x, d$y, epsilon = 2, inference = TRUE)
  expect_null(cv$inference)
  expect_false(is.null(cv$dpsco.fit$inference))
  expect_equal(suppressWarnings(confint(cv)),
               suppressWarnings(confint(cv$dpsco.fit)))
  expect_equal(cv$n_fit, round(6000 * 0.8))
  expect_identical(cv$privacy$pools$pool, c("training", "validation"))
})

test_that("selected: an empty support has nothing to test, and says so", {
  set.seed(25)
  x <- matrix(rnorm(3000 * 3), 3000, 3)
  y <- rnorm(3000)
  set.seed(26)
  cv <- cv.dpsco(x, y, epsilon = 1, inference = "selected")
  if (all(cv$dpsco.fit$beta[, cv$index] == 0)) {
    expect_length(cv$inference$names, 0L)
    expect_match(cv$inference$refused, "no predictors")
    expect_warning(ci <- confint(cv), class = "dpsco_inference_unreliable")
    expect_identical(dim(ci), c(0L, 2L))
  } else {
    expect_false(is.null(cv$inference_fit))
  }
})

test_that("cv.dpsco() refuses inference where dpsco() does", {
  d <- cv_inf_data(400, 27)
  expect_error(cv.dpsco(d$x, d$y, family = "quantile", tau = 0.5,
                        inference = "selected"), "quantile family")
  expect_error(cv.dpsco(d$x, d$y, inference = "all"),
               class = "dpsco_arg_error")
})
