# Empirical privacy audit of the subsampled settings releases (R/settings.R
# settings_subsample(); helper-audit.R has the statistics): the scale
# release (octave counts of |x_j| and of y), the truncation histograms
# and the curvature on a Poisson subsample at rate q, through the
# functions scale_bounds(), truncation_levels() and curvature_release()
# call (settings_rows(), the passes on the drawn
# rows, the release at the multiplier subsample_multiplier() gives), at the
# public size n on D and on D plus a record at the domain's edges (|x| =
# 2^40 in every column, y = -1e12: the open end bins), in both data-size
# cases.  The accounted epsilon is the accountant's for the part (z_sub,
# q, 1).  Broken variant: the rate misreported, the noise calibrated for a
# subsample of rate q / 4 while the records are drawn at rate q (the
# accountant is told q / 4).  The test at rate 1/2 has the power to see
# both within a few thousand releases.

# The release of `counts(x, y, rows)` (the sums a pass forms over the
# records rows; NULL: all) with multiplier z, as `noisy(counts, z)` makes
# it, on the drawn rows at rate q, audited on D and D' (D plus the edge
# record) in both data-size cases.
subsample_audit <- function(trials, counts, noisy, N = 30, p = 3, q = 0.5,
                            zero_x = FALSE) {
  # (curv_noisy() divides by m = q N)
  stopifnot(N == 30, q == 0.5)
  set.seed(20261401)
  x <- matrix(exp(stats::rnorm((N + 1) * p, 0, 2)), N + 1, p) * !zero_x
  y <- stats::rnorm(N + 1, 5, 3)
  z_sub <- subsample_multiplier(audit_z(), q, audit_delta)
  z_low <- subsample_multiplier(audit_z(), q / 4, audit_delta)
  release <- function(xx, yy, zz, rate) function() {
    rows <- if (rate < 1) settings_rows(xx, list(q = rate))
    noisy(counts(xx, yy, rows), zz)
  }
  out <- list(accounted = account_epsilon(list(list(
    noise_multiplier = z_sub, sample_rate = q, steps = 1)), audit_delta),
    claimed_low = account_epsilon(list(list(
      noise_multiplier = z_low, sample_rate = q / 4, steps = 1)), audit_delta))
  for (size in names(size_pairs(N))) {
    rows <- size_pairs(N)[[size]][1L]
    x0 <- x[seq_len(rows), , drop = FALSE]
    y0 <- y[seq_len(rows)]
    x1 <- rbind(x0, 2^40 * rep_len(c(1, -1), p))
    y1 <- c(y0, -1e12)
    u <- unit(release(x1, y1, 0, 1)() - release(x0, y0, 0, 1)())
    out[[size]] <- list(
      honest = audit_releases(release(x0, y0, z_sub, q),
                              release(x1, y1, z_sub, q), u, trials, audit_delta),
      broken = audit_releases(release(x0, y0, z_low, q),
                              release(x1, y1, z_low, q), u, trials, audit_delta))
  }
  out
}

# The scale release (scale_bounds()): the octave counts of |x_j| and the
# signed octave counts of y of the same records, column j's counts times
# its public weight w_j (y's sqrt(p)), sensitivity sqrt(sum w^2).
scale_counts <- function(x, y, rows)
  list(x = design_octaves(x, rows), y = signed_octave_counts(y, rows))
scale_noisy <- function(cn, z) {
  p <- ncol(cn$x)
  w <- c(rep(1, p), sqrt(p))
  r <- octave_release(cn$x, cn$y, z, w)
  c(as.double(r$x), r$y) * rep(w, c(rep(64, p), 127))
}

# The truncation histograms (truncation_levels()): log2 |r_i| ||(1, x_i)||
# and log2 ||(1, x_i)|| of the same records (here r_i = y_i, the
# residual at a start of 0), two counts moved by a record: sensitivity
# sqrt(2).
trunc_counts <- function(x, y, rows)
  design_row_stats(x, TRUE, if (is.null(rows)) y else y[rows + 1L], FALSE,
                   TRUE, rows)$counts
trunc_noisy <- function(counts, z) as.double(release_counts(counts = counts, z = z)$counts)

# The curvature (curvature_release()): the second-moment matrix of the
# rows (1, x_i) clipped to B = 2, over the subsample's expected size m =
# q N, its upper triangle (one noise draw per entry).  With one column the
# record (1, 2^40) is clipped to (about) (0, B): it moves entry (2, 2) by
# the whole sensitivity B^2 / m.  The other rows are (1, 0) (zero_x), so
# the records the subsample draws move entry (1, 1) only, not the
# statistic (as in test-audit.R's curvature audit).
curv_counts <- function(x, y, rows) list(x = x, rows = rows)
curv_noisy <- function(cn, z) {
  norms <- design_row_stats(cn$x, TRUE, rows = cn$rows)$norm
  h <- release_curvature(structure(list(x = cn$x, rows = cn$rows),
                                   class = "design_cols"), z, 2, 0.5 * 30,
                         norms, TRUE)$h
  h[upper.tri(h, diag = TRUE)]
}

audit_cases <- list(scale = list(scale_counts, scale_noisy, 3, FALSE),
                    truncation = list(trunc_counts, trunc_noisy, 3, FALSE),
                    curvature = list(curv_counts, curv_noisy, 1, TRUE))

test_that("quick audit: the subsampled settings releases stay within their accounted epsilon", {
  for (nm in names(audit_cases)) {
    a <- subsample_audit(6000, audit_cases[[nm]][[1]], audit_cases[[nm]][[2]],
                         p = audit_cases[[nm]][[3]],
                         zero_x = audit_cases[[nm]][[4]])
    # the part costs no more than the full-data release it replaces, and
    # the misreported one claims no more either
    expect_lte(a$accounted, audit_eps_target * (1 + 1e-9))
    expect_lte(a$claimed_low, audit_eps_target * (1 + 1e-9))
    for (size in c("below", "above"))
      expect_audit(a[[size]]$honest, a[[size]]$broken, a$accounted)
  }
})

test_that("long audit: the subsampled settings releases stay within their accounted epsilon", {
  skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
  for (nm in names(audit_cases)) {
    a <- subsample_audit(3e4, audit_cases[[nm]][[1]], audit_cases[[nm]][[2]],
                         p = audit_cases[[nm]][[3]],
                         zero_x = audit_cases[[nm]][[4]])
    for (size in c("below", "above")) {
      message(sprintf("audit subsampled %s (%s)  accounted %.3f  eps_lb %.3f; rate misreported %.3f",
                      nm, size, a$accounted, a[[size]]$honest, a[[size]]$broken))
      expect_audit(a[[size]]$honest, a[[size]]$broken, a$accounted)
    }
  }
})
