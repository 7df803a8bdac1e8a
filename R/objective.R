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

# Euclidean projection onto {w : ||w||_1 <= r}, by sorting (Duchi,
# Shalev-Shwartz, Singer and Chandra 2008, Figure 1): soft-threshold at the
# theta that makes the l1 norm exactly r.
obj_proj_l1 <- function(v, r) {
  a <- abs(v)
  if (sum(a) <= r) return(v)
  u <- sort(a, decreasing = TRUE)
  css <- cumsum(u)
  # the last index whose sorted magnitude stays above the running threshold
  # (index 1 always qualifies since u_1 - (u_1 - r) = r > 0)
  k <- max(which(u - (css - r) / seq_along(u) > 0))
  theta <- (css[k] - r) / k
  sign(v) * pmax(a - theta, 0)
}

# Frank-Wolfe duality gap of a convex J at w over the l1 ball of radius r:
# max_{v in C} <g, w - v> = <g, w> + r ||g||_inf.  By convexity it bounds
# J(w) - min_C J from above, whatever the problem's conditioning.
obj_fw_gap <- function(g, w, r) sum(g * w) + r * max(abs(g))

# Public constants of the loss (Assumption 1): rows z_i = (1, x_i) have
# ||z_i||_2 <= X2 and |z_ij| <= zmax; the per-record Hessian is h z_i z_i'
# (h = 1 gaussian, h <= 1/4 binomial, h <= K(0) / bandwidth for the
# smoothed check loss), so it has rank 1, the smoothness is beta = h X2^2
# and Su, Zhao and Wang's r = min(d, 2 rank) = min(d, 2).
obj_bounds <- function(prob) {
  X2 <- sqrt(prob$intercept + prob$p * prob$x_bound^2)
  h <- prob$family$curvature
  list(X2 = X2, zmax = max(if (prob$intercept) 1, prob$x_bound),
       curvature = h, beta = h * X2^2, rank = min(prob$d, 2))
}

# Residual bound over C_r: |eta| <= |offset| + ||w||_1 max(1, x_bound), so a
# gaussian residual is at most y_bound + |offset| + r max(1, x_bound); a
# logistic one at most 1, a quantile one at most max(tau, 1 - tau) (for any
# w: radius Inf is allowed there).  L = that bound times X2.
obj_resid_bound <- function(prob, r) {
  prob$family$residual_bound(
    prob$y_bound + abs(prob$offset) + r * max(1, prob$x_bound))
}

# Linear predictor and risk gradient on the full data (BLAS products, no
# copy of x with a column of ones).
obj_eta <- function(prob, w) {
  b <- if (prob$intercept) w[-1L] else w
  eta <- drop(prob$x %*% b) + prob$offset
  if (prob$intercept) eta + w[1L] else eta
}

obj_grad_risk <- function(prob, w) {
  res <- prob$family$residual(obj_eta(prob, w), prob$y)
  g <- drop(crossprod(prob$x, res)) / prob$n
  if (prob$intercept) c(sum(res) / prob$n, g) else g
}

# Empirical risk (mean loss).
obj_risk <- function(prob, w) {
  mean(prob$family$loss(obj_eta(prob, w), prob$y))
}

obj_J <- function(prob, w, G, lambda) {
  obj_risk(prob, w) + sum(G * w) / prob$n + lambda * sum(w * w)
}

# v -> h Z'Z v / n, a quadratic majoriser's curvature (exact for gaussian,
# Bohning's bound for the logistic loss).  The d x d Gram matrix is formed
# once (one BLAS pass over x) when it is smaller than x; then each inner
# step costs O(d^2) instead of O(n d).
obj_curvature <- function(prob) {
  h <- obj_bounds(prob)$curvature
  n <- prob$n
  x <- prob$x
  if (prob$d <= min(n, 4000L)) {
    S <- crossprod(x) * (h / n)
    if (prob$intercept) {
      cm <- colMeans(x) * h
      S <- rbind(c(h, cm), cbind(cm, S))
    }
    function(v) drop(S %*% v)
  } else {
    function(v) {
      b <- if (prob$intercept) v[-1L] else v
      e <- drop(x %*% b)
      if (prob$intercept) e <- e + v[1L]
      g <- drop(crossprod(x, e)) * (h / n)
      if (prob$intercept) c(sum(e) * (h / n), g) else g
    }
  }
}

