# The private settings of tuning = "private" (R/settings.R), each checked
# against a plain-R computation written from its description: the log2
# bins and the histogram quantile, the log-moment bounds on |x_j|, the
# curvature release and its positive-definite repair, the budget shares
# and their composition, and the noise-free Newton path against glmnet on
# the transformed design.

# ---- log2 bins and histogram quantiles --------------------------------------

test_that("log2_bin() puts (2^(b - 34), 2^(b - 33)] in bin b, with the ends clamped", {
  # upper edges are inclusive: 2^k is in bin k + 33, just above it in k + 34
  for (k in c(-31, -10, -1, 0, 1, 5, 30)) {
    expect_identical(dpsco:::log2_bin(2^k), k + 33, label = paste("2^", k))
    expect_identical(dpsco:::log2_bin(2^k * (1 + 1e-12)), k + 34,
                     label = paste("just above 2^", k))
  }
  expect_identical(dpsco:::log2_bin(c(1, 1.5, 2, 3)), c(33, 34, 34, 35))
  # bin 1: zero and everything up to 2^-32
  expect_identical(dpsco:::log2_bin(c(0, 1e-300, 2^-40, 2^-32)), rep(1, 4))
  expect_identical(dpsco:::log2_bin(2^-32 * (1 + 1e-12)), 2)
  # bin 64: (2^30, 2^31] and everything above, Inf included
  expect_identical(dpsco:::log2_bin(c(2^30 * 1.5, 2^31, 2^31 * 3, 1e300, Inf)),
                   rep(64, 5))
  # a plain-R definition on random magnitudes: the smallest b whose upper
  # edge 2^(b - 33) is at least v
  set.seed(1)
  v <- exp(stats::rnorm(2000, 0, 8))
  ref <- vapply(v, function(vi) {
    if (vi <= 2^-32) return(1)
    min(which(2^((1:64) - 33) >= vi), 64)
  }, 0)
  expect_identical(dpsco:::log2_bin(v), ref)
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
      counts <- tabulate(dpsco:::log2_bin(v), 64L)
      q <- dpsco:::hist_quantile(counts, tau, length(v), 0)
      expect_identical(q, quantile_edge_ref(v, tau))
      # it brackets the empirical (1 - tau) quantile within a factor 2
      emp <- sort(v)[ceiling((1 - tau) * length(v))]
      expect_gte(q, emp)
      expect_lt(q / 2, emp)
    }
  }
  # constant values: the edge is the value itself when it is a power of two
  expect_identical(dpsco:::hist_quantile(tabulate(dpsco:::log2_bin(rep(4, 10)), 64L),
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
  expect_identical(dpsco:::hist_quantile(counts, 0.05, 540, sd), 2^-3 * 2^5)
  expect_identical(dpsco:::hist_quantile(counts, 0.1, 540, sd), 2^-3)
  # the same count above the level is kept and moves the 0.99 quantile out
  counts[60] <- thr * 1.01
  expect_identical(dpsco:::hist_quantile(counts, 0.01, 540, sd), 2^(60 - 33))
  # nothing clears the level: the fullest noisy bin stands in
  low <- c(rep(0, 20), thr / 2, rep(0, 43))
  expect_identical(dpsco:::hist_quantile(low, 0.1, 10, sd), 2^(21 - 33))
})

# ---- log-moment bounds -------------------------------------------------------

