# R/sums.R: each sum of sum_table against a plain-R computation of it, on
# all records and on a subsample of them.

set.seed(11)
x <- cbind(a = rnorm(60) * 10^runif(60, -3, 3), b = c(0, rexp(59)))
y <- c(rnorm(58), -1e-40, 2^40)
rows <- sort(sample.int(60, 23)) - 1L

ref_bin <- function(v) {
  b <- ceiling(log2(v)) + 33
  b[!(v > 2^-32)] <- 1
  pmin(pmax(b, 1), 64)
}

test_that("the octave counts of x are the plain tabulation of log2 bins", {
  ref <- apply(abs(x), 2, function(v) tabulate(ref_bin(v), 64L))
  expect_equal(unname(data_sums(x, "octaves")), unname(ref))
  expect_equal(colnames(data_sums(x, "octaves")), c("a", "b"))
  sub <- apply(abs(x[rows + 1L, ]), 2, function(v) tabulate(ref_bin(v), 64L))
  expect_equal(unname(data_sums(x, "octaves", rows = rows)), unname(sub))
})

test_that("the signed octave counts put negatives below bin 64", {
  b <- ref_bin(abs(y))
  sb <- ifelse(y < 0 & b > 1, 65 - b, 63 + b)
  expect_equal(data_sums(y, "signed_octaves"), tabulate(sb, 127L))
  expect_equal(data_sums(y, "signed_octaves", rows = rows),
               tabulate(sb[rows + 1L], 127L))
  expect_equal(sum(data_sums(y, "signed_octaves")[1:63]), sum(y < -2^-32))
})

test_that("the centred clamped sums match pmin/pmax per column", {
  lo <- c(-1, 0)
  hi <- c(2, 0.5)
  ref <- c(sum(pmin(pmax(x[, 1], -1), 2) - 0.5),
           sum(pmin(pmax(x[, 2], 0), 0.5) - 0.25))
  expect_equal(unname(data_sums(x, "centre", list(lo = lo, hi = hi))), ref)
  # a vector is one column
  expect_equal(data_sums(y, "centre", list(lo = -3, hi = 3)),
               sum(pmin(pmax(y, -3), 3)))
})

test_that("class counts, y's histogram and exposure counts", {
  cls <- c(0L, 2L, 2L, 1L, 2L, 0L)
  expect_equal(data_sums(cls, "classes", list(K = 4L)), c(2, 1, 3, 0))
  B <- 2
  # (bins of width 0.5 from -2; y at 2 or beyond in the top bin)
  ref <- tabulate(pmin(floor((pmin(pmax(y, -B), B) + B) / 0.5) + 1, 8), 8)
  expect_equal(data_sums(y, "y_hist", list(bound = B, nbins = 8L)), ref)
  off <- c(-800, -1, 0, 0.5, 3, 900)
  expect_equal(data_sums(off, "exposure"),
               tabulate(ref_bin(exp(pmin(pmax(off, -700), 700))), 64L))
  expect_equal(data_sums(off, "exposure", rows = c(1L, 4L)),
               tabulate(ref_bin(exp(off[c(2, 5)])), 64L))
})

test_that("row statistics and the gram match rowSums and crossprod", {
  rs <- data_sums(x, "row_stats", list(intercept = TRUE, residual = NULL,
                                       coordinate = FALSE, row_hist = TRUE))
  nrm <- sqrt(1 + rowSums(x^2))
  expect_equal(rs$norm, nrm)
  expect_equal(rs$ss, rowSums(x^2))
  expect_equal(drop(rs$counts), tabulate(ref_bin(nrm), 64L))
  w <- runif(60)
  expect_equal(data_sums(x, "gram", list(w = w, intercept = TRUE)),
               crossprod(cbind(1, x) * w), ignore_attr = TRUE)
  wr <- w[rows + 1L]
  expect_equal(data_sums(x, "gram", list(w = wr, intercept = FALSE), rows),
               crossprod(x[rows + 1L, ] * wr), ignore_attr = TRUE)
})

test_that("the validation sums are the clamped losses of the coins' records", {
  fit <- dpsco(x, y, epsilon = 1, nlambda = 3)
  val <- seq_len(60) %% 3 == 0
  s <- data_sums(list(x = x, y = y, weights = NULL, offset = NULL), "cv_loss",
                 list(fit = fit, val = val, measure = "mse", tau = 0.5,
                      family = "gaussian", bound = 4, y_range = NULL))
  pred <- predict(fit, x[val, ])
  expect_equal(s, unname(colSums(pmin((y[val] - pred)^2, 4))),
               ignore_attr = TRUE)
  none <- data_sums(list(x = x, y = y), "cv_loss",
                    list(fit = fit, val = rep(FALSE, 60), measure = "mse",
                         tau = 0.5, family = "gaussian", bound = 4))
  expect_equal(none, rep(0, length(fit$lambda)))
})

test_that("an unknown sum is an internal error", {
  expect_error(data_sums(x, "nothing"), "no sum nothing")
})
