# print / coef / predict / summary for "dpsco" fits.

# A method's label, from its registered object.
method_label <- function(method) method_spec(method)$label

# The family as print() names it, with the quantile level; the model as
# summary() names it.
family_label <- function(object) {
  lab <- fit_family(object)$label
  if (!inherits(object, "dpsco_multinomial")) return(lab)
  sprintf("%s (%d classes: %s)", lab, length(object$classnames),
          paste(object$classnames, collapse = ", "))
}
model_label <- function(object) fit_family(object)$model

# The path a fit runs over, by its class: penalties (decreasing) or, for
# the methods on radii, constraint radii (increasing).  `name` is the
# element of the fit that holds the values, `over` describes the path for
# print().
path_axis <- function(object) UseMethod("path_axis")

#' @exportS3Method
path_axis.dpsco_lambda <- function(object) {
  list(name = "lambda", label = "Lambda", values = object$lambda,
       increasing = FALSE,
       over = function(pr)
         if (isTRUE(pr$one_release))
           sprintf(", over %d lambdas from one release", pr$nlambda)
         else sprintf(", over %d lambdas x %d steps", pr$nlambda, pr$steps))
}

#' @exportS3Method
path_axis.dpsco_radius <- function(object) {
  list(name = "radius", label = "Radius", values = object$radius,
       increasing = TRUE,
       over = function(pr) sprintf(" over %d radii", pr$nradius))
}

path_values <- function(object) path_axis(object)$values

#' Print a dpsco fit
#'
#' One line per lambda with the number of non-zero coefficients (`Df`) and
#' the penalty, followed by the privacy spent by the whole path and the
#' privacy status (covered, not covered with what and how to fix it, or
#' not private; see [privacy()]).  For a
#' multinomial fit `Df` is, as in glmnet, the number of predictors with a
#' non-zero coefficient in any class (per class: `fit$dfmat`).  A
#' coefficient counts as non-zero when its magnitude exceeds `1e-10` times
#' the largest on the path (a Frank-Wolfe path leaves coordinates at
#' 1e-15 and below, zeros in every display).  Unlike
#' glmnet no deviance is shown: it would be a statistic of the data outside
#' the privacy budget.
#'
#' @param x a `dpsco` fit.
#' @param digits significant digits.
#' @param ... unused.
#' @return `x`, invisibly.
#' @export
print.dpsco <- function(x, digits = max(3, getOption("digits") - 3), ...) {
  cat("\nCall: ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  cat("Method: ", method_label(x$method), "; family: ", family_label(x),
      "\n", if (!is.null(x$settings$quantile))
        paste0("Loss: ", quantile_loss_text(x$settings$quantile), "\n"),
      "\n", sep = "")
  pa <- path_axis(x)
  tab <- data.frame(Df = x$df, signif(pa$values, digits))
  names(tab)[2L] <- pa$label
  rownames(tab) <- seq_len(nrow(tab))
  print(tab)
  if (inherits(x, "dpsco_multinomial"))
    cat("\nDf: the number of features with a non-zero coefficient in any",
        "class (as in glmnet);\nper class: fit$dfmat.\n")
  pr <- x$privacy
  if (pr$private)
    cat(sprintf(paste("\nPrivacy: target (epsilon, delta) = (%s, %s), accounted",
                      "epsilon %s%s, calibration \"%s\"\n"),
                format(signif(pr$epsilon, digits)), format(signif(pr$delta, digits)),
                format(signif(pr$epsilon_accounted, digits)), pa$over(pr),
                pr$calibration))
  else cat("\nPrivacy: none (epsilon = Inf)\n")
  if (!is.null(x$path_cost))
    cat(path_cost_line(x$path_cost), "\n", sep = "")
  cat(privacy_status(pr)$lines, sep = "\n")
  for (sig in c(y_range_text(x, x$nobs, pr$epsilon),
                signal_text(x$signal, x$nobs, pr$epsilon),
                inference_line(x$inference)))
    cat("\n", paste(strwrap(sig), collapse = "\n"), "\n", sep = "")
  invisible(x)
}

