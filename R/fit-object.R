# The fit objects dpsco() returns, assembled from a path driver's output.

# Assemble the S3 object from the engine's output.  `fam` the family
# object (a model with one predictor per class, `fam$multi`, has one block
# of coefficients per class).  `path`: "lambda" or "radius", the class "dpsco_<path>" that print(),
# coef() and plot() dispatch on.
new_dpsco <- function(res, x, lambda, intercept, call, fam, method,
                      classnames, settings, privacy, trace_at, std, nobs,
                      path, support = NULL) {
  # the family object, stored once (fit_family()); `family` stays its name
  settings$family_object <- fam
  if (fam$multi)
    return(new_dpsco_multinomial(res, x, lambda, intercept, call, fam, method,
                                 classnames, settings, privacy, std, nobs,
                                 support))
  p <- ncol(x)
  vars <- colnames(x) %||% paste0("V", seq_len(p))
  lam_names <- paste0("s", seq_along(lambda) - 1L)
  split <- function(b) {
    if (intercept) list(a0 = b[1L, ], beta = b[-1L, , drop = FALSE])
    else list(a0 = rep(0, ncol(b)), beta = b)
  }
  sp <- unstandardize_split(split(res$beta), std)
  beta <- sp$beta
  dimnames(beta) <- list(vars, lam_names)
  a0 <- stats::setNames(sp$a0, lam_names)
  if (!all(is.finite(beta)) || !all(is.finite(a0)))
    warning("the iterates diverged (non-finite coefficients); use a smaller ",
            "step_size or rescale x", call. = FALSE)
  trace <- NULL
  if (length(trace_at)) {
    tr <- res$trace
    nt <- length(trace_at)
    tr_a0 <- matrix(0, nt, length(lambda))
    tr_beta <- array(0, c(p, nt, length(lambda)),
                     list(vars, paste0("t", trace_at), lam_names))
    for (i in seq_len(nt)) {
      st <- unstandardize_split(split(matrix(tr[, i, ], ncol = length(lambda))), std)
      tr_a0[i, ] <- st$a0
      tr_beta[, i, ] <- st$beta
    }
    trace <- list(steps = trace_at, a0 = tr_a0, beta = tr_beta)
  }
  if (!is.null(support)) {
    # the coefficients before the support rule, in the units of beta
    raw <- unstandardize_split(split(support$raw), std)$beta
    dimnames(raw) <- dimnames(beta)
    support$beta_raw <- raw
  }
  out <- list(a0 = a0, beta = beta, lambda = lambda,
              df = count_nonzero(beta), dim = dim(beta), nobs = nobs,
              family = fam$name, method = method, intercept = intercept,
              call = call, settings = settings, privacy = privacy,
              standardize = std[c("mode", "center", "scale")],
              x_range = std$range,
              classnames = classnames, trace = trace,
              offset = isTRUE(res$offset))
  out$support <- support  # (no element when NULL)
  structure(out, class = c(paste0("dpsco_", path), "dpsco"))
}

# A multinomial path as glmnet returns one: `a0` a K x nlambda matrix of
# intercepts, centred to sum to 0 over the classes (post-processing: the
# probabilities do not change), `beta` a list of K p x nlambda matrices
# named by the classes, `dfmat` each class's non-zeros and `df` the number
# of features with a non-zero in any class.
new_dpsco_multinomial <- function(res, x, lambda, intercept, call, fam, method,
                                  classnames, settings, privacy, std, nobs,
                                  support) {
  p <- ncol(x)
  nclass <- length(classnames)
  d <- p + intercept
  vars <- colnames(x) %||% paste0("V", seq_len(p))
  lam_names <- paste0("s", seq_along(lambda) - 1L)
  blocks <- function(b) lapply(seq_len(nclass), function(k) {
    bk <- b[(k - 1L) * d + seq_len(d), , drop = FALSE]
    sp <- if (intercept) list(a0 = bk[1L, ], beta = bk[-1L, , drop = FALSE])
          else list(a0 = rep(0, ncol(bk)), beta = bk)
    sp <- unstandardize_split(sp, std)
    dimnames(sp$beta) <- list(vars, lam_names)
    sp
  })
  sp <- blocks(res$beta)
  a0 <- do.call(rbind, lapply(sp, `[[`, "a0"))
  a0 <- a0 - rep(colMeans(a0), each = nclass)
  dimnames(a0) <- list(classnames, lam_names)
  beta <- stats::setNames(lapply(sp, `[[`, "beta"), classnames)
  if (!all(is.finite(a0)) || !all(vapply(beta, function(b) all(is.finite(b)), TRUE)))
    warning("the iterates diverged (non-finite coefficients); use a smaller ",
            "step_size or rescale x", call. = FALSE)
  tol <- nonzero_tol(beta)
  dfmat <- do.call(rbind, lapply(beta, count_nonzero, tol = tol))
  dimnames(dfmat) <- list(classnames, lam_names)
  if (!is.null(support))
    support$beta_raw <- stats::setNames(lapply(blocks(support$raw),
                                               `[[`, "beta"), classnames)
  out <- list(a0 = a0, beta = beta, lambda = lambda,
              df = colSums(Reduce(`|`, lapply(beta, is_nonzero, tol = tol))),
              dfmat = dfmat, dim = c(p, length(lambda)), nobs = nobs,
              family = fam$name, method = method, intercept = intercept,
              call = call, settings = settings, privacy = privacy,
              standardize = std[c("mode", "center", "scale")],
              x_range = std$range, classnames = classnames, trace = NULL,
              offset = FALSE)
  out$support <- support
  structure(out, class = c("dpsco_multinomial", "dpsco_lambda", "dpsco"))
}

unstandardize_split <- function(sp, std) {
  if (std$mode == "none") return(sp)
  out <- unstandardize(sp$a0, sp$beta, std)
  out$beta[sp$beta == 0] <- 0  # keep exact zeros exact
  out
}

# What counts as a non-zero coefficient in Df (print, plot, summary, cv's
# nzero) and in predict(type = "nonzero"): a magnitude above 1e-10 times
# the path's largest (over all classes of a multinomial path), exact zero
# when the path is all zero.  A Frank-Wolfe path shrinks the coordinates it
# left by a factor at every step, to 1e-15 and below, and those are zeros
# in every display.
nonzero_tol <- function(beta) {
  if (is.list(beta)) return(max(vapply(beta, nonzero_tol, 0)))
  big <- suppressWarnings(max(abs(beta[is.finite(beta)])))
  if (!is.finite(big)) 0 else 1e-10 * big
}
is_nonzero <- function(beta, tol = nonzero_tol(beta)) abs(beta) > tol
count_nonzero <- function(beta, tol = nonzero_tol(beta)) {
  colSums(is_nonzero(beta, tol))
}
