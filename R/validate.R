# Input checking.  Every problem raises a condition of class
# "dpsco_arg_error" (also "dpsco_error", "error") whose `arg` field names the
# offending argument, so callers can catch and report it precisely.

#' Errors raised by dpsco
#'
#' Bad input never reaches the compiled code: every check fails with an R
#' error of class `dpsco_arg_error` (inheriting from `dpsco_error` and
#' `error`).  The condition carries the name of the offending argument in its
#' `arg` field, e.g.
#' `tryCatch(dpsco(x, y, epsilon = -1), dpsco_arg_error = function(e) e$arg)`
#' returns `"epsilon"`.
#'
#' Checked are: missing, NaN or infinite values in `x` or `y`, non-numeric
#' `x`, mismatched rows, no columns or fewer than two rows, responses outside
#' the family (`binomial` needs 0/1 values or a two-level factor), `epsilon`
#' not positive (or infinite with a private method), `delta` outside (0, 1),
#' `batch_size` outside \[1, n\], non-positive `iterations`, `step_size`,
#' clipping level, `rho`, `s`, `nu` or `tau`, `lambda` values that are
#' negative, missing, repeated or not decreasing, and choices (`family`,
#' `method`, `calibration`, `type`, `schedule`, `output`) outside their
#' lists.
#'
#' Size limits: a path has at most 10,000 penalties and at most
#' `2^31 - 1` steps in all (`iterations` times the number of penalties; the
#' default `iterations` counts too), a trace holds at most `2^31 - 1`
#' numbers, and the accountant's Renyi orders are at most `1e4`.  These are
#' checked before anything is allocated or run, so a request that would
#' overflow the engine's integer counters or run for days fails at once.
#'
#' A fit on data sharded across a cluster ([dpsco_shards()]) whose worker
#' raises an error or stops answering fails with a `dpsco_shard_error`
#' (also `dpsco_error`, `error`): its `worker` field is the worker's number
#' and its `released` field lists what the fit had already released
#' (`settings`, the private settings' releases, and `gradients`, the
#' number of noisy gradients), whose budget is spent.
#'
#' @name dpsco_errors
#' @keywords internal
NULL

arg_error <- function(arg, ...) {
  msg <- paste0("`", arg, "` ", ...)
  cond <- structure(
    class = c("dpsco_arg_error", "dpsco_error", "error", "condition"),
    list(message = msg, call = user_call(), arg = arg)
  )
  stop(cond)
}

# The call the user wrote that led here: the outermost frame running a
# function of this package (so not a helper such as check_number()), or,
# when that frame is an S3 method, the call of the generic that dispatched
# to it (predict(fit, ...) rather than predict.dpsco(fit, ...)).  Falls
# back to the caller of the caller when no frame belongs to the package.
user_call <- function() {
  ns <- topenv(environment(user_call))
  n <- sys.nframe() - 1L
  for (i in seq_len(n)) {
    f <- sys.function(i)
    if (!is.function(f) || is.primitive(f) ||
        !identical(topenv(environment(f)), ns)) next
    if (i > 1L) {
      g <- sys.function(i - 1L)
      if (is.function(g) && !is.primitive(g) &&
          "UseMethod" %in% all.names(body(g)))
        return(sys.call(i - 1L))
    }
    return(sys.call(i))
  }
  sys.call(-2L)
}

# A classed warning for anything the privacy guarantee does not cover.
privacy_warning <- function(...) {
  msg <- paste0(...)
  warning(structure(
    class = c("dpsco_privacy_warning", "warning", "condition"),
    list(message = msg, call = user_call())))
}

