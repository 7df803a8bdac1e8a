# The private ranges of a fit's settings (step 1, the scale, and step 2, the
# centre, of tune_private() in R/settings.R): bounds on |x_j| and the range
# of y from one release of octave histograms, their quantile edges, and the
# centre of y clamped to its range.

# ---------------------------------------------------------------------------
# Bounds for x and the range of y from noisy octave histograms

# One Gaussian release.  Per column j of x, the counts of the records in
# the 64 octave bins of |x_ij| (log2_bin(): bin 1 for |x_ij| <= 2^-32,
# zeros included, then (2^(b - 34), 2^(b - 33)], the top bin open); for
# y, when its range is needed, the 127 bins of the signed octaves of y
# (signed_bin(): the negative octaves, the zero bin, the positive
# octaves).  A record adds 1 to one bin of each column, so with public
# column weights w_j (the counts of column j released times w_j) a
# record added or removed moves the release by sqrt(sum w_j^2) in L2
# whatever the data; column j's noise, back on its own scale, has sd
# z sqrt(sum w^2) / w_j.  y gets w = sqrt(p) (sqrt(3 p) where its range
# comes first: y_first()): its range sets the centre and the validation
# loss of cv.dpsco(), at the price of a factor sqrt(2) (2) on the others'
# noise.  No divisor: the public n enters the estimator only.
octave_release <- function(counts_x, counts_y, z, weight) {
  px <- NCOL(counts_x) * !is.null(counts_x)
  if (length(weight) != px + !is.null(counts_y))
    stop("internal error: one weight per released column")
  sens <- sqrt(sum(weight^2))
  sd <- z * sens / weight
  nb <- c(rep(64L, px), if (!is.null(counts_y)) 127L)
  vals <- c(as.double(counts_x), as.double(counts_y))
  noisy <- release(vals, z, sens, scale = rep(weight, nb), sd = rep(sd, nb))
  list(x = if (px) matrix(noisy[seq_len(64L * px)], 64L,
                          dimnames = list(NULL, colnames(counts_x))),
       y = if (!is.null(counts_y)) noisy[64L * px + seq_len(127L)],
       sd = sd, sensitivity = sens)
}

# The estimator's rule (post-processing of the noisy counts): a count
# below k noise sds is taken as 0; the bound is the upper edge of the
# octave at the upper level tau of the kept non-zero counts, times f.
# Set on bench/ranges.R (mlbench data sets and a heavy-tailed design,
# epsilon 0.5 to 2).  The bounds on |x_j| take f_x (x_octave_factor()),
# from the room the noise leaves and the column's released spread.
octave_rule <- list(k = 3, tau = 0.01, f = 2)

# How much room the noise leaves, from public values only: 0 up to n / z1
# = 1000 (n the public number of records, z1 the multiplier of one
# release of the whole budget), rising with log10(n / z1) to 1 at n / z1
# = 10,000.  Where the noise is small, clamping costs more than the noise
# it saves: the records in the tails of a heavy-tailed x and y carry much
# of the response's squared error.  Where it is large, a feature scaled
# far below 1 drowns in the noise of the curvature and of the steps, and
# a wide clamp on the validation errors drowns the private choice.
# BlogFeedback (n / z1 about 7,400) and n = 4,000 log-normal features
# (about 1,100) set the ends.
noise_room <- function(n, z1) {
  if (!(z1 > 0)) return(1)
  min(max(log10(n / (1000 * z1)), 0), 1)
}

# Whether the range of y comes first: no room at all (n / z1 below 1000),
# where a private path of an unbounded y is mostly its intercept-only
# model, and a range of y lost in the noise leaves that model at [-1, 1]
# (Servo's training part in cv.dpsco(), 94 records at epsilon 0.5: its
# octaves hold about 25 records each, against a level of 56 for one
# octave at 0.12.0's share and weight of y, 35 at these).
y_first <- function(n, z1) z1 > 0 && noise_room(n, z1) == 0

