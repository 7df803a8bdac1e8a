# Standard errors, intervals and tests from the inference stage's released
# values (R/inference.R).  Everything here is post-processing: it reads
# fit$inference, never the data, so it costs no budget.

# ---------------------------------------------------------------------------
# From the released values to the estimate and its covariance

# The refusal rule's multiplier: intervals are refused when the released
# bread's smallest eigenvalue is below this many times the typical
# spectral norm of its noise.  The option exists for the validation
# (bench/inference.R, bench/inference_real.R); the rule is
# post-processing, so no level changes the guarantee.
inference_refusal <- function() getOption("dpsco.inference_refusal", 1)

# The stage's released values turned into what confint(), vcov() and
# summary() show (post-processing only), or the reason the intervals are
# refused.  `st` the stage's released values with `map`, the linear map
# from its whitened coordinates to the scale of x (a result itself will
# do: the rule can be applied again at another level).  The estimate pools the two one-step estimates from the last
# two points, b1 + H^-1 g1 (= b, the final point) and b + H^-1 g2, with
# weights by their scores' precision: the two scores then count as one
# release of their pooled budget.  Its covariance: the sandwich
# H^-1 J H^-1 / n, and the privacy noise of the two scores (in the meat's
# metric J) and of the bread acting on the points' own noise
# (inference_privacy_cov()), all mapped to the scale of x.
inference_result <- function(st, names, share, family, epsilon) {
  d <- length(names)
  sym <- (st$bread + t(st$bread)) / 2
  lmin <- min(eigen(sym, symmetric = TRUE, only.values = TRUE)$values)
  nn <- noise_norm(st$sd[["bread"]], d)
  map <- st$map
  out <- list(family = family, share = share, n = st$n, names = names,
              clip = st$clip, levels = st$levels, sd = st$sd, bread = sym,
              meat = st$meat, metric = st$metric, score = st$score,
              score1 = st$score1, point1 = st$point1,
              point_cov = st$point_cov, point = st$point, map = map,
              capped = st$capped, bread_min = lmin, noise_norm = nn,
              epsilon = epsilon, refused = NULL)
  level <- inference_refusal()
  if (nn > 0 && !(lmin > level * nn)) {
    out$refused <- "too_few"
    out$records_needed <- records_needed(st$n, lmin, level * nn)
  } else if (!(lmin > 0) || rcond(sym) < 1e-12) {
    out$refused <- "singular"
  } else if (st$capped) {
    out$refused <- "not_converged"
  }
  if (!is.null(out$refused)) {
    out$estimate <- stats::setNames(rep(NA_real_, d), names)
    return(out)
  }
  hi <- solve(sym)
  cv <- inference_one_step_covs(hi, st$sd, st$metric, st$point_cov)
  out$settled <- inference_settled(out, hi, cv)
  if (out$settled > inference_settle_level(d)) {
    out$refused <- "not_converged"
    out$estimate <- stats::setNames(rep(NA_real_, d), names)
    return(out)
  }
  est <- inference_point(out, hi, cv)
  out$estimate <- stats::setNames(drop(map %*% est), names)
  vs <- map %*% hi %*% st$meat %*% hi %*% t(map) / st$n
  vp <- map %*% inference_privacy_cov(cv) %*% t(map)
  dimnames(vs) <- dimnames(vp) <- list(names, names)
  out$vcov_sampling <- (vs + t(vs)) / 2
  out$vcov_privacy <- (vp + t(vp)) / 2
  out
}

# The privacy covariances (in the whitened coordinates, to first order)
# of the two one-step estimates e1 = b1 + H^-1 g1 (= b, the final point)
# and e2 = b + H^-1 g2: each score's noise, of covariance sd^2 M (M the
# meat's metric they were released in), and the noise E of the released
# bread acting on the point's own noise delta (b1's from the first steps,
# point_cov; b's from g1): the estimate moves by H^-1 E delta, and for a
# symmetric Gaussian E of entry sd s, Cov(E delta) = s^2 (tr(D) I + D),
# D = Cov(delta).  The two are uncorrelated to first order (the noises
# are independent and of mean zero).
inference_one_step_covs <- function(hi, sd, metric, point_cov) {
  d <- nrow(hi)
  eb <- function(D) sd[["bread"]]^2 * (sum(diag(D)) * diag(d) + D)
  v1 <- hi %*% (sd[["score1"]]^2 * metric + eb(point_cov)) %*% hi
  d1 <- sd[["score1"]]^2 * hi %*% metric %*% hi
  v2 <- hi %*% (sd[["score"]]^2 * metric + eb(d1)) %*% hi
  list(v1 = (v1 + t(v1)) / 2, v2 = (v2 + t(v2)) / 2)
}

# The weight of e2 in the pooled estimate (1 - w) e1 + w e2, by the two
# covariances' traces (the precision's share).
pool_weight <- function(cv) {
  t1 <- sum(diag(cv$v1))
  t2 <- sum(diag(cv$v2))
  if (!(t1 + t2 > 0)) return(1)
  t1 / (t1 + t2)
}

