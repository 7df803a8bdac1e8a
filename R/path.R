# The lambda grid.  For private methods lambda_max comes from the oracle's
# public per-coordinate bound: a released gradient coordinate cannot exceed
# it (up to noise and batch-size variation), so every penalized coefficient
# stays at zero above bound / (alpha * penalty factor).  No data statistic
# such as max |X'y| enters a private grid.

lambda_grid <- function(bound, x, y, method, alpha, pf, intercept, nlambda,
                        lambda.min.ratio) {
  a <- max(alpha, 1e-3)  # as glmnet: ridge paths start from alpha = 0.001
  if (method == "none") {
    # non-private baseline: glmnet's data-driven lambda_max
    r <- if (intercept) y - mean(y) else y
    grad <- abs(drop(crossprod(x, r))) / nrow(x)
    lmax <- max(grad[pf > 0] / pf[pf > 0]) / a
    if (lmax <= 0) lmax <- 1
  } else {
    lmax <- bound / (a * min(pf[pf > 0]))
  }
  if (nlambda == 1L) return(lmax)
  exp(seq(log(lmax), log(lmax * lambda.min.ratio), length.out = nlambda))
}
