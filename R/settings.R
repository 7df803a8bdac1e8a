# Every setting of a privately tuned fit that depends on the data is chosen
# here, and nowhere else: the bounds that put x on a common scale, the
# starting intercept, the oracle's truncation level, the bound on the rows
# that enter the curvature, the curvature itself and the step size.  Each
# release is one Gaussian mechanism on the full data, and each becomes a
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

default_shares <- c(scale = 0.05, centre = 0.03, quantiles = 0.02,
                    curvature = 0.2)

# Noise multiplier of a part: k releases sharing `share` of the budget of a
# single release with multiplier z1 (z1 = 0: not private, no noise).
part_multiplier <- function(z1, share, k = 1) z1 * sqrt(k / share)

# ---------------------------------------------------------------------------
# Bounds for x (and y) from log-moments of the non-zero magnitudes

# Two releases, each with noise multiplier z.  First, per column j, two
# sums over the records: of nz_ij - 1/2, with nz_ij the indicator of
# x_ij != 0, and of l_ij = clamp(log2 |x_ij|, -32, 32) / 32 (0 for
# x_ij = 0).  Each summand lies in [-1/2, 1/2] and [-1, 1] respectively, so
# a record added or removed moves the 2p sums by at most sqrt(1.25 p) in L2
# whatever the number of records: the sums themselves are released, and
# the count of non-zeros is estimated as the first plus n / 2, n the public
# number of records (post-processing).  They give the mean m_j of
# log2 |x_ij| over the non-zero entries.  Second, the sums of
# d_ij - 1/2 with d_ij = clamp(log2 |x_ij| - m_j, -8, 8)^2 / 64 in [0, 1]
# for a non-zero entry and 0 for a zero one (summands in [-1/2, 1/2]:
# sensitivity sqrt(0.25 p)), plus n / 2, give their variance s_j^2
# (deviations beyond 8 octaves count as 8).  The bound is
# B_j = 2^(m_j + kappa s_j), clamped to 2^[-32, 32] (kappa = 2: about the
# 98th percentile of a log-normal column).  A column whose noisy non-zero
# count is below three noise sds (mostly zeros, or too few records for the
# budget) gets B_j = 1, and m_j is shrunk towards 0 where its noise is
# large (as the posterior mean under a N(0, 8^2) prior would be).
# Column j's summands may carry a public weight w_j: the sensitivities
# become sqrt(1.25 sum w^2) and sqrt(0.25 sum w^2), and column j's noise,
# back on its own scale, is divided by w_j.  y gets w = sqrt(p): its bound
# matters more than any one column's (it sets the centre and the
# validation loss of cv.dpsco()), at the price of a factor sqrt(2) on the
# others' noise.
log_bounds <- function(v, z, kappa, n, weight = rep(1, ncol(v))) {
  lm <- log_moments(v)
  r1 <- release_scale(lm, z, n, weight)
  cnt <- r1$count
  m <- 32 * r1$sum / cnt
  # shrunk towards 0 (B_j = 1) as its noise sd, 32 sd1 / cnt, nears the
  # spread of 8 octaves allowed a priori
  m <- pmin(pmax(m, -32), 32) / (1 + (4 * r1$sd / pmax(cnt, 1))^2)
  s2 <- 64 * release_scale(lm, z, n, weight, m)$dev / cnt
  e <- pmin(pmax(m + kappa * sqrt(pmax(s2, 0)), -32), 32)
  e[!(cnt >= 3 * r1$sd) | !is.finite(e)] <- 0
  list(bound = 2^e, sensitivity = sqrt(1.25 * sum(weight^2)))
}

# The per-entry summands of log_bounds(): the non-zero indicator and
# clamp(log2 |v|, -32, 32) (0 for v = 0).
log_moments <- function(v) {
  # a design (design.R): its sums come from a pass in C
  if (inherits(v, "design_cols")) return(v)
  nz <- v != 0
  lg <- clamp(log2(abs(v)), -32, 32)
  lg[!nz] <- 0
  list(nz = nz, lg = lg)
}

