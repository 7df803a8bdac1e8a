# Privacy loss distributions (PLD) of Gaussian steps with and without
# Poisson subsampling, discretised pessimistically and composed by FFT.
#
# A pair of output distributions (P, Q) has privacy loss L = log(dP/dQ)
# under P, and delta(eps) = E_P[(1 - exp(eps - L))_+] (plus the P-mass
# where Q is 0).  Composition adds independent losses.  A step of
# multiplier z and rate q (sensitivity 1) has the two dominating pairs
#   remove: P = (1 - q) N(0, z^2) + q N(1, z^2), Q = N(0, z^2),
#   add:    P = N(0, z^2), Q = that mixture,
# and the composition's delta is the larger of the two directions'.
#
# Discretisation.  On the grid eps_k = k h, the P-mass of an outcome with
# loss l in (eps_{k-1}, eps_k] is split between eps_{k-1} and eps_k so
# that both its P-mass and its Q-mass are kept.  Splitting an outcome
# into two is undone by merging them, a post-processing, so the split
# pair dominates the original: every delta it gives is an upper bound
# (the "connect the dots" discretisation).  Beyond the top point b an
# outcome is split between b and a point Q never reaches (loss +Inf);
# below the bottom point a all P-mass moves to a (the Q-mass left over
# goes to an outcome P never reaches).  Both are splits too.
#
# Composition.  The discrete losses are summed by FFT on a window of the
# grid chosen by Chernoff bounds computed from the discrete distributions
# themselves; mass outside the window wraps around into it (only adding
# mass), and the Chernoff bound on the mass beyond the window's top is
# added to delta.  So the reported delta is an upper bound up to floating
# point in the bin masses and the FFT (errors around 1e-12).

# Discretised PLD of one pair on the grid h: list(lo, p, inf) with p the
# P-masses at indices lo, lo + 1, ... and inf the mass at +Inf.
# `upper(l)`/`lower(l)` return list(P = P(L > l), Q = Q(L > l)) computed
# in the accurate tail; `a`, `b` bound the grid.
pld_split <- function(surv, a, b, h) {
  ka <- floor(a / h)
  kb <- ceiling(b / h)
  if (!is.finite(kb - ka) || kb - ka > pld_max_bins) return(NULL)
  k <- ka:kb
  s <- surv(k * h)                      # P and Q masses above each point
  p <- -diff(s$P)                       # bin (eps_{k-1}, eps_k], k > ka
  r <- -diff(s$Q)
  el <- exp(-k[-length(k)] * h)
  eu <- exp(-k[-1L] * h)
  low <- pmin(pmax((r - eu * p) / (el - eu), 0), p)
  mass <- numeric(length(k))
  mass[-length(k)] <- low
  mass[-1L] <- mass[-1L] + (p - low)
  # below a: everything to a
  mass[1L] <- mass[1L] + (1 - s$P[1L])
  # above b: exp(b) Q(L > b) to b, the rest to +Inf
  top <- min(s$P[length(k)], exp(kb * h) * s$Q[length(k)])
  mass[length(k)] <- mass[length(k)] + top
  list(lo = ka, p = pmax(mass, 0), inf = max(s$P[length(k)] - top, 0))
}

# The survival functions of the loss of each pair at the losses l.
pld_surv <- function(z, q, direction) {
  force(z); force(q)
  if (q >= 1) {
    mu <- 1 / z
    return(function(l) list(
      P = stats::pnorm((l - mu^2 / 2) / mu, lower.tail = FALSE),
      Q = stats::pnorm((l + mu^2 / 2) / mu, lower.tail = FALSE)))
  }
  l1q <- log1p(-q)
  if (direction == "remove") {
    # L > l  <=>  x > x(l); L > log(1 - q) always
    function(l) {
      x <- rep(-Inf, length(l))
      ok <- l > l1q
      x[ok] <- z^2 * (log(expm1(l[ok] - l1q)) + l1q - log(q)) + 0.5
      list(P = (1 - q) * stats::pnorm(x / z, lower.tail = FALSE) +
             q * stats::pnorm((x - 1) / z, lower.tail = FALSE),
           Q = stats::pnorm(x / z, lower.tail = FALSE))
    }
  } else {
    # L = -log(1 - q + q e^{(2x - 1)/(2 z^2)}) > l  <=>  x < x(-l); L < -log(1 - q)
    function(l) {
      x <- rep(-Inf, length(l))         # l beyond the largest loss
      ok <- -l > l1q
      x[ok] <- z^2 * (log(expm1(-l[ok] - l1q)) + l1q - log(q)) + 0.5
      list(P = stats::pnorm(x / z),
           Q = (1 - q) * stats::pnorm(x / z) + q * stats::pnorm((x - 1) / z))
    }
  }
}

