# Noise calibration and the privacy record of a fit.

# The paper's printed noise scales, as multipliers of each oracle's add/remove
# sensitivity: Algorithm 1 prints sd C sqrt(log(1/delta)) / (m eps) with
# sensitivity C / m; Algorithms 3 and 4 print sds equal to twice their
# add/remove sensitivity times sqrt(log(1/delta)) / eps.
paper_multiplier <- function(method, eps, delta) {
  base <- sqrt(log(1 / delta)) / eps
  switch(method, none = 0, clip = base, kamath = 2 * base, holland = 2 * base)
}

rng_note <- paste(
  "Noise and batches come from R's random number generator: a fit is",
  "reproducible with set.seed(), but the generator is not cryptographically",
  "secure."
)

new_privacy_record <- function(method, epsilon, delta, nlambda, steps, m, n,
                               oracle, z, public) {
  private <- method != "none"
  structure(list(
    private = private,
    epsilon = if (private) epsilon else Inf,
    delta = if (private) delta else 0,
    epsilon_accounted = NA_real_,
    calibration = if (private) "paper" else "none",
    accountant = if (private)
      paste("none yet: each lambda uses the paper's printed noise scale for",
            "(epsilon/K, delta/K), and the K lambdas compose by basic",
            "composition; the paper's scales are not verified by an accountant")
      else "not private",
    epsilon_per_lambda = if (private) epsilon / nlambda else Inf,
    delta_per_lambda = if (private) delta / nlambda else 0,
    noise_multiplier = z,
    sensitivity = oracle$sensitivity,
    noise_sd = z * oracle$sensitivity,
    sample_rate = min(1, m / n),
    batch_size = m,
    steps = steps,
    nlambda = nlambda,
    adjacency = "add/remove one record",
    sampling = "Poisson: each record enters each batch independently with probability m/n",
    public = public,
    rng = rng_note
  ), class = "dpsco_privacy")
}

#' Privacy record of a fit
#'
#' Everything a fit spent and assumed: the target `(epsilon, delta)`, how the
#' noise was calibrated, the noise multiplier `z` and the per-step L2
#' sensitivity (each step releases the oracle's estimate plus
#' `N(0, (z * sensitivity)^2)` noise per coordinate), the Poisson sampling
#' rate, the number of steps per lambda and of lambdas, and what was declared
#' public.
#'
#' Until an accountant is attached, private fits use the noise scales printed
#' in Xie et al. (calibration `"paper"`), giving each of the `K` lambdas
#' `(epsilon/K, delta/K)` and composing them by basic composition.  The
#' record says so: `epsilon_accounted` is `NA` because the paper's scales
#' have not been verified by an accountant.
#'
#' @param fit a `dpsco` fit.
#' @param x a `dpsco_privacy` record.
#' @param ... unused.
#' @return `privacy()` returns the record, a list of class `dpsco_privacy`.
#' @references Xie, H., Pietrosanu, M., Liu, Y., Tu, W., Jiang, B. and
#'   Kong, L. Differentially private regularized stochastic convex
#'   optimization with heavy-tailed data. *Statistica Sinica*.
#'   \doi{10.5705/ss.202022.0282}
#' @examples
#' set.seed(1)
#' x <- matrix(runif(2000, -1, 1), 200, 10)
#' y <- drop(x %*% c(1, -1, rep(0, 8))) + rt(200, df = 2)
#' fit <- dpsco(x, y, epsilon = 1, nlambda = 5)
#' privacy(fit)
#' @export
privacy <- function(fit) {
  if (!inherits(fit, "dpsco")) arg_error("fit", "must be a dpsco fit.")
  fit$privacy
}

#' @rdname privacy
#' @export
format.dpsco_privacy <- function(x, ...) {
  num <- function(v) format(signif(v, 4))
  if (!x$private)
    return(c("Not private (method \"none\"): epsilon = Inf.", x$rng))
  c(sprintf("Target: (epsilon, delta) = (%s, %s) for the whole path",
            num(x$epsilon), num(x$delta)),
    sprintf("Accounted epsilon: %s", if (is.na(x$epsilon_accounted))
      "not available (no accountant attached)" else num(x$epsilon_accounted)),
    sprintf("Calibration: %s", x$calibration),
    sprintf("Composition: %s", x$accountant),
    sprintf("Per lambda: (%s, %s); %d lambdas x %d steps", num(x$epsilon_per_lambda),
            num(x$delta_per_lambda), x$nlambda, x$steps),
    sprintf("Noise multiplier z = %s, L2 sensitivity = %s, noise sd = %s",
            num(x$noise_multiplier), num(x$sensitivity), num(x$noise_sd)),
    sprintf("Sampling: Poisson, rate q = %s (expected batch %s)",
            num(x$sample_rate), format(signif(x$batch_size, 7))),
    sprintf("Adjacency: %s", x$adjacency),
    sprintf("Declared public: %s", paste(x$public, collapse = "; ")),
    x$rng)
}

#' @rdname privacy
#' @export
print.dpsco_privacy <- function(x, ...) {
  cat("Differential privacy record\n")
  cat(paste0("  ", format(x)), sep = "\n")
  invisible(x)
}
