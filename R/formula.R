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
#' `scale()`, `splines::ns()`) unless the call declares them (e.g.
#' `ns(a, knots = c(-1, 1), Boundary.knots = c(-3, 3))`,
#' `scale(a, center = 0, scale = 2)`, `poly(a, 2, raw = TRUE)`).  Both are
#' listed in the privacy record's `not_covered`, with the fix, and every
#' display of the fit then states that the guarantee does not cover them
#' (see [privacy()]).  Missing values are an error.  The terms and the
#' levels are kept in the fit (`terms`, `xlevels`), so
#' `predict(fit, newdata = df)` builds the same columns (see
#' [predict.dpsco_formula()]).
#'
#' `offset()` terms of the formula are the records' offsets, as in
#' [stats::glm()]: the fit is the one with that vector as `offset`, and
#' `predict(fit, newdata = )` computes them from `newdata`.  Given with
#' an `offset` argument as well, the two are added (as `glm()` does), and
#' `predict()` then needs the argument's part for the new records as
#' `newoffset`.  Where the default method takes no offset (the
#' constraint-set methods, the multinomial family), an `offset()` term is
#' the same error as the argument.
#' @param ... for `dpsco()`: the arguments of its methods; for the formula
#'   method, the arguments of the default (matrix) method except `x`, `y`
#'   and `intercept` (which the formula sets: `y ~ . - 1` fits without an
#'   intercept); for the default method, nothing (a name that is not an
#'   argument of `dpsco()` is an error naming it).
#' @name dpsco
NULL

#' @rdname dpsco
#' @param data (formula method) a data frame holding the variables of the
#'   formula `x`.
#' @param xlev (formula method) a named list of the levels of every factor
#'   or character predictor, as in [stats::model.frame()]: declared levels
#'   are public.  A factor predictor without declared levels takes them from
#'   the data, which reveals which levels occur, and gets a
#'   `dpsco_privacy_warning`.
#' @export
dpsco.formula <- function(x, data, xlev = NULL, offset = NULL, ...) {
  fd <- formula_design(x, data, xlev, offset, list(...))
  fit <- dpsco.default(fd$x, fd$y, intercept = fd$intercept,
                       offset = fd$offset, ...)
  fit$call <- generic_call(match.call(), "dpsco", formula = TRUE)
  formula_fit(fit, fd)
}

#' @rdname cv.dpsco
#' @param data,xlev (formula method) the data frame holding the variables of
#'   the formula `x`, and the declared levels of its factor predictors, as in
#'   [dpsco()]; the formula's `offset()` terms are added to `offset`, as in
#'   [dpsco()]; the other arguments (except `y` and `intercept`, which the
#'   formula sets) go through `...` to the default method.
#' @export
cv.dpsco.formula <- function(x, data, xlev = NULL, offset = NULL, ...) {
  fd <- formula_design(x, data, xlev, offset, list(...))
  cv <- cv.dpsco.default(fd$x, fd$y, intercept = fd$intercept,
                         offset = fd$offset, ...)
  cv$call <- generic_call(match.call(), "cv.dpsco", formula = TRUE)
  cv$dpsco.fit <- formula_fit(cv$dpsco.fit, fd)
  # the procedure's record too: every display of the cv object states it
  cv$privacy$not_covered <- cv$dpsco.fit$privacy$not_covered
  class(cv) <- c("cv.dpsco_formula", class(cv))
  cv
}

