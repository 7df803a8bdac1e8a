# Noise calibration and the privacy record of a fit or a private mean.

rng_note <- paste(
  "Noise and batches come from R's random number generator: results are",
  "reproducible with set.seed(), but the generator is not cryptographically",
  "secure: whoever learns the seed, or enough of its outputs to rebuild its",
  "state, can reproduce the noise and remove it (secure = TRUE draws the",
  "noise from the operating system).  Each call runs on a stream of its own",
  "seeded by one draw from R's, so .Random.seed afterwards does not depend",
  "on the data; the run time, which grows with the number of rows, is",
  "outside the guarantee."
)

secure_note <- paste(
  "Secure noise (secure = TRUE): every Gaussian release is rounded to a",
  "power-of-two grid and given discrete Gaussian noise (Canonne, Kamath and",
  "Steinke 2020) sampled exactly in integer arithmetic from the operating",
  "system's cryptographic generator, never R's; the output lattice carries no",
  "information about the data.  Not reproducible with set.seed().  A call",
  "still takes one draw from R's generator (the seed of a stream of its own,",
  "from which cv.dpsco() draws its split), so .Random.seed afterwards does",
  "not depend on the data; the run time, which grows with the number of",
  "rows, is outside the guarantee."
)

# The noise of the releases under way: FALSE, R's generator and floating
# point; TRUE, the secure releases.  Set by the function that makes the
# releases (local_secure()) and read by every release and by the privacy
# record, so that one switch decides the noise and its accounting.
noise_state <- new.env(parent = emptyenv())
noise_state$secure <- FALSE

noise_secure <- function() isTRUE(noise_state$secure)

# Switch the noise for the rest of the calling function.
local_secure <- function(secure, frame = parent.frame()) {
  old <- noise_state$secure
  noise_state$secure <- secure
  do.call(base::on.exit, list(call("restore_secure", old), add = TRUE),
          envir = frame)
  invisible(old)
}

restore_secure <- function(old) noise_state$secure <- old

check_secure <- function(secure) {
  if (!is.logical(secure) || length(secure) != 1L || is.na(secure))
    arg_error("secure", "must be TRUE or FALSE.")
  if (secure && !secure_available())
    arg_error("secure", "= TRUE needs the operating system's cryptographic ",
              "random number generator, which is not available here.")
  secure
}

# The multiplier of `steps` Gaussian releases at Poisson rate q after the
# parts `fixed` (privacy_part()s), meeting (epsilon, delta).  The discrete
# Gaussian of the secure releases is bounded through its Renyi curve
# (zCDP), the same as the continuous Gaussian's, so it is calibrated
# through that curve and not by the exact (analytic or PLD) accountant,
# whose statements are about the continuous Gaussian.
calibrate_noise <- function(fixed, q, steps, epsilon, delta) {
  if (noise_secure()) {
    if (q < 1) stop("internal error: secure noise with subsampling", call. = FALSE)
    return(calibrate_rdp(fixed, steps, epsilon, delta))
  }
  calibrate_components(lapply(fixed, part_component), q, steps, epsilon, delta)
}

# One accounted part of a release: `steps` Gaussian steps with multiplier z at
# Poisson rate q, given `share` of the budget.
# `mechanism` and `released` describe it for the record.  `kind` says how
# the accountant reads it: "gaussian" (Gaussian mechanisms, composed
# exactly when unsampled), "rdp" (a mechanism whose Renyi DP at every order
# is at most that of the Gaussian with multiplier z, e.g. an exponential
# mechanism; composed through its RDP curve only) or "dp" (a mechanism
# with its own (epsilon, delta) guarantee, see dp_part()).
privacy_part <- function(name, z, q, steps, sensitivity, share,
                         mechanism = "Gaussian", released = "",
                         kind = if (noise_secure()) "rdp" else "gaussian") {
  list(name = name, noise_multiplier = z, sample_rate = q, steps = steps,
       sensitivity = sensitivity, share = share, mechanism = mechanism,
       released = released, kind = kind)
}

