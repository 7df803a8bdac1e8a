# The family objects (R/family.R): residual, loss and curvature against
# closed forms and numerical derivatives, the bounds, the dispatcher's
# checks, and the problem lists the fitting functions receive.

fam_all <- function(h = 0.7, tau = 0.3) {
  q <- lapply(c(kernel_choices, "moreau"), function(s)
    family_quantile(tau, s, bandwidth = h))
  names(q) <- paste0("quantile_", c(kernel_choices, "moreau"))
  c(list(gaussian = family_gaussian(),
         binomial = family_binomial()), q)
}

test_that("each family object has its class, code and engine settings", {
  for (f in fam_all()) {
    expect_s3_class(f, c(paste0("dpsco_family_", f$name), "dpsco_family"),
                    exact = TRUE)
    expect_identical(f$code, family_codes[[f$name]])
    expect_identical(f$settings,
                     family_settings(f$name, f$tau, f$bandwidth,
                                             f$smoother))
  }
  q <- family_quantile(0.25, "moreau", bandwidth = 2)
  expect_identical(q$settings$kernel, kernel_codes[["moreau"]])
  expect_identical(q$label, "quantile (tau = 0.25)")
  expect_match(q$model, "linear 0.25-quantile \\(check loss .*Moreau envelope")
  expect_identical(family_gaussian()$label, "gaussian")
  expect_identical(family_binomial()$model, "logistic")
})

test_that("the residual is the loss's derivative in eta", {
  set.seed(1)
  y_real <- c(stats::rnorm(40), 0.3, -0.2)
  eta <- c(stats::rnorm(40, sd = 2), 0.3 + 1e-3, 5)
  for (nm in names(fam_all())) {
    f <- fam_all()[[nm]]
    y <- if (f$classes) as.double(y_real > 0) else y_real
    e <- 1e-6
    num <- (f$loss(eta + e, y) - f$loss(eta - e, y)) / (2 * e)
    expect_equal(f$residual(eta, y), num, tolerance = 1e-6, label = nm)
  }
})

test_that("the losses and residuals are the closed forms", {
  eta <- c(-3, -0.5, 0, 0.4, 2)
  y <- c(1, 0, 1, 0.2, -1)
  g <- family_gaussian()
  expect_equal(g$loss(eta, y), (y - eta)^2 / 2)
  expect_equal(g$residual(eta, y), eta - y)
  yb <- c(1, 0, 1, 0, 0)
  b <- family_binomial()
  expect_equal(b$loss(eta, yb), log(1 + exp(eta)) - yb * eta)
  expect_equal(b$residual(eta, yb), 1 / (1 + exp(-eta)) - yb)
  expect_equal(b$inverse_link(eta), 1 / (1 + exp(-eta)))
  # the Moreau envelope of the check loss: quadratic u^2 / (2 h) in the
  # middle, the check loss shifted by tau^2 h / 2 or (1 - tau)^2 h / 2
  h <- 0.5
  tau <- 0.3
  m <- family_quantile(tau, "moreau", bandwidth = h)
  u <- y - eta
  env <- vapply(u, function(ui) stats::optimize(function(v)
    v * (tau - (v < 0)) + (ui - v)^2 / (2 * h), c(-10, 10),
    tol = 1e-12)$objective, 0)
  expect_equal(m$loss(eta, y), env, tolerance = 1e-8)
  expect_equal(m$eval_loss(eta, y), u * (tau - (u < 0)))
  expect_equal(m$residual(eta, y), pmin(pmax((eta - y) / h, -tau), 1 - tau))
  # convolution with the gaussian kernel: derivative Phi((eta - y) / h) - tau
  c <- family_quantile(tau, "gaussian", bandwidth = h)
  expect_equal(c$residual(eta, y), stats::pnorm((eta - y) / h) - tau)
})

test_that("the curvature bounds the loss's second derivative", {
  y <- 0.2
  grid <- seq(-4, 4, by = 1e-3)
  e <- 1e-4
  for (h in c(0.3, 1.5)) for (nm in names(fam_all(h))) {
    f <- fam_all(h)[[nm]]
    yy <- if (f$classes) 1 else y
    d2 <- (f$residual(grid + e, yy) - f$residual(grid - e, yy)) / (2 * e)
    expect_gte(f$curvature * (1 + 1e-6), max(d2), label = nm)
    # and it is attained (up to the grid): the bound is the peak
    expect_gt(max(d2), 0.99 * f$curvature, label = nm)
  }
  expect_identical(family_gaussian()$curvature, 1)
  expect_identical(family_binomial()$curvature, 1 / 4)
  expect_identical(family_quantile(0.5, "moreau", bandwidth = 0.4)$curvature,
                   1 / 0.4)
  expect_identical(family_quantile(0.5, "epanechnikov",
                                           bandwidth = 0.4)$curvature, 0.75 / 0.4)
  expect_identical(family_quantile(0.5)$curvature, NA_real_)
})

