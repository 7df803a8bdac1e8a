# The prepare phase of both paths (R/prepare.R): the standardisation and,
# with private tuning, the private settings.

prep_data <- function(n = 500, p = 2) {
  set.seed(1)
  x <- matrix(stats::rnorm(n * p), n, p)
  list(x = x, y = x[, 1] + stats::rnorm(n), n = n, p = p)
}

prep_args <- function(d, family, tuned, ...)
  c(list(x = d$x, y = d$y, n = d$n, standardize = FALSE, intercept = TRUE,
         control = dpsco_control(), tuned = tuned, weights = NULL,
         offset = NULL, family = as_family(family, NULL, dpsco_control(), 1L)),
    list(...))

test_that("with public tuning: conquer's bandwidth for quantile, no private parts", {
  d <- prep_data()
  a <- prep_args(d, "quantile", tuned = FALSE)
  expect_null(a$family$bandwidth)
  pr <- prepare_path(method_spec("clip"), a, TRUE, 1, 1e-4)
  expect_equal(pr$family$bandwidth,
               max(((log(d$n) + d$p) / d$n)^0.4, 0.05), tolerance = 1e-15)
  expect_identical(pr$fixed, list())
  expect_null(pr$tn)
  expect_identical(pr$x, d$x)
  expect_identical(pr$std$mode, "none")
  # small n: the floor 0.05 is not reached, a large one reaches it
  big <- prep_args(list(x = matrix(0, 1, 1), y = 0, n = 1e7), "quantile",
                   tuned = FALSE)
  expect_identical(prepare_path(method_spec("clip"), big, TRUE, 1, 1e-4)$family$bandwidth,
                   0.05)
  # a family without options comes back as it went in
  g <- prep_args(d, "gaussian", tuned = FALSE)
  expect_identical(prepare_path(method_spec("clip"), g, TRUE, 1, 1e-4)$family,
                   g$family)
})

test_that("with private tuning its parts are the fit's settings parts, with the optimiser's share the rest", {
  d <- prep_data()
  a <- prep_args(d, "gaussian", tuned = TRUE)
  set.seed(3)
  pr <- prepare_path(method_spec("clip"), a, TRUE, 2, 0.1 / d$n)
  expect_false(is.null(pr$tn))
  expect_identical(pr$std$mode, "private bounds")
  parts <- vapply(pr$fixed, `[[`, "", "name")
  shares <- vapply(pr$fixed, `[[`, 0, "share")
  set.seed(2)
  fit <- dpsco(d$x, d$y, epsilon = 2, nlambda = 2)
  rec <- privacy(fit)$shares
  expect_identical(parts, setdiff(rec$part, "optimizer"))
  expect_equal(shares, rec$share[match(parts, rec$part)], tolerance = 1e-12)
  expect_equal(sum(shares) + rec$share[rec$part == "optimizer"], 1,
               tolerance = 1e-12)
})
