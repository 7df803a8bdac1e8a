# Standard errors, intervals and tests from the inference stage's released
# values (R/inference.R).  Everything here is post-processing: it reads
# fit$inference, never the data, so it costs no budget.

# The inference of a fit, or a classed error saying how to get it.
fit_inference <- function(object) {
  inf <- object$inference
  if (is.null(inf))
    stop(structure(class = c("dpsco_no_inference", "dpsco_error", "error",
                             "condition"),
      list(message = paste(
        "this fit released nothing for inference, and confint(), vcov()",
        "and the coefficient table never read the data; refit with",
        "inference = TRUE (a share of the same budget)"),
        call = NULL)))
  inf
}

# Warn, with a classed condition, that the intervals were refused.
inference_refused <- function(inf) {
  warning(structure(class = c("dpsco_inference_unreliable", "warning",
                              "condition"),
    list(message = paste0(
      "no standard errors or intervals: ", inf$refused, ".  Remedies: a ",
      "larger inference share (inference = 0.6) or epsilon, fewer ",
      "coefficients, declared bounds on x (dpsco_control(x_bound = )), or ",
      "more records."), call = NULL)))
}

#' Standard errors, confidence intervals and tests of a private fit
#'
#' A fit made with `inference = TRUE` carries the released values of its
#' inference stage: an estimate of the coefficients of the unpenalised
#' model on the scale of x (rows beyond a released row bound are weighted
#' down, never clamped, so the estimand is `glm()`'s coefficients when the
#' model's mean is right), the sandwich covariance of its bounded score
#' and the exact covariance of the privacy noise of its last release.
#' `vcov()`, `confint()`, the coefficient table of `summary()` (its
#' element `coefficients`) and `tidy(conf.int = TRUE)` are functions of
#' those released values only:
#' they never read the data and cost no budget.
#'
#' The covariance is `V = H^-1 J H^-1 / n + s^2 H^-2 + P`, with H the
#' released bread (the expected Jacobian of the score), J the released
#' meat (its second moment) and s the noise sd of the released score; the
#' first term is the sampling part, the rest the privacy part, where P is
#' the first-order effect of the bread's known noise on the estimate
#' through the final point's own noise.  Wald intervals
#' are `estimate +- z sqrt(diag(V))`.  `method = "bootstrap"` draws the
#' released bread, meat and score again from their known noise (with the
#' released values as the truth) and inverts the distribution of the
#' t-ratio (a parametric bootstrap-t of the released statistics); it
#' widens the interval where the noise of the bread and meat makes the
#' standard error itself uncertain.
#'
#' When the released bread is too noisy to invert reliably (its smallest
#' eigenvalue below the typical spectral norm of its noise) or the
#' private Newton steps had not converged, no standard error is given:
#' the values are `NA` and a warning of class
#' `dpsco_inference_unreliable` names the remedies.
#'
#' @param object a `dpsco` fit made with `inference = TRUE`.
#' @param parm coefficients, by name or position (all by default).
#' @param level the confidence level.
#' @param method `"wald"` (default) or `"bootstrap"`.
#' @param B bootstrap draws.
#' @param ... not used.
#' @return `vcov()`: the covariance matrix, with attributes `sampling` and
#'   `privacy` (its two parts).  `confint()`: a matrix with one row per
#'   coefficient and the columns of its lower and upper limits.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(5000 * 3), 5000, 3)
#' y <- drop(x %*% c(1, -0.5, 0)) + rnorm(5000)
#' fit <- dpsco(x, y, epsilon = 1, inference = TRUE)
#' confint(fit)
#' summary(fit)$coefficients
#' @name dpsco_inference
NULL

#' @rdname dpsco_inference
#' @export
vcov.dpsco <- function(object, ...) {
  check_no_dots(list(...), "vcov")
  inf <- fit_inference(object)
  d <- length(inf$names)
  if (!is.null(inf$refused)) {
    inference_refused(inf)
    na <- matrix(NA_real_, d, d, dimnames = list(inf$names, inf$names))
    return(structure(na, sampling = na, privacy = na))
  }
  structure(inf$vcov_sampling + inf$vcov_privacy,
            sampling = inf$vcov_sampling, privacy = inf$vcov_privacy)
}

#' @rdname dpsco_inference
#' @export
confint.dpsco <- function(object, parm, level = 0.95,
                          method = c("wald", "bootstrap"), B = 1000L, ...) {
  check_no_dots(list(...), "confint")
  inf <- fit_inference(object)
  method <- match_choice(method, "method", c("wald", "bootstrap"))
  check_number(level, "level", 0, 1)
  idx <- inference_parm(inf, parm)
  a <- (1 - level) / 2
  cols <- paste(format(100 * c(a, 1 - a), trim = TRUE, scientific = FALSE,
                       digits = 3), "%")
  out <- matrix(NA_real_, length(idx), 2L,
                dimnames = list(inf$names[idx], cols))
  if (!is.null(inf$refused)) {
    inference_refused(inf)
    return(out)
  }
  est <- inf$estimate[idx]
  se <- sqrt(diag(inf$vcov_sampling + inf$vcov_privacy))[idx]
  q <- if (method == "wald") c(-1, 1) * stats::qnorm(1 - a)
       else {
         check_count(B, "B", 100, 1e6)
         tq <- inference_bootstrap(inf, B)[, idx, drop = FALSE]
         # t-ratios (estimate* - estimate) / se*: the interval inverts them
         rbind(-apply(tq, 2L, stats::quantile, 1 - a, na.rm = TRUE),
               -apply(tq, 2L, stats::quantile, a, na.rm = TRUE))
       }
  if (is.matrix(q)) out[] <- cbind(est + q[1L, ] * se, est + q[2L, ] * se)
  else out[] <- cbind(est + q[1L] * se, est + q[2L] * se)
  out
}