test_that("the residual bound holds whatever eta and y", {
  set.seed(2)
  eta <- stats::rnorm(500, sd = 50)
  y <- stats::rnorm(500, sd = 50)
  for (f in fam_all(0.2, 0.8)) {
    if (!f$bounded) next
    yy <- if (f$classes) as.double(y > 0) else y
    expect_lte(max(abs(f$residual(eta, yy))), f$slope_bound)
    expect_identical(f$residual_bound(stop("not evaluated")), f$slope_bound)
  }
  expect_identical(family_quantile(0.8, bandwidth = 1)$slope_bound, 0.8)
  expect_identical(family_quantile(0.2, bandwidth = 1)$slope_bound, 0.8)
  expect_identical(family_binomial()$slope_bound, 1)
  g <- family_gaussian()
  expect_false(g$bounded)
  expect_identical(g$residual_bound(3.5), 3.5)
})

test_that("start, response, measures and radius top", {
  b <- family_binomial()
  expect_identical(b$start(0.3, 10), stats::qlogis(0.3))
  expect_identical(b$start(0, 10), stats::qlogis(1 / 12))
  expect_identical(b$start(1, 10), stats::qlogis(1 - 1 / 12))
  expect_identical(family_gaussian()$start(0.3, 10), 0.3)
  expect_identical(family_quantile(0.3)$start(-2, 10), -2)
  expect_identical(b$measures[1], "deviance")
  expect_identical(family_gaussian()$measures, c("mse", "mae"))
  expect_identical(family_quantile()$measures, "check")
  expect_identical(b$radius_top, 1000)
  expect_identical(family_gaussian()$radius_top, 100)
  expect_identical(family_quantile()$radius_top, 100)
  expect_identical(family_quantile()$inverse_link(c(-1, 2)), c(-1, 2))
})

test_that("as_family() keeps the argument checks of dpsco()", {
  expect_identical(as_family("gaussian")$name, "gaussian")
  q <- as_family("quantile", NULL, dpsco_control())
  expect_identical(q$tau, 0.5)
  expect_identical(q$smoother, "gaussian")
  expect_null(q$bandwidth)
  m <- as_family("quantile", 0.9,
                         dpsco_control(smoothing = "moreau", bandwidth = 0.3))
  expect_identical(m$smoother, "moreau")
  expect_identical(m$options,
                   list(tau = 0.9, smoother = "moreau", kernel = "gaussian",
                        smoothing = "moreau", bandwidth = 0.3))
  expect_identical(m$curvature, 1 / 0.3)
  expect_null(as_family("binomial", NULL, dpsco_control())$options)
  expect_error(as_family("gaussian", 0.5), "applies to family",
               class = "dpsco_arg_error")
  expect_error(as_family("quantile", 1), "must lie in",
               class = "dpsco_arg_error")
  expect_error(as_family("binomial", NULL,
                                 dpsco_control(bandwidth = 1)),
               "bandwidth applies", class = "dpsco_arg_error")
})

fields_family <- function(name)
  family_object(name, list(nclass = 3L, bandwidth = 0.5, tau = 0.3))

test_that("every family declares its shardability, y's scale and deviance label", {
  shardable <- c(gaussian = TRUE, binomial = TRUE, quantile = TRUE,
                 poisson = TRUE, multinomial = TRUE)
  error_scale <- c(gaussian = TRUE, binomial = FALSE, quantile = TRUE,
                   poisson = FALSE, multinomial = FALSE)
  label <- list(gaussian = NULL, binomial = "Binomial deviance",
                quantile = NULL, poisson = "Poisson deviance",
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
  expect_equal(fields_family("poisson")$deviance_bound(3),
               stats::poisson()$dev.resids(3, 0.75, 1))
  expect_identical(fields_family("multinomial")$deviance_bound(NULL),
                   2 * log(1000))
  expect_error(deviance_bound("poisson", NULL), "is needed",
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
  expect_error(check_y(c(1, -1), 2, "poisson"), "non-negative counts",
               class = "dpsco_arg_error")
  expect_identical(check_y(c(1, -1), 2, "gaussian")$y, c(1, -1))
})

test_that("the private Newton path's defaults are the family's: steps per lambda and model step", {
  set.seed(31)
  n <- 600
  x <- matrix(stats::rnorm(n * 2), n)
  y3 <- factor(sample(c("a", "b", "c"), n, replace = TRUE))
  yb <- stats::rbinom(n, 1, stats::plogis(x[, 1]))
  yg <- x[, 1] + stats::rnorm(n)
  fm <- dpsco(x, y3, family = "multinomial", epsilon = 1, nlambda = 2)
  fb <- dpsco(x, yb, family = "binomial", epsilon = 1, nlambda = 2)
  fg <- dpsco(x, yg, epsilon = 1, nlambda = 2)
  # three steps for the multinomial model, which moves away from its start
  expect_identical(fm$settings$iterations, 3L)
  expect_identical(fb$settings$iterations, 2L)
  expect_identical(fg$settings$iterations, 2L)
  # the model step: 0.7 times the logistic model's, 1 for gaussian
  expect_equal(fb$settings$step_size, 0.7)
  expect_equal(fg$settings$step_size, 1)
})
