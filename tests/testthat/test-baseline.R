# method = "none" without `iterations`: the non-private baseline solved to
# convergence, against conquer and glmnet.

test_that("an unpenalised quantile fit matches conquer::conquer()", {
  skip_if_not_installed("conquer")
  set.seed(2)
  n <- 4000
  p <- 10
  x <- matrix(rnorm(n * p), n, p)
  y <- drop(x %*% rep(c(1, -1), 5)) + rt(n, 2)
  fit <- dpsco(x, y, family = "quantile", method = "none",
               tuning = "public", lambda = 0)
  cq <- conquer::conquer(x, y, tau = 0.5)
  expect_lt(max(abs(coef(fit)[, 1] - cq$coeff)), 1e-3)
  # given iterations, the fixed loop of the private methods runs (5 steps
  # are far from the solution here)
  f5 <- dpsco(x, y, family = "quantile", method = "none",
              tuning = "public", lambda = 0, iterations = 5)
  expect_gt(max(abs(coef(f5)[, 1] - cq$coeff)), 0.1)
  expect_identical(fit$privacy$epsilon, Inf)
})

test_that("gaussian and binomial paths match glmnet at a few lambdas", {
  skip_if_not_installed("glmnet")
  set.seed(3)
  n <- 500
  p <- 8
  x <- matrix(rnorm(n * p), n, p)
  y <- drop(x %*% c(2, -1, 0.5, rep(0, p - 3))) + rnorm(n)
  lam <- c(0.5, 0.1, 0.02, 0.004)
  # (the lasso: glmnet's gaussian elastic net works on y scaled by its sd,
  # so its ridge part is not the documented objective's; see the KKT test)
  g <- glmnet::glmnet(x, y, lambda = lam, standardize = FALSE, thresh = 1e-12)
  f <- dpsco(x, y, method = "none", tuning = "public", lambda = lam)
  expect_lt(max(abs(as.matrix(coef(g)) - coef(f))), 1e-4)
  yb <- as.numeric(runif(n) < plogis(drop(x %*% c(1, -1, rep(0, p - 2)))))
  gb <- glmnet::glmnet(x, yb, family = "binomial", lambda = lam / 10,
                       standardize = FALSE, thresh = 1e-12)
  fb <- dpsco(x, yb, family = "binomial", method = "none",
              tuning = "public", lambda = lam / 10)
  expect_lt(max(abs(as.matrix(coef(gb)) - coef(fb))), 1e-4)
  # penalty factors rescaled as glmnet rescales them
  pf <- c(0, rep(1, p - 1))
  g2 <- glmnet::glmnet(x, y, lambda = lam, penalty.factor = pf,
                       standardize = FALSE, thresh = 1e-12)
  f2 <- dpsco(x, y, method = "none", tuning = "public", lambda = lam,
              penalty.factor = pf)
  expect_lt(max(abs(as.matrix(coef(g2)) - coef(f2))), 1e-4)
})

test_that("the converged elastic net satisfies the KKT conditions", {
  set.seed(4)
  n <- 300
  x <- matrix(rnorm(n * 6), n, 6)
  y <- drop(x %*% c(1, 0, 0, -1, 0, 0)) + rnorm(n)
  for (alpha in c(1, 0.5)) {
    f <- dpsco(x, y, method = "none", tuning = "public",
               lambda = c(0.2, 0.05), alpha = alpha)
    for (l in 1:2) {
      lam <- f$lambda[l]
      b <- unname(f$beta[, l])
      r <- y - f$a0[l] - drop(x %*% b)
      # minus the gradient of the smooth part, ridge included
      grad <- drop(crossprod(x, r)) / n - lam * (1 - alpha) * b
      nz <- b != 0
      expect_lt(abs(mean(r)), 1e-8)
      expect_equal(grad[nz], lam * alpha * sign(b[nz]), tolerance = 1e-7)
      expect_true(all(abs(grad[!nz]) <= lam * alpha + 1e-8))
    }
  }
})