# A bound on how far rounding can move the computed Frank-Wolfe gap below
# the exact one at a point of C_r, from the standard summation bounds
# gamma_k = k u / (1 - k u) (Higham, Accuracy and Stability, Ch. 3; any
# summation order, so any BLAS).  Inputs: the residual bound R, the largest
# |G_j| / n and the largest computed |gradient|.  It is added to the
# computed gap, so the certificate stays an upper bound in floating point.
obj_rounding <- function(prob, r, R, zmax, gmax_lin, lambda, gmax) {
  u <- .Machine$double.eps / 2
  gam <- function(k) k * u / (1 - k * u)
  e_g <- obj_grad_error(prob, r, R, zmax, gmax_lin, lambda)
  # factor 2 for the terms these first-order bounds leave out
  2 * (2 * r * e_g + gam(prob$d + 2) * 2 * r * gmax)
}

# The bound on the rounding error of each computed gradient coordinate at a
# point of l1 norm at most r (the terms of obj_rounding()).  An error in
# eta moves the residual by at most the loss's curvature bound times it
# (at least 1 is used, as for the gaussian loss).
obj_grad_error <- function(prob, r, R, zmax, gmax_lin, lambda) {
  u <- .Machine$double.eps / 2
  gam <- function(k) k * u / (1 - k * u)
  e_eta <- gam(prob$d + 2) * (abs(prob$offset) + r * zmax)
  e_res <- max(1, obj_bounds(prob)$curvature) * e_eta + 4 * u * R
  gam(prob$n + 2) * R * zmax + zmax * e_res +
    4 * u * (R * zmax + gmax_lin + 2 * lambda * r)
}

# The unconstrained certificate (radius Inf): J is 2 lambda-strongly
# convex, so J(w) - min J <= ||grad J(w)||^2 / (4 lambda); the computed
# gradient is within twice the rounding bound of the exact one in every
# coordinate (the factor 2 as in obj_rounding()).
obj_strong_gap <- function(prob, g, w, R, zmax, gmax_lin, lambda) {
  e_g <- obj_grad_error(prob, sum(abs(w)), R, zmax, gmax_lin, lambda)
  (sqrt(sum(g * g)) + 2 * sqrt(prob$d) * e_g)^2 / (4 * lambda)
}

# Accelerated projected gradient (FISTA, Beck and Teboulle 2009, with the
# gradient restart of O'Donoghue and Candes 2015) on the quadratic model
#   q(x) = <g0, x - w0> + (x - w0)' (A + 2 lambda I) (x - w0) / 2
# over the l1 ball of radius r_proj, A = curv().  The step 1 / (beta +
# 2 lambda) is the public bound on q's curvature.  Stops when q's
# Frank-Wolfe gap (over radius r_gap) is at most tol.  A(x - w0) is
# computed once per iteration; A at the extrapolated point follows by
# linearity.
obj_fista <- function(g0, w0, curv, lambda, r_proj, r_gap, step, tol, maxit) {
  x <- w0
  Ax <- numeric(length(w0))      # (A + 2 lambda I)(x - w0) at x = w0
  y <- x
  Ay <- Ax
  t <- 1
  gap <- Inf
  it <- 0L
  while (it < maxit) {
    it <- it + 1L
    xn <- obj_proj_l1(y - step * (g0 + Ay), r_proj)
    dx <- xn - w0
    Axn <- curv(dx) + 2 * lambda * dx
    gq <- g0 + Axn
    # the model is 2 lambda-strongly convex: unconstrained (r_gap Inf), its
    # suboptimality is at most ||gradient||^2 / (4 lambda)
    gap <- if (is.finite(r_gap)) sum(gq * xn) + r_gap * max(abs(gq))
           else sum(gq * gq) / (4 * lambda)
    if (gap <= tol) return(list(w = xn, gap = gap, iter = it))
    if (sum((y - xn) * (xn - x)) > 0) {
      # momentum points uphill: restart it
      t <- 1
      y <- xn
      Ay <- Axn
    } else {
      tn <- (1 + sqrt(1 + 4 * t * t)) / 2
      mom <- (t - 1) / tn
      y <- xn + mom * (xn - x)
      Ay <- Axn + mom * (Axn - Ax)
      t <- tn
    }
    x <- xn
    Ax <- Axn
  }
  list(w = x, gap = gap, iter = it)
}

