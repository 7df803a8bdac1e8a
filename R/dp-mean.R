#' Differentially private robust mean
#'
#' The private mean of a numeric vector, or of each column of a matrix,
#' released once with Gaussian noise calibrated to the estimator's add/remove
#' L2 sensitivity.  The estimators are the gradient oracles of [dpsco()]
#' applied to the data themselves, plus a trimmed mean with a public range.
#'
#' \describe{
#'   \item{`"holland"`}{Catoni-Giulini soft truncation at scale `control$s`
#'     (Holland 2019): for heavy tails with a bounded second moment;
#'     sensitivity `2 sqrt(2) s sqrt(d) / (3 n)`.}
#'   \item{`"kamath"`}{values clipped to `[-rho/2, rho/2]`, median of group
#'     means (Kamath et al. 2020); sensitivity `rho k sqrt(d) / (2 n)`.}
#'   \item{`"clip"`}{each row scaled to L2 norm at most `control$clip`;
#'     sensitivity `C / n`.}
#'   \item{`"trimmed"`}{each column clamped to its public `range`
#'     `[lo, hi]` and averaged; sensitivity
#'     `sqrt(sum(((hi - lo) / 2)^2)) / n`.}
#' }
#' Here `n` is the public number of records, `public_n` (by default the
#' number of rows, which is then treated as public and not protected), and
#' `d` the number of columns.  The guarantee is for data sets that differ by
#' one record added or removed at that `n`; [privacy()] also reports the
#' epsilon for two data sets of the same size that differ in one record.  Without a `range`, `"trimmed"` uses the observed range of the
#' data, which the guarantee does not cover: a `dpsco_privacy_warning` says
#' so and the record lists it.
#'
#' @param x numeric vector or matrix (one column per variable; a numeric data
#'   frame or sparse `Matrix` is converted with `as.matrix()`), at least two
#'   values or rows.
#' @param method estimator, see Details.
#' @param epsilon,delta privacy target; `delta` defaults to `0.1 / n`
#'   (under a budget, the smaller of that and a tenth of the budget's).
#' @param budget a [dp_budget()] that pays for the release, as in
#'   [dpsco()].  Default `getOption("dpsco.budget")`.
#' @param public_n the number of records, treated as public: it divides the
#'   sum and scales the noise whatever the number of rows of `x`.  Default
#'   `NULL`: the number of rows, which the guarantee then does not protect.
#' @param range public bounds for `"trimmed"`: `c(lo, hi)` for every column
#'   or a 2-row matrix with one column per variable.
#' @param calibration `"accountant"` (default): the smallest noise that meets
#'   `(epsilon, delta)` exactly (analytic Gaussian mechanism); `"paper"`: the
#'   printed scales of Xie et al., with the epsilon they deliver reported.
#' @param secure `TRUE`: the mean is rounded to a fine power-of-two grid and
#'   given discrete Gaussian noise from the operating system's
#'   cryptographic generator, accounted through its Renyi curve (see the
#'   section "Secure noise" of [dpsco-methods]); `FALSE` (default): Gaussian noise
#'   from R's generator, reproducible with `set.seed()` but not
#'   cryptographically secure (see `secure` in [dpsco()]).
#' @param control tuning of the estimators, from [dpsco_control()] (`clip`,
#'   `rho`, `kmom`, `zeta`, `s`, `nu`, `tau`); defaults use `m = n`.
#' @return An object of class `dp_mean`: `estimate` (named vector), `method`,
#'   `n`, `settings` and `privacy` (a `dpsco_privacy` record).
#' @references Holland, M. J. (2019). Robust descent using smoothed
#'   multiplicative noise. *AISTATS 2019*, PMLR 89, 703--711.
#'
#'   Kamath, G., Singhal, V. and Ullman, J. (2020). Private mean estimation
#'   of heavy-tailed distributions. *COLT 2020*, PMLR 125, 2204--2235.
#' @seealso [dpsco()], [privacy()]
#' @examples
#' set.seed(1)
#' x <- rt(5000, df = 3) + 2
#' dp_mean(x, epsilon = 1)
#' dp_mean(x, method = "trimmed", range = c(-10, 10), epsilon = 1)
#' @export
dp_mean <- function(x, method = c("holland", "kamath", "clip", "trimmed"),
                    epsilon = 1, delta = NULL, public_n = NULL, range = NULL,
                    calibration = c("accountant", "paper"), secure = FALSE,
                    control = dpsco_control(),
                    budget = getOption("dpsco.budget")) {
  method <- match_choice(method, "method")
  calibration <- match_choice(calibration, "calibration")
  local_secure(check_secure(secure))
  vec <- is.null(dim(x))
  xm <- check_x(if (vec) matrix(x, ncol = 1L, dimnames = list(NULL, "mean")) else x,
                min_rows = if (is.null(public_n)) 2L else 0L)
  n <- check_public_n(public_n, nrow(xm))
  d <- ncol(xm)
  bud <- budget_of(budget)      # budget.R: admitted before a record is read
  delta <- check_target(epsilon, budget_fit_delta(bud, delta, n), n)
  if (!is.null(bud) && method == "trimmed" && is.null(range))
    arg_error("range", "is needed under a budget: without it the range ",
              "would be read from the data, outside any guarantee.")
  if (!inherits(control, "dpsco_control"))
    arg_error("control", "must come from dpsco_control().")

  public <- c(public_n_note(n), "d (number of columns)")
  not_covered <- not_covered_use()
  if (method == "trimmed") {
    if (calibration == "paper")
      arg_error("calibration", "\"paper\" exists only for the paper's ",
                "methods clip, kamath and holland.")
    if (is.null(range)) {
      privacy_warning("dp_mean(method = \"trimmed\") needs a public `range`; ",
                      "using the observed range of the data, which the ",
                      "privacy guarantee does NOT cover.")
      range <- apply(xm, 2L, base::range)
      not_covered <- not_covered_use(
        paste("the range of each column was read from the data, as no",
              "range was given"),
        "declare range = c(lo, hi), or a 2 x d matrix")
    } else {
      range <- check_range(range, d)
      public <- c(public, "range of each column")
    }
    sensitivity <- trimmed_sensitivity(range, n)
    params <- list(range = range)
  } else {
    oracle <- oracle_setup(method, control, n, d, epsilon, delta)
    sensitivity <- oracle$sensitivity
    params <- oracle[method_spec(method)$oracle$params]
    public <- c(public, "estimator parameters")
  }
  z <- if (calibration == "paper")
         paper_multiplier(method, epsilon, delta, oracle$k)
       else calibrate_noise(list(), 1, 1, epsilon, delta)
  noise <- if (noise_secure()) secure_gaussian(z, sensitivity, d)
           else list(sd = z * sensitivity, grid = 0, sensitivity = sensitivity)

  bo <- budget_open(bud, epsilon, delta, n, "dp_mean()")
  local_fit_stream()  # rng.R: .Random.seed afterwards is free of the data
  est <- if (method == "trimmed") {
    dp_mean_release(xm, range, z, n)$estimate
  } else {
    oracle_mean(xm, method, m = n, clip = oracle$clip, rho = oracle$rho,
                k = oracle$k, s = oracle$s, nu = oracle$nu, noise_sd = noise$sd,
                noise_grid = noise$grid)
  }
  names(est) <- colnames(xm) %||% paste0("V", seq_len(d))
  record <- new_privacy_record(
    epsilon, delta, list(privacy_part("mean", z, 1, 1, noise$sensitivity, 1)),
    calibration, public, not_covered, public_n = n,
    extra = list(noise_grid = if (noise_secure()) noise$grid))
  check_releases(record)   # release.R: the record shows every release
  budget_debit(bo$adm, record)
  structure(list(estimate = est, method = method, n = n, settings = params,
                 privacy = record), class = "dp_mean")
}

