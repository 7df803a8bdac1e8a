# Sample and aggregate (Wang, Xiao, Devadas and Xu 2020, Algorithm 1):
# the block fits against glmnet and closed forms, the constrained fits
# against their KKT conditions, the aggregation against a plain-R
# reference built from the full distance matrix, and a whole fit replayed
# with the same random numbers.

# Plain-R Algorithm 1 aggregation (t-th nearest other estimate, Lambda
# beyond m - 1, orders rounded up).
ref_aggregate <- function(est, eps, delta, Lambda) {
  m <- nrow(est)
  d <- ncol(est)
  s <- sqrt(m)
  lg <- log(2 / delta)
  gam <- eps / (5 * sqrt(2 * lg))
  bet <- eps / (4 * (d + lg))
  D <- as.matrix(dist(est))
  rr <- function(i, t) if (t > m - 1) Lambda else min(sort(D[i, -i])[t], Lambda)
  t0 <- ceiling((m + s) / 2 + 1)
  istar <- which.min(vapply(seq_len(m), rr, 0, t = t0))
  top <- min(ceiling(s / bet), m)
  rho <- function(t)
    mean(sort(vapply(seq_len(m), rr, 0, t = t), decreasing = TRUE)[seq_len(top)])
  best <- 0
  k <- 0
  repeat {
    t <- ceiling(t0 + (k + 1) * s)
    best <- max(best, rho(t) * exp(-bet * k))
    if (t > m - 1) break
    k <- k + 1
  }
  list(centre = est[istar, ], smooth = 2 * best, gamma = gam)
}

sa_data <- function(n, p = 2, seed = 2) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, p)
  y <- drop(x %*% rep(c(1, -0.5), length.out = p)) + rlnorm(n) - exp(0.5)
  list(x = x, y = y)
}

test_that("block fits: ridge and logistic ridge match glmnet inside the ball", {
  skip_if_not_installed("glmnet")
  dat <- sa_data(150, 3)
  lam <- 0.05
  w <- sa_block_fit(dat$x, dat$y, 0, "gaussian", lam, 100)
  # glmnet's gaussian lambda is on the scale of y / sqrt(mean(y^2))
  g <- glmnet::glmnet(dat$x, dat$y, alpha = 0, intercept = FALSE,
                      standardize = FALSE, thresh = 1e-20,
                      lambda = lam * sqrt(mean(dat$y^2)))
  expect_equal(w, as.numeric(coef(g))[-1], tolerance = 1e-8)
  # with the intercept column (penalised too): the closed form
  z <- cbind(1, dat$x)
  wi <- sa_block_fit(z, dat$y, 0.3, "gaussian", lam, 100)
  expect_equal(wi, drop(solve(crossprod(z) / 150 + diag(lam, 4),
                              crossprod(z, dat$y - 0.3) / 150)),
               tolerance = 1e-12)
  yb <- as.numeric(dat$y > 0)
  wb <- sa_block_fit(dat$x, yb, 0, "binomial", lam, 100)
  gb <- glmnet::glmnet(dat$x, yb, family = "binomial", alpha = 0,
                       intercept = FALSE, standardize = FALSE,
                       thresh = 1e-20, lambda = lam)
  expect_equal(wb, as.numeric(coef(gb))[-1], tolerance = 1e-6)
})

test_that("block fits on the ball: norm r and the KKT conditions", {
  dat <- sa_data(120, 3)
  z <- cbind(1, dat$x)
  lam <- 1e-3
  for (fam in c("gaussian", "binomial")) {
    y <- if (fam == "binomial") as.numeric(dat$y > 0) else dat$y
    w <- sa_block_fit(z, y, 0.1, fam, lam, 0.4)
    expect_equal(sqrt(sum(w^2)), 0.4, tolerance = 1e-12)
    eta <- 0.1 + drop(z %*% w)
    res <- if (fam == "binomial") plogis(eta) - y else eta - y
    g <- drop(crossprod(z, res)) / 120 + lam * w
    # at the boundary the gradient points against w: g = -c w with c >= 0
    c <- -sum(g * w) / sum(w * w)
    expect_gt(c, 0)
    expect_equal(g, -c * w, tolerance = 1e-7)
  }
})

