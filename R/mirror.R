# Noisy mirror descent in l_p, 1 < p <= 2: the public settings, the privacy
# calibration and the record of the two mirror-descent algorithms, run by
# the C engine (src/mirror.c):
#   "mirror"          Algorithm 3, noisy regularised mirror descent on the
#                     full data (Theorems 6 and 7);
#   "mirror_shuffled" Algorithm 4, shuffled truncated one-pass mirror
#                     descent with per-record noise (Theorems 9 and 10),
#                     accounted by amplification by shuffling.
# Geometry (see mirror_geometry()): gradients are bounded in the dual norm
# l_q, the noise is generalized Gaussian in the smooth norm l_r of the dual
# and the mirror map is ||w||_s^2 / (2 (s - 1)) with s = r / (r - 1).

mirror_tasks <- c(fit = 0L, map = 1L, noise = 2L)

# Exponents and the regularity constant of the dual space l_q^d.
# q = p / (p - 1) is the dual exponent, r = min(q, 2 log d + 1) that of its
# smooth norm (at least 2, which only matters for d = 1), s = r / (r - 1)
# that of the mirror map (s = p when q <= 2 log d + 1).
# kappa is the regularity constant of l_q^d with smooth norm l_r: the
# smoothness r - 1 of ||.||_r^2 times max ||z||_r^2 / ||z||_q^2 =
# d^(2/r - 2/q).  It equals the method's min(1 / (p - 1), 2 log d) whenever
# q <= 2 log d + 1 (then r = q and the ratio is 1); for larger q the
# method's 2 log d leaves out the ratio d^(2/r - 2/q) <= e (the regularity
# constant of Juditsky and Nemirovski is 2 e log d there), so the exact
# ratio is kept: the noise never falls below what regularity requires.
mirror_geometry <- function(lp, d) {
  q <- lp / (lp - 1)
  r <- min(q, max(2, 2 * log(d) + 1))
  list(q = q, r = r, s = r / (r - 1), kappa = (r - 1) * d^(2 / r - 2 / q))
}

# max ||(1, x)||_q (or ||x||_q) over records with every |x_j| <= x_bound,
# computed on the values divided by the largest so that no power overflows.
dual_norm_bound <- function(x_bound, p, intercept, q) {
  big <- max(if (intercept) 1 else 0, x_bound)
  big * ((if (intercept) (1 / big)^q else 0) + p * (x_bound / big)^q)^(1 / q)
}

# The amplified epsilon of n shuffled (eps0, delta0)-DP local randomizers
# at delta (the shuffling part of the delta), Feldman, McMillan and Talwar
# (2021), "Hiding among the clones", arXiv:2012.12803, Theorem 3.8 (adaptive
# local randomizers, approximate DP) with a closed-form epsilon.  Their
# Theorem 3.1 prints
#   eps = log(1 + (e^eps0 - 1) / (e^eps0 + 1) * (a + c)),
#   a = 8 sqrt(e^eps0 log(4 / delta) / n), c = 8 e^eps0 / n,
# while the authors' reference implementation (closedformanalysis() of
# apple/ml-shuffling-amplification) computes
#   eps = log(1 + (1 - e^-eps0) / (1 + e^(-eps0 - e)) * (a + c)),
#   e = log(1 + a + c),
# which is larger (up to 1.33 times at n = 1000, delta = 1e-6): the two
# cannot be reconciled line by line here, so the larger, the more
# conservative, is used.  The output is
# (eps, delta + (e^eps + 1)(1 + e^-eps0 / 2) n delta0)-DP for data sets of
# n records differing in one record (replace-one), provided
# eps0 <= log(n / (16 log(4 / delta))) (shuffle_eps0_limit(); the theorem
# states log(2 / delta), the implementation the stricter log(4 / delta)).
shuffle_epsilon <- function(eps0, n, delta) {
  a <- 8 * sqrt(exp(eps0) * log(4 / delta) / n)
  c <- 8 * exp(eps0) / n
  log1p(-expm1(-eps0) / (1 + exp(-eps0 - log1p(a + c))) * (a + c))
}

shuffle_delta <- function(eps, eps0, n, delta, delta0) {
  delta + (exp(eps) + 1) * (1 + exp(-eps0) / 2) * n * delta0
}

