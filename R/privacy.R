# Noise calibration and the privacy record of a fit or a private mean.

# The paper's printed noise scales, as multipliers of each oracle's add/remove
# sensitivity: Algorithm 1 prints sd C sqrt(log(1/delta)) / (m eps) with
# sensitivity C / m; Algorithms 3 and 4 print sds equal to twice their
# add/remove sensitivity times sqrt(log(1/delta)) / eps.
# Kamath's sensitivity is halved for an even number of groups k (see
# kamath_median_factor()); its multiplier doubles so that the noise stays
# the printed one.
paper_multiplier <- function(method, eps, delta, k = 1L) {
  base <- sqrt(log(1 / delta)) / eps
  switch(method, none = 0, clip = base,
         kamath = 2 * base / kamath_median_factor(k), holland = 2 * base,
         arg_error("calibration", "\"paper\" exists only for the paper's ",
                   "methods clip, kamath and holland."))
}

rng_note <- paste(
  "Noise and batches come from R's random number generator: results are",
  "reproducible with set.seed(), but the generator is not cryptographically",
  "secure."
)

# One accounted part of a release: `steps` Gaussian steps with multiplier z at
# Poisson rate q, given `share` of the budget.
# `mechanism` and `released` describe it for the record.
privacy_part <- function(name, z, q, steps, sensitivity, share,
                         mechanism = "Gaussian", released = "") {
  list(name = name, noise_multiplier = z, sample_rate = q, steps = steps,
       sensitivity = sensitivity, share = share, mechanism = mechanism,
       released = released)
}

accountant_label <- function(parts) {
  if (all(vapply(parts, function(p) p$sample_rate >= 1, NA)))
    "exact composition of Gaussian mechanisms (analytic Gaussian, Balle and Wang 2018)"
  else paste("Renyi DP of the Poisson-subsampled Gaussian (Mironov, Talwar and",
             "Zhang 2019) over orders 1.1-63, improved conversion (Balle et al. 2020)")
}

account_parts <- function(parts, delta) {
  comps <- lapply(parts, function(p) list(noise_multiplier = p$noise_multiplier,
                                          sample_rate = p$sample_rate,
                                          steps = p$steps))
  account_epsilon(comps, delta)
}

# The delta at which a part's own epsilon is shown: the private settings'
# shares are of the budget in units of mu^2, so they are shown at the
# whole delta; the optimiser and private standardisation at their share
# of it, as their shares split (epsilon, delta).
delta_alone <- function(part, delta) {
  if (part$name %in% names(default_shares)) delta else part$share * delta
}

# The record every private release carries.  `parts` lists what touched the
# data (e.g. private standardisation, then the optimiser); the last part is
# the main release whose numbers are also shown at the top level.
new_privacy_record <- function(epsilon, delta, parts, calibration, public,
                               not_covered = character(), extra = list()) {
  main <- parts[[length(parts)]]
  private <- is.finite(epsilon)
  shares <- data.frame(
    part = vapply(parts, `[[`, "", "name"),
    share = vapply(parts, `[[`, 0, "share"),
    noise_multiplier = vapply(parts, `[[`, 0, "noise_multiplier"),
    sample_rate = vapply(parts, `[[`, 0, "sample_rate"),
    steps = vapply(parts, `[[`, 0, "steps"),
    sensitivity = vapply(parts, `[[`, 0, "sensitivity"),
    mechanism = vapply(parts, `[[`, "", "mechanism"),
    released = vapply(parts, `[[`, "", "released"),
    stringsAsFactors = FALSE)
  eps_total <- if (private) account_parts(parts, delta) else Inf
  # a single part with the whole budget is its own total: not accounted twice
  if (private)
    shares$epsilon_alone <- vapply(parts, function(p)
      if (length(parts) == 1L && p$share == 1) eps_total
      else account_parts(list(p), delta_alone(p, delta)), 0)
  rec <- list(
    private = private,
    epsilon = epsilon,
    delta = if (private) delta else 0,
    epsilon_accounted = eps_total,
    calibration = calibration,
    accountant = if (private) accountant_label(parts) else "not private",
    noise_multiplier = main$noise_multiplier,
    sensitivity = main$sensitivity,
    noise_sd = main$noise_multiplier * main$sensitivity,
    sample_rate = main$sample_rate,
    steps = main$steps,
    shares = shares,
    adjacency = "add/remove one record",
    sampling = if (main$sample_rate < 1)
      "Poisson: each record enters each batch independently with probability m/n"
      else "none: every record in every step",
    public = public,
    not_covered = not_covered,
    rng = rng_note)
  structure(utils::modifyList(rec, extra), class = "dpsco_privacy")
}

