# The truncation levels of a privately tuned fit (step 3 of tune_private()
# in R/settings.R): the clipping level of the gradients and the bound on
# the rows that enter the curvature, from the residuals at the start.

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
                            rc$sd, within = TRUE)
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
start_residuals <- function(fam, eta, y, weights = NULL, offset = NULL)
  UseMethod("start_residuals", y)

start_residuals.default <- function(fam, eta, y, weights = NULL,
                                    offset = NULL) {
  r <- if (fam$multi) sqrt(rowSums(fam$residual(eta, y)^2))
       else fam$residual(eta + (offset %||% 0), y)
  if (is.null(weights)) r else weights * r
}