check_number <- function(v, arg, lower = -Inf, upper = Inf,
                         lower_open = TRUE, allow_inf = FALSE,
                         upper_open = FALSE) {
  if (!is.numeric(v) || length(v) != 1L || is.na(v))
    arg_error(arg, "must be a single number.")
  if (is.infinite(v) && !allow_inf)
    arg_error(arg, "must be finite.")
  bad_low <- if (lower_open) v <= lower else v < lower
  bad_high <- if (upper_open) v >= upper else v > upper
  if (bad_low || bad_high) {
    # the interval as it is checked: an infinite end is open unless allowed
    shut <- !upper_open && (is.finite(upper) || allow_inf)
    range <- paste0(if (lower_open) "(" else "[", lower, ", ", upper,
                    if (shut) "]" else ")")
    arg_error(arg, "must lie in ", range, "; got ", format(v), ".")
  }
  invisible(as.double(v))
}

# match.arg() with a dpsco_arg_error and exact matching: `value` is the
# caller's argument of that name, whose default lists the choices (the
# first is the default).  An abbreviation is an error, not a guess: two
# methods may share a prefix and differ in their privacy analysis.
match_choice <- function(value, arg, choices = NULL) {
  # the choices are the caller's default for `arg` unless given (a NULL
  # default, e.g. optimizer = NULL, has no choices of its own)
  if (is.null(choices))
    choices <- eval(formals(sys.function(sys.parent()))[[arg]])
  if (identical(value, choices)) return(choices[1L])
  if (is.character(value) && length(value) == 1L && !is.na(value) &&
      value %in% choices)
    return(value)
  got <- if (is.character(value) && length(value) == 1L)
           paste0("; got \"", value, "\"") else ""
  arg_error(arg, "must be one of ",
            paste0("\"", choices, "\"", collapse = ", "), got,
            " (choices are matched exactly).")
}

# The target of a private release: 0 < epsilon < Inf and 0 < delta < 1,
# delta defaulting to 0.1 / n for the public size n.  A delta of 1 / n or
# more allows a mechanism that publishes one record in full, so it is
# warned about.  Returns delta.
check_target <- function(epsilon, delta, n) {
  if (identical(epsilon, Inf))
    arg_error("epsilon", "must be finite for a private method (Inf only ",
              "with method = \"none\").")
  check_number(epsilon, "epsilon", 0)
  delta <- delta %||% (0.1 / n)
  check_number(delta, "delta", 0, 1, upper_open = TRUE)
  if (delta >= 1 / n)
    privacy_warning("delta = ", format(signif(delta, 4)), " is not below ",
                    "1 / n = ", format(signif(1 / n, 4)), " (n = ",
                    format(n), ", the public number of records): at that ",
                    "delta a release may publish one whole record; ",
                    "choose delta well below 1 / n (the default is 0.1 / n).")
  delta
}

# The declared public number of records: NULL takes the number of rows
# given (the count itself is then not protected).  Every divisor and noise
# scale of a fit is derived from it, never from the rows actually present.
check_public_n <- function(public_n, n_rows) {
  if (is.null(public_n)) return(as.double(n_rows))
  check_number(public_n, "public_n", 1, lower_open = FALSE)
  if (public_n != round(public_n))
    arg_error("public_n", "must be a whole number (a number of records); ",
              "got ", format(public_n), ".")
  as.double(public_n)
}

check_count <- function(v, arg, lower = 1, upper = .Machine$integer.max) {
  check_number(v, arg, lower, upper, lower_open = FALSE)
  if (v != round(v)) arg_error(arg, "must be a whole number; got ", v, ".")
  # beyond the int range (allowed only with a larger `upper`) stays double
  invisible(if (v <= .Machine$integer.max) as.integer(v) else as.double(v))
}