# The positions of `parm` among the coefficients.
inference_parm <- function(inf, parm) {
  if (missing(parm) || is.null(parm)) return(seq_along(inf$names))
  idx <- if (is.character(parm)) match(parm, inf$names)
         else if (is.numeric(parm)) parm
  if (is.null(idx) || anyNA(idx) || any(idx < 1 | idx > length(inf$names)) ||
      any(idx != round(idx)))
    arg_error("parm", "must name coefficients (",
              paste(inf$names, collapse = ", "), ") or give their positions.")
  idx
}

# The parametric bootstrap-t of the released statistics: B draws of the
# t-ratio (estimate* - estimate) / se* with the released bread H and meat
# J as the truth, a sampling score N(0, J / n), and fresh noise of the
# score, the bread and the meat from their known mechanisms (symmetric
# Gaussian matrices of the released sds); draws whose bread the refusal
# rule would reject count as NA.  Returns a B x d matrix on the scale of x.
inference_bootstrap <- function(inf, B) {
  d <- nrow(inf$bread)
  sd <- inf$sd
  jroot <- chol_psd(floor_eigen(inf$meat, 0) / inf$n)
  droot <- chol_psd(inf$step_cov %||% matrix(0, d, d))
  sym_noise <- function(s) {
    e <- matrix(stats::rnorm(d * d), d, d)
    e[lower.tri(e)] <- t(e)[lower.tri(e)]
    s * e
  }
  level <- inference_refusal()
  t(vapply(seq_len(B), function(b) {
    h <- inf$bread + sym_noise(sd[["bread"]])
    lmin <- min(eigen(h, symmetric = TRUE, only.values = TRUE)$values)
    if (!(lmin > level * inf$noise_norm)) return(rep(NA_real_, d))
    # the sampling score, the final score's noise, and the bread's noise
    # acting on the final point's own noise (inference_privacy_cov())
    g <- drop(crossprod(jroot, stats::rnorm(d))) +
      sd[["score"]] * stats::rnorm(d) +
      drop(sym_noise(sd[["bread"]]) %*% crossprod(droot, stats::rnorm(d)))
    if (rcond(h) < 1e-12) return(rep(NA_real_, d))
    hi <- solve(h)
    j <- floor_eigen(inf$meat + sym_noise(sd[["meat"]]), 0)
    v <- inf$map %*% (hi %*% j %*% hi / inf$n +
                        inference_privacy_cov(hi, sd, inf$step_cov)) %*%
      t(inf$map)
    drop(inf$map %*% hi %*% g) / sqrt(diag(v))
  }, numeric(d)))
}

# A square root R' R = m of a positive semi-definite m.
chol_psd <- function(m) {
  ev <- eigen(m, symmetric = TRUE)
  t(ev$vectors %*% (sqrt(pmax(ev$values, 0)) * t(ev$vectors)))
}

# The coefficient table of summary() (and tidy(conf.int = TRUE)):
# estimate, standard error with its sampling and privacy parts, z and p.
inference_table <- function(inf) {
  refused <- !is.null(inf$refused)
  if (refused) inference_refused(inf)
  part <- function(v) if (refused) rep(NA_real_, length(inf$names))
                      else sqrt(diag(v))
  ss <- part(inf$vcov_sampling)
  sp <- part(inf$vcov_privacy)
  se <- sqrt(ss^2 + sp^2)
  zv <- inf$estimate / se
  data.frame(Estimate = unname(inf$estimate), `Std. Error` = se,
             sampling = ss, privacy = sp, `z value` = unname(zv),
             `Pr(>|z|)` = unname(2 * stats::pnorm(-abs(zv))),
             row.names = inf$names, check.names = FALSE)
}

# The paragraph of summary() on the inference stage.
inference_text <- function(inf) {
  num <- function(v) format(signif(v, 3))
  sprintf(paste(
    "Inference: the unpenalised %s model on all %d coefficients, estimated",
    "by private Newton steps on a bounded score (Mallows row weights at the",
    "released row bound %s of the stage's design%s) with a share %s of the",
    "budget.  Std. Error = sqrt(sampling^2 + privacy^2): the released",
    "sandwich and the known noise of the final release.  The estimand is",
    "glm()'s coefficients on x when the model's mean is right; rows beyond",
    "the row bound are weighted down, never clamped.%s"),
    inf$family, length(inf$names), num(inf$row_bound),
    if (is.finite(inf$clamp)) paste0(", residuals clamped at ",
                                     num(inf$clamp)) else "",
    num(inf$share),
    if (is.null(inf$refused)) ""
    else paste0("  No standard errors: ", inf$refused, "."))
}

# The line print() adds for a fit with the inference stage.
inference_line <- function(inf) {
  if (is.null(inf)) return(NULL)
  if (!is.null(inf$refused))
    return(paste0("Inference (share ", format(signif(inf$share, 3)),
                  "): no standard errors, ", inf$refused,
                  "; see confint() for the remedies."))
  paste0("Inference (share ", format(signif(inf$share, 3)), "): standard ",
         "errors and intervals of the unpenalised model's ",
         length(inf$names), " coefficients in summary(), confint() and ",
         "vcov().")
}
