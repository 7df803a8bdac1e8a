# Empirical privacy audit: plain-R statistics shared by the test-audit*.R files.
#
# A mechanism M is (eps, delta)-DP only if every test telling M(D) from M(D')
# has FNR >= 1 - delta - e^eps FPR.  Observed error rates of one test, with
# Clopper-Pearson upper bounds, therefore give a lower bound on eps that holds
# with the stated confidence; the tests assert it never exceeds what the
# package accounts.

# One-sided Clopper-Pearson bounds for x successes out of n, level 1 - alpha.
cp_upper <- function(x, n, alpha) {
  ifelse(x >= n, 1, stats::qbeta(1 - alpha, x + 1, n - x))
}
cp_lower <- function(x, n, alpha) {
  ifelse(x <= 0, 0, stats::qbeta(alpha, x, n - x + 1))
}

# Analytic Gaussian mechanism (Balle and Wang 2018) in closed form: the delta
# at eps of a Gaussian release whose sensitivity / sd is mu, and its inverse.
gauss_delta_ref <- function(eps, mu) {
  stats::pnorm(-eps / mu + mu / 2) - exp(eps) * stats::pnorm(-eps / mu - mu / 2)
}
gauss_eps_ref <- function(mu, delta) {
  stats::uniroot(function(e) gauss_delta_ref(e, mu) - delta, c(0, 50),
                 tol = 1e-13)$root
}

# log((1 - delta - FNR_upper) / FPR_upper) of the test "say D' when the
# statistic exceeds th", from samples t0 under D and t1 under D'.  Both
# bounds are one-sided at level alpha / 2 (Bonferroni): jointly 1 - alpha.
threshold_eps <- function(th, t0, t1, delta, alpha) {
  fp <- length(t0) - findInterval(th, sort(t0))
  fn <- findInterval(th, sort(t1))
  fpr <- cp_upper(fp, length(t0), alpha / 2)
  fnr <- cp_upper(fn, length(t1), alpha / 2)
  log(pmax(1 - delta - fnr, 0) / fpr)
}

# The threshold is chosen on the first half of each sample (every value of
# the upper half of t0 is a candidate) and evaluated once on the second
# half, so the selection costs no multiple-testing correction.
audit_eps <- function(t0, t1, delta, alpha = 0.01) {
  sel0 <- seq_along(t0) <= length(t0) %/% 2
  sel1 <- seq_along(t1) <= length(t1) %/% 2
  cand <- sort(t0[sel0])
  cand <- cand[cand >= stats::median(cand)]
  score <- threshold_eps(cand, t0[sel0], t1[sel1], delta, alpha)
  threshold_eps(cand[which.max(score)], t0[!sel0], t1[!sel1], delta, alpha)
}

# `trials` releases of each of two mechanisms (functions of no argument
# returning the released vector), projected on the direction u of the
# noise-free difference: the Neyman-Pearson statistic for a Gaussian shift,
# tested in both tails and both directions (audit_eps_both()).
audit_releases <- function(release0, release1, u, trials, delta) {
  project <- function(release)
    vapply(seq_len(trials), function(i) sum(release() * u), 0)
  t0 <- project(release0)
  t1 <- project(release1)
  audit_eps_both(t0, t1, delta)
}

unit <- function(v) v / sqrt(sum(v^2))

# Candidate neighbours: huge values with a sign pattern (the worst case of
# every estimator here: each coordinate is pushed to its clamp, and the
# clip-norm computation must not overflow), the largest finite double,
# values whose squares overflow, and tiny ones.
adversarial_records <- function(d) {
  signs <- rep_len(c(1, -1), d)
  list(huge = 1e12 * signs, max = .Machine$double.xmax * signs,
       square_overflow = 1e200 * signs, tiny = 1e-300 * signs)
}

# An audited release passes when the honest version's lower bound on
# epsilon stays below the accounted epsilon (and not trivially far below:
# the test has power) and the broken version's exceeds it.
expect_audit <- function(honest, broken, accounted) {
  testthat::expect_lte(honest, accounted)
  testthat::expect_gt(honest, 0.3 * accounted)
  testthat::expect_gt(broken, accounted)
}

# Neighbouring data sets for the bounded-data methods: n - 1 records uniform
# on [-K, K], then a null record (D) or one at the bounds, x = K (1, -1, ...)
# and y = -K, the largest residual against every coordinate (D').
bounded_neighbours <- function(n, p, K) {
  sig <- rep_len(c(1, -1), p)
  real_x <- matrix(stats::runif((n - 1) * p, -K, K), n - 1, p)
  real_y <- stats::runif(n - 1, -K, K)
  list(x0 = rbind(real_x, 0), y0 = c(real_y, 0),
       x1 = rbind(real_x, K * sig), y1 = c(real_y, -K))
}

# The neighbouring relation the package states: one record added or
# removed at a fixed public size N.  A threshold test in either tail and
# either direction (D' told from D, and D from D') gives a lower bound;
# the largest of the four, each at level alpha / 4 (Bonferroni), is a
# lower bound on the epsilon of the pair at level 1 - alpha.
audit_eps_both <- function(t0, t1, delta, alpha = 0.01) {
  max(audit_eps(t0, t1, delta, alpha / 4), audit_eps(-t0, -t1, delta, alpha / 4),
      audit_eps(t1, t0, delta, alpha / 4), audit_eps(-t1, -t0, delta, alpha / 4))
}

# The two data-size cases of a public size N: D has N - 1 records and D'
# (D plus the record) has N, or D has N and D' has N + 1.  Rows of `rest`
# (a matrix, or a vector of responses) beyond the size are dropped.
size_pairs <- function(N) list(below = c(N - 1, N), above = c(N, N + 1))

# The value of `expr` and every warning and message it signalled (an error
# is caught and kept as its message), so that two runs on neighbouring
# data can be checked to say the same things.
capture_conditions <- function(expr) {
  said <- character()
  value <- withCallingHandlers(
    tryCatch(expr, error = function(e) {
      said <<- c(said, paste("error:", conditionMessage(e)))
      NULL
    }),
    warning = function(w) {
      said <<- c(said, paste("warning:", conditionMessage(w)))
      invokeRestart("muffleWarning")
    },
    message = function(m) {
      said <<- c(said, paste("message:", conditionMessage(m)))
      invokeRestart("muffleMessage")
    })
  list(value = value, said = said)
}

# The target of the audits of single releases: one full-batch Gaussian
# release accounted at (2, 0.01), whose z (about 1.12) lets a few thousand
# releases expose a mechanism whose noise is half what its sensitivity
# needs.
audit_eps_target <- 2
audit_delta <- 0.01
audit_z <- function() dp_noise_multiplier(audit_eps_target, audit_delta, 1, 1)