# Plain R, column by column, from the description in R/settings.R: the mean
# m and variance s^2 of clamp(log2 |x|, -32, 32) over the non-zero entries
# (deviations beyond 8 octaves count as 8), from centred sums over the rows
# present (of nz - 1/2, of lg / 32 and of d - 1/2, d = min((lg - m)^2, 64)
# / 64 for a non-zero entry and 0 for a zero one) with Gaussian noise of sd
# z sqrt(1.25 W) / w_j and z sqrt(0.25 W) / w_j (W = sum w^2), un-centred
# by n / 2 for the public n; m shrunk by 1 / (1 + (4 sd1 / max(cnt, 1))^2),
# B = 2^clamp(m + kappa s, -32, 32), and B = 1 when the noisy count is
# below 3 sd1 (or nothing is finite).  `noise` holds the three standard
# normal vectors (counts, sums, squares).
log_bounds_ref <- function(v, z, kappa, weight, noise, n = nrow(v)) {
  W <- sum(weight^2)
  rows <- nrow(v)
  vapply(seq_len(ncol(v)), function(j) {
    col <- v[v[, j] != 0, j]
    L <- pmin(pmax(log2(abs(col)), -32), 32)
    sd1 <- z * sqrt(1.25 * W) / weight[j]
    sd2 <- z * sqrt(0.25 * W) / weight[j]
    cnt <- sum((v[, j] != 0) - 1 / 2) + sd1 * noise[[1]][j] + n / 2
    m <- (sum(L) + 32 * sd1 * noise[[2]][j]) / cnt
    m <- min(max(m, -32), 32) / (1 + (4 * sd1 / max(cnt, 1))^2)
    dev <- c(pmin((L - m)^2, 64) / 64, rep(0, rows - length(col)))
    s2 <- 64 * (sum(dev - 1 / 2) + sd2 * noise[[3]][j] + n / 2) / cnt
    e <- min(max(m + rep_len(kappa, ncol(v))[j] * sqrt(max(s2, 0)), -32), 32)
    if (!is.finite(e) || !(cnt >= 3 * sd1)) e <- 0
    2^e
  }, 0)
}

bounds_data <- function(n = 400) {
  set.seed(31)
  v <- cbind(lognormal = 2^stats::rnorm(n, 3, 1.5),
             sparse = ifelse(stats::runif(n) < 0.7, 0, stats::rt(n, df = 2)),
             zero = 0,
             huge = 1e12 * (1 + stats::runif(n)),      # log2 above 32: clamped
             tiny = 1e-15 * stats::runif(n),
             wide = 2^stats::rnorm(n, 0, 20))          # deviations beyond 8
  v[1:3, "wide"] <- -v[1:3, "wide"]
  v
}

test_that("log_bounds() without noise is 2^(m + kappa s) of the log2 magnitudes", {
  v <- bounds_data()
  zero <- list(rep(0, 6), rep(0, 6), rep(0, 6))
  for (kappa in c(0, 2, 3.5)) {
    lb <- dpsco:::log_bounds(v, 0, kappa, nrow(v))
    expect_equal(unname(lb$bound), log_bounds_ref(v, 0, kappa, rep(1, 6), zero),
                 tolerance = 1e-12, label = paste("kappa", kappa))
    expect_equal(lb$sensitivity, sqrt(1.25 * 6), tolerance = 1e-15)
  }
  lb <- unname(dpsco:::log_bounds(v, 0, 2, nrow(v))$bound)
  # closed forms: the all-zero column gets 1, the huge one 2^32 (its log2
  # clamped to 32 and no spread left), kappa = 0 gives 2^mean(log2 |x|)
  expect_identical(lb[3], 1)
  expect_identical(lb[4], 2^32)
  expect_equal(unname(dpsco:::log_bounds(v, 0, 0, nrow(v))$bound[1]),
               2^mean(log2(v[, 1])), tolerance = 1e-12)
  # two octaves 1 and 3: m = 2, s = 1, so B = 2^(2 + kappa)
  two <- matrix(rep(c(2, 8), 50), ncol = 1)
  expect_equal(dpsco:::log_bounds(two, 0, 2, 100)$bound, 16, tolerance = 1e-14)
  expect_equal(dpsco:::log_bounds(-two, 0, 1, 100)$bound, 8, tolerance = 1e-14)
  # a public n other than the rows: the released values are the centred
  # sums plus n / 2, so 100 rows declared as n = 120 count 110 non-zeros
  # (m = 200 / 110), and the scaled squared deviations gain (120 - 100) / 2
  m <- 200 / 110
  s2 <- 64 * (sum(pmin((rep(c(1, 3), 50) - m)^2, 64) / 64) + 10) / 110
  expect_equal(dpsco:::log_bounds(two, 0, 2, 120)$bound, 2^(m + 2 * sqrt(s2)),
               tolerance = 1e-12)
  for (n in c(120, 60))
    expect_equal(unname(dpsco:::log_bounds(v, 0, 2, n)$bound),
                 log_bounds_ref(v, 0, 2, rep(1, 6), zero, n),
                 tolerance = 1e-12, label = paste("public n", n))
  # deviations beyond 8 octaves count as 8: one value at 2^40 among 2^0's
  far <- matrix(c(rep(1, 99), 2^40), ncol = 1)
  m <- 32 / 100
  s2 <- (99 * m^2 + 64) / 100
  expect_equal(dpsco:::log_bounds(far, 0, 2, 100)$bound, 2^(m + 2 * sqrt(s2)),
               tolerance = 1e-12)
})

