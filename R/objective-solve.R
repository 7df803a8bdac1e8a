# The non-private solver of approximate objective perturbation
# (R/objective.R): the l1-ball projection, the Frank-Wolfe gap, the
# accelerated projected gradient that certifies J(w) - min J <= alpha, and
# the projected-gradient fallback that reaches the distance the privacy
# argument needs on every input.

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