test_that("the aggregation matches the plain-R Algorithm 1", {
  set.seed(7)
  for (m in c(30L, 101L)) {
    est <- matrix(rnorm(m * 3, sd = 0.2), m, 3)
    est[1:5, ] <- est[1:5, ] + 2             # a few far blocks
    for (eps in c(0.8, 5)) {
      a <- sa_aggregate(est, eps, 1e-4, 6)
      r <- ref_aggregate(est, eps, 1e-4, 6)
      expect_equal(a$centre, r$centre, tolerance = 1e-14)
      expect_equal(a$smooth, r$smooth, tolerance = 1e-12)
      expect_equal(a$gamma, r$gamma, tolerance = 1e-14)
    }
  }
})

test_that("a whole fit replays: random blocks, block fits, aggregation, noise", {
  dat <- sa_data(2000)
  k <- 100L
  eps <- 2
  delta <- 1e-4
  set.seed(12)
  fit <- dpsco(dat$x, dat$y, method = "sample_aggregate", epsilon = eps,
               delta = delta, radius = c(0.3, 50), tuning = "public",
               control = dpsco_control(blocks = k, block_ridge = 0.01))
  set_fit_seed(12)
  block <- sample(rep_len(seq_len(k), 2000))
  z <- cbind(1, dat$x)
  out <- matrix(0, 3, 2)
  for (l in 1:2) {
    r <- c(0.3, 50)[l]
    est <- t(vapply(split(seq_len(2000), block), function(ix) {
      if (r == 50)                         # the ball is not active
        drop(solve(crossprod(z[ix, ]) / length(ix) + diag(0.01, 3),
                   crossprod(z[ix, ], dat$y[ix]) / length(ix)))
      else sa_block_fit(z[ix, ], dat$y[ix], 0, "gaussian", 0.01, r)
    }, numeric(3)))
    if (r == 50) expect_true(all(sqrt(rowSums(est^2)) < 50))
    ag <- ref_aggregate(est, eps / 2, delta / 2, 2 * r)
    o <- ag$centre + ag$smooth / ag$gamma * rnorm(3)
    out[, l] <- if (sqrt(sum(o^2)) > r) o * r / sqrt(sum(o^2)) else o
  }
  expect_equal(unname(rbind(fit$a0, as.matrix(fit$beta))), out,
               tolerance = 1e-10)
  expect_equal(fit$privacy$epsilon_accounted, eps, tolerance = 1e-12)
  # add/remove one record at the public n (the rows here: nothing is
  # resized), through the theorem for replace-one pairs of n records,
  # which also gives the replace-one epsilon unchanged
  expect_identical(fit$privacy$adjacency,
                   "add/remove one record at the public size n = 2,000")
  expect_match(fit$privacy$resized, "resized to the public n", fixed = TRUE)
  expect_equal(fit$privacy$epsilon_replace_one, fit$privacy$epsilon_accounted,
               tolerance = 1e-12)
  expect_identical(fit$nobs, 2000)
  expect_equal(fit$settings$blocks, k)
})

test_that("bad block counts and a failed condition are argument errors", {
  dat <- sa_data(200)
  expect_equal(arg_of(dpsco_control(blocks = 1)), "blocks")
  expect_equal(arg_of(dpsco(dat$x, dat$y, method = "sample_aggregate",
                            radius = 1, tuning = "public",
                            control = dpsco_control(blocks = 201))), "blocks")
  # epsilon 1 with d = 3 needs k > 36 blocks
  expect_equal(arg_of(dpsco(dat$x, dat$y, method = "sample_aggregate",
                            radius = 1, tuning = "public",
                            control = dpsco_control(blocks = 36))), "blocks")
  expect_equal(arg_of(dpsco(dat$x, dat$y, method = "sample_aggregate",
                            radius = 1, tuning = "public", iterations = 5,
                            control = dpsco_control(blocks = 50))),
               "iterations")
  # the default k is the smallest meeting the condition when n allows it
  set.seed(1)
  fit <- dpsco(dat$x, dat$y, method = "sample_aggregate", radius = 1,
               tuning = "public", epsilon = 1)
  expect_equal(fit$settings$blocks, floor((2 * 3 / 1)^2) + 1)
})
