# The lambda grid.  With public tuning, lambda_max of a private method comes
# from the oracle's public per-coordinate bound: a released gradient
# coordinate cannot exceed it (up to noise and batch-size variation), so
# every penalized coefficient stays at zero above bound / (alpha * penalty
# factor).  With private tuning it comes from the first released gradient
# (released_grid()).  No unreleased data statistic such as max |X'y|
# enters a private grid.

lambda_grid <- function(bound, x, y, family, private, alpha, pf, intercept,
                        nlambda, lambda.min.ratio, tau = 0.5, weights = NULL,
                        offset = NULL, nclass = 1L) {
  a <- max(alpha, 1e-3)  # as glmnet: ridge paths start from alpha = 0.001
  if (!private) {
    # non-private baseline: glmnet's data-driven lambda_max, the largest
    # gradient at the fit of the unpenalised terms alone
    r <- as.matrix(null_residual(x, y, family, intercept, pf == 0, tau,
                                 weights, offset, nclass))
    r[abs(r) <= 1e-10 * max(1, abs(y))] <- 0  # rounding of an exact fit
    # the largest over the classes of a multinomial's gradient blocks
    grad <- do.call(pmax, lapply(seq_len(ncol(r)), function(k)
      abs(design_crossprod(x, r[, k])))) / nrow(x)
    lmax <- max(grad[pf > 0] / pf[pf > 0]) / a
    if (lmax <= 0) lmax <- 1
  } else {
    lmax <- bound / (a * min(pf[pf > 0]))
  }
  log_grid(lmax, nlambda, lambda.min.ratio)
}

# nlambda penalties from lmax down to lmax * ratio, evenly spaced in log.
log_grid <- function(lmax, nlambda, ratio) {
  if (nlambda == 1L) return(lmax)
  exp(seq(log(lmax), log(lmax * ratio), length.out = nlambda))
}

# The grid of a privately tuned fit: from the largest coordinate of the
# gradient released at the starting point, the smallest penalty at which
# every penalised coefficient would stay at 0 for that gradient, down to
# lmr times it (post-processing of that release).
released_grid <- function(g0, intercept, alpha, pf, nlambda, lmr,
                          nclass = 1L) {
  # per feature, the largest over a multinomial's class blocks
  blocks <- matrix(g0, ncol = nclass)
  g <- apply(abs(blocks[seq_along(pf) + intercept, , drop = FALSE]), 1L, max)
  pen <- pf > 0
  lmax <- if (any(pen)) max(g[pen] / pf[pen]) / max(alpha, 1e-3) else 1
  if (!(lmax > 0) || !is.finite(lmax)) lmax <- 1
  log_grid(lmax, nlambda, lmr)
}

# y minus the fitted mean of the model with only the unpenalised terms
# (intercept and columns with penalty factor 0), times the weights when
# given, beside the offsets (the family's null_residual()); non-private use
# only.  `family`: a family object, or a name (with `tau` for "quantile"
# and `nclass` for "multinomial").
null_residual <- function(x, y, family, intercept, unpenalised, tau = 0.5,
                          weights = NULL, offset = NULL, nclass = 1L) {
  fam <- family_object(family, list(tau = tau, nclass = nclass))
  fam$null_residual(x, y, intercept, unpenalised, weights, offset)
}
