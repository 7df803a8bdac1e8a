# Empirical privacy audit of the two mechanisms of Wang, Xiao, Devadas and
# Xu (2020): one Bun-Steinke trimmed-mean release (method "bun_steinke")
# and the sample-and-aggregate release (method "sample_aggregate"), each on
# replace-one neighbours (helper-audit.R: a threshold test's error rates
# give a 99% lower bound on epsilon).  The honest releases must stay below
# the accounted epsilon; deliberately broken variants must exceed it.
# The quick tests always run; the long ones need DPSCO_AUDIT_LONG=true.

wang_delta <- 0.01

# One release at eps' = 1: 1/2-zCDP, accounted through its Renyi curve.
bs_accounted <- function(eps_call, delta)
  account_parts(list(zcdp_part("bs", eps_call^2 / 2, 1, 1,
                                               "")), delta)

# Neighbours for the trimmed mean on [0, 1] with m = 100, n - 2m = 500
# (the smoothness condition (m - 1) t <= log(n - 2m) holds at t = 1/16).
# "flat": every value 1/2, and one value moved to 1, which leaves the
# trimmed mean and changes only the range term; "step": 101 zeros and 599
# ones, and one zero moved to 1, which moves the trimmed mean by 1 / 500.
bs_neighbours <- function(kind) {
  n <- 700
  v0 <- if (kind == "flat") rep(0.5, n) else c(rep(0, 101), rep(1, 599))
  v1 <- v0
  v1[1] <- 1
  list(v0 = v0, v1 = v1)
}

# `releases` draws of one release; `wrong_t` multiplies the smoothing
# parameter t (a broken sensitivity bound: its floor e^{-mt} (b - a) is
# too small by e^{-m t (wrong_t - 1)}).
bs_draws <- function(v, releases, wrong_t = 1) {
  eps <- 1
  m <- 100L
  # e^{-m t'} with t' = wrong_t t is the floor of a release at eps * sqrt(wrong_t)
  est <- bs_mean_release(matrix(v), 0, 1, m, eps * sqrt(wrong_t),
                                 noise = FALSE)
  # the noise keeps s = eps / 4 of the honest release
  est[1] + est[2] / (eps / 4) * sinh(rnorm(releases))
}

bs_audit <- function(releases) {
  acc <- bs_accounted(1, wang_delta)
  out <- c(accounted = acc)
  for (kind in c("flat", "step")) {
    nb <- bs_neighbours(kind)
    t0 <- abs(bs_draws(nb$v0, releases) - 0.5)
    t1 <- abs(bs_draws(nb$v1, releases) - 0.5)
    if (kind == "step") {
      t0 <- bs_draws(nb$v0, releases)
      t1 <- bs_draws(nb$v1, releases)
    }
    out[[kind]] <- audit_eps_both(t0, t1, wang_delta)
  }
  nb <- bs_neighbours("flat")
  out[["broken"]] <- audit_eps_both(abs(bs_draws(nb$v0, releases, 16) - 0.5),
                               abs(bs_draws(nb$v1, releases, 16) - 0.5),
                               wang_delta)
  out
}

test_that("quick audit: one Bun-Steinke release stays within its zCDP epsilon", {
  set.seed(31)
  a <- bs_audit(4000)
  expect_lte(a[["flat"]], a[["accounted"]])
  expect_lte(a[["step"]], a[["accounted"]])
  expect_gt(a[["broken"]], a[["accounted"]])
})

test_that("long audit: one Bun-Steinke release stays within its zCDP epsilon", {
  skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
  set.seed(32)
  a <- bs_audit(2e5)
  expect_lte(a[["flat"]], a[["accounted"]])
  expect_lte(a[["step"]], a[["accounted"]])
  expect_gt(a[["broken"]], a[["accounted"]])
})

# ---------------------------------------------------------------------------
# Sample and aggregate on block estimates in R^1 (d = 1), Lambda = 2: a
# cluster B at 1 and a cluster A of t0 + 1 estimates at 0, listed after B.
# In D every estimate of A has t0 others at distance 0, so the centre is
# in A (at 0).  In D' one estimate of A moves to B: every r_i(t0) is 1, the
# first index (in B) wins and the centre jumps to 1.  The release is the
# centre plus (S / gamma) N(0, 1); `scale` multiplies the smooth bound
# (scale < 1: broken).

sa_neighbours <- function(m) {
  s <- sqrt(m)
  t0 <- ceiling((m + s) / 2 + 1)
  e0 <- matrix(c(rep(1, m - t0 - 1), rep(0, t0 + 1)))
  e1 <- e0
  e1[m, 1] <- 1
  list(e0 = e0, e1 = e1)
}

sa_draws <- function(est, releases, eps, scale = 1) {
  ag <- sa_aggregate(est, eps, wang_delta, 2)
  ag$centre + scale * ag$smooth / ag$gamma * rnorm(releases)
}

sa_audit <- function(releases, m = 400L, eps = 2) {
  nb <- sa_neighbours(m)
  c(accounted = eps,
    honest = audit_eps_both(sa_draws(nb$e0, releases, eps),
                       sa_draws(nb$e1, releases, eps), wang_delta),
    broken = audit_eps_both(sa_draws(nb$e0, releases, eps, 1 / 100),
                       sa_draws(nb$e1, releases, eps, 1 / 100), wang_delta))
}

test_that("quick audit: the sample-and-aggregate release stays within epsilon", {
  set.seed(41)
  a <- sa_audit(4000)
  expect_lte(a[["honest"]], a[["accounted"]])
  expect_gt(a[["broken"]], a[["accounted"]])
})

test_that("long audit: the sample-and-aggregate release stays within epsilon", {
  skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
  set.seed(42)
  a <- sa_audit(2e5)
  expect_lte(a[["honest"]], a[["accounted"]])
  expect_gt(a[["broken"]], a[["accounted"]])
})