# theta2: a point of C_r whose certified J(theta2) - min_C J is at most
# alpha.  Outer loop: the full-data gradient at w gives the certificate
# (Frank-Wolfe gap plus the rounding allowance); if it is above alpha, the
# quadratic model at w (exact for gaussian, a majoriser for binomial) is
# minimised by FISTA and the loop repeats.  The iterates stay in the ball of
# radius r (1 - 4 (d + 2) eps) so that rounding in the projection cannot
# put theta2 outside C_r.  Returns the point, its certified gap and the
# work done; `certified` is FALSE when `maxit` inner steps did not suffice
# (obj_theta2() then continues with obj_fallback()).  None of it may leave
# fit_objective().
obj_solve <- function(prob, G, lambda, r, alpha, start = NULL,
                      curv = obj_curvature(prob), maxit = 1e5) {
  d <- prob$d
  bd <- obj_bounds(prob)
  R <- obj_resid_bound(prob, r)
  r_in <- r * (1 - 4 * (d + 2) * .Machine$double.eps)
  step <- 1 / (bd$beta + 2 * lambda)
  lin <- G / prob$n
  gmax_lin <- max(abs(lin))
  quad <- prob$family$quadratic
  w <- obj_proj_l1(if (is.null(start)) numeric(d) else start, r_in)
  inner <- 0
  outer <- 0L
  repeat {
    g <- obj_grad_risk(prob, w) + lin + 2 * lambda * w
    gap <- if (is.finite(r))
             obj_fw_gap(g, w, r) +
               obj_rounding(prob, r, R, bd$zmax, gmax_lin, lambda, max(abs(g)))
           else obj_strong_gap(prob, g, w, R, bd$zmax, gmax_lin, lambda)
    if (isTRUE(gap <= alpha) || inner >= maxit) break
    # gaussian: the model is J itself; binomial: solve each majoriser only
    # as far as the outer gap warrants
    tol <- if (quad) alpha / 4 else max(alpha / 4, gap / 10)
    fs <- obj_fista(g, w, curv, lambda, r_in, r, step, tol, maxit - inner)
    w <- fs$w
    inner <- inner + fs$iter
    outer <- outer + 1L
  }
  list(w = w, gap = gap, certified = isTRUE(gap <= alpha), outer = outer,
       inner = inner)
}

# The fallback's step 1 / beta_J, beta_J = beta + 2 lambda J's public
# smoothness bound, shortened by 1e-10 so that the rounding of beta_J
# cannot make it longer than 1 / beta_J.
obj_fallback_step <- function(prob, lambda) {
  (1 - 1e-10) / (obj_bounds(prob)$beta + 2 * lambda)
}

# A lower bound on 1 - c, c the contraction of one projected gradient step
# of length `step` <= 1 / beta_J on a mu-strongly convex J.  J is
# (1 / step)-smooth, so co-coercivity with strong convexity (Nesterov 2004,
# Theorem 2.1.12) makes the gradient map a contraction by
# c = sqrt((1 - step mu) / (1 + step mu)) <= sqrt(1 - step mu); the
# projection is non-expansive; and 1 - c >= (1 - c^2) / 2, computed
# without cancellation.
obj_contraction_gap <- function(step, mu) {
  step * mu / (1 + step * mu) * (1 - 1e-12)
}