# The largest eps0 allowed: the theorem's range, and at most 1, the range
# in which the generalized Gaussian calibration of the local randomizers
# (sigma^2 = 2 kappa log(1/delta0) s^2 / eps0^2, the method's Lemma 3) is
# used here.  Its Gaussian case (r = 2) is (eps0, delta0)-DP for eps0 <= 1
# but not for large eps0 (e.g. eps0 = 10, delta0 = 1e-10: the exact delta
# is 1.4e-10).
shuffle_eps0_limit <- function(n, delta) {
  min(1, log(n / (16 * log(4 / delta))))
}

mirror_radius <- function(radius, shuffled) {
  if (!is.numeric(radius) || !length(radius) || anyNA(radius))
    arg_error("radius", "must be a vector of positive numbers.")
  if (any(radius <= 0))
    arg_error("radius", "must be positive.")
  if (length(radius) > 1L && any(diff(radius) <= 0))
    arg_error("radius", "must be increasing.")
  if (shuffled && any(is.infinite(radius)))
    arg_error("radius", "must be finite for the shuffled mirror descent: ",
              "its truncation level and noise grow with the radius.")
  as.double(radius)
}

# Everything a mirror-descent fit uses, before it runs: `engine` (the
# settings the C engine reads), `settings` (the values, for the record),
# the privacy `parts` and the `public` declarations.  See fit_mirror().
mirror_plan <- function(prob, radius, lp, budget, control, shuffled = FALSE,
                        iterations = NULL) {
  lp <- check_number(lp, "lp", 1, 2)
  shuffled <- isTRUE(shuffled)
  radius <- mirror_radius(radius, shuffled)
  if (!is.null(iterations))
    iterations <- check_count(iterations, "iterations", 1,
                              if (shuffled) prob$n else .Machine$integer.max)
  base <- mirror_base(prob, radius, lp, budget)
  run <- if (shuffled) mirror_plan_shuffled(base, control, iterations)
         else mirror_plan_full(base, prob, budget, control, iterations)
  geo <- base$geo
  engine <- c(run$engine, prob$family$settings, list(
    task = mirror_tasks[["fit"]], shuffled = as.integer(shuffled),
    intercept = as.integer(base$intercept),
    offset = as.double(base$offset), threads = as.integer(base$threads),
    q = geo$q, s = geo$s, m = as.double(base$n), rate = 1, noise_sd = 0))
  # steps per radius (NA when the radii differ: then see T)
  steps1 <- if (length(unique(run$settings$T)) == 1L) run$settings$T[1L]
            else NA_integer_
  settings <- c(run$settings, list(steps = steps1, lp = lp, q = geo$q,
                                   r = geo$r, p_tilde = geo$s,
                                   kappa = geo$kappa, beta_smooth = base$smooth,
                                   dual_bound = base$bound_q,
                                   resid_bound = base$resid, radius = radius,
                                   threads = base$threads))
  list(engine = engine, settings = settings, parts = list(run$part),
       public = c(base$public, run$public))
}

# What both mirror descents take from the problem and the budget: the
# geometry, the smoothness and residual bounds, each radius's share of the
# budget and the public declarations they share.
mirror_base <- function(prob, radius, lp, budget) {
  p <- prob$p
  intercept <- isTRUE(prob$intercept)
  d <- p + intercept
  nr <- length(radius)
  fam <- prob$family
  offset <- prob$offset %||% 0
  geo <- mirror_geometry(lp, d)
  bound_q <- dual_norm_bound(prob$x_bound, p, intercept, geo$q)
  # smoothness in l_p: the Hessian is l'' (1, x)(1, x)', and
  # |<(1, x), v>| ||(1, x)||_q <= ||(1, x)||_q^2 ||v||_p (Hoelder)
  # (with private tuning, the squared private row bound instead: the
  # curvature of the bulk of the records, which only sets step sizes)
  # (times the loss's largest second derivative: 1, 1/4 (logistic),
  # K(0) / h (smoothed check loss))
  smooth <- (prob$smoothness %||% bound_q^2) * fam$curvature
  # each radius is a separate run on the same data: basic composition
  list(n = prob$n, d = d, nr = nr, lp = lp, radius = radius,
       intercept = intercept, offset = offset, geo = geo, bound_q = bound_q,
       smooth = smooth,
       # the largest residual at the start w = 0
       resid = fam$residual_bound(prob$y_bound + abs(offset)),
       eps_r = budget$remaining$epsilon / nr,
       delta_r = budget$remaining$delta / nr,
       share = budget$remaining$epsilon / budget$epsilon,
       threads = prob$threads %||% getOption("dpsco.threads", 2L),
       public = c("x_bound (bound on |x_ij|)",
                  if (!fam$bounded) "y_bound (bound on |y_i|)",
                  "offset", "iterations and step sizes"))
}

