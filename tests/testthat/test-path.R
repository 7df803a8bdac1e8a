# The lambda grid: glmnet's data-driven lambda_max for the non-private
# baseline, the oracle's public bound for private methods, geometric spacing.

path_data <- function(n = 100, p = 3, seed = 77) {
  set.seed(seed)
  x <- matrix(runif(n * p, -1, 1), n, p)
  y <- drop(x %*% c(2, -1, rep(0, p - 2))) + 3 + rnorm(n)
  yb <- as.numeric(runif(n) < plogis(drop(x %*% c(2, -2, rep(0, p - 2)))))
  list(n = n, p = p, x = x, y = y, yb = yb)
}

# glmnet's lambda_max written out with loops
hand_lmax <- function(x, y, alpha = 1, pf = rep(1, ncol(x)), intercept = TRUE) {
  n <- nrow(x)
  ybar <- if (intercept) sum(y) / n else 0
  pf <- pf * ncol(x) / sum(pf)
  best <- 0
  for (j in seq_len(ncol(x))) {
    if (pf[j] <= 0) next
    g <- 0
    for (i in seq_len(n)) g <- g + x[i, j] * (y[i] - ybar)
    best <- max(best, abs(g) / (n * pf[j]))
  }
  best / alpha
}

check_geometric <- function(lambda, K, ratio) {
  expect_length(lambda, K)
  expect_equal(lambda[K] / lambda[1], ratio, tolerance = 1e-10)
  steps <- lambda[-1] / lambda[-K]
  expect_equal(steps, rep(ratio^(1 / (K - 1)), K - 1), tolerance = 1e-10)
}

test_that("method 'none': lambda[1] is glmnet's lambda_max computed by hand", {
  d <- path_data()
  for (a in c(1, 0.5)) {
    f <- dpsco(tuning = "public", d$x, d$y, method = "none", alpha = a, iterations = 2,
               nlambda = 10)
    expect_equal(f$lambda[1], hand_lmax(d$x, d$y, alpha = a), tolerance = 1e-12)
    check_geometric(f$lambda, 10, 1e-4)
  }
  # without intercept the response is not centred
  f0 <- dpsco(tuning = "public", d$x, d$y, method = "none", intercept = FALSE, iterations = 2,
              nlambda = 5)
  expect_equal(f0$lambda[1], hand_lmax(d$x, d$y, intercept = FALSE),
               tolerance = 1e-12)
  expect_false(isTRUE(all.equal(f0$lambda[1], hand_lmax(d$x, d$y))))
  # positive penalty factors, rescaled to sum to p
  pf <- c(1, 2, 3)
  fp <- dpsco(tuning = "public", d$x, d$y, method = "none", penalty.factor = pf, iterations = 2,
              nlambda = 5)
  expect_equal(fp$lambda[1], hand_lmax(d$x, d$y, pf = pf), tolerance = 1e-12)
  # binomial: the same formula with 0/1 y
  fb <- dpsco(tuning = "public", d$x, d$yb, family = "binomial", method = "none", iterations = 2,
              nlambda = 5)
  expect_equal(fb$lambda[1], hand_lmax(d$x, d$yb), tolerance = 1e-12)
})