# A bound on the l2 distance between one computed fallback step
#   fl(Proj_{r_in}(w - step * g_hat)),  g_hat the computed gradient of J,
# and the exact step Proj_{C_r}(w - step grad J(w)), at a computed point w
# with ||w||_1 <= rw (= r for a finite radius), from the forward errors of
# obj_grad_error() (the l2 gradient error at most 2 sqrt(d) e_g, as in
# obj_strong_gap()).  Terms: the gradient error times the step; the
# rounding of w - step * g_hat; for a finite radius, the shrunken radius
# r_in (moving the soft threshold by at most r - r_in) and the sort-based
# projection, whose computed threshold is within (2 d + 1) gamma_{d+5}
# (||v||_1 + r) of the exact one (a misjudged index k lies where
# u_k - theta_k is within rounding of 0, and there the threshold function
# is within 2 d times that of 0, its slope being at least 1), doubled for
# the terms these first-order bounds leave out.
obj_step_error <- function(prob, r, rw, R, zmax, gmax_lin, lambda, step) {
  u <- .Machine$double.eps / 2
  gam <- function(k) k * u / (1 - k * u)
  d <- prob$d
  e_g <- obj_grad_error(prob, rw, R, zmax, gmax_lin, lambda)
  gB <- R * zmax + gmax_lin + 2 * lambda * rw + 2 * e_g   # |computed g_j|
  e <- step * 2 * sqrt(d) * e_g + 2 * u * (rw + 2 * step * sqrt(d) * gB)
  if (is.finite(r)) {
    r_in <- r * (1 - 4 * (d + 2) * .Machine$double.eps)
    v1 <- (rw + step * d * gB) * (1 + 4 * u)              # ||v||_1
    e <- e + sqrt(d) * (r - r_in) +
      2 * sqrt(d) * (2 * d + 1) * gam(d + 5) * (v1 + r)
  }
  e * (1 + 1e-10)
}

# Fallback after an uncertified obj_solve(): projected gradient descent on
# J from its last iterate w0 (certified gap gap0, which bounds
# ||w0 - theta*|| by sqrt(2 gap0 / mu)), step 1 / beta_J.  With e the
# per-step rounding bound and c the contraction, the computed iterates obey
#   ||w_k - theta*|| <= c^k B0 + e / (1 - c),
# so K steps with c^K B0 <= T - e / (1 - c), T = sqrt(2 alpha / mu), put
# w_K within T of theta* whatever the data; the calibration's floor on
# alpha makes e / (1 - c) <= T / 2.  It stops earlier, with the same
# guarantee, at an iterate whose certified gap is at most alpha.  Radius
# Inf: B0 from the certified gradient norm, or, when that is larger, from
# w0 = 0 with the bound of obj_theta_bound() on ||theta*||, which also
# bounds ||w_k||_1 for the rounding.  Returns theta2 only.
obj_fallback <- function(prob, G, lambda, r, alpha, mu, w0, gap0) {
  d <- prob$d
  n <- prob$n
  bd <- obj_bounds(prob)
  R <- obj_resid_bound(prob, r)
  lin <- G / n
  gmax_lin <- max(abs(lin))
  step <- obj_fallback_step(prob, lambda)
  omc <- obj_contraction_gap(step, mu)
  target <- sqrt(2 * alpha / mu) * (1 - 1e-12)
  dist_of <- function(gap) sqrt(2 * gap / mu) * (1 + 1e-12)
  w <- w0
  B0 <- dist_of(gap0)
  if (is.finite(r)) {
    r_in <- r * (1 - 4 * (d + 2) * .Machine$double.eps)
    if (!isTRUE(B0 <= 2 * r)) B0 <- 2 * r      # the l2 diameter of C_r
    rw <- r
  } else {
    r_in <- Inf
    rho <- obj_theta_bound(prob, R, bd, lambda, sqrt(sum(G * G)) / n)
    if (!isTRUE(B0 <= rho)) {
      w <- numeric(d)
      B0 <- rho
    }
    # every iterate is within max(B0, e / (1 - c)) <= max(rho, T) of theta*
    rw <- sqrt(d) * (2 * rho + target) * (1 + 1e-12)
  }
  if (B0 <= target) return(w)
  E <- obj_step_error(prob, r, rw, R, bd$zmax, gmax_lin, lambda, step) / omc
  # excluded by the floor on alpha and the guard on G in fit_objective()
  # (both public): only a direct call with other values can get here
  if (!(E < target))
    stop("internal error: alpha is below the fallback's rounding floor",
         call. = FALSE)
  # c^K <= exp(-K omc)
  K <- ceiling(log(B0 / (target - E)) / omc * (1 + 1e-10)) + 1
  k <- 0
  while (k < K) {
    k <- k + 1
    g <- obj_grad_risk(prob, w) + lin + 2 * lambda * w
    gap <- if (is.finite(r))
             obj_fw_gap(g, w, r) +
               obj_rounding(prob, r, R, bd$zmax, gmax_lin, lambda, max(abs(g)))
           else obj_strong_gap(prob, g, w, R, bd$zmax, gmax_lin, lambda)
    if (isTRUE(gap <= alpha)) return(w)
    w <- obj_proj_l1(w - step * g, r_in)
  }
  w
}

