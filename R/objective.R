# Approximate objective perturbation (App-ObjP) over l1 balls.
#
# Su, Zhao and Wang, "DP-SCO in Euclidean space", Algorithms 1 and 2 (the
# algorithm is the approximate objective perturbation of Bassily, Feldman,
# Talwar and Thakurta 2019).  For each radius r of the path, with
# C_r = {w : ||w||_1 <= r} over all d coordinates (intercept included):
#   1. draw G ~ N(0, sigma1^2 I_d), sigma1^2 = 128 L^2 log(2.5/delta) / eps^2;
#   2. J(w) = risk(w) + <G, w> / n + lambda ||w||_2^2;
#   3. find theta2 in C_r with J(theta2) - min_C J <= alpha, or only as
#      close to the minimiser as that implies (see below);
#   4. release Proj_C(theta2 + H), H ~ N(0, sigma2^2 I_d), with
#      sigma2^2 = 64 alpha log(2.5/delta) / (lambda eps^2)          (Alg. 1)
#      sigma2^2 = 64 alpha log(2.5/delta) ||C||_2^2 / (Delta eps^2)  (Alg. 2).
# The theorems (1 and 3) state (eps, delta)-DP for 0 < eps, delta < 1; the
# path splits the budget evenly over the radii (basic composition).
#
# The non-private solver sees the data only to compute J and its gradient:
# every setting (lambda, alpha, sigma1, sigma2, step sizes) comes from the
# public bounds x_bound, y_bound, the offset, n, p and the radii.
#
# Why alpha need not be certified.  Algorithm 1's optimizer O is any
# method meeting the accuracy alpha, and the privacy argument of Theorem 1
# (that of Bassily et al. 2019) uses theta2 only through its distance to
# the exact minimiser theta* of J over C: theta* is private by objective
# perturbation, and theta2 + H is a Gaussian mechanism on theta2 - theta*,
# whose norm strong convexity bounds by sqrt(2 alpha / lambda) for every
# data set and every G (sigma2 is exactly the Gaussian mechanism's at
# (eps/2, delta/2) for the l2 sensitivity 2 sqrt(2 alpha / lambda)).  So
# any deterministic (D, G) -> theta2 with
#   ||theta2 - theta*||^2 <= 2 alpha / mu   for EVERY input,
# mu the l2 strong convexity of J (2 lambda; 2 lambda + Delta in Algorithm
# 2, whose sigma2 allows at least 2 alpha / Delta), may be released with
# the same sigma2.  A certified J(w) - min J <= alpha is one way to get it
# (J(w) - min J >= (mu / 2) ||w - theta*||^2); obj_theta2() adds a second
# that always succeeds: when obj_solve() has not certified within
# objective_maxit inner steps, projected gradient steps, as many as the
# contraction needs to reach the distance with rounding accounted
# (obj_fallback()).  Nothing stops on the data, and nothing about the
# solvers' progress (steps, gaps, which one finished) leaves
# fit_objective().
#
# One event is set aside: the rounding bounds behind the floor on alpha
# assume max_j |G_j| <= 40 sigma1.  Outside it (an event of the noise
# alone, of probability at most 2 d Q(40) < 1e-340) the release is the
# data-independent Proj_C(H).  The fit then differs from an App-ObjP with
# an exact-distance optimizer only on that event, which adds at most
# (1 + e^eps) 2 d Q(40) to delta: zero in double precision (R's normal
# generator cannot even reach 40 sd).

