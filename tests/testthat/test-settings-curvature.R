# The private curvature (R/settings-curvature.R): the release against its
# plain-R sum and noise, and the positive-definite repair.

# ---- the curvature -------------------------------------------------------------

test_that("curvature_matrix(): eigenvalues floored at 0 plus ridge sd sqrt(d), times weight", {
  set.seed(8)
  d <- 5
  q <- qr.Q(qr(matrix(stats::rnorm(d * d), d)))
  ev <- c(3, 1, 0.2, -0.5, -2)                 # an indefinite noisy release
  h <- q %*% diag(ev) %*% t(q)
  h <- (h + t(h)) / 2
  for (cs in list(list(sd = 0.1, ridge = 1, w = 1), list(sd = 0.3, ridge = 2, w = 0.21))) {
    cm <- curvature_matrix(h, cs$sd, cs$ridge, cs$w)
    mu <- cs$ridge * cs$sd * sqrt(d)
    want <- cs$w * (pmax(ev, 0) + mu)
    got <- eigen(cm$A, symmetric = TRUE)
    expect_equal(got$values, sort(want, decreasing = TRUE), tolerance = 1e-12)
    expect_true(isSymmetric(cm$A))
    expect_gt(min(got$values), 0)
    # the eigenvectors are those of h
    expect_equal(cm$A %*% q, q %*% diag(want), tolerance = 1e-12)
    expect_equal(cm$top, max(want), tolerance = 1e-14)
    expect_equal(cm$ridge, cs$w * mu, tolerance = 1e-14)
  }
  # without noise: h itself plus 1e-9 times its trace
  hp <- crossprod(matrix(stats::rnorm(30), 6, 5))
  cm0 <- curvature_matrix(hp, 0, 1, 1)
  expect_equal(cm0$A, hp + 1e-9 * sum(diag(hp)) * diag(5), tolerance = 1e-12)
})

test_that("release_curvature() clips rows to the row bound and adds symmetric noise of sd z B^2 / n", {
  set.seed(9)
  n <- 50
  w <- cbind(1, matrix(stats::rt(n * 3, df = 2), n, 3))
  B <- 1.7
  norms <- sqrt(rowSums(w^2))
  wc <- w * pmin(1, B / norms)
  expect_lte(max(sqrt(rowSums(wc^2))), B * (1 + 1e-12))
  r0 <- release_curvature(w, 0, B, n)
  expect_equal(r0$h, crossprod(wc) / n, tolerance = 1e-14)
  expect_identical(r0$sd, 0)
  # the noise: one draw per entry of the upper triangle, mirrored; the
  # divisor and the noise scale are the public n, whatever the rows
  z <- 2
  e <- matrix(0, 4, 4)
  for (N in c(n, 80, 30)) {
    set.seed(10)
    r1 <- release_curvature(w, z, B, N)
    set.seed(10)
    e <- matrix(stats::rnorm(16), 4)
    e[lower.tri(e)] <- t(e)[lower.tri(e)]
    expect_equal(r1$h, crossprod(wc) / N + z * B^2 / N * e, tolerance = 1e-14)
    expect_equal(r1$sd, z * B^2 / N, tolerance = 1e-15)
  }
  # one added record moves the matrix by at most B^2 / n in Frobenius norm
  # (n public: the same divisor for both), attained by a record along one
  # axis
  rec <- c(1e9, 0, 0, 0)
  move <- release_curvature(rbind(w, rec), 0, B, n)$h - r0$h
  expect_equal(sqrt(sum(move^2)), B^2 / n, tolerance = 1e-12)
  # a design in list(x = ) with the intercept column added gives the same
  dw <- structure(list(x = w[, -1]), class = "design_cols")
  set.seed(10)
  r1 <- release_curvature(w, z, B, 80)
  set.seed(10)
  expect_equal(release_curvature(dw, z, B, 80, norms, TRUE), r1,
               tolerance = 1e-14)
})
