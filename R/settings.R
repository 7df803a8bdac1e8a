# Every setting of a privately tuned fit that depends on the data is chosen
# by tune_private() below, and nowhere else: the bounds that put x on a
# common scale and the starting intercept (R/settings-ranges.R), the
# oracle's truncation level and the bound on the rows that enter the
# curvature (R/settings-truncation.R), the curvature itself and the step
# size (R/settings-curvature.R).  This file holds the budget's shares, the
# subsampled settings and the driver.  Each release is one Gaussian
# mechanism on the full data (at a large public n, three of them on
# Poisson subsamples: settings_subsample()), and each becomes a part of
# the privacy record with its share of the budget, its mechanism
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
# n = 4 m (q at most 1/4) up, and at least n / 8 for the curvature
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
# within 0.2% of the full-pass fit's).  From n = 4 m the saved passes are
# at least three quarters of them, and the subsampled release is 1.3 to
# 1.9 times noisier than the full one at q = 1/4, 1.6 to 2.8 times at q =
# 1/8 (z = 20 to 5), as a full release on half of n or more, where the
# octave levels already are not what limits a fit: at n = 1.1e6 and 2e6
# (q = 0.24 and 0.13) the test RMSE of the simulated set of
# bench/subsample.R moved by +0.0001 and +0.0003 (sd 0.001 over 5 seeds,
# against 0.16 between seeds), and a file-backed private fit at n = 2e6
# took 1.5 to 1.9 times the public fit's time against 2.2 to 2.8 with
# full passes.  (The threshold was 16 m, 4.2 million records, to 0.23.1.)
# Neither depends on p: the passes' cost and the noise's growth
# with p are the same with and without the subsample.  Secure noise never
# subsamples (its accountant takes no subsampled part), nor does a fit
# without noise.  options(dpsco.settings_subsample =) overrides the rule,
# for the tests and the audit: FALSE never, TRUE always (m = 2^18, at
# most n / 4), a number m always at that expected size (below n).
subsample_size <- 2^18
subsample_threshold <- 4 * subsample_size

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
                         offset = NULL, delta = NULL, moved = NULL) {
  p <- ncol(x)
  fam <- family_object(family)
  st <- settings_state(fam, p, n, z1, control, constrained, delta)
  # each step returns its values and what it adds to the record
  add <- function(st, step) {
    st$parts <- c(st$parts, step$parts)
    st$released <- c(st$released, step$released)
    st$public <- c(st$public, step$public)
    st
  }
  y_obs <- y
  if (!is.null(offset))
    y <- net_offset(y, fam, offset)
  sc <- scale_bounds(x, y, fam, intercept, control, constrained, st, moved)
  st <- add(st, sc)
  xt <- scale_clamp(x, sc$bound)
  # (the columns a deferred standardisation moves: moved_columns())
  cols <- attr(moved, "cols")
  if (length(cols))
    xt[, cols] <- scale_clamp(unname(moved[, , drop = FALSE]), sc$bound[cols])
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

# The settings' state before any release: the budget's shares (public
# rules on n, p and z1), y's weight in the scale release, whether x's
# histograms would be hidden by the noise, and the subsample rule.
settings_state <- function(fam, p, n, z1, control, constrained, delta) {
  # (the larger centre share for the paths whose trivial model predicts
  # the centre itself: not for classes, whose trivial model is the
  # majority class however the rate is off)
  small_rule <- constrained || fam$classes
  # where the noise leaves no room, a path of an unbounded y lives or
  # dies by the range of y (y_first()): the scale release gets up to
  # 0.35 of the budget and gives y three quarters of it
  yf <- !small_rule && y_first(n, z1)
  centre_rule <- if (small_rule) c(k = 40, cap = 0.15) else c(k = 100, cap = 0.5)
  st <- list(parts = list(), released = list(), public = character(),
             shares = adaptive_shares(control$shares, n, p, z1, centre_rule,
                                      scale_cap = if (yf) 0.35 else 0.2),
             z1 = z1, n = n, y_weight = if (yf) 3 else 1, delta = delta,
             # (the rule needs the fit's delta for z_sub: without it, as
             # in the tests that replay single releases, none)
             sub = if (!is.null(delta))
                     settings_subsample(n, p, noise_secure(), z1 > 0))
  # where y's range comes first and the noise would hide every count of x
  # (x_counts_hidden(), at the share above), the scale release is y's
  # alone, at up to 0.45 of the budget (servo, 117 training records at
  # epsilon 0.5, 20 splits: harm <= 1.05 in 0.55 of them against 0.30;
  # bench/README.md)
  st$x_hidden <- yf && is.null(control$x_bound) && x_counts_hidden(st, p, TRUE)
  if (st$x_hidden && is.null(control$y_range))
    st$shares <- adaptive_shares(control$shares, n, p, z1, centre_rule,
                                 scale_cap = 0.45)
  st
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

# y net of the offsets, as the family nets it (sharded y: on the workers,
# net_offset.dpsco_shard_y(), R/shards.R).
net_offset <- function(y, fam, offset) UseMethod("net_offset")

net_offset.default <- function(y, fam, offset) fam$net_offset(y, offset)