# The design of a formula fit.  Returns list(x, y, intercept, terms, xlev,
# contrasts, assign, offset (the formula's offset() terms plus the
# argument `offset`, NULL without either), offset_argument (was the
# argument given?), not_covered (what the design read from the data)).
formula_design <- function(formula, data, xlev, offset, dots) {
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
  levels_read <- not_covered_use(
    sprintf(paste("the levels of `%s` were read from the data, which",
                  "reveals which levels occur"), read),
    sprintf("declare them with xlev = list(%s = c(...))", read))
  terms_read <- data_terms(tt)
  if (nrow(terms_read))
    privacy_warning("the formula's transformations take parameters from the ",
                    "data (", paste(terms_read$reason, collapse = "; "),
                    "); the guarantee does not cover them. To keep them ",
                    "public, ", paste(terms_read$fix, collapse = "; "), ".")
  if (!all(stats::complete.cases(mf)))
    arg_error("data", "has missing values in the formula's variables; ",
              "remove or impute them first.")
  # offset() terms, summed by model.offset(), plus the argument, as glm()
  # adds them; both are the records' own values
  off <- stats::model.offset(mf)
  if (!is.null(offset)) {
    offset <- check_offset(offset, nrow(mf))
    off <- if (is.null(off)) offset else off + offset
  }
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
       contrasts = contrasts, assign = assign, offset = off,
       offset_argument = !is.null(offset),
       not_covered = rbind(levels_read, terms_read))
}

# The formula's terms whose transformation took parameters from the data,
# as not_covered rows (reason, fix).  model.frame() stores what a
# transformation (poly(), scale(), splines::ns(), ...) used in the terms'
# "predvars"; a parameter there that the written call declares, or that is
# the function's constant default, is public, so a term with declared
# knots or centres is not listed.
data_terms <- function(tt) {
  written <- as.list(attr(tt, "variables"))[-1L]
  stored <- as.list(attr(tt, "predvars") %||% attr(tt, "variables"))[-1L]
  env <- environment(tt) %||% globalenv()
  rows <- lapply(seq_along(written), function(i) {
    w <- written[[i]]
    if (identical(w, stored[[i]])) return(NULL)
    args <- data_parameters(w, stored[[i]], env)
    if (!length(args)) return(NULL)
    term <- paste(deparse(w, width.cutoff = 500L), collapse = " ")
    fun <- sub("^.*::", "", paste(deparse(w[[1L]]), collapse = ""))
    not_covered_use(
      sprintf("the %s of `%s` were read from the data",
              paste(args, collapse = " and "), term),
      paste0(if (fun == "poly") "use raw = TRUE or ", "declare ",
             paste(args, collapse = " and "), " in `", term, "`"))
  })
  do.call(rbind, c(list(not_covered_use()), rows))
}

# The arguments of `stored` (a term's call as predvars holds it) whose
# values the written call `written` does not declare: those the
# transformation read from the data.  A declared value is evaluated where
# the formula was written, never in the data (so a value computed from a
# data column counts as read); an undeclared one must equal the function's
# default evaluated without any variable in sight (a constant such as
# intercept = FALSE; the default range(x) of boundary knots is read).
data_parameters <- function(written, stored, env) {
  value <- function(expr, where)
    tryCatch(list(eval(expr, where)), error = function(e) NULL)
  fun <- value(written[[1L]], env)
  fun <- if (length(fun)) fun[[1L]]
  if (!is.function(fun) || is.primitive(fun)) return("parameters")
  w <- tryCatch(match.call(fun, written), error = function(e) written)
  s <- tryCatch(match.call(fun, stored), error = function(e) stored)
  bare <- new.env(parent = baseenv())
  args <- setdiff(names(s), "")
  read <- vapply(args, function(a) {
    if (a %in% names(w) && identical(w[[a]], s[[a]])) return(FALSE)
    given <- if (a %in% names(w)) value(w[[a]], env)
             else value(formals(fun)[[a]], bare)
    now <- value(s[[a]], env)
    is.null(given) || is.null(now) ||
      !isTRUE(all.equal(given[[1L]], now[[1L]], check.attributes = FALSE))
  }, NA)
  args[read]
}

# Attach what predict(newdata = ) needs to a fit, and what the design read
# from the data to its privacy record.
formula_fit <- function(fit, fd) {
  fit$terms <- fd$terms
  fit$xlevels <- fd$xlev
  fit$contrasts <- fd$contrasts
  fit$offset_argument <- fd$offset_argument
  fit$privacy$not_covered <- rbind(
    fd$not_covered, not_covered_table(fit$privacy$not_covered))
  class(fit) <- c("dpsco_formula", class(fit))
  fit
}

