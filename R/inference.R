# The estimating equations of the inference stage (issue 35, in progress):
# the unpenalised model's Mallows-weighted, residual-bounded score, its
# bread (the expected Jacobian) and its meat (the score's second moment),
# on the design w_i = (1, x_i / B) that is scaled but never clamped.  A
# record's Mallows weight v_i = min(1, R^2 / ||w_i||^2) and the family's
# bounded score psi (|psi| <= fam$inference(...)$bound) bound its score by
# bound * R, its bread term by D_max R^2 and its meat term by bound^2 R^2,
# whatever x and y are: the sensitivities of the releases to come.  With
# R = Inf and c = Inf the root is glm's estimate and the sandwich glm's
# HC0 covariance (tests/testthat/test-inference.R).  Nothing here is
# private yet: the releases, the budget share and the intervals follow.

# The per-record terms at coefficients b: list(v (Mallows weights times
# the cap weights), psi, d (bread weights), bound).  `w` the n x d design,
# `d_cap` the cap on the bread weight (poisson's grows with the mean): a
# record above it has its score and bread weighted by d_cap / d, so the
# bread stays the Jacobian of the weighted score; `offset` per-record
# offsets (0: none), `weights` per-record weights in [0, 1] (NULL: 1).
inference_terms <- function(fam, w, y, b, row_bound, c, d_cap = Inf,
                            offset = 0, weights = NULL) {
  eta <- drop(w %*% b) + offset
  v <- pmin(1, row_bound^2 / rowSums(w * w))
  v[!is.finite(v)] <- 1
  tm <- fam$inference(eta, y, c)
  u <- if (is.finite(d_cap)) clamp(d_cap / tm$d, 0, 1, nan = 0) else 1
  tm$v <- v * u * (weights %||% 1)
  tm$psi[tm$v == 0] <- 0
  tm$d[tm$v == 0] <- 0
  tm
}

# The mean score, bread and meat at b (each over the public n).
inference_moments <- function(fam, w, y, b, row_bound, c, d_cap = Inf,
                              n = nrow(w), offset = 0, weights = NULL) {
  tm <- inference_terms(fam, w, y, b, row_bound, c, d_cap, offset, weights)
  list(score = drop(crossprod(w, tm$v * tm$psi)) / n,
       bread = crossprod(w * (tm$v * tm$d), w) / n,
       meat = crossprod(w * (tm$v * tm$psi), w * (tm$v * tm$psi)) / n)
}

# The root of the mean score by Newton's method with the bread as the
# Jacobian (non-private; the private stage takes a few damped steps of
# released scores instead).
inference_root <- function(fam, w, y, b0, row_bound, c, d_cap = Inf,
                           offset = 0, weights = NULL, tol = 1e-12,
                           maxit = 100) {
  b <- b0
  for (it in seq_len(maxit)) {
    mo <- inference_moments(fam, w, y, b, row_bound, c, d_cap,
                            offset = offset, weights = weights)
    step <- solve(mo$bread, mo$score)
    b <- b + step
    if (max(abs(step)) <= tol * max(1, max(abs(b)))) break
  }
  b
}

# The sandwich covariance H^-1 J H^-1 / n of the root.
inference_sandwich <- function(mo, n) {
  hi <- solve(mo$bread)
  hi %*% mo$meat %*% hi / n
}

# E[clamp(Y - mu, -c, c)] and E[clamp(Y - mu, -c, c) (Y - mu)] for Y ~
# Poisson(mu), summed over the counts that carry all but 1e-15 of the mass
# (the clamp is exact beyond them); vectorised over mu.  Above a mean of
# 1e6 the normal limit: 0 and mu (2 Phi(c / sqrt(mu)) - 1); an infinite
# mean has an infinite bread weight, which the cap then weights out.
poisson_clamp_moments <- function(mu, c) {
  out <- vapply(mu, function(m) {
    if (!is.finite(c)) return(c(0, m))
    if (!is.finite(m)) return(c(0, Inf))
    if (m > 1e6) return(c(0, m * (2 * stats::pnorm(c / sqrt(m)) - 1)))
    hi <- stats::qpois(1 - 1e-15, m) + 1
    k <- 0:hi
    p <- stats::dpois(k, m)
    r <- k - m
    cl <- pmin(pmax(r, -c), c)
    c(sum(p * cl), sum(p * cl * r))
  }, c(0, 0))
  list(a = out[1L, ], d = out[2L, ])
}
