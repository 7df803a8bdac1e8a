test_that("the engine scales each class block into (b - c)' M (b - c) <= r^2", {
  set.seed(2)
  w <- 4
  m <- crossprod(matrix(stats::rnorm(40), 10, w)) / 10   # positive definite
  ctr <- c(1.5, 0, 0, 0, -2, 0, 0, 0)                     # 2 classes
  rad <- c(0.7, 3)
  b <- matrix(stats::rnorm(8 * 3, sd = 2), 8, 3)
  b[1:4, 3] <- ctr[1:4] + c(0.1, 0, 0.05, 0)              # inside
  out <- project_domain(b, list(domain_metric = m, domain_centre = ctr,
                                        domain_radius = rad), nclass = 2L)
  for (l in 1:3) for (k in 1:2) {
    r <- (k - 1) * 4 + 1:4
    v <- b[r, l] - ctr[r]
    q <- drop(t(v) %*% m %*% v)
    # the M-metric projection onto an M-ball is the radial scaling
    ref <- ctr[r] + v * min(1, rad[k] / sqrt(q))
    expect_equal(out[r, l], ref, tolerance = 1e-12)
    vo <- out[r, l] - ctr[r]
    expect_lte(drop(t(vo) %*% m %*% vo), rad[k]^2 * (1 + 1e-12))
  }
  expect_identical(out[1:4, 3], b[1:4, 3])
  expect_identical(project_domain(b, NULL), b)
  # a non-finite column goes back to the centre
  bad <- matrix(c(NaN, 1, 1, 1), 4)
  expect_identical(drop(project_domain(bad, list(
    domain_metric = m, domain_centre = ctr[1:4], domain_radius = 1))), ctr[1:4])
})

test_that("the domain's radius comes from released values and the public n", {
  m <- diag(3)
  b0 <- c(2, 0, 0)
  fg <- family_gaussian()
  d <- path_domain(fg, c(4, 64), 300, m, b0, TRUE)
  expect_identical(d$domain_radius, 30)
  expect_identical(d$domain_metric, m)
  expect_identical(d$domain_centre, b0)
  expect_null(path_domain(fg, NULL, 300, m, b0, TRUE))
  expect_null(path_domain(fg, c(0, 1), 300, NULL, b0, TRUE))
  # binomial: log-odds within log(n + 1); the metric without the loss's
  # weight p (1 - p) at the start
  db <- path_domain(family_binomial(), NULL, 99, m,
                            c(stats::qlogis(0.2), 0, 0), TRUE)
  expect_identical(db$domain_radius, log(100))
  expect_equal(db$domain_metric, m / (0.2 * 0.8))
  dp <- path_domain(family_poisson(), c(0, 20), 500, m,
                            c(log(3), 0, 0), TRUE)
  expect_equal(dp$domain_radius, (log(20) + log(500)) / 2)
  expect_equal(dp$domain_metric, m / 3)
  expect_identical(released_y_range(list(y_bound = 7), "gaussian"), c(-7, 7))
  expect_identical(released_y_range(list(y_bound = 7), "poisson"), c(0, 7))
  expect_identical(released_y_range(list(y_range = c(1, 2), y_bound = 7),
                                            "gaussian"), c(1, 2))
  expect_null(released_y_range(list(), "gaussian"))
})

test_that("a private gaussian path stays within its domain: the predictions' root mean square change", {
  set.seed(7)
  n <- 150
  x <- matrix(stats::rt(n * 6, df = 2), n)
  y <- drop(x[, 1:2] %*% c(3, -2)) + stats::rt(n, df = 2)
  for (s in 1:3) {
    fit <- withr::with_seed(s, dpsco(x, y, epsilon = 0.5))
    yr <- fit$settings$y_range
    expect_length(yr, 2L)
    # the engine's coefficients: slopes on the clamped features x_j / B_j
    B <- fit$x_range[2L, ]
    eng <- rbind(fit$a0, fit$beta * B)
    v <- eng - c(fit$privacy$released$centre, rep(0, 6))
    m <- fit$support$curvature                 # gaussian: no loss weight
    q <- colSums(v * (m %*% v))
    expect_true(all(q <= (diff(yr) / 2)^2 * (1 + 1e-9)))
    expect_true(all(is.finite(predict(fit, matrix(c(1e6, -1e6), 2, 6)))))
  }
})

test_that("the first penalty of a private path is the trivial model", {
  set.seed(3)
  n <- 300
  x <- matrix(stats::rnorm(n * 4), n)
  y <- 5 + x[, 1] + stats::rnorm(n)
  fit <- dpsco(x, y, epsilon = 1)
  expect_identical(unname(fit$beta[, 1L]), rep(0, 4))
  # its intercept is the released centre of y (gaussian: the start itself)
  expect_identical(unname(fit$a0[1L]), fit$privacy$released$centre)
  expect_identical(fit$trivial, 1L)
  yb <- stats::rbinom(n, 1, stats::plogis(x[, 1]))
  fb <- dpsco(x, yb, family = "binomial", epsilon = 1)
  expect_equal(unname(fb$a0[1L]),
               family_binomial()$start(fb$privacy$released$centre, n))
  # public tuning has no released start: no trivial model, no domain
  fp <- dpsco(x, y, epsilon = 1, tuning = "public", nlambda = 3)
  expect_null(fp$trivial)
  expect_null(fp$settings$y_range)
})
