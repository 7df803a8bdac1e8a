# The private settings of tuning = "private" (R/settings.R), each checked
# against a plain-R computation written from its description: the log2
# bins and the histogram quantile, the octave bounds on |x_j| and the
# range of y, the
# curvature release and its positive-definite repair, the budget shares
# and their composition, and the noise-free Newton path against glmnet on
# the transformed design.

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

# plain-R quantile edge: the smallest power of two 2^k (k = -32 .. 31) with
# at most tau * n values above it
quantile_edge_ref <- function(v, tau) {
  ks <- -32:31
  above <- vapply(ks, function(k) sum(v > 2^k), 0)
  2^ks[which(above <= tau * length(v))[1L]]
}

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

# Plain R from the description in R/settings.R.  Counts: bin 1 holds
# |v| <= 2^-32, bin b holds (2^(b - 34), 2^(b - 33)], bin 64 everything
# above 2^30.  A noisy count below k sd (or not above 0) is dropped, bin 1
# always; the run of kept bins goes up from the fullest while one of the
# next two bins is kept; B is f times the upper edge 2^(b - 33) of the
# highest bin b whose kept counts at or above it exceed tau times all
# kept counts, at most 2^32; nothing kept: 1.
octave_counts_ref <- function(v) {
  a <- abs(v)
  up <- 2^((1:64) - 33)
  vapply(1:64, function(b) {
    lo <- if (b == 1) -Inf else up[b - 1]
    hi <- if (b == 64) Inf else up[b]
    sum(a > lo & a <= hi)
  }, 0)
}
run_ref <- function(kept) {
  # scan out from the first fullest bin, each way, until two empty bins
  # in a row
  m <- which(kept == max(kept))[1]
  ends <- m
  for (dir in c(-1, 1)) {
    end <- m
    b <- m + dir
    while (b >= 1 && b <= length(kept) && abs(b - end) <= 2) {
      if (kept[b] > 0) end <- b
      b <- b + dir
    }
    ends <- c(ends, end)
  }
  ends[2:3]
}
octave_bound_ref <- function(noisy, sd, k = 3, tau = 0.01, f = 2) {
  kept <- noisy * (noisy > 0 & noisy >= k * sd)
  kept[1] <- 0
  # the fullest must clear the 1% level of the largest of 63 noise counts
  if (all(kept == 0) || max(kept) < sd * stats::qnorm(1 - 0.01 / 63)) return(1)
  r <- run_ref(kept)
  # a thin tail: windows of 2, 4 or 8 bins from one or two above the top
  # whose noisy sum clears the 1% level of the largest of 3 x 64 window
  # noises lift the top to their last bin above 0, until none does
  level <- stats::qnorm(1 - 0.01 / 192)
  top <- r[2]
  repeat {
    ends <- c()
    for (s in top + 1:2) for (m in c(2, 4, 8)) {
      if (s > 64) next
      w <- s:min(s + m - 1, 64)
      if (sum(noisy[w]) >= level * sd * sqrt(length(w)) && any(noisy[w] > 0))
        ends <- c(ends, max(w[noisy[w] > 0]))
    }
    if (length(ends) == 0 || max(ends) <= top) break
    top <- max(ends)
  }
  used <- ifelse(seq_along(noisy) <= r[2], kept, pmax(noisy, 0))
  used[seq_along(used) < r[1] | seq_along(used) > top] <- 0
  b <- max(which(vapply(1:64, function(b) sum(used[b:64]), 0) > tau * sum(used)))
  min(f * 2^(b - 33), 2^32)
}
# y: the signed bins, most negative first (bin i <-> -(octave 65 - i)),
# 64 the zero bin, 64 + b - 1 the positive octave b; the run is on the
# octaves of |y| (both signs' kept counts added) and drops the bins above
# its top; hi from the top of the signed axis, lo from the bottom, each at
# tau times all kept counts (zero bin included).
signed_counts_ref <- function(v) {
  pos <- octave_counts_ref(v[v > 2^-32])
  neg <- octave_counts_ref(v[v < -2^-32])
  c(rev(neg[-1]), sum(abs(v) <= 2^-32), pos[-1])
}
signed_range_ref <- function(noisy, sd, k = 3, tau = 0.01, f = 2) {
  kept <- noisy * (noisy > 0 & noisy >= k * sd)
  oct <- c(64:2, 1, 2:64)
  mag <- vapply(1:64, function(o) if (o == 1) 0 else sum(kept[oct == o]), 0)
  if (all(mag == 0) || max(kept[-64]) < sd * stats::qnorm(1 - 0.01 / 126))
    return(c(-1, 1))
  r <- run_ref(mag)
  kept[oct != 1 & (oct < r[1] | oct > r[2])] <- 0
  lev <- tau * sum(kept)
  hi <- max(which(vapply(1:127, function(i) sum(kept[i:127]), 0) > lev))
  lo <- min(which(vapply(1:127, function(i) sum(kept[1:i]), 0) > lev))
  # signed edges of bin i: octave o = oct[i], magnitudes (2^(o - 34), 2^(o - 33)]
  edge_hi <- if (hi > 64) f * 2^(oct[hi] - 33) else if (hi == 64) 0 else -2^(oct[hi] - 34)
  edge_lo <- if (lo < 64) -f * 2^(oct[lo] - 33) else if (lo == 64) 0 else 2^(oct[lo] - 34)
  # the range holds 0
  c(min(max(edge_lo, -2^32), 0), max(min(edge_hi, 2^32), 0))
}

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

test_that("part_multiplier() splits one release's budget in units of mu^2", {
  z1 <- 1.3
  expect_equal(part_multiplier(z1, 0.25), z1 * 2, tolerance = 1e-15)
  expect_equal(part_multiplier(z1, 0.05, 2), z1 * sqrt(40), tolerance = 1e-15)
  expect_identical(part_multiplier(0, 0.2), 0)
  # k releases at multiplier z spend k / z^2 = share / z1^2
  z <- part_multiplier(z1, 0.05, 2)
  expect_equal(2 / z^2, 0.05 / z1^2, tolerance = 1e-14)
})

# ---- the settings of a fit -----------------------------------------------------

settings_data <- function(n = 1500, p = 4, seed = 12) {
  set.seed(seed)
  x <- matrix(exp(stats::rnorm(n * p)), n, p)
  x[sample(n, n / 4), 2] <- 0
  y <- drop(x %*% c(1, -1, 0, 0.5)) + stats::rt(n, df = 3)
  yb <- stats::rbinom(n, 1, stats::plogis(x[, 1] - 1))
  list(x = x, y = y, yb = yb, n = n, p = p)
}