# What the grid size did to each step's noise (lambda_path()'s path_cost).
path_cost_line <- function(cost) {
  sprintf(paste("Path: %d penalties share the budget; each step's noise",
                "sd is %s x that of the default %d."),
          cost$nlambda, format(signif(cost$ratio, 3)), cost$default_nlambda)
}

# Coefficients (intercept first) at penalties s by linear interpolation in
# lambda between neighbouring fitted values, as glmnet does; s outside the
# fitted range takes the nearest end.  A radius path is increasing: it is
# read backwards.
interpolate_coef <- function(object, s) {
  b <- rbind(object$a0, object$beta)
  pa <- path_axis(object)
  lam <- pa$values
  if (pa$increasing) {
    b <- b[, rev(seq_along(lam)), drop = FALSE]
    lam <- rev(lam)
  }
  out <- if (length(lam) == 1L) {
    b[, rep(1L, length(s)), drop = FALSE]
  } else {
    s_in <- pmin(pmax(s, min(lam)), max(lam))
    # lam is decreasing: find left (larger) neighbour i with lam[i] >= s
    rl <- rev(lam)
    pos <- findInterval(s_in, rl, rightmost.closed = TRUE)
    left <- length(lam) + 1L - (pos + 1L)
    left <- pmin(pmax(left, 1L), length(lam) - 1L)
    right <- left + 1L
    w <- (s_in - lam[right]) / (lam[left] - lam[right])
    b[, left, drop = FALSE] %*% diag(w, length(s)) +
      b[, right, drop = FALSE] %*% diag(1 - w, length(s))
  }
  dimnames(out) <- list(c("(Intercept)", rownames(object$beta)), s_names(s))
  out
}

# The columns of coefficients and predictions at a given `s`: s1, s2, ...
# as glmnet names them (the fitted path's own columns, without `s`, are s0,
# s1, ... in both packages).
s_names <- function(s) paste0("s", seq_along(s))

#' Coefficients and predictions of a dpsco fit
#'
#' @param object a `dpsco` fit.
#' @param newx matrix of new predictors with the columns of the training `x`
#'   (a numeric data frame is converted with `as.matrix()`; one record needs
#'   `drop = FALSE`), a sparse `Matrix` or a file-backed `big.matrix`, read
#'   in blocks of rows.
#' @details `s` outside the fitted range, `Inf` included, takes the nearest
#'   end of the path; negative or missing `s` is an error.
#'
#'   **The model is linear in the clamped features.**  A fit with private
#'   (or declared) bounds on `x` saw each column clamped to
#'   `object$x_range`, and the coefficients are the slopes of the model in
#'   those clamped columns: `predict()` clamps `newx` the same way, so
#'   `predict(fit, newx, type = "link")` equals
#'   `cbind(1, clamp_x(fit, newx)) %*% coef(fit)`, not
#'   `cbind(1, newx) %*% coef(fit)`, for a record beyond the bounds.
#'   [clamp_x()] gives the features as the model sees them.
#' @param s penalties at which to evaluate; default the fitted `lambda`.
#'   Values between fitted penalties are interpolated linearly in lambda, as
#'   in glmnet.  For the constraint-set methods (`fit$radius`), radii,
#'   interpolated linearly in the radius.
#' @param type `"link"` (linear predictor), `"response"` (fitted mean (for
#'   poisson `exp(link)`, the mean count), `tau`-quantile or probability), `"class"` (binomial class label; multinomial: see
#'   [predict.dpsco_multinomial()]), `"coefficients"` or
#'   `"nonzero"` (indices of non-zero coefficients, a list per `s`; as in
#'   `Df`, a coefficient within `1e-10` times the path's largest magnitude
#'   counts as zero).
#' @param newoffset offsets of the new records, added to the linear
#'   predictor: needed (and only allowed) when the fit had an `offset`, as
#'   in glmnet.  Not used for `"coefficients"` and `"nonzero"`.
#' @param ... not used; any argument given here is an error (in
#'   particular glmnet's `exact = TRUE`, which would refit on the data).
#' @return `coef()`: a `(p + 1)` x `length(s)` matrix, intercept first.
#'   `predict()`: a matrix with one column per `s` (or a list for
#'   `"nonzero"`).  As in glmnet, the columns are named `s0, s1, ...`
#'   along the fitted path when `s` is not given (for the constraint-set
#'   methods `r0, r1, ...`) and `s1, s2, ...` for the values of a given
#'   `s`.  A multinomial fit has its own methods, in glmnet's
#'   forms (a matrix per class, arrays by class): see
#'   [coef.dpsco_multinomial()].
#' @examples
#' set.seed(3)
#' x <- matrix(runif(4000, -1, 1), 400, 10)
#' y <- rbinom(400, 1, plogis(drop(x %*% c(3, -3, rep(0, 8)))))
#' fit <- dpsco(x, y, family = "binomial", method = "clip", epsilon = 3,
#'              nlambda = 5, iterations = 20)
#' coef(fit, s = fit$lambda[3])
#' head(predict(fit, x, s = fit$lambda[5], type = "response"))
#' @export
coef.dpsco <- function(object, s = NULL, ...) {
  check_no_dots(list(...), "coef")
  if (is.null(s)) {
    out <- rbind(object$a0, object$beta)
    rownames(out)[1L] <- "(Intercept)"
    return(out)
  }
  check_s(s)
  interpolate_coef(object, s)
}

