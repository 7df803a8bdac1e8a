# Heavy-tailed DP-SCO with a known range of the gradient's mean: Wang,
# Xiao, Devadas and Xu (2020), Algorithms 2 and 3.  Full-batch projected
# gradient descent over the l2 ball of each radius; at every step each of
# the d gradient coordinates is released by the trimmed-mean mechanism of
# Bun and Steinke (2019) (src/bun_steinke.c) at
#   eps' = eps~ / sqrt(d T),  eps~ = sqrt(2 log(1/delta) + 2 eps) - sqrt(2 log(1/delta)),
# t = eps'^2 / 16, s = eps' / 4: each release is (1/2) eps'^2-zCDP, and
# the d T releases compose to (1/2) eps~^2-zCDP, which is (eps, delta)-DP
# by the conversion rho + 2 sqrt(rho log(1/delta)) (Wang et al.'s Theorem 4).
# A path of nr radii spends the T steps of every radius: d T nr releases.

#' @name dpsco
#' @rdname dpsco
#' @section Bun-Steinke gradient descent (`method = "bun_steinke"`):
#' Algorithm 3 of Wang, Xiao, Devadas and Xu (2020): `T` steps of projected
#' full-batch gradient descent on the l2 ball of each radius (the last
#' iterate is the output), each gradient coordinate released by the
#' mechanism of Bun and Steinke (2019) (Wang et al.'s Algorithm 2): the
#' coordinate's `n` per-record values are clamped to a prior range
#' `[a, b]` of its mean, the `m` smallest and `m` largest are trimmed, the
#' mean of the rest is truncated to `[a, b]`, and the release adds
#' `S / s * sinh(Y)`, `Y ~ N(0, 1)`, with Wang et al.'s smooth-sensitivity
#' bound `S = max((x_(n) - x_(1)) / (n - 2m), exp(-m t) (b - a))`,
#' `t = eps'^2 / 16` and `s = eps' / 4`.  The per-release budget is
#' Wang et al.'s `eps' = eps~ / sqrt(d T nr)`, with
#' `eps~ = sqrt(2 log(1/delta) + 2 epsilon) - sqrt(2 log(1/delta))` from what
#' the private settings leave of `(epsilon, delta)`.
#'
#' Privacy: each release is `eps'^2 / 2`-zCDP (Bun and Steinke 2019,
#' Theorem 7, for `0 < eps' <= 1`), for neighbouring data sets that differ
#' in one record (replace-one), applied to the records resized to the
#' public `n` (see "Theorems stated for replace-one neighbours" in
#' [dpsco-methods]),
#' which makes it hold for a record added or removed.  Wang et al.'s bound `S` is a
#' `t`-smooth upper bound on the local sensitivity because every value is
#' clamped to `[a, b]` and `(m - 1) t <= log(n - 2m)`; both conditions and
#' `eps' <= 1` are checked (an error otherwise).  The `d T nr` releases
#' compose in zCDP, i.e. Renyi DP `alpha * rho` at every order, and the
#' record accounts them with the private settings through their Renyi
#' curves.  The range `[a, b]`: with private tuning the data are on the
#' unit scale and the hard bound of the ball, `a = -b`, `b = R(r) max(1,
#' x_bound)` with `R(r)` the largest residual inside the ball of radius `r`
#' (`|y| + |offset| + r ||(1, x)||` for gaussian, 1 for binomial); with
#' public tuning `dpsco_control(mean_range = )` is required.  Defaults:
#' `T = ceiling(log(n))` (Wang et al.'s `O(log n)`), `m = 1`
#' (`dpsco_control(trim = )`), step `1 / beta` (`gd_step`).  The noise is
#' heavy-tailed and at least `exp(-m t) (b - a) / s` wide: Wang et al.
#' report the method as unstable and far behind their Algorithm 4 (method
#' `"holland"` with `batch_size = n`).
#' @references Wang, D., Xiao, H., Devadas, S. and Xu, J. (2020). On
#'   differentially private stochastic convex optimization with
#'   heavy-tailed data. *ICML 2020*, PMLR 119, 10081-10091.
#'
#'   Bun, M. and Steinke, T. (2019). Average-case averages: private
#'   algorithms for smooth sensitivity and mean estimation. *NeurIPS 2019*.
NULL