# Whether the steps had settled at the root: the final correction
# e2 - e1 = H^-1 g2 against its covariance v1 + v2 when they have.
# Returns its squared Mahalanobis norm, chi-squared with d degrees of
# freedom when settled.
inference_settled <- function(inf, hi, cv) {
  if (is.null(inf$point1) || !(inf$sd[["score"]] > 0)) return(0)
  s2 <- drop(hi %*% inf$score)
  sum(s2 * solve(cv$v1 + cv$v2, s2))
}

# The level of inference_settled() above which the steps are taken not
# to have settled (the intervals are then refused): the 0.999 quantile of
# its chi-squared law, times the option's factor (for the validation).
inference_settle_level <- function(d)
  getOption("dpsco.inference_settle", 1) * stats::qchisq(0.999, d)

# The pooled one-step estimate (in the stage's whitened coordinates) from
# the released scores, with `hi` the inverse of the released bread.
inference_point <- function(inf, hi, cv) {
  if (is.null(inf$point1)) return(inf$point + drop(hi %*% inf$score))
  w <- pool_weight(cv)
  e1 <- inf$point1 + drop(hi %*% inf$score1)
  e2 <- inf$point + drop(hi %*% inf$score)
  (1 - w) * e1 + w * e2
}

# The privacy covariance of the pooled estimate.
inference_privacy_cov <- function(cv) {
  w <- pool_weight(cv)
  (1 - w)^2 * cv$v1 + w^2 * cv$v2
}

# About how many records would let the released bread pass the refusal
# rule: its noise falls as 1 / n, its smallest eigenvalue does not move.
records_needed <- function(n, lmin, needed) {
  if (!(lmin > 0)) return(NA_real_)
  signif(1.25 * n * needed / lmin, 2)
}

# ---------------------------------------------------------------------------
# What users call

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

# Why a fit has no intervals, in plain words, with what would give them
# (from released values only).
refusal_text <- function(inf) {
  num <- function(v) format(signif(v, 2), big.mark = ",")
  why <- switch(inf$refused,
    too_few = paste0(
      "the ", format_count(inf$n), " records are too few for intervals at ",
      "epsilon ", format(signif(inf$epsilon, 3)), ": the privacy noise of ",
      "the model's curvature is as large as its weakest direction",
      if (is.finite(inf$records_needed %||% NA))
        paste0(".  About ", num(inf$records_needed), " records at this ",
               "epsilon, or an epsilon of about ",
               num(inf$epsilon * inf$records_needed / inf$n), " with these, ",
               "would give intervals")
      else ".  Several times as many records, or a larger epsilon, would be needed"),
    singular = paste("the model's curvature is singular: columns of x are",
                     "collinear, or one has no variation"),
    not_converged = paste0(
      "the private Newton steps had not settled at the root with the ",
      format_count(inf$n), " records at epsilon ",
      format(signif(inf$epsilon, 3)), " (their last correction was larger ",
      "than their noise explains); more records or a larger epsilon would ",
      "give intervals"),
    inf$refused)
  paste0("No standard errors or intervals: ", why, ".")
}

# Warn, with a classed condition, that the intervals were refused.
inference_refused <- function(inf) {
  warning(structure(class = c("dpsco_inference_unreliable", "warning",
                              "condition"),
    list(message = refusal_text(inf), call = NULL)))
}

