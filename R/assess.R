#' Assess a fit on your data: glmnet's assess, confusion and ROC helpers
#'
#' The counterparts of glmnet's `assess.glmnet()`, `confusion.glmnet()` and
#' `roc.glmnet()`, with their return shapes and names.  They evaluate the
#' released path on the data you pass (typically a test set): their values
#' are your own computation on your data, not private outputs, and cost
#' nothing from the fit's budget; on the training data they are your own,
#' unaccounted, use of it.  A private fit cannot assess itself on its
#' training data (there is no default data), and a private validation
#' curve within the budget comes from [cv.dpsco()].
#'
#' `assess.dpsco()` returns, as `assess.glmnet()`, a list of measures, each
#' a vector with one (weighted) mean over the records per value of `s`
#' (named as the columns of [predict.dpsco()]) and an attribute `"measure"`
#' naming it:
#' \describe{
#'   \item{gaussian}{`mse`, `mae`;}
#'   \item{binomial}{`deviance`, `class` (misclassification), `auc`, `mse`,
#'     `mae`;}
#'   \item{poisson}{`deviance`, `mse`, `mae`;}
#'   \item{multinomial}{`deviance`, `class`, `mse`, `mae`;}
#'   \item{quantile}{`check` (the check loss of the residual), `mae`.}
#' }
#' The formulas are glmnet's: the deviance of a class probability kept in
#' `[1e-5, 1 - 1e-5]`, the binomial `mse` and `mae` summed over the two
#' classes' indicators (twice `(y - p)^2` and `|y - p|`), the multinomial
#' ones over the classes, and `auc` the (weighted) probability that a
#' record of the second class has a higher prediction than one of the
#' first, ties counting half.
#'
#' `confusion.dpsco()` returns the table of predicted by true class (a
#' list of them, named by `s`, for several `s`), printed with its totals
#' and the fraction correct, as `confusion.glmnet()`.  `roc.dpsco()`
#' returns a data frame of `FPR` and `TPR` (a list for several `s`), the
#' ROC curve of a binomial fit's predictions, as `roc.glmnet()`.
#'
#' These functions are not S3 methods (there is no generic `assess`), as
#' in glmnet; call them by their full names.
#'
#' @param object a `dpsco` fit, a `cv.dpsco` object (then at `lambda.min`
#'   unless `s` says otherwise), or, as in glmnet, a matrix of link
#'   predictions (for a multinomial model an `n` x classes x `length(s)`
#'   array) with `family`.
#' @param newx predictors of the records to evaluate on, as in
#'   [predict.dpsco()] (a formula fit also takes a data frame); not used
#'   for a matrix of predictions.
#' @param newy their response, as `y` of [dpsco()] (a factor with the fit's
#'   classes for a multinomial fit).
#' @param s penalties (or radii) at which to evaluate; default the whole
#'   path (`"lambda.min"` for a `cv.dpsco` object).
#' @param weights (`assess.dpsco()`) optional non-negative weights of the
#'   records in the means.
#' @param newoffset offsets of the records, for a fit made with an offset.
#' @param family the family of a matrix of predictions: `"gaussian"`,
#'   `"binomial"`, `"poisson"`, `"multinomial"` or `"quantile"` (and
#'   `tau`, see below); not used with a fit.
#' @param tau the quantile level of a matrix of `"quantile"` predictions.
#' @param x a `dpsco_confusion` table.
#' @param digits significant digits.
#' @param ... not used.
#' @return `assess.dpsco()`: a named list of measures.  `confusion.dpsco()`:
#'   a table of class `c("dpsco_confusion", "confusion.table", "table")`,
#'   or a list of them.  `roc.dpsco()`: a data frame, or a list of them.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(600 * 4), 600, 4)
#' y <- rbinom(600, 1, plogis(drop(x %*% c(2, -1, 0, 0))))
#' fit <- dpsco(x[1:400, ], y[1:400], family = "binomial", epsilon = 1,
#'              nlambda = 5)
#' test <- 401:600
#' assess.dpsco(fit, newx = x[test, ], newy = y[test])
#' confusion.dpsco(fit, newx = x[test, ], newy = y[test], s = fit$lambda[5])
#' head(roc.dpsco(fit, newx = x[test, ], newy = y[test], s = fit$lambda[5]))
#' @name assess.dpsco
NULL