# Algorithm 3, full-data noisy regularised mirror descent: its engine
# settings, record values, privacy part and public declarations.
mirror_plan_full <- function(base, prob, budget, control, iterations) {
  n <- base$n
  d <- base$d
  nr <- base$nr
  eps_r <- base$eps_r
  delta_r <- base$delta_r
  kappa <- base$geo$kappa
  L <- control[["clip"]] %||% (base$resid * base$bound_q)
  # Theorem 7's T and alpha make the regulariser dominate at real sizes
  # (the fit barely leaves 0 on the raw blog data); with private tuning
  # the defaults are 50 steps and alpha = 0 instead (held-out RMSE 38.0
  # against 40.4 on blog at epsilon = 0.5).  Neither enters the noise's
  # calibration beyond T.
  practical <- identical(prob$tuning, "private")
  steps <- iterations %||% if (practical) 50L else max(1L, as.integer(ceiling(
    (n * eps_r * kappa / sqrt(d * log(1 / delta_r)))^(2 / 5))))
  alpha <- control[["mirror_alpha"]] %||% if (practical) 0
           else max(0, 4 * base$smooth * log2(n / steps) / steps)
  nsteps <- as.double(steps) * nr
  if (base$lp < 2) {
    # Theorem 6 is stated for epsilon < 1: a larger share per radius is
    # spent as epsilon = 1 (more noise than the share allows, never less)
    eps_use <- min(eps_r, 1)
    sigma <- sqrt(64 * L^2 * kappa * steps * log(1 / delta_r) /
                    (n^2 * eps_use^2))
    part <- dp_part(
      "mirror", epsilon = nr * eps_use, delta = nr * delta_r,
      steps = nsteps, sensitivity = 2 * L / n, share = base$share,
      mechanism = sprintf(paste0("generalized Gaussian (l_%.4g norm): ",
                                 "noisy regularised mirror descent, full ",
                                 "data"), base$geo$r),
      released = paste(nsteps, "noisy gradients"))
    part$statement <- sprintf(paste0(
      "Theorem 6 of the mirror-descent method: Algorithm 3 with sigma^2 = ",
      "64 L^2 kappa T log(1/delta) / (n epsilon)^2 is (epsilon, delta)-DP; ",
      "(%.6g, %.6g) per radius, basic composition over %d radii"),
      eps_use, delta_r, nr)
    part$neighbouring <- paste("replace-one (Theorem 6), on the records",
                               "resized to the public n")
  } else {
    # p = 2: the noise is N(0, sigma^2 I), accounted exactly with the
    # fixed parts; sensitivity L / n under add/remove (n public)
    z <- calibrate_components(budget$fixed_components, 1, nsteps,
                              budget$epsilon, budget$delta)
    sigma <- z * L / n
    eps_use <- NA_real_
    part <- privacy_part(
      "mirror", z, 1, nsteps, L / n, base$share,
      mechanism = "Gaussian: full-data clipped gradients (mirror descent, p = 2)",
      released = paste(nsteps, "noisy gradients"), kind = "gaussian")
  }
  list(engine = list(steps = rep(as.integer(steps), nr), clip = rep(L, nr),
                     sigma = rep(sigma, nr), b = rep(base$smooth, nr),
                     a = rep(alpha, nr)),
       settings = list(algorithm = "mirror", T = steps, alpha = alpha,
                       sigma = sigma, L = L, epsilon_radius = eps_r,
                       delta_radius = delta_r, epsilon_used = eps_use),
       part = part,
       public = if (is.null(control[["clip"]])) "clip level (from the bounds)"
                else "clip level")
}