# A part whose guarantee is a stated (epsilon, delta) (a theorem's
# calibration, or pure epsilon-DP with delta = 0): it composes with the
# other parts by basic composition, adding epsilons and deltas.
dp_part <- function(name, epsilon, delta, steps, sensitivity, share,
                    mechanism, released = "") {
  part <- privacy_part(name, NA_real_, 1, steps, sensitivity, share,
                       mechanism = mechanism, released = released, kind = "dp")
  part$epsilon <- epsilon
  part$delta <- delta
  part
}

# A part of `steps` releases each rho-zCDP (Bun and Steinke 2016): Renyi
# DP alpha * rho at every order, the curve of a Gaussian release with
# multiplier 1 / sqrt(2 rho), so it enters the accountant as kind "rdp".
zcdp_part <- function(name, rho, steps, share, mechanism, released = "",
                      sensitivity = NA_real_) {
  privacy_part(name, 1 / sqrt(2 * rho), 1, steps, sensitivity, share,
               mechanism = mechanism, released = released, kind = "rdp")
}

accountant_label <- function(parts) {
  kinds <- vapply(parts, part_kind, "")
  label <- if (all(kinds == "dp")) "basic composition of the stated guarantees"
  else if (noise_secure())
    paste("Renyi DP over orders 1.1-63 of the discrete Gaussian releases,",
          "each (sensitivity / sd)^2 / 2-zCDP with the rounding to the grid",
          "inside the sensitivity (Canonne, Kamath and Steinke 2020,",
          "Theorem 14), improved conversion (Balle et al. 2020)")
  else if (any(kinds == "rdp"))
    paste("Renyi DP over orders 1.1-63 of the Gaussian parts and of the",
          "exponential mechanism as epsilon0^2/8-zCDP (Cesar and Rogers 2021),",
          "improved conversion (Balle et al. 2020)")
  else if (!all(vapply(parts, function(p) p$sample_rate >= 1, NA)))
    paste("privacy loss distribution of the Poisson-subsampled Gaussian, a",
          "record added or removed, discretised pessimistically on a grid of",
          "3e-4 and composed by FFT (an upper bound, typically within a",
          "relative 1e-4 of the exact epsilon), or Renyi DP (Mironov, Talwar",
          "and Zhang 2019) where that is smaller")
  else "exact composition of Gaussian mechanisms (analytic Gaussian, Balle and Wang 2018)"
  if (any(kinds == "dp") && !all(kinds == "dp"))
    label <- paste0(label, "; parts with a stated (epsilon, delta) added by ",
                    "basic composition")
  label
}

part_kind <- function(p) p$kind %||% "gaussian"

# epsilon of the composed parts at `delta`: the parts with a stated
# guarantee add their epsilons and use up their deltas; the others are
# accounted at what delta is left (through their RDP curves when any of
# them is only RDP-bounded).
account_parts <- function(parts, delta) {
  kinds <- vapply(parts, part_kind, "")
  stated <- parts[kinds == "dp"]
  eps_dp <- sum(vapply(stated, `[[`, 0, "epsilon"))
  delta_dp <- sum(vapply(stated, `[[`, 0, "delta"))
  rest <- parts[kinds != "dp"]
  if (!length(rest)) return(eps_dp)
  if (!(delta_dp < delta)) return(Inf)
  if (any(kinds == "rdp")) return(rdp_epsilon_fn(parts)(delta))
  account_epsilon(lapply(rest, part_component), delta - delta_dp) + eps_dp
}

# epsilon as a function of delta for the composed parts through their Renyi
# curves (an upper bound), the curve computed once: the parts with a stated
# guarantee add their epsilons and use up their deltas.
rdp_epsilon_fn <- function(parts) {
  kinds <- vapply(parts, part_kind, "")
  stated <- parts[kinds == "dp"]
  eps_dp <- sum(vapply(stated, `[[`, 0, "epsilon"))
  delta_dp <- sum(vapply(stated, `[[`, 0, "delta"))
  rest <- parts[kinds != "dp"]
  orders <- dp_orders()
  rdp <- if (length(rest))
           acc_rdp_total(acc_components(lapply(rest, part_component)), orders)
  function(delta) {
    if (!length(rest)) return(if (delta_dp <= delta) eps_dp else Inf)
    if (!(delta_dp < delta)) return(Inf)
    rdp_to_epsilon(rdp, orders, delta - delta_dp) + eps_dp
  }
}