test_that("method 'none': the default grid agrees with glmnet's", {
  skip_if_not_installed("glmnet")
  d <- path_data()
  for (a in c(1, 0.5)) {
    f <- dpsco(tuning = "public", d$x, d$y, method = "none", alpha = a, iterations = 2,
               nlambda = 20)
    g <- glmnet::glmnet(d$x, d$y, standardize = FALSE, alpha = a, nlambda = 20)
    expect_equal(f$lambda[1], g$lambda[1], tolerance = 1e-8)
    # glmnet may stop its path early; compare the common prefix
    k <- length(g$lambda)
    expect_gt(k, 3)
    expect_equal(f$lambda[seq_len(k)], g$lambda, tolerance = 1e-8)
  }
  f0 <- dpsco(tuning = "public", d$x, d$y, method = "none", intercept = FALSE, iterations = 2)
  g0 <- glmnet::glmnet(d$x, d$y, standardize = FALSE, intercept = FALSE)
  expect_equal(f0$lambda[1], g0$lambda[1], tolerance = 1e-8)
  pf <- c(1, 2, 3)
  fp <- dpsco(tuning = "public", d$x, d$y, method = "none", penalty.factor = pf, iterations = 2)
  gp <- glmnet::glmnet(d$x, d$y, standardize = FALSE, penalty.factor = pf)
  expect_equal(fp$lambda[1], gp$lambda[1], tolerance = 1e-8)
  fb <- dpsco(tuning = "public", d$x, d$yb, family = "binomial", method = "none", iterations = 2)
  gb <- glmnet::glmnet(d$x, d$yb, family = "binomial", standardize = FALSE)
  expect_equal(fb$lambda[1], gb$lambda[1], tolerance = 1e-6)
})

test_that("clip: lambda[1] = C / (alpha * min positive rescaled penalty factor)", {
  d <- path_data()
  f <- dpsco(tuning = "public", d$x, d$y, method = "clip", control = dpsco_control(clip = 2.5),
             iterations = 2, nlambda = 6)
  expect_equal(f$lambda[1], 2.5, tolerance = 1e-14)
  check_geometric(f$lambda, 6, 1e-4)
  f2 <- dpsco(tuning = "public", d$x, d$y, method = "clip", control = dpsco_control(clip = 2.5),
              alpha = 0.4, penalty.factor = c(1, 2, 3), iterations = 2,
              nlambda = 6)
  # rescaled factors c(1, 2, 3) * 3 / 6: smallest is 0.5
  expect_equal(f2$lambda[1], 2.5 / (0.4 * 0.5), tolerance = 1e-14)
  # a zero factor is ignored when taking the minimum
  f3 <- dpsco(tuning = "public", d$x, d$y, method = "clip", control = dpsco_control(clip = 2.5),
              penalty.factor = c(0, 2, 4), iterations = 2, nlambda = 6)
  # rescaled: c(0, 1, 2)
  expect_equal(f3$lambda[1], 2.5, tolerance = 1e-14)
  expect_equal(f3$settings$penalty.factor, c(0, 1, 2))
})

test_that("kamath: lambda[1] = rho / 2 / alpha, rho from the settings and by hand", {
  d <- path_data()
  eps <- 2
  del <- 1e-4
  K <- 5
  f <- dpsco(tuning = "public", d$x, d$y, method = "kamath", epsilon = eps, delta = del,
             alpha = 0.5, iterations = 2, nlambda = K)
  expect_equal(f$lambda[1], f$settings$rho / 2 / 0.5, tolerance = 1e-14)
  # default rho = (eps_K m / sqrt(d log(1/delta_K)))^(1/2), m = n, d = p + 1
  rho_hand <- ((eps / K) * d$n / sqrt((d$p + 1) * log(K / del)))^(1 / 2)
  expect_equal(f$settings$rho, rho_hand, tolerance = 1e-12)
  expect_equal(f$lambda[1], rho_hand, tolerance = 1e-12)
  check_geometric(f$lambda, K, 1e-4)
  # user rho
  fr <- dpsco(tuning = "public", d$x, d$y, method = "kamath", control = dpsco_control(rho = 3),
              iterations = 2, nlambda = K)
  expect_equal(fr$lambda[1], 1.5, tolerance = 1e-14)
})

