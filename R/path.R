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
# (intercept and columns with penalty factor 0); non-private use only.
# `family`: a family object, or a name (with `tau` for "quantile").
null_residual <- function(x, y, family, intercept, unpenalised, tau = 0.5,
                          weights = NULL, offset = NULL, nclass = 1L) {
  fam <- family_object(family, list(tau = tau, nclass = nclass))
  if (isTRUE(fam$multi)) {
    # the intercept-only fit (the class shares); columns left unpenalised
    # would need a multinomial glm, which base R does not have
    if (any(unpenalised))
      arg_error("penalty.factor", "of 0 (an unpenalised column) is not ",
                "available for a multinomial fit whose lambda grid is ",
                "taken from the data; give lambda.")
    if (is.null(weights)) return(fam$null_residual(x, y, intercept, unpenalised))
    ind <- class_indicators(y, nclass)
    shares <- if (intercept) colSums(weights * ind) / sum(weights)
              else rep(1 / nclass, nclass)
    return(weights * (ind - rep(shares, each = length(y))))
  }
  if (is.null(weights) && is.null(offset))
    return(fam$null_residual(x, y, intercept, unpenalised))
  # weighted, beside the offsets: glm's fit of the unpenalised terms (the
  # quantile family's check loss has no glm: its offsets are taken off y)
  w <- weights %||% rep(1, length(y))
  off <- offset %||% rep(0, length(y))
  if (fam$name == "quantile")
    return(w * fam$null_residual(x, y - off, intercept, unpenalised))
  z <- cbind(if (intercept) 1, design_columns(x, unpenalised))
  glm_fam <- switch(fam$name, gaussian = stats::gaussian(),
                    binomial = stats::binomial(), poisson = stats::poisson())
  mu <- if (ncol(z) == 0L) glm_fam$linkinv(off)
        else suppressWarnings(stats::glm.fit(
          z, y, weights = w, offset = off, family = glm_fam,
          control = list(epsilon = 1e-12, maxit = 100)))$fitted.values
  w * (y - mu)
}
