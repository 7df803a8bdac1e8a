#' @include dpsco.R
NULL

# The formula interface of dpsco() and cv.dpsco(): both are S3 generics on
# their first argument; the default methods are the matrix interface, the
# formula methods build the matrix with model.frame() / model.matrix() and
# call them.

#' @rdname dpsco
#' @section Formula interface:
#' `dpsco(y ~ terms, data = df)` and `cv.dpsco(y ~ terms, data = df)` build
#' `x` with [stats::model.frame()] and [stats::model.matrix()] and fit it
#' with the default method.  The model matrix has no intercept column: the
#' fit's own unpenalised intercept is used, and `y ~ . - 1` fits without
#' one.  Nothing is computed on the numeric columns (no centring or
#' scaling).  Factor predictors are coded by their contrasts, with the
#' levels declared in `xlev`; undeclared levels are read from the data,
#' which reveals which levels occur, and get a `dpsco_privacy_warning`, as
#' do transformations that take parameters from the data (`poly()`,
#' `scale()`, `splines::ns()`).  Missing values are an error.  The terms
#' and the levels are kept in the fit (`terms`, `xlevels`), so
#' `predict(fit, newdata = df)` builds the same columns (see
#' [predict.dpsco_formula()]).
#' @param ... for `dpsco()`: the arguments of its methods; for the formula
#'   method, the arguments of the default (matrix) method except `x`, `y`
#'   and `intercept` (which the formula sets: `y ~ . - 1` fits without an
#'   intercept); for the default method, nothing (a name that is not an
#'   argument of `dpsco()` is an error naming it).
#' @export
dpsco <- function(x, ...) UseMethod("dpsco")

#' @rdname dpsco
#' @param data (formula method) a data frame holding the variables of the
#'   formula `x`.
#' @param xlev (formula method) a named list of the levels of every factor
#'   or character predictor, as in [stats::model.frame()]: declared levels
#'   are public.  A factor predictor without declared levels takes them from
#'   the data, which reveals which levels occur, and gets a
#'   `dpsco_privacy_warning`.
#' @export
dpsco.formula <- function(x, data, xlev = NULL, ...) {
  fd <- formula_design(x, data, xlev, list(...))
  fit <- dpsco.default(fd$x, fd$y, intercept = fd$intercept, ...)
  fit$call <- generic_call(match.call(), "dpsco", formula = TRUE)
  formula_fit(fit, fd)
}

#' @rdname cv.dpsco
#' @export
cv.dpsco <- function(x, ...) UseMethod("cv.dpsco")

#' @rdname cv.dpsco
#' @param data,xlev (formula method) the data frame holding the variables of
#'   the formula `x`, and the declared levels of its factor predictors, as in
#'   [dpsco()]; the other arguments (except `y` and `intercept`, which the
#'   formula sets) go through `...` to the default method.
#' @export
cv.dpsco.formula <- function(x, data, xlev = NULL, ...) {
  fd <- formula_design(x, data, xlev, list(...))
  cv <- cv.dpsco.default(fd$x, fd$y, intercept = fd$intercept, ...)
  cv$call <- generic_call(match.call(), "cv.dpsco", formula = TRUE)
  cv$dpsco.fit <- formula_fit(cv$dpsco.fit, fd)
  class(cv) <- c("cv.dpsco_formula", class(cv))
  cv
}

# A method's matched call as the user wrote it, through the generic; the
# formula methods' first argument unnamed, as in lm().  (Nothing in the
# call is evaluated: an argument such as matrix(rnorm(n)) would draw from
# the generator again.)
generic_call <- function(call, name, formula = FALSE) {
  call[[1L]] <- as.name(name)
  if (formula && length(call) > 1L && identical(names(call)[2L], "x"))
    names(call)[2L] <- ""
  call
}

