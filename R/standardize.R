# Preprocessing of x within the privacy contract.  Three ways to put x on a
# common scale: centres and scales the user declares public, a private
# standardisation that spends a declared share of the budget, or glmnet-style
# standardisation with the data's own statistics, which the guarantee does
# not cover (and says so with a dpsco_privacy_warning).  The default,
# "auto", is the private standardisation of the columns that need it, where
# a public rule says its release can show them (resolve_standardize()).

# What standardize = "auto" becomes for a fit (a public rule: the method,
# the tuning, the form of x, the public n, p and the budget): "auto" (the
# private standardisation with the column rule of standardize_x()) for a
# private fit with private tuning and an intercept of a dense in-memory x,
# whose histograms could show a column (the level their counts must clear,
# std_level(), is below the n records: a bin can hold no more); FALSE
# otherwise.  Not with an inference stage, whose intervals were validated
# on the unstandardised design (bench/inference_real.R), nor for the
# radius methods, which bound x themselves, nor with declared bounds on
# |x_j| (dpsco_control(x_bound = )), which are of x as given.  Below that
# level the release shows nothing and its share would come off the centre
# of y and the path (servo's 94 training records at epsilon 1: harm <=
# 1.05 in 0.85 of 20 splits with the release against 0.95 without;
# bench/README.md).
resolve_standardize <- function(standardize, x, private, tuned, intercept,
                                radius, inference, n, epsilon, delta,
                                control) {
  if (!identical(standardize, "auto")) return(standardize)
  delta <- delta %||% (0.1 / n)         # check_target()'s default
  # (a bad epsilon or delta is check_target()'s error, later)
  target <- is_number(epsilon) && is.finite(epsilon) && epsilon > 0 &&
    is_number(delta) && delta > 0 && delta < 1
  use <- private && tuned && intercept && !radius && !inference && target &&
    is.null(control$x_bound) && is.matrix(x) && ncol(x) > 0L &&
    std_level(ncol(x), epsilon, delta, control$std_share)$threshold < n
  if (use) "auto" else FALSE
}