check_s <- function(s) {
  if (!is.numeric(s) || length(s) < 1L || anyNA(s) || any(s < 0))
    arg_error("s", "must be non-negative penalty values.")
}

#' @rdname coef.dpsco
#' @export
predict.dpsco <- function(object, newx, s = NULL,
                          type = c("link", "response", "class", "coefficients",
                                   "nonzero"), newoffset = NULL, ...) {
  check_no_dots(list(...), "predict")
  type <- match_choice(type, "type")
  b <- coef.dpsco(object, s)
  if (type == "coefficients") return(b)
  if (type == "nonzero")
    return(nonzero_rows(b[-1L, , drop = FALSE], nonzero_tol(object$beta)))
  fam <- fit_family(object)
  if (type == "class" && !fam$classes)
    arg_error("type", "\"class\" needs a binomial fit.")
  newx <- check_newx(newx, type, nrow(b) - 1L)
  if (isTRUE(object$offset) && is.null(newoffset))
    arg_error("newoffset", "is needed: the fit was made with an offset.")
  if (!isTRUE(object$offset) && !is.null(newoffset))
    arg_error("newoffset", "applies to fits made with an offset only.")
  newoffset <- check_offset(newoffset, nrow(newx), "newoffset")
  eta <- linear_predictor(newx, b, object$x_range)
  if (!is.null(newoffset)) eta <- eta + newoffset
  if (type == "link") return(eta)
  # the response: the fitted mean or tau-quantile, or the probability
  prob <- fam$inverse_link(eta)
  if (type == "response") return(prob)
  cls <- ifelse(prob > 0.5, object$classnames[2L], object$classnames[1L])
  matrix(cls, nrow(prob), ncol(prob), dimnames = dimnames(prob))
}