# Algorithm 4, shuffled truncated one-pass mirror descent: its engine
# settings, record values, privacy part and public declarations.
mirror_plan_shuffled <- function(base, control, iterations) {
  n <- base$n
  nr <- base$nr
  delta_r <- base$delta_r
  amp <- mirror_amplification(n, base$eps_r, delta_r)
  eps_r <- amp$eps_r
  eps0 <- amp$eps0
  delta0 <- amp$delta0
  kappa <- base$geo$kappa
  lambda <- control[["mirror_lambda"]] %||%
    (sqrt(n * eps_r) / (kappa^2 * base$d * log(1 / delta_r))^(1 / 4))
  steps <- if (!is.null(iterations)) rep(iterations, nr)
           else as.integer(pmin(n, pmax(1, round(
             base$radius^2 * n^2 * eps_r^2 /
               (lambda^2 * base$d * log(1 / delta_r))))))
  gamma <- control[["mirror_gamma"]] %||% sqrt(steps)
  gamma <- rep_len(as.double(gamma), nr)
  trunc <- base$smooth * base$radius + lambda
  # the local randomizer's replace-one sensitivity is 2 (beta M + lambda)
  sigma <- sqrt(2 * kappa * log(1 / delta0)) * 2 * trunc / eps0
  part <- dp_part(
    "mirror_shuffled", epsilon = nr * amp$eps_cert, delta = nr * amp$delta_cert,
    steps = sum(as.double(steps)), sensitivity = max(2 * trunc),
    share = base$share,
    mechanism = sprintf(paste0("generalized Gaussian (l_%.4g norm) local ",
                               "randomizers, shuffled: truncated one-pass ",
                               "mirror descent%s"), base$geo$r,
                        if (amp$capped) paste0(" (epsilon capped at the ",
                                               "amplification bound's reach)")
                        else ""),
    released = paste(nr, "passes of", n, "noisy truncated gradients"))
  part$statement <- sprintf(paste0(
    "each record's noisy truncated gradient is an (eps0, delta0) = ",
    "(%.6g, %.3g)-DP local randomizer (the method's Lemma 3); shuffling ",
    "amplifies a pass to (%.6g, %.3g)-DP (Feldman, McMillan and Talwar ",
    "2021, Theorem 3.8); basic composition over %d radii"),
    eps0, delta0, amp$eps_cert, amp$delta_cert, nr)
  part$eps0 <- eps0
  part$delta0 <- delta0
  part$neighbouring <- paste("replace-one (shuffle model), on the records",
                             "resized to the public n")
  list(engine = list(steps = as.integer(steps), clip = as.double(trunc),
                     sigma = as.double(sigma), b = gamma, a = rep(0, nr)),
       settings = list(algorithm = "mirror_shuffled", T = steps, gamma = gamma,
                       lambda = lambda, truncation = trunc, sigma = sigma,
                       eps0 = eps0, delta0 = delta0, eps0_limit = amp$eps0_max,
                       epsilon_amplified = amp$eps_cert,
                       delta_amplified = amp$delta_cert,
                       epsilon_radius = eps_r, delta_radius = delta_r,
                       epsilon_capped = amp$capped),
       part = part, public = "truncation level lambda")
}

# The local randomizers' (eps0, delta0) whose shuffled pass meets a
# radius's share (eps_r, delta_r), half of delta_r for the amplification
# and the rest for the randomizers' delta0; the certified (eps, delta) of
# the pass.
mirror_amplification <- function(n, eps_r, delta_r) {
  delta_s <- delta_r / 2
  eps0_max <- shuffle_eps0_limit(n, delta_s)
  eps_max <- if (eps0_max > 0) shuffle_epsilon(eps0_max, n, delta_s) else 0
  # the amplification bound reaches at most eps_max per radius (the
  # method's regime epsilon = O(sqrt(log(n/delta) / n))): a larger share
  # is spent as eps_max, and the record states the smaller epsilon
  capped <- eps_r > eps_max
  if (!(eps_max > 0))
    arg_error("epsilon", "cannot be met by the shuffled mirror descent at ",
              "n = ", n, ": its amplification bound (Feldman, McMillan and ",
              "Talwar 2021, Theorem 3.8) needs n > 16 log(4 / delta).")
  eps_r <- min(eps_r, eps_max)
  # the largest eps0 whose amplified epsilon meets the share (bisection;
  # shuffle_epsilon() increases with eps0 and is 0 at 0)
  lo <- 0
  hi <- eps0_max
  for (i in 1:200) {
    mid <- (lo + hi) / 2
    if (shuffle_epsilon(mid, n, delta_s) <= eps_r) lo <- mid else hi <- mid
    if (hi - lo <= 1e-13 * hi) break
  }
  eps0 <- lo
  eps_cert <- shuffle_epsilon(eps0, n, delta_s)
  # the rest of the delta share pays for the local randomizers' delta0
  delta0 <- (delta_r - delta_s) /
    ((exp(eps_r) + 1) * (1 + exp(-eps0) / 2) * n)
  list(eps_r = eps_r, eps0 = eps0, delta0 = delta0, eps0_max = eps0_max,
       capped = capped, eps_cert = eps_cert,
       delta_cert = shuffle_delta(eps_cert, eps0, n, delta_s, delta0))
}