# The two Gaussian releases of log_bounds() on its summands `lm`
# (log_moments()), each with noise multiplier z; `sd` is the noise sd of
# each column's (unweighted) sums.  Without `m`, the first: the sums of
# nz - 1/2 and of lg / 32, returned as the estimated non-zero counts (plus
# n / 2) and the sums.  With the released means `m`, the second: the sums
# of min((lg - m)^2, 64) / 64 - 1/2 (a zero entry counts 0 - 1/2), plus
# n / 2.  The released quantities are those centred sums: half the number
# of rows present is part of their value, not a divisor, and the public n
# only un-centres them afterwards.
release_scale <- function(lm, z, n, weight = rep(1, ncol(lm$nz)), m = NULL) {
  pc <- length(weight)
  w2 <- sum(weight^2)
  design <- inherits(lm, "design_cols")
  # a design's x and its y (one column) are summed by passes in C
  # (design_log_sums())
  ly <- if (design && !is.null(lm$y)) y_column(lm$y)  # (shards.R)
  px <- if (design) ncol(lm$x)
  named <- function(v) stats::setNames(v, colnames(lm$x))
  half <- (if (design) nrow(lm$x) else nrow(lm$nz)) / 2
  if (is.null(m)) {
    sd <- z * sqrt(1.25 * w2) / weight
    if (design) {
      s <- design_log_sums(lm$x)
      sy <- if (!is.null(ly)) design_log_sums(ly)
      cnt <- c(named(s$count), sy$count)
      lg <- c(named(s$sum), sy$sum)
    } else {
      cnt <- colSums(lm$nz)
      lg <- colSums(lm$lg)
    }
    centred <- c(cnt - half, lg / 32)
    v <- if (noise_secure())
           # one release of the weighted pair (count, sum / 32)
           secure_values(centred, z, sqrt(1.25 * w2), c(weight, weight))
         else centred + c(sd, sd) * stats::rnorm(2L * pc)
    return(list(count = v[seq_len(pc)] + n / 2, sum = v[pc + seq_len(pc)],
                sd = sd))
  }
  sd <- z * sqrt(0.25 * w2) / weight
  dev <- function(l, mj) {
    d <- pmin((l$lg - rep(mj, each = nrow(l$lg)))^2, 64) / 64
    d[!l$nz] <- 0
    d
  }
  dsum <- if (!design) colSums(dev(lm, m))
          else c(named(design_log_sums(lm$x, m[seq_len(px)])$dev),
                 if (!is.null(ly)) design_log_sums(ly, m[px + 1L])$dev)
  centred <- dsum - half
  list(dev = n / 2 + if (noise_secure())
                       secure_values(centred, z, sqrt(0.25 * w2), weight)
                     else centred + sd * stats::rnorm(pc),
       sd = sd)
}

# How far into the tail of |x_j| the clamp goes, from the public n and the
# single-release multiplier z1 (every release's noise scales as z1 / n):
# clamping at a lower quantile trades a bias of the linear fit for less
# noise per unit of signal, which pays only while the noise is large.  The
# rule, kappa = 2.5 + 0.6 log10(n / (6700 z1)) within [2, 3.5], was set on
# the raw BlogFeedback data (n / z1 about 6700 at epsilon = 1, where 2.5
# did best among 2, 2.5 and 3) and a simulated design with n = 183,000
# (where 3 did best); not private (z1 = 0) gives 3.5.
default_kappa <- function(n, z1) {
  if (!(z1 > 0)) return(3.5)
  min(3.5, max(2, 2.5 + 0.6 * log10(n / (6700 * z1))))
}

# ---------------------------------------------------------------------------
# Quantiles from noisy histograms of log2 magnitudes

# Bins: 1 holds values <= 2^-32 (zero included), bin b = 2..64 holds
# (2^(b - 34), 2^(b - 33)], and values above 2^31 fall in bin 64.
log2_bin <- function(v) {
  b <- ceiling(log2(v)) + 33
  b[!(v > 2^-32)] <- 1
  pmin(pmax(b, 1), 64)
}

# The upper edge of the bin at which fewer than tau * n values lie above,
# from counts with Gaussian noise of sd `sd`.  Counts that do not clear
# the level pure noise passes with probability 1e-4 over all bins are
# taken as 0, so an empty bin far out in the tail almost never poses as
# the tail (at a 5% level, about 3% of fits got a clip level thousands of
# times too large); when no count clears it, the fullest noisy bin stands
# in.
hist_quantile <- function(counts, tau, n, sd) {
  thr <- sd * stats::qnorm(1e-4 / length(counts), lower.tail = FALSE)
  kept <- ifelse(counts >= thr, counts, 0)
  if (!any(kept > 0)) return(2^(which.max(counts) - 33))
  above <- rev(cumsum(rev(kept)))[-1L]       # values in bins b + 1, b + 2, ...
  b <- which(c(above, 0) <= tau * n)[1L]
  2^(b - 33)
}