# The delta at which a part's own epsilon is shown: the private settings'
# shares are of the budget in units of mu^2, so they are shown at the
# whole delta; the optimiser and private standardisation at their share
# of it, as their shares split (epsilon, delta).
delta_alone <- function(part, delta) {
  if (part$name %in% names(default_shares)) delta else part$share * delta
}

# The public number of records as the record lists it.
public_n_note <- function(n)
  sprintf("n = %s, the number of records (not protected)", format_count(n))

format_count <- function(n) format(n, big.mark = ",", scientific = FALSE, trim = TRUE)

# The epsilon at `delta` for two data sets of the same size that differ in
# one record (replace-one neighbours), computed by the accountant from the
# parts.  Such a pair is one record removed and another added:
#  * a Gaussian-type part (kind "gaussian" or "rdp") releases sums of
#    per-record terms, which a replaced record moves by at most twice the
#    add/remove sensitivity (an exponential mechanism's utility likewise,
#    which doubles its range): it is accounted with half its multiplier;
#  * a part with a stated replace-one guarantee (relation "replace": a
#    theorem applied to the records resized to the public n) keeps it;
#  * a part with a stated add/remove guarantee (kind "dp") is taken by
#    group privacy over the two steps, (2 eps, (1 + e^eps) delta).
# The doubling is exact for a full-batch release; for a Poisson-subsampled
# part no such reduction is proved here, so with any of them the whole
# add/remove guarantee is carried over by group privacy instead:
# epsilon 2 eps1, where eps1 is the add/remove epsilon at delta1 and
# delta1 (1 + e^eps1) = delta.
replace_one_epsilon <- function(parts, delta) {
  relation <- vapply(parts, function(p) p$relation %||% "add_remove", "")
  kinds <- vapply(parts, part_kind, "")
  rates <- vapply(parts, function(p) p$sample_rate, 0)
  if (any(relation == "add_remove" & kinds != "dp" & rates < 1)) {
    # through the Renyi curves (an upper bound), computed once
    eps_at <- rdp_epsilon_fn(parts)
    gap <- function(ld) {
      e <- eps_at(exp(ld))
      if (!is.finite(e)) Inf else ld + log1p(exp(e)) - log(delta)
    }
    lo <- log(delta) - 40
    if (!(gap(lo) < 0)) return(Inf)
    ld <- stats::uniroot(gap, c(lo, log(delta / 2)), tol = 1e-10)$root
    # on the safe side of the root: delta1 (1 + e^eps1) <= delta
    while (gap(ld) > 0) ld <- ld - 1e-9
    return(2 * eps_at(exp(ld)))
  }
  doubled <- Map(function(p, rel, kind) {
    if (rel == "replace") return(p)
    if (kind == "dp") {
      p$delta <- (1 + exp(p$epsilon)) * p$delta
      p$epsilon <- 2 * p$epsilon
      return(p)
    }
    p$noise_multiplier <- p$noise_multiplier / 2
    p$sensitivity <- 2 * p$sensitivity
    p
  }, parts, relation, kinds)
  account_parts(doubled, delta)
}

# The sentence that states a private release's guarantee.
guarantee_sentence <- function(epsilon, delta, n, epsilon_replace) {
  num <- function(v) format(signif(v, 4))
  paste0("(", num(epsilon), ", ", num(delta), ")-differential privacy for ",
         "data sets that differ by one record added or removed, with the ",
         "number of records n = ", format_count(n), " treated as public (the ",
         "count itself is not protected); for two data sets of the same ",
         "size that differ in one record, epsilon = ", num(epsilon_replace),
         " at the same delta.")
}