#' @rdname assess.dpsco
#' @export
assess.dpsco <- function(object, newx = NULL, newy, s = NULL, weights = NULL,
                         newoffset = NULL, family = NULL, tau = 0.5, ...) {
  check_no_dots(list(...), "assess.dpsco")
  ev <- eval_predictions(object, newx, newy, s, newoffset, family, tau)
  w <- check_eval_weights(weights, length(ev$y)) %||% rep(1, length(ev$y))
  fam <- ev$family
  measures <- fam$assess_measures
  out <- lapply(measures, function(m) {
    raw <- if (m == "auc") NULL else record_measure(m, fam, ev$eta, ev$y)
    v <- if (m == "auc") apply(ev$eta, 2L, weighted_auc, y = ev$y, w = w)
         else colSums(w * raw) / sum(w)
    names(v) <- dimnames(ev$eta)[[length(dim(ev$eta))]]
    structure(v, measure = measure_title(m, fam))
  })
  stats::setNames(out, measures)
}

# The "measure" attribute, glmnet's names.
measure_title <- function(m, fam) {
  switch(m, mse = "Mean-Squared Error", mae = "Mean Absolute Error",
         class = "Misclassification Error", auc = "AUC",
         check = "Check Loss",
         deviance = sub(" deviance$", " Deviance", fam$deviance_label))
}

# Each record's measure (n x s) from the link predictions eta (n x s;
# multinomial n x K x s) and y coded as check_y() codes it, by glmnet's
# formulas.
record_measure <- function(m, fam, eta, y) {
  if (fam$multi) return(multinomial_measure(m, eta, y))
  if (m == "check") return(check_loss(y - eta, fam$tau))
  mu <- fam$inverse_link(eta)
  if (fam$classes) {
    # glmnet sums over both classes' indicators
    pc <- pmin(pmax(mu, 1e-5), 1 - 1e-5)
    return(switch(m, mse = 2 * (y - mu)^2, mae = 2 * abs(y - mu),
                  deviance = -2 * (y * log(pc) + (1 - y) * log1p(-pc)),
                  class = y * (mu <= 0.5) + (1 - y) * (mu > 0.5)))
  }
  switch(m, mse = (y - mu)^2, mae = abs(y - mu),
         deviance = poisson_deviance(y, mu))
}

# The multinomial measures: the softmax per s, the indicator of y's class.
multinomial_measure <- function(m, eta, y) {
  n <- dim(eta)[1L]
  K <- dim(eta)[2L]
  Y <- diag(K)[y + 1L, , drop = FALSE]
  vapply(seq_len(dim(eta)[3L]), function(j) {
    p <- softmax_rows(matrix(eta[, , j], n, K))
    switch(m, mse = rowSums((Y - p)^2), mae = rowSums(abs(Y - p)),
           deviance = -2 * log(pmin(pmax(p[cbind(seq_len(n), y + 1L)], 1e-5),
                                    1 - 1e-5)),
           class = as.double(max.col(p, ties.method = "first") != y + 1L))
  }, numeric(n))
}

# The weighted AUC of predictions `pred` for 0/1 `y`: the weight of the
# (second-class, first-class) pairs ordered correctly, ties counting half,
# over the weight of all such pairs.
weighted_auc <- function(pred, y, w) {
  lev <- sort(unique(pred))
  at <- match(pred, lev)
  neg <- tabulate_weights(at[y == 0], w[y == 0], length(lev))
  pos <- tabulate_weights(at[y == 1], w[y == 1], length(lev))
  below <- cumsum(neg) - neg
  sum(pos * (below + neg / 2)) / (sum(pos) * sum(neg))
}
tabulate_weights <- function(bin, w, nbins) {
  vapply(split(w, factor(bin, levels = seq_len(nbins))), sum, 0)
}

#' @rdname assess.dpsco
#' @export
confusion.dpsco <- function(object, newx = NULL, newy, s = NULL,
                            newoffset = NULL, family = NULL, ...) {
  check_no_dots(list(...), "confusion.dpsco")
  ev <- eval_predictions(object, newx, newy, s, newoffset, family)
  if (!ev$family$classes && !ev$family$multi)
    arg_error("object", "must be a binomial or multinomial fit (or such ",
              "predictions) for a confusion table.")
  cls <- ev$classnames
  truth <- factor(cls[ev$y + 1L], levels = cls)
  ns <- dim(ev$eta)[length(dim(ev$eta))]
  tabs <- lapply(seq_len(ns), function(j) {
    pred <- if (ev$family$multi)
      max.col(matrix(ev$eta[, , j], dim(ev$eta)[1L]), ties.method = "first")
      else (ev$eta[, j] > 0) + 1L
    tab <- table(Predicted = factor(cls[pred], levels = cls), True = truth)
    class(tab) <- c("dpsco_confusion", "confusion.table", class(tab))
    tab
  })
  if (ns == 1L) return(tabs[[1L]])
  stats::setNames(tabs, dimnames(ev$eta)[[length(dim(ev$eta))]])
}