# ---------------------------------------------------------------------------
# The private settings of one fit

# x is the (already publicly or privately standardised) design, y the
# response (0/1 for binomial); z1 is the single-release multiplier (0 when
# not private); n is the public number of records, which every divisor and
# noise scale below uses (the rows of x may be more or fewer).
# `truncation` is what the method truncates gradients with: "l2" (a
# clipping level of |r_i| ||(1, x_i)||), "coordinate" (of
# |r_i| max(1, |x_i|_inf)) or "none".  Returns the transformed design, the
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
tune_private <- function(x, y, family, truncation, optimizer, intercept, z1,
                         step_size, control, constrained = FALSE,
                         row = !constrained, quant = NULL, n,
                         weights = NULL, offset = NULL) {
  p <- ncol(x)
  st <- list(parts = list(), released = list(), public = character(),
             shares = control$shares, z1 = z1, n = n)
  # each step returns its values and what it adds to the record
  add <- function(st, step) {
    st$parts <- c(st$parts, step$parts)
    st$released <- c(st$released, step$released)
    st$public <- c(st$public, step$public)
    st
  }
  fam <- family_object(family, quant)
  y_obs <- y
  if (!is.null(offset)) y <- fam$net_offset(y, offset)
  sc <- scale_bounds(x, y, fam, quant, intercept, control, constrained, st)
  st <- add(st, sc)
  xt <- scale_clamp(x, sc$bound)
  y_scale <- 1
  y_bound <- sc$y_bound
  if (constrained && !fam$bounded) {
    # an unbounded residual: y on the unit scale of its released bound
    y_scale <- y_bound
    y <- clamp(y / y_scale, -1, 1)
    y_bound <- 1
  }
  if (!is.null(fam$y_settings)) {
    qs <- fam$y_settings(y, y_bound, quant, intercept, control$center, n,
                         p, z1, st$shares, constrained)
    st <- add(st, qs)
    quant <- qs$quant
    if (constrained) {
      # the check loss is positively homogeneous, c_h(s u) = s c_(h/s)(u):
      # y on the unit scale of its bound, the bandwidth with it (no clamp:
      # the residual is bounded whatever y is)
      y_scale <- if (is.null(y_bound)) 1 else y_bound
      y <- y / y_scale
      quant$bandwidth <- quant$bandwidth / y_scale
      y_bound <- 1
    }
    # the family with its released bandwidth
    fam <- family_object(fam$name, quant)
  }
  ce <- centre_release(y, fam, y_bound, y_scale, quant, intercept,
                       control, p, st)
  st <- add(st, ce)
  tl <- truncation_levels(xt, if (constrained) y else y_obs, fam, ce$beta0,
                          intercept, truncation, row, control, st,
                          weights, offset)
  st <- add(st, tl)
  out <- list(x = xt, bound = sc$bound, beta0 = ce$beta0, clip = tl$clip,
              row_bound = tl$row_bound, quant = quant)
  if (constrained)
    return(c(out, list(y = y, y_scale = y_scale, parts = st$parts,
                       released = st$released, public = st$public)))
  cu <- if (p + intercept <= curvature_max_d())
          curvature_release(xt, tl$w_norm, tl$row_bound, fam, ce$beta0,
                            quant, intercept, control, st, weights)
        else row_bound_curvature(tl$row_bound, fam, ce$beta0, quant, intercept,
                                 p + intercept)
  st <- add(st, cu)
  eta <- step_size %||% if (optimizer == "spgd") 1 / cu$top else fam$model_step
  c(out, list(curvature = cu$curvature, curvature_eigen = cu$eigen,
              class_matrix = if (isTRUE(fam$multi))
                fam$class_matrix(start_intercepts(ce$beta0, fam, p + intercept,
                                                  intercept), intercept),
              step_size = eta, parts = st$parts,
              released = st$released, public = st$public))
}

