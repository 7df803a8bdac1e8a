# The private ranges (R/settings-ranges.R) against plain-R computations
# written from their description: the log2 bins and the histogram quantile,
# the octave bounds on |x_j| and the range of y, and their release.

# ---- log2 bins and histogram quantiles --------------------------------------

test_that("log2_bin() puts (2^(b - 34), 2^(b - 33)] in bin b, with the ends clamped", {
  # upper edges are inclusive: 2^k is in bin k + 33, just above it in k + 34
  for (k in c(-31, -10, -1, 0, 1, 5, 30)) {
    expect_identical(log2_bin(2^k), k + 33, label = paste("2^", k))
    expect_identical(log2_bin(2^k * (1 + 1e-12)), k + 34,
                     label = paste("just above 2^", k))
  }
  expect_identical(log2_bin(c(1, 1.5, 2, 3)), c(33, 34, 34, 35))
  # bin 1: zero and everything up to 2^-32
  expect_identical(log2_bin(c(0, 1e-300, 2^-40, 2^-32)), rep(1, 4))
  expect_identical(log2_bin(2^-32 * (1 + 1e-12)), 2)
  # bin 64: (2^30, 2^31] and everything above, Inf included
  expect_identical(log2_bin(c(2^30 * 1.5, 2^31, 2^31 * 3, 1e300, Inf)),
                   rep(64, 5))
  # a plain-R definition on random magnitudes: the smallest b whose upper
  # edge 2^(b - 33) is at least v
  set.seed(1)
  v <- exp(stats::rnorm(2000, 0, 8))
  ref <- vapply(v, function(vi) {
    if (vi <= 2^-32) return(1)
    min(which(2^((1:64) - 33) >= vi), 64)
  }, 0)
  expect_identical(log2_bin(v), ref)
})

test_that("hist_quantile() without noise is the power-of-two quantile edge", {
  set.seed(2)
  for (tau in c(0.01, 0.1, 0.5)) {
    for (v in list(exp(stats::rnorm(3000, 1, 2)), stats::rexp(500) * 100,
                   abs(stats::rt(1000, df = 2)))) {
      counts <- tabulate(log2_bin(v), 64L)
      q <- hist_quantile(counts, tau, length(v), 0)
      expect_identical(q, quantile_edge_ref(v, tau))
      # it brackets the empirical (1 - tau) quantile within a factor 2
      emp <- sort(v)[ceiling((1 - tau) * length(v))]
      expect_gte(q, emp)
      expect_lt(q / 2, emp)
    }
  }
  # constant values: the edge is the value itself when it is a power of two
  expect_identical(hist_quantile(tabulate(log2_bin(rep(4, 10)), 64L),
                                         0.1, 10, 0), 4)
})

test_that("hist_quantile(within = TRUE) places the level inside its octave", {
  set.seed(2)
  for (tau in c(0.005, 0.05, 0.3)) {
    for (v in list(exp(stats::rnorm(3000, 1, 2)), stats::rexp(500) * 100)) {
      counts <- tabulate(log2_bin(v), 64L)
      q <- hist_quantile(counts, tau, length(v), 0, within = TRUE)
      expect_equal(q, quantile_within_ref(v, tau), tolerance = 1e-14)
      # within the octave of the edge, and nearer the empirical quantile
      edge <- quantile_edge_ref(v, tau)
      expect_true(q > edge / 2 && q <= edge)
      emp <- sort(v)[ceiling((1 - tau) * length(v))]
      expect_lte(abs(log2(q / emp)), abs(log2(edge / emp)) + 1e-12)
    }
  }
  # a hand example: 90 values in (1, 2], 10 in (2, 4]; tau n = 15 lies
  # 5 values into (1, 2]: 2 / 2^(5 / 90)
  counts <- numeric(64)
  counts[34] <- 90
  counts[35] <- 10
  expect_identical(hist_quantile(counts, 0.15, 100, 0), 2)
  expect_equal(hist_quantile(counts, 0.15, 100, 0, within = TRUE),
               2 / 2^(5 / 90), tolerance = 1e-15)
})