test_that("holland: lambda[1] = 2 sqrt(2) s / 3 / alpha, s from the settings and by hand", {
  d <- path_data()
  eps <- 3
  del <- 1e-3
  K <- 4
  f <- dpsco(tuning = "public", d$x, d$y, method = "holland", epsilon = eps, delta = del,
             iterations = 2, nlambda = K, batch_size = 50)
  s <- f$settings$s
  expect_equal(f$lambda[1], 2 * sqrt(2) * s / 3, tolerance = 1e-14)
  # default s = sqrt(m eps_K tau) / (log(1/zeta) log(1/delta_K)^(1/4))
  s_hand <- sqrt(50 * (eps / K) * 1) / (log(1 / 0.1) * log(K / del)^(1 / 4))
  expect_equal(s, s_hand, tolerance = 1e-12)
  # user s, alpha and penalty factor
  fs <- dpsco(tuning = "public", d$x, d$y, method = "holland", control = dpsco_control(s = 1.2),
              alpha = 0.8, penalty.factor = c(2, 1, 1), iterations = 2,
              nlambda = K)
  expect_equal(fs$lambda[1], 2 * sqrt(2) * 1.2 / 3 / (0.8 * 0.75),
               tolerance = 1e-12)
})

test_that("the grid is geometric with ratio lambda.min.ratio and length nlambda", {
  d <- path_data()
  f <- dpsco(tuning = "public", d$x, d$y, method = "clip", lambda.min.ratio = 0.02, nlambda = 7,
             iterations = 2)
  check_geometric(f$lambda, 7, 0.02)
  expect_equal(f$lambda, 1 * 0.02^((0:6) / 6), tolerance = 1e-12)
  fn <- dpsco(tuning = "public", d$x, d$y, method = "none", lambda.min.ratio = 0.05, nlambda = 4,
              iterations = 2)
  check_geometric(fn$lambda, 4, 0.05)
  # n < p: default ratio 0.01
  set.seed(2)
  xs <- matrix(runif(3 * 5, -1, 1), 3, 5)
  ys <- rnorm(3)
  fs <- dpsco(tuning = "public", xs, ys, method = "clip", nlambda = 5, iterations = 2)
  check_geometric(fs$lambda, 5, 0.01)
  fsn <- dpsco(tuning = "public", xs, ys, method = "none", nlambda = 5, iterations = 2)
  check_geometric(fsn$lambda, 5, 0.01)
  # n >= p: default ratio 1e-4, default length 20
  fd <- dpsco(tuning = "public", d$x, d$y, method = "clip", iterations = 2)
  check_geometric(fd$lambda, 20, 1e-4)
  # nlambda = 1: just lambda_max
  f1 <- dpsco(tuning = "public", d$x, d$y, method = "clip", nlambda = 1, iterations = 2,
              control = dpsco_control(clip = 0.7))
  expect_identical(f1$lambda, 0.7)
})

test_that("lambda_grid() computes the grid from its inputs", {
  d <- path_data()
  lg <- lambda_grid
  g <- lg(bound = 2, x = d$x, y = d$y, family = "gaussian", private = TRUE, alpha = 0.5,
          pf = c(1, 1, 1), intercept = TRUE, nlambda = 5, lambda.min.ratio = 0.01)
  expect_equal(g, 4 * 0.01^((0:4) / 4), tolerance = 1e-12)
  # private grids ignore x and y entirely
  g2 <- lg(bound = 2, x = d$x * 7, y = -d$y, family = "gaussian", private = TRUE, alpha = 0.5,
           pf = c(1, 1, 1), intercept = TRUE, nlambda = 5, lambda.min.ratio = 0.01)
  expect_identical(g2, g)
  # alpha = 0 uses alpha = 0.001, as glmnet
  g3 <- lg(bound = 2, x = d$x, y = d$y, family = "gaussian", private = TRUE, alpha = 0,
           pf = c(0.5, 1.5, 1), intercept = TRUE, nlambda = 3, lambda.min.ratio = 0.1)
  expect_equal(g3, 2 / (0.001 * 0.5) * c(1, sqrt(0.1), 0.1), tolerance = 1e-12)
  # none: data-driven
  gn <- lg(bound = Inf, x = d$x, y = d$y, family = "gaussian", private = FALSE, alpha = 1,
           pf = c(1, 1, 1), intercept = TRUE, nlambda = 3, lambda.min.ratio = 0.1)
  expect_equal(gn[1], hand_lmax(d$x, d$y), tolerance = 1e-12)
  # constant response with intercept: no signal, lambda_max falls back to 1
  gc <- lg(bound = Inf, x = d$x, y = rep(2, d$n), family = "gaussian", private = FALSE, alpha = 1,
           pf = c(1, 1, 1), intercept = TRUE, nlambda = 2, lambda.min.ratio = 0.1)
  expect_equal(gc, c(1, 0.1))
})