#' Coefficients and predictions of a multinomial dpsco fit
#'
#' glmnet's forms for `family = "multinomial"`: one coefficient matrix per
#' class, and predictions with the classes as the second dimension.
#'
#' @inheritParams coef.dpsco
#' @param object a `dpsco_multinomial` fit (`dpsco(..., family =
#'   "multinomial")`).
#' @param type `"link"` (the linear predictor of each class), `"response"`
#'   (the class probabilities, the softmax of the linear predictors),
#'   `"class"` (the class of largest probability, the first on ties),
#'   `"coefficients"` or `"nonzero"`.
#' @param newoffset not available: a multinomial fit takes no offset
#'   (given, it is an error).
#' @return `coef()` and `type = "coefficients"`: a list named by the
#'   classes of `(p + 1)` x `length(s)` matrices, intercept first (the
#'   intercepts centred to sum to 0 over the classes).  `"link"` and
#'   `"response"`: an `nrow(newx)` x `K` x `length(s)` array, dimnames the
#'   rows of `newx`, the classes and the penalties.  `"class"`: an
#'   `nrow(newx)` x `length(s)` character matrix of class names.  The
#'   penalties are named `s0, s1, ...` along the fitted path and `s1, s2,
#'   ...` at a given `s`, as in [coef.dpsco()] (glmnet's multinomial
#'   methods name a given `s` `1, 2, ...`; its other families `s1, s2,
#'   ...`).
#'   `"nonzero"`: a list named by the classes, each a list per `s` of the
#'   indices of the non-zero coefficients.
#' @examples
#' set.seed(2)
#' x <- matrix(rnorm(600 * 4), 600, 4)
#' eta <- cbind(0, x[, 1] * 2, -x[, 2] * 2)
#' y <- factor(apply(eta + matrix(rlogis(1800), 600), 1, which.max),
#'             labels = c("a", "b", "c"))
#' fit <- dpsco(x, y, family = "multinomial", epsilon = 2, nlambda = 5)
#' coef(fit, s = fit$lambda[5])
#' predict(fit, x[1:3, ], s = fit$lambda[5], type = "response")
#' predict(fit, x[1:3, ], type = "class")
#' @export
coef.dpsco_multinomial <- function(object, s = NULL, ...) {
  check_no_dots(list(...), "coef")
  out <- lapply(seq_along(object$classnames), function(k)
    coef.dpsco(class_path(object, k), s))
  stats::setNames(out, object$classnames)
}

# Class k's path of a multinomial fit as a one-class fit, for
# interpolate_coef() and the plots.
class_path <- function(object, k) {
  structure(list(a0 = object$a0[k, ], beta = object$beta[[k]],
                 lambda = object$lambda, df = object$dfmat[k, ],
                 intercept = object$intercept),
            class = c("dpsco_lambda", "dpsco"))
}

#' @rdname coef.dpsco_multinomial
#' @export
predict.dpsco_multinomial <- function(object, newx, s = NULL,
                                      type = c("link", "response", "class",
                                               "coefficients", "nonzero"),
                                      newoffset = NULL, ...) {
  check_no_dots(list(...), "predict")
  type <- match_choice(type, "type")
  b <- coef.dpsco_multinomial(object, s)
  if (type == "coefficients") return(b)
  if (type == "nonzero")
    return(lapply(b, function(bk) nonzero_rows(bk[-1L, , drop = FALSE],
                                               nonzero_tol(object$beta))))
  if (!is.null(newoffset))
    arg_error("newoffset", "does not apply: a multinomial fit takes no ",
              "offset.")
  newx <- check_newx(newx, type, nrow(b[[1L]]) - 1L)
  n <- nrow(newx)
  K <- length(b)
  ns <- ncol(b[[1L]])
  # the classes side by side, one pass over newx: n x (ns K), class-major
  eta <- linear_predictor(newx, do.call(cbind, b), object$x_range)
  eta <- aperm(array(eta, c(n, ns, K)), c(1L, 3L, 2L))
  dimnames(eta) <- list(if (!is_mapped(newx)) rownames(newx), names(b),
                        colnames(b[[1L]]))
  if (type == "link") return(eta)
  if (type == "response") {
    for (j in seq_len(ns)) eta[, , j] <- softmax_rows(eta[, , j])
    return(eta)
  }
  cls <- vapply(seq_len(ns), function(j)
    names(b)[max.col(matrix(eta[, , j], n, K), ties.method = "first")],
    character(n))
  matrix(cls, n, ns, dimnames = dimnames(eta)[c(1L, 3L)])
}

# predict(type = "nonzero"): per column of the slopes, the indices of
# those Df counts (nonzero_tol()).
nonzero_rows <- function(slopes, tol) {
  nz <- is_nonzero(slopes, tol)
  lapply(seq_len(ncol(slopes)), function(j) which(nz[, j]))
}

# predict()'s newx, checked: given, a design (dense, sparse or mapped)
# with the fit's p columns.  (A missing newx passed on stays missing.)
check_newx <- function(newx, type, p) {
  if (missing(newx)) arg_error("newx", "is needed for type \"", type, "\".")
  newx <- check_design(newx, "newx", min_rows = 1L)
  if (ncol(newx) != p) arg_error("newx", "must have ", p, " columns.")
  newx
}