# The C engine on a plan's `engine` settings: a d x length(radius) matrix.
mirror_run <- function(prob, radius, engine, beta0 = NULL) {
  x <- prob$x
  if (!is.double(x)) storage.mode(x) <- "double"
  d <- ncol(x) + isTRUE(prob$intercept)
  beta0 <- as.double(beta0 %||% rep(0, d))
  .Call(C_dpsco_mirror, x, as.double(prob$y), engine, as.double(radius),
        beta0)
}

# A mirror-descent fit along the radius path.
#   prob       list(x, y, family, intercept, offset, n, p, d, x_bound,
#              y_bound): |x_ij| <= x_bound and (gaussian) |y_i| <= y_bound
#              are public bounds
#   radius     increasing radii of the l_s ball (Inf: unconstrained, for
#              "mirror" only); one fit each, warm-started
#   lp         the norm l_p, 1 < lp <= 2
#   budget     list(epsilon, delta, fixed_components, remaining =
#              list(epsilon, delta))
#   control    dpsco_control(): clip, mirror_alpha (Algorithm 3),
#              mirror_lambda, mirror_gamma (Algorithm 4); the threads are
#              prob$threads (else the option dpsco.threads)
# Returns list(beta = d x length(radius), parts, settings, public).  The
# guarantees of "mirror_shuffled" and of lp < 2 are for replace-one
# neighbours of n records: radius_path() resizes the records to the
# public n first (resize_records()).
fit_mirror <- function(prob, radius, lp, budget, control, shuffled = FALSE,
                       iterations = NULL) {
  plan <- mirror_plan(prob, radius, lp, budget, control, shuffled, iterations)
  beta <- mirror_run(prob, plan$settings$radius, plan$engine)
  list(beta = beta, parts = plan$parts, settings = plan$settings,
       public = plan$public)
}

# grad Phi_s(v), or its inverse grad Phi_s^*(v), as the engine computes it.
mirror_map <- function(v, s, inverse = FALSE) {
  .Call(C_dpsco_mirror, NULL, NULL,
        list(task = mirror_tasks[["map"]], s = as.double(s),
             inverse = as.integer(inverse)), NULL, as.double(v))
}

# k draws of the generalized Gaussian in R^d (density proportional to
# exp(-||z||_r^2 / (2 sigma^2))), one per column.
gg_draws <- function(k, d, r, sigma) {
  .Call(C_dpsco_mirror, NULL, NULL,
        list(task = mirror_tasks[["noise"]], dim = as.integer(d),
             draws = as.integer(k), r = as.double(r),
             sigma = as.double(sigma)), NULL, NULL)
}

#' @include registry.R constrained.R
NULL

# Mirror descent's clipping level: the private one (tuning = "private") or
# the user's.
mirror_control <- function(prob, control) {
  if (prob$tuning == "private") utils::modifyList(control, list(clip = prob$clip))
  else control
}

register_method(
  "mirror", rank = 5,
  label = "noisy regularised mirror descent",
  reference = "Su, Zhao and Wang, Algorithm 3",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  # at lp = 2 the Gaussian release is accounted for add/remove directly;
  # below, the noise is Theorem 6's, a replace-one statement
  adjacency = function(lp) if (lp < 2) "replace-one" else "add/remove",
  sampling = "every record at every step",
  control = c(radius_path_control, "clip", "mirror_alpha", "row_bound",
              "shrink"),
  truncation = "l2", row = TRUE, bounded = TRUE, lp = TRUE,
  radius_inf = function(fam) TRUE, shardable = radius_unshardable,
  fit = function(prob, path, settings)
    fit_mirror(prob, path, prob$lp, settings$budget,
               mirror_control(prob, settings$control),
               iterations = settings$steps))