test_that("a noise-free private fit (method none) releases the plain-R settings", {
  d <- settings_data()
  fit <- dpsco(d$x, d$y, method = "none", iterations = 2)
  rel <- privacy(fit)$released
  # bounds on |x_j| and the range of y from the exact octave counts (y
  # weighted by sqrt(p), which without noise changes nothing)
  B <- apply(d$x, 2, function(v) octave_bound_ref(octave_counts_ref(v), 0, f = 8))
  yr <- signed_range_ref(signed_counts_ref(d$y), 0)
  # by hand: without noise (z1 = 0) all the room: eight times the upper
  # edge of the octave of the 99th percentile
  q <- apply(d$x, 2, function(v) {
    a <- sort(abs(v[v != 0]))
    a[ceiling(length(a) * 0.99) - 1]
  })
  expect_equal(B, 8 * 2^ceiling(log2(q)))
  expect_equal(rel$x_bound, B, tolerance = 1e-15)
  expect_equal(rel$y_range, yr, tolerance = 1e-15)
  expect_equal(rel$y_bound, max(abs(yr)), tolerance = 1e-15)
  expect_equal(fit$standardize$scale, B, tolerance = 1e-12)
  expect_equal(fit$x_range, rbind(-B, B), tolerance = 1e-12, ignore_attr = TRUE)
  # the centre: the mean of y clamped to [lo, hi]
  expect_equal(rel$centre, mean(pmin(pmax(d$y, yr[1]), yr[2])), tolerance = 1e-12)
  # the row bound: the 0.9 quantile edge of ||(1, x / B)||, capped at sqrt(d)
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  wn <- sqrt(1 + rowSums(xt^2))
  expect_identical(rel$row_bound, min(quantile_edge_ref(wn, 0.1), sqrt(5)))
  # no clipping level for method none
  expect_null(rel$clip)
  # binomial: no bound on y, the centre is the event rate
  fb <- dpsco(d$x, d$yb, family = "binomial", method = "none", iterations = 2)
  rb <- privacy(fb)$released
  expect_null(rb$y_bound)
  expect_null(rb$y_range)
  expect_equal(rb$centre, mean(d$yb), tolerance = 1e-12)
})

test_that("the private clipping level is the 0.995 quantile edge of |r_i| ||(1, x_i)|| at the start", {
  # at a huge epsilon the releases are exact up to ~1e-6 relative noise,
  # far below the factor-2 bins, and the noise leaves all the room: the
  # level is twice the edge
  d <- settings_data()
  set.seed(3)
  fit <- dpsco(d$x, d$y, method = "clip", epsilon = 1e7, iterations = 2)
  rel <- privacy(fit)$released
  B <- rel$x_bound
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  wn <- sqrt(1 + rowSums(xt^2))
  r0 <- rel$centre - d$y
  expect_identical(rel$clip, 2 * quantile_edge_ref(abs(r0) * wn, 0.005))
  expect_identical(fit$settings$clip, rel$clip)
  # the equal-noise rule: holland and kamath clip each record's gradient
  # first (holland at C, truncating at C too; kamath at C over the
  # median's factor, clamping there), which gives clip's sensitivity
  for (m in c("holland", "kamath")) {
    set.seed(3)
    f <- dpsco(d$x, d$y, method = m, epsilon = 1e7, iterations = 2)
    st <- f$settings
    dd <- d$p + 1
    C <- privacy(f)$released$clip
    expect_identical(C, rel$clip)
    if (m == "holland") {
      expect_equal(st$clip, C)
      expect_equal(2 * sqrt(2) * st$s / 3, C, tolerance = 1e-15)
      sens <- min(st$clip, 2 * sqrt(2) * st$s * sqrt(dd) / 3) / d$n
    } else {
      f_k <- median_factor_ref(st$k)
      expect_equal(st$clip, C / (st$k * f_k), tolerance = 1e-15)
      expect_equal(st$rho / 2, st$clip, tolerance = 1e-15)
      sens <- min(st$clip, st$rho * sqrt(dd) / 2) * st$k * f_k / d$n
    }
    expect_equal(sens, C / d$n, tolerance = 1e-12, label = m)
    expect_equal(privacy(f)$sensitivity, C / d$n, tolerance = 1e-12)
  }
})

test_that("tune_private() is the composition of the releases test-audit.R audits", {
  # replayed from the same seed, in order: the scale (y weighted by
  # sqrt(p)), the centre, the two histograms and the curvature, each with
  # the multiplier of its share; everything else is post-processing.  Every
  # divisor and noise scale is the public n, here the rows (600) or not.
  d <- settings_data(n = 600)
  p <- d$p
  z1 <- 3
  ctl <- dpsco_control()
  for (n in c(d$n, 750, 480)) {
    set.seed(17)
    tn <- tune_private(d$x, d$y, "gaussian", "clip", "newton", TRUE, z1,
                               NULL, ctl, n = n)
    set.seed(17)
    pm <- function(share, k = 1) z1 * sqrt(k / share)
    # (no room at z1 = 3 and these n: the range of y comes first, the
    # scale share up to 0.35 and y weighted by sqrt(3 p))
    expect_true(y_first_ref(n, z1))
    s_scale <- scale_share_ref(z1, p, n, 0.35)
    s_centre <- centre_share_ref(z1, n, p)
    # one release of the octave counts of x's columns and of y's signed
    # octaves, y weighted by sqrt(3 p), noise in that order
    wt <- c(rep(1, p), sqrt(3 * p))
    sdv <- pm(s_scale) * sqrt(4 * p) / wt
    noisy <- c(apply(d$x, 2, octave_counts_ref), signed_counts_ref(d$y)) +
      rep(sdv, c(rep(64, p), 127)) * stats::rnorm(64 * p + 127)
    B <- vapply(1:p, function(j) octave_bound_ref(noisy[64 * (j - 1) + 1:64], sdv[j]), 0)
    yr <- signed_range_ref(noisy[64 * p + 1:127], sdv[p + 1])
    # the centre's clamp: the same octaves with the factor 2^room
    yc <- signed_range_ref(noisy[64 * p + 1:127], sdv[p + 1], f = 2^room_ref(n, z1))
    xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
    centre <- dp_mean_release(matrix(d$y), matrix(yc, 2L),
                                      pm(s_centre), n)$estimate
    centre <- min(max(centre, yc[1]), yc[2])
    wn <- sqrt(1 + rowSums(xt^2))
    rc <- release_counts(cbind(abs(centre - d$y) * wn, wn), pm(0.02))
    clip <- hist_quantile(rc$counts[, 1], 0.01, n, rc$sd)
    row <- min(hist_quantile(rc$counts[, 2], 0.1, n, rc$sd), sqrt(p + 1))
    rh <- release_curvature(cbind(1, xt), pm(0.2), row, n)
    A <- curvature_matrix(rh$h, rh$sd, 1, 1)$A
    info <- paste("public n", n)
    expect_equal(unname(tn$bound), B, tolerance = 1e-14, label = info)
    expect_identical(tn$y_range, yr)
    expect_identical(tn$y_bound, max(abs(yr)))
    expect_equal(tn$x, xt, ignore_attr = TRUE, tolerance = 1e-14)
    expect_equal(tn$beta0, c(centre, rep(0, p)), tolerance = 1e-14, label = info)
    expect_identical(tn$clip, clip)
    expect_identical(tn$row_bound, row)
    expect_equal(tn$curvature, A, tolerance = 1e-12, label = info)
    # the parts' multipliers and sensitivities are those of the releases
    sh <- vapply(tn$parts, `[[`, 0, "noise_multiplier")
    expect_equal(sh, c(pm(s_scale), pm(s_centre), pm(0.02), pm(0.2)),
                 tolerance = 1e-14)
    sens <- vapply(tn$parts, `[[`, 0, "sensitivity")
    expect_equal(sens, c(sqrt(4 * p), (yc[2] - yc[1]) / 2 / n, sqrt(2), row^2 / n),
                 tolerance = 1e-14, label = info)
    expect_equal(rc$sd, pm(0.02) * sqrt(2), tolerance = 1e-15)
  }
})