# One Gaussian part of the private settings, at the share of `name`.
settings_part <- function(st, name, z, steps, sensitivity, mechanism, value) {
  privacy_part(name, z, 1, steps, sensitivity, st$shares[[name]],
               mechanism = mechanism, released = value)
}

fmt3 <- function(v) format(signif(v, 3))
compact <- function(l) l[!vapply(l, is.null, TRUE)]
range_text <- function(v) {
  if (length(v) == 1L) fmt3(v) else paste0(fmt3(min(v)), " to ", fmt3(max(v)))
}

# Step 1, the scale: bounds on |x_j| and, when the centre of a gaussian y
# or the quantile family's histogram of y needs one, on |y|.  x's sums
# come from passes in C (design_log_sums()), y's from R.
scale_bounds <- function(x, y, fam, quant, intercept, ctl, constrained, st) {
  p <- ncol(x)
  # a family's own settings of y (quantile: a histogram of y) need the
  # bound as their range, unless the centre and the bandwidth are both
  # declared; an unbounded residual needs it for the centre's clamp (and
  # the unit scale of the radius methods)
  need_hist <- !is.null(fam$y_settings) &&
    (is.null(quant$bandwidth) || intercept && is.null(ctl$center))
  need_y_bound <- !fam$bounded &&
    (constrained || intercept && is.null(ctl$center)) || need_hist
  cols <- if (!is.null(ctl$x_bound)) cbind(if (need_y_bound) y)
          else structure(list(x = x, y = if (need_y_bound) y),
                         class = "design_cols")
  out <- list(bound = NULL, y_bound = NULL)
  if (!is.null(cols)) {                # NULL: every bound declared
    z <- part_multiplier(st$z1, st$shares[["scale"]], 2)
    ncols <- if (is.null(ctl$x_bound)) p + need_y_bound else 1L
    wt <- c(rep(1, ncols - need_y_bound),
            if (need_y_bound) sqrt(max(ncols - 1, 1)))
    # y's bound sets the centre and the validation loss of cv.dpsco(), not
    # a clamp of the model: it keeps the family's kappa (2 but for poisson)
    # whatever x's kappa
    kp <- c(rep(ctl$kappa %||% default_kappa(st$n, st$z1), ncols - need_y_bound),
            if (need_y_bound) fam$y_kappa %||% 2)
    lb <- log_bounds(cols, z, kp, st$n, wt)
    if (is.null(ctl$x_bound)) out$bound <- lb$bound[seq_len(p)]
    if (need_y_bound) out$y_bound <- lb$bound[ncols]
    out$parts <- list(settings_part(
      st, "scale", z, 2, lb$sensitivity,
      "Gaussian: log-moments of the non-zero |x_j| (and |y|)",
      paste0("bounds on |x_j| ", if (!is.null(out$bound)) range_text(out$bound)
             else "declared", if (need_y_bound)
               paste0("; bound on |y| ", fmt3(out$y_bound)))))
    out$released <- compact(list(x_bound = out$bound, y_bound = out$y_bound))
  }
  if (!is.null(ctl$x_bound)) {
    out$bound <- rep_len(ctl$x_bound, p)
    out$public <- "bounds on |x_j|"
  }
  out
}