# Wang et al.'s eps~: the zCDP level rho = eps~^2 / 2 whose conversion
# rho + 2 sqrt(rho log(1/delta)) equals epsilon.
bs_eps_tilde <- function(epsilon, delta) {
  L <- log(1 / delta)
  sqrt(2 * L + 2 * epsilon) - sqrt(2 * L)
}

# The largest |residual| inside the l2 ball of radius r on prob's scale.
bs_resid_bound <- function(prob, r) {
  prob$family$residual_bound(
    prob$y_bound + abs(prob$offset) +
      r * sqrt(prob$intercept + prob$p * prob$x_bound^2))
}

# The d x nr prior ranges [a, b] (rows lo, hi).
bs_ranges <- function(prob, radius, control) {
  d <- prob$d
  nr <- length(radius)
  if (!is.null(control$mean_range)) {
    mr <- control$mean_range
    if (!(ncol(mr) %in% c(1L, d)))
      arg_error("mean_range", "needs 1 or ", d, " columns (one per ",
                "coefficient, intercept first); got ", ncol(mr), ".")
    lo <- rep_len(mr[1L, ], d)
    hi <- rep_len(mr[2L, ], d)
    return(list(lo = matrix(lo, d, nr), hi = matrix(hi, d, nr),
                source = "declared"))
  }
  if (!is.finite(prob$x_bound) || !is.finite(prob$y_bound))
    arg_error("control", "$mean_range (the prior range [a, b] of each ",
              "gradient coordinate's mean, Assumption 3 of Wang et al.) is ",
              "needed with tuning = \"public\".")
  zmax <- max(if (prob$intercept) 1 else 0, prob$x_bound)
  g <- vapply(radius, function(r) bs_resid_bound(prob, r) * zmax, 0)
  list(lo = matrix(rep(-g, each = d), d, nr),
       hi = matrix(rep(g, each = d), d, nr), source = "hard bound")
}

# Everything the engine needs and the record shows, before it runs.
bs_plan <- function(prob, radius, budget, control, steps) {
  n <- prob$n
  d <- prob$d
  nr <- length(radius)
  steps <- steps %||% max(1L, as.integer(ceiling(log(n))))
  m <- as.integer(control$trim %||% 1L)
  if (n - 2L * m < 1L)
    arg_error("trim", "= ", m, " leaves no record: the trimmed mean needs ",
              "n - 2 m >= 1 (n = ", n, ").")
  rem <- budget$remaining
  eps_tilde <- bs_eps_tilde(rem$epsilon, rem$delta)
  calls <- as.double(d) * steps * nr
  eps_call <- eps_tilde / sqrt(calls)
  if (eps_call > 1)
    arg_error("epsilon", "gives eps' = ", format(signif(eps_call, 4)),
              " per release (eps~ / sqrt(d T nr)); Bun and Steinke's ",
              "guarantee (Theorem 7) is stated for eps' <= 1: lower ",
              "epsilon or raise the iterations.")
  t <- eps_call^2 / 16
  s <- eps_call / 4
  # Wang et al.'s bound is t-smooth for values in [a, b] when its floor
  # e^{-mt} (b - a) is at least e^{-t} times the largest range term
  # (b - a) / (n - 2m)
  if ((m - 1) * t > log(n - 2 * m))
    arg_error("trim", "= ", m, " breaks the smoothness of the sensitivity ",
              "bound: (m - 1) t = ", format(signif((m - 1) * t, 4)),
              " exceeds log(n - 2m) = ", format(signif(log(n - 2 * m), 4)),
              ".")
  rg <- bs_ranges(prob, radius, control)
  curv <- prob$family$step_curvature
  rows <- prob$smoothness %||%
    if (is.finite(prob$x_bound)) prob$intercept + prob$p * prob$x_bound^2
    else d
  step <- control$gd_step %||% (1 / (curv * rows))
  list(steps = as.integer(steps), trim = m, eps_tilde = eps_tilde,
       eps_call = eps_call, t = t, s = s, decay = exp(-m * t),
       lo = rg$lo, hi = rg$hi, range_source = rg$source,
       step = rep_len(as.double(step), nr), calls = calls)
}

