#' @include registry.R lambda-path.R
NULL

#' The converged non-private baseline
#'
#' `method = "none"` is the non-private reference of [dpsco()].  When
#' `iterations` is not given (and no `trace` is asked for, `x` is not
#' file-backed, has at most 4000 coefficients and, if sparse, a dense copy
#' of at most 2^26 values), its path is
#' solved to convergence rather than run for the private methods' fixed
#' number of steps: at each `lambda`, warm-started from the previous
#' solution, a proximal Newton method takes the exact full-data gradient
#' and Hessian of the loss, minimises the penalised quadratic model
#' exactly by coordinate descent (the solver of the private Newton path),
#' and backtracks until the objective decreases enough.  It stops when the
#' objective changes by less than `1e-12` relative (and the step is below
#' `1e-9`), or after 200 steps per lambda.  The objective is the fit's
#' (glmnet's scaling, the sum of losses over the public `n`), on the data
#' as the fit sees them (with private tuning, `x` clamped to its bounds),
#' so a gaussian path agrees with `glmnet(standardize = FALSE)` and an
#' unpenalised quantile fit with `conquer::conquer()` at the same
#' bandwidth.  The fit adds no noise and has `epsilon = Inf`.  Give
#' `iterations` to run the stochastic proximal gradient loop instead (for
#' comparisons step by step with the private methods).  A converged fit
#' has `settings$optimizer = "converged"` and class `"dpsco_baseline"`,
#' whose [summary()] describes this solver.
#'
#' @name dpsco_baseline
#' @keywords internal
NULL

baseline_tol <- 1e-12
baseline_maxit <- 200L

# The fit function of method "none": the converged path when lambda_path()
# marks the settings so (iterations not given), else the engine's loop.
none_path_fit <- function(prob, path, settings) {
  converge <- isTRUE(settings$converge)
  settings$converge <- NULL  # not a field of the engine's settings
  if (!baseline_converges(converge, prob$x, settings$intercept == 1L,
                          prob$trace_at))
    return(engine_path_fit(prob, path, settings))
  converged_path(as.matrix(prob$x), prob$y, settings, path, prob$beta0)
}

# Is the path solved to convergence?  `converge`: iterations not given.
# Not with a trace of the steps, a file-backed x, or above the exact
# d x d Hessian's width limit (the Newton path's).
baseline_converges <- function(converge, x, intercept, trace_at) {
  # the solver works on a dense copy of x: a sparse x only while that copy
  # stays small (512 MB)
  converge && !length(trace_at) && !is_mapped(x) &&
    ncol(x) + intercept <= curvature_max_d() &&
    (is.matrix(x) || as.double(nrow(x)) * (ncol(x) + 1) <= 2^26)
}

# dpsco()'s fit of a method that converges: marked so that summary()
# describes the solver that ran, not the fixed loop's settings.
baseline_fit <- function(fit, spec, a) {
  if (!spec$converges ||
      !baseline_converges(is.null(a$iterations), a$x, a$intercept,
                          if (isTRUE(a$trace) || is.numeric(a$trace)) 1L))
    return(fit)
  fit$settings$optimizer <- "converged"
  class(fit) <- c("dpsco_baseline", class(fit))
  fit
}

#' @export
summary.dpsco_baseline <- function(object, ...) {
  out <- NextMethod()
  st <- object$settings
  out$text[1L] <- sprintf(paste(
    "A %s-penalised %s model (alpha = %s) was fitted on n = %s records and",
    "p = %d predictors along %d penalties, not privately, by a proximal",
    "Newton method with the exact Hessian solved to convergence",
    "(relative change of the objective below %s) at each penalty; its",
    "settings were %s."),
    if (st$alpha == 1) "lasso" else "elastic-net", model_label(object),
    format(st$alpha), format_count(object$nobs), object$dim[1L],
    length(object$lambda), format(baseline_tol),
    if (identical(st$tuning, "private"))
      "those of private tuning, computed without noise"
    else "public")
  out
}

# The move from b towards the model's minimiser bn (the proximal Newton
# direction): Armijo backtracking on the penalised objective (Lee, Sun
# and Saunders 2014), `g` the gradient at b, `f` the objective there,
# `pen(v)` the penalty and `at(v)` list(eta, f) at v.  `done` when the
# objective and the coefficients have stopped moving.
newton_move <- function(b, bn, g, f, pen, at) {
  dir <- bn - b
  dec <- sum(g * dir) + pen(bn) - pen(b)
  t <- 1
  repeat {
    bt <- b + t * dir
    st <- at(bt)
    # (an objective that overflows to NaN counts as no decrease)
    if (isTRUE(st$f <= f + 0.25 * t * dec) || t < 1e-10) break
    t <- t / 2
  }
  list(b = bt, eta = st$eta, f = st$f,
       done = isTRUE(abs(f - st$f) <= baseline_tol * max(1, abs(st$f)) &&
         max(abs(t * dir)) <= 1e-9 * max(1, max(abs(bt)))))
}