test_that("hist_quantile() with noise drops the counts below the noise level", {
  sd <- 3
  thr <- sd * stats::qnorm(1e-4 / 64, lower.tail = FALSE)
  counts <- numeric(64)
  counts[30] <- 500                     # the bulk, at edge 2^-3
  counts[35] <- 40                      # a real tail, at edge 2^2
  counts[60] <- thr * 0.99              # noise just below the level
  # the bulk plus tail: 40 of 540 values above 2^-3, none above 2^2
  expect_identical(hist_quantile(counts, 0.05, 540, sd), 2^-3 * 2^5)
  expect_identical(hist_quantile(counts, 0.1, 540, sd), 2^-3)
  # the same count above the level is kept and moves the 0.99 quantile out
  counts[60] <- thr * 1.01
  expect_identical(hist_quantile(counts, 0.01, 540, sd), 2^(60 - 33))
  # nothing clears the level: the fullest noisy bin stands in
  low <- c(rep(0, 20), thr / 2, rep(0, 43))
  expect_identical(hist_quantile(low, 0.1, 10, sd), 2^(21 - 33))
})

# ---- octave histograms: the bounds on |x_j| and the range of y -------------

bounds_data <- function(n = 400) {
  set.seed(31)
  v <- cbind(lognormal = 2^stats::rnorm(n, 3, 1.5),
             sparse = ifelse(stats::runif(n) < 0.7, 0, stats::rt(n, df = 2)),
             zero = 0,
             huge = 1e12 * (1 + stats::runif(n)),      # above 2^30: bin 64
             tiny = 1e-15 * stats::runif(n),           # below 2^-32: bin 1
             wide = 2^stats::rnorm(n, 0, 20))
  v[1:3, "wide"] <- -v[1:3, "wide"]
  v
}

test_that("design_octaves() and signed_octave_counts() count the octave bins", {
  v <- bounds_data()
  ref <- apply(v, 2, octave_counts_ref)
  expect_equal(unname(design_octaves(v)), unname(ref))
  expect_identical(colnames(design_octaves(v)), colnames(v))
  expect_equal(colSums(ref), rep(400, 6), ignore_attr = TRUE)
  # closed forms: the zero and tiny columns in bin 1, the huge one in 64
  expect_identical(unname(design_octaves(v)[c(1, 64), 3:5]),
                   matrix(c(400L, 0L, 0L, 400L, 400L, 0L), 2))
  y <- c(0, 1e-40, -3, -3.5, 4, 0.75, 1, -1, 2^40, -2^40, stats::rnorm(50))
  got <- signed_octave_counts(y)
  expect_equal(got, signed_counts_ref(y))
  expect_identical(sum(got), length(y))
  # -3 and -3.5 in (-4, -2]: octave 35 of the negative side, bin 65 - 35;
  # 4 in (2, 4]: bin 63 + 35; 0.75 and 1 in (1/2, 1]: bin 63 + 33; both
  # zeros in bin 64; +-2^40 in the open end bins 127 and 1
  small <- signed_octave_counts(y[1:10])
  expect_identical(which(small > 0), c(1L, 30L, 32L, 64L, 96L, 98L, 127L))
  expect_identical(small[c(1, 30, 32, 64, 96, 98, 127)], c(1L, 2L, 1L, 2L, 2L, 1L, 1L))
})

