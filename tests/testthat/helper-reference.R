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