# A bound on ||theta*||_2 for radius Inf (J 2 lambda-strongly convex), g
# bounding ||G||_2 / n: stationarity, 2 lambda theta* = -grad risk(theta*)
# - G / n, gives (R X2 + g) / (2 lambda); for the logistic loss (>= 0, at
# most |offset| + log 2 at w = 0) strong convexity between 0 and theta*,
# 2 lambda ||theta*||^2 <= risk(0) + g ||theta*||, gives the smaller
# (g + sqrt(g^2 + 8 lambda risk(0))) / (4 lambda).
obj_theta_bound <- function(prob, R, bd, lambda, g) {
  b <- (R * bd$X2 + g) / (2 * lambda)
  risk0 <- prob$family$null_risk_bound(prob$offset)
  if (!is.null(risk0))
    b <- min(b, (g + sqrt(g * g + 8 * lambda * risk0)) / (4 * lambda))
  b * (1 + 1e-12)
}

# theta2 of Algorithm 1 or 2: a deterministic function of (data, G) within
# sqrt(2 alpha / mu) of theta* for every input (see the header).  The
# certified solver, then the fallback if it did not certify.  A G with a
# coordinate beyond g_bound (fit_objective(): 40 sigma1, where the floor's
# rounding bounds end) gives 0 without reading the data, so that the
# release is Proj_C(H).
obj_theta2 <- function(prob, G, lambda, r, alpha, mu, start = NULL,
                       curv = obj_curvature(prob), maxit = 1e5,
                       g_bound = Inf) {
  if (max(abs(G)) > g_bound) return(numeric(prob$d))
  sol <- obj_solve(prob, G, lambda, r, alpha, start, curv, maxit)
  if (sol$certified) return(sol$w)
  obj_fallback(prob, G, lambda, r, alpha, mu, sol$w, sol$gap)
}

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
    G <- stats::rnorm(d, 0, ck$sigma1)
    # beyond 40 sd (probability < 1e-340) the floor's rounding bounds need
    # not hold: theta2 = 0, a release Proj_C(H) that does not read the data
    theta2 <- obj_theta2(prob, G, ck$lambda, radius[k], ck$alpha, ck$modulus,
                         start, curv, maxit, g_bound = 40 * ck$sigma1)
    H <- stats::rnorm(d, 0, ck$sigma2)
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
