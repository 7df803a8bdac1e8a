# The Renyi DP of the Poisson-subsampled Gaussian mechanism and the exact
# analytic Gaussian mechanism, with their conversions to (epsilon, delta):
# the mathematics R/accountant.R composes and calibrates (its header states
# the conventions).

# ---------------------------------------------------------------------------
# Small numerical helpers (log space)

# log(exp(x) + 1), stable for all x
acc_log1pexp <- function(x) {
  ifelse(x > 0, x + log1p(exp(-x)), log1p(exp(x)))
}

# log(expm1(x)) for x > 0
acc_logexpm1 <- function(x) {
  ifelse(x > 30, x + log1p(-exp(-x)), log(expm1(x)))
}

# log(sum(exp(l)))
acc_logsumexp <- function(l) {
  m <- max(l)
  if (!is.finite(m)) return(m)
  m + log(sum(exp(l - m)))
}

# ---------------------------------------------------------------------------
# Renyi DP of the sampled Gaussian mechanism

#' Default Renyi orders of the privacy accountant
#'
#' The grid of Renyi orders over which [dp_epsilon()], [dp_delta()] and
#' [dp_noise_multiplier()] optimise the conversion from Renyi to
#' `(epsilon, delta)` differential privacy:
#' `c(seq(1.1, 10.9, by = 0.1), 12:63)`.
#'
#' A finer or wider grid can only lower the reported epsilon (each order
#' gives a valid bound); the largest order limits how small an epsilon can be
#' certified for a subsampled mechanism (see [dp_noise_multiplier()]).
#'
#' @return A numeric vector of 151 orders, all greater than 1.
#' @seealso [dp_epsilon()]
#' @examples
#' range(dp_orders())
#' @export
dp_orders <- function() {
  c(seq(1.1, 10.9, by = 0.1), 12:63)
}

# log A_a for integer a >= 2 and 0 < q < 1.  Since the binomial weights sum to
# one, A_a - 1 = sum_{i=2}^a choose(a, i) (1-q)^(a-i) q^i expm1((i^2-i)/(2z^2)),
# a sum of positive terms: summed by log-sum-exp, then log A = log1p(A - 1).
# This is the finite binomial expansion of Mironov et al. (Section 3.2) with
# the i = 0, 1 terms (whose exponential factor is 1) folded into the "1".
acc_log_a_int <- function(q, z, a) {
  i <- as.double(2:a)
  l <- lchoose(a, i) + (a - i) * log1p(-q) + i * log(q) +
    acc_logexpm1((i * i - i) / (2 * z * z))
  acc_log1pexp(acc_logsumexp(l))
}

