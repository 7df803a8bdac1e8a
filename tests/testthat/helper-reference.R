# Plain-R references shared by the test files: the Catoni-Giulini influence
# function and Holland's contribution, computed by quadrature (integrate())
# and never by the package's closed form.

psi_max <- 2 * sqrt(2) / 3

psi_ref <- function(x) {
  ifelse(abs(x) <= sqrt(2), x - x^3 / 6, sign(x) * psi_max)
}

# E psi(a + bZ): psi is constant (+-psi_max) beyond the kinks x = +-sqrt(2),
# so the two outer pieces are exact normal tail probabilities; the cubic
# middle piece is integrated numerically, in z = (x - a) / b when the normal
# is narrow (b < 1, limits cut at +-15 sd where dnorm is below 1e-49) and in
# x itself otherwise (then a + bz would lose all precision for huge a).
catoni_ref <- function(a, b) {
  if (b == 0) return(psi_ref(a))
  lo <- (-sqrt(2) - a) / b
  hi <- (sqrt(2) - a) / b
  tails <- psi_max * (pnorm(hi, lower.tail = FALSE) - pnorm(lo))
  mid <- if (b < 1) {
    l <- max(lo, -15)
    u <- min(hi, 15)
    if (l < u) {
      stats::integrate(function(z) {
        x <- a + b * z
        (x - x^3 / 6) * dnorm(z)
      }, l, u, rel.tol = 1e-11, abs.tol = 1e-13, subdivisions = 1000L)$value
    } else 0
  } else {
    stats::integrate(function(x) (x - x^3 / 6) * dnorm(x, a, b),
                     -sqrt(2), sqrt(2), rel.tol = 1e-11, abs.tol = 1e-13,
                     subdivisions = 1000L)$value
  }
  tails + mid
}

# Holland's contribution h(a), clamped to +-psi_max; h(0) = 0.
h_ref <- function(a, nu) {
  vapply(a, function(ai) {
    if (ai == 0) return(0)
    v <- catoni_ref(ai, abs(ai) / sqrt(nu))
    min(max(v, -psi_max), psi_max)
  }, numeric(1))
}

# How far the median of k values moves, as a fraction of the move c of one
# of them: c for odd k (the median is one order statistic), c / 2 for even
# k (the mean of the two middle ones, whose moves add up to at most c).
# Written from that argument, not from the package's kamath_median_factor().
median_factor_ref <- function(k) if (k %% 2 == 0) 0.5 else 1

# The state of R's generator (in the global environment), to check that a
# secure release draws nothing from it.
rng_state <- function() {
  if (!exists(".Random.seed", envir = globalenv())) set.seed(NULL)
  get(".Random.seed", envir = globalenv())
}

# R's generator as a fit started after set.seed(seed) draws from it: each
# exported entry point runs on a stream of its own, seeded by a fixed draw
# from the user's (R/rng.R), so replaying a fit's releases with internal
# functions starts from that stream's state.
set_fit_seed <- function(seed) {
  set.seed(seed)
  state <- with_fit_stream(get(".Random.seed", envir = globalenv()))
  assign(".Random.seed", state, envir = globalenv())
  invisible(state)
}

# Evaluate `expr` with that stream switched off, so that what a call draws
# from R's generator shows in .Random.seed (e.g. none for secure noise).
without_fit_stream <- function(expr) {
  old <- get("enter_fit_stream", envir = asNamespace("dpsco"))
  utils::assignInNamespace("enter_fit_stream", function(frame) invisible(),
                           "dpsco")
  on.exit(utils::assignInNamespace("enter_fit_stream", old, "dpsco"))
  expr
}