# The noise multiplier of the private standardisation's three releases (in
# the unit of every share, R/settings.R; under calibration = "paper" the
# three calibrated jointly to (share epsilon, share delta)) and the level
# a count of its histograms must clear: pure noise passes it with
# probability 5% over the 62 bins of all p columns (Bonferroni).
std_level <- function(p, epsilon, delta, share, paper = FALSE) {
  z <- if (paper) calibrate_noise(list(), 1, 3, share * epsilon, share * delta)
       else part_multiplier(calibrate_noise(list(), 1, 1, epsilon, delta),
                            share, 3)
  list(z = z, threshold = z * sqrt(p) *
         stats::qnorm(0.05 / (62 * as.double(p)), lower.tail = FALSE))
}

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
  auto <- identical(standardize, "auto")
  if (auto || identical(standardize, "private")) {
    if (!private)
      arg_error("standardize", "\"private\" needs a private method.")
    ps <- private_standardization(x, intercept, epsilon, delta,
                                  control$std_share, n, paper)
    if (auto) {
      # "auto" centres and scales only the columns whose released centre
      # lies beyond their released scale (post-processing): a column far
      # from 0 for its spread (years, bands of 0-255, education in years)
      # sits near the intercept's direction, and the bound that holds its
      # values leaves it a variance below the curvature's ridge, where the
      # Newton steps hardly move.  Centred and scaled it gets a bound of a
      # few units.  A column within a sd of 0 (counts with many zeros,
      # indicators, symmetric columns) has nothing to gain, and a heavy
      # tail's private scale is crude (bench/README.md, 0.25.0: the
      # standardisation of every column lost 0.06 on blog at epsilon 0.5).
      # (where the noisy variance is not positive, ps$scale is the bound:
      # the spread is then within the noise of the second moment, small
      # for the centre, which is compared with a quarter of the bound)
      far <- abs(ps$center) > ifelse(ps$scale >= ps$bound, ps$bound / 4,
                                     ps$scale)
      ps$center[!far] <- 0
      ps$scale[!far] <- 1
    }
    ps$part$released <- paste0(
      "centres and scales of ", length(moved_set(ps)), " of ", p, " columns",
      if (auto) paste(" (standardize = \"auto\": the others, within a",
                      "scale of 0, as given)"))
    if (auto)
      # the few moved columns are centred inside the private settings'
      # passes (moved_columns()), which copy x anyway: no copy here
      return(list(x = x, center = ps$center, scale = ps$scale,
                  mode = "private", part = ps$part, public = character(),
                  not_covered = not_covered_use(), deferred = TRUE))
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
  lv <- std_level(p, epsilon, delta, share, paper)
  z <- lv$z
  # the bins of ceiling(log2 |x|) within -30..31 are the octave pass's
  # (log2_bin(), in C): its bins 1-3 hold |x| <= 2^-30, bin b > 3 the
  # octave (2^(b - 34), 2^(b - 33)], the top one open
  if (!is.double(x)) storage.mode(x) <- "double"
  oct <- design_octaves(x)
  counts <- rbind(colSums(oct[1:3, , drop = FALSE]),
                  oct[-(1:3), , drop = FALSE])
  storage.mode(counts) <- "double"
  dimnames(counts) <- NULL
  noisy <- release(counts, z, sqrt(p), sd = z * sqrt(p))
  threshold <- lv$threshold
  # no bin above the noise (too little data for this budget): B_j = 1
  bin <- apply(noisy, 2L, function(cnt) {
    hit <- which(cnt >= threshold)
    if (length(hit)) max(hit) else 31L
  })
  bound <- 2^(bin - 31)
  # the sums of u = clamp(x_j / B_j, -1, 1) and of u^2 (= clamp(u^2, 0,
  # 1)), one pass in C, centred at their ranges' midpoints 0 and 1/2.  (x
  # is finite and B_j > 0, so u has no NaN.)
  sums <- settings_pass(x, 6L, bound = as.double(bound)) -
    c(0, 0.5 * nrow(x))
  m1 <- bound * dp_mean_from_sums(sums[1L, ], rbind(rep(-1, p), rep(1, p)),
                                  z, n)$estimate
  m2 <- bound^2 * dp_mean_from_sums(sums[2L, ], rbind(rep(0, p), rep(1, p)),
                                    z, n)$estimate
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
       part = privacy_part("standardize", z, 1, 3, NA_real_, share,
                           mechanism = paste(
                             "Gaussian: histograms of ceiling(log2 |x_j|),",
                             "means of x_j / B_j clamped to [-1, 1] and of",
                             "its square")))
}

apply_standardization <- function(x, ctr, scl, mode, part, public, not_covered) {
  # only the columns that move (standardize = "auto" leaves most as given)
  xs <- x
  for (j in moved_set(list(center = ctr, scale = scl)))
    xs[, j] <- (x[, j] - ctr[j]) / scl[j]
  list(x = xs, center = ctr, scale = scl, mode = mode, part = part,
       public = public, not_covered = not_covered)
}

# The columns of x that a deferred standardisation (standardize =
# "auto") moves, centred and scaled: an n x k matrix for the k moved
# columns `cols` (NULL for none).  The private settings' octave pass and
# the bounds' clamp read these in place of x's own (scale_bounds(),
# tune_private()), so the fit sees the standardised x without a copy of
# all of it.
moved_columns <- function(x, shift) {
  cols <- moved_set(shift)
  if (!length(cols)) return(NULL)
  m <- vapply(cols, function(j) (x[, j] - shift$center[j]) / shift$scale[j],
              numeric(nrow(x)))
  structure(matrix(m, nrow(x)), cols = cols)
}

# The columns a standardisation moves (a centre other than 0 or a scale
# other than 1).
moved_set <- function(std) which(std$center != 0 | std$scale != 1)

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
