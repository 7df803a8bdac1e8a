# The fields of the family object that the rest of the package reads
# instead of branching on the family's name.

fields_family <- function(name)
  dpsco:::family_object(name, list(nclass = 3L, bandwidth = 0.5, tau = 0.3))

test_that("every family declares its shardability, y's scale and deviance label", {
  shardable <- c(gaussian = TRUE, binomial = TRUE, quantile = FALSE,
                 poisson = TRUE, multinomial = FALSE)
  error_scale <- c(gaussian = TRUE, binomial = FALSE, quantile = TRUE,
                   poisson = FALSE, multinomial = FALSE)
  label <- c(gaussian = "Binomial deviance", binomial = "Binomial deviance",
             quantile = "Binomial deviance", poisson = "Poisson deviance",
             multinomial = "Multinomial deviance")
  for (nm in names(shardable)) {
    f <- fields_family(nm)
    expect_identical(f$shardable, shardable[[nm]], info = nm)
    expect_identical(f$y_error_scale, error_scale[[nm]], info = nm)
    expect_identical(f$deviance_label, label[[nm]], info = nm)
    expect_identical(f$trials_matrix, nm == "binomial", info = nm)
    # a deviance bound exactly where the family has the deviance measure
    expect_identical(is.function(f$deviance_bound),
                     "deviance" %in% f$measures, info = nm)
  }
})

test_that("the Hessian factor is the derivative of the residual in eta", {
  eta <- c(-2, -0.3, 0.4, 1.5)
  y <- c(0, 1, 2, 1)
  for (nm in c("gaussian", "binomial", "poisson", "quantile")) {
    f <- fields_family(nm)
    e <- 1e-6
    num <- (f$residual(eta + e, y) - f$residual(eta - e, y)) / (2 * e)
    expect_equal(f$hessian(eta, y), num, tolerance = 1e-5, info = nm)
  }
  expect_null(fields_family("multinomial")$hessian)
})

test_that("the deviance bound needs a bound on y for poisson only", {
  expect_null(fields_family("poisson")$deviance_bound(NULL))
  expect_identical(fields_family("poisson")$deviance_bound(3),
                   6 * log(1000))
  expect_identical(fields_family("multinomial")$deviance_bound(NULL),
                   2 * log(1000))
  expect_error(dpsco:::deviance_bound("poisson", NULL), "is needed",
               class = "dpsco_arg_error")
})

test_that("the deviance of each penalty is twice the summed loss", {
  eta <- matrix(c(-1, 0, 1, 0.5, -0.5, 2), 3)
  y <- c(0, 1, 1)
  for (nm in c("gaussian", "binomial", "quantile")) {
    f <- fields_family(nm)
    expect_equal(f$deviance(eta, y), 2 * colSums(f$eval_loss(eta, y)),
                 info = nm)
  }
  f <- fields_family("poisson")
  mu <- exp(eta)
  ym <- matrix(y, nrow(eta), ncol(eta))
  expect_equal(f$deviance(eta, y),
               colSums(2 * (ifelse(ym == 0, 0, ym * log(ym / mu)) - (ym - mu))))
})

test_that("check_y() runs the family's own check of y", {
  expect_error(dpsco:::check_y(c(1, -1), 2, "poisson"), "non-negative counts",
               class = "dpsco_arg_error")
  expect_identical(dpsco:::check_y(c(1, -1), 2, "gaussian")$y, c(1, -1))
})
