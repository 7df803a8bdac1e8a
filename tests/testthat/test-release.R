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

# The ledger: each release lists its part in the running fit's ledger,
# and check_releases() holds the fit's record against it.

# A record's table of parts as new_privacy_record() makes it.
ledger_record <- function(part, z, steps, sens)
  list(private = TRUE,
       shares = data.frame(part = part, noise_multiplier = z, steps = steps,
                           sensitivity = sens, stringsAsFactors = FALSE))

test_that("each release lists its multiplier, sensitivity and drawn noise", {
  got <- local({
    ledger_open(environment())
    set.seed(1)
    release(c(1, 2), 3, 0.5)
    release(1, 2, 0.25, sd = 0.75)          # drew more noise than z says
    release(1, 0, 1)                        # not private: not listed
    release(matrix(0, 2, 2), 1, 4, part = "optimizer")
    ledger_entries()
  })
  expect_length(got, 3L)
  expect_identical(vapply(got, `[[`, 0, "z"), c(3, 2, 1))
  expect_identical(vapply(got, `[[`, 0, "sensitivity"), c(0.5, 0.25, 4))
  # the drawn multiplier is the noise sd over the sensitivity
  expect_equal(vapply(got, `[[`, 0, "drawn"), c(3, 3, 1))
  expect_identical(vapply(got, `[[`, 0L, "entries"), c(2L, 1L, 4L))
  expect_identical(got[[3]]$part, "optimizer")
  # outside any fit nothing is listed
  release(1, 1, 1)
  expect_length(ledger_entries(), 0L)
})

test_that("a ledger passes its releases to the fit it runs inside", {
  got <- local({
    ledger_open(environment())
    release(1, 5, 1)
    inner <- function() {
      ledger_open(environment())
      release(1, 6, 1)
      release(1, 7, 1)
      length(ledger_entries())
    }
    n_inner <- inner()
    list(inner = n_inner, outer = vapply(ledger_entries(), `[[`, 0, "z"))
  })
  expect_identical(got$inner, 2L)
  expect_identical(got$outer, c(5, 6, 7))
})

test_that("check_releases() fails on a release the record does not show", {
  e <- function(z, sens, drawn = z, part = NULL)
    list(part = part, z = z, sensitivity = sens, drawn = drawn, entries = 1L)
  rec <- ledger_record(c("a", "b", "c"), c(10, 10, 4), c(2, 1, 1),
                       c(1, 0.01, NA))
  # two of a's, b's at its sensitivity, c's of any sensitivity
  expect_true(check_releases(rec, list(e(10, 1), e(10, 0.01), e(10, 0.5),
                                       e(4, 100))))
  # a multiplier no part has
  expect_error(check_releases(rec, list(e(9, 1))), "not in the privacy record")
  # more releases of a multiplier than its parts' steps
  expect_error(check_releases(rec, list(e(10, 1), e(10, 1), e(10, 0.01),
                                        e(10, 0.01))),
               "as often as it was made")
  # a sensitivity beyond every part of its multiplier
  expect_error(check_releases(rec, list(e(10, 2))), "not in the privacy record")
  # noise below the stated multiplier (an sd computed short)
  expect_error(check_releases(rec, list(e(10, 1, drawn = 9.9))),
               "not in the privacy record")
  # a stated-(epsilon, delta) part is found by its name
  dp <- ledger_record("optimizer", NA_real_, 2, NA_real_)
  expect_true(check_releases(dp, list(e(1, 3, part = "optimizer"),
                                      e(1, 5, part = "optimizer"),
                                      e(1, 5, part = "optimizer"))))
  expect_error(check_releases(dp, list(e(1, 3, part = "other"))),
               "not in the privacy record")
  # a record that is not private checks nothing
  expect_true(check_releases(list(private = FALSE), list(e(9, 1))))
})

test_that("a private fit's record shows each of its releases", {
  set.seed(3)
  n <- 2000
  x <- matrix(rnorm(n * 3), n)
  y <- x[, 1] + rnorm(n)
  got <- local({
    ledger_open(environment())
    fit <- dpsco(x, y, epsilon = 1, inference = TRUE)
    list(entries = ledger_entries(), record = fit$privacy)
  })
  sh <- got$record$shares
  zs <- vapply(got$entries, `[[`, 0, "z")
  # every part but the optimiser (its noise is drawn in C) released as
  # many times as its steps say, at its multiplier
  for (i in which(sh$part != "optimizer"))
    expect_equal(sum(abs(zs - sh$noise_multiplier[i]) <=
                       1e-9 * sh$noise_multiplier[i]),
                 sum(sh$steps[abs(sh$noise_multiplier -
                                    sh$noise_multiplier[i]) <=
                                1e-9 * sh$noise_multiplier[i]]),
                 info = sh$part[i])
  expect_true(check_releases(got$record, got$entries))
  # the same record without its meat part fails the check
  bad <- got$record
  bad$shares <- bad$shares[bad$shares$part != "inference_meat", ]
  expect_error(check_releases(bad, got$entries), "not in the privacy record")
})