test_that("private default grids do not depend on y (or x); 'none' does", {
  d <- path_data()
  for (m in c("clip", "kamath", "holland")) {
    f1 <- dpsco(tuning = "public", d$x, d$y, method = m, iterations = 2, nlambda = 5)
    f2 <- dpsco(tuning = "public", d$x, d$y * 1000, method = m, iterations = 2, nlambda = 5)
    f3 <- dpsco(tuning = "public", d$x / 3, rev(d$y), method = m, iterations = 2, nlambda = 5)
    expect_identical(f2$lambda, f1$lambda, label = paste(m, "y * 1000"))
    expect_identical(f3$lambda, f1$lambda, label = paste(m, "other x and y"))
  }
  g1 <- dpsco(tuning = "public", d$x, d$y, method = "none", iterations = 2, nlambda = 5)
  g2 <- dpsco(tuning = "public", d$x, d$y * 1000, method = "none", iterations = 2, nlambda = 5)
  expect_equal(g2$lambda, 1000 * g1$lambda, tolerance = 1e-12)
})

test_that("a user lambda sequence is used as given", {
  d <- path_data()
  lam <- c(0.9, 0.3, 0.01)
  f <- dpsco(tuning = "public", d$x, d$y, method = "kamath", lambda = lam, iterations = 2)
  expect_identical(f$lambda, lam)
  expect_identical(ncol(f$beta), 3L)
  expect_identical(f$privacy$nlambda, 3L)
})

test_that("method 'none' with a zero penalty factor starts at glmnet's lambda_max", {
  skip_if_not_installed("glmnet")
  d <- path_data()
  pf <- c(0, 1, 3)
  f <- dpsco(tuning = "public", d$x, d$y, method = "none", penalty.factor = pf, iterations = 2)
  g <- glmnet::glmnet(d$x, d$y, standardize = FALSE, penalty.factor = pf)
  expect_equal(f$lambda[1], g$lambda[1], tolerance = 1e-8)
})

test_that("a multinomial grid starts at the largest released coordinate of any class", {
  # two classes of d = 3 (intercept first): intercepts are not penalised
  g0 <- c(9, 0.5, -2, -9, 0.2, 0.4)
  lam <- released_grid(g0, TRUE, 1, c(1, 0.5), 3, 0.1, nclass = 2L)
  # features: max(|0.5|, |0.2|) / 1 and max(|-2|, |0.4|) / 0.5
  expect_equal(lam[1], 4)
  expect_equal(lam, 4 * c(1, sqrt(0.1), 0.1))
})

test_that("a lambda the user gives is fitted as given, one value included", {
  set.seed(11)
  n <- 3000
  x <- matrix(rnorm(n * 4), n)
  y <- 2 * x[, 1] + rnorm(n)
  one <- dpsco(x, y, lambda = 0.01, epsilon = 2)
  # the fit at 0.01, not the intercept-only start of a released grid
  expect_gt(abs(one$beta[1L, 1L]), 1)
  expect_null(one$trivial)
  grid <- dpsco(x, y, epsilon = 2)
  expect_identical(grid$trivial, 1L)
  expect_true(all(grid$beta[, 1L] == 0))
})