check_x <- function(x, arg = "x", min_rows = 2L) {
  if (inherits(x, "Matrix") || is.data.frame(x)) {
    if (is.data.frame(x) &&
        !all(vapply(x, function(v) is.numeric(v) || is.logical(v), NA)))
      arg_error(arg, "must be numeric; a data frame needs all columns ",
                "numeric (code factor or character columns first, e.g. ",
                "with model.matrix()).")
    # a sparse Matrix is densified: the engine streams dense records
    x <- as.matrix(x)
  }
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x)))
    arg_error(arg, "must be a numeric matrix (one row per record; use ",
              "x[i, , drop = FALSE] for a single row).")
  if (ncol(x) < 1L) arg_error(arg, "has no columns.")
  if (nrow(x) < min_rows)
    arg_error(arg, "needs at least ", min_rows, " row", if (min_rows > 1L) "s", ".")
  # converted only when needed, so a double matrix is never copied here
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!.Call(C_dpsco_all_finite, x))
    arg_error(arg, "contains NA, NaN or infinite values.")
  x
}

# Returns list(y = numeric 0/1 or real, classnames = NULL or the two levels).
# `fam`: the family object.
# The most classes of a multinomial fit (src/dpsco.h, MAX_CLASSES).
max_classes <- 256L

check_y <- function(y, n, fam) {
  if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
  if (!is.atomic(y) || is.complex(y))
    arg_error("y", "must be a numeric vector (or, for the binomial family, ",
              "0/1, logical or a two-level factor).")
  if (length(y) != n)
    arg_error("y", "has length ", length(y), " but x has ", n, " rows.")
  classnames <- NULL
  if (fam$multi) {
    # the classes are the factor's declared levels (public); values or
    # labels of another type would name classes read from the data
    if (!is.factor(y))
      arg_error("y", "must be a factor for the multinomial family: its ",
                "levels declare the classes (e.g. factor(y, levels = ",
                "c(\"a\", \"b\", \"c\"))), which a ", class(y)[1L],
                " would take from the values present.")
    if (anyNA(y)) arg_error("y", "contains missing values.")
    if (nlevels(y) < 2L || nlevels(y) > max_classes)
      arg_error("y", "must declare between 2 and ", max_classes,
                " classes for the multinomial family; it has ", nlevels(y),
                ".")
    return(list(y = as.double(as.integer(y) - 1L), classnames = levels(y)))
  }
  if (fam$classes) {
    # a character y would take its classes from the values present, which
    # the fit would then report (in its class names, or in an error when
    # one is absent): the two classes must be declared
    if (is.character(y))
      arg_error("y", "is a character vector, whose classes would be read ",
                "from the data; give a factor that declares its two classes ",
                "(factor(y, levels = c(\"no\", \"yes\"))) or 0/1.")
    if (is.factor(y)) {
      # a factor keeps its declared levels (public), so an absent class is
      # not reported from the data
      if (anyNA(y)) arg_error("y", "contains missing values.")
      if (nlevels(y) != 2L)
        arg_error("y", "must have exactly two classes for the binomial ",
                  "family; found ", nlevels(y), ".")
      classnames <- levels(y)
      y <- as.double(y == classnames[2L])
    } else {
      if (!(is.numeric(y) || is.logical(y)) || anyNA(y))
        arg_error("y", "must be 0/1 (or a two-level factor) without missing values.")
      if (!all(y %in% c(0, 1)))
        arg_error("y", "must contain only 0 and 1 for the binomial family.")
      classnames <- c("0", "1")
      y <- as.double(y)
    }
  } else {
    if (!(is.numeric(y) || is.logical(y)))
      arg_error("y", "must be numeric for the ", fam$name, " family",
                if (is.factor(y)) "; a factor response needs family = \"binomial\"",
                ".")
    if (!all(is.finite(y)))
      arg_error("y", "contains NA, NaN or infinite values.")
    # the family's own check (poisson: non-negative counts); the messages
    # name the problem, never a count or value of the data
    if (!is.null(fam$y_check)) fam$y_check(y)
    y <- as.double(y)
  }
  list(y = y, classnames = classnames)
}