# Per-radius calibration from public quantities only.  eps, delta: the
# radius's share; Delta: the declared l2 strong convexity (0: Algorithm 1).
obj_calibrate <- function(prob, r, eps, delta, Delta, tol = NULL) {
  bd <- obj_bounds(prob)
  n <- prob$n
  d <- prob$d
  R <- obj_resid_bound(prob, r)
  L <- R * bd$X2
  diam <- 2 * r                                  # ||C||_2, the l2 diameter
  width <- r * sqrt(2 * log(2 * d))      # G_C of the l1 ball (constant 1)
  logd <- log(2.5 / delta)
  sigma1 <- sqrt(128 * L^2 * logd) / eps
  lower <- bd$rank * bd$beta / (eps * n)         # lambda >= r beta / (eps n)
  if (!is.finite(r)) {
    # the unconstrained objective perturbation of the poster on private
    # smoothed quantile regression (a bounded residual, so L is finite for
    # every w), calibrated by Su, Zhao and Wang's theorem: its smallest
    # lambda, and an accuracy alpha whose output noise sigma2 is 1e-3 of the
    # objective noise's typical move sigma1 / (2 n lambda) of the
    # minimiser, floored where rounding stops the solver (gradients near
    # 1e-12 of L)
    lambda <- lower
    sd_move <- 1e-3 * sigma1 / (2 * n * lambda)
    alpha_thm <- min(sd_move^2 * lambda * eps^2 / (64 * logd), 1)
    floor <- max(1e-24 * L^2 * d / lambda,
                 obj_fallback_floor(prob, r, R, bd, lambda, 2 * lambda, sigma1))
    obj_check_floor(floor, r)
    alpha <- min(max(tol %||% alpha_thm, floor), 1)
    sigma2 <- sqrt(64 * alpha * logd / (lambda * eps^2))
    return(list(L = L, resid_bound = R, diameter = Inf, width = Inf,
                sigma1 = sigma1, lambda = lambda, lambda_lower = lower,
                alpha = alpha, alpha_theorem = alpha_thm, alpha_floor = floor,
                alpha_raised = alpha > (tol %||% alpha_thm), sigma2 = sigma2,
                strong_convexity_C = 0, modulus = 2 * lambda))
  }
  if (Delta > 0) {
    # Algorithm 2 assumes Delta-strong convexity w.r.t. the Minkowski norm
    # of C; an l2 modulus Delta gives Delta C_min^2 there (Su, Zhao and
    # Wang's remark after Assumption 2), C_min = r / sqrt(d) for the l1
    # ball.  lambda subtracts the smaller of the two moduli, so J is at
    # least as strongly convex (in l2) as Su, Zhao and Wang require under
    # either reading.
    Delta_C <- Delta * r^2 / d
    lambda <- max(lower - min(Delta, Delta_C), 0)
    alpha_thm <- min(L^2 * diam^2 / (Delta_C * n^2),               # Theorem 4
                     L^4 * diam^6 * eps^2 /
                       (Delta_C^3 * n^4 * width^2 * log(1 / delta)))
  } else {
    Delta_C <- 0
    # the lower bound, or Theorem 2's utility choice L / (sqrt(n) ||C||_2)
    # when that is larger
    lambda <- max(lower, L / (sqrt(n) * diam))
    alpha_thm <- min(L * diam / n^1.5,                              # Theorem 2
                     eps^2 * L * diam^3 / (width^2 * log(1 / delta) * n^1.5))
  }
  # numerical floor on the tolerance: 1e-10 of J's range over C (at most
  # L ||C||_2 for the risk), or ten times the rounding allowance with a
  # typical |G|_inf (sigma1 (sqrt(2 log 2d) + 3), used for this public
  # choice only; the certificate uses the actual draw), or the fallback's
  # rounding floor
  g_typ <- sigma1 * (sqrt(2 * log(2 * d)) + 3) / n
  mu <- 2 * lambda + if (Delta > 0) Delta else 0
  floor <- max(1e-10 * L * diam,
               10 * obj_rounding(prob, r, R, bd$zmax, g_typ, lambda,
                                 R * bd$zmax + g_typ + 2 * lambda * r),
               obj_fallback_floor(prob, r, R, bd, lambda, mu, sigma1))
  obj_check_floor(floor, r)
  # Algorithms 1 and 2 take alpha in [0, 1]
  alpha_thm <- min(alpha_thm, 1)
  alpha <- min(max(tol %||% alpha_thm, floor), 1)
  sigma2 <- if (Delta > 0) sqrt(64 * alpha * logd * diam^2 / (Delta_C * eps^2))
            else sqrt(64 * alpha * logd / (lambda * eps^2))
  list(L = L, resid_bound = R, diameter = diam, width = width,
       sigma1 = sigma1, lambda = lambda, lambda_lower = lower,
       alpha = alpha, alpha_theorem = alpha_thm, alpha_floor = floor,
       alpha_raised = alpha > (tol %||% alpha_thm), sigma2 = sigma2,
       strong_convexity_C = Delta_C, modulus = mu)
}