#' @rdname assess.dpsco
#' @export
print.dpsco_confusion <- function(x, digits = max(3, getOption("digits") - 3),
                                  ...) {
  # glmnet's layout: the totals, then the fraction correct
  tab <- unclass(x)
  total <- sum(tab)
  full <- rbind(cbind(tab, Total = rowSums(tab)),
                Total = c(colSums(tab), total))
  names(dimnames(full)) <- names(dimnames(x))
  print(full, digits = digits)
  cat("\n Percent Correct: ", format(round(sum(diag(tab)) / total, digits)),
      "\n")
  invisible(x)
}

#' @rdname assess.dpsco
#' @export
roc.dpsco <- function(object, newx = NULL, newy, s = NULL, newoffset = NULL,
                      ...) {
  check_no_dots(list(...), "roc.dpsco")
  ev <- eval_predictions(object, newx, newy, s, newoffset, "binomial")
  if (!ev$family$classes || ev$family$multi)
    arg_error("object", "must be a binomial fit (or binomial predictions) ",
              "for an ROC curve.")
  out <- lapply(seq_len(ncol(ev$eta)), function(j) roc_curve(ev$eta[, j], ev$y))
  if (length(out) == 1L) return(out[[1L]])
  stats::setNames(out, colnames(ev$eta))
}

# The ROC curve as glmnet's roc.glmnet() draws it: the records by
# decreasing prediction, tied predictions as one step.
roc_curve <- function(pred, y) {
  o <- order(pred, decreasing = TRUE)
  pred <- pred[o]
  y <- y[o]
  noty <- 1 - y
  if (anyDuplicated(pred)) {
    y <- rev(tapply(y, pred, sum))
    noty <- rev(tapply(noty, pred, sum))
  }
  data.frame(FPR = unname(cumsum(noty) / sum(noty)),
             TPR = unname(cumsum(y) / sum(y)))
}

# The link predictions `eta` (n x s; multinomial n x K x s), the family,
# y coded (0/1; classes 0 to K - 1) and the class names of the helpers'
# `object`: a fit evaluated on newx (a cv.dpsco object at its choice), or
# a matrix of predictions of `family`.
eval_predictions <- function(object, newx, newy, s, newoffset,
                             family = NULL, tau = 0.5) {
  if (missing(newy))
    arg_error("newy", "is needed: the response of the records to evaluate ",
              "on.")
  if (inherits(object, "cv.dpsco")) {
    s <- cv_s(object, cv_min_alias(object, s))
    object <- object$dpsco.fit
  }
  if (inherits(object, "dpsco")) {
    if (is.null(newx))
      arg_error("newx", "is needed: a private fit is evaluated on data you ",
                "pass (typically a test set); its training data are not ",
                "part of it.")
    ev <- eval_data(object, newx, newy, newoffset)
    eta <- stats::predict(matrix_fit(object), newx = ev$x, s = s,
                          type = "link", newoffset = ev$offset)
    return(list(eta = eta, y = ev$y, family = ev$family,
                classnames = object$classnames))
  }
  if (!is.numeric(object) || length(dim(object)) > 3L)
    arg_error("object", "must be a dpsco or cv.dpsco fit, or a numeric ",
              "matrix of link predictions.")
  family <- match_choice(family, "family", family_choices)
  eta <- if (is.null(dim(object))) matrix(object) else object
  fam <- family_object(family, list(tau = tau, nclass = dim(eta)[2L]))
  if (fam$multi && length(dim(eta)) == 2L)
    eta <- array(eta, c(dim(eta), 1L), c(dimnames(eta), list(NULL)))
  if (fam$multi != (length(dim(eta)) == 3L))
    arg_error("object", "must be an n x classes x s array for the ",
              "multinomial family and a matrix otherwise.")
  yy <- check_y(newy, nrow(eta), fam)
  list(eta = eta, y = yy$y, family = fam, classnames = yy$classnames)
}