#' Privacy record of a fit
#'
#' Everything a private release spent and assumed: the target
#' `(epsilon, delta)` and the epsilon the accountant certifies at that delta,
#' the accountant used, the calibration mode, the noise multiplier `z` and
#' the per-step L2 sensitivity (each step releases the oracle's estimate plus
#' `N(0, (z * sensitivity)^2)` noise per coordinate), the Poisson sampling
#' rate, the number of steps per lambda and of lambdas, the budget shares of
#' every part that touched the data (private standardisation, the
#' optimiser), what was declared public and anything the guarantee does not
#' cover.
#'
#' With `calibration = "accountant"` (the default) the noise multiplier is
#' the smallest one whose accounted epsilon over every step of every lambda
#' (composed with any private preprocessing) does not exceed the target.
#' With `calibration = "paper"` the noise scales printed in Xie et al. are
#' used for `(epsilon/K, delta/K)` per lambda, and `epsilon_accounted`
#' reports the epsilon they actually deliver for the whole path at the
#' target delta, which is typically larger than the target.
#'
#' @param fit a `dpsco` fit or a `dp_mean` result.
#' @param x a `dpsco_privacy` record.
#' @param ... unused.
#' @return `privacy()` returns the record, a list of class `dpsco_privacy`;
#'   `format()` its lines of text.
#' @references Xie, H., Pietrosanu, M., Liu, Y., Tu, W., Jiang, B. and
#'   Kong, L. Differentially private regularized stochastic convex
#'   optimization with heavy-tailed data. *Statistica Sinica*.
#'   \doi{10.5705/ss.202022.0282}
#' @seealso [dp_epsilon()] for the accountant.
#' @examples
#' set.seed(1)
#' x <- matrix(runif(2000, -1, 1), 200, 10)
#' y <- drop(x %*% c(1, -1, rep(0, 8))) + rt(200, df = 2)
#' fit <- dpsco(x, y, epsilon = 1, nlambda = 5)
#' privacy(fit)
#' @export
privacy <- function(fit) {
  if (!inherits(fit, c("dpsco", "cv.dpsco", "dp_mean")))
    arg_error("fit", "must be a dpsco or cv.dpsco fit or a dp_mean result.")
  fit$privacy
}

#' @rdname privacy
#' @export
format.dpsco_privacy <- function(x, ...) {
  num <- function(v) format(signif(v, 4))
  if (!x$private)
    return(c("Not private (method \"none\"): epsilon = Inf.",
             if (length(x$not_covered))
               paste("Data statistics used:", paste(x$not_covered, collapse = "; ")),
             x$rng))
  lines <- c(
    sprintf("Target: (epsilon, delta) = (%s, %s)%s", num(x$epsilon), num(x$delta),
            if (!is.null(x$nlambda)) " for the whole path" else ""),
    sprintf("Accounted: epsilon = %s at delta = %s%s", num(x$epsilon_accounted),
            num(x$delta), if (x$epsilon_accounted > x$epsilon * (1 + 1e-9))
              "  (ABOVE the target: the paper's scales overshoot)" else ""),
    sprintf("Accountant: %s", x$accountant),
    sprintf("Calibration: %s", x$calibration),
    if (!is.null(x$nlambda))
      sprintf("Steps: %d lambdas x %d steps = %d noisy releases", x$nlambda,
              x$steps, x$nlambda * x$steps)
    else sprintf("Steps: %d", x$steps),
    sprintf("Noise multiplier z = %s, L2 sensitivity = %s, noise sd = %s",
            num(x$noise_multiplier), num(x$sensitivity), num(x$noise_sd)),
    sprintf("Sampling: %s (rate q = %s)", x$sampling, num(x$sample_rate)),
    sprintf("Adjacency: %s", x$adjacency))
  if (nrow(x$shares) > 1L) {
    sh <- x$shares
    lines <- c(lines, "Budget shares:", sprintf(
      "  %-16s share %s: z = %s, q = %s, %d steps, epsilon alone %s",
      sh$part, num(sh$share), num(sh$noise_multiplier),
      num(sh$sample_rate), as.integer(sh$steps), num(sh$epsilon_alone)))
    described <- nzchar(sh$released)
    if (any(described))
      lines <- c(lines, "Data-dependent choices (mechanism: released):",
                 sprintf("  %-16s %s: %s", sh$part[described],
                         sh$mechanism[described], sh$released[described]))
  }
  if (!is.null(x$pools))
    lines <- c(lines, sprintf("Composition: %s", x$composition), sprintf(
      "  %-10s records: epsilon %s at delta %s", x$pools$pool,
      num(x$pools$epsilon), num(x$pools$delta)))
  c(lines,
    sprintf("Declared public: %s", paste(x$public, collapse = "; ")),
    if (length(x$not_covered))
      sprintf("NOT covered by the guarantee: %s", paste(x$not_covered, collapse = "; ")),
    x$rng)
}

#' @rdname privacy
#' @export
print.dpsco_privacy <- function(x, ...) {
  cat("Differential privacy record\n")
  cat(paste0("  ", format(x)), sep = "\n")
  invisible(x)
}

# A classed warning for anything the privacy guarantee does not cover.
privacy_warning <- function(...) {
  msg <- paste0(...)
  warning(structure(
    class = c("dpsco_privacy_warning", "warning", "condition"),
    list(message = msg, call = sys.call(-1))))
}