# f_x, the factor of the bounds on |x_j|: 2 with no room; with room, up to
# 8 for a column whose released octaves show a long tail.  The factor
# keeps the records beyond the tau level of a heavy-tailed column (raw
# BlogFeedback's counts: their largest values carry much of the signal),
# but a column whose values lie within an octave or two of their median
# (0/1 indicators, one-hot factors, education in years) has nothing to
# keep up there, and a bound 8 times its values scales it down into the
# noise of the curvature and the steps (raw weekly wages on six 0/1 and
# two bounded columns, bench/panel.R).  `spread` is the octaves from the median
# non-zero octave to the tau level (octave_bound()): the factor rises
# from 2 at a spread of 1 to 2 * 4^room at octave_spread_full.
x_octave_factor <- function(n, z1, spread = octave_spread_full) {
  2 * 4^(noise_room(n, z1) *
           min(max((spread - 1) / (octave_spread_full - 1), 0), 1))
}
octave_spread_full <- 4

# The factor of the clipping level: 1 with no room, 2 with all.  The level
# is the top edge of the highest octave whose noisy count clears the
# noise (hist_quantile()), so up to that level's worth of records in the
# octaves above it go unseen; where the noise is small their clipped
# gradients bias the steps more than doubling the level adds noise (raw
# BlogFeedback, 8 runs a cell, test-set gain at the private choice:
# 0.50 to 0.63 at epsilon 1, 0.70 to 0.73 at epsilon 2, and at the best
# lambda of the path 0.28 to 0.37 at epsilon 0.5).
clip_octave_factor <- function(n, z1) 2^noise_room(n, z1)

# The kept counts (counts >= k sd and > 0, else 0).  No bin holds more
# than the n records, so where k sd exceeds the public n (a tiny epsilon
# for the data's size) nothing can be told apart from the noise, and a
# count that clears k sd is noise: none is kept.
octave_kept <- function(counts, sd, k, n = Inf) {
  if (k * sd > n) return(0 * counts)
  ifelse(counts > 0 & counts >= k * sd, counts, 0)
}

# Whether the fullest kept count could be noise: the run of kept bins is
# built around it, so it must clear the level that the largest of the
# bins' noise passes with probability 1% (3.6 sds for 63 bins, 3.8 for
# 126), not just k sds: at a few dozen records a spike of pure noise
# would otherwise set the range (a y of sd 2.4 got [-16384, -4096]).
anchored <- function(kept, sd) {
  any(kept > 0) &&
    max(kept) >= sd * stats::qnorm(0.01 / length(kept), lower.tail = FALSE)
}

# The run of kept bins (kept > 0) around the fullest one, c(bottom, top),
# gaps of one empty bin allowed: a kept bin outside it is taken as noise
# (a bin of pure noise clears k = 3 sds with probability 0.13%, and a
# column has 63 of them).
octave_run <- function(kept) {
  nb <- length(kept)
  top <- bottom <- which.max(kept)
  repeat {
    if (top + 1L <= nb && kept[top + 1L] > 0) top <- top + 1L
    else if (top + 2L <= nb && kept[top + 2L] > 0) top <- top + 2L
    else break
  }
  repeat {
    if (bottom - 1L >= 1L && kept[bottom - 1L] > 0) bottom <- bottom - 1L
    else if (bottom - 2L >= 1L && kept[bottom - 2L] > 0) bottom <- bottom - 2L
    else break
  }
  c(bottom, top)
}

# Bound on |x_j| from its noisy octave counts (64, log2_bin()) with noise
# sd `sd`: within the run of kept non-zero bins (octave_run()) and the
# thin tail above it (tail_top()), the upper edge 2^(b - 33) of the bin b
# at which the counts above b fall to tau times their total, times f_x,
# at most 2^32.  The level is of the non-zero entries (a mostly-zero column keeps
# the scale of its non-zeros); a column without a kept non-zero bin gets
# 1 (mostly zeros, or too few records for the budget).
octave_bound <- function(counts, sd, rule = octave_rule, n = Inf) {
  kept <- octave_kept(counts, sd, rule$k, n)
  kept[1L] <- 0
  if (!anchored(kept, sd)) return(1)
  run <- octave_run(kept)
  top <- tail_top(counts, sd, run[2L])
  # the run's kept counts, then the tail's noisy counts (at least 0)
  used <- c(kept[seq_len(run[2L])], pmax(counts[-seq_len(run[2L])], 0))
  used[seq_along(used) < run[1L] | seq_along(used) > top] <- 0
  above <- rev(cumsum(rev(used)))      # counts in bins b, b + 1, ...
  b <- max(which(above > rule$tau * sum(used)))
  # (the factor from the spread of the released octaves, where the rule
  # gives the room: x_octave_factor())
  f <- if (!is.null(rule$room_n))
         x_octave_factor(rule$room_n, rule$room_z1,
                         b - min(which(cumsum(used) >= sum(used) / 2)))
       else rule$f_x %||% rule$f
  min(2^(b - 33) * f, 2^32)
}