# The linear predictors of newx for the coefficients b (intercept first, a
# column per penalty), newx clamped to the fit's bounds `range`; block by
# block, so a sparse or file-backed newx is never dense whole.
linear_predictor <- function(newx, b, range) {
  slope <- b[-1L, , drop = FALSE]
  design_apply(newx, function(v, rows) clamp_columns(v, range) %*% slope,
               "rbind") +
    matrix(b[1L, ], nrow(newx), ncol(b), byrow = TRUE)
}

#' Features as a fit's model sees them
#'
#' A private fit clamps each column of `x` to the bounds it released or
#' was given (`fit$x_range`), and its model is linear in those clamped
#' columns: `clamp_x()` applies the same clamp to new data, so that
#' `cbind(1, clamp_x(fit, newx)) %*% coef(fit)` is
#' `predict(fit, newx, type = "link")`.  A fit without bounds (public
#' tuning without declared bounds) returns `newx` unchanged.
#'
#' @param object a `dpsco` or `cv.dpsco` fit.
#' @param newx a numeric matrix (or numeric data frame) with the columns of
#'   the training `x`.
#' @return `newx` as a matrix with every column clamped to the fit's
#'   range.
#' @seealso [coef.dpsco()], [predict.dpsco()]
#' @examples
#' set.seed(1)
#' x <- matrix(rexp(600), 200)
#' y <- x[, 1] + rnorm(200)
#' fit <- dpsco(x, y, epsilon = 1, nlambda = 5)
#' newx <- matrix(c(100, 1, 1), 1)               # far beyond the bounds
#' clamp_x(fit, newx)
#' cbind(1, clamp_x(fit, newx)) %*% coef(fit)    # predict(fit, newx)
#' @export
clamp_x <- function(object, newx) {
  if (inherits(object, "cv.dpsco")) object <- object$dpsco.fit
  if (!inherits(object, "dpsco"))
    arg_error("object", "must be a dpsco or cv.dpsco fit.")
  if (is.data.frame(newx)) newx <- as.matrix(newx)
  if (!is.matrix(newx) || !is.numeric(newx))
    arg_error("newx", "must be a numeric matrix.")
  if (ncol(newx) != object$dim[1L])
    arg_error("newx", "must have ", object$dim[1L], " columns.")
  clamp_columns(newx, object$x_range)
}

# New data clamped to the fit's private bounds (NULL: none), column by
# column, as the fit saw its own data.
clamp_columns <- function(x, range) {
  if (is.null(range)) return(x)
  n <- nrow(x)
  pmin(pmax(x, rep(range[1L, ], each = n)), rep(range[2L, ], each = n))
}

