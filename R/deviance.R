#' Deviance and number of records of a private fit
#'
#' glmnet's `deviance()` gives, for every lambda, the deviance of the fit
#' on its training data.  For a private fit that number is a statistic of
#' the data computed without noise: releasing it would spend privacy that
#' no budget covered (with many lambdas it can reveal a record).  So
#' `deviance()` of a `dpsco` fit needs data given by the user: it computes
#' the deviance of the released path on `newx`, `newy` (post-processing of
#' the released coefficients; on held-out data it costs nothing, and on
#' the training data it is the user's own, unaccounted, use of the data).
#' Called without them it is an error that says so.  A privately chosen
#' penalty and a noisy validation curve within the budget come from
#' [cv.dpsco()].
#'
#' The deviance is twice the summed loss of the family: the residual sum
#' of squares for `"gaussian"`, the binomial deviance
#' `-2 sum log-likelihood` for `"binomial"` and twice the summed check
#' loss (unsmoothed) for `"quantile"` (and the Poisson deviance for a
#' `"poisson"` fit).  For a `"multinomial"` fit it is
#' `-2 sum log p_(y_i)`, `p_(y_i)` the probability the model gives record
#' `i`'s class; `newy` is then a factor with the fit's classes as its
#' levels.
#'
#' `nobs()` is the public number of records `n` (`public_n`), the size at
#' which the guarantee is stated and every divisor of the fit is taken, not
#' a count of the rows.
#'
#' @param object a `dpsco` fit (or, for `nobs()`, a `cv.dpsco` object).
#' @param newx,newy predictors and response of the records to evaluate, as
#'   `x` and `y` of [dpsco()] (a formula fit also takes a data frame as
#'   `newx`, with the response in its column).
#' @param s penalties (or radii) at which to evaluate; default the whole
#'   path.
#' @param newoffset offsets of the new records, for a fit made with an
#'   offset, as in [predict.dpsco()]; for a formula fit evaluated on a data
#'   frame, only the part of the `offset` argument (the formula's
#'   `offset()` terms are computed from the data frame, see
#'   [predict.dpsco_formula()]).
#' @param weights (optional) non-negative weights of the new records, on
#'   any scale: the deviance is then the weighted sum of the records'
#'   deviances (your own weighting of the evaluation, as glmnet's
#'   `weights`; not a privacy setting).
#' @param ... not used.
#' @return `deviance()`: one deviance per value of the path (or of `s`).
#'   `nobs()`: a number.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(400 * 5), 400, 5)
#' y <- drop(x %*% c(1, -1, 0, 0, 0)) + rnorm(400)
#' fit <- dpsco(x[1:300, ], y[1:300], epsilon = 1, nlambda = 5)
#' deviance(fit, newx = x[301:400, ], newy = y[301:400])
#' nobs(fit)
#' @importFrom stats deviance
#' @export
deviance.dpsco <- function(object, newx, newy, s = NULL, newoffset = NULL,
                           weights = NULL, ...) {
  check_no_dots(list(...), "deviance")
  from_frame <- !missing(newx) && inherits(object, "dpsco_formula") &&
    is.data.frame(newx)
  if (missing(newx) || (missing(newy) && !from_frame)) {
    cond <- structure(
      class = c("dpsco_error", "error", "condition"),
      list(message = paste0(
        "the deviance of a private fit on its training data is not ",
        "released: it is a noise-free statistic of the data outside the ",
        "privacy budget.  Give held-out data, deviance(fit, newx = , newy = ),",
        " for the deviance of the released path on them, or use cv.dpsco() ",
        "for a private validation curve."), call = user_call()))
    stop(cond)
  }
  path_deviance(object, eval_data(object, newx, if (!missing(newy)) newy,
                                   newoffset, weights), s)
}

# The deviance of the path (or at s) on checked evaluation data `ev`
# (eval_data()).
path_deviance <- function(object, ev, s = NULL) {
  eta <- stats::predict(matrix_fit(object), newx = ev$x, s = s,
                        type = "link", newoffset = ev$offset)
  dev <- if (is.null(ev$weights)) ev$family$deviance(eta, ev$y)
         else colSums(ev$weights * record_deviance(ev$family, eta, ev$y))
  # one value per penalty, the last dimension of eta (a multinomial's
  # n x K x s array, the others' n x s matrix)
  stats::setNames(dev, dimnames(eta)[[length(dim(eta))]])
}