# log A_a for fractional a > 1 and 0 < q < 1: the two-series expansion of
# Mironov et al. (Section 3.3).  With z0 = z^2 log(1/q - 1) + 1/2 (where
# (1-q) mu0 = q mu1), A_a = A0 + A1 with
#   A0 = sum_i binom(a,i) q^i (1-q)^(a-i) e^{(i^2-i)/(2z^2)} Phi((z0 - i)/z)
#   A1 = sum_i binom(a,i) q^(a-i) (1-q)^i e^{(j^2-j)/(2z^2)} Phi((j - z0)/z),
# j = a - i, where (1/2) erfc(x / sqrt(2)) = Phi(-x) = pnorm(-x).  Terms are
# kept as (sign, log magnitude) and summed after scaling by the largest.
#
# Precision.  A_a is close to 1 when the privacy loss is small, and the RDP
# log(A_a) / (a - 1) needs A_a - 1 to full relative precision.  The i = 0, 1
# terms of A0 (whose exponential factor is 1) are therefore rewritten with
# Phi(x) = 1 - Phi(-x) and the exact identity
#   (1-q)^a + a q (1-q)^(a-1) - 1 = expm1((a-1) log1p(-q) + log1p((a-1) q)),
# so the series directly sums A_a - 1 without the leading cancellation.
#
# Convergence.  Both terms of index i equal
#   |binom(a, i)| (1-q)^a e^{-z0^2/(2z^2)} h(t)  with h(t) = e^{t^2/2} Phi(-t),
# t = (i - z0)/z resp. (i - a + z0)/z; h is strictly decreasing and
# |binom(a, i)| decreases for i > (a - 1)/2, while the signs of binom(a, i)
# alternate for i > floor(a).  So past i = floor(a) + 1 the series is
# alternating with decreasing magnitudes: the remainder after the first n
# terms is bounded by the n-th term magnitude.  The magnitudes decay only
# polynomially (like i^-(a + 2)), so besides the plain stop (next term below
# 1e-17 of the sum) the alternating tail is summed by Euler's transformation
# (repeated averaging of consecutive partial sums), accepted only when two
# windows agree to rounding level.
#
# Vectorised over the orders `a` (all fractional): terms form a matrix with a
# row per order; orders that have not converged continue with twice the terms.
acc_log_a_frac <- function(q, z, a, K = 16L, max_terms = 2^22) {
  z0 <- z * z * log(1 / q - 1) + 0.5
  lq <- log(q)
  l1q <- log1p(-q)
  out <- rep(NA_real_, length(a))
  todo <- seq_along(a)
  n <- as.integer(2 * (floor(max(a)) + K) + 32)
  repeat {
    aa <- a[todo]
    na <- length(aa)
    fa <- floor(aa)
    # (1-q)^a Phi(z0/z) + a q (1-q)^(a-1) Phi((z0-1)/z) - 1, three negative
    # parts (rows = orders)
    head <- cbind(log(-expm1(pmin(0, (aa - 1) * l1q + log1p((aa - 1) * q)))),
                  aa * l1q + stats::pnorm(-z0 / z, log.p = TRUE),
                  log(aa) + lq + (aa - 1) * l1q +
                    stats::pnorm((1 - z0) / z, log.p = TRUE))
    i <- as.double(0:n)                    # column n + 1 is the next term
    I <- matrix(i, na, n + 1L, byrow = TRUE)
    A <- matrix(aa, na, n + 1L)
    J <- A - I
    # log|binom(a, i)| = sum_{k < i} log|a - k| - log(k + 1) (exact also
    # near integer a, where lchoose rounds a and lgamma loses precision);
    # its sign is (-1)^(number of k < i with k > a)
    D <- log(abs(A[, -1L, drop = FALSE] - I[, -(n + 1L), drop = FALSE])) -
      log1p(I[, -(n + 1L), drop = FALSE])
    lb <- cbind(0, if (na == 1L) matrix(cumsum(D), 1L)
                   else t(apply(D, 1L, cumsum)))
    sg <- ifelse(I > A + 1 & ((I - matrix(fa, na, n + 1L) - 1) %% 2 == 1), -1, 1)
    l0 <- lb + I * lq + J * l1q + (I * I - I) / (2 * z * z) +
      stats::pnorm((z0 - I) / z, log.p = TRUE)
    l1 <- lb + J * lq + I * l1q + (J * J - J) / (2 * z * z) +
      stats::pnorm((J - z0) / z, log.p = TRUE)
    l_next <- pmax(l0[, n + 1L], l1[, n + 1L]) +
      log1p(exp(pmin(l0[, n + 1L], l1[, n + 1L]) -
                  pmax(l0[, n + 1L], l1[, n + 1L])))
    l0[, 1:2] <- -Inf                      # in `head`
    mx <- pmax(l0, l1)                     # both share the sign of binom(a, i)
    l <- mx + log1p(exp(pmin(l0, l1) - mx))
    l[mx == -Inf] <- -Inf
    l <- l[, seq_len(n), drop = FALSE]
    m <- pmax(apply(l, 1L, max), apply(head, 1L, max))
    terms <- cbind(-exp(head - m), sg[, seq_len(n), drop = FALSE] * exp(l - m))
    nt <- ncol(terms)
    total <- rowSums(terms)
    rounding <- 16 * .Machine$double.eps * rowSums(abs(terms))
    # plain stop: the first omitted term bounds the remainder
    done <- exp(l_next - m) <= pmax(1e-17 * abs(total), rounding / 16)
    res <- total
    # Euler-accelerated tail: the last K + 9 partial sums, two windows
    w <- K + 9L
    last <- terms[, (nt - w + 2L):nt, drop = FALSE]
    ps <- matrix(total, na, w)
    for (r in seq_len(w - 1L))
      ps[, w - r] <- ps[, w - r + 1L] - last[, w - r]
    euler <- function(s) {
      while (ncol(s) > 1L) s <- (s[, -1L, drop = FALSE] + s[, -ncol(s), drop = FALSE]) / 2
      drop(s)
    }
    e1 <- euler(ps[, (w - K):w, drop = FALSE])
    e2 <- euler(ps[, 1:(K + 1L), drop = FALSE])
    ok_e <- !done & (n - w >= fa + 2) & abs(e1 - e2) <= pmax(2e-16 * abs(e1), rounding)
    res[ok_e] <- e1[ok_e]
    done <- done | ok_e
    # A - 1 > 0 mathematically; if rounding hides it, use the rounding level
    # (an upper bound, so the privacy statement stays valid)
    res <- pmax(res, rounding)
    out[todo[done]] <- acc_log1pexp(m[done] + log(res[done]))
    todo <- todo[!done]
    if (!length(todo)) break
    if (n >= max_terms)
      stop("the Renyi series did not converge for order ", a[todo[1L]],
           " (q = ", q, ", z = ", z, ").", call. = FALSE)
    n <- min(2L * n, as.integer(max_terms))
  }
  out
}

