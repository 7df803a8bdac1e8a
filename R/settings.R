# Every setting of a privately tuned fit that depends on the data is chosen
# here, and nowhere else: the bounds that put x on a common scale, the
# starting intercept, the oracle's truncation level, the bound on the rows
# that enter the curvature, the curvature itself and the step size.  Each
# release is one Gaussian mechanism on the full data (at a large public n,
# three of them on Poisson subsamples: settings_subsample()), and each becomes a
# part of the privacy record with its share of the budget, its mechanism
# and what it released.  A value the user declares public (in
# dpsco_control()) replaces its estimate, costs nothing and is listed as
# public instead.
#
# Budget shares are fractions of the budget of a single Gaussian release
# that meets (epsilon, delta) on its own, in units of mu^2 (mu = sensitivity
# / noise sd).  Gaussian releases on the full data compose exactly by adding
# mu^2, so a part with share s and k releases gets the noise multiplier
# z1 sqrt(k / s), where z1 is that single release's multiplier; the
# optimiser is then calibrated on what the parts leave.

default_shares <- c(scale = 0.2, centre = 0.03, quantiles = 0.02,
                    curvature = 0.2)

# The defaults of the scale and centre shares follow the public n, p and
# z1 (a public rule: the record lists the shares used).  The histograms
# tell a column's bins from noise while the noise sd of a count, z1
# sqrt(2 p / share), is at most n / 30, and the centre's error, z1 (hi -
# lo) / (2 n sqrt(share)), is at most (hi - lo) / 200 when the share is
# (100 z1 / n)^2: both need a larger share the smaller n is, where the
# optimiser's steps are mostly noise anyway, and almost none at large n,
# where every step counts.  The scale share lies within [0.05, 0.2], the
# centre's within [0.03, 0.5].  Below a few hundred records per unit of
# z1 the intercept-only model is what a private fit mostly is, and the
# error of its centre decides whether the fit does worse than the mean:
# a centre off by a third of y's sd costs 5% in RMSE on its own (Boston,
# 354 records, epsilon 1: harm <= 1.05 in 84% of 50 splits at a share of
# 0.15, in all of them with this rule and the centre's clamp of
# centre_octave_range(); bench/small_data.R).  The methods on radii, whose
# paths hold no intercept-only candidate, and the families of classes,
# whose trivial model is the majority class however far the rate is off,
# keep 0.12.0's (40 z1 / n)^2 within [0.03, 0.15] (centre_rule): the
# budget is worth more to their steps (HouseVotes84, 304 records, epsilon
# 2: G 0.56 at 0.12.0's share, 0.10 at the larger one).  The
# centre's share leaves the optimiser at least 0.1 whatever the other
# shares (or, when they leave less, keeps its default).  A share given in
# dpsco_control() is kept.
adaptive_shares <- function(shares, n, p, z1,
                            centre_rule = c(k = 100, cap = 0.5),
                            scale_cap = default_shares[["scale"]]) {
  given <- attr(shares, "given")
  out <- shares
  if (!(z1 > 0)) return(out)
  fit <- function(v, lo, hi) min(hi, max(lo, v))
  if (!"scale" %in% given)
    out[["scale"]] <- fit((30 * z1 * sqrt(2 * max(p, 1)) / n)^2, 0.05,
                          scale_cap)
  if (!"centre" %in% given) {
    cap <- min(centre_rule[["cap"]], 0.9 - sum(out[names(out) != "centre"]))
    if (cap > out[["centre"]])
      out[["centre"]] <- fit((centre_rule[["k"]] * z1 / n)^2, out[["centre"]],
                             cap)
  }
  out
}

# Noise multiplier of a part: k releases sharing `share` of the budget of a
# single release with multiplier z1 (z1 = 0: not private, no noise).
part_multiplier <- function(z1, share, k = 1) z1 * sqrt(k / share)

# ---------------------------------------------------------------------------
# Subsampled settings for large n