# Step 2, the centre: the starting point, whose intercept is the private
# mean of y clamped to its bound (gaussian), the private event rate on the
# link scale (binomial) or the quantile family's released centre.
centre_release <- function(y, fam, y_bound, y_scale, quant, intercept,
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
    centre <- quant$centre / y_scale
  } else if (!is.null(ctl$center)) {
    centre <- ctl$center / y_scale
    out$public <- "centre of y"
  } else {
    z <- part_multiplier(st$z1, st$shares[["centre"]])
    rng <- fam$centre_range(y_bound)
    rel <- dp_mean_release(y_matrix(y), matrix(rng, 2L), z, st$n)
    centre <- rel$estimate
    # (post-processing) a mean count below the noise sd of its release is
    # not told apart from that noise, and a start below it would give a
    # curvature e^b0 of almost 0, whose Newton steps diverge: kept within
    # [noise sd, bound]
    if (isTRUE(fam$centre_floor))
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
  if (!isTRUE(fam$multi)) return(beta0[1L])
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
  # one pass over the rows (design_row_stats()): the norms ||w_i||, and
  # the histograms of |r_i| c_i at beta0 (c_i = ||w_i||, or
  # max(1, |x_i|_inf) for coordinate truncation) and of ||w_i||
  resid <- if (need_clip) {
    r <- if (isTRUE(fam$multi))
           # a multinomial record's residual vector enters by its norm
           sqrt(rowSums(fam$residual(start_intercepts(beta0, fam, d,
                                                      intercept), y)^2))
         else record_residual(fam, beta0[1L] + (offset %||% 0), y)  # (shards.R)
    if (is.null(weights)) r else weights * r
  }
  rs <- design_row_stats(xt, intercept, resid, coordinate, need_row)
  nhist <- need_clip + need_row
  out <- list(clip = ctl$clip, row_bound = ctl$row_bound, w_norm = rs$norm)
  if (nhist) {                         # none: both levels declared
    z <- part_multiplier(st$z1, st$shares[["quantiles"]])
    rc <- release_counts(counts = rs$counts, z = z)
    k <- 1L
    if (need_clip) {
      clip <- hist_quantile(rc$counts[, k], 1 - ctl$quantiles[["clip"]], st$n,
                            rc$sd)
      # a bounded residual (logistic: 1, quantile: max(tau, 1 - tau))
      # times a row norm of at most sqrt(d)
      if (fam$bounded)
        clip <- min(clip, fam$slope_bound * if (coordinate) 1 else sqrt(d))
      out$clip <- clip
      k <- k + 1L
    }
    if (need_row)
      out$row_bound <- min(hist_quantile(rc$counts[, k], 1 - ctl$quantiles[["row"]],
                                         st$n, rc$sd), sqrt(d))
    out$parts <- list(settings_part(
      st, "quantiles", z, 1, sqrt(nhist),
      paste0("Gaussian: histograms of log2 ",
             if (coordinate) "|r_i| max(1, |x_i|_inf)" else "|r_i| ||(1, x_i)||",
             if (need_row) " and log2 ||(1, x_i)||"),
      paste(c(if (need_clip) paste("clip level", fmt3(out$clip)),
              if (need_row) paste("row bound", fmt3(out$row_bound))),
            collapse = "; ")))
  }
  out$public <- c(if (!need_clip && truncation != "none") "clip level",
                  if (row && !need_row) "row bound of the curvature")
  out$released <- compact(list(clip = out$clip, row_bound = out$row_bound))
  out
}

# Step 4, the curvature: the second-moment matrix of the rows clipped to
# B_H, released with Gaussian noise and made positive definite, times the
# loss's curvature per unit of second moment.
curvature_release <- function(xt, w_norm, row_bound, fam, beta0, quant,
                              intercept, ctl, st, weights = NULL) {
  d <- ncol(xt) + intercept
  z <- part_multiplier(st$z1, st$shares[["curvature"]])
  rh <- release_curvature(structure(list(x = xt), class = "design_cols"),
                          z, row_bound, st$n, w_norm, intercept, weights)
  # the loss's curvature at beta0 (the family's)
  weight <- fam$start_curvature(start_intercepts(beta0, fam, d, intercept),
                                intercept, quant)
  curv <- curvature_matrix(rh$h, rh$sd, ctl$ridge, weight)
  list(curvature = curv$A, eigen = curv$eigen, top = curv$top,
       parts = list(settings_part(
         st, "curvature", z, 1, row_bound^2 / st$n,
         "Gaussian: second-moment matrix of the rows clipped to the row bound",
         sprintf("%d x %d matrix", d, d))),
       released = list(ridge = curv$ridge))
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
row_bound_curvature <- function(row_bound, fam, beta0, quant, intercept, d) {
  weight <- fam$start_curvature(start_intercepts(beta0, fam, d, intercept),
                                intercept, quant)
  list(curvature = NULL, top = weight * row_bound^2,
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
# w may also be a design (design.R) in list(x = ), without the column of
# ones, which `intercept` adds.
release_curvature <- function(w, z, row_bound, n, norms = sqrt(rowSums(w * w)),
                              intercept = FALSE, weights = NULL) {
  # a record's weight in [0, 1] enters as the square root on its row, so
  # its term stays within the row bound
  sc <- row_scale(norms, row_bound)  # (shards.R: norms on the workers)
  if (!is.null(weights)) sc <- sc * sqrt(weights)
  h <- if (inherits(w, "design_cols"))
         design_gram(w$x, sc, intercept) / n
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