test_that("log_bounds() with noise: shrinkage, count threshold and weights as described", {
  v <- bounds_data(300)
  pc <- ncol(v)
  for (cs in list(list(z = 2, w = rep(1, pc)), list(z = 40, w = rep(1, pc)),
                  list(z = 5, w = c(rep(1, pc - 1), sqrt(pc))),
                  list(z = 2, w = rep(1, pc), n = 450),
                  list(z = 5, w = c(rep(1, pc - 1), sqrt(pc)), n = 200))) {
    n <- cs$n %||% nrow(v)
    set.seed(99)
    noise <- list(stats::rnorm(pc), stats::rnorm(pc), stats::rnorm(pc))
    set.seed(99)
    lb <- dpsco:::log_bounds(v, cs$z, 2, n, cs$w)
    expect_equal(unname(lb$bound), log_bounds_ref(v, cs$z, 2, cs$w, noise, n),
                 tolerance = 1e-10, label = paste("z", cs$z, "n", n))
    expect_equal(lb$sensitivity, sqrt(1.25 * sum(cs$w^2)), tolerance = 1e-15)
  }
  # with z = 40 the count noise sd is 40 sqrt(7.5) = 110: the sparse column
  # (about 90 non-zeros) falls below 3 sds and gets B = 1, as does the zero
  # column
  set.seed(99)
  lb <- dpsco:::log_bounds(v, 40, 2, nrow(v))
  expect_identical(unname(lb$bound[c(2, 3)]), c(1, 1))
})