# At a large public n the passes over x behind three releases (the octave
# counts of the scale, the histograms of the truncation levels, the
# second-moment matrix of the curvature) cost 3-10 ns a value, against
# 0.66 ns for a gradient pass over a mapped x (bench/README.md), and their
# noise, relative to n, is far below what the estimators resolve (octave
# bins, a tail level of 1%).  Above the threshold each of them reads its
# own Poisson subsample of the records instead: every record in it
# independently with probability q = m / n, from R's generator (a new
# subsample per release, drawn right before its pass).  Each is then a
# Poisson-subsampled Gaussian mechanism (z_sub, q, 1 step), which the
# accountant composes exactly (privacy loss distribution); z_sub is the
# smallest multiplier at which it costs, alone at the fit's delta, no
# more than the full-data release of its share would
# (subsample_multiplier()), and the optimiser is calibrated on what all
# the parts leave, composed exactly.
#
# The public rule (n, p, secure; never the data): m = 2^18 records, from
# n = 16 m (q at most 1/16) up, and at least n / 8 for the curvature
# (release_sub()).  m: a release on m records at the
# calibrated z_sub is as noisy, relative to its sample, as the full-data
# release at n of 2 to 3 million (z_sub / m against z / n: at n = 2e7,
# epsilon 1, z_sub = 1.0 to 1.3 against z = 9.5 to 19), where the octave
# levels are not what limits a fit; the sampling error of a level at
# 1% of the records is 0.2% of m, below that noise; and the two passes
# over m rows (p = 50: 1.3e7 values each, read at 17-45 ns a value, a
# cache miss each, at q = 1/76) cost about one gradient pass at n = 2e7
# (1e9 values at 0.7-1.4 ns), the curvature's two over n / 8 rows one or
# two more, where the full passes cost about 25 (bench/README.md,
# bench/subsample.R; at n = 2e7 the subsampled fit's test RMSE was
# within 0.2% of the full-pass fit's).  The threshold keeps q small enough for the
# saving to be worth the noise (at q = 1/16 the subsampled release is 1.5
# to 3 times noisier than the full one, at q = 1/80, n = 2e7, 5 to 15
# times).  Neither depends on p: the passes' cost and the noise's growth
# with p are the same with and without the subsample.  Secure noise never
# subsamples (its accountant takes no subsampled part), nor does a fit
# without noise.  options(dpsco.settings_subsample =) overrides the rule,
# for the tests and the audit: FALSE never, TRUE always (m = 2^18, at
# most n / 4), a number m always at that expected size (below n).
subsample_size <- 2^18
subsample_threshold <- 16 * subsample_size

settings_subsample <- function(n, p, secure, private = TRUE) {
  if (!private || secure) return(NULL)
  opt <- getOption("dpsco.settings_subsample")
  if (isFALSE(opt)) return(NULL)
  m <- if (is.numeric(opt)) as.double(opt)
       else if (isTRUE(opt)) min(subsample_size, n / 4)
       else if (n >= subsample_threshold) subsample_size
       else return(NULL)
  if (!(m > 0 && m < n))
    stop("internal error: a settings subsample of ", m, " of ", n,
         " records", call. = FALSE)
  mc <- max(m, n / 8)
  list(m = m, q = m / n, curvature = list(m = mc, q = mc / n))
}

# The subsample of release `name` (NULL: the full data): the curvature's
# rate is at least 1/8.  Its noise sets the ridge of every Newton step
# (ridge times z B^2 / m), so unlike the octave levels its precision
# counts at any n: at rate 2^18 / n its noise is 5 to 15 times the full
# release's at n = 2e7, and the ridge grows with it (forced at n = 5e5,
# rate 1/61: the ridge 7 times the full fit's and the test RMSE 10 times;
# bench/README.md).  At rate 1/8 it is 1.2 to 2.7 times the full
# release's, the ridge of a full-data fit at half of n, and its two passes
# read a row in eight.
release_sub <- function(st, name) {
  if (is.null(st$sub)) NULL
  else if (name == "curvature") st$sub$curvature
  else st$sub[c("m", "q")]
}

# The multiplier z_sub of the subsampled Gaussian (rate q, one release)
# whose epsilon at delta is at most that of the full-data Gaussian with
# multiplier z: the subsampled part costs no more than its share.
subsample_multiplier <- function(z, q, delta) {
  calibrate_components(list(), q, 1, gaussian_epsilon(1 / z, delta), delta)
}

# One release's subsample: the records' 0-based indices, increasing
# (src/entry.c dpsco_poisson_rows(): geometric skips from R's generator),
# over the rows x holds (a sharded x: all its shards' rows in order).
settings_rows <- function(x, sub) .Call(C_dpsco_poisson_rows, nrow(x), sub$q)