# The user's evaluation data for a fit, checked: the design `x`, the
# response `y` coded as the family's (0/1, classes 0 to K - 1), the offsets
# and the weights (non-negative, any scale: they weigh the user's own
# evaluation, not a fit), and the family object.  A formula fit also takes
# a data frame as newx, its response read from it when newy is NULL.
eval_data <- function(object, newx, newy, newoffset = NULL, weights = NULL) {
  if (inherits(object, "dpsco_formula") && is.data.frame(newx)) {
    if (is.null(newy))
      newy <- stats::model.response(stats::model.frame(
        object$terms, newx, xlev = object$xlevels))
    nd <- formula_newdata(object, newx, newoffset)
    newx <- nd$x
    newoffset <- nd$offset
  }
  if (is.null(newy)) arg_error("newy", "is needed with newx.")
  fam <- fit_family(object)
  newx <- check_design(newx, "newx", min_rows = 1L)
  yy <- check_y(newy, nrow(newx), fam)
  if (!is.null(yy$classnames) && !is.null(object$classnames) &&
      is.factor(newy) && !identical(yy$classnames, object$classnames))
    arg_error("newy", "has classes ", paste(yy$classnames, collapse = ", "),
              " but the fit has ", paste(object$classnames, collapse = ", "),
              ".")
  list(x = newx, y = yy$y, offset = newoffset, family = fam,
       weights = check_eval_weights(weights, nrow(newx)))
}

# Evaluation weights: non-negative numbers, one per record, not all 0.
check_eval_weights <- function(weights, n) {
  if (is.null(weights)) return(NULL)
  if (!is.numeric(weights) || length(weights) != n || anyNA(weights) ||
      any(!is.finite(weights)) || any(weights < 0) || !any(weights > 0))
    arg_error("weights", "must be ", n, " finite non-negative numbers, one ",
              "per row of newx, not all 0.")
  as.double(weights)
}

# Each record's deviance (n x K; the terms family$deviance() sums), the
# family's record_deviance(): twice the family's loss, the Poisson unit
# deviance for poisson; for a multinomial eta, from the n x classes x K
# array.
record_deviance <- function(fam, eta, y) fam$record_deviance(eta, y)

# The deviance of the intercept-only model fitted to the evaluation data
# itself (beside their offsets), as glmnet's null deviance: the family's
# null_eta() (the weighted mean by glm.fit with the offsets, the class
# shares, or the weighted tau-quantile of y - offset).
null_deviance <- function(fam, y, weights = NULL, offset = NULL) {
  w <- weights %||% rep(1, length(y))
  sum(w * record_deviance(fam, fam$null_eta(y, w, offset), y))
}

# The fraction of deviance explained on the evaluation data, per value of
# the path: 1 - deviance / null deviance (glmnet's dev.ratio, there on the
# training data).  The user's own computation on data they pass.
dev_fraction <- function(object, newx, newy, newoffset = NULL,
                         weights = NULL) {
  ev <- eval_data(object, newx, newy, newoffset, weights)
  1 - path_deviance(object, ev) /
    null_deviance(ev$family, ev$y, ev$weights, ev$offset)
}

#' @rdname deviance.dpsco
#' @importFrom stats nobs
#' @export
nobs.dpsco <- function(object, ...) {
  check_no_dots(list(...), "nobs")
  object$privacy$public_n %||% object$nobs
}

#' @rdname deviance.dpsco
#' @export
nobs.cv.dpsco <- function(object, ...) {
  check_no_dots(list(...), "nobs")
  object$privacy$public_n
}

# Per-record losses (n_val x K) of fitted means or probabilities `pred`;
# `family` the fit's family (an object or its name): the measures that are
# the family's own (its measure_loss: the deviance, the misclassification)
# come from it.  For "multinomial", pred is the n_val x classes x K array
# of probabilities and y the classes coded 0 to classes - 1.
record_loss <- function(measure, y, pred, tau = 0.5, family = "binomial") {
  own <- family_object(family)$measure_loss[[measure]]
  if (!is.null(own)) return(own(y, pred))
  switch(measure,
    check = check_loss(y - pred, tau),
    mse = (y - pred)^2,
    mae = abs(y - pred))
}

# The per-record losses as the selection and the curve sum them: clamped
# to [0, bound] by the NaN rule (clamp.R), a loss that is not a number
# (an overflowing prediction) counting as the bound.  `family` as in
# record_loss().
clamped_loss <- function(measure, y, pred, tau, family, bound,
                         y_range = NULL) {
  if (!is.null(y_range)) y <- clamp(y, y_range[1L], y_range[2L])
  clamp(record_loss(measure, y, pred, tau, family), 0, bound, nan = bound)
}