# The top of a tail spread thinly over the octaves above the run (top):
# with many columns in one release, the noise sd is a few per cent of n,
# and a heavy tail holds less than that in each octave though much more
# in all of them.  A window of 2, 4 or 8 bins that starts one or two bins
# above the top and whose noisy counts sum to the 1% level of the largest
# of the windows' noise (sd sqrt(width), 3 widths for each of nb bins)
# moves the top to its highest bin with a count above 0; repeated until
# no window clears.
tail_top <- function(counts, sd, top) {
  nb <- length(counts)
  level <- stats::qnorm(0.01 / (3 * nb), lower.tail = FALSE)
  repeat {
    new <- top
    for (start in top + 1:2) for (m in c(2L, 4L, 8L)) {
      if (start > nb) next
      w <- start:min(start + m - 1L, nb)
      if (sum(counts[w]) >= level * sd * sqrt(length(w)) && any(counts[w] > 0))
        new <- max(new, w[counts[w] > 0])
    }
    if (new == top) return(top)
    top <- new
  }
}

# The range c(lo, hi) of y from its noisy signed octave counts (127,
# signed_bin()) with noise sd `sd`.  Kept counts as for x; a kept
# non-zero bin whose octave lies outside the run around the fullest
# non-zero octave (counts of both signs added) is taken as noise.  hi is the upper end
# of the bin at which the kept counts above fall to tau times all the kept
# counts (zeros included): the upper edge times f of a positive octave, 0
# for the zero bin, the edge nearer 0 of a negative octave; lo the same
# from below (the edge times f of a negative octave, 0, the lower edge of
# a positive octave).  Within [-2^32, 2^32]; no kept non-zero octave:
# the range from windows of octaves (window_octave_range()), else c(-1, 1)
# marked "unresolved".
signed_octave_range <- function(counts, sd, rule = octave_rule, n = Inf) {
  kept <- octave_kept(counts, sd, rule$k, n)
  mag <- c(0, kept[65:127] + kept[63:1])      # octaves 1 .. 64 of |y|
  if (!anchored(kept[-64L], sd)) {
    # no single octave told apart from the noise: wider windows, else the
    # unit range, marked as such
    wide <- window_octave_range(counts, sd, rule, n)
    return(wide %||% structure(c(-1, 1), unresolved = TRUE))
  }
  run <- octave_run(mag)
  oct <- abs(seq_len(127L) - 64L) + 1L        # each signed bin's octave
  kept[oct != 1L & (oct < run[1L] | oct > run[2L])] <- 0
  level <- rule$tau * sum(kept)
  s_hi <- max(which(rev(cumsum(rev(kept))) > level))
  s_lo <- min(which(cumsum(kept) > level))
  # bins s > 64: octave b = s - 63, (2^(b - 34), 2^(b - 33)]
  upper <- function(s) if (s > 64L) rule$f * 2^(s - 96)
                       else if (s == 64L) 0 else -2^(31 - s)
  lower <- function(s) if (s < 64L) -rule$f * 2^(32 - s)
                       else if (s == 64L) 0 else 2^(s - 97)
  # the range holds 0: a side whose counts did not clear the noise is not
  # taken to be empty (a symmetric y seen on one side only would get a
  # centre far from its mean)
  c(min(max(lower(s_lo), -2^32), 0), max(min(upper(s_hi), 2^32), 0))
}