# The grid range of one pair: where the P-mass beyond is below ~1e-25.
pld_range <- function(z, q, direction) {
  if (q >= 1) {
    mu <- 1 / z
    return(c(mu^2 / 2 - 11 * mu, mu^2 / 2 + 11 * mu))
  }
  loss <- function(x) log1p(q * expm1((2 * x - 1) / (2 * z^2)))
  l1q <- log1p(-q)
  if (direction == "remove") c(l1q, loss(1 + 11 * z))
  else c(-loss(11 * z), -l1q)
}

# Beyond these sizes (noise multipliers near 0) the distribution is not
# computed and the Renyi accountant answers alone.
pld_max_bins <- 1e6
pld_max_fft <- 2^21

# Deltas below pld_min_delta are left to the Renyi accountant: the bin
# masses come from differences of normal probabilities, exact to about
# 1e-16 each, and their sum over up to 1e6 bins could move delta by some
# 1e-11.  So are deltas above pld_max_delta, a regime of next to no noise
# where the distribution's window grows without use.
pld_min_delta <- 1e-10
pld_max_delta <- 0.1
pld_delta_ok <- function(delta) delta >= pld_min_delta && delta <= pld_max_delta

pld_discrete <- function(z, q, direction, h) {
  rg <- pld_range(z, q, direction)
  pld_split(pld_surv(z, q, direction), rg[1L], rg[2L], h)
}

# log E[exp(lam L)] of a discrete PLD's finite part, for each lam.
pld_log_mgf <- function(d, h, lam) {
  i <- (d$lo + seq_along(d$p) - 1) * h
  lp <- log(d$p)
  vapply(lam, function(t) acc_logsumexp(lp + t * i), 0)
}

# Compose the discrete PLDs `ds` (each used steps[k] times): the composed
# finite masses f at loss indices s, the mass at +Inf and the bound `tail`
# on the mass above the window, which delta adds.  Mass below the window
# wraps to higher losses, which only raises delta.  tau: the tail mass
# allowed above the window.
pld_compose <- function(ds, steps, h, tau) {
  lam <- c(0.25, 0.5, 1, 2, 4, 8, 16, 32, 64)
  kup <- Reduce(`+`, Map(function(d, t) t * pld_log_mgf(d, h, lam), ds, steps))
  kdn <- Reduce(`+`, Map(function(d, t) t * pld_log_mgf(d, h, -lam), ds, steps))
  # smallest top B with exp(kup - lam B h) <= tau for some lam
  B <- ceiling(min((kup - log(tau)) / lam) / h)
  A <- floor(max((log(tau) - kdn) / lam) / h)
  lo_sum <- sum(vapply(seq_along(ds), function(k) steps[k] * ds[[k]]$lo, 0))
  hi_sum <- sum(vapply(seq_along(ds), function(k)
    steps[k] * (ds[[k]]$lo + length(ds[[k]]$p) - 1), 0))
  A <- max(A, lo_sum)
  B <- min(B, hi_sum)
  N <- 2^ceiling(log2(B - A + 1))
  if (!is.finite(N) || N > pld_max_fft) return(NULL)
  spec <- rep(1 + 0i, N)
  for (k in seq_along(ds)) {
    d <- ds[[k]]
    spec <- spec * stats::fft(pld_fold(d$lo, d$p, N))^steps[k]
  }
  f <- pmax(Re(stats::fft(spec, inverse = TRUE)) / N, 0)
  s <- A + ((0:(N - 1) - A) %% N)       # the loss index of each position
  o <- order(s)
  inf <- 1 - prod(vapply(seq_along(ds), function(k)
    (1 - ds[[k]]$inf)^steps[k], 0))
  list(s = s[o], f = f[o], inf = inf,
       tail = if (B < hi_sum) tau else 0, h = h, N = N)
}