check_lambda <- function(lambda) {
  if (!is.numeric(lambda) || length(lambda) < 1L || anyNA(lambda))
    arg_error("lambda", "must be a numeric vector without missing values.")
  if (length(lambda) > max_nlambda)
    arg_error("lambda", "has ", length(lambda), " values; at most ",
              max_nlambda, " are allowed (each penalty spends budget).")
  if (any(!is.finite(lambda)) || any(lambda < 0))
    arg_error("lambda", "must be finite and non-negative.")
  if (anyDuplicated(lambda))
    arg_error("lambda", "must not contain repeated values.")
  if (is.unsorted(rev(lambda), strictly = TRUE))
    arg_error("lambda", "must be decreasing (largest first), as a path is ",
              "fitted from strong to weak penalties.")
  as.double(lambda)
}

check_penalty_factor <- function(pf, p) {
  if (!is.numeric(pf) || length(pf) != p || !all(is.finite(pf)) || any(pf < 0))
    arg_error("penalty.factor", "must be ", p,
              " finite non-negative numbers (one per column of x).")
  if (all(pf == 0))
    arg_error("penalty.factor", "must have at least one positive entry.")
  # glmnet's convention: rescale to sum to the number of variables
  as.double(pf * p / sum(pf))
}

check_trace <- function(trace, steps) {
  if (is.null(trace) || isFALSE(trace)) return(integer(0))
  if (isTRUE(trace)) return(seq_len(steps))
  if (!is.numeric(trace) || anyNA(trace) || any(trace != round(trace)) ||
      any(trace < 1) || any(trace > steps))
    arg_error("trace", "must be TRUE, FALSE or whole step numbers in [1, ",
              steps, "].")
  sort(unique(as.integer(trace)))
}

# Size limits.  The engine indexes records, columns and steps with C ints and
# the outputs are R arrays, so every size is checked here in double
# arithmetic before anything is allocated or run.  A path has at most
# `max_nlambda` penalties and at most 2^31 - 1 steps in all; the trace holds
# at most 2^31 - 1 numbers.
max_nlambda <- 10000L

check_sizes <- function(p, intercept, nlambda, steps, trace, default_steps) {
  int_max <- .Machine$integer.max
  # an upper bound on the traced steps, before check_trace() expands TRUE
  ntrace <- if (isTRUE(trace)) steps else if (is.numeric(trace)) length(trace) else 0
  if (as.double(p) + intercept > int_max)
    arg_error("x", "has ", p, " columns; at most ", int_max - 1,
              " are supported.")
  if (nlambda > max_nlambda)
    arg_error("nlambda", "must be at most ", max_nlambda,
              " (each penalty spends budget); got ", nlambda, ".")
  total <- as.double(nlambda) * steps
  if (total > int_max)
    arg_error(if (default_steps) "batch_size" else "iterations",
              "gives ", format(total), " steps in all (", steps,
              " per lambda x ", nlambda, " lambdas); at most ", int_max,
              " are supported: use fewer iterations",
              if (default_steps) " (the default is 5 (n / batch_size)^2) or a larger batch_size",
              " or fewer lambdas.")
  if ((as.double(p) + intercept) * ntrace * nlambda > int_max)
    arg_error("trace", "would keep ", format((as.double(p) + intercept) *
              ntrace * nlambda), " numbers; at most ", int_max,
              " are supported: trace fewer steps.")
  invisible(total)
}

# glmnet arguments that dpsco() or cv.dpsco() do not take, with why and
# what to use instead (the error names the argument).
glmnet_reasons <- list(
  nfolds = paste(
    "is not available: cv.dpsco() holds out one private split (`holdout`,",
    "0.2 by default) instead of k folds.  With folds each record would enter",
    "k - 1 of the k fits, so each fit could spend only a (k - 1)-th of the",
    "budget; one split gives the whole budget to the path and to the choice",
    "(parallel composition)."),
  relax = paste(
    "is an argument of cv.dpsco(): a relaxed fit refits the model selected",
    "at one penalty, which cv.dpsco() chooses privately; with relax = TRUE",
    "it refits that model on records the path did not see (no extra",
    "epsilon, by parallel composition)."),
  parallel = paste(
    "is not needed: the fit runs its passes over the records in threads",
    "(`threads`), and cv.dpsco() fits one path, not one per fold."),
  gamma = paste(
    "is an argument of coef() and predict() on a cv.dpsco(relax = TRUE)",
    "fit.")
)
glmnet_reasons$foldid <- glmnet_reasons$nfolds

