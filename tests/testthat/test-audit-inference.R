# Empirical privacy audit of the inference stage's releases (R/inference.R)
# at their worst-case neighbours, each with a broken variant (half the
# noise, as if the sensitivity were half as large) that must be caught:
# D has N - 1 records, D' adds one at the row bound R whose term points
# against all of theirs, both over the public N.  Whole fits with the
# stage meet the records at the edges of the input domain in
# test-audit-guarantee.R.

inference_audit_N <- 200
inference_audit_R <- 2
inference_audit_c <- 1

# D's rows w = (1, 0) with residual +10 (Huber score +c); the added row
# w = (1, sqrt(3)), of norm R, with residual `r_added`.
inference_audit_data <- function(r_added) {
  N <- inference_audit_N
  list(w0 = cbind(1, rep(0, N - 1)), y0 = rep(10, N - 1),
       w1 = rbind(cbind(1, rep(0, N - 1)), c(1, sqrt(3))),
       y1 = c(rep(10, N - 1), r_added))
}

inference_audit <- function(what, r_added, trials) {
  d <- inference_audit_data(r_added)
  fam <- family_object("gaussian")
  R <- inference_audit_R
  N <- inference_audit_N
  tm0 <- inference_terms(fam, d$w0, d$y0, c(0, 0), R, inference_audit_c)
  tm1 <- inference_terms(fam, d$w1, d$y1, c(0, 0), R, inference_audit_c)
  z <- audit_z()
  upper <- upper.tri(diag(2), diag = TRUE)
  rel <- function(tm, w, zz) function() {
    v <- inference_release(what, tm, w, zz, R, N)$value
    if (is.matrix(v)) v[upper] else v
  }
  eff <- rel(tm1, d$w1, 0)() - rel(tm0, d$w0, 0)()
  list(effect = sqrt(sum(eff^2)),
       sensitivity = switch(what, score = inference_audit_c * R / N,
                            bread = R^2 / N),
       accounted = dp_epsilon(z, 1, 1, audit_delta),
       honest = audit_releases(rel(tm0, d$w0, z), rel(tm1, d$w1, z),
                               unit(eff), trials, audit_delta),
       broken = audit_releases(rel(tm0, d$w0, z / 2), rel(tm1, d$w1, z / 2),
                               unit(eff), trials, audit_delta))
}

test_that("quick audit: the stage's score release stays within its epsilon", {
  set.seed(20261130)
  # the added record's residual -10: Huber score -c against D's +c
  a <- inference_audit("score", -10, 20000)
  expect_equal(a$effect, a$sensitivity, tolerance = 1e-12)
  expect_audit(a$honest, a$broken, a$accounted)
})

test_that("quick audit: the stage's bread release stays within its epsilon", {
  set.seed(20261131)
  # the added record's residual 0, inside the clamp: its bread term w w' / N
  a <- inference_audit("bread", 0, 20000)
  # (its upper triangle, where the noise is drawn: within the Frobenius
  # sensitivity R^2 / N)
  expect_lte(a$effect, a$sensitivity * (1 + 1e-12))
  expect_gt(a$effect, 0.9 * a$sensitivity)
  expect_audit(a$honest, a$broken, a$accounted)
})