# The fallback's floor on alpha (public): with |G_j| <= 40 sigma1, the
# per-step rounding bound e and the contraction c of obj_fallback(), the
# distance target T = sqrt(2 alpha / mu) must leave room for the
# accumulated rounding, e / (1 - c) <= T / 2, i.e.
# alpha >= 2 mu (e / (1 - c))^2.  Radius Inf: the iterates' l1 bound takes
# ||G|| <= 40 sigma1 sqrt(d) and T <= sqrt(2 / mu) (alpha <= 1).
obj_fallback_floor <- function(prob, r, R, bd, lambda, mu, sigma1) {
  d <- prob$d
  gmax_lin <- 40 * sigma1 / prob$n
  step <- obj_fallback_step(prob, lambda)
  rw <- if (is.finite(r)) r
        else sqrt(d) * (2 * obj_theta_bound(prob, R, bd, lambda,
                                            sqrt(d) * gmax_lin) +
                        sqrt(2 / mu)) * (1 + 1e-12)
  E <- obj_step_error(prob, r, rw, R, bd$zmax, gmax_lin, lambda, step) /
    obj_contraction_gap(step, mu)
  2 * mu * E^2 * (1 + 1e-9)
}

# Algorithms 1 and 2 take alpha <= 1: a floor above 1 (only for extreme
# public settings) leaves no alpha that the fallback can guarantee.
obj_check_floor <- function(floor, r) {
  if (!(floor <= 1))
    arg_error("objective_tol", "has no admissible value at radius ",
              format(r), ": the numerical floor on alpha is ",
              format(signif(floor, 4)), " > 1 for these public settings ",
              "(n, the bounds, the radius, epsilon and strong_convexity).")
}

obj_check_prob <- function(prob) {
  x <- prob$x
  if (!is.matrix(x) || !is.double(x))
    arg_error("x", "must be a double matrix.")
  n <- nrow(x)
  p <- ncol(x)
  if (!identical(as.double(prob$n), as.double(n)) ||
      !identical(as.double(prob$p), as.double(p)) ||
      !identical(as.double(prob$d), as.double(p + isTRUE(prob$intercept))))
    arg_error("prob", "has n, p or d inconsistent with x and intercept.")
  # the family's name and, for "quantile", its options
  fam <- prob$family
  check_number(prob$x_bound, "x_bound", 0)
  check_number(prob$offset, "offset")
  if (!is.numeric(prob$y) || length(prob$y) != n || !all(is.finite(prob$y)))
    arg_error("y", "must be ", n, " finite numbers.")
  # the sensitivities hold only for data inside the declared bounds, so
  # data outside them are refused (the caller clamps before the call)
  if (any(abs(x) > prob$x_bound))
    arg_error("x", "has entries beyond x_bound = ", format(prob$x_bound),
              "; clamp x to the public bound first.")
  if (!fam$bounded) {
    check_number(prob$y_bound, "y_bound", 0)
    if (any(abs(prob$y) > prob$y_bound))
      arg_error("y", "has entries beyond y_bound = ", format(prob$y_bound),
                "; clamp y to the public bound first.")
  } else if (fam$classes && !all(prob$y %in% c(0, 1))) {
    arg_error("y", "must be 0/1 for the binomial family.")
  }
  invisible(prob)
}

