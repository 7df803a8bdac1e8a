# Empirical privacy audit of the inference stage's releases
# (R/inference-parts.R) at their worst-case neighbours, each with a broken
# variant (half the noise, as if the sensitivity were half as large) that
# must be caught.  D has N - 1 records, D' adds one whose term points
# against all of theirs and reaches its clip, both over the public N; the
# record is at the edge of the input domain (its x and y are clipped, not
# trusted).  The histograms are release_counts()'s (audited in
# test-audit.R); whole fits with the stage meet the records at the edges
# of the input domain in test-audit-guarantee.R.

inference_audit_N <- 200
inference_audit_clip <- 1.5

# D's rows ws = (1, 0) with score residual +10 (clipped to +clip) and
# bread weight 1; the added row of norm 2 with residual `r_added`: a score
# of norm `clip` against theirs, a bread and a meat term of Frobenius norm
# at their clips.
inference_audit_rows <- function(x_added, r_added) {
  N <- inference_audit_N
  list(rn0 = row_norms(cbind(1, rep(0, N - 1))), psi0 = rep(10, N - 1),
       rn1 = row_norms(rbind(cbind(1, rep(0, N - 1)), c(1, x_added))),
       psi1 = c(rep(10, N - 1), r_added))
}

inference_audit <- function(what, trials, x_added = sqrt(3), r_added = -10) {
  a <- inference_audit_rows(x_added, r_added)
  N <- inference_audit_N
  clip <- inference_audit_clip
  bound <- 3
  z <- audit_z()
  upper <- upper.tri(diag(2), diag = TRUE)
  rel <- function(rn, psi, zz) function() {
    v <- switch(what,
      score = stage_score(rn, psi, clip, zz, N)$value,
      bread = stage_bread(rn, rep(1, length(psi)), bound, zz, N)$value,
      meat = stage_meat(rn, psi, clip, zz, N)$value)
    if (is.matrix(v)) v[upper] else v
  }
  eff <- rel(a$rn1, a$psi1, 0)() - rel(a$rn0, a$psi0, 0)()
  list(effect = sqrt(sum(eff^2)),
       sensitivity = switch(what, score = clip / N, bread = bound / N,
                            meat = clip^2 / N),
       accounted = dp_epsilon(z, 1, 1, audit_delta),
       honest = audit_releases(rel(a$rn0, a$psi0, z), rel(a$rn1, a$psi1, z),
                               unit(eff), trials, audit_delta),
       broken = audit_releases(rel(a$rn0, a$psi0, z / 2),
                               rel(a$rn1, a$psi1, z / 2), unit(eff), trials,
                               audit_delta))
}

test_that("quick audit: the stage's score release stays within its epsilon", {
  set.seed(20261130)
  # the added record's residual -10 against D's +10: a clipped score of
  # norm clip against theirs
  a <- inference_audit("score", 20000)
  expect_equal(a$effect, a$sensitivity, tolerance = 1e-9)
  expect_audit(a$honest, a$broken, a$accounted)
})

# A matrix release's audit: its effect within the Frobenius sensitivity
# (the upper triangle, where the noise is drawn) and near it.
expect_matrix_audit <- function(what, seed) {
  set.seed(seed)
  a <- inference_audit(what, 20000)
  expect_lte(a$effect, a$sensitivity * (1 + 1e-12))
  expect_gt(a$effect, 0.85 * a$sensitivity)
  expect_audit(a$honest, a$broken, a$accounted)
}

test_that("quick audit: the stage's bread release stays within its epsilon", {
  # the added record's bread term, of Frobenius norm 4 before its clip at 3
  expect_matrix_audit("bread", 20261131)
})

test_that("quick audit: the stage's meat release stays within its epsilon", {
  # the added record's meat term: its clipped score's outer product
  expect_matrix_audit("meat", 20261132)
})

test_that("the releases' effects stay within their sensitivities at the edges of the domain", {
  # an added record of x and residual at the largest doubles, of square
  # overflow and tiny: its effect never exceeds the stated sensitivity,
  # and no release is NaN (the audit's statistics would not be either)
  for (xr in list(c(1e200, -1e200), c(.Machine$double.xmax, -1e300),
                  c(1e-300, 1e300), c(3, 0))) {
    a <- inference_audit_rows(xr[1], xr[2])
    for (what in c("score", "bread", "meat")) {
      v0 <- switch(what,
        score = stage_score(a$rn0, a$psi0, 1.5, 0, 200)$value,
        bread = stage_bread(a$rn0, rep(1, 199), 3, 0, 200)$value,
        meat = stage_meat(a$rn0, a$psi0, 1.5, 0, 200)$value)
      v1 <- switch(what,
        score = stage_score(a$rn1, a$psi1, 1.5, 0, 200)$value,
        bread = stage_bread(a$rn1, rep(1, 200), 3, 0, 200)$value,
        meat = stage_meat(a$rn1, a$psi1, 1.5, 0, 200)$value)
      expect_true(all(is.finite(v1)), info = paste(what, xr))
      sens <- switch(what, score = 1.5 / 200, bread = 3 / 200,
                     meat = 1.5^2 / 200)
      expect_lte(sqrt(sum((v1 - v0)^2)), sens * (1 + 1e-12))
    }
  }
})