#' Summarise a dpsco fit
#'
#' A description of the fit and its privacy guarantee that can be adapted for
#' the methods section of a paper, plus the path table.  The privacy
#' paragraph ends with the privacy status of [privacy()] (what the
#' guarantee does not cover, and the fix for each).
#'
#' @param object a `dpsco` fit.
#' @param x a `summary.dpsco` object.
#' @param ... unused.
#' @return An object of class `summary.dpsco`: a list with `text` (the
#'   description: for a multinomial fit a paragraph on its classes
#'   follows the first), `path` (Df and Lambda) and `privacy` (the
#'   record).
#' @export
summary.dpsco <- function(object, ...) {
  pr <- object$privacy
  st <- object$settings
  fit_text <- sprintf(paste(
    "A %s-penalised %s model (alpha = %s) was fitted on n = %s records and",
    "p = %d predictors along %d penalties by %s, with Poisson batches of",
    "expected size %s, %d steps per penalty of the %s optimiser, %s step",
    "size %s and the %s as output; its settings were %s."),
    if (st$alpha == 1) "lasso" else "elastic-net",
    model_label(object),
    format(st$alpha), format_count(object$nobs), object$dim[1L],
    length(object$lambda),
    method_label(object$method), format(signif(st$batch_size, 7)),
    st$iterations,
    if (identical(st$optimizer, "newton")) "noisy proximal Newton"
    else "stochastic proximal gradient",
    st$schedule, format(signif(st$step_size, 4)),
    switch(st$output, average = "average of the iterates",
           tail = "average of the second half of the iterates",
           last = "last iterate"),
    if (identical(st$tuning, "private"))
      "estimated privately inside the budget (see the privacy record)"
    else "public (the paper's settings)")
  # (a paragraph of its own: the baseline's summary rewrites the first)
  if (inherits(object, "dpsco_multinomial"))
    fit_text <- c(fit_text, sprintf(paste(
      "The response has %d classes (%s): each class has its own intercept",
      "and %d coefficients, the intercepts centred to sum to 0 over the",
      "classes, as in glmnet.  Df counts the predictors with a non-zero",
      "coefficient in any class."), length(object$classnames),
      paste(object$classnames, collapse = ", "), object$dim[1L]))
  inf <- object$inference
  # with inference the coefficient table comes first, as in glm's summary,
  # and the privacy paragraph is short: privacy() has the budget detail
  priv_text <- if (is.null(inf)) privacy_paragraph(pr)
               else privacy_sentence(pr)
  structure(list(text = c(fit_text,
                          y_range_text(object, object$nobs, pr$epsilon),
                          signal_text(object$signal, object$nobs, pr$epsilon),
                          priv_text),
                 path = data.frame(Df = object$df, Lambda = object$lambda),
                 privacy = pr,
                 inference = if (!is.null(inf)) inference_text(inf),
                 coefficients = if (!is.null(inf) && is.null(inf$refused))
                   inference_table(inf)),
            class = "summary.dpsco")
}

# summary() of a constraint-set fit: the path is over radii, and the
# privacy paragraph lists the method's own mechanisms.
#' @rdname summary.dpsco
#' @export
summary.dpsco_radius <- function(object, ...) {
  pr <- object$privacy
  st <- object$settings
  num <- function(v) format(signif(v, 4))
  set <- if (identical(st$tuning, "private"))
    "estimated privately inside the budget (see the privacy record)"
    else "public"
  fit_text <- sprintf(paste(
    "A %s model was fitted on n = %s records and p = %d predictors over the",
    "%s ball of each of %d radii (%s to %s) by %s%s; its settings were %s."),
    model_label(object),
    format_count(object$nobs), object$dim[1L],
    if (is.null(st$lp)) "l1" else paste0("l", num(st$lp)),
    length(object$radius), num(min(object$radius)), num(max(object$radius)),
    method_label(object$method),
    if (is.null(st$steps) || is.na(st$steps)) ""
    else sprintf(", %d steps per radius", st$steps),
    set)
  sh <- pr$shares
  priv_text <- paste0(sprintf(paste(
    "Privacy: %s Target (epsilon, delta) = (%s, %s), accounted epsilon %s",
    "(%s).%s Parts: "), pr$guarantee,
    num(pr$epsilon), num(pr$delta), num(pr$epsilon_accounted), pr$accountant,
    if (is.null(pr$resized)) "" else paste0(" As the method's theorem ",
                                            "requires, ", pr$resized, ".")),
    paste(sprintf("%s (%s)", sh$part, sh$mechanism), collapse = "; "),
    if (!is.null(pr$pure_epsilon))
      sprintf(". The release is pure %s-DP (delta = 0)", num(pr$pure_epsilon)),
    ". Treated as public: ", paste(pr$public, collapse = ", "), ". ",
    privacy_status(pr)$sentence)
  structure(list(text = c(fit_text, priv_text),
                 path = data.frame(Df = object$df, Radius = object$radius),
                 privacy = pr),
            class = "summary.dpsco")
}