# The records idx (0-based) of a per-record vector or matrix (NULL: NULL;
# a sharded y or residual handle: itself, its workers take their rows; a
# sharded offset carries idx to the workers' counts of its exposures).
record_rows <- function(v, idx) {
  if (is.null(v) || is.null(idx)) return(v)
  if (inherits(v, "dpsco_shard_offset")) v$rows <- idx
  if (is_sharded(v)) return(v)
  if (is.matrix(v)) v[idx + 1L, , drop = FALSE] else v[idx + 1L]
}

# A part's multiplier and rate: the full-data release's z at share `name`,
# or the subsampled release's (z_sub, q) when the settings subsample.
part_noise <- function(st, name) {
  z <- part_multiplier(st$z1, st$shares[[name]])
  sub <- release_sub(st, name)
  if (is.null(sub)) return(list(z = z, q = 1))
  list(z = subsample_multiplier(z, sub$q, st$delta), q = sub$q)
}

# The released sample's public size: the expected size m of a subsample,
# else the public n.  It stands for n wherever an estimator or a
# sensitivity counts the records of the release (the most a bin can hold,
# the quantile's tau n, the divisor of the second moments).
release_n <- function(st, name = "scale") release_sub(st, name)$m %||% st$n

# The mechanism's description with its subsample.
sub_text <- function(st, text, name) {
  sub <- release_sub(st, name)
  if (is.null(sub)) return(text)
  paste0(text, ", on a Poisson subsample (rate q = ", fmt3(sub$q),
         ", expected size ", format_count(round(sub$m)), ")")
}

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
  noisy <- if (noise_secure())
             secure_values(vals, z, sens, rep(weight, nb))
           else vals + rep(sd, nb) * stats::rnorm(length(vals))
  list(x = if (px) matrix(noisy[seq_len(64L * px)], 64L,
                          dimnames = list(NULL, colnames(counts_x))),
       y = if (!is.null(counts_y)) noisy[64L * px + seq_len(127L)],
       sd = sd, sensitivity = sens)
}

# The estimator's rule (post-processing of the noisy counts): a count
# below k noise sds is taken as 0; the bound is the upper edge of the
# octave at the upper level tau of the kept non-zero counts, times f.
# Set on bench/ranges.R (mlbench data sets and a heavy-tailed design,
# epsilon 0.5 to 2).  The bounds on |x_j| take f_x (x_octave_factor()).
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

# f_x, the factor of the bounds on |x_j|: 2 with no room, 8 with all.
x_octave_factor <- function(n, z1) 2 * 4^noise_room(n, z1)

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
  min(2^(b - 33) * (rule$f_x %||% rule$f), 2^32)
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
# in.
hist_quantile <- function(counts, tau, n, sd) {
  kept <- hist_kept(counts, sd)
  if (!any(kept > 0)) return(2^(which.max(counts) - 33))
  above <- rev(cumsum(rev(kept)))[-1L]       # values in bins b + 1, b + 2, ...
  b <- which(c(above, 0) <= tau * n)[1L]
  2^(b - 33)
}

# The noisy counts that clear the level pure noise passes with probability
# 1e-4 over all bins; the others taken as 0.
hist_kept <- function(counts, sd) {
  thr <- sd * stats::qnorm(1e-4 / length(counts), lower.tail = FALSE)
  ifelse(counts >= thr, counts, 0)
}

# ---------------------------------------------------------------------------
# The private settings of one fit

