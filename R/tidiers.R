#' Tidy summaries of private fits
#'
#' Methods of the `generics` `tidy()`, `glance()` and `augment()` (the
#' broom verbs), with broom's column names for glmnet objects where they
#' carry over.  Everything they show is released (the coefficient path,
#' the privacy record, the noisy validation curve of [cv.dpsco()]) or
#' public, so they cost no privacy.  Columns of glmnet's tidiers that are
#' statistics of the training data (`dev.ratio`, `nulldev`) have no private
#' counterpart and are left out.
#'
#' `tidy(<dpsco>)`: one row per non-zero coefficient and path value:
#' `term`, `step` (the index along the path), `estimate`, and `lambda` (or
#' `radius` for a constraint-set method).
#'
#' For a multinomial fit `tidy()` has a first column `class` (as broom's
#' `tidy()` of a glmnet multinomial fit), one row per class, term and
#' path value, and `augment()` gives `.fitted`, the predicted class (a
#' factor with the fit's classes), and the class probabilities in columns
#' `.pred_<class>`; it has no `.resid` (a given `newy` is only checked).
#'
#' `glance(<dpsco>)`: one row: `nobs` (the public number of records),
#' `npasses` (the optimiser's steps over the whole path: steps per lambda
#' times lambdas for a penalised path, the privacy record's `steps` for a
#' constraint-set method), `epsilon`, `delta` (the target), `epsilon_accounted` (the
#' accountant's epsilon for the whole path, `Inf` for `method = "none"`),
#' `privacy_status` (`"covered"`, `"not covered"` or `"not private"`: the
#' status every display states, see [privacy()]), `method` and `family`.
#'
#' `augment(<dpsco>)`: `newx` (or `newdata` for a formula fit) with the
#' prediction `.fitted` at one penalty `s` (type `"response"`), and the
#' residual `.resid` when `newy` is given.  There is no default data: the
#' training data are not part of the fit.
#'
#' `augment(<cv.dpsco>)`: as `augment(<dpsco>)` of the fit on the training
#' part (`x$dpsco.fit`), at the private choice `lambda.min` (`radius.min`)
#' unless `s` says otherwise: the same `.fitted`, `.resid` and, for a
#' multinomial fit, `.pred_<class>` columns, from `predict(x, newx, s =
#' s, type = "response")`.  Your own evaluation on data you pass, not a
#' private output.
#'
#' `tidy(<cv.dpsco>)`: one row per path value: `lambda` (or `radius`),
#' `estimate` (the noisy validation curve `cvm`), `noise.sd` (the
#' standard deviation of the noise added to it, `cvsd`), `noise.low`,
#' `noise.high` (`cvlo`, `cvup`: the estimate minus and plus one noise sd,
#' kept in `[0, loss_bound]`; a band of the release noise, not a confidence
#' interval, hence not broom's `std.error`, `conf.low`, `conf.high`) and
#' `nzero`; the curve columns are `NA` when no curve was released
#' (`curve = 0`).  `glance(<cv.dpsco>)`:
#' `lambda.min` (the private choice), `nobs`, `epsilon`, `delta`,
#' `epsilon_accounted`, `privacy_status`.
#'
#' `tidy()` of a parsnip fit or a workflow with the `"dpsco"` engine
#' ([dpsco_parsnip]): parsnip's table, as for its glmnet engine: `term`,
#' `estimate` (every coefficient, zeros included) and `penalty`, at the
#' fitted penalty (the engine's `penalty`, or `lambda.min` of the
#' engine's private choice when `penalty` is unset); with `conf.int =
#' TRUE`, the inference table of a fit made with `inference = TRUE`.
#'
#' The privacy status is a property of the whole fit, so it is a column of
#' `glance()` only: `tidy()` has one row per coefficient (or per path
#' value), and a column repeating the fit's status on each row, or an
#' attribute that the first data-frame operation drops, would break the
#' one-row-per-component form that broom's `tidy()` keeps.
#'
#' @param x a `dpsco` or `cv.dpsco` object (or an engine's fit inside a
#'   parsnip fit).
#' @param return_zeros keep the zero coefficients?
#' @param conf.int (tidy) `TRUE` for the coefficient table of a fit made
#'   with `inference = TRUE` (a `cv.dpsco` fit: with `inference = TRUE`
#'   or `"selected"`) instead of the path: term, estimate,
#'   std.error (with its sampling and privacy parts), statistic, p.value,
#'   conf.low and conf.high (Wald; see [confint.dpsco()]).
#' @param conf.level (tidy) the level of those intervals.
#' @param newx,newy (augment) predictors, and optionally the response, of
#'   the records to augment.
#' @param newdata (augment, formula fits) a data frame instead of `newx`.
#' @param newoffset (augment) offsets of the records, for a fit made with
#'   an offset, as in [predict.dpsco()] (with `newdata`, as in
#'   [predict.dpsco_formula()]).
#' @param s (augment) one penalty (or radius); for a `dpsco` fit default
#'   the smallest penalty of the path (the last value), for a `cv.dpsco`
#'   object `"lambda.min"`, the private choice, as in [coef.cv.dpsco()].
#' @param ... not used.
#' @return A data frame.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(300 * 4), 300, 4)
#' y <- drop(x %*% c(1, -1, 0, 0)) + rnorm(300)
#' fit <- dpsco(x, y, epsilon = 1, nlambda = 4)
#' tidy(fit)
#' glance(fit)
#' head(augment(fit, newx = x, newy = y, s = fit$lambda[4]))
#' @name dpsco_tidiers
NULL