# The record every private release carries.  `parts` lists what touched the
# data (e.g. private standardisation, then the optimiser); the last part is
# the main release whose numbers are also shown at the top level.
# `public_n` is the public number of records of the neighbouring relation.
new_privacy_record <- function(epsilon, delta, parts, calibration, public,
                               not_covered = not_covered_use(), extra = list(),
                               public_n) {
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
    kind = vapply(parts, part_kind, ""),
    # a stated guarantee's own (epsilon, delta), as a budget composes it
    epsilon_stated = vapply(parts, function(p) p$epsilon %||% NA_real_, 0),
    delta_stated = vapply(parts, function(p) p$delta %||% NA_real_, 0),
    stringsAsFactors = FALSE)
  eps_total <- if (private) account_parts(parts, delta) else Inf
  eps_replace <- if (private) replace_one_epsilon(parts, delta)
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
    public_n = public_n,
    adjacency = paste("add/remove one record at the public size n =",
                      format_count(public_n)),
    epsilon_replace_one = eps_replace,
    guarantee = if (private)
      guarantee_sentence(eps_total, delta, public_n, eps_replace),
    sampling = if (main$sample_rate < 1)
      "Poisson: each record enters each batch independently with probability m/n"
      else "none: every record in every step",
    public = public,
    not_covered = not_covered_table(not_covered),
    noise = if (!private) "none"
            else if (noise_secure())
              "discrete Gaussian on a power-of-two grid, OS generator (secure)"
            else "Gaussian in floating point, R's generator",
    rng = if (noise_secure()) secure_note else rng_note)
  structure(utils::modifyList(rec, extra), class = "dpsco_privacy")
}

# ---- The privacy status ----

# One use of the data outside the guarantee: what was read from the data
# without noise (`reason`) and how to make it public or private instead
# (`fix`).  A record's `not_covered` is a table of them (none: no rows).
not_covered_use <- function(reason = character(), fix = character())
  data.frame(reason = reason, fix = fix, stringsAsFactors = FALSE)

# A record's uses outside the guarantee as that table, whatever the
# record's version: records of 0.10.0 and before hold a character vector
# of reasons without fixes.
not_covered_table <- function(nc) {
  if (is.data.frame(nc)) return(nc)
  nc <- as.character(nc %||% character())
  not_covered_use(nc, rep(NA_character_, length(nc)))
}