test_that("octave_bound() keeps the counts above k sd and reads the tau level of the run", {
  # a hand example: 300 values in (1, 2], 200 in (2, 4], 5 in (4, 8]
  # (1% of 505 is 5.05: not above), a lone count far above
  noisy <- numeric(64)
  noisy[34] <- 300
  noisy[35] <- 200
  noisy[36] <- 5
  noisy[60] <- 80
  # sd 10: 5 is dropped, 80 is kept but 24 bins above the run: noise
  expect_identical(octave_bound(noisy, 10), 2 * 4)
  # sd 1: the 5 in (4, 8] is kept, but 5 + (80 dropped) is not above 1%
  expect_identical(octave_bound(noisy, 1), 2 * 4)
  noisy[36] <- 10                       # 10 of 510 is above 1%
  expect_identical(octave_bound(noisy, 1), 2 * 8)
  # a gap of one bin joins the run: the count at 38 is read
  noisy[37] <- 0
  noisy[38] <- 30
  expect_identical(octave_bound(noisy, 1), 2 * 2^(38 - 33))
  # two empty bins end the run, but the window 38..39 of the tail rule
  # reads 30 at 39 when it clears 3.88 sds of the window (sd 1, not 10)
  noisy[38] <- 0
  noisy[39] <- 30
  expect_identical(octave_bound(noisy, 1), 2 * 2^(39 - 33))
  expect_identical(octave_bound(noisy, 10), 2 * 4)
  # the zero bin is never read; nothing kept: 1; the open top capped
  expect_identical(octave_bound(c(1e6, rep(0, 63)), 1), 1)
  expect_identical(octave_bound(c(0, rep(20, 63)), 10), 1)
  expect_identical(octave_bound(c(rep(0, 63), 50), 1), 2^32)
  # the rule's parameters
  expect_identical(octave_bound(noisy, 1, list(k = 3, tau = 0.01, f = 1.5)), 1.5 * 2^(39 - 33))
  # against the plain-R reference on noisy counts of real columns
  v <- bounds_data()
  set.seed(4)
  for (sd in c(0, 2, 10, 40)) {
    noisy <- apply(v, 2, octave_counts_ref) + sd * matrix(stats::rnorm(64 * 6), 64)
    got <- vapply(1:6, function(j) octave_bound(noisy[, j], sd), 0)
    want <- vapply(1:6, function(j) octave_bound_ref(noisy[, j], sd), 0)
    expect_identical(got, want, label = paste("sd", sd))
  }
  # a tail thinner than k sd in each bin but clear in a window of four:
  # 20 in each of bins 36..43 at sd 10 (a window of 4 sums to 80, above
  # 3.88 sds of 2 x 10); without the window the bound would be 2 * 4
  tail <- numeric(64)
  tail[34] <- 1000
  tail[35] <- 900
  tail[36:43] <- 20
  expect_identical(octave_bound(tail, 10), 2 * 2^(42 - 33))
  expect_identical(octave_bound_ref(tail, 10), 2 * 2^(42 - 33))
  tail[36:43] <- 10                     # a window of 4 sums to 40: noise
  expect_identical(octave_bound(tail, 10), 2 * 4)
  # without noise: f times the upper edge of the octave of the 99th
  # percentile of the non-zero |x_j| (zero column: 1; huge: capped)
  cnt <- apply(v, 2, octave_counts_ref)
  got <- vapply(1:6, function(j) octave_bound(cnt[, j], 0), 0)
  for (j in c(1, 2, 6)) {
    a <- sort(abs(v[abs(v[, j]) > 2^-32, j]))
    N <- length(a)
    q <- a[ceiling(N + 1 - 0.01 * N) - 1]  # at most 1% of N above it
    expect_identical(got[j], min(2 * 2^min(ceiling(log2(q)), 31), 2^32),
                     label = colnames(v)[j])
  }
  expect_identical(got[3:5], c(1, 2^32, 1))
})

test_that("the factor of the bounds on x grows with the room the noise leaves", {
  # room = log10(n / (1000 z1)) within [0, 1]; no noise: all of it
  room <- room_ref
  for (nz in list(c(600, 3), c(3000, 3), c(10^3.5 * 2, 2), c(29342, 3.97),
                  c(1e6, 4), c(50, 0))) {
    want <- if (nz[2] == 0) 1 else room(nz[1], nz[2])
    expect_equal(noise_room(nz[1], nz[2]), want, tolerance = 1e-15)
    expect_equal(x_octave_factor(nz[1], nz[2]), 2 * 4^want,
                 tolerance = 1e-15)
  }
  expect_equal(x_octave_factor(10^3.5 * 2, 2), 4, tolerance = 1e-15)
  # the factor reaches the released bounds: f_x times the 99th
  # percentile's octave edge, against f = 2 from the rule alone
  cnt <- octave_counts_ref(c(rep(0, 50), 1:1000 / 100))
  expect_identical(octave_bound(cnt, 0, c(octave_rule, f_x = 4)),
                   4 * 16)
  expect_identical(octave_bound_ref(cnt, 0, f = 4), 4 * 16)
  expect_identical(octave_bound(cnt, 0), 2 * 16)
})