#' Standard errors, confidence intervals and tests of a private fit
#'
#' A fit made with `inference = TRUE` carries the released values of its
#' inference stage, whose estimand is `glm()`'s coefficients of the
#' unpenalised model on the scale of x: the minimiser of the deviance
#' (gaussian, binomial, poisson), whatever the true mean of y, so the
#' target of the intervals is the coefficient `glm()` would find on the
#' whole population, and the sampling variance is its sandwich (HC0).
#' `vcov()`, `confint()`, the coefficient table of `summary()` (its
#' element `coefficients`) and `tidy(conf.int = TRUE)` are functions of
#' those released values only: they never read the data and cost no
#' budget.
#'
#' The stage clips each record's score in the metric of the score's own
#' sampling spread, at a level that rises with the public n (the privacy
#' noise is then about as large as the sampling spread at large n, and
#' the clip's bias small against the standard error); it releases the
#' bread H (the score's expected Jacobian) and the meat J (its second
#' moment) near the root, and the score at the last two points.  The
#' estimate pools the one-step estimates from those two points.  Its
#' covariance is `V = H^-1 J H^-1 / n + P`: the sandwich (the sampling
#' part) and `P`, the exact covariance of the two scores' noise carried
#' through `H^-1`, with, to first order, the bread's own noise acting on
#' the points' noise (the privacy part).  Wald intervals are
#' `estimate +- z sqrt(diag(V))`.  `method = "bootstrap"` draws the
#' released bread, meat and scores again from their known noise (with the
#' released values as the truth) and inverts the distribution of the
#' t-ratio (a parametric bootstrap-t of the released statistics); it
#' widens the interval where the noise of the bread and meat makes the
#' standard error itself uncertain.
#'
#' Where the records are too few for intervals at the fit's epsilon, none
#' is given and no estimate is shown: when the released bread is too
#' noisy to invert (its smallest eigenvalue below the typical spectral
#' norm of its noise: the message says about how many records, or what
#' epsilon, would do, from released values), or when the private Newton
#' steps had not settled at the root (their last correction larger than
#' their noise explains).  The values are then `NA` and a warning of class
#' `dpsco_inference_unreliable` says why in plain words.
#'
#' Real data sets where a few records carry much of `glm()`'s fit (rows
#' of extreme leverage with large residuals, as blog's raw comment counts
#' have) are beyond a private interval at moderate n: their clipped
#' records move the estimate by more than its standard error, and the
#' intervals under-cover (measured: worst coefficients 0.25 to 0.84 on
#' blog's raw counts at n = 5,000 and 10,000; 0.83 to 0.91 on a binary
#' flight delay against the long-tailed departure delay at n = 5,000 and
#' at n = 20,000 with epsilon 0.5, 0.92 at epsilon 1 and 2; 0.84 to 0.85
#' on home runs against walks and strikeouts at n = 20,000 and epsilon
#' up to 1).  Transforming skewed counts first (`log1p()` of the columns)
#' estimates the transformed model's coefficients and covers them (blog
#' with `log1p()` columns: worst coefficient 0.90 to 0.95).  Where the
#' raw columns' coefficients are the estimand, `dpsco(inference =
#' "heavy_tails")` releases a meat clipped farther at more noise: on
#' blog's raw counts the worst coefficient is then covered in 0.79 to
#' 0.91 of the fits (means 0.93 to 0.96), and home runs and flight delays
#' at n = 20,000 in at least 0.927, at about 1.6 times the width (see
#' `bench/README.md`).  No released value tells such data apart at these
#' sizes, so the choice is the user's, from what they know of the columns.
#' `bench/inference_real.R` measures coverage on real populations and
#' `bench/README.md` reports it, with those cases.
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
# t-ratio (estimate* - estimate) / se* with the released bread H, meat J
# and metric M as the truth: a sampling score N(0, J / n), the two last
# scores' noise N(0, sd^2 M) each, and fresh noise of the bread (also on
# the points' own noise, as inference_one_step_covs() has it) and of the
# meat from their known mechanisms (symmetric Gaussian matrices of the
# released sds); draws whose bread the refusal rule would reject count
# as NA.  Returns a B x d matrix on the scale of x.
inference_bootstrap <- function(inf, B) {
  d <- nrow(inf$bread)
  sd <- inf$sd
  jroot <- chol_psd(inf$meat / inf$n)
  mroot <- chol_psd(inf$metric)
  proot <- chol_psd(inf$point_cov)
  sym_noise <- function(s) {
    e <- matrix(stats::rnorm(d * d), d, d)
    e[lower.tri(e)] <- t(e)[lower.tri(e)]
    s * e
  }
  draw <- function(root) drop(crossprod(root, stats::rnorm(d)))
  level <- inference_refusal()
  cv0 <- inference_one_step_covs(solve(inf$bread), sd, inf$metric,
                                 inf$point_cov)
  w <- pool_weight(cv0)
  t(vapply(seq_len(B), function(b) {
    h <- inf$bread + sym_noise(sd[["bread"]])
    lmin <- min(eigen(h, symmetric = TRUE, only.values = TRUE)$values)
    if (!(lmin > level * inf$noise_norm) || rcond(h) < 1e-12)
      return(rep(NA_real_, d))
    hi <- solve(h)
    xi1 <- sd[["score1"]] * draw(mroot)
    # the pooled estimate's error: the sampling score, the scores' noise,
    # and the bread's noise acting on the points' noise
    delta <- (1 - w) * draw(proot) + w * drop(hi %*% xi1)
    g <- draw(jroot) + (1 - w) * xi1 + w * sd[["score"]] * draw(mroot) +
      drop(sym_noise(sd[["bread"]]) %*% delta)
    j <- floor_eigen(inf$meat + sym_noise(sd[["meat"]]), 0)
    cv <- inference_one_step_covs(hi, sd, inf$metric, inf$point_cov)
    v <- inf$map %*% (hi %*% j %*% hi / inf$n + inference_privacy_cov(cv)) %*%
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
  if (!is.null(inf$refused)) return(refusal_text(inf))
  sprintf(paste(
    "Estimand: glm()'s coefficients of the %s model on all %d terms, the",
    "minimiser of the deviance whatever the true mean of y.  Std. Error =",
    "sqrt(sampling^2 + privacy^2): a released sandwich (HC0) and the known",
    "privacy noise, from a share %s of the budget."),
    inf$family, length(inf$names), format(signif(inf$share, 3)))
}

# The line print() adds for a fit with the inference stage.
inference_line <- function(inf) {
  if (is.null(inf)) return(NULL)
  if (!is.null(inf$refused))
    return(paste0("Inference (share ", format(signif(inf$share, 3)), "): ",
                  refusal_text(inf)))
  paste0("Inference (share ", format(signif(inf$share, 3)), "): standard ",
         "errors and intervals of the unpenalised model's ",
         length(inf$names), " coefficients in summary(), confint() and ",
         "vcov().")
}