# x is the (already publicly or privately standardised) design, y the
# response (0/1 for binomial), `family` the family object (or its name);
# z1 is the single-release multiplier (0 when
# not private); n is the public number of records, which every divisor and
# noise scale below uses (the rows of x may be more or fewer).
# `truncation` is what the method truncates gradients with: "l2" (a
# clipping level of |r_i| ||(1, x_i)||), "coordinate" (of
# |r_i| max(1, |x_i|_inf)) or "none".  Returns the transformed design, the
# family with its released settings (`family`: the quantile bandwidth), the
# starting point, the truncation levels, the curvature, the step size and
# the privacy parts, each step's released values and the values declared
# public.  The methods on radii (`constrained = TRUE`) state their
# sensitivities for bounded data: a gaussian y is put on [-1, 1] by its
# released bound as well (the centre is then on that scale), and there is
# no curvature; `row` asks for the private row bound (whose square is
# their smoothness).
# `weights` (in [0, 1]) and `offset` are the records' own (NULL: none).
# The bound on y, its centre and the quantile family's histogram are
# released on y net of the offset (fam$net_offset()); the clipping level
# on the residuals each record has in the gradient, weight and offset
# included; the curvature on the rows scaled by the square roots of their
# weights.  A weight in [0, 1] can only shrink a record's part in any of
# these sums, so every sensitivity below holds as stated.  The scale of x
# and the centre of y are unweighted: the weighted sums over the public n
# would be shrunk by the mean weight, which is unknown.
# `delta` is the fit's: above the public rule's threshold (settings_subsample())
# the scale, truncation and curvature releases read Poisson subsamples,
# each a subsampled Gaussian part calibrated at that delta.
tune_private <- function(x, y, family, truncation, optimizer, intercept, z1,
                         step_size, control, constrained = FALSE,
                         row = !constrained, n, weights = NULL,
                         offset = NULL, delta = NULL) {
  p <- ncol(x)
  fam <- family_object(family)
  # (the larger centre share for the paths whose trivial model predicts
  # the centre itself: not for classes, whose trivial model is the
  # majority class however the rate is off)
  small_rule <- constrained || fam$classes
  # where the noise leaves no room, a path of an unbounded y lives or
  # dies by the range of y (y_first()): the scale release gets up to
  # 0.35 of the budget and gives y three quarters of it
  yf <- !small_rule && y_first(n, z1)
  st <- list(parts = list(), released = list(), public = character(),
             shares = adaptive_shares(control$shares, n, ncol(x), z1,
                                      if (small_rule) c(k = 40, cap = 0.15)
                                      else c(k = 100, cap = 0.5),
                                      scale_cap = if (yf) 0.35 else 0.2),
             z1 = z1, n = n, y_weight = if (yf) 3 else 1, delta = delta,
             # (the rule needs the fit's delta for z_sub: without it, as
             # in the tests that replay single releases, none)
             sub = if (!is.null(delta))
                     settings_subsample(n, p, noise_secure(), z1 > 0))
  # each step returns its values and what it adds to the record
  add <- function(st, step) {
    st$parts <- c(st$parts, step$parts)
    st$released <- c(st$released, step$released)
    st$public <- c(st$public, step$public)
    st
  }
  y_obs <- y
  if (!is.null(offset))
    y <- if (is_sharded(y)) shard_net_offset(y, fam)  # (shards.R)
         else fam$net_offset(y, offset)
  sc <- scale_bounds(x, y, fam, intercept, control, constrained, st)
  st <- add(st, sc)
  xt <- scale_clamp(x, sc$bound)
  y_scale <- 1
  y_bound <- sc$y_bound
  y_range <- sc$y_range
  if (constrained && !fam$bounded) {
    # an unbounded residual: y on the unit scale of its released bound
    y_scale <- y_bound
    y <- clamp(y / y_scale, -1, 1)
    y_bound <- 1
    y_range <- y_range / y_scale
  }
  if (!is.null(fam$y_settings)) {
    # (the family returned with its released bandwidth)
    qs <- fam$y_settings(y, y_bound, fam, intercept, control$center, n,
                         p, z1, st$shares, constrained)
    st <- add(st, qs)
    fam <- qs$family
    if (constrained) {
      # the check loss is positively homogeneous, c_h(s u) = s c_(h/s)(u):
      # y on the unit scale of its bound, the bandwidth with it (no clamp:
      # the residual is bounded whatever y is)
      y_scale <- if (is.null(y_bound)) 1 else y_bound
      y <- y / y_scale
      fam <- family_with(fam, fam$bandwidth / y_scale)
      y_bound <- 1
    }
  }
  # (the radius methods' y is on the unit scale of its bound: their
  # centre keeps the whole range)
  ce <- centre_release(y, fam, if (constrained) y_range
                       else sc$centre_range %||% y_range, y_scale,
                       intercept, control, p, st)
  st <- add(st, ce)
  tl <- truncation_levels(xt, if (constrained) y else y_obs, fam, ce$beta0,
                          intercept, truncation, row, control, st,
                          weights, offset)
  st <- add(st, tl)
  out <- list(x = xt, bound = sc$bound, y_bound = sc$y_bound,
              y_range = sc$y_range, beta0 = ce$beta0, clip = tl$clip,
              row_bound = tl$row_bound, family = fam,
              y_unresolved = isTRUE(sc$y_unresolved))
  if (constrained)
    return(c(out, list(y = y, y_scale = y_scale, parts = st$parts,
                       released = st$released, public = st$public)))
  cu <- if (p + intercept <= curvature_max_d())
          curvature_release(xt, tl$w_norm, tl$row_bound, fam, ce$beta0,
                            intercept, control, st, weights, offset,
                            tl$exposure)
        else row_bound_curvature(tl$row_bound, fam, ce$beta0, intercept,
                                 p + intercept, tl$exposure)
  st <- add(st, cu)
  eta <- step_size %||% if (optimizer == "spgd") 1 / cu$top else fam$model_step
  c(out, list(curvature = cu$curvature, curvature_eigen = cu$eigen,
              curvature_weight = cu$weight,
              class_matrix = if (fam$multi)
                fam$class_matrix(start_intercepts(ce$beta0, fam, p + intercept,
                                                  intercept), intercept),
              step_size = eta, parts = st$parts,
              released = st$released, public = st$public))
}

