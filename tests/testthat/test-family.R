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

# ---- poisson ----------------------------------------------------------------

test_that("the poisson family: loss, residual, start, link and measures", {
  f <- family_poisson()
  expect_s3_class(f, c("dpsco_family_poisson", "dpsco_family"), exact = TRUE)
  expect_identical(f$code, 3L)
  expect_identical(f$settings, family_settings("poisson"))
  eta <- c(-3, -0.5, 0, 0.4, 2)
  y <- c(0, 2, 1, 0, 7)
  expect_equal(f$loss(eta, y), exp(eta) - y * eta)
  expect_equal(f$residual(eta, y), exp(eta) - y)
  e <- 1e-6
  expect_equal(f$residual(eta, y),
               (f$loss(eta + e, y) - f$loss(eta - e, y)) / (2 * e),
               tolerance = 1e-7)
  # glm's poisson deviance is twice the loss's excess over the saturated fit
  mu <- exp(eta)
  sat <- ifelse(y > 0, y - y * log(y), 0)
  expect_equal(2 * (f$loss(eta, y) - sat), stats::poisson()$dev.resids(y, mu, 1))
  expect_equal(f$inverse_link(eta), exp(eta))
  expect_identical(f$start(2.5, 100), log(2.5))
  expect_identical(f$start(0, 100), log(1 / 100))
  # the mean count is clamped to [0, the top of the released range of y]
  expect_identical(f$centre_range(c(2, 7)), c(0, 7))
  expect_identical(f$centre_range(c(-3, -1)), c(0, 0))
  expect_equal(f$start_curvature(log(3), TRUE, NULL), 3)
  expect_identical(f$measures, c("deviance", "mse", "mae"))
  expect_false(f$bounded)
  expect_identical(f$model_step, 0.5)
  expect_true(f$centre_floor)
  expect_identical(family_gaussian()$centre_range(c(-2, 5)), c(-2, 5))
  # the null residual at the intercept-only fit is y - mean(y) (the Poisson
  # MLE of a mean is the sample mean)
  x <- matrix(stats::rnorm(20), 10)
  yy <- c(0, 1, 3, 0, 2, 5, 1, 0, 0, 4)
  expect_equal(f$null_residual(x, yy, TRUE, c(FALSE, FALSE)), yy - mean(yy))
  g <- stats::glm.fit(cbind(1, x[, 1]), yy, family = stats::poisson())
  expect_equal(f$null_residual(x, yy, TRUE, c(TRUE, FALSE)),
               yy - g$fitted.values, tolerance = 1e-6)
  expect_identical(family_object("poisson")$name, "poisson")
})

test_that("the engine's poisson gradient is the plain-R gradient", {
  set.seed(4)
  n <- 50
  x <- matrix(stats::rnorm(n * 3), n)
  y <- as.double(stats::rpois(n, 2))
  beta <- c(0.3, 0.5, -0.2, 0.1)
  s <- list(oracle = 0L, m = n, clip = 1, rho = 0, k = 1L, s = 1, nu = 1,
            family = 3L, intercept = 1L, noise_sd = 0, rate = 1,
            threads = 1L)
  g <- .Call(C_dpsco_release, x, y, s, beta)
  r <- exp(drop(cbind(1, x) %*% beta)) - y
  expect_equal(g, drop(crossprod(cbind(1, x), r)) / n, tolerance = 1e-12)
  # an overflowing predictor (e^800) still gives a clipped release within
  # the clipping level
  s$oracle <- 1L
  g_big <- .Call(C_dpsco_release, x, y, s, c(800, 0, 0, 0))
  w <- cbind(1, x)
  expect_equal(g_big, colMeans(w / sqrt(rowSums(w^2))), tolerance = 1e-12,
               ignore_attr = TRUE)
})