# Arguments passed on through `...` to dpsco(): each must be named and be
# one of dpsco()'s arguments (`allowed`) that the caller does not set
# itself (`taken`), so that a misspelt name is an error naming it rather
# than R's "unused argument" from deeper down, or a silent partial match.
check_dots_names <- function(dots, allowed, taken, caller) {
  nm <- names(dots) %||% rep("", length(dots))
  if (any(!nzchar(nm)))
    arg_error("...", "must be named arguments of dpsco(), which ", caller,
              "() passes them on to.")
  bad <- nm[!nm %in% setdiff(allowed, taken)]
  if (length(bad) && bad[1L] %in% names(glmnet_reasons))
    arg_error(bad[1L], glmnet_reasons[[bad[1L]]])
  if (length(bad))
    arg_error(bad[1L], if (bad[1L] %in% taken)
                paste0("is set by ", caller, "() itself; give it to ", caller,
                       "() directly.")
              else paste0("is not an argument of dpsco(), which ", caller,
                          "() passes `...` on to (names are matched exactly)."))
}

# Methods whose `...` only exists for the generic: anything passed there
# is an error naming it.  `exact = TRUE` (glmnet's refit at new penalties)
# gets its own reason.
check_no_dots <- function(dots, caller) {
  if (!length(dots)) return(invisible())
  nm <- names(dots) %||% rep("", length(dots))
  arg <- if (nzchar(nm[1L])) nm[1L] else "..."
  if (arg == "exact")
    arg_error("exact", "is not available: refitting at new penalties would ",
              "read the data again outside the privacy budget; ", caller,
              "() interpolates along the released path.")
  if (arg %in% names(glmnet_reasons)) arg_error(arg, glmnet_reasons[[arg]])
  arg_error(arg, "is not an argument of ", caller, "().")
}

# Per-record weights of dpsco() and cv.dpsco(): NULL (every record 1) or n
# finite values in [0, 1].  The bound 1 is what every sensitivity assumes
# (a weight multiplies its record's gradient): weights on another scale
# must be divided by a bound known without the data, never by their
# largest value.
check_weights <- function(weights, n) {
  if (is.null(weights)) return(NULL)
  if (is.matrix(weights) && ncol(weights) == 1L) weights <- drop(weights)
  if (!is.numeric(weights) || !is.null(dim(weights)))
    arg_error("weights", "must be a numeric vector.")
  weights <- as.double(weights)
  if (length(weights) != n)
    arg_error("weights", "has length ", length(weights), " but x has ", n,
              " rows.")
  if (anyNA(weights) || any(!is.finite(weights)))
    arg_error("weights", "contains NA, NaN or infinite values.")
  if (any(weights < 0) || any(weights > 1))
    # (no min or max in the message: they are values of the data)
    arg_error("weights", "must lie in [0, 1] (the bound every sensitivity ",
              "assumes), and some lie outside it; divide them by a public ",
              "bound on the weights, not by their largest value.")
  weights
}

# Per-record offsets of dpsco(), cv.dpsco() and predict(newoffset = ): NULL
# or n finite values added to the linear predictor.
check_offset <- function(offset, n, arg = "offset") {
  if (is.null(offset)) return(NULL)
  if (is.matrix(offset) && ncol(offset) == 1L) offset <- drop(offset)
  if (!is.numeric(offset) || !is.null(dim(offset)))
    arg_error(arg, "must be a numeric vector.")
  offset <- as.double(offset)
  if (length(offset) != n)
    arg_error(arg, "has length ", length(offset), " but x has ", n, " rows.")
  if (anyNA(offset) || any(!is.finite(offset)))
    arg_error(arg, "contains NA, NaN or infinite values.")
  offset
}