# The design of a formula fit.  Returns list(x, y, intercept, terms, xlev).
formula_design <- function(formula, data, xlev, dots) {
  if (!inherits(formula, "formula") || length(formula) != 3L)
    arg_error("x", "must be a two-sided formula (y ~ terms).")
  if (missing(data) || !is.data.frame(data))
    arg_error("data", "must be a data frame holding the variables of the ",
              "formula.")
  if ("y" %in% names(dots))
    arg_error("y", "is the formula's left-hand side; do not give it too.")
  if ("intercept" %in% names(dots))
    arg_error("intercept", "is set by the formula: write y ~ . - 1 (or + 0) ",
              "to fit without an intercept.")
  if (!is.null(xlev) && (!is.list(xlev) || is.null(names(xlev)) ||
                         any(!nzchar(names(xlev))) ||
                         !all(vapply(xlev, is.character, NA))))
    arg_error("xlev", "must be a named list of character vectors (the ",
              "levels of each factor predictor).")
  tt <- stats::terms(formula, data = data)
  mf <- tryCatch(stats::model.frame(tt, data = data, xlev = xlev,
                                    na.action = stats::na.pass),
                 error = function(e) {
                   msg <- conditionMessage(e)
                   # model.frame() lists the undeclared values, which are
                   # data: only the variable is named
                   if (grepl("new level", msg))
                     arg_error("xlev", "does not fit the data: ",
                               sub(" has new levels? .*$", "", msg),
                               " has values outside its declared levels ",
                               "(every value of a factor predictor must be ",
                               "among them).")
                   arg_error("data", "does not fit the formula: ", msg, ".")
                 })
  tt <- attr(mf, "terms")
  pred <- attr(tt, "term.labels")
  vars <- names(mf)[-1L]
  # levels of factor or character predictors not declared in xlev come
  # from the data (model.matrix reads them there)
  read <- vars[vapply(vars, function(v) {
    col <- mf[[v]]
    (is.factor(col) || is.character(col)) && !v %in% names(xlev)
  }, NA)]
  if (length(read))
    privacy_warning("the levels of ", paste0("`", read, "`", collapse = ", "),
                    " were read from the data, which reveals which levels ",
                    "occur; declare them with xlev = list(", read[1L],
                    " = c(...)) to keep them public.")
  # data-dependent transformations (poly(), scale(), ns(), ...) store the
  # parameters they read from the data as "predvars"
  pv <- attr(tt, "predvars")
  if (!is.null(pv) && !identical(pv, attr(tt, "variables")))
    privacy_warning("the formula's transformations take parameters from the ",
                    "data (e.g. poly(), scale(), ns()); the guarantee does ",
                    "not cover them: use fixed, public transformations.")
  if (!all(stats::complete.cases(mf)))
    arg_error("data", "has missing values in the formula's variables; ",
              "remove or impute them first.")
  y <- stats::model.response(mf)
  x <- stats::model.matrix(tt, mf)
  intercept <- attr(tt, "intercept") == 1L
  keep <- colnames(x) != "(Intercept)"
  assign <- attr(x, "assign")[keep]
  contrasts <- attr(x, "contrasts")
  x <- x[, keep, drop = FALSE]
  if (!length(pred) || !ncol(x))
    arg_error("x", "has no predictor terms.")
  # every factor's levels as used (declared or read), for new data
  levels <- stats::.getXlevels(tt, mf)
  list(x = x, y = y, intercept = intercept, terms = tt, xlev = levels,
       contrasts = contrasts, assign = assign)
}

# Attach what predict(newdata = ) needs to a fit.
formula_fit <- function(fit, fd) {
  fit$terms <- fd$terms
  fit$xlevels <- fd$xlev
  fit$contrasts <- fd$contrasts
  class(fit) <- c("dpsco_formula", class(fit))
  fit
}

# The model matrix of new data for a formula fit (no intercept column).
formula_newx <- function(object, newdata) {
  if (!is.data.frame(newdata))
    arg_error("newdata", "must be a data frame.")
  tt <- stats::delete.response(object$terms)
  mf <- tryCatch(stats::model.frame(tt, newdata, xlev = object$xlevels,
                                    na.action = stats::na.pass),
                 error = function(e)
                   arg_error("newdata", "does not fit the model's terms: ",
                             conditionMessage(e), "."))
  if (!all(stats::complete.cases(mf)))
    arg_error("newdata", "has missing values, or factor values outside the ",
              "levels of the fit.")
  x <- stats::model.matrix(tt, mf, contrasts.arg = object$contrasts)
  x[, colnames(x) != "(Intercept)", drop = FALSE]
}

#' Predictions from a formula fit
#'
#' [dpsco()] and [cv.dpsco()] fitted with a formula predict from a data
#' frame: `newdata` is turned into the model matrix with the fit's terms
#' and factor levels, then [predict.dpsco()] applies.
#'
#' @param object a fit of the formula method of [dpsco()] or [cv.dpsco()].
#' @param newdata a data frame with the formula's predictors.
#' @param ... `s` and `type`, as in [predict.dpsco()].
#' @return As [predict.dpsco()].
#' @examples
#' set.seed(1)
#' df <- data.frame(a = rnorm(500), g = factor(sample(c("u", "v"), 500, TRUE)))
#' df$y <- df$a + (df$g == "v") + rnorm(500)
#' fit <- dpsco(y ~ a + g, data = df, xlev = list(g = c("u", "v")),
#'              method = "none", lambda = c(0.1, 0.01))
#' predict(fit, newdata = df[1:3, ], s = 0.01)
#' @export
predict.dpsco_formula <- function(object, newdata, ...) {
  if (missing(newdata)) return(NextMethod())
  newx <- formula_newx(object, newdata)
  class(object) <- setdiff(class(object), "dpsco_formula")
  stats::predict(object, newx = newx, ...)
}

#' @rdname predict.dpsco_formula
#' @export
predict.cv.dpsco_formula <- function(object, newdata, ...) {
  if (missing(newdata)) return(NextMethod())
  newx <- formula_newx(object$dpsco.fit, newdata)
  class(object) <- setdiff(class(object), "cv.dpsco_formula")
  stats::predict(object, newx = newx, ...)
}