# The range of y when no single octave clears its noise, as when a few
# dozen records spread over several octaves (Servo: 94 records over six):
# the sums of the noisy counts of |y| over windows of 2, 4 and then 8
# adjacent octaves, whose signal grows w times and noise sqrt(2 w) times
# (both signs).  The window with the largest sum at the first width where
# one clears the level that noise alone passes with probability 1% over
# all windows and widths (ties: the upper) gives the range: f times the
# upper edge of its top octave, on each side whose own sum clears k noise
# sds (both when neither does), 0 on the other.  NULL when no window
# clears, or when k noise sds of a window exceed the public n (nothing
# can be told apart).
window_octave_range <- function(counts, sd, rule = octave_rule, n = Inf) {
  pos <- counts[65:127]                     # octaves 2 .. 64 of |y|
  neg <- counts[63:1]
  for (w in c(2L, 4L, 8L)) {
    sd_w <- sd * sqrt(2 * w)
    if (rule$k * sd_w > n) return(NULL)
    first <- seq_len(length(pos) - w + 1L)
    win <- function(v) vapply(first, function(b) sum(v[b:(b + w - 1L)]), 0)
    tot <- win(pos) + win(neg)
    level <- sd_w * stats::qnorm(0.01 / (3 * length(first)), lower.tail = FALSE)
    if (max(tot) < level) next
    b <- max(which(tot == max(tot)))        # (ties: the upper window)
    # counts[64 + j] holds |y| in (2^(j - 33), 2^(j - 32)]
    edge <- min(rule$f * 2^(b + w - 1L - 32), 2^32)
    seen <- c(neg = sum(neg[b:(b + w - 1L)]), pos = sum(pos[b:(b + w - 1L)])) >=
      rule$k * sd * sqrt(w)
    if (!any(seen)) seen[] <- TRUE
    return(c(-edge * seen[["neg"]], edge * seen[["pos"]]))
  }
  NULL
}

# The range the centre of y is clamped to, from the same noisy counts
# (post-processing): the octaves of the range of y with the factor
# 2^noise_room() in place of the range's 2.  Where the noise leaves no
# room, a range half as wide halves the centre's noise, and a midpoint
# nearer the data keeps the centre from moving with the realised size of
# a training part whose public size is its expected one (cv.dpsco():
# Boston's centre sd 2.2 against 0.7 on the whole data with the range
# [0, 128] for a y in [5, 50]); where it leaves room, the clamp's bias on
# a heavy-tailed y costs more than the noise it saves.
centre_octave_range <- function(counts, sd, st) {
  rule <- octave_rule
  rule$f <- 2^noise_room(st$n, st$z1)
  r <- signed_octave_range(counts, sd, rule, n = release_n(st, "scale"))
  attr(r, "unresolved") <- NULL
  r
}

# ---------------------------------------------------------------------------
# Quantiles from noisy histograms of log2 magnitudes

# The upper edge of the bin at which fewer than tau * n values lie above,
# from counts with Gaussian noise of sd `sd`.  Counts that do not clear
# the level pure noise passes with probability 1e-4 over all bins are
# taken as 0, so an empty bin far out in the tail almost never poses as
# the tail (at a 5% level, about 3% of fits got a clip level thousands of
# times too large); when no count clears it, the fullest noisy bin stands
# in.  `within = TRUE` places the level inside that bin, the values
# taken as spread evenly over its octave on the log scale: the bin's
# top less the octaves its own kept count needs to hold the rest of the
# tau n.  A bin's edge moves the level by a factor of 2 when one more
# octave clears the noise, and so with epsilon: raw weekly wages at
# epsilon 2 got a clip of 7,550 against 3,120 at epsilon 1, and a
# noisier gradient than at epsilon 1 although its multiplier halved.
hist_quantile <- function(counts, tau, n, sd, within = FALSE) {
  kept <- hist_kept(counts, sd)
  if (!any(kept > 0)) return(2^(which.max(counts) - 33))
  above <- c(rev(cumsum(rev(kept)))[-1L], 0)  # values in bins b + 1, ...
  b <- which(above <= tau * n)[1L]
  if (!within || !(kept[b] > 0)) return(2^(b - 33))
  2^(b - 33 - min(max((tau * n - above[b]) / kept[b], 0), 1))
}

# The noisy counts that clear the level pure noise passes with probability
# 1e-4 over all bins; the others taken as 0.
hist_kept <- function(counts, sd) {
  thr <- sd * stats::qnorm(1e-4 / length(counts), lower.tail = FALSE)
  ifelse(counts >= thr, counts, 0)
}