# One Gaussian part of the private settings, at the share of `name` (q:
# the rate of its Poisson subsample, 1 for the full data).
settings_part <- function(st, name, z, steps, sensitivity, mechanism, value,
                          q = 1) {
  privacy_part(name, z, q, steps, sensitivity, st$shares[[name]],
               mechanism = mechanism, released = value)
}

fmt3 <- function(v) format(signif(v, 3))
range_text <- function(v) {
  if (length(v) == 1L) fmt3(v) else paste0(fmt3(min(v)), " to ", fmt3(max(v)))
}

# Step 1, the scale: bounds on |x_j| and, when the centre of a gaussian
# or poisson y or the quantile family's histogram of y needs it, the range
# of y, from one release of octave histograms (octave_release()).  x's
# counts come from a pass in C (design_octaves()), y's from R.  A declared
# x_bound (one number or one per column) or y_range replaces its estimate
# and costs nothing; with both declared there is no release.
scale_bounds <- function(x, y, fam, intercept, ctl, constrained, st) {
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
  if (need_x || need_y) {               # neither: every bound declared
    zq <- part_noise(st, "scale")
    z <- zq$z
    px <- if (need_x) p else 0L
    wt <- c(rep(1, px), if (need_y) sqrt((st$y_weight %||% 1) * max(px, 1)))
    # (the factors follow the noise of the whole fit, on the public n:
    # noise_room())
    rule_x <- c(octave_rule, f_x = x_octave_factor(st$n, st$z1))
    # x's and y's counts of the same records: the release's subsample
    idx <- if (!is.null(st$sub)) settings_rows(x, release_sub(st, "scale"))
    nr <- release_n(st, "scale")
    rel <- octave_release(if (need_x) design_octaves(x, idx),
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
      sub_text(st, paste0("Gaussian: octave histograms of |x_j|",
                          if (!need_x) " (none: declared)",
                          if (need_y) " and signed octaves of y"), "scale"),
      paste0("bounds on |x_j| ", if (need_x) range_text(out$bound)
             else "declared", if (need_y)
               paste0("; range of y [", fmt3(out$y_range[1L]), ", ",
                      fmt3(out$y_range[2L]), "]")), q = zq$q))
    out$released <- compact(list(x_bound = out$bound, y_bound = out$y_bound,
                                 y_range = out$y_range,
                                 centre_range = out$centre_range))
  }
  if (!need_x) {
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
    rel <- dp_mean_release(y_matrix(y), matrix(rng, 2L), z, st$n)
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

# Where the intercepts of nclass blocks of d coefficients sit.
intercept_positions <- function(d, nclass = 1L) seq(1L, by = d, length.out = nclass)

# The start's intercepts (one per class for multinomial; the first
# coefficient otherwise, whatever it is), as the family's functions of b0
# take them.
start_intercepts <- function(beta0, fam, d, intercept) {
  if (!fam$multi) return(beta0[1L])
  nclass <- length(beta0) / d
  if (intercept) beta0[intercept_positions(d, nclass)] else rep(0, nclass)
}

# Step 3, the truncation levels: the clipping level C (a quantile of
# |r_i| ||w_i|| or |r_i| max(1, |x_i|_inf) at beta0) and the bound B_H on
# the rows w_i = (1, x_i) that enter the curvature (a quantile of ||w_i||),
# from one release of their log2 histograms.
truncation_levels <- function(xt, y, fam, beta0, intercept, truncation, row,
                              ctl, st, weights = NULL, offset = NULL) {
  d <- ncol(xt) + intercept
  coordinate <- truncation == "coordinate"
  need_clip <- is.null(ctl$clip) && truncation != "none"
  need_row <- row && is.null(ctl$row_bound)
  # a family whose curvature at b0 grows with the exposure e^offset_i
  # (poisson: e^(b0 + offset_i)) needs a bound E on the exposures for its
  # curvature release (curvature_release()): one more histogram, of
  # log2 e^offset_i
  need_expo <- row && fam$offset_curvature && !is.null(offset)
  nhist <- need_clip + need_row + need_expo
  # the release's subsample (none when nothing is released); the curvature
  # then forms its rows' norms on its own subsample
  sub <- !is.null(st$sub)
  idx <- if (sub && nhist) settings_rows(xt, release_sub(st, "quantiles"))
  y <- record_rows(y, idx)
  weights <- record_rows(weights, idx)
  offset <- record_rows(offset, idx)
  # one pass over the rows (design_row_stats()): the norms ||w_i||, and
  # the histograms of |r_i| c_i at beta0 (c_i = ||w_i||, or
  # max(1, |x_i|_inf) for coordinate truncation) and of ||w_i||
  resid <- if (need_clip)
    start_residuals(fam, if (fam$multi) start_intercepts(beta0, fam, d,
                                                         intercept)
                         else beta0[1L], y, weights, offset)
  rs <- if (!sub || nhist)
          design_row_stats(xt, intercept, resid, coordinate, need_row, idx)
  out <- list(clip = ctl$clip, row_bound = ctl$row_bound,
              w_norm = if (!sub) rs$norm, exposure = 1)
  if (nhist) {                         # none: every level declared
    zq <- part_noise(st, "quantiles")
    z <- zq$z
    # the quantiles' tau n: tau m on a subsample of expected size m
    nr <- release_n(st, "quantiles")
    rc <- release_counts(counts = cbind(
      rs$counts, if (need_expo) exposure_counts(offset)), z = z)
    k <- 1L
    if (need_clip) {
      clip <- hist_quantile(rc$counts[, k], 1 - ctl$quantiles[["clip"]], nr,
                            rc$sd)
      # a bounded residual (logistic: 1, quantile: max(tau, 1 - tau))
      # times a row norm of at most sqrt(d)
      # (the factor follows the noise of the whole fit's steps, on the
      # public n, with or without a subsample: noise_room())
      clip <- clip * clip_octave_factor(st$n, st$z1)
      if (fam$bounded)
        clip <- min(clip, fam$slope_bound * if (coordinate) 1 else sqrt(d))
      out$clip <- clip
      k <- k + 1L
    }
    # (post-processing) a row (1, x_i) has norm at least 1: a noisy level
    # below it would shrink every row of the curvature toward 0 and the
    # Newton steps would divide by almost nothing
    if (need_row)
      out$row_bound <- min(max(hist_quantile(rc$counts[, k],
                                             1 - ctl$quantiles[["row"]],
                                             nr, rc$sd),
                               if (intercept) 1 else 0), sqrt(d))
    # the exposure at the row bound's quantile: a record beyond it enters
    # the curvature as if its exposure were E
    if (need_expo)
      out$exposure <- hist_quantile(rc$counts[, nhist],
                                    1 - ctl$quantiles[["row"]], nr, rc$sd)
    out$parts <- list(settings_part(
      st, "quantiles", z, 1, sqrt(nhist),
      sub_text(st, paste0(
        "Gaussian: histograms of log2 ",
        if (coordinate) "|r_i| max(1, |x_i|_inf)" else "|r_i| ||(1, x_i)||",
        if (need_row) " and log2 ||(1, x_i)||",
        if (need_expo) " and log2 exp(offset_i)"), "quantiles"),
      paste(c(if (need_clip) paste("clip level", fmt3(out$clip)),
              if (need_row) paste("row bound", fmt3(out$row_bound)),
              if (need_expo) paste("exposure bound", fmt3(out$exposure))),
            collapse = "; "), q = zq$q))
  }
  out$public <- c(if (!need_clip && truncation != "none") "clip level",
                  if (row && !need_row) "row bound of the curvature")
  out$released <- compact(list(clip = out$clip, row_bound = out$row_bound,
                               exposure = if (need_expo) out$exposure))
  out
}

# Each record's residual at the start, eta its predictor there (the
# start's intercept, or a multinomial's K intercepts), times its weight:
# |r_i| for one predictor, ||r_i|| for a multinomial record, whose residual
# vector enters by its norm.  On sharded data the workers form them
# (shards.R), each with its records' weights and offsets.
start_residuals <- function(fam, eta, y, weights = NULL, offset = NULL) {
  if (is_sharded(y)) return(shard_residuals(fam, eta))
  r <- if (fam$multi) sqrt(rowSums(fam$residual(eta, y)^2))
       else fam$residual(eta + (offset %||% 0), y)
  if (is.null(weights)) r else weights * r
}

# The octave counts (64) of the exposures e^offset_i (sharded: summed over
# the workers).
exposure_counts <- function(offset) {
  if (is_sharded(offset)) return(shard_exposure_counts(offset))
  tabulate(exposure_bin(offset), 64L)
}

# The octave bin (log2_bin()) of the exposure e^offset, from the offset
# itself so that no offset overflows.
exposure_bin <- function(offset)
  pmin(pmax(ceiling(offset / log(2)) + 33, 1), 64)

# Step 4, the curvature: the second-moment matrix of the rows clipped to
# B_H, released with Gaussian noise and made positive definite, times the
# loss's curvature per unit of second moment.
curvature_release <- function(xt, w_norm, row_bound, fam, beta0, intercept,
                              ctl, st, weights = NULL, offset = NULL,
                              exposure = 1) {
  d <- ncol(xt) + intercept
  zq <- part_noise(st, "curvature")
  # on a subsample: its own records, their norms from one more (cheap)
  # pass over them, and the second moments over its expected size m
  idx <- if (!is.null(st$sub)) settings_rows(xt, release_sub(st, "curvature"))
  if (!is.null(idx)) w_norm <- design_row_stats(xt, intercept, rows = idx)$norm
  nr <- release_n(st, "curvature")
  rh <- release_curvature(structure(list(x = xt, rows = idx),
                                    class = "design_cols"),
                          zq$z, row_bound, nr, w_norm, intercept,
                          curvature_row_weights(fam, record_rows(weights, idx),
                                                record_rows(offset, idx),
                                                exposure))
  weight <- curvature_weight(fam, beta0, d, intercept, exposure)
  curv <- curvature_matrix(rh$h, rh$sd, ctl$ridge, weight)
  list(curvature = curv$A, eigen = curv$eigen, top = curv$top,
       parts = list(settings_part(
         st, "curvature", zq$z, 1, row_bound^2 / nr,
         sub_text(st, paste("Gaussian: second-moment matrix of the rows",
                            "clipped to the row bound"), "curvature"),
         sprintf("%d x %d matrix", d, d), q = zq$q)),
       released = list(ridge = curv$ridge), weight = weight)
}

# The weights in [0, 1] of the rows of the curvature release: the records'
# own, times, for a family with offset_curvature, each record's exposure
# over the released bound E, at most 1 (the whole is then scaled by E:
# curvature_weight()).  The result is the second moments weighted by
# e^offset_i, which a constant shift of the offsets scales as it scales
# e^-b0, as the Hessian requires.
curvature_row_weights <- function(fam, weights, offset, exposure) {
  if (!fam$offset_curvature || is.null(offset)) return(weights)
  if (is_sharded(offset)) return(shard_row_weights(exposure))  # (shards.R)
  (weights %||% 1) * exp(pmin(offset - log(exposure), 0))
}

# The loss's curvature per unit of second moment at beta0 (the family's),
# times the released exposure bound E where the rows were weighted by
# their exposures (E = 1 otherwise).
curvature_weight <- function(fam, beta0, d, intercept, exposure = 1) {
  # (the quantile family's weight is its own field: family_with())
  fam$start_curvature(start_intercepts(beta0, fam, d, intercept), intercept,
                      fam) * if (fam$offset_curvature) exposure else 1
}

# The largest d whose d x d curvature is released: above it the matrix
# and its noise would take d^2 numbers (12.8 GB at d = 40,000), so wide
# data get no curvature release and the "spgd" step of
# row_bound_curvature() (the Newton path needs the matrix: dpsco() then
# runs "spgd").  The option exists for the tests, which try the rule on
# small data.
curvature_max_d <- function() getOption("dpsco.curvature_max_d", 4000L)

# Step 4 for wide data: the top eigenvalue of the second-moment matrix of
# rows clipped to the row bound B_H is at most its trace, the mean squared
# row norm, so at most B_H^2; times the loss's curvature at beta0 it bounds
# the curvature the step needs, at no cost in privacy.
row_bound_curvature <- function(row_bound, fam, beta0, intercept, d,
                                exposure = 1) {
  weight <- curvature_weight(fam, beta0, d, intercept, exposure)
  list(curvature = NULL, top = weight * row_bound^2, weight = weight,
       public = sprintf(paste("no curvature released (d above %d): the step",
                              "from the row bound"), curvature_max_d()))
}

# The Gaussian release of the histograms: one column of the matrix `vals`
# (or one vector of the list) per histogram, each value in its
# log2_bin(), or their 64 x k `counts` as a pass formed them
# (design_row_stats()); one record adds 1 to one count of each histogram,
# so the L2 sensitivity is the square root of the number of histograms.
release_counts <- function(vals, z, counts = NULL) {
  if (is.null(counts)) {
    cols <- if (is.list(vals)) vals
            else lapply(seq_len(ncol(vals)), function(j) vals[, j])
    counts <- vapply(cols, function(v) tabulate(log2_bin(v), 64L), integer(64))
  }
  k <- ncol(counts)
  sd <- z * sqrt(k)
  list(counts = if (noise_secure())
                  matrix(secure_values(counts, z, sqrt(k)), 64L)
                else counts + sd * matrix(stats::rnorm(64 * k), 64L),
       sd = sd)
}

# The Gaussian release of the second-moment matrix crossprod(w) / n of the
# rows w_i scaled to L2 norm at most row_bound (`norms`: their norms), n the
# public number of records: one record adds or removes w_i w_i' / n, of
# Frobenius norm at most row_bound^2 / n.  The noise is symmetric (one draw
# per entry of the upper triangle).
# w may also be a design (design.R) in list(x = , rows = ), without the
# column of ones, which `intercept` adds; `rows` (0-based, NULL: all) the
# records of a subsample, n then its expected size, `norms` and `weights`
# one per listed record.
release_curvature <- function(w, z, row_bound, n, norms = sqrt(rowSums(w * w)),
                              intercept = FALSE, weights = NULL) {
  # a record's weight in [0, 1] enters as the square root on its row, so
  # its term stays within the row bound
  sc <- row_scale(norms, row_bound)  # (shards.R: norms on the workers)
  if (!is.null(weights))
    sc <- if (is_sharded(sc)) shard_weigh_rows(sc, weights)
          else sc * sqrt(weights)
  h <- if (inherits(w, "design_cols"))
         design_gram(w$x, sc, intercept, w$rows) / n
       else crossprod(w * sc) / n
  d <- ncol(h)
  sd <- z * row_bound^2 / n
  if (sd > 0 && noise_secure()) {
    # the upper triangle, whose L2 norm is at most the Frobenius norm
    up <- upper.tri(h, diag = TRUE)
    h[up] <- secure_values(h[up], z, row_bound^2 / n)
    h[lower.tri(h)] <- t(h)[lower.tri(h)]
  } else if (sd > 0) {
    e <- matrix(stats::rnorm(d * d), d, d)
    e[lower.tri(e)] <- t(e)[lower.tri(e)]
    h <- h + sd * e
  }
  list(h = h, sd = sd)
}

# The released curvature made positive definite (post-processing): its
# eigenvalues floored at 0 plus a ridge of `ridge` times the typical
# spectral norm of the noise matrix, sd_h sqrt(d), times the loss's
# curvature `weight` per unit of second moment.  Without noise a ridge of
# 1e-9 times the trace keeps it invertible.
curvature_matrix <- function(h, sd_h, ridge, weight) {
  d <- nrow(h)
  ev <- eigen(h, symmetric = TRUE)
  mu <- if (sd_h > 0) ridge * sd_h * sqrt(d)
        else 1e-9 * max(sum(pmax(ev$values, 0)), 1e-300)
  vals <- pmax(ev$values, 0) + mu
  a <- ev$vectors %*% (vals * t(ev$vectors))
  a <- (a + t(a)) / 2
  list(A = weight * a, top = weight * max(vals), ridge = weight * mu,
       eigen = list(values = weight * vals, vectors = ev$vectors))
}