test_that("release_scale() is the two noisy sums of log_bounds()", {
  v <- bounds_data(200)
  lm <- dpsco:::log_moments(v)
  L <- pmin(pmax(log2(abs(v)), -32), 32)
  L[v == 0] <- 0
  expect_identical(lm$lg, L)
  expect_identical(lm$nz, v != 0)
  m <- c(1, -2, 0, 20, -40, 3)         # all at least 8 octaves from 32
  sd1 <- 3 * sqrt(1.25 * 6)
  dev <- vapply(1:6, function(j) sum(pmin((L[v[, j] != 0, j] - m[j])^2, 64)) / 64, 0)
  # the released values are the centred sums over the 200 rows present
  # (of nz - 1/2, of lg / 32 and of d - 1/2), un-centred by the public n / 2
  for (n in c(200, 260, 150)) {
    set.seed(5)
    r1 <- dpsco:::release_scale(lm, 3, n)
    set.seed(5)
    expect_equal(r1$count, colSums(v != 0) - 200 / 2 + sd1 * stats::rnorm(6) + n / 2,
                 tolerance = 1e-12)
    expect_equal(r1$sum, colSums(L) / 32 + sd1 * stats::rnorm(6), tolerance = 1e-12)
    expect_equal(r1$sd, rep(sd1, 6), tolerance = 1e-15)
    set.seed(6)
    r2 <- dpsco:::release_scale(lm, 3, n, m = m)
    set.seed(6)
    expect_equal(unname(r2$dev), dev - 200 / 2 + 3 * sqrt(0.25 * 6) * stats::rnorm(6) + n / 2,
                 tolerance = 1e-12)
  }
  # at a fixed public n, one record added moves the released sums by at
  # most the claimed sensitivities, and the record at the clamp in every
  # column (|x| = 2^40, far from m) attains both; so does a record removed
  rec <- matrix(2^40 * rep(c(1, -1), 3), 1)
  v1 <- rbind(v, rec)
  a0 <- dpsco:::release_scale(lm, 0, 200)
  a1 <- dpsco:::release_scale(dpsco:::log_moments(v1), 0, 200)
  move1 <- c(a1$count - a0$count, a1$sum - a0$sum)
  expect_equal(sqrt(sum(move1^2)), sqrt(1.25 * 6), tolerance = 1e-12)
  b0 <- dpsco:::release_scale(lm, 0, 200, m = m)$dev
  b1 <- dpsco:::release_scale(dpsco:::log_moments(v1), 0, 200, m = m)$dev
  expect_equal(sqrt(sum((b1 - b0)^2)), sqrt(0.25 * 6), tolerance = 1e-12)
  # a zero record moves every centred sum by -1/2 (count and deviations),
  # within the same bounds
  z1 <- dpsco:::release_scale(dpsco:::log_moments(rbind(v, 0)), 0, 200)
  expect_equal(unname(c(z1$count - a0$count, z1$sum - a0$sum)),
               c(rep(-1 / 2, 6), rep(0, 6)))
  # the block-wise sums of a design give the same release
  cols <- structure(list(x = v, y = NULL), class = "design_cols")
  set.seed(5)
  r1 <- dpsco:::release_scale(lm, 3, 260)
  set.seed(5)
  expect_equal(dpsco:::release_scale(cols, 3, 260, rep(1, 6)), r1,
               tolerance = 1e-12, ignore_attr = TRUE)
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
    cm <- dpsco:::curvature_matrix(h, cs$sd, cs$ridge, cs$w)
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
  cm0 <- dpsco:::curvature_matrix(hp, 0, 1, 1)
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
  r0 <- dpsco:::release_curvature(w, 0, B, n)
  expect_equal(r0$h, crossprod(wc) / n, tolerance = 1e-14)
  expect_identical(r0$sd, 0)
  # the noise: one draw per entry of the upper triangle, mirrored; the
  # divisor and the noise scale are the public n, whatever the rows
  z <- 2
  e <- matrix(0, 4, 4)
  for (N in c(n, 80, 30)) {
    set.seed(10)
    r1 <- dpsco:::release_curvature(w, z, B, N)
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
  move <- dpsco:::release_curvature(rbind(w, rec), 0, B, n)$h - r0$h
  expect_equal(sqrt(sum(move^2)), B^2 / n, tolerance = 1e-12)
  # a design in list(x = ) with the intercept column added gives the same
  dw <- structure(list(x = w[, -1]), class = "design_cols")
  set.seed(10)
  r1 <- dpsco:::release_curvature(w, z, B, 80)
  set.seed(10)
  expect_equal(dpsco:::release_curvature(dw, z, B, 80, norms, TRUE), r1,
               tolerance = 1e-14)
})

test_that("part_multiplier() splits one release's budget in units of mu^2", {
  z1 <- 1.3
  expect_equal(dpsco:::part_multiplier(z1, 0.25), z1 * 2, tolerance = 1e-15)
  expect_equal(dpsco:::part_multiplier(z1, 0.05, 2), z1 * sqrt(40), tolerance = 1e-15)
  expect_identical(dpsco:::part_multiplier(0, 0.2), 0)
  # k releases at multiplier z spend k / z^2 = share / z1^2
  z <- dpsco:::part_multiplier(z1, 0.05, 2)
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
  zero <- list(numeric(5), numeric(5), numeric(5))
  # bounds on |x_j| and |y| (y weighted by sqrt(p), which without noise
  # changes nothing); without noise x's kappa is 3.5, y's is always 2
  B <- log_bounds_ref(cbind(d$x, d$y), 0, c(rep(3.5, 4), 2), rep(1, 5), zero)
  expect_equal(rel$x_bound, B[1:4], tolerance = 1e-12)
  expect_equal(rel$y_bound, B[5], tolerance = 1e-12)
  expect_equal(fit$standardize$scale, B[1:4], tolerance = 1e-12)
  expect_equal(fit$x_range, rbind(-B[1:4], B[1:4]), tolerance = 1e-12)
  # the centre: the mean of y clamped to +-y_bound
  expect_equal(rel$centre, mean(pmin(pmax(d$y, -B[5]), B[5])), tolerance = 1e-12)
  # the row bound: the 0.9 quantile edge of ||(1, x / B)||, capped at sqrt(d)
  xt <- pmin(pmax(d$x / rep(B[1:4], each = d$n), -1), 1)
  wn <- sqrt(1 + rowSums(xt^2))
  expect_identical(rel$row_bound, min(quantile_edge_ref(wn, 0.1), sqrt(5)))
  # no clipping level for method none
  expect_null(rel$clip)
  # binomial: no bound on y, the centre is the event rate
  fb <- dpsco(d$x, d$yb, family = "binomial", method = "none", iterations = 2)
  rb <- privacy(fb)$released
  expect_null(rb$y_bound)
  expect_equal(rb$centre, mean(d$yb), tolerance = 1e-12)
})

test_that("the private clipping level is the 0.995 quantile edge of |r_i| ||(1, x_i)|| at the start", {
  # at a huge epsilon the releases are exact up to ~1e-6 relative noise,
  # far below the factor-2 bins
  d <- settings_data()
  set.seed(3)
  fit <- dpsco(d$x, d$y, method = "clip", epsilon = 1e7, iterations = 2)
  rel <- privacy(fit)$released
  B <- rel$x_bound
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  wn <- sqrt(1 + rowSums(xt^2))
  r0 <- rel$centre - d$y
  expect_identical(rel$clip, quantile_edge_ref(abs(r0) * wn, 0.005))
  expect_identical(fit$settings$clip, rel$clip)
  # the equal-noise rule: holland's s and kamath's rho give clip's sensitivity
  for (m in c("holland", "kamath")) {
    set.seed(3)
    f <- dpsco(d$x, d$y, method = m, epsilon = 1e7, iterations = 2)
    st <- f$settings
    dd <- d$p + 1
    C <- privacy(f)$released$clip
    expect_identical(C, rel$clip)
    sens <- if (m == "holland") 2 * sqrt(2) * st$s * sqrt(dd) / (3 * d$n)
            else st$rho * st$k * sqrt(dd) * median_factor_ref(st$k) / (2 * d$n)
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
    tn <- dpsco:::tune_private(d$x, d$y, "gaussian", "clip", "newton", TRUE, z1,
                               NULL, ctl, n = n)
    set.seed(17)
    pm <- function(share, k = 1) z1 * sqrt(k / share)
    # x's kappa from the public n and z1 (2 at these sizes), y's always 2
    kappa <- min(3.5, max(2, 2.5 + 0.6 * log10(n / (6700 * z1))))
    lb <- dpsco:::log_bounds(cbind(d$x, d$y), pm(0.05, 2), c(rep(kappa, p), 2), n,
                             c(rep(1, p), sqrt(p)))
    B <- unname(lb$bound[1:p])
    yb <- unname(lb$bound[p + 1])
    xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
    centre <- dpsco:::dp_mean_release(matrix(d$y), matrix(c(-yb, yb), 2L),
                                      pm(0.03), n)$estimate
    wn <- sqrt(1 + rowSums(xt^2))
    rc <- dpsco:::release_counts(cbind(abs(centre - d$y) * wn, wn), pm(0.02))
    clip <- dpsco:::hist_quantile(rc$counts[, 1], 0.01, n, rc$sd)
    row <- min(dpsco:::hist_quantile(rc$counts[, 2], 0.1, n, rc$sd), sqrt(p + 1))
    rh <- dpsco:::release_curvature(cbind(1, xt), pm(0.2), row, n)
    A <- dpsco:::curvature_matrix(rh$h, rh$sd, 1, 1)$A
    info <- paste("public n", n)
    expect_equal(unname(tn$bound), B, tolerance = 1e-14, label = info)
    expect_equal(tn$x, xt, ignore_attr = TRUE, tolerance = 1e-14)
    expect_equal(tn$beta0, c(centre, rep(0, p)), tolerance = 1e-14, label = info)
    expect_identical(tn$clip, clip)
    expect_identical(tn$row_bound, row)
    expect_equal(tn$curvature, A, tolerance = 1e-12, label = info)
    # the parts' multipliers and sensitivities are those of the releases
    sh <- vapply(tn$parts, `[[`, 0, "noise_multiplier")
    expect_equal(sh, c(pm(0.05, 2), pm(0.03), pm(0.02), pm(0.2)), tolerance = 1e-14)
    sens <- vapply(tn$parts, `[[`, 0, "sensitivity")
    expect_equal(sens, c(lb$sensitivity, yb / n, sqrt(2), row^2 / n),
                 tolerance = 1e-14, label = info)
    expect_equal(rc$sd, pm(0.02) * sqrt(2), tolerance = 1e-15)
  }
})

test_that("dpsco_control() defaults leave every data-dependent setting to the private tuning", {
  ctl <- dpsco_control()
  for (nm in c("clip", "rho", "s", "nu", "output", "x_bound", "center", "row_bound"))
    expect_null(ctl[[nm]], label = nm)
  expect_equal(ctl$shares, c(scale = 0.05, centre = 0.03, quantiles = 0.02,
                             curvature = 0.2))
  expect_equal(ctl$quantiles, c(clip = 0.995, row = 0.9))
  expect_null(ctl$kappa)
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
  expect_equal(unname(c(fit$a0, fit$beta[, 1] * B)), unname(ols),
               tolerance = 1e-6)
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
  expect_equal(spent[1:4], c(scale = 0.05, centre = 0.03, quantiles = 0.02,
                             curvature = 0.2), tolerance = 1e-12,
               ignore_attr = TRUE)
  expect_equal(spent[5], 0.7, tolerance = 1e-5)
  expect_equal(sh$share, c(0.05, 0.03, 0.02, 0.2, 0.7), tolerance = 1e-12)
  # the sensitivities, from the released values: scale sqrt(1.25 sum w^2)
  # with w = 1 per column of x and sqrt(p) for y; the centre y_bound / n;
  # two histograms; B_H^2 / n; the oracle's C / n
  rel <- pr$released
  expect_equal(sh$sensitivity,
               c(sqrt(1.25 * (d$p + d$p)), rel$y_bound / d$n, sqrt(2),
                 rel$row_bound^2 / d$n, rel$clip / d$n), tolerance = 1e-12)
  expect_identical(sh$steps, c(2, 1, 1, 1, 20))
  # 10 lambdas x 2 steps, the first released at the start sets the grid
  expect_identical(fit$settings$iterations, 2L)
  expect_length(fit$lambda, 10)
  expect_identical(names(rel), c("x_bound", "y_bound", "centre", "clip",
                                 "row_bound", "ridge"))
  # each part's own epsilon: one Gaussian mechanism with its own mu
  expect_equal(sh$epsilon_alone[2], dp_epsilon(sh$noise_multiplier[2], 1, 1, pr$delta),
               tolerance = 1e-6)
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
  arg_of <- function(expr) tryCatch(expr, dpsco_arg_error = function(e) e$arg)
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
  expect_equal(sh, c(scale = 0.05, centre = 0.03, quantiles = 0.02, curvature = 0.3))
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
  expect_equal(sh$noise_multiplier[1:4],
               z1 * sqrt(c(2 / 0.1, 1 / 0.03, 1 / 0.02, 1 / 0.4)), tolerance = 1e-12)
  expect_equal(sh$steps[5] / sh$noise_multiplier[5]^2 * z1^2, 1 - 0.55,
               tolerance = 1e-5)
})

test_that("default_kappa() follows its closed form within [2, 3.5]", {
  rule <- function(n, z1) min(3.5, max(2, 2.5 + 0.6 * log10(n / (6700 * z1))))
  for (n in c(100, 6700 * 4.4, 1e5, 2e5, 1e8))
    for (z1 in c(0.5, 4.4, 20))
      expect_equal(dpsco:::default_kappa(n, z1), rule(n, z1), tolerance = 1e-15)
  expect_equal(dpsco:::default_kappa(6700 * 4.4, 4.4), 2.5)
  expect_equal(dpsco:::default_kappa(10, 50), 2)
  expect_equal(dpsco:::default_kappa(1e9, 1), 3.5)
  expect_equal(dpsco:::default_kappa(1000, 0), 3.5)   # not private
})

test_that("wide data get no curvature release and the row bound's step", {
  skip_if_not_installed("Matrix")
  # the rule at a small limit: d = 41 above 40
  withr::local_options(dpsco.curvature_max_d = 40L)
  expect_identical(dpsco:::curvature_max_d(), 40L)
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
  # from the weighted residuals beside the offsets, the curvature from the
  # rows scaled by the square roots of their weights and the mean count
  d <- settings_data(n = 600)
  p <- d$p
  set.seed(4)
  yc <- as.double(stats::rpois(d$n, exp(0.5 + 0.2 * pmin(d$x[, 1], 3))))
  w <- stats::runif(d$n)
  off <- stats::rnorm(d$n, sd = 0.4)
  z1 <- 3
  n <- 750
  set.seed(17)
  tn <- dpsco:::tune_private(d$x, yc, "poisson", "clip", "newton", TRUE, z1,
                             NULL, dpsco_control(), n = n, weights = w,
                             offset = off)
  set.seed(17)
  pm <- function(share, k = 1) z1 * sqrt(k / share)
  kappa <- min(3.5, max(2, 2.5 + 0.6 * log10(n / (6700 * z1))))
  ynet <- yc * exp(-off)
  lb <- dpsco:::log_bounds(cbind(d$x, ynet), pm(0.05, 2), c(rep(kappa, p), 3),
                           n, c(rep(1, p), sqrt(p)))
  B <- unname(lb$bound[1:p])
  yb <- unname(lb$bound[p + 1])
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  rel <- dpsco:::dp_mean_release(matrix(ynet), matrix(c(0, yb), 2L), pm(0.03), n)
  centre <- min(max(rel$estimate, pm(0.03) * yb / 2 / n), yb)
  b0 <- log(max(centre, 1 / n))
  wn <- sqrt(1 + rowSums(xt^2))
  r <- w * abs(exp(b0 + off) - yc)
  rc <- dpsco:::release_counts(cbind(r * wn, wn), pm(0.02))
  clip <- dpsco:::hist_quantile(rc$counts[, 1], 0.01, n, rc$sd)
  row <- min(dpsco:::hist_quantile(rc$counts[, 2], 0.1, n, rc$sd), sqrt(p + 1))
  rh <- dpsco:::release_curvature(cbind(1, xt) * sqrt(w), pm(0.2), row, n,
                                  norms = wn)
  A <- dpsco:::curvature_matrix(rh$h, rh$sd, 1, exp(b0))$A
  expect_equal(unname(tn$bound), B, tolerance = 1e-14)
  expect_equal(tn$beta0, c(b0, rep(0, p)), tolerance = 1e-14)
  expect_identical(tn$clip, clip)
  expect_identical(tn$row_bound, row)
  expect_equal(tn$curvature, A, tolerance = 1e-12)
  sens <- vapply(tn$parts, `[[`, 0, "sensitivity")
  expect_equal(sens, c(lb$sensitivity, yb / 2 / n, sqrt(2), row^2 / n),
               tolerance = 1e-14)
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