test_that("the factor of a column's bound follows the spread of its released octaves", {
  # the factor rises from 2 at a spread of one octave (median octave to
  # the 1% level) to 2 * 4^room at four, linearly in the exponent
  room <- room_ref(1e6, 4)
  for (spread in c(-1, 0, 1, 2, 3, 4, 7))
    expect_equal(x_octave_factor(1e6, 4, spread),
                 2 * 4^(room * min(max((spread - 1) / 3, 0), 1)),
                 tolerance = 1e-15, label = paste("spread", spread))
  full <- c(octave_rule, room_n = 1e7, room_z1 = 1)  # all the room
  # a 0/1 indicator (one-hot column): every non-zero in (0.5, 1], median
  # and 1% level in the same octave: f = 2, not 8
  cnt <- octave_counts_ref(c(rep(0, 900), rep(1, 100)))
  expect_identical(octave_bound(cnt, 0, full), 2 * 1)
  expect_identical(octave_bound(cnt, 0), 2 * 1)
  # counts spread over ten octaves: median 2^4 = 16 in (8, 16], 1% level
  # in (256, 512]: spread 5, the full factor 8
  v <- 2^rep(0:9, times = c(50, 60, 70, 80, 100, 80, 60, 40, 20, 10)) * 0.75
  cnt <- octave_counts_ref(v)
  med <- sort(v)[ceiling(length(v) / 2)]
  expect_identical(ceiling(log2(med)), 4)
  expect_identical(octave_bound(cnt, 0, full), 8 * 512)
  # two octaves between them: 2 * 4^(1 / 3)
  w <- c(rep(3, 500), rep(12, 20))
  expect_equal(octave_bound(octave_counts_ref(w), 0, full),
               2 * 4^(1 / 3) * 16, tolerance = 1e-15)
})

test_that("window_octave_range() reads y from windows of octaves when no octave clears the noise", {
  # 20 records in each of the five octaves (2, 4] .. (32, 64] of a
  # positive y, noise sd 6: one octave needs 6 qnorm(0.01 / 126) = 22.7,
  # a pair 12 qnorm(0.01 / 186) = 42.8 (the pairs hold 40), a window of
  # four 6 sqrt(8) qnorm(0.01 / 180) = 60.4 (the windows hold 80)
  y <- 2^rep(1:5, each = 20) * 1.5
  cnt <- as.double(signed_counts_ref(y))
  expect_identical(sum(cnt[65:127] > 0), 5L)
  sd <- 6
  expect_lt(max(cnt), sd * qnorm(0.01 / 126, lower.tail = FALSE))
  expect_lt(40, 2 * sd * qnorm(0.01 / (3 * 62), lower.tail = FALSE))
  expect_gt(80, sd * sqrt(8) * qnorm(0.01 / (3 * 60), lower.tail = FALSE))
  # the upper of the two fullest windows, (4, 64]: f = 2 times 64; the
  # negative side holds nothing, so lo = 0
  expect_identical(window_octave_range(cnt, sd), c(0, 128))
  expect_identical(signed_octave_range(cnt, sd, n = 100), c(0, 128))
  # both signs, each side's window sum clearing 3 sds: both ends
  cnt2 <- cnt + rev(cnt)
  expect_identical(window_octave_range(cnt2, sd), c(-128, 128))
  # f = 1: the upper edge itself
  expect_identical(window_octave_range(cnt, sd, list(k = 3, f = 1)), c(0, 64))
  # a public n below 3 noise sds of a pair: nothing can clear, unresolved
  expect_null(window_octave_range(cnt, sd, n = 30))
  expect_identical(signed_octave_range(cnt, sd, n = 30),
                   structure(c(-1, 1), unresolved = TRUE))
  # pure noise: no window clears in 200 draws of 10 (1% each at most)
  set.seed(2)
  hits <- sum(vapply(1:200, function(i)
    !is.null(window_octave_range(stats::rnorm(127, 0, sd), sd)), TRUE))
  expect_lte(hits, 8)
})