overflow_error <- function()
  arg_error("y", "gives a loss that overflows double precision in the ",
            "non-private fit; rescale y (and x or the offset).")

# The family of the engine's settings list (family_settings()).
settings_family <- function(settings) {
  family_object(names(family_codes)[match(settings$family, family_codes)],
                list(tau = settings$tau, bandwidth = settings$bandwidth,
                     smoother = names(kernel_codes)[match(settings$kernel,
                                                          kernel_codes)],
                     nclass = settings$nclass))
}

# The limits of the engine's settings as dpsco_quad_lasso's options take
# them: the lower then the upper limits of the penalised coordinates
# (none when the settings have none); with `intercept` (a multinomial's
# coordinates, intercepts penalised by 0) each of the K blocks starts with
# its unbounded intercept.
box_limits <- function(settings, K, intercept = FALSE) {
  lo <- settings$lower_limits
  hi <- settings$upper_limits
  if (is.null(lo) && is.null(hi)) return(NULL)
  p <- length(settings$penalty_factor)
  block <- function(v, inf) rep(c(if (intercept) inf, v %||% rep(inf, p)), K)
  c(block(lo, -Inf), block(hi, Inf))
}

converged_path <- function(x, y, settings, lambda, beta0) {
  fam <- settings_family(settings)
  # one predictor per class: the Hessian has K x K blocks per record
  if (fam$multi)
    return(converged_multinomial(x, y, settings, lambda, beta0, fam))
  intercept <- settings$intercept == 1L
  z <- if (intercept) cbind(rep(1, nrow(x)), x) else x
  # the engine's divisor: the public n (expected batch over its rate)
  n <- settings$m / settings$rate
  pen <- c(if (intercept) 0, settings$penalty_factor)
  alpha <- settings$alpha
  # records' weights and offsets when the engine's settings carry them
  wts <- settings$weights %||% 1
  off <- settings$offsets %||% 0
  penalty <- function(b, lam)
    lam * sum(pen * (alpha * abs(b) + (1 - alpha) * b^2 / 2))
  objective <- function(eta, b, lam)
    sum(wts * fam$loss(eta, y)) / n + penalty(b, lam)
  d <- ncol(z)
  b <- as.double(beta0)
  out <- matrix(0, d, length(lambda))
  for (l in seq_along(lambda)) {
    lam <- lambda[l]
    opts <- c(lam, alpha, as.double(intercept), settings$penalty_factor,
              box_limits(settings, 1L))
    eta <- off + drop(z %*% b)
    f <- objective(eta, b, lam)
    # a loss that overflows at the start (a response near the largest
    # double squared) leaves the line search nothing to compare
    if (!is.finite(f)) overflow_error()
    for (it in seq_len(baseline_maxit)) {
      g <- drop(crossprod(z, wts * fam$residual(eta, y))) / n
      w <- wts * fam$hessian(eta, y)
      h <- crossprod(z, z * w) / n
      # a tiny ridge keeps the model's diagonal positive (an all-zero
      # column, or a separated logistic fit); the line search checks the
      # true objective, so the fixed point is unchanged
      diag(h) <- diag(h) + 1e-12 * (1 + max(diag(h)))
      bn <- .Call(C_dpsco_quad_lasso, h, g, b, opts)
      dir <- bn - b
      if (!all(is.finite(dir))) overflow_error()
      if (max(abs(dir)) == 0) break
      mv <- newton_move(b, bn, g, f, function(v) penalty(v, lam),
                        function(v) {
                          e <- off + drop(z %*% v)
                          list(eta = e, f = objective(e, v, lam))
                        })
      b <- mv$b
      eta <- mv$eta
      f <- mv$f
      if (mv$done) break
    }
    out[, l] <- b
  }
  list(beta = out, trace = NULL)
}