# The model matrix of new data for a formula fit (no intercept column)
# and the new records' offset: the formula's offset() terms computed from
# newdata plus `newoffset`, the part of the fit's offset argument (needed
# exactly when the fit had one; NULL offset without either).
formula_newdata <- function(object, newdata, newoffset = NULL) {
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
  x <- x[, colnames(x) != "(Intercept)", drop = FALSE]
  off <- stats::model.offset(mf)
  # (fits of 0.10.0 had no formula offsets: any offset was the argument)
  argument <- object$offset_argument %||% isTRUE(object$offset)
  if (argument && is.null(newoffset))
    arg_error("newoffset", "is needed: the fit was made with the offset ",
              "argument (the formula's offset() terms, if any, are ",
              "computed from newdata and added to it).")
  if (!argument && !is.null(newoffset))
    arg_error("newoffset", if (is.null(off))
                "applies to fits made with an offset only."
              else paste("does not apply: the fit's offset is the",
                         "formula's offset() terms, computed from newdata."))
  newoffset <- check_offset(newoffset, nrow(x), "newoffset")
  if (!is.null(newoffset))
    off <- if (is.null(off)) newoffset else off + newoffset
  list(x = x, offset = off)
}

#' Predictions from a formula fit
#'
#' [dpsco()] and [cv.dpsco()] fitted with a formula predict from a data
#' frame: `newdata` is turned into the model matrix with the fit's terms
#' and factor levels, and the formula's `offset()` terms are computed from
#' it (as [stats::predict.glm()] does), then [predict.dpsco()] applies.
#' Without `newdata`, the matrix interface applies (`newx`, and
#' `newoffset` the whole offset of the new records).
#'
#' @param object a fit of the formula method of [dpsco()] or [cv.dpsco()].
#' @param newdata a data frame with the formula's predictors (and the
#'   variables of its `offset()` terms).
#' @param newoffset with `newdata`: the new records' part of the `offset`
#'   argument, needed when the fit was given one (and only then), added to
#'   the formula's `offset()` terms.
#' @param ... `s` and `type`, as in [predict.dpsco()].
#' @return As [predict.dpsco()].
#' @examples
#' set.seed(1)
#' df <- data.frame(a = rnorm(500), g = factor(sample(c("u", "v"), 500, TRUE)))
#' df$y <- df$a + (df$g == "v") + rnorm(500)
#' fit <- dpsco(y ~ a + g, data = df, xlev = list(g = c("u", "v")),
#'              method = "none", lambda = c(0.1, 0.01))
#' predict(fit, newdata = df[1:3, ], s = 0.01)
#' # counts over an exposure e: the offset() term is computed from newdata
#' df$e <- runif(500, 0.5, 2)
#' df$k <- rpois(500, df$e * exp(0.3 + 0.5 * df$a))
#' fp <- dpsco(k ~ a + offset(log(e)), data = df, family = "poisson",
#'             method = "none", lambda = 0.01)
#' predict(fp, newdata = df[1:3, ], type = "response")
#' @export
predict.dpsco_formula <- function(object, newdata, newoffset = NULL, ...) {
  if (missing(newdata)) return(NextMethod())
  nd <- formula_newdata(object, newdata, newoffset)
  stats::predict(matrix_fit(object), newx = nd$x, newoffset = nd$offset, ...)
}

#' @rdname predict.dpsco_formula
#' @export
predict.cv.dpsco_formula <- function(object, newdata, newoffset = NULL,
                                     ...) {
  if (missing(newdata)) return(NextMethod())
  nd <- formula_newdata(object$dpsco.fit, newdata, newoffset)
  class(object) <- setdiff(class(object), "cv.dpsco_formula")
  stats::predict(object, newx = nd$x, newoffset = nd$offset, ...)
}
