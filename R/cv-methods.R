#' @include cv.R
NULL

# The methods of a cv.dpsco() fit: print() and summary() (the choice table,
# its notes and the trivial model's line), coef() and predict() at a chosen
# penalty (with the relaxed refit), and their helpers.

#' @rdname cv.dpsco
#' @param digits significant digits.
#' @export
print.cv.dpsco <- function(x, digits = max(3, getOption("digits") - 3), ...) {
  cat("\nCall: ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  path <- cv_path(x)
  cat(sprintf(paste("Hold-out choice of the %s: expected %s training and %s",
                    "validation records (public sizes; the realised split is",
                    "not released)\n"),
              path$name, format_count(x$n_fit), format_count(signif(x$n_hold, 6))))
  cat("Measure:", x$name, "\n\n")
  print(cv_choice_table(x, digits))
  cat("\n", paste(strwrap(cv_choice_note(x, digits)), collapse = "\n"), "\n",
      sep = "")
  cat("\n", paste(strwrap(cv_default_note(x)), collapse = "\n"), "\n", sep = "")
  pr <- x$privacy
  if (pr$private)
    cat(sprintf("\nPrivacy: (epsilon, delta) = (%s, %s) for the whole procedure; accounted epsilon %s\n",
                format(signif(pr$epsilon, digits)), format(signif(pr$delta, digits)),
                format(signif(pr$epsilon_accounted, digits))))
  else cat("\nPrivacy: none (epsilon = Inf)\n")
  cat(privacy_status(pr)$lines, sep = "\n")
  invisible(x)
}

# The one-row table of the chosen penalty (or radius): its value, position,
# the released (clamped) measure and its noise sd when a curve was
# released, and the number of non-zero coefficients.  A private choice is
# labelled as such: it is drawn by the exponential mechanism, not read off
# the minimum of the noisy curve.
cv_choice_table <- function(x, digits = 4) {
  path <- cv_path(x)
  i <- x$index
  tab <- data.frame(Value = signif(path$values[i], digits), Index = i)
  if (!is.null(x$cvm)) {
    tab$Measure <- signif(x$cvm[i], digits)
    tab$SD <- signif(x$cvsd, digits)
  }
  tab$Nonzero <- x$nzero[i]
  names(tab)[1L] <- if (path$name == "radius") "Radius" else "Lambda"
  rownames(tab) <- if (x$privacy$private) "private choice" else "min"
  tab
}

# What the table's row and measure are, in words.
cv_choice_note <- function(x, digits = 4) {
  num <- function(v) format(signif(v, digits))
  path <- cv_path(x)
  how <- if (x$privacy$private)
    paste0("The row is the private choice of ", path$name, ".min: drawn by ",
           "the exponential mechanism from the clamped validation losses, ",
           "so it need not be the minimum of the noisy curve.")
  else paste0("The row is the minimum of the exact validation curve (not ",
              "private).")
  curve <- if (is.null(x$cvm))
    paste0(" No validation curve was released (curve = 0): the measure is ",
           "not shown.")
  else if (x$privacy$private)
    paste0(" Measure: the noisy private release of the validation curve ",
           "(noise sd ", num(x$cvsd), "), clamped to its range [0, ",
           num(x$loss_bound), "] (post-processing).")
  else ""
  rng <- y_range_text(x$dpsco.fit, x$privacy$public_n, x$privacy$epsilon)
  paste0(how, curve, trivial_note(x), if (!is.null(rng)) paste0(" ", rng))
}

# What the choice of the trivial model means, and whether the fit saw any
# signal at all (signal.R); NULL when another candidate was chosen.
trivial_note <- function(x) {
  fit <- x$dpsco.fit
  if (!x$privacy$private || !isTRUE(fit$trivial == x$index)) return(NULL)
  paste0(" The choice is the intercept-only model, which the choice ",
         "prefers unless another penalty's fit is better on the validation ",
         "part by more than its noise could produce.",
         if (!is.null(st <- signal_text(fit$signal, x$privacy$public_n,
                                         x$privacy$epsilon)))
           paste0(" ", st))
}

#' Summarise a private choice of lambda
#'
#' The chosen penalty (or radius), its number of non-zero coefficients,
#' the released validation measure and its noise sd (when a curve was
#' released), how the choice was made, the fit on the training part (as
#' [summary.dpsco()] describes it) and the privacy guarantee of the whole
#' procedure (as [privacy()] states it).
#'
#' @param object a `cv.dpsco` object.
#' @param x a `summary.cv.dpsco` object.
#' @param digits significant digits.
#' @param ... unused.
#' @return An object of class `summary.cv.dpsco`: a list with `name`
#'   (`"lambda"` or `"radius"`), `value` (the chosen value), `index`,
#'   `nzero` (its number of non-zero coefficients), `measure` (the loss),
#'   `cvm` and `cvsd` (the released, clamped measure at the choice and its
#'   noise sd; `NULL` without a curve), `loss_bound`, `guarantee` (the
#'   sentence of [privacy()], `NULL` when not private), `text` (the
#'   paragraphs) and `privacy` (the record).
#' @examples
#' set.seed(1)
#' x <- matrix(rexp(2000 * 5), 2000, 5)
#' y <- drop(x %*% c(2, -1, 0, 0, 0)) + rt(2000, df = 3)
#' summary(cv.dpsco(x, y, epsilon = 1, nlambda = 5))
#' @export
summary.cv.dpsco <- function(object, ...) {
  num <- function(v) format(signif(v, 4))
  path <- cv_path(object)
  pr <- object$privacy
  i <- object$index
  sh <- pr$shares
  sel <- sh[sh$part == "selection", , drop = FALSE]
  # (objects of 0.9.0 carry only the measure's label)
  measure <- object$measure %||%
    names(measure_names)[match(object$name, measure_names)]
  choice <- sprintf(paste(
    "The %s was chosen on a hold-out part of the records (expected sizes,",
    "public: %s training and %s validation records): %s = %s, position %d",
    "of %d, with %d non-zero coefficients. %s"),
    path$name, format_count(object$n_fit),
    format_count(signif(object$n_hold, 6)), path$name, num(path$min), i,
    length(path$values), object$nzero[i],
    if (pr$private) sprintf(paste(
      "It was drawn by the exponential mechanism (report-noisy-min) with",
      "epsilon = %s from the summed %s of the validation records, each",
      "clamped to [0, %s]; it is a private choice, not the minimum of a",
      "noisy curve."), num(sel$epsilon_alone), record_loss_names[[measure]],
      num(object$loss_bound))
    else "It is the minimum of the exact validation curve (not private).")
  curve <- if (is.null(object$cvm))
    "No validation curve was released (curve = 0)."
  else if (pr$private) sprintf(paste(
    "The validation curve (%s) was released by the Gaussian mechanism with",
    "noise sd %s and clamped to [0, %s] (post-processing); at the choice",
    "it reads %s."), tolower(object$name), num(object$cvsd),
    num(object$loss_bound), num(object$cvm[i]))
  else sprintf("The exact validation curve (%s) reads %s at the choice.",
               tolower(object$name), num(object$cvm[i]))
  priv <- if (pr$private) paste0(
    "Privacy: ", pr$guarantee, " Composition: ", pr$composition, " (",
    paste(sprintf("%s records epsilon %s", pr$pools$pool,
                  num(pr$pools$epsilon)), collapse = ", "),
    "). Accounted epsilon ", num(pr$epsilon_accounted), " for a target of ",
    num(pr$epsilon), ". Treated as public: ",
    paste(pr$public, collapse = ", "), ".")
  else "Privacy: none (epsilon = Inf)."
  priv <- paste(priv, privacy_status(pr)$sentence)
  fit_text <- summary(object$dpsco.fit)$text[1L]
  structure(list(name = path$name, value = path$min, index = i,
                 nzero = object$nzero[i], measure = object$name,
                 cvm = if (!is.null(object$cvm)) object$cvm[i],
                 cvsd = object$cvsd, loss_bound = object$loss_bound,
                 guarantee = pr$guarantee,
                 text = c(paste0(choice, trivial_note(object)),
                          y_range_text(object$dpsco.fit, pr$public_n,
                                       pr$epsilon), curve,
                          paste("On the training part:", fit_text), priv),
                 table = cv_choice_table(object), privacy = pr,
                 inference = cv_inference_summary(object)),
            class = "summary.cv.dpsco")
}

#' @rdname summary.cv.dpsco
#' @export
print.summary.cv.dpsco <- function(x, digits = max(3, getOption("digits") - 3),
                                   ...) {
  for (para in x$text) cat(strwrap(para), "", sep = "\n")
  tab <- x$table
  for (j in setdiff(names(tab), c("Index", "Nonzero")))
    tab[[j]] <- signif(tab[[j]], digits)
  print(tab)
  inf <- x$inference
  if (!is.null(inf)) {
    cat("\n", paste(strwrap(inf$text), collapse = "\n"), "\n\n", sep = "")
    if (!is.null(inf$coefficients))
      stats::printCoefmat(inf$coefficients, P.values = TRUE,
                          has.Pvalue = TRUE, cs.ind = 1:4, tst.ind = 5L,
                          na.print = "NA")
  }
  invisible(x)
}

# The penalty (or radius) named by s: "lambda.min" ("radius.min") or
# numbers.  There is no private "lambda.1se": the error says why.
cv_s <- function(object, s) {
  if (is.numeric(s) && length(s) == 1L && is.na(s))
    s <- paste0(cv_path(object)$name, ".1se")   # cvfit$lambda.1se
  if (is.character(s)) {
    path <- cv_path(object)
    ok <- paste0(path$name, ".min")
    if (identical(s, paste0(path$name, ".1se")))
      arg_error("s", "\"", s, "\" is not available for a private choice: ",
                "glmnet's rule reads the minimum of the validation curve ",
                "and its standard error, statistics of the validation ",
                "records that cv.dpsco() does not release, and a second ",
                "private choice would take budget from \"", ok, "\". Use ",
                "\"", ok, "\", or for a sparser model a neighbouring ",
                "released value such as s = cvfit$", path$name,
                "[cvfit$index - 1] (post-processing, no privacy cost).")
    if (!identical(s, ok))
      arg_error("s", "must be \"", ok, "\" or non-negative ", path$name,
                " values.")
    return(path$min)
  }
  s
}

#' Coefficients and predictions at the privately chosen penalty
#'
#' @param object a `cv.dpsco` object.
#' @param newx,type,newoffset as in [predict.dpsco()].
#' @param s `"lambda.min"` (default; glmnet's default is `"lambda.1se"`,
#'   which a private choice does not have) or penalty values; for a path of
#'   radii, `"radius.min"` (the default there) or radii.
#'   `"lambda.1se"` is an error that explains why a private choice has none
#'   (see [cv.dpsco()]).
#' @param gamma for a `cv.dpsco(relax = TRUE)` fit, glmnet's mixing of
#'   the penalised and the relaxed coefficients at `lambda.min`:
#'   `gamma * lasso + (1 - gamma) * refit`; 1 (default) is the penalised
#'   fit, 0 the selected model's unpenalised refit.
#' @param ... not used; any argument given here is an error.
#' @return As [coef.dpsco()] and [predict.dpsco()] (for a multinomial fit,
#'   [coef.dpsco_multinomial()]: a list per class, arrays by class).
#' @export
coef.cv.dpsco <- function(object, s = "lambda.min", gamma = 1, ...) {
  check_no_dots(list(...), "coef")
  s <- cv_min_alias(object, if (!missing(s)) s)
  b <- stats::coef(matrix_fit(object$dpsco.fit), s = cv_s(object, s))
  relaxed_coef(object, b, s, gamma)
}

# The coefficients at lambda.min mixed with the selected model's refit
# (cv.dpsco(relax = TRUE)): gamma b + (1 - gamma) refit, the refit 0
# outside the selected columns (its intercept the refit's).
relaxed_coef <- function(object, b, s, gamma) {
  check_number(gamma, "gamma", 0, 1, lower_open = FALSE)
  if (gamma == 1) return(b)
  if (!isTRUE(object$relax))
    arg_error("gamma", "needs a relaxed fit: cv.dpsco(relax = TRUE).")
  if (!identical(s, paste0(cv_path(object)$name, ".min")))
    arg_error("gamma", "applies at s = \"lambda.min\", the model that was ",
              "refitted.")
  if (!is.null(object$inference$refused))
    stop(structure(class = c("dpsco_inference_refused", "dpsco_error",
                             "error", "condition"),
      list(message = paste("the relaxed refit has no estimate:",
                           refusal_text(object$inference)), call = NULL)))
  est <- object$inference$estimate
  r <- b
  r[-1L, ] <- 0
  r[names(est), ] <- est
  gamma * b + (1 - gamma) * r
}

#' @rdname coef.cv.dpsco
#' @export
predict.cv.dpsco <- function(object, newx, s = "lambda.min", type = "link",
                             newoffset = NULL, gamma = 1, ...) {
  check_no_dots(list(...), "predict")
  s <- cv_min_alias(object, if (!missing(s)) s)
  fit <- matrix_fit(object$dpsco.fit)
  if (!identical(gamma, 1)) {
    # the relaxed coefficients as a one-penalty path of the same fit
    b <- relaxed_coef(object, stats::coef(fit, s = cv_s(object, s)), s,
                      gamma)
    fit$a0 <- stats::setNames(b[1L, 1L], "s0")
    fit$beta <- b[-1L, , drop = FALSE]
    fit$lambda <- fit$lambda[object$index]
    s <- fit$lambda
  }
  stats::predict(fit, newx, s = cv_s(object, s), type = type,
                 newoffset = newoffset)
}

# A fit as its matrix methods see it (a formula fit's methods take
# newdata; newx here is already a matrix).
matrix_fit <- function(fit) {
  structure(fit, class = setdiff(class(fit), "dpsco_formula"))
}