test_that("the multinomial family's functions are the softmax model's", {
  f <- family_multinomial(3L)
  eta <- rbind(c(0.2, -1, 3), c(700, 0, -700), c(0, 0, 0))
  y <- c(2, 0, 1)
  pr <- exp(eta - apply(eta, 1, max))
  pr <- pr / rowSums(pr)
  onehot <- diag(3)[y + 1, ]
  expect_equal(f$residual(eta, y), pr - onehot, tolerance = 1e-14)
  expect_equal(f$loss(eta, y), -log(pr[cbind(1:3, y + 1)]), tolerance = 1e-12)
  # a K vector stands for every row
  expect_equal(f$residual(c(0, log(2), 0), c(0, 1)),
               rbind(c(0.25, 0.5, 0.25) - c(1, 0, 0),
                     c(0.25, 0.5, 0.25) - c(0, 1, 0)))
  expect_equal(f$null_risk_bound(0), log(3))
  expect_identical(f$measures, c("deviance", "class"))
  expect_true(f$multi && f$classes && f$bounded)
  expect_equal(f$slope_bound, sqrt(2))
  # the start: centred log shares, kept off 0 by 1 / (n + 2)
  b <- f$start(c(0.5, 0.5, 0), 10)
  expect_equal(b, log(c(0.5, 0.5, 1 / 12)) - mean(log(c(0.5, 0.5, 1 / 12))))
  # the class factor: diag(p) - p p' at the start's shares, its zero
  # direction (all classes alike) lifted to the mean eigenvalue, scaled to
  # a top eigenvalue of 1 whose value is the start curvature
  p <- c(0.2, 0.3, 0.5)
  s0 <- diag(p) - p %o% p
  lifted <- s0 + matrix(sum(diag(s0)) / 9, 3, 3)
  top <- max(eigen(lifted)$values)
  b0 <- log(p)
  expect_equal(f$start_curvature(b0, TRUE, NULL), top, tolerance = 1e-12)
  expect_equal(f$class_matrix(b0, TRUE), lifted / top, tolerance = 1e-12)
  expect_equal(drop(f$class_matrix(b0, TRUE) %*% rep(1, 3)),
               rep(sum(diag(s0)) / 3 / top, 3), tolerance = 1e-12)
  # without intercept the shares are equal
  expect_equal(f$class_matrix(c(0, 0, 0), FALSE),
               f$class_matrix(c(5, -1, 2), FALSE))
  # the shares' release: the indicators' sums over the public n, with
  # sensitivity 1 / n whatever K
  set.seed(3)
  rel <- f$centre_release(c(0, 0, 2, 1, 0), z = 2, n = 10)
  set.seed(3)
  expect_equal(rel$estimate, c(3, 1, 1) / 10 + 2 / 10 * stats::rnorm(3))
  expect_equal(rel$sensitivity, 1 / 10)
  expect_identical(family_settings("multinomial", nclass = 4L)$nclass, 4L)
  expect_identical(fit_family(list(family = "multinomial",
                                            classnames = letters[1:4]))$nclass,
                   4L)
})

# The engine's release of the multinomial gradient at beta (class blocks of
# d = p + 1 coefficients), noiseless, against plain R: per record the
# residual vector softmax(eta) - e_y times (1, x), through each oracle, the
# mean over the public n, then centred over the classes.
multinomial_release <- function(x, y, beta, oracle, K, extra = list()) {
  s <- c(list(oracle = oracle, m = nrow(x), clip = 1.5, rho = 0.8, k = 1L,
              s = 0.7, nu = 2, exact = 1L, family = 4L, nclass = K,
              intercept = 1L, noise_sd = 0, rate = 1, threads = 1L), extra)
  .Call(C_dpsco_release, x, as.double(y), s, beta)
}

test_that("the engine's multinomial gradient is the plain-R gradient for every oracle", {
  set.seed(8)
  n <- 40
  K <- 3
  x <- matrix(stats::rnorm(n * 2, sd = 2), n)
  x[sample(length(x), 25)] <- 0
  y <- sample(0:2, n, replace = TRUE)
  beta <- c(0.3, 1, -0.5, -0.2, 0.4, 0.8, 0, -1, 0.1)
  w <- cbind(1, x)
  eta <- w %*% matrix(beta, 3)
  pr <- exp(eta) / rowSums(exp(eta))
  r <- pr - diag(K)[y + 1, ]
  centre <- function(g) as.vector(g - rowMeans(g))
  # every oracle but none clips the record's residual vector times (1, x)
  # to L2 norm 1.5 first (kamath and holland then truncate coordinates)
  sc <- pmin(1, 1.5 / (sqrt(rowSums(r^2)) * sqrt(rowSums(w^2))))
  per_coord <- function(fun) centre(sapply(1:K, function(k)
    colSums(fun(r[, k] * sc * w)) / n))
  ref <- list(
    none = as.vector(crossprod(w, r)) / n,
    clip = as.vector(crossprod(w, r * sc)) / n,
    kamath = per_coord(function(v) pmin(pmax(v, -0.4), 0.4)),
    holland = per_coord(function(v) 0.7 * matrix(h_ref(v / 0.7, 2), nrow(v))))
  codes <- c(none = 0L, clip = 1L, kamath = 2L, holland = 3L)
  for (o in names(codes)) {
    got <- multinomial_release(x, y, beta, codes[[o]], K)
    expect_equal(got, ref[[o]], tolerance = 1e-9, label = o)
    # a sparse x streams the same sums
    expect_equal(multinomial_release(Matrix::Matrix(x, sparse = TRUE), y,
                                     beta, codes[[o]], K), got,
                 tolerance = 1e-14, label = paste(o, "sparse"))
  }
  # the clipped contributions and the weights: a weight scales the
  # residual vector before the clip
  wt <- stats::runif(n)
  sc <- pmin(1, 1.5 / (wt * sqrt(rowSums(r^2)) * sqrt(rowSums(w^2))))
  expect_equal(multinomial_release(x, y, beta, 1L, K, list(weights = wt)),
               as.vector(crossprod(w, wt * r * sc)) / n, tolerance = 1e-12)
  # a diverged predictor: finite residuals, each record within the clip
  big <- multinomial_release(x, y, c(1e308, rep(0, 8)), 1L, K)
  expect_true(all(is.finite(big)))
  expect_lte(sqrt(sum(big^2)), 1.5 + 1e-12)
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
  expect_identical(fields_family("poisson")$deviance_bound(3),
                   6 * log(1000))
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
