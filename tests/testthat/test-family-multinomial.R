# The multinomial family (R/family-multinomial.R): its functions against the
# softmax model's closed forms and the engine's gradient against plain R.

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