test_that("above the Newton path's width limit the fixed loop runs", {
  set.seed(5)
  x <- matrix(rnorm(200 * 4), 200, 4)
  y <- drop(x %*% c(1, -1, 0, 0)) + rnorm(200)
  wide <- withr::with_options(list(dpsco.curvature_max_d = 3L),
    dpsco(x, y, method = "none", tuning = "public", lambda = 0.05))
  loop <- dpsco(x, y, method = "none", tuning = "public", lambda = 0.05,
                iterations = 5)
  expect_equal(coef(wide), coef(loop), tolerance = 0)
})

test_that("a converged fit says so; a fixed loop keeps its settings", {
  set.seed(6)
  x <- matrix(rnorm(100 * 3), 100, 3)
  y <- rnorm(100)
  f <- dpsco(x, y, method = "none", tuning = "public", lambda = 0.01)
  expect_identical(f$settings$optimizer, "converged")
  expect_match(paste(summary(f)$text, collapse = " "), "solved to convergence")
  g <- dpsco(x, y, method = "none", tuning = "public", lambda = 0.01,
             iterations = 3)
  expect_identical(g$settings$optimizer, "spgd")
  expect_identical(g$settings$iterations, 3L)
  expect_false(inherits(g, "dpsco_baseline"))
  # a trace asks for the steps of the loop
  h <- dpsco(x, y, method = "none", tuning = "public", lambda = 0.01,
             trace = TRUE)
  expect_false(inherits(h, "dpsco_baseline"))
  expect_identical(dim(h$trace$beta), c(3L, 5L, 1L))
})

test_that("a sparse x converges only while its dense copy stays small", {
  skip_if_not_installed("Matrix")
  big <- Matrix::sparseMatrix(i = 1, j = 1, x = 1, dims = c(2e5, 400))
  small <- Matrix::sparseMatrix(i = 1, j = 1, x = 1, dims = c(2e3, 400))
  # 2e5 x 401 = 8.02e7 values > 2^26; 2e3 x 401 below
  expect_false(baseline_converges(TRUE, big, TRUE, integer()))
  expect_true(baseline_converges(TRUE, small, TRUE, integer()))
  expect_true(baseline_converges(TRUE, matrix(0, 2e3, 400), TRUE,
                                         integer()))
})

test_that("a multinomial path matches glmnet's, grid and coefficients", {
  skip_if_not_installed("glmnet")
  set.seed(1)
  n <- 300
  x <- matrix(stats::rnorm(n * 4), n)
  b <- matrix(c(1, -1, 0, 0, 0, 1, 1, 0, -1, 0, 0, 0), 4)
  pr <- exp(x %*% b)
  pr <- pr / rowSums(pr)
  y <- factor(apply(pr, 1, function(q) sample(3, 1, prob = q)), 1:3,
              c("a", "b", "c"))
  g <- glmnet::glmnet(x, y, family = "multinomial", standardize = FALSE,
                      thresh = 1e-14, nlambda = 6)
  f <- dpsco(x, y, family = "multinomial", method = "none", tuning = "public",
             nlambda = 6, lambda.min.ratio = 0.01)
  # the same lambda_max, glmnet's largest gradient at the class shares
  expect_equal(f$lambda[1], g$lambda[1], tolerance = 1e-12)
  f <- dpsco(x, y, family = "multinomial", method = "none", tuning = "public",
             lambda = g$lambda)
  expect_s3_class(f, "dpsco_baseline")
  # glmnet's intercepts are centred over the classes too
  expect_equal(unname(f$a0), unname(g$a0), tolerance = 1e-5)
  for (k in c("a", "b", "c"))
    expect_equal(unname(f$beta[[k]]), unname(as.matrix(g$beta[[k]])),
                 tolerance = 1e-5)
  expect_equal(unname(f$df), g$df)
})