# Fit App-ObjP along the radius path.
# prob: list(x, y, family, intercept, offset, n, p, d, x_bound, y_bound);
# radius: increasing positive radii; budget: list(epsilon, delta) for the
# whole path; control: dpsco_control() list (fields objective_tol,
# strong_convexity, objective_maxit are read if present).
# Returns list(beta = d x nr matrix, parts = list(one dp_part), settings,
# public).
fit_objective <- function(prob, radius, budget, control) {
  obj_check_prob(prob)
  # the family object once, not at every step of the solver
  fam <- prob$family
  prob$family <- fam
  a <- obj_check_args(prob, radius, budget, control)
  nr <- length(radius)
  bd <- obj_bounds(prob)
  cal <- lapply(seq_len(nr), function(k)
    obj_calibrate(prob, radius[k], a$eps, a$delta, a$Delta, a$tol[k]))
  field <- function(name) vapply(cal, function(ck) as.double(ck[[name]]), 0)
  beta <- obj_release(prob, radius, cal, a$maxit)
  algo <- if (a$Delta > 0) 2L else 1L
  part <- dp_part("optimizer", budget$epsilon, budget$delta, nr,
                  max(field("L")), 1,
                  mechanism = obj_mechanism(radius, a, field),
                  released = sprintf(paste("Proj_C(theta2 + H): %d",
                                           "coefficients at each of %d radii"),
                                     prob$d, nr))
  public <- c(sprintf("x_bound = %s (|x_ij| <= x_bound)",
                      format(signif(prob$x_bound, 4))),
              if (!fam$bounded)
                sprintf("y_bound = %s (|y_i| <= y_bound)",
                        format(signif(prob$y_bound, 4))),
              sprintf("offset = %s (public or released separately)",
                      format(signif(prob$offset, 4))),
              if (!is.null(control$objective_tol))
                "optimisation tolerance objective_tol",
              if (algo == 2L)
                sprintf(paste("strong convexity Delta = %s of every",
                              "record's loss (declared)"),
                        format(signif(a$Delta, 4))))
  settings <- list(
    algorithm = algo, radius = as.double(radius), epsilon = a$eps,
    delta = a$delta, lambda = field("lambda"),
    lambda_lower = field("lambda_lower"),
    alpha = field("alpha"), alpha_theorem = field("alpha_theorem"),
    alpha_floor = field("alpha_floor"),
    alpha_raised = as.logical(field("alpha_raised")),
    sigma1 = field("sigma1"), sigma2 = field("sigma2"), L = field("L"),
    resid_bound = field("resid_bound"), beta = bd$beta, rank = bd$rank,
    X2 = bd$X2, diameter = field("diameter"),
    gaussian_width = field("width"), strong_convexity = a$Delta,
    strong_convexity_C = field("strong_convexity_C"))
  # every field is a function of the public settings: the solvers' steps,
  # gaps and which of them finished depend on the data and stay inside
  # (only the distance bound implied by alpha enters sigma2)
  list(beta = beta, parts = list(part), settings = settings, public = public)
}

# fit_objective()'s arguments beyond the problem, checked: the share
# (eps, delta) of each radius, the tolerances (one per radius, or NULL),
# the declared strong convexity Delta and the solver's step limit.
obj_check_args <- function(prob, radius, budget, control) {
  fam <- prob$family
  # radius Inf (unconstrained) needs a residual bounded for every w
  if (!is.numeric(radius) || !length(radius) || anyNA(radius) ||
      any(radius <= 0) ||
      any(!is.finite(radius)) && !fam$bounded)
    arg_error("radius", "must be positive finite numbers",
              if (fam$bounded) " (or Inf)"
              else " (Inf needs a bounded residual: family binomial or quantile)",
              ".")
  if (length(radius) > 1L && any(diff(radius) <= 0))
    arg_error("radius", "must be strictly increasing.")
  if (!is.list(budget)) arg_error("budget", "must be list(epsilon, delta).")
  check_number(budget$epsilon, "epsilon", 0)
  check_number(budget$delta, "delta", 0, 1)
  if (budget$delta >= 1) arg_error("delta", "must be below 1.")
  nr <- length(radius)
  eps <- budget$epsilon / nr
  if (eps >= 1)
    arg_error("epsilon", "per radius is ", format(signif(eps, 4)), " (= ",
              format(budget$epsilon), " / ", nr, " radii), but approximate ",
              "objective perturbation is proved (epsilon, delta)-DP only for ",
              "0 < epsilon < 1 (Su, Zhao and Wang, Theorems 1 and 3); use a ",
              "smaller epsilon or more radii.")
  tol <- control$objective_tol
  if (!is.null(tol)) {
    if (!is.numeric(tol) || !(length(tol) %in% c(1L, nr)) || anyNA(tol) ||
        any(!is.finite(tol)) || any(tol <= 0) || any(tol > 1))
      arg_error("objective_tol", "must be one number in (0, 1] (the ",
                "algorithm's accuracy alpha), or one per radius.")
    tol <- rep_len(as.double(tol), nr)
  }
  Delta <- control$strong_convexity %||% 0
  check_number(Delta, "strong_convexity", 0, lower_open = FALSE)
  if (Delta > 0 && prob$d > 1L)
    arg_error("strong_convexity", "must be 0 here: Algorithm 2 needs every ",
              "record's loss to be strongly convex, but a GLM loss has a ",
              "rank-one Hessian h z z', flat in every direction orthogonal to ",
              "z = (1, x), so no Delta > 0 holds when d = ", prob$d, " > 1.")
  maxit <- control$objective_maxit %||% 1e5
  check_number(maxit, "objective_maxit", 1, lower_open = FALSE)
  list(eps = eps, delta = budget$delta / nr, tol = tol, Delta = Delta,
       maxit = maxit)
}