test_that("dpsco_control() defaults leave every data-dependent setting to the private tuning", {
  ctl <- dpsco_control()
  for (nm in c("clip", "rho", "s", "nu", "output", "x_bound", "center", "row_bound"))
    expect_null(ctl[[nm]], label = nm)
  expect_equal(ctl$shares, c(scale = 0.2, centre = 0.03, quantiles = 0.02,
                             curvature = 0.2), ignore_attr = TRUE)
  expect_identical(attr(ctl$shares, "given"), character())
  expect_lt(sum(ctl$shares), 0.5)
  expect_equal(ctl$quantiles, c(clip = 0.995, row = 0.9))
  expect_null(ctl$kappa)
  expect_null(ctl$y_range)
  expect_identical(c(ctl$ridge, ctl$memory), c(1, 0.5))
  # ... and the public fit still takes C = 1 and averages all iterates
  d <- settings_data(n = 100)
  f <- dpsco(d$x, d$y, method = "clip", tuning = "public", iterations = 2,
             nlambda = 2)
  expect_identical(f$settings$clip, 1)
  expect_identical(f$settings$output, "average")
  fp <- dpsco(d$x, d$y, method = "clip", iterations = 2, nlambda = 2)
  expect_identical(fp$settings$output, "tail")
})

# ---- the engine: noise-free Newton steps reach glmnet's lasso --------------------

newton_case <- function(seed = 7, n = 400) {
  set.seed(seed)
  p <- 6
  x <- matrix(stats::rnorm(n * p), n, p) * rep(c(1, 20, 0.05, 3, 1, 1), each = n)
  x[, 5] <- exp(stats::rnorm(n))
  x[sample(n, n / 4), 6] <- 0
  eta <- drop(x %*% c(1, 0.05, 10, 0, 0.5, -1))
  list(x = x, y = eta + stats::rt(n, df = 3),
       yb = stats::rbinom(n, 1, stats::plogis(eta / 3)), n = n, p = p)
}

test_that("noise-free Newton steps converge to glmnet's solution on clamp(x / B)", {
  skip_if_not_installed("glmnet")
  d <- newton_case()
  # for alpha < 1 glmnet rescales a gaussian y to unit variance, which
  # changes its elastic-net problem; a y of unit (1/n) variance is left as is
  yu <- (d$y - mean(d$y)) / sqrt(mean((d$y - mean(d$y))^2)) + 0.3
  runs <- list(
    list(family = "gaussian", y = d$y, intercept = TRUE, alpha = 1, pf = NULL),
    list(family = "gaussian", y = d$y, intercept = FALSE, alpha = 1, pf = NULL),
    list(family = "gaussian", y = yu, intercept = TRUE, alpha = 0.5,
         pf = c(0, 1, 2, 1, 1, 0.5)),
    list(family = "binomial", y = d$yb, intercept = TRUE, alpha = 1, pf = NULL),
    list(family = "binomial", y = d$yb, intercept = FALSE, alpha = 0.3,
         pf = c(1, 1, 3, 1, 0.5, 1)))
  for (rn in runs) {
    info <- paste(rn$family, rn$intercept, rn$alpha)
    fit <- dpsco(d$x, rn$y, family = rn$family, method = "none",
                 intercept = rn$intercept, alpha = rn$alpha,
                 penalty.factor = rn$pf, iterations = 300,
                 control = dpsco_control(output = "last"))
    expect_identical(fit$settings$optimizer, "newton")
    B <- fit$standardize$scale
    expect_equal(fit$x_range, rbind(-B, B), ignore_attr = TRUE)
    xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
    g <- glmnet::glmnet(xt, rn$y, family = rn$family, lambda = fit$lambda,
                        alpha = rn$alpha, penalty.factor = rn$pf %||% rep(1, d$p),
                        intercept = rn$intercept, standardize = FALSE,
                        thresh = 1e-14, maxit = 1e6)
    # coefficients on the scale of x are glmnet's on clamp(x / B), over B
    gb <- as.matrix(g$beta) / B
    expect_lt(max(abs(unname(fit$beta) - unname(gb))), 1e-6, label = info)
    expect_lt(max(abs(unname(fit$a0) - unname(g$a0))), 1e-6, label = info)
    # the same sparsity pattern (up to coefficients below the tolerance),
    # and the path really moved
    expect_true(all(fit$beta[gb == 0] == 0), label = info)
    expect_true(all(fit$beta[abs(gb) > 1e-6] != 0), label = info)
    expect_gt(max(abs(gb)), 0.1)
  }
})

test_that("the first noise-free Newton step from the released curvature is exact for least squares", {
  # without clipped rows (row_bound = sqrt(d) declared public) the released
  # curvature is the exact Hessian, so one step at lambda = 0 is the OLS fit
  d <- newton_case(n = 300)
  fit <- dpsco(d$x, d$y, method = "none", lambda = 1e-12, iterations = 1,
               control = dpsco_control(output = "last",
                                       row_bound = sqrt(d$p + 1)))
  B <- fit$standardize$scale
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  ols <- stats::lm.fit(cbind(1, xt), d$y)$coefficients
  # (to 1e-5: without noise the bounds are 8 times the octave edge, so
  # the columns of xt are smaller and the solve less well conditioned)
  expect_equal(unname(c(fit$a0, fit$beta[, 1] * B)), unname(ols),
               tolerance = 1e-5)
})