# The default budget shares of the scale and centre releases (the rule of
# ?dpsco_control, written out): scale (30 z1 sqrt(2 p) / n)^2 within
# [0.05, 0.2], centre (k z1 / n)^2 within [0.03, cap], k = 100 and the
# cap 0.5 (40 and 0.15 for the methods on radii), the cap at most 0.9 less
# the other shares (`others`: their sum, by default the defaults').
# The room the noise leaves (?dpsco_control's noise_room()): log10(n /
# (1000 z1)) within [0, 1], all of it without noise.
room_ref <- function(n, z1) if (z1 > 0) min(max(log10(n / (1000 * z1)), 0), 1) else 1

# The scale share's cap is 0.35 where the range of y comes first (no room,
# a path of an unbounded y: y_first()), else 0.2.
scale_share_ref <- function(z1, p, n, cap = 0.2) min(cap, max(0.05, (30 * z1 * sqrt(2 * p) / n)^2))
y_first_ref <- function(n, z1) z1 > 0 && room_ref(n, z1) == 0
centre_share_ref <- function(z1, n, p, others = scale_share_ref(
                               z1, p, n, if (y_first_ref(n, z1)) 0.35 else 0.2) + 0.22,
                             cap = 0.5, k = 100) {
  cap <- min(cap, 0.9 - others)
  if (cap <= 0.03) return(0.03)
  min(cap, max(0.03, (k * z1 / n)^2))
}

# ---- plain-R references of the private ranges (test-settings*.R)

# plain-R quantile edge: the smallest power of two 2^k (k = -32 .. 31) with
# at most tau * n values above it
quantile_edge_ref <- function(v, tau) {
  ks <- -32:31
  above <- vapply(ks, function(k) sum(v > 2^k), 0)
  2^ks[which(above <= tau * length(v))[1L]]
}

# The same level placed inside its octave (hist_quantile(within = TRUE)):
# the values of the octave (top / 2, top] taken as spread evenly in log2,
# the level is top / 2^t, t the share of them the tau n values above it
# still need.
quantile_within_ref <- function(v, tau) {
  top <- quantile_edge_ref(v, tau)
  need <- tau * length(v) - sum(v > top)
  inbin <- sum(v > top / 2 & v <= top)
  if (inbin == 0) return(top)
  top / 2^min(max(need / inbin, 0), 1)
}

# Plain R from the description in R/settings.R.  Counts: bin 1 holds
# |v| <= 2^-32, bin b holds (2^(b - 34), 2^(b - 33)], bin 64 everything
# above 2^30.  A noisy count below k sd (or not above 0) is dropped, bin 1
# always; the run of kept bins goes up from the fullest while one of the
# next two bins is kept; B is f times the upper edge 2^(b - 33) of the
# highest bin b whose kept counts at or above it exceed tau times all
# kept counts, at most 2^32; nothing kept: 1.
octave_counts_ref <- function(v) {
  a <- abs(v)
  up <- 2^((1:64) - 33)
  vapply(1:64, function(b) {
    lo <- if (b == 1) -Inf else up[b - 1]
    hi <- if (b == 64) Inf else up[b]
    sum(a > lo & a <= hi)
  }, 0)
}

run_ref <- function(kept) {
  # scan out from the first fullest bin, each way, until two empty bins
  # in a row
  m <- which(kept == max(kept))[1]
  ends <- m
  for (dir in c(-1, 1)) {
    end <- m
    b <- m + dir
    while (b >= 1 && b <= length(kept) && abs(b - end) <= 2) {
      if (kept[b] > 0) end <- b
      b <- b + dir
    }
    ends <- c(ends, end)
  }
  ends[2:3]
}

