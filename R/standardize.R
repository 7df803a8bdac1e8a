# Preprocessing of x within the privacy contract.  Three ways to put x on a
# common scale: centres and scales the user declares public, a private
# standardisation that spends a declared share of the budget, or glmnet-style
# standardisation with the data's own statistics, which the guarantee does
# not cover (and says so with a dpsco_privacy_warning).

# Returns list(x, center, scale, mode, part, public, not_covered).
standardize_x <- function(x, standardize, intercept, private, epsilon, delta,
                          control, n, paper = FALSE) {
  p <- ncol(x)
  none <- list(x = x, center = rep(0, p), scale = rep(1, p), mode = "none",
               part = NULL, public = character(),
               not_covered = not_covered_use())
  if (isFALSE(standardize)) return(none)
  if (is.list(standardize)) {
    ctr <- standardize$center %||% rep(0, p)
    scl <- standardize$scale %||% rep(1, p)
    if (!is.numeric(ctr) || length(ctr) != p || !all(is.finite(ctr)))
      arg_error("standardize", "$center must be ", p, " finite numbers.")
    if (!is.numeric(scl) || length(scl) != p || !all(is.finite(scl)) || any(scl <= 0))
      arg_error("standardize", "$scale must be ", p, " finite positive numbers.")
    if (!intercept) ctr <- rep(0, p)  # as glmnet: no centring without intercept
    return(apply_standardization(x, ctr, scl, "public", NULL,
                                 "centres and scales of x (declared by the user)",
                                 not_covered_use()))
  }
  if (isTRUE(standardize)) {
    if (private)
      privacy_warning("standardize = TRUE uses the column means and standard ",
                      "deviations of x, which the privacy guarantee does NOT ",
                      "cover; use standardize = \"private\" or declare public ",
                      "centres and scales with standardize = list(center, scale).")
    ctr <- if (intercept) colMeans(x) else rep(0, p)
    scl <- sqrt(colMeans((x - rep(ctr, each = nrow(x)))^2))
    scl[scl <= 0] <- 1
    return(apply_standardization(x, ctr, scl, "data (not private)", NULL,
                                 character(), not_covered_use(
      paste("standardize = TRUE read the column means and standard",
            "deviations of x from the data"),
      paste("use standardize = \"private\", inside the budget, or declare",
            "standardize = list(center, scale)"))))
  }
  if (identical(standardize, "private")) {
    if (!private)
      arg_error("standardize", "\"private\" needs a private method.")
    ps <- private_standardization(x, intercept, epsilon, delta,
                                  control$std_share, n, paper)
    return(apply_standardization(x, ps$center, ps$scale, "private", ps$part,
                                 character(), not_covered_use()))
  }
  arg_error("standardize", "must be FALSE, TRUE, \"private\" or ",
            "list(center = , scale = ).")
}

