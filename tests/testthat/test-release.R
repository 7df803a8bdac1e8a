# The one place noise is drawn (R/release.R): release() against its
# definition replayed from the same seed (R's generator), the shape and
# the per-entry scale kept, R's stream left alone by secure noise;
# release_symmetric() against its two orders of draws; release_choice()
# against the exponential mechanism's probabilities.

test_that("release() adds sd * a standard normal per entry, in R's order", {
  v <- c(3, -1, 0.5, 10)
  set.seed(7)
  got <- release(v, 2, 0.25)
  set.seed(7)
  expect_identical(got, v + (2 * 0.25) * rnorm(4))
  # per-entry scale: entry i's noise sd is z * sensitivity / scale_i
  set.seed(8)
  got <- release(v, 2, 0.25, scale = c(1, 2, 4, 8))
  set.seed(8)
  expect_identical(got, v + (2 * 0.25 / c(1, 2, 4, 8)) * rnorm(4))
  # a matrix keeps its shape
  m <- matrix(1:6, 2)
  set.seed(9)
  got <- release(m, 1, 1)
  expect_identical(dim(got), c(2L, 3L))
  set.seed(9)
  expect_identical(got, m + rnorm(6))
})

test_that("release() at z = 0 draws as a noisy release does unless skip_zero", {
  v <- c(1, 2, 3)
  set.seed(10)
  expect_identical(release(v, 0, 1), v)
  after <- .Random.seed
  set.seed(10)
  invisible(rnorm(3))
  expect_identical(after, .Random.seed)
  set.seed(10)
  before <- .Random.seed
  expect_identical(release(v, 0, 1, skip_zero = TRUE), v)
  expect_identical(.Random.seed, before)
})

test_that("secure release() leaves R's generator alone and lands on its grid", {
  skip_if_not(secure_available())
  local_secure(TRUE)
  v <- c(0.3, -2.5, 7)
  set.seed(11)
  before <- .Random.seed
  got <- release(v, 1, 0.01)
  expect_identical(.Random.seed, before)
  g <- secure_gaussian(1, 0.01, 3)
  expect_true(all(got / g$grid == round(got / g$grid)))
  expect_lt(max(abs(got - v)), 10 * g$sd)
  # z = 0 (or sensitivity 0): the value as it is
  expect_identical(release(v, 0, 1), v)
  # a mechanism with no secure version still draws from R
  set.seed(12)
  got <- release(v, 1, 1, secure = FALSE)
  set.seed(12)
  expect_identical(got, v + rnorm(3))
})

test_that("release_symmetric() mirrors the noise of the upper triangle", {
  h <- crossprod(matrix(c(1, 2, 0, 1, 3, 1, 0, 2, 1), 3))
  d <- 3
  # the triangle alone: d (d + 1) / 2 normals in column-major order
  set.seed(13)
  got <- release_symmetric(h, 2, 0.5)
  set.seed(13)
  up <- upper.tri(h, diag = TRUE)
  want <- h
  want[up] <- h[up] + (2 * 0.5) * rnorm(sum(up))
  want[lower.tri(want)] <- t(want)[lower.tri(want)]
  expect_identical(got, want)
  expect_identical(got, t(got))
  # square: a whole d x d matrix drawn, its upper triangle mirrored
  set.seed(14)
  got <- release_symmetric(h, 2, 0.5, square = TRUE)
  set.seed(14)
  e <- matrix(rnorm(d * d), d, d)
  e[lower.tri(e)] <- t(e)[lower.tri(e)]
  expect_identical(got, h + (2 * 0.5) * e)
  # nothing to add: nothing drawn
  set.seed(15)
  before <- .Random.seed
  expect_identical(release_symmetric(h, 0, 0.5, square = TRUE), h)
  expect_identical(.Random.seed, before)
})

test_that("release_choice() picks k with probability proportional to exp(score_k)", {
  score <- c(0, log(2), log(5), -1)
  p <- exp(score) / sum(exp(score))
  set.seed(16)
  draws <- replicate(20000, release_choice(score))
  freq <- tabulate(draws, 4) / 20000
  # within 4 binomial sds of each probability
  expect_true(all(abs(freq - p) < 4 * sqrt(p * (1 - p) / 20000)))
})