test_that("signed_octave_range() reads both ends of y from the signed counts", {
  # y in [5, 50] (medv-like): lo the lower edge of the octave at the 1%
  # level from below, hi f times the upper edge at the 1% level from above
  set.seed(6)
  y <- c(5, 5.5, 6, 7, stats::runif(300, 8, 50))
  cnt <- signed_counts_ref(y)
  # (the range holds 0: c(0, 128), not c(4, 128))
  expect_identical(signed_octave_range(cnt, 0), c(0, 128))
  # signed y: both ends times f
  y2 <- c(stats::rnorm(500, 0, 3))
  r2 <- signed_octave_range(signed_counts_ref(y2), 0)
  expect_identical(r2, signed_range_ref(signed_counts_ref(y2), 0))
  q <- sort(y2)[c(6, 495)]
  expect_identical(r2, c(-2 * 2^ceiling(log2(-q[1])), 2 * 2^ceiling(log2(q[2]))))
  # counts with many zeros: lo 0
  y3 <- c(rep(0, 200), stats::rpois(300, 4))
  expect_identical(signed_octave_range(signed_counts_ref(y3), 0)[1], 0)
  # negative y: hi the edge nearer 0 of its octave
  expect_identical(signed_octave_range(signed_counts_ref(-y), 0), c(-128, 0))
  # nothing kept: c(-1, 1), marked as not told apart from the noise
  expect_identical(signed_octave_range(signed_counts_ref(y), 1e4),
                   structure(c(-1, 1), unresolved = TRUE))
  expect_null(attr(signed_octave_range(signed_counts_ref(y), 0),
                   "unresolved"))
  # with noise, against the reference (a kept bin above the run of the
  # octaves of |y| is dropped on either side)
  set.seed(7)
  for (sd in c(1, 5, 20)) for (yy in list(y, y2, y3)) {
    noisy <- signed_counts_ref(yy) + sd * stats::rnorm(127)
    noisy[c(3, 125)] <- noisy[c(3, 125)] + c(50, 0) * (sd == 5)
    expect_identical(signed_octave_range(noisy, sd),
                     signed_range_ref(noisy, sd), label = paste("sd", sd))
  }
})

test_that("octave_release() is one Gaussian release of the weighted counts", {
  v <- bounds_data(200)
  cx <- design_octaves(v)
  cy <- signed_octave_counts(v[, 1] - 10)
  w <- c(rep(1, 6), sqrt(6))
  z <- 3
  S <- sqrt(sum(w^2))
  set.seed(5)
  r <- octave_release(cx, cy, z, w)
  set.seed(5)
  e <- stats::rnorm(64 * 6 + 127)
  sd <- z * S / w
  expect_equal(r$sd, sd, tolerance = 1e-15)
  expect_equal(r$sensitivity, sqrt(12), tolerance = 1e-15)
  expect_equal(unname(r$x), unname(cx) + rep(sd[1:6], each = 64) * matrix(e[1:384], 64),
               tolerance = 1e-13)
  expect_equal(r$y, cy + sd[7] * e[385:511], tolerance = 1e-13)
  # a record added moves the weighted counts (counts times w_j) by exactly
  # sqrt(sum w^2) in L2, whatever its values, whatever n
  for (rec in list(rep(0, 6), c(1, -1e12, 0, 2^-40, 5, 3))) {
    v1 <- rbind(v, rec)
    move <- c(as.double(design_octaves(v1) - cx) * rep(w[1:6], each = 64),
              (signed_octave_counts(v1[, 1] - 10) - cy) * w[7])
    expect_equal(sqrt(sum(move^2)), S, tolerance = 1e-14)
  }
  # without y, without noise
  r0 <- octave_release(cx, NULL, 0, rep(1, 6))
  expect_identical(unname(r0$x), unname(cx) + 0)
  expect_null(r0$y)
  expect_error(octave_release(cx, NULL, 1, rep(1, 5)), "one weight")
})