# Whether the noise of the scale release would hide every count of x's
# octave histograms (a public rule: n, p, the share's multiplier and y's
# weight): where k noise sds of a count exceed the n records, octave_kept()
# keeps none and every bound is 1 whatever the data (servo's 117 training
# records at epsilon 0.5 and 1: sds of about 110 and 55 records).  Those
# histograms are then not released, which gives y's the release alone.
x_counts_hidden <- function(st, p, need_y) {
  z <- part_noise(st, "scale")$z
  if (!(z > 0)) return(FALSE)
  wt <- c(rep(1, p), if (need_y) sqrt((st$y_weight %||% 1) * max(p, 1)))
  octave_rule$k * z * sqrt(sum(wt^2)) > release_n(st, "scale")
}

# x's octave counts (design_octaves()), those of the columns a deferred
# standardisation moves from their centred and scaled values.
moved_octaves <- function(x, moved, idx) {
  counts <- design_octaves(x, idx)
  cols <- attr(moved, "cols")
  if (length(cols))
    counts[, cols] <- design_octaves(unname(moved[, , drop = FALSE]), idx)
  counts
}

# Step 1, the scale: bounds on |x_j| and, when the centre of a gaussian
# or poisson y or the quantile family's histogram of y needs it, the range
# of y, from one release of octave histograms (octave_release()).  x's
# counts come from a pass in C (design_octaves()), y's from R.  A declared
# x_bound (one number or one per column) or y_range replaces its estimate
# and costs nothing; with both declared there is no release.
scale_bounds <- function(x, y, fam, intercept, ctl, constrained, st,
                         moved = NULL) {
  p <- ncol(x)
  if (!is.null(ctl$x_bound) && !length(ctl$x_bound) %in% c(1L, p))
    arg_error("control", "$x_bound has ", length(ctl$x_bound), " values; ",
              "give one, or one per column of x (", p, ").")
  if (!is.null(ctl$y_range) && fam$classes)
    arg_error("control", "$y_range does not apply to the ", fam$name,
              " family: its y is a class.")
  # a family's own settings of y (quantile: a histogram of y) need the
  # bound as their range, unless the centre and the bandwidth are both
  # declared; an unbounded residual needs it for the centre's clamp (and
  # the unit scale of the radius methods)
  need_hist <- !is.null(fam$y_settings) &&
    (is.null(fam$bandwidth) || intercept && is.null(ctl$center))
  use_y <- !fam$bounded &&
    (constrained || intercept && is.null(ctl$center)) || need_hist
  need_y <- use_y && is.null(ctl$y_range)
  need_x <- is.null(ctl$x_bound)
  out <- list(bound = NULL, y_bound = NULL, y_range = NULL)
  # (a public rule: where the noise would hide every count of x, the
  # histograms of x are not released and the bounds are the 1 they would
  # give; y then has the release to itself)
  hidden <- need_x && (isTRUE(st$x_hidden) || x_counts_hidden(st, p, need_y))
  if (hidden) need_x <- FALSE
  if (need_x || need_y) {               # neither: every bound declared
    zq <- part_noise(st, "scale")
    z <- zq$z
    px <- if (need_x) p else 0L
    wt <- c(rep(1, px), if (need_y) sqrt((st$y_weight %||% 1) * max(px, 1)))
    # (the factors follow the noise of the whole fit, on the public n:
    # noise_room())
    rule_x <- c(octave_rule, room_n = st$n, room_z1 = st$z1)
    # x's and y's counts of the same records: the release's subsample
    idx <- if (!is.null(st$sub)) settings_rows(x, release_sub(st, "scale"))
    nr <- release_n(st, "scale")
    rel <- octave_release(if (need_x) moved_octaves(x, moved, idx),
                          if (need_y) signed_octave_counts(y, idx), z, wt)
    if (need_x)
      out$bound <- vapply(seq_len(p), function(j)
        octave_bound(rel$x[, j], rel$sd[j], rule_x, n = nr), 0)
    if (need_y) {
      out$y_range <- signed_octave_range(rel$y, rel$sd[px + 1L], n = nr)
      out$y_unresolved <- isTRUE(attr(out$y_range, "unresolved"))
      attr(out$y_range, "unresolved") <- NULL
      out$centre_range <- centre_octave_range(rel$y, rel$sd[px + 1L], st)
      out$y_bound <- max(abs(out$y_range))
    }
    out$parts <- list(settings_part(
      st, "scale", z, 1, rel$sensitivity,
      sub_text(st, if (hidden)
                     paste("Gaussian: signed octaves of y (no histograms of",
                           "|x_j|: the noise would hide every count)")
                   else paste0("Gaussian: octave histograms of |x_j|",
                               if (!need_x) " (none: declared)",
                               if (need_y) " and signed octaves of y"),
               "scale"),
      paste0("bounds on |x_j| ", if (need_x) range_text(out$bound)
             else if (hidden) "1" else "declared", if (need_y)
               paste0("; range of y [", fmt3(out$y_range[1L]), ", ",
                      fmt3(out$y_range[2L]), "]")), q = zq$q))
    out$released <- compact(list(x_bound = out$bound, y_bound = out$y_bound,
                                 y_range = out$y_range,
                                 centre_range = out$centre_range))
  }
  if (hidden) {
    out$bound <- rep(1, p)
    out$public <- paste("bounds on |x_j| (1, by the public rule: at this n",
                        "and epsilon the noise would hide every count)")
  } else if (!need_x) {
    out$bound <- rep_len(as.double(ctl$x_bound), p)
    out$public <- "bounds on |x_j|"
  }
  if (use_y && !need_y) {
    out$y_range <- as.double(ctl$y_range)
    out$y_bound <- max(abs(out$y_range))
    out$public <- c(out$public, "range of y")
  }
  out
}