# Run the engine: `noise = FALSE` gives the non-private descent with the
# same trimmed means (tests).
bs_engine <- function(prob, radius, plan, beta0 = rep(0, prob$d),
                      noise = TRUE, trace = FALSE) {
  settings <- c(prob$family$settings, list(
    task = 0L, intercept = as.integer(prob$intercept),
    offset = as.double(prob$offset), steps = plan$steps,
    step = plan$step, trim = plan$trim, decay = plan$decay,
    s = plan$s, noise = as.integer(noise),
    lo = as.double(plan$lo), hi = as.double(plan$hi),
    threads = as.integer(prob$threads %||% 1L), trace = as.integer(trace)))
  .Call(C_dpsco_bun_steinke, prob$x, as.double(prob$y), settings,
        as.double(radius), as.double(beta0))
}

# One Bun-Steinke release per column of v (n x k) with ranges lo, hi:
# the 3 x k matrix of truncated trimmed means, smooth bounds and releases.
bs_mean_release <- function(v, lo, hi, trim, eps, noise = TRUE) {
  v <- as.matrix(v)
  storage.mode(v) <- "double"
  t <- eps^2 / 16
  .Call(C_dpsco_bun_steinke, v, NULL,
        list(task = 1L, trim = as.integer(trim), decay = exp(-trim * t),
             s = eps / 4, noise = as.integer(noise),
             lo = rep_len(as.double(lo), ncol(v)),
             hi = rep_len(as.double(hi), ncol(v))), NULL, NULL)
}

fit_bun_steinke <- function(prob, radius, budget, control, steps) {
  plan <- bs_plan(prob, radius, budget, control, steps)
  d <- prob$d
  nr <- length(radius)
  res <- bs_engine(prob, radius, plan, trace = TRUE)
  beta <- res$beta
  if (!is.null(colnames(prob$x)))
    rownames(beta) <- c(if (prob$intercept) "(Intercept)", colnames(prob$x))
  f4 <- function(v) format(signif(v, 4))
  part <- zcdp_part(
    "optimizer", rho = plan$eps_call^2 / 2, steps = plan$calls, share = 1,
    mechanism = sprintf(paste(
      "Bun-Steinke trimmed mean (m = %d) per gradient coordinate, values",
      "clamped to [a, b] (%s), smooth-sensitivity bound with t = %s,",
      "noise S / s * sinh(N(0, 1)) with s = %s; eps' = %s per release",
      "(eps'^2 / 2-zCDP), %d coordinates x %d steps x %d radii composed in",
      "zCDP"), plan$trim, plan$range_source, f4(plan$t), f4(plan$s),
      f4(plan$eps_call), d, plan$steps, nr),
    released = sprintf("%d gradient coordinates at each of %d steps per radius",
                       d, plan$steps))
  public <- c(sprintf("prior range [a, b] of each gradient coordinate's mean (%s)",
                      plan$range_source),
              "trim m", "step size",
              if (is.finite(prob$x_bound))
                sprintf("x_bound = %s, y_bound = %s, offset = %s",
                        f4(prob$x_bound), f4(prob$y_bound), f4(prob$offset)))
  list(beta = beta, parts = list(part),
       settings = list(steps = plan$steps, trim = plan$trim,
                       eps_tilde = plan$eps_tilde, eps_call = plan$eps_call,
                       t = plan$t, s = plan$s, step = plan$step,
                       mean_range = rbind(a = plan$lo[1L, ], b = plan$hi[1L, ]),
                       iterates = res$trace),
       public = public, pure_epsilon = NULL, calibration = "theorem")
}

#' @include registry.R constrained.R
NULL

register_method(
  "bun_steinke", rank = 8,
  label = "gradient descent with Bun-Steinke trimmed means (Wang et al. 2020)",
  reference = "Wang, Xiao, Devadas and Xu (2020), Algorithms 2-3",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  adjacency = "replace-one", sampling = "every record at every step",
  control = c(radius_path_control, "trim", "mean_range", "gd_step",
              "row_bound"),
  truncation = "none", row = TRUE, shardable = radius_unshardable,
  fit = function(prob, path, settings)
    fit_bun_steinke(prob, path, settings$budget, settings$control,
                    settings$steps))