# ---- the privacy record of a private fit ---------------------------------------

test_that("a default private fit accounts every part and composes to the target", {
  d <- settings_data()
  eps <- 1
  set.seed(4)
  fit <- dpsco(d$x, d$y, epsilon = eps)
  pr <- privacy(fit)
  sh <- pr$shares
  expect_identical(sh$part, c("scale", "centre", "quantiles", "curvature",
                              "optimizer"))
  expect_identical(pr$tuning, "private")
  expect_identical(fit$settings$optimizer, "newton")
  # every part is a full-data Gaussian mechanism; they compose exactly to
  # one with mu^2 = sum(steps / z^2)
  expect_true(all(sh$sample_rate == 1))
  mu <- sqrt(sum(sh$steps / sh$noise_multiplier^2))
  expect_equal(dp_epsilon(1 / mu, 1, 1, pr$delta), pr$epsilon_accounted,
               tolerance = 1e-6)
  expect_lte(pr$epsilon_accounted, eps)
  expect_gt(pr$epsilon_accounted, eps * (1 - 1e-4))
  expect_equal(pr$delta, 0.1 / d$n)
  # in units of one release's mu^2 (z1 = its multiplier), the settings
  # spend their shares and the optimiser what is left
  z1 <- dp_noise_multiplier(eps, pr$delta, 1, 1)
  spent <- sh$steps / sh$noise_multiplier^2 * z1^2
  # (the scale and centre shares by the rule of ?dpsco_control)
  # (no room: the range of y first, the scale share's cap 0.35)
  want <- c(scale_share_ref(z1, d$p, d$n, 0.35), centre_share_ref(z1, d$n, d$p), 0.02, 0.2)
  expect_equal(spent[1:4], want, tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(spent[5], 1 - sum(want), tolerance = 1e-5)
  expect_equal(sh$share, c(want, 1 - sum(want)), tolerance = 1e-12)
  # the sensitivities, from the released values: scale sqrt(sum w^2)
  # with w = 1 per column of x and sqrt(3 p) for y (no room: the range
  # of y first); the centre (hi - lo) /
  # (2 n); two histograms; B_H^2 / n; the oracle's C / n
  rel <- pr$released
  expect_equal(sh$sensitivity,
               c(sqrt(d$p + 3 * d$p), diff(rel$centre_range) / 2 / d$n, sqrt(2),
                 rel$row_bound^2 / d$n, rel$clip / d$n), tolerance = 1e-12)
  expect_identical(sh$steps, c(1, 1, 1, 1, 20))
  # 10 lambdas x 2 steps, the first released at the start sets the grid
  expect_identical(fit$settings$iterations, 2L)
  expect_length(fit$lambda, 10)
  expect_identical(names(rel), c("x_bound", "y_bound", "y_range", "centre_range",
                                 "centre", "clip", "row_bound", "ridge"))
  # the centre's clamp: the octaves of the range with the factor 2^room
  # (room 0 here) in place of 2: half the range of a y of both signs;
  # the centre in it
  expect_lt(rel$y_range[1], 0)
  expect_equal(rel$centre_range, rel$y_range / 2)
  expect_gte(rel$centre, rel$centre_range[1])
  expect_lte(rel$centre, rel$centre_range[2])
  # each part's own epsilon: one Gaussian mechanism with its own mu
  expect_equal(sh$epsilon_alone[2], dp_epsilon(sh$noise_multiplier[2], 1, 1, pr$delta),
               tolerance = 1e-6)
})

test_that("a declared y_range replaces the range of y, costs nothing and is public", {
  d <- settings_data()
  set.seed(5)
  fit <- dpsco(d$x, d$y, control = dpsco_control(y_range = c(-20, 30)))
  pr <- privacy(fit)
  sh <- pr$shares
  # the scale release covers x alone (weights 1): sensitivity sqrt(p)
  expect_equal(sh$sensitivity[sh$part == "scale"], sqrt(d$p), tolerance = 1e-15)
  expect_match(sh$mechanism[1], "octave histograms of |x_j|$")
  expect_true("range of y" %in% pr$public)
  expect_null(pr$released$y_range)
  expect_null(pr$released$y_bound)
  # the centre: the mean of y clamped to [-20, 30], sensitivity 50 / (2 n)
  expect_equal(sh$sensitivity[sh$part == "centre"], 25 / d$n, tolerance = 1e-15)
  expect_identical(sh$mechanism[2], "Gaussian: mean of y clamped to [-20, 30]")
  # without noise, the plain-R clamped mean
  f0 <- dpsco(d$x, d$y, method = "none", iterations = 2,
              control = dpsco_control(y_range = c(-1, 2)))
  expect_equal(privacy(f0)$released$centre, mean(pmin(pmax(d$y, -1), 2)),
               tolerance = 1e-12)
  # x_bound per column and y_range both declared: no scale release, and
  # its share goes to the optimiser
  f2 <- dpsco(d$x, d$y, control = dpsco_control(y_range = c(-20, 30),
                                                x_bound = c(1, 2, 3, 4)))
  p2 <- privacy(f2)
  expect_identical(p2$shares$part, c("centre", "quantiles", "curvature", "optimizer"))
  z1 <- dp_noise_multiplier(1, p2$delta, 1, 1)
  expect_equal(p2$shares$share[4], 1 - centre_share_ref(z1, d$n, d$p) - 0.02 - 0.2,
               tolerance = 1e-12)
  expect_equal(f2$x_range, rbind(-(1:4), 1:4), ignore_attr = TRUE)
  expect_true(all(c("bounds on |x_j|", "range of y") %in% p2$public))
  # checks
  expect_identical(arg_of(dpsco_control(y_range = c(3, 1))), "y_range")
  expect_identical(arg_of(dpsco_control(y_range = c(0, Inf))), "y_range")
  expect_identical(arg_of(dpsco_control(y_range = 1)), "y_range")
  expect_identical(arg_of(dpsco(d$x, d$yb, family = "binomial",
                                control = dpsco_control(y_range = c(0, 1)))),
                   "control")
  expect_identical(arg_of(dpsco(d$x, d$y, control = dpsco_control(x_bound = c(1, 2)))),
                   "control")
})

test_that("dpsco_control(kappa = ) is deprecated and ignored", {
  expect_warning(ctl <- dpsco_control(kappa = 2), "deprecated and ignored.*octave")
  expect_null(ctl$kappa)
  expect_false("kappa" %in% attr(ctl, "given"))
  d <- settings_data(n = 300)
  f1 <- withr::with_seed(3, dpsco(d$x, d$y, control = ctl, nlambda = 2))
  f0 <- withr::with_seed(3, dpsco(d$x, d$y, nlambda = 2))
  expect_identical(privacy(f1)$released, privacy(f0)$released)
})

test_that("declared public settings cost nothing and are listed as public", {
  d <- settings_data()
  set.seed(5)
  fit <- dpsco(d$x, d$y, control = dpsco_control(x_bound = 20, center = 1,
                                                 clip = 3, row_bound = 2))
  pr <- privacy(fit)
  # only the curvature and the optimiser touch the data
  expect_identical(pr$shares$part, c("curvature", "optimizer"))
  expect_true(all(c("bounds on |x_j|", "centre of y", "clip level",
                    "row bound of the curvature") %in% pr$public))
  expect_equal(fit$x_range, rbind(rep(-20, 4), rep(20, 4)))
  expect_identical(fit$settings$clip, 3)
  expect_equal(pr$sensitivity, 3 / d$n, tolerance = 1e-15)
  expect_equal(pr$shares$sensitivity[1], 2^2 / d$n, tolerance = 1e-15)
  # still the whole budget
  mu <- sqrt(sum(pr$shares$steps / pr$shares$noise_multiplier^2))
  expect_equal(dp_epsilon(1 / mu, 1, 1, pr$delta), 1, tolerance = 1e-4)
})

test_that("optimizer = 'spgd' under private tuning pays one more release for the grid", {
  d <- settings_data()
  set.seed(6)
  fit <- dpsco(d$x, d$y, optimizer = "spgd", iterations = 5, nlambda = 3)
  pr <- privacy(fit)
  expect_identical(fit$settings$optimizer, "spgd")
  expect_identical(pr$shares$steps[5], 3 * 5 + 1)
  # its step size is 1 over the top eigenvalue of the released curvature
  expect_gt(fit$settings$step_size, 0)
  # a user grid needs no first release
  f2 <- dpsco(d$x, d$y, optimizer = "spgd", iterations = 5,
              lambda = c(0.5, 0.1, 0.01))
  expect_identical(privacy(f2)$shares$steps[5], 15)
  expect_true("lambda grid" %in% privacy(f2)$public)
})

test_that("set.seed() reproduces a default private fit exactly", {
  d <- settings_data()
  run <- function(seed, y = d$y, family = "gaussian") {
    set.seed(seed)
    f <- dpsco(d$x, y, family = family)
    f$call <- NULL
    f
  }
  a <- run(21)
  expect_identical(run(21), a)
  expect_false(identical(run(22)$beta, a$beta))
  expect_identical(run(3, d$yb, "binomial"), run(3, d$yb, "binomial"))
})

test_that("predict() clamps newx to the private bounds", {
  d <- settings_data()
  set.seed(7)
  fit <- dpsco(d$x, d$y, method = "clip")
  rng <- fit$x_range
  expect_identical(dim(rng), c(2L, as.integer(d$p)))
  newx <- d$x[1:3, ]
  newx[1, 1] <- rng[2, 1] * 100          # beyond the upper bound
  newx[2, 2] <- -rng[2, 2] * 7           # beyond the lower bound
  at_bound <- newx
  at_bound[1, 1] <- rng[2, 1]
  at_bound[2, 2] <- rng[1, 2]
  pr <- predict(fit, newx)
  expect_identical(pr, predict(fit, at_bound))
  # plain R: intercept plus the clamped x times the coefficients
  k <- ncol(pr)
  xc <- pmin(pmax(newx, rep(rng[1, ], each = 3)), rep(rng[2, ], each = 3))
  expect_equal(unname(pr[, k]), unname(fit$a0[k] + drop(xc %*% fit$beta[, k])),
               tolerance = 1e-12)
  # a fit whose coefficient on x_1 is non-zero does move with the clamp
  if (any(fit$beta[1, ] != 0)) {
    raw <- fit$a0[k] + drop(newx %*% fit$beta[, k])
    expect_false(isTRUE(all.equal(unname(pr[, k]), unname(raw))))
  }
  # a public fit has no bounds and does not clamp
  fp <- dpsco(d$x, d$y, method = "none", tuning = "public", iterations = 2)
  expect_null(fp$x_range)
  expect_equal(unname(predict(fp, newx)[, 2]),
               unname(fp$a0[2] + drop(newx %*% fp$beta[, 2])), tolerance = 1e-12)
})

# ---- input checks of the new arguments ------------------------------------------

test_that("shares, tuning and optimizer are checked with dpsco_arg_errors", {
  expect_identical(arg_of(dpsco_control(shares = c(curvature = 0.9, scale = 0.2))),
                   "shares")
  expect_identical(arg_of(dpsco_control(shares = c(curvature = 0.7, scale = 0.1,
                                                   centre = 0.1, quantiles = 0.1))),
                   "shares")          # exactly 1 leaves nothing
  expect_identical(arg_of(dpsco_control(shares = c(speed = 0.1))), "shares")
  expect_identical(arg_of(dpsco_control(shares = c(0.1, 0.1))), "shares")
  expect_identical(arg_of(dpsco_control(shares = c(scale = -0.1))), "shares")
  expect_identical(arg_of(dpsco_control(shares = c(scale = NA_real_))), "shares")
  expect_identical(arg_of(dpsco_control(shares = c(scale = "0.1"))), "shares")
  expect_identical(arg_of(dpsco_control(output = "middle")), "output")
  expect_identical(arg_of(dpsco_control(x_bound = -1)), "x_bound")
  expect_identical(arg_of(dpsco_control(quantiles = c(clip = 1, row = 0.9))),
                   "quantiles")
  # a valid update keeps the other defaults
  sh <- dpsco_control(shares = c(curvature = 0.3))$shares
  expect_equal(sh, c(scale = 0.2, centre = 0.03, quantiles = 0.02, curvature = 0.3),
               ignore_attr = TRUE)
  expect_identical(attr(sh, "given"), "curvature")
  d <- settings_data(n = 100)
  expect_identical(arg_of(dpsco(d$x, d$y, tuning = "private", calibration = "paper")),
                   "calibration")
  expect_identical(arg_of(dpsco(d$x, d$y, tuning = "public", optimizer = "newton")),
                   "optimizer")
  expect_identical(arg_of(dpsco(d$x, d$y, optimizer = "adam")), "optimizer")
  expect_identical(arg_of(dpsco(d$x, d$y, tuning = "secret")), "tuning")
  # calibration = "paper" alone implies the public settings
  f <- dpsco(d$x, d$y, method = "clip", calibration = "paper", iterations = 2,
             nlambda = 2)
  expect_identical(f$settings$tuning, "public")
  expect_identical(f$settings$optimizer, "spgd")
})

test_that("new shares change the noise of the parts as documented", {
  d <- settings_data()
  set.seed(8)
  fit <- dpsco(d$x, d$y, control = dpsco_control(shares = c(curvature = 0.4,
                                                            scale = 0.1)))
  sh <- privacy(fit)$shares
  z1 <- dp_noise_multiplier(1, privacy(fit)$delta, 1, 1)
  # (the centre's default share follows the rule, its cap the shares given)
  s_centre <- centre_share_ref(z1, d$n, d$p, others = 0.1 + 0.02 + 0.4)
  expect_equal(sh$noise_multiplier[1:4],
               z1 * sqrt(c(1 / 0.1, 1 / s_centre, 1 / 0.02, 1 / 0.4)), tolerance = 1e-12)
  expect_equal(sh$steps[5] / sh$noise_multiplier[5]^2 * z1^2, 1 - 0.52 - s_centre,
               tolerance = 1e-5)
})

test_that("wide data get no curvature release and the row bound's step", {
  skip_if_not_installed("Matrix")
  # the rule at a small limit: d = 41 above 40
  withr::local_options(dpsco.curvature_max_d = 40L)
  expect_identical(curvature_max_d(), 40L)
  set.seed(8)
  n <- 300
  p <- 40  # d = p + 1 with the intercept: one too many
  x <- Matrix::rsparsematrix(n, p, density = 0.2)
  y <- as.vector(x[, 1:3] %*% c(1, -1, 1)) + rnorm(n)
  fit <- dpsco(x, y, epsilon = 1, nlambda = 2, iterations = 3)
  pr <- privacy(fit)
  expect_identical(fit$settings$optimizer, "spgd")
  expect_false("curvature" %in% pr$shares$part)
  expect_true(any(grepl("no curvature released", pr$public)))
  # the step: 1 / (c B_H^2), c = 1 for least squares, B_H the released row
  # bound
  expect_equal(fit$settings$step_size, 1 / pr$released$row_bound^2,
               tolerance = 1e-15)
  expect_error(dpsco(x, y, epsilon = 1, optimizer = "newton"),
               class = "dpsco_arg_error", regexp = "optimizer")
  # binomial: the logistic curvature at the released start, p (1 - p)
  yb <- rbinom(n, 1, 0.3)
  fb <- dpsco(x, yb, family = "binomial", epsilon = 1, nlambda = 2,
              iterations = 3)
  rate <- privacy(fb)$released$centre
  b0 <- qlogis(min(max(rate, 1 / (n + 2)), 1 - 1 / (n + 2)))
  expect_equal(fb$settings$step_size,
               1 / (plogis(b0) * (1 - plogis(b0)) *
                      privacy(fb)$released$row_bound^2), tolerance = 1e-12)
  # one column fewer: the Newton path with its released curvature
  f2 <- dpsco(x[, -1], y, epsilon = 1, nlambda = 2)
  expect_identical(f2$settings$optimizer, "newton")
  expect_true("curvature" %in% privacy(f2)$shares$part)
})

test_that("tune_private() for poisson with weights and offsets replays its releases", {
  # the bound and centre of the count net of the offsets, the clip level
  # from the weighted residuals beside the offsets, the exposure bound E
  # from a third histogram (of e^offset), the curvature from the rows
  # scaled by the square roots of their weights and of their exposures
  # over E (at most 1), times the mean count and E
  d <- settings_data(n = 600)
  p <- d$p
  set.seed(4)
  yc <- as.double(stats::rpois(d$n, exp(0.5 + 0.2 * pmin(d$x[, 1], 3))))
  w <- stats::runif(d$n)
  off <- stats::rnorm(d$n, sd = 0.4)
  z1 <- 3
  n <- 750
  set.seed(17)
  tn <- tune_private(d$x, yc, "poisson", "clip", "newton", TRUE, z1,
                             NULL, dpsco_control(), n = n, weights = w,
                             offset = off)
  set.seed(17)
  pm <- function(share, k = 1) z1 * sqrt(k / share)
  ynet <- yc * exp(-off)
  wt <- c(rep(1, p), sqrt(3 * p))
  s_scale <- scale_share_ref(z1, p, n, 0.35)
  s_centre <- centre_share_ref(z1, n, p)
  sdv <- pm(s_scale) * sqrt(4 * p) / wt
  noisy <- c(apply(d$x, 2, octave_counts_ref), signed_counts_ref(ynet)) +
    rep(sdv, c(rep(64, p), 127)) * stats::rnorm(64 * p + 127)
  B <- vapply(1:p, function(j) octave_bound_ref(noisy[64 * (j - 1) + 1:64], sdv[j]), 0)
  yb <- signed_range_ref(noisy[64 * p + 1:127], sdv[p + 1],
                         f = 2^room_ref(n, z1))[2]
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  # the mean count clamped to [0, hi], kept within [its noise sd, hi]
  rel <- dp_mean_release(matrix(ynet), matrix(c(0, yb), 2L), pm(s_centre), n)
  centre <- min(max(rel$estimate, pm(s_centre) * yb / 2 / n), yb)
  b0 <- log(max(centre, 1 / n))
  wn <- sqrt(1 + rowSums(xt^2))
  r <- w * abs(exp(b0 + off) - yc)
  rc <- release_counts(cbind(r * wn, wn, exp(off)), pm(0.02))
  clip <- hist_quantile(rc$counts[, 1], 0.01, n, rc$sd)
  row <- min(hist_quantile(rc$counts[, 2], 0.1, n, rc$sd), sqrt(p + 1))
  E <- hist_quantile(rc$counts[, 3], 0.1, n, rc$sd)
  v <- pmin(exp(off) / E, 1)
  rh <- release_curvature(cbind(1, xt) * sqrt(w * v), pm(0.2), row, n,
                                  norms = wn)
  A <- curvature_matrix(rh$h, rh$sd, 1, exp(b0) * E)$A
  expect_equal(unname(tn$bound), B, tolerance = 1e-14)
  expect_equal(tn$beta0, c(b0, rep(0, p)), tolerance = 1e-14)
  expect_identical(tn$clip, clip)
  expect_identical(tn$row_bound, row)
  expect_identical(tn$released$exposure, E)
  expect_equal(tn$curvature, A, tolerance = 1e-12)
  sens <- vapply(tn$parts, `[[`, 0, "sensitivity")
  expect_equal(sens, c(sqrt(4 * p), yb / 2 / n, sqrt(3), row^2 / n),
               tolerance = 1e-14)
})

test_that("poisson: a constant shift of the offsets moves the start and leaves the curvature", {
  # 0.12.0 released the curvature at the mean count per unit of exposure,
  # e^b0, which the shift c divides by e^c while the Hessian, a sum of
  # e^(b0 + offset_i) x_i x_i', does not change: Newton steps e^c times
  # too long.  Noise-free settings (z1 = 0 is not private; a tiny z1
  # keeps every release and its rule)
  set.seed(12)
  n <- 2000
  x <- matrix(stats::rnorm(n * 3), n)
  e <- stats::runif(n, 0.5, 5)
  y <- as.double(stats::rpois(n, e * exp(-2 + 0.5 * x[, 1])))
  tune <- function(shift) withr::with_seed(3, tune_private(
    x, y, "poisson", "clip", "newton", TRUE, 1e-6, NULL, dpsco_control(),
    n = n, offset = log(e) + shift))
  a <- tune(0)
  b <- tune(2.5)
  expect_equal(a$beta0[1] - b$beta0[1], 2.5, tolerance = 1e-3)
  # the plain-R Hessian of the loss at the start, on the clamped rows
  hess <- function(tn, shift) {
    w <- cbind(1, tn$x)
    crossprod(w * sqrt(exp(tn$beta0[1] + log(e) + shift))) / n
  }
  expect_equal(hess(a, 0), hess(b, 2.5), tolerance = 1e-3)
  # the released curvature is that Hessian, up to the records beyond the
  # exposure bound (taken at the bound) and the row clip
  for (tn in list(a, b)) {
    ratio <- tn$curvature[1, 1] / hess(a, 0)[1, 1]
    expect_gt(ratio, 0.7)
    expect_lte(ratio, 1 + 1e-6)
  }
  expect_equal(a$curvature, b$curvature, tolerance = 0.05)
})

test_that("poisson: a count of 0 with an offset below -709.8 leaves the settings finite", {
  # 0.10.0: y exp(-offset) = 0 * Inf = NaN made the released centre, the
  # start and every coefficient NaN on D plus this record, and with a
  # declared x bound the released y bound became 1
  set.seed(3)
  n <- 199
  x <- matrix(stats::rnorm(n * 3), n)
  y <- stats::rpois(n, 2)
  x1 <- rbind(x, 0)
  y1 <- c(y, 0)
  fit <- function(x, y, off, ...) withr::with_seed(5, dpsco(
    x, y, family = "poisson", offset = off, epsilon = 1, public_n = 200,
    nlambda = 3, ...))
  for (extra in list(list(), list(control = dpsco_control(x_bound = 3)),
                     list(secure = TRUE))) {
    f0 <- expect_silent(do.call(fit, c(list(x, y, rep(0, n)), extra)))
    f1 <- expect_silent(do.call(fit, c(list(x1, y1, c(rep(0, n), -800)), extra)))
    rel0 <- unlist(f0$privacy$released)
    rel1 <- unlist(f1$privacy$released)
    expect_true(all(is.finite(rel1)))
    expect_true(all(is.finite(c(f1$a0, as.matrix(f1$beta)))))
    # the record's net count is 0: the y bound is the same kind of value
    # on both sides, not 1 on one of them
    expect_equal(names(rel1), names(rel0))
    if (!is.null(rel1[["y_bound"]]))
      expect_gt(rel1[["y_bound"]], 1)
  }
})

test_that("adaptive_shares(): the centre's share grows to 0.5 at small n", {
  sh <- dpsco_control()$shares
  sh_of <- function(n, p, z1, shares = sh)
    adaptive_shares(shares, n, p, z1)
  # 354 records (Boston's training part) at z1 = 2.5: a target
  # (100 z1 / n)^2 = 0.50 above the cap 0.9 - (0.2 + 0.02 + 0.2) = 0.48
  s <- sh_of(354, 13, 2.5)
  expect_equal(s, c(scale = 0.2, centre = 0.48, quantiles = 0.02, curvature = 0.2),
               ignore_attr = TRUE)
  # a smaller scale share leaves the cap at 0.5
  expect_equal(sh_of(300, 1, 3)[["centre"]], 0.5)
  # a target between the floor and the cap is taken as it is
  expect_equal(sh_of(1000, 13, 2)[["centre"]], (100 * 2 / 1000)^2)
  # large n: the floor
  expect_equal(sh_of(5e4, 2, 2)[["centre"]], 0.03)
  # large shares given for the others: the centre keeps its default, and
  # everything still leaves the optimiser a part
  big <- dpsco_control(shares = c(curvature = 0.7))$shares
  s <- sh_of(100, 5, 3, big)
  expect_equal(s[["centre"]], 0.03)
  expect_lt(sum(s), 1)
  # a centre share given is kept
  given <- dpsco_control(shares = c(centre = 0.1))$shares
  expect_equal(sh_of(100, 5, 3, given)[["centre"]], 0.1)
  # not private: the shares as given
  expect_identical(sh_of(100, 5, 0), sh)
  # through the fits, 300 records at epsilon 1 (no room): a gaussian path
  # takes the larger rules (and y weight sqrt(3 p)), a binomial one and a
  # radius method 0.12.0's
  set.seed(5)
  n <- 300
  x <- matrix(stats::rnorm(n * 3), n)
  y <- x[, 1] + stats::rnorm(n)
  z1 <- dp_noise_multiplier(1, 0.1 / n, 1, 1)
  expect_true(y_first_ref(n, z1))
  parts <- function(fit) setNames(privacy(fit)$shares$share, privacy(fit)$shares$part)
  g <- parts(dpsco(x, y, epsilon = 1, nlambda = 2))
  expect_equal(g[["scale"]], scale_share_ref(z1, 3, n, 0.35))
  expect_equal(g[["centre"]], centre_share_ref(z1, n, 3))
  expect_equal(privacy(dpsco(x, y, epsilon = 1, nlambda = 2))$shares$sensitivity[1],
               sqrt(3 + 3 * 3))
  b <- parts(dpsco(x, as.numeric(y > 0), family = "binomial", epsilon = 1,
                   nlambda = 2))
  expect_equal(b[["centre"]], centre_share_ref(z1, n, 3, cap = 0.15, k = 40,
                                               others = scale_share_ref(z1, 3, n) + 0.22))
  expect_false("scale" %in% names(b) && b[["scale"]] > 0.2)
})

test_that("the settings subsample's public rule: 2^18 records (the curvature's at least n / 8) from n = 2^22 up, never with secure noise", {
  withr::local_options(dpsco.settings_subsample = NULL)
  expect_identical(subsample_size, 2^18)
  expect_identical(subsample_threshold, 2^22)
  expect_null(settings_subsample(2^22 - 1, 50, FALSE))
  expect_null(settings_subsample(2e6, 50, FALSE))
  expect_identical(settings_subsample(2^22, 50, FALSE),
                   list(m = 2^18, q = 1 / 16, curvature = list(m = 2^19, q = 1 / 8)))
  expect_identical(settings_subsample(2e7, 3, FALSE),
                   list(m = 2^18, q = 2^18 / 2e7, curvature = list(m = 2.5e6, q = 1 / 8)))
  # the same whatever p
  expect_identical(settings_subsample(2e7, 3, FALSE),
                   settings_subsample(2e7, 4000, FALSE))
  # secure noise, or no noise: full passes
  expect_null(settings_subsample(2e7, 50, TRUE))
  expect_null(settings_subsample(2e7, 50, FALSE, private = FALSE))
  # the option: off, on (m at most n / 4), a given m
  withr::local_options(dpsco.settings_subsample = FALSE)
  expect_null(settings_subsample(2e7, 50, FALSE))
  withr::local_options(dpsco.settings_subsample = TRUE)
  expect_identical(settings_subsample(1000, 5, FALSE),
                   list(m = 250, q = 0.25, curvature = list(m = 250, q = 0.25)))
  expect_identical(settings_subsample(2e7, 5, FALSE)$m, 2^18)
  expect_null(settings_subsample(1000, 5, TRUE))
  withr::local_options(dpsco.settings_subsample = 300)
  expect_identical(settings_subsample(1200, 5, FALSE),
                   list(m = 300, q = 0.25, curvature = list(m = 300, q = 0.25)))
  withr::local_options(dpsco.settings_subsample = 100)
  expect_identical(settings_subsample(1600, 5, FALSE)$curvature, list(m = 200, q = 1 / 8))
  expect_error(settings_subsample(100, 5, FALSE), "internal error")
})

test_that("subsample_multiplier(): the smallest z whose subsampled release costs no more than the full one", {
  for (case in list(c(z = 10, q = 0.05, delta = 1e-6), c(z = 3, q = 0.25, delta = 1e-5),
                    c(z = 40, q = 0.01, delta = 1e-7))) {
    zs <- subsample_multiplier(case[["z"]], case[["q"]], case[["delta"]])
    eps_full <- gauss_eps_ref(1 / case[["z"]], case[["delta"]])
    eps_sub <- function(z) account_epsilon(list(list(noise_multiplier = z,
                                                     sample_rate = case[["q"]],
                                                     steps = 1)), case[["delta"]])
    expect_lte(eps_sub(zs), eps_full * (1 + 1e-9))
    # (to the calibration's precision on the discretised loss distribution)
    expect_gt(eps_sub(zs * 0.98), eps_full)
    # amplified: less noise than the full-data release's
    expect_lt(zs, case[["z"]])
  }
})

test_that("a fit with subsampled settings records each subsampled part and composes them exactly", {
  d <- settings_data()
  withr::local_options(dpsco.settings_subsample = 400)
  eps <- 1
  set.seed(4)
  fit <- dpsco(d$x, d$y, epsilon = eps)
  pr <- privacy(fit)
  sh <- pr$shares
  q <- 400 / d$n
  expect_identical(sh$part, c("scale", "centre", "quantiles", "curvature",
                              "optimizer"))
  expect_equal(sh$sample_rate, c(q, 1, q, q, 1))
  # each subsampled part: the share's full-data multiplier made no more
  # costly at the fit's delta (the closed-form Gaussian epsilon)
  z1 <- dp_noise_multiplier(eps, pr$delta, 1, 1)
  for (k in c(1, 3, 4)) {
    z_full <- z1 / sqrt(sh$share[k])
    expect_lte(sh$epsilon_alone[k], gauss_eps_ref(1 / z_full, pr$delta) * (1 + 1e-9))
    expect_lt(sh$noise_multiplier[k], z_full)
  }
  # the centre stays on the full data, at its share
  expect_equal(sh$noise_multiplier[2], z1 / sqrt(sh$share[2]), tolerance = 1e-12)
  # the accountant composes the record's components: recomputed
  # independently from the table, and within the target
  comps <- lapply(seq_len(nrow(sh)), function(k)
    list(noise_multiplier = sh$noise_multiplier[k],
         sample_rate = sh$sample_rate[k], steps = sh$steps[k]))
  expect_equal(pr$epsilon_accounted, account_epsilon(comps, pr$delta),
               tolerance = 1e-12)
  expect_lte(pr$epsilon_accounted, eps)
  expect_gt(pr$epsilon_accounted, 0.99 * eps)
  # the curvature's sensitivity and noise over the expected size m
  rel <- pr$released
  expect_equal(sh$sensitivity[4], rel$row_bound^2 / 400, tolerance = 1e-14)
  expect_match(sh$mechanism[c(1, 3, 4)], "Poisson subsample \\(rate q = 0.267")
  out <- format(pr)
  expect_true(any(grepl(sprintf("scale .*z = %s, q = 0.2667", format(signif(sh$noise_multiplier[1], 4))),
                        out)))
  # set.seed() reproduces it, and the option off gives the full-pass fit
  set.seed(4)
  expect_identical(dpsco(d$x, d$y, epsilon = eps)$beta, fit$beta)
  withr::local_options(dpsco.settings_subsample = FALSE)
  set.seed(4)
  full <- privacy(dpsco(d$x, d$y, epsilon = eps))
  expect_true(all(full$shares$sample_rate == 1))
  expect_equal(full$shares$share, sh$share)
})

test_that("the subsampled releases read the drawn records: replayed from the same coins", {
  d <- settings_data()
  withr::local_options(dpsco.settings_subsample = 400)
  z1 <- dp_noise_multiplier(1, 1e-4, 1, 1)
  ctl <- dpsco_control()
  set.seed(9)
  tn <- tune_private(d$x, d$y, "gaussian", "clip", "newton", TRUE, z1,
                     NULL, ctl, n = d$n, delta = 1e-4)
  # the same stream: the scale release's coins come first, then its noise
  set.seed(9)
  rows <- settings_rows(d$x, list(q = 400 / d$n))
  st_z <- subsample_multiplier(part_multiplier(z1, tn$parts[[1]]$share),
                               400 / d$n, 1e-4)
  expect_equal(tn$parts[[1]]$noise_multiplier, st_z, tolerance = 1e-12)
  w <- c(rep(1, d$p), sqrt(3 * d$p))
  rel <- octave_release(design_octaves(d$x, rows),
                        signed_octave_counts(d$y, rows), st_z, w)
  rule <- c(octave_rule, f_x = x_octave_factor(d$n, z1))
  expect_equal(tn$bound, vapply(seq_len(d$p), function(j)
    octave_bound(rel$x[, j], rel$sd[j], rule, n = 400), 0))
  expect_equal(tn$y_range, signed_octave_range(rel$y, rel$sd[d$p + 1], n = 400))
})