# The multinomial baseline: proximal Newton on all classes at once, with
# the exact Hessian, blocks sum_i w_i (delta_kl p_ik - p_ik p_il) z_i z_i' / n
# (singular along the shift of every class alike, on which the loss does
# not depend; the penalty and the tiny ridge settle it), and the line
# search on the penalised objective of converged_path().
converged_multinomial <- function(x, y, settings, lambda, beta0, fam) {
  if (identical(settings$grouped, 1L))
    arg_error("type.multinomial", "= \"grouped\" is fitted by the private ",
              "paths and by method = \"none\" with `iterations` given; the ",
              "converged baseline solves the ungrouped lasso.")
  K <- settings$nclass
  intercept <- settings$intercept == 1L
  # a lasso is solved on centred columns of unit sd with its penalty
  # factors divided by the sds: the same minimiser in the other
  # coordinates (the intercept takes the centres), found in far fewer
  # steps on correlated, unscaled columns
  sc <- list(centre = rep(0, ncol(x)), scale = rep(1, ncol(x)))
  if (settings$alpha == 1 && intercept) {
    sc$centre <- colMeans(x)
    sds <- sqrt(colMeans(x^2) - sc$centre^2)
    sc$scale <- ifelse(sds > 1e-12 * pmax(1, abs(sc$centre)), sds, 1)
    x <- (x - rep(sc$centre, each = nrow(x))) / rep(sc$scale, each = nrow(x))
    settings$penalty_factor <- settings$penalty_factor / sc$scale
    if (!is.null(settings$lower_limits))
      settings$lower_limits <- settings$lower_limits * sc$scale
    if (!is.null(settings$upper_limits))
      settings$upper_limits <- settings$upper_limits * sc$scale
  }
  to_scaled <- function(b) {
    b <- matrix(b, ncol(x) + intercept)
    if (intercept) {
      b[1L, ] <- b[1L, ] + colSums(b[-1L, , drop = FALSE] * sc$centre)
      b[-1L, ] <- b[-1L, , drop = FALSE] * sc$scale
    }
    as.vector(b)
  }
  from_scaled <- function(b) {
    b <- matrix(b, ncol(x) + intercept)
    if (intercept) {
      b[-1L, ] <- b[-1L, , drop = FALSE] / sc$scale
      b[1L, ] <- b[1L, ] - colSums(b[-1L, , drop = FALSE] * sc$centre)
    }
    as.vector(b)
  }
  beta0 <- to_scaled(beta0)
  z <- if (intercept) cbind(rep(1, nrow(x)), x) else x
  n <- settings$m / settings$rate
  d <- ncol(z)
  pen <- c(if (intercept) 0, settings$penalty_factor)
  alpha <- settings$alpha
  wts <- settings$weights %||% rep(1, nrow(z))
  ind <- class_indicators(y, K)
  block <- function(k) (k - 1L) * d + seq_len(d)
  penalty <- function(B, lam)
    lam * sum(pen * (alpha * abs(B) + (1 - alpha) * B^2 / 2))
  objective <- function(eta, B, lam)
    sum(wts * fam$loss(eta, y)) / n + penalty(B, lam)
  B <- matrix(as.double(beta0), d, K)
  out <- matrix(0, d * K, length(lambda))
  for (l in seq_along(lambda)) {
    lam <- lambda[l]
    # every coordinate through its penalty factor (0: the intercepts)
    opts <- c(lam, alpha, 0, rep(pen, K),
              box_limits(settings, K, intercept))
    eta <- z %*% B
    f <- objective(eta, B, lam)
    for (it in seq_len(baseline_maxit)) {
      pr <- softmax_rows(eta)
      g <- as.vector(crossprod(z, wts * (pr - ind))) / n
      h <- matrix(0, d * K, d * K)
      for (k in seq_len(K)) for (j in k:K) {
        hk <- crossprod(z, z * (wts * pr[, k] * ((k == j) - pr[, j]))) / n
        h[block(k), block(j)] <- hk
        h[block(j), block(k)] <- t(hk)
      }
      diag(h) <- diag(h) + 1e-12 * (1 + max(diag(h)))
      b <- as.vector(B)
      bn <- .Call(C_dpsco_quad_lasso, h, g, b, opts)
      dir <- bn - b
      if (!all(is.finite(dir))) overflow_error()
      if (max(abs(dir)) == 0) break
      mv <- newton_move(b, bn, g, f, function(v) penalty(v, lam),
                        function(v) {
                          e <- z %*% matrix(v, d, K)
                          list(eta = e, f = objective(e, v, lam))
                        })
      B <- matrix(mv$b, d, K)
      eta <- mv$eta
      f <- mv$f
      if (mv$done) break
    }
    # a coefficient below the solver's accuracy on unit-sd columns is a
    # rounding at the penalty's kink (at lambda_max above all), not one
    # that entered the model
    B[abs(B) < 1e-10 & pen > 0] <- 0
    out[, l] <- from_scaled(B)
  }
  list(beta = out, trace = NULL)
}