# Per-step RDP of the Poisson-subsampled Gaussian mechanism at each order.
# q = 1 gives the Gaussian mechanism exactly: a / (2 z^2); q = 0 or z = Inf
# gives 0.
rdp_subsampled_gaussian <- function(q, z, orders) {
  if (q == 0 || is.infinite(z)) return(rep(0, length(orders)))
  gauss <- orders / (2 * z * z)  # Inf once z^2 underflows
  if (q == 1 || all(is.infinite(gauss))) return(gauss)
  ra <- round(orders)
  # order 1 + 1e-13 is not the integer order 1 (whose series is empty)
  is_int <- abs(orders - ra) <= 1e-12 * orders & ra >= 2
  la <- numeric(length(orders))
  la[is_int] <- vapply(ra[is_int], function(a) acc_log_a_int(q, z, a), 0)
  if (any(!is_int)) la[!is_int] <- acc_log_a_frac(q, z, orders[!is_int])
  rdp <- pmax(la, 0) / (orders - 1)
  # where the series overflows (tiny z), subsampling's RDP is bounded by the
  # unsampled Gaussian's: conservative, never smaller than the truth
  bad <- !is.finite(rdp)
  rdp[bad] <- gauss[bad]
  rdp
}

# ---------------------------------------------------------------------------
# RDP -> (epsilon, delta) (Balle, Barthe, Gaboardi, Hsu and Sato 2020,
# Theorem 21; Canonne, Kamath and Steinke 2020): an (a, R)-RDP mechanism is
# (eps, delta)-DP with
#   eps = R + log((a - 1)/a) - (log(delta) + log(a)) / (a - 1),
# equivalently, for a given eps,
#   log(delta) = (a - 1) (R - eps) + (a - 1) log(1 - 1/a) - log(a).
# Both are optimised over the orders.  If the RDP is exactly zero the two
# distributions coincide and the mechanism is (0, 0)-DP.

rdp_to_epsilon <- function(rdp, orders, delta) {
  if (all(rdp == 0)) return(0)
  max(0, min(rdp_epsilon_by_order(rdp, orders, delta)))
}

# the epsilon each order certifies on its own
rdp_epsilon_by_order <- function(rdp, orders, delta)
  rdp + log1p(-1 / orders) - (log(delta) + log(orders)) / (orders - 1)

rdp_to_delta <- function(rdp, orders, epsilon) {
  if (all(rdp == 0)) return(0)
  ld <- (orders - 1) * (rdp - epsilon + log1p(-1 / orders)) - log(orders)
  min(1, exp(min(ld)))
}

# ---------------------------------------------------------------------------
# Exact analytic Gaussian mechanism (Balle and Wang 2018).  A Gaussian
# mechanism with sensitivity / sd = mu is (eps, delta)-DP iff
#   delta >= Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu).
# k-fold composition of Gaussian mechanisms with ratios mu_i is again one with
# mu = sqrt(sum mu_i^2).

gaussian_log_delta <- function(mu, epsilon) {
  la <- stats::pnorm(mu / 2 - epsilon / mu, log.p = TRUE)
  lb <- epsilon + stats::pnorm(-mu / 2 - epsilon / mu, log.p = TRUE)
  # la = -Inf: delta <= Phi(mu/2 - eps/mu) = 0 (huge epsilon)
  if (la == -Inf) return(-Inf)
  d <- lb - la                                   # < 0
  if (d >= 0) return(-Inf)
  la + log(-expm1(d))
}

gaussian_delta <- function(mu, epsilon) {
  if (mu == 0) return(0)
  exp(gaussian_log_delta(mu, epsilon))
}

gaussian_epsilon <- function(mu, delta) {
  if (mu == 0) return(0)
  if (gaussian_delta(mu, 0) <= delta) return(0)
  # delta(eps) < Phi(mu/2 - eps/mu), which equals delta at `hi`
  hi <- mu * (mu / 2 - stats::qnorm(delta))
  # mu beyond ~1e154 (noise multiplier near 0): epsilon exceeds the largest
  # double, and Inf is the only safe report
  if (!is.finite(hi)) return(Inf)
  ld <- log(delta)
  f <- function(e) {
    v <- gaussian_log_delta(mu, e)
    if (v == -Inf) -1e300 else v - ld
  }
  fhi <- f(hi)
  if (fhi >= 0) return(hi)  # cannot happen mathematically; stay conservative
  r <- stats::uniroot(f, c(0, hi), f.lower = f(0), f.upper = fhi,
                      tol = 1e-12, maxiter = 1000L)
  r$root
}