# The privacy status of a record: the one statement that every display
# makes (print(), summary() and glance() of fits and of cv.dpsco objects,
# the record's own print() and summary()), so that none of them can claim
# a guarantee another one denies.  "not private": no noise (epsilon =
# Inf); "not covered": private releases, but something was read from the
# data without noise, so the accounted epsilon does not hold for the
# output as a whole; "covered": the guarantee holds for everything the
# release read from the data.  Returns list(status, not_covered (the
# table), lines (for print()), sentence (for a summary paragraph)).
privacy_status <- function(pr) {
  uses <- not_covered_table(pr$not_covered)
  status <- if (!isTRUE(pr$private)) "not private"
            else if (nrow(uses)) "not covered" else "covered"
  head <- switch(status,
    "covered" = paste("covered: the guarantee holds for everything the",
                      "release read from the data"),
    "not covered" = paste("NOT covered by the guarantee, which holds for",
                          "the noisy releases only; read from the data",
                          "without noise"),
    "not private" = paste0("not private: no noise was added (epsilon = ",
                           "Inf)", if (nrow(uses)) "; data statistics used"))
  # (a fix makes a release private: none is offered for a fit that is not)
  items <- if (status == "not covered" && nrow(uses))
             ifelse(is.na(uses$fix), uses$reason,
                    paste0(uses$reason, " (fix: ", uses$fix, ")"))
           else uses$reason
  list(status = status, not_covered = uses,
       lines = c(paste0("Privacy status: ", head,
                        if (length(items)) ":" else "."),
                 if (length(items)) paste("  -", items)),
       sentence = paste0("Privacy status: ", head,
                         if (length(items))
                           paste0(": ", paste(items, collapse = "; ")),
                         "."))
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
#' cover.  `noise` says which noise was drawn: floating-point Gaussian from
#' R's generator, or (`secure = TRUE`) the discrete Gaussian on a grid from
#' the operating system's generator, with `noise_grid` the main release's
#' grid step; a secure release's `sensitivity` includes its rounding.
#'
#' With `calibration = "accountant"` (the default) the noise multiplier is
#' the smallest one whose accounted epsilon over every step of every lambda
#' (composed with any private preprocessing) does not exceed the target.
#' With `calibration = "paper"` the noise scales printed in Xie et al. are
#' used for `(epsilon/K, delta/K)` per lambda, and `epsilon_accounted`
#' reports the epsilon they actually deliver for the whole path at the
#' target delta, which is typically larger than the target.
#'
#' **Status.**  Every display of a fit states one privacy status, computed
#' from this record: `"covered"` (the guarantee holds for everything the
#' release read from the data), `"not covered"` (the releases are private,
#' but something was read from the data without noise, so the accounted
#' epsilon does not hold for the output as a whole) or `"not private"`
#' (`method = "none"`, epsilon `Inf`).  [print()][print.dpsco],
#' [summary()][summary.dpsco], [glance()][dpsco_tidiers] (column
#' `privacy_status`), the displays of [cv.dpsco()] objects and the
#' record's own `print()` and `summary()` all show it.  What is not
#' covered is the record's `not_covered`: a data frame with one row per
#' use of the data outside the guarantee, its `reason` and its `fix`:
#' \describe{
#'   \item{`standardize = TRUE`}{the column centres and scales of `x`; fix:
#'     `standardize = "private"` (inside the budget) or declared
#'     `standardize = list(center, scale)`.}
#'   \item{formula factor levels}{the levels of a factor or character
#'     predictor not declared in `xlev`; fix: declare them with `xlev`.}
#'   \item{formula transformations}{parameters a term such as `poly()`,
#'     `scale()` or `splines::ns()` took from the data; fix: declare them
#'     in the term (knots and boundary knots, centres and scales, or
#'     `raw = TRUE` for `poly()`).}
#'   \item{[dp_mean()] `"trimmed"` without `range`}{the range of each
#'     column; fix: a declared `range`.}
#' }
#' Each is also announced by a `dpsco_privacy_warning` when it happens.
#'
#' @param fit a `dpsco` or `cv.dpsco` fit, a `dp_mean` result or a
#'   `dp_summary` table.
#' @param x a `dpsco_privacy` record (or, for its print method, its
#'   summary).
#' @param ... unused.
#' @return `privacy()` returns the record, a list of class `dpsco_privacy`;
#'   `format()` its lines of text.  `summary()` of the record: an object of
#'   class `summary.dpsco_privacy`, a list with `status`, `not_covered`,
#'   `epsilon`, `delta` (the target), `epsilon_accounted`, `guarantee` (the
#'   sentence, `NULL` when not private) and `text` (the paragraphs that
#'   its print method shows).
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
#' summary(privacy(fit))
#' @export
privacy <- function(fit) {
  # (a dp_summary is a data frame: its record is an attribute)
  if (inherits(fit, "dp_summary")) return(attr(fit, "privacy"))
  if (!inherits(fit, c("dpsco", "cv.dpsco", "dp_mean")))
    arg_error("fit", "must be a dpsco or cv.dpsco fit, a dp_mean result or ",
              "a dp_summary table.")
  fit$privacy
}

#' @rdname privacy
#' @export
format.dpsco_privacy <- function(x, ...) {
  num <- function(v) format(signif(v, 4))
  status <- privacy_status(x)$lines
  if (!x$private)
    return(c("Not private (method \"none\"): epsilon = Inf.", status, x$rng))
  lines <- c(
    sprintf("Target: (epsilon, delta) = (%s, %s)%s", num(x$epsilon), num(x$delta),
            if (!is.null(x$nlambda) || !is.null(x$nradius)) " for the whole path"
            else ""),
    if (!is.null(x$loss)) sprintf("Loss: %s", x$loss),
    if (!is.null(x$pure_epsilon))
      sprintf("Pure differential privacy: epsilon = %s, delta = 0",
              num(x$pure_epsilon)),
    sprintf("Accounted: epsilon = %s at delta = %s%s", num(x$epsilon_accounted),
            num(x$delta), if (x$epsilon_accounted > x$epsilon * (1 + 1e-9))
              "  (ABOVE the target: the paper's scales overshoot)" else ""),
    sprintf("Accountant: %s", x$accountant),
    if (!is.null(x$noise)) sprintf("Noise: %s%s", x$noise,
                                   if (is.null(x$noise_grid)) ""
                                   else sprintf(" (main release: grid %s)",
                                                format(x$noise_grid))),
    sprintf("Calibration: %s", x$calibration),
    if (isTRUE(x$one_release))
      sprintf(paste("Steps: %d lambdas from 1 noisy release (the first",
                    "gradient, carried by the released curvature)"),
              x$nlambda)
    else if (!is.null(x$nlambda))
      sprintf("Steps: %d lambdas x %d steps = %d noisy releases", x$nlambda,
              x$steps, x$nlambda * x$steps)
    else if (!is.null(x$nradius))
      sprintf("Path: %d radii%s", x$nradius, if (is.na(x$steps)) ""
              else sprintf(" x %d steps", x$steps))
    else sprintf("Steps: %d", x$steps),
    if (is.null(x$nradius))
      sprintf("Noise multiplier z = %s, L2 sensitivity = %s, noise sd = %s",
              num(x$noise_multiplier), num(x$sensitivity), num(x$noise_sd))
    else sprintf("Main release: %s", x$shares$mechanism[nrow(x$shares)]),
    if (is.null(x$nradius))
      sprintf("Sampling: %s (rate q = %s)", x$sampling, num(x$sample_rate)),
    sprintf("Guarantee: %s", x$guarantee),
    if (!is.null(x$resized)) sprintf("Records: %s", x$resized))
  if (nrow(x$shares) > 1L) lines <- c(lines, format_shares(x$shares))
  if (!is.null(x$pools))
    lines <- c(lines, sprintf("Composition: %s", x$composition), sprintf(
      "  %-10s records: epsilon %s at delta %s", x$pools$pool,
      num(x$pools$epsilon), num(x$pools$delta)))
  c(lines,
    sprintf("Declared public: %s", paste(x$public, collapse = "; ")),
    status, x$rng)
}

# The "Budget shares" lines: one per row of the shares table, whatever
# columns an older record lacks (no kind: a Gaussian part; no epsilon
# alone: NA), each row with its pool of records when the parts draw on
# disjoint records (cv.dpsco(): training and validation, each pool with
# its own budget, so the shares add up to 1 within a pool).
format_shares <- function(sh) {
  num <- function(v) format(signif(v, 4))
  k <- nrow(sh)
  col <- function(name, default)
    if (is.null(sh[[name]])) rep(default, k) else sh[[name]]
  kind <- col("kind", "gaussian")
  eps_alone <- col("epsilon_alone", NA_real_)
  pool <- col("pool", NA_character_)
  part <- ifelse(is.na(pool), sh$part, paste0(sh$part, " (", pool, ")"))
  width <- max(16L, nchar(part))
  rows <- vapply(seq_len(k), function(i) {
    what <- if (identical(kind[i], "dp"))
      sprintf("stated guarantee, %d steps", as.integer(sh$steps[i]))
    else sprintf("z = %s, q = %s, %d steps", num(sh$noise_multiplier[i]),
                 num(sh$sample_rate[i]), as.integer(sh$steps[i]))
    sprintf("  %-*s share %s: %s, epsilon alone %s", width, part[i],
            num(sh$share[i]), what, num(eps_alone[i]))
  }, "")
  described <- nzchar(col("released", ""))
  c(if (all(is.na(pool))) "Budget shares:"
    else "Budget shares (of each pool's budget; the pools are disjoint records):",
    rows,
    if (any(described))
      c("Data-dependent choices (mechanism: released):",
        sprintf("  %-16s %s: %s", sh$part[described],
                col("mechanism", "")[described], sh$released[described])))
}

#' @rdname privacy
#' @export
print.dpsco_privacy <- function(x, ...) {
  cat("Differential privacy record\n")
  cat(paste0("  ", format(x)), sep = "\n")
  invisible(x)
}

#' @rdname privacy
#' @param object a `dpsco_privacy` record.
#' @export
summary.dpsco_privacy <- function(object, ...) {
  num <- function(v) format(signif(v, 4))
  st <- privacy_status(object)
  text <- c(if (object$private) c(
              sprintf(paste("Target (epsilon, delta) = (%s, %s); the",
                            "accountant certifies epsilon = %s (%s)."),
                      num(object$epsilon), num(object$delta),
                      num(object$epsilon_accounted), object$accountant),
              paste("Guarantee:", object$guarantee)),
            st$sentence)
  structure(list(status = st$status, not_covered = st$not_covered,
                 epsilon = object$epsilon, delta = object$delta,
                 epsilon_accounted = object$epsilon_accounted,
                 guarantee = object$guarantee, text = text),
            class = "summary.dpsco_privacy")
}

#' @rdname privacy
#' @export
print.summary.dpsco_privacy <- function(x, ...) {
  for (para in x$text) cat(strwrap(para, exdent = 2), sep = "\n")
  invisible(x)
}

# The trimmed mean: clamp each column to its public [lo, hi] and average
# around the midpoint, dividing by the public n.  Adding or removing a record
# moves coordinate j by at most (hi_j - lo_j) / (2 n).
trimmed_sensitivity <- function(range, n) {
  sqrt(sum(((range[2L, ] - range[1L, ]) / 2)^2)) / n
}

# What a method with a stated (epsilon, delta) guarantee may spend after
# the parts `fixed` (the private settings): those are accounted at a
# quarter of delta, and basic composition leaves the rest, so that
# account_parts(c(fixed, method part)) meets (epsilon, delta) exactly.
remaining_budget <- function(fixed, epsilon, delta) {
  if (!length(fixed)) return(list(epsilon = epsilon, delta = delta))
  d_fixed <- delta / 4
  e_fixed <- account_parts(fixed, d_fixed)
  if (!(e_fixed < epsilon))
    arg_error("epsilon", "= ", format(epsilon), " is used up by the private ",
              "settings (epsilon ", format(signif(e_fixed, 4)), "); declare ",
              "them in dpsco_control() or use tuning = \"public\".")
  list(epsilon = epsilon - e_fixed, delta = delta - d_fixed)
}

# The smallest multiplier-equivalent z, i.e. the largest epsilon0 = 2 / z of
# an exponential mechanism, such that `steps` such selections composed with
# the `fixed` parts meet (epsilon, delta) through their Renyi curves.
calibrate_rdp <- function(fixed, steps, epsilon, delta) {
  eps_at <- function(z) account_parts(c(fixed, list(privacy_part(
    "em", z, 1, steps, 1, 1, kind = "rdp"))), delta)
  floor_eps <- if (length(fixed)) account_parts(fixed, delta) else 0
  if (floor_eps >= epsilon)
    arg_error("epsilon", "= ", format(epsilon), " is used up by the private ",
              "settings (epsilon ", format(signif(floor_eps, 4)), ").")
  calibration_search(eps_at, sqrt(steps), epsilon, 1e-6)$hi
}

# The share of the budget the private settings' parts `fixed` leave to
# the method's own releases.
share_left <- function(fixed) 1 - sum(vapply(fixed, `[[`, 0, "share"))

# The accountant's view of a privacy part.
part_component <- function(p) p[c("noise_multiplier", "sample_rate", "steps")]
