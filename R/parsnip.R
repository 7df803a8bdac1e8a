#' The "dpsco" engine for tidymodels (parsnip)
#'
#' With the parsnip package installed, loading dpsco adds an engine
#' `"dpsco"` to parsnip's [parsnip::linear_reg()] (family `"gaussian"`),
#' [parsnip::logistic_reg()] (`"binomial"`), [parsnip::poisson_reg()]
#' (`"poisson"`; the function is parsnip's own since parsnip 1.0.0, the
#' poissonreg package is not needed; an older parsnip gets the other three)
#' and [parsnip::multinom_reg()]
#' (`"multinomial"`), so that private fits run in workflows:
#' ```
#' library(dpsco)
#' spec <- parsnip::linear_reg(penalty = 0.01, mixture = 1) |>
#'   parsnip::set_engine("dpsco", epsilon = 1, public_n = 5000)
#' fit <- parsnip::fit(spec, y ~ ., data = d)
#' predict(fit, new_data = d_new)
#' ```
#' `dpsco_parsnip_fit()` is the function the engine calls; it is rarely
#' called directly.
#'
#' **Arguments.**  parsnip's `penalty` is dpsco's `lambda` and `mixture`
#' is `alpha` (1, the lasso, by default).  Every engine argument of
#' `set_engine("dpsco", ...)` goes to [dpsco()] or [cv.dpsco()] by its
#' name: `epsilon`, `delta`, `public_n`, `method`, `nlambda`, `holdout`,
#' `control`, ...  The penalty is on the scale of the fit that dpsco
#' makes: with private tuning (the default) the columns are rescaled by
#' their private bounds first, so it is not glmnet's scale unless
#' `set_engine("dpsco", penalty.scale = "glmnet")` (see [dpsco()]).
#'
#' **With `penalty`** (a positive number), the engine fits [dpsco()] at
#' `lambda = penalty` alone, the whole budget on that one penalty; the
#' `penalty.scale` engine argument puts it on glmnet's scale.
#' **Without `penalty`** (left unset, as `linear_reg()` leaves it), it fits
#' [cv.dpsco()]: a path on a training part of the records and a private
#' choice of the penalty on the rest, within the same `(epsilon, delta)`,
#' and predicts at that choice (`lambda.min`).  This is the private way to
#' tune the penalty; tuning it with the tune package (a grid of penalties
#' over resamples) is not private, see below.  `multi_predict()` is not
#' offered: a fit at one penalty has no path to predict along.
#'
#' **Privacy: one budget per `fit()` call.**  Each `fit()` of a model with
#' this engine (directly or in a workflow) is one run of [dpsco()] or
#' [cv.dpsco()] on the rows it is given, `(epsilon, delta)`-DP with
#' respect to them, and its record is `privacy(extract_fit_engine(fit))`
#' (workflows) or `privacy(fit$fit)` (parsnip).  Calls compose: resampling
#' (`fit_resamples()`) or tuning (`tune_grid()`) fits the same records once
#' per resample and candidate, so each record pays for every fit it
#' enters: with k folds it is read by k - 1 fits per candidate, and the
#' whole tuning costs about that many times each fit's epsilon.  Give a
#' [dp_budget()], `options(dpsco.budget = b)` (or `set_engine("dpsco",
#' budget = b)`), and every fit of the resampling debits it, composed
#' exactly, and is refused once the budget cannot pay; without one, the
#' first fit inside a tune resampling warns once per session of that
#' cost.  Leave `public_n` unset and the number of
#' rows is used as it is (as in [dpsco()]): declare it to protect it.
#' What happens before the engine is the user's own computation and not
#' covered by the budget: parsnip turns a formula into indicator columns
#' with the factor levels found in the training data, and a recipe's
#' steps (e.g. centring and scaling) read the data; give predictors whose
#' levels and scales are public, or spend budget on them elsewhere.
#' Predictions on new data, like [predict.dpsco()], are the user's own
#' computation on that data.
#'
#' Predictions are `"numeric"` (the fitted mean, [predict.dpsco()] with
#' `type = "response"`) for regression, and `"class"` and `"prob"` (one
#' column per level of the training outcome, in its order) for
#' classification.
#'
#' @param x a numeric matrix of predictors, as parsnip passes it.
#' @param y the outcome: numeric, or a factor for classification.
#' @param family `"gaussian"`, `"binomial"`, `"poisson"` or
#'   `"multinomial"`, set by the model the engine serves.
#' @param lambda parsnip's `penalty`: a single positive number, or
#'   `NULL` for the private choice of [cv.dpsco()].
#' @param alpha parsnip's `mixture`, in \[0, 1\].
#' @param ... engine arguments, passed to [dpsco()] or [cv.dpsco()].
#' @return A [dpsco()] fit at `lambda` (with `lambda`) or a [cv.dpsco()]
#'   object (without).
#' @seealso [dpsco()], [cv.dpsco()], [privacy()]
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE)) {
#'   set.seed(1)
#'   d <- data.frame(a = runif(2000, -1, 1), b = runif(2000, -1, 1))
#'   d$y <- 2 * d$a - d$b + rnorm(2000)
#'   spec <- parsnip::linear_reg(penalty = 0.05) |>
#'     parsnip::set_engine("dpsco", epsilon = 1, public_n = 2000)
#'   fit <- parsnip::fit(spec, y ~ ., data = d)
#'   print(predict(fit, new_data = d[1:3, ]))
#'   privacy(fit$fit)$epsilon
#' }
#' @name dpsco_parsnip
#' @export
dpsco_parsnip_fit <- function(x, y, family, lambda = NULL, alpha = 1, ...) {
  if (is.null(budget_of(list(...)$budget))) tune_cost_warning()
  # (the class dpsco_engine, before the fit's own, gives tidy() of a
  # parsnip fit or workflow parsnip's table at the fitted penalty; every
  # other method is the fit's)
  engine <- function(fit) structure(fit, class = c("dpsco_engine", class(fit)))
  if (is.null(lambda))
    return(engine(cv.dpsco(x, y, family = family, alpha = alpha, ...)))
  # a longer path would split the budget over penalties never predicted at
  if (length(lambda) != 1L)
    arg_error("penalty", "must be a single number for the \"dpsco\" engine ",
              "(leave it unset for a private choice by cv.dpsco()).")
  check_number(lambda, "penalty", 0)
  engine(dpsco(x, y, family = family, lambda = lambda, alpha = alpha, ...))
}


# The engine is added when parsnip's namespace loads, whichever of the two
# packages loads first: loading dpsco never loads parsnip (and its
# dependencies) for users who do not need it.
.onLoad <- function(libname, pkgname) {
  setHook(packageEvent("parsnip", "onLoad"), function(...) register_parsnip())
  if (isNamespaceLoaded("parsnip")) register_parsnip()
}

# The models served, their modes and dpsco families.  poisson_reg() is
# parsnip's own from parsnip 1.0.0; an older parsnip has none.
parsnip_models <- function() {
  models <- list(linear_reg = c("regression", "gaussian"),
                 logistic_reg = c("classification", "binomial"),
                 poisson_reg = c("regression", "poisson"),
                 multinom_reg = c("classification", "multinomial"))
  known <- names(models) %in% parsnip::get_model_env()$models
  models[known]
}

# Registers the engine with each model.  parsnip's set_* functions accept
# a registration identical to an existing one, so a second load of dpsco
# (or of parsnip) registers again without error.
register_parsnip <- function() {
  models <- parsnip_models()
  for (model in names(models)) {
    mode <- models[[model]][1L]
    register_parsnip_model(model, mode, models[[model]][2L])
    for (type in names(parsnip_predictions(mode)))
      parsnip::set_pred(model = model, eng = "dpsco", mode = mode,
                        type = type, value = parsnip_predictions(mode)[[type]])
  }
}

register_parsnip_model <- function(model, mode, family) {
  parsnip::set_model_engine(model, mode = mode, eng = "dpsco")
  parsnip::set_dependency(model, eng = "dpsco", pkg = "dpsco", mode = mode)
  parsnip::set_model_arg(model = model, eng = "dpsco", parsnip = "penalty",
                         original = "lambda",
                         func = list(pkg = "dials", fun = "penalty"),
                         has_submodel = FALSE)
  parsnip::set_model_arg(model = model, eng = "dpsco", parsnip = "mixture",
                         original = "alpha",
                         func = list(pkg = "dials", fun = "mixture"),
                         has_submodel = FALSE)
  parsnip::set_fit(model = model, eng = "dpsco", mode = mode, value = list(
    interface = "matrix", protect = c("x", "y"),
    func = c(pkg = "dpsco", fun = "dpsco_parsnip_fit"),
    defaults = list(family = family)))
  # treatment coding as with an intercept (glmnet's encoding: without one,
  # the first factor would get a column per level), whose column is then
  # dropped: dpsco fits its own intercept
  parsnip::set_encoding(model = model, eng = "dpsco", mode = mode,
                        options = list(predictor_indicators = "traditional",
                                       compute_intercept = TRUE,
                                       remove_intercept = TRUE,
                                       allow_sparse_x = FALSE))
}

# The prediction types of a mode: predict() on the fit, at the last
# penalty of its path (the engine's `penalty`), or at a cv.dpsco's
# lambda.min, then reshaped as parsnip expects.
parsnip_predictions <- function(mode) {
  call <- function(type) list(object = quote(object$fit),
                              newx = quote(as.matrix(new_data)), type = type)
  pred <- function(type, post)
    list(pre = NULL, post = post, func = c(pkg = "stats", fun = "predict"),
         args = call(type))
  if (mode == "regression")
    return(list(numeric = pred("response", function(x, object) last_column(x))))
  list(class = pred("class", function(x, object) last_column(x)),
       prob = pred("response", parsnip_prob))
}

# The predictions at the last penalty: a column of a matrix, a slice of a
# multinomial fit's n x K x penalties array.
last_column <- function(x) {
  d <- dim(x)
  if (length(d) == 3L)
    return(matrix(x[, , d[3L]], d[1L], d[2L], dimnames = dimnames(x)[1:2]))
  x[, ncol(x)]
}

# Class probabilities as a data frame with one column per level of the
# training outcome, in its order: a binomial fit gives the second level's
# probability, a multinomial one a column per class.
parsnip_prob <- function(x, object) {
  lvl <- object$lvl
  p <- last_column(x)
  p <- if (is.matrix(p)) p[, lvl, drop = FALSE] else cbind(1 - p, p)
  p <- matrix(p, ncol = length(lvl), dimnames = list(NULL, lvl))
  as.data.frame(p, optional = TRUE)
}

# Once per session, a fit of the engine inside a resampling of the tune
# package with no budget to pay for it is told what the resampling costs.
tune_cost_warning <- function() {
  if (isTRUE(budget_state$tune_warned) || isTRUE(budget_state$active) ||
      !in_tune_resampling()) return(invisible(FALSE))
  budget_state$tune_warned <- TRUE
  privacy_warning(
    "a resampling of the tune package fits the \"dpsco\" engine once per ",
    "resample and candidate, and each fit reports its own epsilon: a ",
    "record in k - 1 of k folds is read by k - 1 fits per candidate, so ",
    "the whole tuning costs that many times each fit's epsilon, or more. ",
    "Give a budget (options(dpsco.budget = dp_budget(epsilon, delta))) ",
    "so that each fit debits it, or leave `penalty` unset for the ",
    "engine's own private choice (one fit).  (Shown once per session.)")
  invisible(TRUE)
}

# Whether a function of the tune package is on the call stack.
in_tune_resampling <- function() {
  fns <- lapply(seq_len(sys.nframe()), sys.function)
  any(vapply(fns, function(f) is.function(f) && !is.primitive(f) &&
               identical(environmentName(topenv(environment(f))), "tune"), NA))
}