# The releases along the path, one per radius with its calibration `cal`:
# the d x nr matrix of Proj_C(theta2 + H).
obj_release <- function(prob, radius, cal, maxit) {
  curv <- obj_curvature(prob)
  d <- prob$d
  beta <- matrix(0, d, length(radius))
  start <- NULL
  for (k in seq_along(radius)) {
    ck <- cal[[k]]
    G <- release(numeric(d), z = 1, sensitivity = ck$sigma1, secure = FALSE,
                 part = "optimizer")
    # beyond 40 sd (probability < 1e-340) the floor's rounding bounds need
    # not hold: theta2 = 0, a release Proj_C(H) that does not read the data
    theta2 <- obj_theta2(prob, G, ck$lambda, radius[k], ck$alpha, ck$modulus,
                         start, curv, maxit, g_bound = 40 * ck$sigma1)
    H <- release(numeric(d), z = 1, sensitivity = ck$sigma2, secure = FALSE,
                 part = "optimizer")
    beta[, k] <- obj_proj_l1(theta2 + H, radius[k])
    # warm start from the RELEASED output (in C_k, inside C_{k+1}): each
    # radius's solver then depends on the data and on earlier releases
    # only, so basic (adaptive) composition applies as stated
    start <- beta[, k]
  }
  if (!is.null(colnames(prob$x)))
    rownames(beta) <- c(if (prob$intercept) "(Intercept)", colnames(prob$x))
  beta
}

# The record's description of the releases: `a` the checked arguments,
# field(name) the calibration's values per radius.
obj_mechanism <- function(radius, a, field) {
  nr <- length(radius)
  fmt <- function(v) {
    v <- signif(v, 4)
    if (length(unique(v)) == 1L) format(v[1L])
    else if (nr <= 3L) paste(vapply(v, format, ""), collapse = ", ")
    else paste(format(min(v)), "to", format(max(v)))
  }
  algo <- if (a$Delta > 0) 2L else 1L
  paste0(
    "approximate objective perturbation (App-ObjP, Su, Zhao and Wang ",
    "Algorithm ", algo, "; Bassily et al. 2019) per radius at (epsilon, ",
    "delta) = (", fmt(a$eps), ", ", fmt(a$delta), "), basic composition over ",
    nr, " radi", if (nr == 1L) "us" else "i", ": objective noise G ~ ",
    "N(0, sigma1^2 I) with sigma1 = ", fmt(field("sigma1")), ", l2 weight ",
    "lambda = ", fmt(field("lambda")),
    if (algo == 2L) paste0(", declared strong convexity Delta = ",
                           format(signif(a$Delta, 4))),
    ", optimisation tolerance alpha = ", fmt(field("alpha")),
    " (certified by the Frank-Wolfe gap, or its distance bound guaranteed ",
    "by projected gradient steps after objective_maxit solver steps)",
    if (any(field("alpha_raised") > 0)) ", raised to the numerical floor",
    "; output noise H ~ N(0, sigma2^2 I) with sigma2 = ", fmt(field("sigma2")),
    ", then projection onto the l1 ball",
    if (any(!is.finite(radius)))
      paste0(" (radius Inf: the unconstrained form, no projection, alpha ",
             "certified by ||grad J||^2 / (4 lambda))"))
}

#' @include registry.R constrained.R
NULL

register_method(
  "objective", rank = 4,
  label = "approximate objective perturbation over the l1 ball",
  reference = "Su, Zhao and Wang, Algorithms 1-2 (Bassily et al. 2019)",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  adjacency = "replace-one", sampling = "every record in every objective",
  control = c(radius_path_control, "objective_tol", "strong_convexity",
              "objective_maxit", "shrink"),
  truncation = "none", bounded = TRUE,
  # an unconstrained radius needs a residual bounded for every w
  radius_inf = function(fam) fam$bounded, shardable = radius_unshardable,
  fit = function(prob, path, settings)
    fit_objective(prob, path, settings$budget$remaining, settings$control))
