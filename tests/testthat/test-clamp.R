test_that("clamp() maps every non-finite value to a fixed value in range", {
  v <- c(-Inf, -5, 0.3, 7, Inf, NaN, NA)
  expect_identical(clamp(v, -1, 2), c(-1, -1, 0.3, 2, 2, -1, -1))
  expect_identical(clamp(v, -1, 2, nan = 2), c(-1, -1, 0.3, 2, 2, 2, 2))
  # pmin(pmax()) alone keeps the NaN: the case the rule is for
  expect_true(is.nan(pmin(pmax(NaN, -1), 2)))
  # bounds and the NaN value recycle against v, whose dim is kept
  m <- matrix(c(NaN, 5, -5, NaN), 2)
  lo <- rep(c(0, -3), each = 2)
  hi <- rep(c(1, 3), each = 2)
  out <- clamp(m, lo, hi, nan = lo)
  expect_identical(out, matrix(c(0, 1, -3, -3), 2))
  expect_identical(clamp(numeric(), 0, 1), numeric())
})

test_that("a poisson count net of an extreme offset stays a number", {
  f <- family_poisson()
  # 0.10.0: 0 * exp(800) = NaN
  expect_identical(f$net_offset(c(0, 0, 3, 3, 1e308), c(-800, 800, 0, 800, -800)),
                   c(0, 0, 3, 0, .Machine$double.xmax))
  expect_equal(f$net_offset(c(2, 5), c(log(2), -1)), c(1, 5 * exp(1)))
})