# Step 2, the centre: the starting point, whose intercept is the private
# mean of y clamped to its released (or declared) range (gaussian: [lo,
# hi]; poisson: [0, hi]), the private event rate on the link scale
# (binomial) or the quantile family's released centre.  The released
# centre is kept within that range (post-processing).
centre_release <- function(y, fam, y_range, y_scale, intercept,
                           ctl, p, st) {
  nclass <- fam$nclass %||% 1L
  beta0 <- rep(0, (p + intercept) * nclass)
  if (!intercept) return(list(beta0 = beta0))
  out <- list()
  if (!is.null(fam$centre_release)) {
    if (!is.null(ctl$center))
      arg_error("control", "$center does not apply to the multinomial ",
                "family: its start is the released class shares.")
    # the family's own release (multinomial: the K class shares), kept in
    # [0, 1] (post-processing)
    z <- part_multiplier(st$z1, st$shares[["centre"]])
    rel <- fam$centre_release(y, z, st$n)
    centre <- pmin(pmax(rel$estimate, 0), 1)
    out$parts <- list(settings_part(
      st, "centre", z, 1, rel$sensitivity,
      "Gaussian: shares of the classes of y",
      paste("class shares", range_text(centre))))
  } else if (is.null(fam$centre_range)) {
    # released by the family's own settings of y
    centre <- fam$centre / y_scale
  } else if (!is.null(ctl$center)) {
    centre <- ctl$center / y_scale
    out$public <- "centre of y"
  } else {
    z <- part_multiplier(st$z1, st$shares[["centre"]])
    rng <- fam$centre_range(y_range)
    rel <- dp_mean_release(y, matrix(rng, 2L), z, st$n)
    # (post-processing) within the range the mean was clamped to
    centre <- min(max(rel$estimate, rng[1L]), rng[2L])
    # a mean count below the noise sd of its release is not told apart
    # from that noise, and a start below it would give a curvature e^b0
    # of almost 0, whose Newton steps diverge: kept within [noise sd,
    # bound]
    if (fam$centre_floor)
      centre <- min(max(centre, rel$noise_sd), rng[2L])
    out$parts <- list(settings_part(
      st, "centre", z, 1, trimmed_sensitivity(matrix(rng, 2L), st$n),
      paste0("Gaussian: mean of y clamped to [", fmt3(rng[1L]), ", ",
             fmt3(rng[2L]), "]"), paste("centre of y", fmt3(centre))))
  }
  out$released <- list(centre = centre)
  beta0[intercept_positions(p + intercept, nclass)] <- fam$start(centre, st$n)
  c(out, list(beta0 = beta0))
}
