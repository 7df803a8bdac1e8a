#' Families given as glmnet users give them
#'
#' `family` in [dpsco()] and [cv.dpsco()] takes a name or a family object of
#' the stats package, mapped through one table to the families the package
#' fits:
#' \describe{
#'   \item{`gaussian()`}{`"gaussian"`, identity link only.}
#'   \item{`binomial()`}{`"binomial"`, logit link only (the logistic loss
#'     is the one whose per-record gradient the oracles bound; a probit or
#'     cloglog link is an error).}
#'   \item{`poisson()`}{`"poisson"`, log link only.}
#' }
#' Other links are an error, and so are `quasibinomial()` and
#' `quasipoisson()`: their point estimates are those of `binomial()` and
#' `poisson()`, but a quasi family promises a dispersion estimate that no
#' private fit here releases, so the error asks for the plain family.  The
#' function itself (`family = binomial` without the parentheses) is
#' accepted as `binomial()`.
#'
#' **Not available.**  `family = "cox"`: the partial likelihood's gradient
#' for one record sums over its risk set, the other records still at risk,
#' so one record added or removed changes the gradient terms of many
#' others; the add/remove sensitivity analysis of the gradient oracles,
#' which bounds one record's own term, does not apply.  `"mgaussian"` is
#' not fitted either.
#'
#' **Multinomial.**  `family = "multinomial"` (a name only: the stats
#' package has no multinomial family object) fits glmnet's symmetric
#' multinomial model, one coefficient vector per class, each penalised.
#' The classes are y's declared factor levels (a level absent from the data
#' keeps its coefficients and its probability); a y that is not a factor is
#' an error, since its classes would be read from the data.
#'
#' **Binomial counts.**  glmnet takes a two-column matrix of (successes,
#' failures) for the binomial family.  Here the unit of privacy is the
#' record: such a matrix must be expanded to one 0/1 record per trial
#' (e.g. `y01 <- rep(rep(c(1, 0), nrow(y)), t(y))` with
#' `x[rep(seq_len(nrow(y)), rowSums(y)), ]`), and the public number of
#' records `public_n` is then the number of trials.  The package does not
#' expand it itself: the number of trials is read from the data, so it
#' would become a divisor taken on the data, and one row of counts stands
#' for many records, so the guarantee for one record would not protect a
#' row.
#'
#' @name dpsco_families
#' @keywords internal
NULL

# stats family name -> (package family, its one supported link)
family_map <- list(
  gaussian = list(name = "gaussian", link = "identity"),
  binomial = list(name = "binomial", link = "logit"),
  poisson = list(name = "poisson", link = "log"),
  quasibinomial = list(name = "binomial", link = "logit", quasi = TRUE),
  quasipoisson = list(name = "poisson", link = "log", quasi = TRUE)
)

# The family argument as a name the fitting functions match: a family
# object (or its constructor) is mapped through family_map; a name passes
# through, except the ones refused with a reason.
family_arg <- function(family) {
  if (is.function(family)) {
    family <- tryCatch(family(), error = function(e) NULL)
    if (!inherits(family, "family"))
      arg_error("family", "must be a name or a family object such as ",
                "binomial().")
  }
  if (inherits(family, "family")) {
    fam <- family_map[[family$family]]
    if (is.null(fam) || !fam$name %in% names(family_codes))
      arg_error("family", "= ", family$family, "() has no counterpart here; ",
                "the families are ",
                paste0("\"", names(family_codes), "\"", collapse = ", "), ".")
    if (isTRUE(fam$quasi))
      arg_error("family", "= ", family$family, "() is not available: its ",
                "coefficients are those of family = \"", fam$name, "\", ",
                "but no dispersion is estimated privately; use \"",
                fam$name, "\".")
    if (!identical(family$link, fam$link))
      arg_error("family", "= ", family$family, "(link = \"", family$link,
                "\") is not available: only the ", fam$link, " link is ",
                "fitted (its per-record gradient is the one the private ",
                "oracles bound).")
    return(fam$name)
  }
  if (identical(family, "cox"))
    arg_error("family", "= \"cox\" is not available: the partial ",
              "likelihood's gradient for one record sums over its risk set ",
              "(the other records still at risk), so adding or removing one ",
              "record changes the terms of many others, and the add/remove ",
              "sensitivity bound of the gradient oracles does not hold.")
  if (is.character(family) && length(family) == 1L &&
      family %in% "mgaussian")
    arg_error("family", "= \"", family, "\" is not available; the families ",
              "are ", paste0("\"", names(family_codes), "\"", collapse = ", "),
              ".")
  family
}

# A binomial y given as glmnet's two-column (successes, failures) matrix:
# refused with the way to expand it (see ?dpsco_families).  `family` a
# family object or its name.
check_y_columns <- function(y, family) {
  if (!is.matrix(y) && !is.data.frame(y)) return(invisible())
  if (NCOL(y) < 2L) return(invisible())
  if (isTRUE(family_object(family)$trials_matrix))
    arg_error("y", "is a ", NCOL(y), "-column matrix; a binomial y of ",
              "(successes, failures) counts is not supported: privacy ",
              "protects one record, and a row of counts stands for several ",
              "trials whose number is read from the data.  Expand it to one ",
              "0/1 record per trial, e.g. y01 <- rep(rep(c(1, 0), nrow(y)), ",
              "t(y)) and x[rep(seq_len(nrow(y)), rowSums(y)), ], and declare ",
              "public_n as the number of trials (see ?dpsco_families).")
  arg_error("y", "must be a vector (one response per record); got a ",
            NCOL(y), "-column ", if (is.data.frame(y)) "data frame" else "matrix",
            ".")
}