#' @importFrom generics tidy
#' @export
generics::tidy

#' @importFrom generics glance
#' @export
generics::glance

#' @importFrom generics augment
#' @export
generics::augment

#' @rdname dpsco_tidiers
#' @exportS3Method tidy dpsco
tidy.dpsco <- function(x, return_zeros = FALSE, conf.int = FALSE,
                       conf.level = 0.95, ...) {
  check_no_dots(list(...), "tidy")
  if (!is.logical(return_zeros) || length(return_zeros) != 1L ||
      is.na(return_zeros))
    arg_error("return_zeros", "must be TRUE or FALSE.")
  if (!is.logical(conf.int) || length(conf.int) != 1L || is.na(conf.int))
    arg_error("conf.int", "must be TRUE or FALSE.")
  if (conf.int) return(tidy_inference(x, conf.level))
  axis <- path_axis(x)
  b <- rbind(`(Intercept)` = x$a0, x$beta)
  if (!x$intercept) b <- b[-1L, , drop = FALSE]
  k <- ncol(b)
  out <- data.frame(term = rep(rownames(b), k),
                    step = rep(seq_len(k), each = nrow(b)),
                    estimate = as.vector(b),
                    stringsAsFactors = FALSE)
  out[[axis$name]] <- rep(axis$values, each = nrow(b))
  if (!return_zeros) out <- out[out$estimate != 0, , drop = FALSE]
  rownames(out) <- NULL
  out
}

# tidy(conf.int = TRUE): the inference stage's table with its intervals.
tidy_inference <- function(x, conf.level) {
  inf <- fit_inference(x)
  tab <- inference_table(inf)
  ci <- suppressWarnings(confint.dpsco(x, level = conf.level))
  data.frame(term = inf$names, estimate = tab$Estimate,
             std.error = tab$`Std. Error`, std.error.sampling = tab$sampling,
             std.error.privacy = tab$privacy, statistic = tab$`z value`,
             p.value = tab$`Pr(>|z|)`, conf.low = unname(ci[, 1L]),
             conf.high = unname(ci[, 2L]), row.names = NULL,
             stringsAsFactors = FALSE)
}

# tidy() of a parsnip fit or a workflow with the "dpsco" engine (its fit
# of class dpsco_engine, R/parsnip.R): parsnip's table at the fitted
# penalty, as the glmnet engine's, or the intervals with conf.int = TRUE.
#' @rdname dpsco_tidiers
#' @exportS3Method tidy dpsco_engine
tidy.dpsco_engine <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  check_no_dots(list(...), "tidy")
  fit <- x
  class(fit) <- setdiff(class(x), "dpsco_engine")
  if (isTRUE(conf.int)) return(generics::tidy(fit, conf.int = TRUE,
                                              conf.level = conf.level))
  cv <- inherits(fit, "cv.dpsco")
  if (inherits(if (cv) fit$dpsco.fit else fit, "dpsco_multinomial"))
    return(generics::tidy(fit))
  b <- if (cv) stats::coef(fit) else stats::coef(fit, s = NULL)
  b <- b[, ncol(b)]
  if (!isTRUE((if (cv) fit$dpsco.fit else fit)$intercept))
    b <- b[names(b) != "(Intercept)"]
  data.frame(term = names(b), estimate = unname(b),
             penalty = if (cv) fit$lambda.min else fit$lambda[length(fit$lambda)],
             stringsAsFactors = FALSE)
}