# The masses p at indices lo, lo + 1, ... added up by index modulo N.
pld_fold <- function(lo, p, N) {
  len <- length(p)
  f <- rowSums(matrix(c(p, numeric(ceiling(len / N) * N - len)), N))
  out <- numeric(N)
  out[(lo + 0:(N - 1)) %% N + 1] <- f
  out
}

# delta at eps >= 0 of a composed PLD (an upper bound).
pld_delta_at <- function(cp, eps) {
  l <- cp$s * cp$h
  keep <- l > eps
  min(1, cp$inf + cp$tail + sum(cp$f[keep] * -expm1(eps - l[keep])))
}

# smallest eps >= 0 whose delta is at most `delta` (an upper bound).
pld_eps_at <- function(cp, delta) {
  target <- delta - cp$inf - cp$tail
  if (!(target > 0)) return(Inf)
  l <- cp$s * cp$h
  pos <- l > 0
  l <- l[pos]
  f <- cp$f[pos]
  if (!length(l)) return(0)
  # D(l_j) for every grid point, from the suffix sums above it
  S0 <- rev(cumsum(rev(f)))
  S1 <- rev(cumsum(rev(f * exp(-l))))
  n <- length(l)
  above0 <- c(S0[-1L], 0)
  above1 <- c(S1[-1L], 0)
  D <- above0 - exp(l) * above1        # delta at eps = l_j
  if (S0[1L] - S1[1L] <= target) return(0)  # eps = 0 already meets it
  j <- which(D <= target)[1L]
  if (is.na(j)) return(Inf)
  # between l_{j-1} and l_j the sums are those above l_{j-1}, i.e. from j
  lo_l <- if (j > 1L) l[j - 1L] else 0
  a0 <- S0[j]
  a1 <- S1[j]
  e <- log((a0 - target) / a1)
  max(lo_l, min(l[j], e))
}

# Epsilon (or delta) of the normalised components by PLD.  Unsampled
# Gaussian components compose to one Gaussian.
pld_components <- function(cm, h) {
  act <- acc_active(cm)
  z <- cm$z[act]
  q <- cm$q[act]
  st <- cm$steps[act]
  gauss <- q >= 1
  out <- list()
  for (dir in c("remove", "add")) {
    ds <- list()
    steps <- numeric()
    if (any(gauss)) {
      ds[[1L]] <- pld_discrete(1 / sqrt(sum(st[gauss] / z[gauss]^2)), 1, dir, h)
      steps <- 1
    }
    for (k in which(!gauss)) {
      ds[[length(ds) + 1L]] <- pld_discrete(z[k], q[k], dir, h)
      steps <- c(steps, st[k])
    }
    if (length(ds) < length(steps) || any(vapply(ds, is.null, NA)))
      return(NULL)
    out[[dir]] <- list(ds = ds, steps = steps)
  }
  out
}

# The composed distributions of both directions on the grid h, or, where
# they would need too many grid points, on a grid 4, 16 or 64 times coarser
# (whose points are among h's, so its bounds are only looser); NULL if
# none fits.
pld_composed <- function(cm, h, tau) {
  for (k in 0:3) {
    hk <- h * 4^k
    pc <- pld_components(cm, hk)
    if (is.null(pc)) next
    cps <- lapply(pc, function(d) pld_compose(d$ds, d$steps, hk, tau))
    if (!any(vapply(cps, is.null, NA))) return(cps)
  }
  NULL
}

# Inf (epsilon) or 1 (delta) where the distribution is not computed.
pld_epsilon <- function(cm, delta, h = 3e-4) {
  if (!pld_delta_ok(delta)) return(Inf)
  cps <- pld_composed(cm, h, delta * 1e-6)
  if (is.null(cps)) return(Inf)
  max(vapply(cps, pld_eps_at, 0, delta = delta))
}

pld_delta <- function(cm, epsilon, h = 3e-4) {
  cps <- pld_composed(cm, h, 1e-15)
  if (is.null(cps)) return(1)
  d <- max(vapply(cps, pld_delta_at, 0, eps = epsilon))
  if (d < pld_min_delta) 1 else d
}