# The release itself: n is the public number of records, which divides the
# centred sum whatever the number of rows of x (a record added or removed
# moves that sum by at most its half-range).
dp_mean_release <- function(x, range, z, n) {
  dp_mean_from_sums(data_sums(x, "centre", list(lo = range[1L, ],
                                                hi = range[2L, ])),
                    range, z, n)
}

# The same release from the per-column sums of the values clamped to the
# range, centred at its midpoint (a caller that forms them in one pass of
# its own: private_standardization()).
dp_mean_from_sums <- function(sums, range, z, n) {
  mid <- (range[1L, ] + range[2L, ]) / 2
  sens <- trimmed_sensitivity(range, n)
  sd <- z * sens
  list(estimate = release(mid + sums / n, z, sens, sd = sd), noise_sd = sd)
}

check_range <- function(range, d) {
  if (!is.numeric(range) || anyNA(range) || !all(is.finite(range)))
    arg_error("range", "must be finite numbers.")
  if (!is.matrix(range) && length(range) != 2L)
    arg_error("range", "must be c(lo, hi) or a 2 x ", d, " matrix.")
  r <- if (is.matrix(range)) range else matrix(range, 2L, d)
  if (nrow(r) != 2L || ncol(r) != d)
    arg_error("range", "must be c(lo, hi) or a 2 x ", d, " matrix.")
  if (any(r[2L, ] <= r[1L, ]))
    arg_error("range", "needs lo < hi for every column.")
  r
}

#' @rdname dp_mean
#' @param digits significant digits.
#' @param ... unused.
#' @export
print.dp_mean <- function(x, digits = max(3, getOption("digits") - 3), ...) {
  pr <- x$privacy
  cat(sprintf("Private %s mean of %d records: (epsilon, delta) = (%s, %s), noise sd %s\n",
              x$method, x$n, format(signif(pr$epsilon, digits)),
              format(signif(pr$delta, digits)), format(signif(pr$noise_sd, digits))))
  print(signif(x$estimate, digits))
  cat(privacy_status(pr)$lines, sep = "\n")
  invisible(x)
}