#' @rdname summary.dpsco
#' @export
print.summary.dpsco <- function(x, ...) {
  if (!is.null(x$inference)) {
    # the inference first, as glm's summary puts its table first; a
    # refused one shows no table, only why and what would give one
    if (!is.null(x$coefficients)) {
      cat("Coefficients (unpenalised model, for inference):\n")
      stats::printCoefmat(x$coefficients, P.values = TRUE, has.Pvalue = TRUE,
                          cs.ind = 1:4, tst.ind = 5L, na.print = "NA")
    }
    cat(strwrap(x$inference), sep = "\n")
    cat("\nThe penalised path:\n")
  }
  for (para in x$text) cat(strwrap(para), sep = "\n")
  cat("\n")
  print(x$path)
  invisible(x)
}

# The short privacy paragraph of a summary with inference: the guarantee
# and the status; privacy() has every part.
privacy_sentence <- function(pr) {
  if (!pr$private) return(privacy_status(pr)$sentence)
  paste0("Privacy: ", pr$guarantee, " Accounted epsilon ",
         format(signif(pr$epsilon_accounted, 4)), " (", pr$accountant,
         ") over ", nrow(pr$shares), " parts; privacy(fit) lists them. ",
         privacy_status(pr)$sentence)
}

# The privacy paragraph of summary(): what a methods section needs.
privacy_paragraph <- function(pr) {
  num <- function(v) format(signif(v, 4))
  if (!pr$private)
    return(privacy_status(pr)$sentence)
  cal <- if (pr$calibration == "paper") sprintf(paste(
    "The noise follows the scales printed in Xie et al. for (%s, %s) per",
    "penalty; accounted over the whole path they give epsilon = %s at",
    "delta = %s%s."), num(pr$epsilon_per_lambda), num(pr$delta_per_lambda),
    num(pr$epsilon_accounted), num(pr$delta),
    if (pr$epsilon_accounted > pr$epsilon) sprintf(
      ", %s times the nominal epsilon = %s",
      num(pr$epsilon_accounted / pr$epsilon), num(pr$epsilon)) else "")
  else sprintf(paste(
    "The noise multiplier was calibrated so that the whole release is",
    "(%s, %s)-differentially private; the accountant certifies epsilon = %s."),
    num(pr$epsilon), num(pr$delta), num(pr$epsilon_accounted))
  pre <- pr$shares[pr$shares$part != "optimizer", , drop = FALSE]
  std <- if (nrow(pre)) sprintf(paste(
    " Before the path, Gaussian releases chose the data-dependent settings",
    "(%s; noise multipliers %s) and were composed with the optimiser."),
    paste(sprintf("%s, share %s", pre$part, num(pre$share)), collapse = "; "),
    paste(num(pre$noise_multiplier), collapse = ", ")) else ""
  paste0(sprintf(paste(
    "Privacy: %s Each of the %d x %d steps",
    "(penalties x steps) draws a Poisson batch at rate %s and adds Gaussian",
    "noise with standard deviation %s (noise multiplier %s times the L2",
    "sensitivity %s) to every gradient coordinate. Accountant: %s. "),
    pr$guarantee, pr$nlambda, pr$steps, num(pr$sample_rate), num(pr$noise_sd),
    num(pr$noise_multiplier), num(pr$sensitivity), pr$accountant),
    cal, std,
    " Treated as public: ", paste(pr$public, collapse = ", "), ". ",
    privacy_status(pr)$sentence)
}

# The `s` of coef() / predict() / augment() of a cv.dpsco object: not
# given (NULL), the private choice, "lambda.min" or, on a path of radii,
# "radius.min" (the signatures' default "lambda.min" names it as glmnet
# users know it); given, as the user wrote it.
cv_min_alias <- function(object, s) {
  s %||% paste0(cv_path(object)$name, ".min")
}

# The line print(<cv.dpsco>) gives on the default of coef() and predict():
# glmnet's default is lambda.1se, whose rule reads the validation curve's
# minimum and standard error, which cv.dpsco() does not release.
cv_default_note <- function(x) {
  name <- cv_path(x)$name
  sprintf("coef()/predict(): %s.min; %s.1se needs unreleased statistics.",
          name, name)
}

# The path of a cv.dpsco object: penalties or, for the constraint-set
# methods, radii.
cv_path <- function(x) {
  name <- path_axis(x$dpsco.fit)$name
  list(name = name, values = x[[name]], min = x[[paste0(name, ".min")]])
}