# Private column centres and scales in three releases that share one noise
# multiplier z and the share `share` of the budget, in the unit of every
# share (R/settings.R: mu^2 of the single release that meets (epsilon,
# delta), z = z1 sqrt(3 / share)).  Under calibration = "paper", whose
# optimiser's theorem composes by adding epsilons, the share is instead
# of (epsilon, delta), the three releases calibrated jointly to (share *
# epsilon, share * delta), and the optimiser takes the rest.  The releases:
#  1. a noisy histogram of ceiling(log2 |x_ij|) per column over the public
#     bins 2^-30 .. 2^31 (one record moves one count per column: L2
#     sensitivity sqrt(p)).  B_j = 2^b for the largest bin b whose noisy
#     count clears a threshold that pure noise passes with probability 5%
#     over all bins (Bonferroni), so the bound follows the bulk of the
#     column and ignores a heavy tail's few extreme records (B_j = 1 when no
#     bin clears it);
#  2. the trimmed mean of x_j / B_j clamped to [-1, 1];
#  3. the trimmed mean of (x_j / B_j)^2 clamped to [0, 1].
# Scaling by B_j before clamping makes each column's noise proportional to
# its own scale.  centre = B_j * (2), scale = B_j sqrt((3) - (2)^2), or B_j
# when the noisy variance is not positive; a column whose bound is the
# lowest bin (2^-30: all zero at the histogram's resolution) keeps centre 0
# and scale 1.  Only public information (the public number of records n,
# p, the bin range) enters besides the three releases.
private_standardization <- function(x, intercept, epsilon, delta, share, n,
                                    paper = FALSE) {
  p <- ncol(x)
  nbin <- 62L
  z <- if (paper) calibrate_noise(list(), 1, 3, share * epsilon, share * delta)
       else part_multiplier(calibrate_noise(list(), 1, 1, epsilon, delta),
                            share, 3)
  e <- pmin(pmax(ceiling(log2(abs(x))), -30), 31) + 31  # bins 1..62
  counts <- vapply(seq_len(p), function(j) tabulate(e[, j], nbin), numeric(nbin))
  sd_count <- z * sqrt(p)
  noisy <- release(counts, z, sqrt(p), sd = sd_count)
  threshold <- sd_count * stats::qnorm(0.05 / (as.double(nbin) * p), lower.tail = FALSE)
  # no bin above the noise (too little data for this budget): B_j = 1
  bin <- apply(noisy, 2L, function(cnt) {
    hit <- which(cnt >= threshold)
    if (length(hit)) max(hit) else 31L
  })
  bound <- 2^(bin - 31)
  u <- x / rep(bound, each = nrow(x))
  m1 <- bound * dp_mean_release(u, rbind(rep(-1, p), rep(1, p)), z, n)$estimate
  m2 <- bound^2 * dp_mean_release(u^2, rbind(rep(0, p), rep(1, p)), z, n)$estimate
  ctr <- if (intercept) m1 else rep(0, p)
  v <- if (intercept) m2 - m1^2 else m2
  scl <- ifelse(v > 0, sqrt(pmax(v, 0)), bound)
  # A column whose bound is the lowest bin (its bulk is 0 or below 2^-30 in
  # absolute value, e.g. an all-zero column) has no scale to estimate: its
  # noisy variance is pure noise times 2^-60, and dividing by its root would
  # multiply the column's (noise-only) coefficient by ~1e9 or more on the
  # original scale.  Such a column is left as it is (centre 0, scale 1).
  # Post-processing of the histogram release: no privacy cost, same draws.
  flat <- bin == 1L
  ctr[flat] <- 0
  scl[flat] <- 1
  list(center = unname(ctr), scale = unname(scl),
       bound = bound,
       part = privacy_part("standardize", z, 1, 3, NA_real_, share))
}

apply_standardization <- function(x, ctr, scl, mode, part, public, not_covered) {
  xs <- (x - rep(ctr, each = nrow(x))) / rep(scl, each = nrow(x))
  list(x = xs, center = ctr, scale = scl, mode = mode, part = part,
       public = public, not_covered = not_covered)
}

# Private bounds on top of a standardisation: the fit sees
# clamp((x - center) / (scale B), -1, 1), so the bounds become part of the
# scale, and the clamp, in the units of x, is [center - scale B,
# center + scale B], which predict() applies to new data.
add_bounds <- function(std, bound) {
  if (is.null(bound)) return(std)
  scl <- std$scale * bound
  std$range <- rbind(std$center - scl, std$center + scl)
  std$scale <- scl
  std$mode <- if (std$mode == "none") "private bounds"
              else paste(std$mode, "with private bounds")
  std
}

# Coefficients on the standardised scale back to the scale of x
# (post-processing): beta_j = b_j / scale_j, a0 = b0 - sum(b_j center_j / scale_j).
unstandardize <- function(a0, beta, std) {
  beta <- beta / std$scale
  list(a0 = a0 - colSums(beta * std$center), beta = beta)
}