octave_bound_ref <- function(noisy, sd, k = 3, tau = 0.01, f = 2) {
  kept <- noisy * (noisy > 0 & noisy >= k * sd)
  kept[1] <- 0
  # the fullest must clear the 1% level of the largest of 63 noise counts
  if (all(kept == 0) || max(kept) < sd * stats::qnorm(1 - 0.01 / 63)) return(1)
  r <- run_ref(kept)
  # a thin tail: windows of 2, 4 or 8 bins from one or two above the top
  # whose noisy sum clears the 1% level of the largest of 3 x 64 window
  # noises lift the top to their last bin above 0, until none does
  level <- stats::qnorm(1 - 0.01 / 192)
  top <- r[2]
  repeat {
    ends <- c()
    for (s in top + 1:2) for (m in c(2, 4, 8)) {
      if (s > 64) next
      w <- s:min(s + m - 1, 64)
      if (sum(noisy[w]) >= level * sd * sqrt(length(w)) && any(noisy[w] > 0))
        ends <- c(ends, max(w[noisy[w] > 0]))
    }
    if (length(ends) == 0 || max(ends) <= top) break
    top <- max(ends)
  }
  used <- ifelse(seq_along(noisy) <= r[2], kept, pmax(noisy, 0))
  used[seq_along(used) < r[1] | seq_along(used) > top] <- 0
  b <- max(which(vapply(1:64, function(b) sum(used[b:64]), 0) > tau * sum(used)))
  min(f * 2^(b - 33), 2^32)
}

# y: the signed bins, most negative first (bin i <-> -(octave 65 - i)),
# 64 the zero bin, 64 + b - 1 the positive octave b; the run is on the
# octaves of |y| (both signs' kept counts added) and drops the bins above
# its top; hi from the top of the signed axis, lo from the bottom, each at
# tau times all kept counts (zero bin included).
signed_counts_ref <- function(v) {
  pos <- octave_counts_ref(v[v > 2^-32])
  neg <- octave_counts_ref(v[v < -2^-32])
  c(rev(neg[-1]), sum(abs(v) <= 2^-32), pos[-1])
}

signed_range_ref <- function(noisy, sd, k = 3, tau = 0.01, f = 2) {
  kept <- noisy * (noisy > 0 & noisy >= k * sd)
  oct <- c(64:2, 1, 2:64)
  mag <- vapply(1:64, function(o) if (o == 1) 0 else sum(kept[oct == o]), 0)
  if (all(mag == 0) || max(kept[-64]) < sd * stats::qnorm(1 - 0.01 / 126))
    return(c(-1, 1))
  r <- run_ref(mag)
  kept[oct != 1 & (oct < r[1] | oct > r[2])] <- 0
  lev <- tau * sum(kept)
  hi <- max(which(vapply(1:127, function(i) sum(kept[i:127]), 0) > lev))
  lo <- min(which(vapply(1:127, function(i) sum(kept[1:i]), 0) > lev))
  # signed edges of bin i: octave o = oct[i], magnitudes (2^(o - 34), 2^(o - 33)]
  edge_hi <- if (hi > 64) f * 2^(oct[hi] - 33) else if (hi == 64) 0 else -2^(oct[hi] - 34)
  edge_lo <- if (lo < 64) -f * 2^(oct[lo] - 33) else if (lo == 64) 0 else 2^(oct[lo] - 34)
  # the range holds 0
  c(min(max(edge_lo, -2^32), 0), max(min(edge_hi, 2^32), 0))
}

# ---- the accountant's references (test-accountant*.R)

# analytic Gaussian mechanism (Balle & Wang 2018), naive formula + bisection
ag_delta <- function(mu, eps)
  pnorm(mu / 2 - eps / mu) - exp(eps) * pnorm(-mu / 2 - eps / mu)
ag_eps <- function(mu, delta) {
  if (ag_delta(mu, 0) <= delta) return(0)
  lo <- 0
  hi <- 1
  while (ag_delta(mu, hi) > delta) hi <- 2 * hi
  for (k in 1:200) {
    mid <- (lo + hi) / 2
    if (ag_delta(mu, mid) > delta) lo <- mid else hi <- mid
  }
  (lo + hi) / 2
}

# improved RDP -> (eps, delta) conversion (Balle et al. 2020)
ref_conv_eps <- function(r, a, delta)
  max(0, min(r + log((a - 1) / a) - (log(delta) + log(a)) / (a - 1)))