#' @rdname dpsco_tidiers
#' @exportS3Method tidy dpsco_multinomial
tidy.dpsco_multinomial <- function(x, return_zeros = FALSE, ...) {
  check_no_dots(list(...), "tidy")
  parts <- lapply(seq_along(x$classnames), function(k) {
    tk <- tidy.dpsco(class_path(x, k), return_zeros = return_zeros)
    cbind(class = rep(x$classnames[k], nrow(tk)), tk,
          stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, parts)
  rownames(out) <- NULL
  out
}

#' @rdname dpsco_tidiers
#' @exportS3Method glance dpsco
glance.dpsco <- function(x, ...) {
  check_no_dots(list(...), "glance")
  pr <- x$privacy
  steps <- if (!is.null(pr$nlambda) && !is.null(pr$steps))
             as.double(pr$steps) * pr$nlambda
           else as.double(pr$steps %||% NA)
  data.frame(nobs = pr$public_n %||% x$nobs, npasses = steps,
             epsilon = pr$epsilon, delta = pr$delta,
             epsilon_accounted = pr$epsilon_accounted %||% Inf,
             privacy_status = privacy_status(pr)$status,
             method = x$method, family = x$family,
             stringsAsFactors = FALSE)
}

#' @rdname dpsco_tidiers
#' @exportS3Method augment dpsco
augment.dpsco <- function(x, newx, newy = NULL, newdata = NULL, s = NULL,
                          newoffset = NULL, ...) {
  check_no_dots(list(...), "augment")
  vals <- path_values(x)
  s <- s %||% vals[length(vals)]
  if (!is.numeric(s) || length(s) != 1L)
    arg_error("s", "must be one penalty value.")
  if (!is.null(newdata)) {
    if (!inherits(x, "dpsco_formula"))
      arg_error("newdata", "needs a fit of the formula method; give newx.")
    data <- newdata
    if (is.null(newy) && deparse(x$terms[[2L]]) %in% names(newdata))
      newy <- newdata[[deparse(x$terms[[2L]])]]
    nd <- formula_newdata(x, newdata, newoffset)
    newx <- nd$x
    newoffset <- nd$offset
  } else {
    if (missing(newx))
      arg_error("newx", "is needed: the training data are not part of a ",
                "private fit.")
    data <- as.data.frame(as.matrix(newx))
  }
  fit <- structure(x, class = setdiff(class(x), "dpsco_formula"))
  fam <- fit_family(x)
  if (inherits(fit, "dpsco_multinomial")) {
    prob <- matrix(stats::predict(fit, newx = newx, s = s, type = "response",
                                  newoffset = newoffset), nrow(data))
    # the first class of largest probability, as predict(type = "class")
    data$.fitted <- factor(x$classnames[max.col(prob, ties.method = "first")],
                           levels = x$classnames)
    for (k in seq_along(x$classnames))
      data[[paste0(".pred_", x$classnames[k])]] <- prob[, k]
    # (no residual of a class; a given newy is still checked)
    if (!is.null(newy)) check_y(newy, nrow(data), fam)
    return(data)
  }
  data$.fitted <- drop(stats::predict(fit, newx = newx, s = s,
                                      type = "response",
                                      newoffset = newoffset))
  if (!is.null(newy)) {
    yy <- check_y(newy, nrow(data), fam)
    data$.resid <- yy$y - data$.fitted
  }
  data
}

#' @rdname dpsco_tidiers
#' @exportS3Method augment cv.dpsco
augment.cv.dpsco <- function(x, newx, newy = NULL, newdata = NULL,
                             s = "lambda.min", newoffset = NULL, ...) {
  check_no_dots(list(...), "augment")
  s <- cv_s(x, cv_min_alias(x, if (!missing(s)) s))
  if (missing(newx))
    return(augment.dpsco(x$dpsco.fit, newy = newy, newdata = newdata, s = s,
                         newoffset = newoffset))
  augment.dpsco(x$dpsco.fit, newx, newy = newy, newdata = newdata, s = s,
                newoffset = newoffset)
}

#' @rdname dpsco_tidiers
#' @exportS3Method tidy cv.dpsco
tidy.cv.dpsco <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  check_no_dots(list(...), "tidy")
  if (!is.logical(conf.int) || length(conf.int) != 1L || is.na(conf.int))
    arg_error("conf.int", "must be TRUE or FALSE.")
  if (conf.int) return(tidy_inference(cv_inference_holder(x), conf.level))
  axis <- names(x)[1L]
  vals <- x[[1L]]
  na <- rep(NA_real_, length(vals))
  out <- data.frame(vals, estimate = x$cvm %||% na,
                    noise.sd = if (is.null(x$cvm)) na
                               else rep_len(x$cvsd, length(vals)),
                    noise.low = x$cvlo %||% na, noise.high = x$cvup %||% na,
                    nzero = as.integer(x$nzero))
  names(out)[1L] <- axis
  rownames(out) <- NULL
  out
}

#' @rdname dpsco_tidiers
#' @exportS3Method glance cv.dpsco
glance.cv.dpsco <- function(x, ...) {
  check_no_dots(list(...), "glance")
  pr <- x$privacy
  out <- data.frame(x[[paste0(names(x)[1L], ".min")]],
                    nobs = pr$public_n, epsilon = pr$epsilon,
                    delta = pr$delta,
                    epsilon_accounted = pr$epsilon_accounted %||% Inf,
                    privacy_status = privacy_status(pr)$status,
                    stringsAsFactors = FALSE)
  names(out)[1L] <- paste0(names(x)[1L], ".min")
  out
}
