#' Private choice of lambda by a hold-out set
#'
#' Fits a [dpsco()] path on a random training part of the data and chooses
#' the penalty on the rest, the whole procedure within `(epsilon, delta)`:
#' the glmnet-like `cv.glmnet()` workflow for private fits.
#'
#' Each record is put in the validation part independently with
#' probability `holdout` (a coin of its own from R's generator, so the
#' split depends on no data value).  The path is fitted on the training
#' part with the whole budget; the validation part, which the fit never
#' saw, spends the whole budget again on the choice.  Since every record
#' is in exactly one part and a record added or removed changes one part
#' only, the procedure is `(epsilon, delta)`-DP by parallel composition
#' (the choice depends on the training part only through the released
#' path, which is post-processing).  Each part is treated as having its
#' public expected size, `public_n * (1 - holdout)` (rounded: the training
#' fit's `public_n`) and `public_n * holdout` (the divisor of the
#' validation curve); the realised sizes, which depend on where a record
#' fell, are neither used as divisors nor returned.
#'
#' On the validation part every record's loss at every penalty is clamped
#' to `[0, L]`.  `lambda.min` is drawn by the exponential mechanism with
#' the summed losses as (negative) utility: one record added or removed
#' moves every sum by at most `L`, all in the same direction, so
#' `P(k) \propto exp(-eps_sel S_k / L)` is `eps_sel`-DP (McSherry and
#' Talwar 2007; implemented as report-noisy-min with Gumbel noise).  On a
#' private path on the released grid the first penalty is the
#' intercept-only model (see "Do no harm" in [dpsco-methods]), and the mechanism
#' draws with a public prior that
#' weighs it `(19 (K - 1))^(1 - room)` times each other penalty
#' (`P(k) \propto mu_k exp(-eps_sel S_k / L)`, still `eps_sel`-DP: the
#' prior reads no data; `room` as below): at small `n`, when no fit beats
#' the trivial model on the validation part it is chosen with probability
#' 0.95, and another is chosen only when its summed loss is lower by about
#' `log(19 (K - 1)) L / eps_sel`.  Where the noise leaves all the room
#' (`room = 1`) the prior is flat.  A gaussian path with a released range
#' of `y` clamps each validation `y` to that range and each error to a
#' quarter of its width, up to the whole width where the path's noise
#' leaves room (`4^room / 4`, `room = log10(n / (1000 z1))` within `[0, 1]`,
#' `n` the training part's public size, `z1` the noise multiplier of one
#' release of its budget): `L` is the square of that (`"mse"`) or that
#' (`"mae"`), a far smaller `L` than one from a bound on `|y|`, so the
#' choice is sharper.  With
#' `curve > 0`, the share `curve` of the budget releases the validation
#' curve (the summed losses per penalty divided by the public
#' `public_n * holdout`, L2 sensitivity `L sqrt(K) / (public_n * holdout)`)
#' with the Gaussian mechanism, for [plot.cv.dpsco()], and the choice gets
#' `eps_sel = (1 - curve) epsilon`; the two compose to `(epsilon, delta)`.
#'
#' By default no curve is released (`curve = 0`): the whole budget of the
#' validation part goes to the choice, and [plot.cv.dpsco()] shows the
#' coefficient path with the choice marked.  A released curve is noisy:
#' its noise sd, `L sqrt(K) / (public_n * holdout)` times a multiplier of
#' several units, is often larger than the differences between penalties
#' it is meant to show (on the `blog` data at `epsilon = 1`, 1.25 times
#' the spread of the true validation losses on average even with 0.99 of
#' the budget, and 4.5 times with a quarter; `bench/cv_display.R`).  The
#' released values are projected on `[0, L]`, the range of a mean of
#' losses clamped to `[0, L]` (post-processing, no privacy cost; each
#' point moves closer to its true value, never further), so no loss shown
#' is negative; the raw Gaussian release is kept as `cvm_noisy`.
#'
#' There is no private `lambda.1se`: glmnet's rule reads the minimum of
#' the validation curve and its standard error, statistics of the
#' validation records that are not released, and a second private choice
#' would take budget from `lambda.min`.  `s = "lambda.1se"`, like
#' `s = cvfit$lambda.1se` (which is `NA`), is an error that says so; a
#' neighbouring released penalty such as
#' `cvfit$lambda[cvfit$index - 1]` gives a sparser fit at no privacy cost.
#'
#' `L` defaults to a bound the fit has already released.  For gaussian
#' fits it is `R^2` (`"mse"`) or `R` (`"mae"`) with `R` the clamp on the
#' errors above when the path released a range of `y`; otherwise four
#' times the private bound on `|y|` of [dpsco()], or the clipping level
#' `C` when that bound was declared
#' away: large enough that the errors that decide a squared-error risk
#' still count, small enough that the choice is not drowned in noise.
#' For binomial and multinomial fits it is `1` for `"class"` and
#' `2 log(1000)` (the deviance of a probability of 1/1000 for the observed
#' class) for `"deviance"`; for poisson fits `2 (log 4 - 3/4) max(B, 1)` for `"deviance"`
#' (the deviance of a count `B` at a mean four times smaller), `B`
#' the private bound on `y` (or the clipping level when that bound was
#' declared away).  For quantile fits the loss is the (unsmoothed) check loss
#' `"check"` of the residual, and `L` is `max(tau, 1 - tau) R`, the check
#' loss of a residual of size `R`.
#'
#' The constraint-set methods of [dpsco()] are chosen along their path of
#' radii in the same way (`radius.min`); `R` is then four times their bound
#' on `|y|` (private, or the shrinkage level `K` with public tuning).
#'
#' @param x,y,family,method,epsilon,delta as in [dpsco()].
#' @param public_n the number of records, treated as public (default
#'   `NULL`: the number of rows of `x`, which the guarantee then does not
#'   protect); the parts' public sizes are derived from it.
#' @param holdout probability that a record goes to the validation part,
#'   in (0, 0.5].
#' @param type.measure loss on the validation part: `"mse"` (default for
#'   gaussian) or `"mae"`; `"deviance"` (default for binomial) or
#'   `"class"` (misclassification); `"deviance"` (default for poisson),
#'   `"mse"` or `"mae"`; `"deviance"` (default for multinomial, the
#'   record's `-2 log p_y`) or `"class"`; `"check"` (quantile, the only
#'   one).
#' @param curve share of the budget of the validation part spent on
#'   releasing the validation curve, in \[0, 1); 0 (the default) releases
#'   no curve and leaves the whole budget of the validation part to the
#'   choice.
#' @param loss_bound the clamp `L` of the per-record loss (public); `NULL`
#'   for the default above.
#' @param tau as in [dpsco()]: the quantile level of `family = "quantile"`.
#' @rdname cv.dpsco
#' @param secure as in [dpsco()]: secure noise for the fit and for the
#'   choice (the curve's discrete Gaussian release and the exponential
#'   mechanism's uniforms from the operating system's generator).
#' @param weights,offset as in [dpsco()]: each record's weight and offset
#'   go with it to its part.  On the validation part each record's clamped
#'   loss is multiplied by its weight and the sum still divided by the
#'   part's public expected size.
#' @param inference `FALSE` (default); `TRUE` (or a share) for the
#'   inference stage of [dpsco()] on the training fit (intervals for all
#'   coefficients of the unpenalised model, from the training records); or
#'   `"selected"`: intervals for the coefficients of the model selected at
#'   `lambda.min`, from a third part of the records (an inference pool of
#'   expected size 0.4 n, by the same independent coins; the training and
#'   validation parts share the rest as `holdout` says), honest because
#'   the support was chosen on other records, and at no extra epsilon
#'   (parallel composition).  See [confint.dpsco()].
#' @param relax `TRUE` for glmnet's relaxed fit: the model selected at
#'   `lambda.min` refitted without penalty.  The refit is the selected
#'   model's fit of `inference = "selected"` (which `relax = TRUE` turns
#'   on): it uses the inference pool, records the path and the choice did
#'   not see, so it costs no extra epsilon (parallel composition), but the
#'   path and the choice see 60% of the records instead of all.
#'   `coef(cvfit, gamma = 0)` and `predict(cvfit, newx, gamma = 0)` use
#'   it.  Not for multinomial fits.
#' @param budget a [dp_budget()] that pays for the whole procedure (its
#'   training fit included), as in [dpsco()].  Default
#'   `getOption("dpsco.budget")`.
#' @param ... further arguments to [dpsco()] (e.g. `nlambda`, `alpha`,
#'   `control`), by their exact names.
#' @return An object of class `cv.dpsco`: `lambda` (or `radius` for the
#'   constraint-set methods of [dpsco()]), `cvm` (the noisy mean
#'   validation loss projected on `[0, loss_bound]`, or `NULL` with
#'   `curve = 0`), `cvsd` (the sd of its noise), `cvup`, `cvlo` (`cvm`
#'   plus and minus `cvsd`, kept in `[0, loss_bound]`), `cvm_noisy` (the
#'   Gaussian release itself: unbiased, but it can be negative), `nzero`,
#'   `name` (the loss), `measure` (its `type.measure`), `lambda.min` (or
#'   `radius.min`: the private choice of the exponential mechanism, not
#'   the minimum of `cvm`), `lambda.1se` (or `radius.1se`: `NA`, see
#'   above; as `s` it gives the error that explains why),
#'   `index` (its position), `dpsco.fit`
#'   (the path fitted on the training part), `n_fit` and `n_hold` (the
#'   public expected sizes of the two parts), `loss_bound` and `privacy`
#'   (the record of the whole procedure).
#' @references McSherry, F. and Talwar, K. (2007). Mechanism design via
#'   differential privacy. *FOCS 2007*, 94--103.
#' @seealso [dpsco()], [predict.cv.dpsco()], [plot.cv.dpsco()],
#'   [summary.cv.dpsco()]
#' @examples
#' set.seed(1)
#' n <- 3000; p <- 8
#' x <- matrix(rexp(n * p), n, p)                 # skewed, unbounded features
#' y <- drop(x %*% c(3, -2, rep(0, p - 2))) + 5 * rt(n, df = 3)
#' cvfit <- cv.dpsco(x, y, method = "clip", epsilon = 1)
#' cvfit
#' coef(cvfit)
#' summary(cvfit)
#' @export
cv.dpsco <- function(x, ...) UseMethod("cv.dpsco")

#' @rdname cv.dpsco
#' @export
cv.dpsco.default <- function(x, y, family = c("gaussian", "binomial", "poisson",
                                                "multinomial", "quantile"),
                             method = NULL, epsilon = 1, delta = NULL,
                             public_n = NULL, holdout = 0.2,
                             type.measure = NULL, curve = 0, loss_bound = NULL,
                             tau = NULL, secure = FALSE, weights = NULL,
                             offset = NULL, inference = FALSE, relax = FALSE,
                             budget = getOption("dpsco.budget"), ...) {
  this_call <- generic_call(match.call(), "cv.dpsco")
  family <- match_choice(family_arg(family), "family")
  # the family as the fit will have it; tau checked (check_tau())
  fam <- as_family(family, tau)
  tau <- fam$tau
  spec <- check_method(method, family, "clip")
  method <- spec$name
  own <- c("x", "y", "family", "method", "epsilon", "delta", "public_n", "tau",
           "secure", "weights", "offset", "inference")   # cv passes these
  check_dots_names(list(...), names(formals(dpsco.default)), own, "cv.dpsco")
  # (spec: on shards, a method that cannot run there is refused first)
  dat <- check_data_args(x, y, family, public_n, weights, offset, spec)
  x <- dat$x
  # the checks of dpsco() that must come before the split; the fit checks
  # the rest
  inf <- cv_inference_arg(cv_relax_arg(relax, inference, fam))
  check_path_args(spec, c(list(x = x, inference = inf$share %||% inf$pool,
                               tuning = list(...)$tuning %||% "private"),
                          list(...)), fam)
  n <- dat$n
  weights <- dat$weights
  offset <- dat$offset
  # with an inference pool the training and validation parts share the
  # rest of the records
  hold <- cv_holdout(holdout, n * (1 - inf$pool))
  n_fit <- hold$n_fit
  measure <- cv_measure(type.measure, fam, family)
  check_number(curve, "curve", 0, 1, lower_open = FALSE)
  secure <- check_secure(secure)
  if (curve >= 1) arg_error("curve", "must be below 1.")
  if (!is.null(loss_bound)) check_number(loss_bound, "loss_bound", 0)
  private <- method_private(spec)
  # budget.R: admitted before a record is read
  bo <- budget_open(budget, if (private) epsilon else Inf, delta, n, "cv.dpsco()")
  if (private) delta <- check_target(epsilon, bo$delta, n)
  # one coin per record, independent of the data: a record added or
  # removed changes one part only (parallel composition), and neither
  # part's realised size is used or returned
  local_fit_stream()  # rng.R: .Random.seed afterwards is free of the data
  coin <- stats::runif(nrow(x))
  val <- coin < holdout * (1 - inf$pool)
  pool <- coin >= 1 - inf$pool
  train <- !val & !pool
  y_fit <- if (is_sharded(dat$y)) dat$y
           else if (fam$classes) factor(dat$classnames[dat$y + 1L],
                                   levels = dat$classnames) else dat$y
  fit <- dpsco(x[train, , drop = FALSE], y_fit[train], family = family,
               method = method, epsilon = epsilon, delta = delta,
               public_n = n_fit, tau = tau, secure = secure,
               weights = weights[train], offset = offset[train],
               inference = inf$share, ...)
  # the choice's releases and record use the fit's noise
  local_secure(secure)
  lam <- path_values(fit)
  k <- length(lam)
  # a constraint-set fit's y_scale is its bound on |y|; with public tuning
  # the bounded-data methods have their shrinkage level K
  y_bound <- fit$privacy$released$y_bound %||%
    if (is.finite(fit$settings$y_bound %||% Inf)) fit$settings$y_bound
  # a path kept near the trivial model by a range of y (domain.R): y
  # clamped to that range and each error to a quarter of its width, up
  # to the whole width as the noise leaves room (noise_room(); see
  # cv_error_bound())
  y_range <- if (fam$y_error_scale && is.null(offset)) fit$settings$y_range
  r_bound <- cv_error_bound(fit, fam, private, y_range, y_bound)
  if (is.null(loss_bound) && is.null(r_bound) &&
      measure %in% error_measures)
    arg_error("loss_bound", "is needed: this fit released no bound on |y| ",
              "and has no clipping level to take one from.")
  bound <- loss_bound %||% switch(measure, mse = r_bound^2, mae = r_bound,
                                  class = 1,
                                  deviance = deviance_bound(fam, y_bound %||% r_bound),
                                  check = fam$slope_bound * r_bound)
  sums <- cv_sums(fit, dat, val, measure, tau, fam, bound, y_range)
  ch <- cv_choice(sums, private, epsilon, delta, curve, bound, fit, k,
                  hold$n_hold)
  record <- cv_privacy_record(fit$privacy, private, epsilon, delta, curve,
                              ch$z_curve, bound, k, hold$n_hold, measure,
                              paste0(path_axis(fit)$name, ".min"), n)
  out <- new_cv_dpsco(fit, lam, ch, measure, fam, bound, n_fit, hold$n_hold,
                      this_call, record)
  if (inf$pool > 0)
    out <- cv_selected_inference(out, x[pool, , drop = FALSE], y_fit[pool],
                                 round(n * inf$pool), list(
      family = family, method = method, epsilon = epsilon, delta = delta,
      tau = tau, secure = secure, weights = weights[pool],
      offset = offset[pool], ...))
  if (isTRUE(relax)) out$relax <- TRUE
  check_releases(out$privacy)   # release.R: the record shows every release
  budget_debit(bo$adm, out$privacy)
  out
}

# `relax`: TRUE asks for the selected model's refit, the fit of
# inference = "selected" (which it turns on).
cv_relax_arg <- function(relax, inference, fam) {
  if (!is.logical(relax) || length(relax) != 1L || is.na(relax))
    arg_error("relax", "must be TRUE or FALSE.")
  if (!relax) return(inference)
  if (fam$multi)
    arg_error("relax", "is not available for family \"multinomial\": the ",
              "refit on the selected support is the inference stage's, ",
              "which fits one predictor.")
  if (!isFALSE(inference) && !identical(inference, "selected"))
    arg_error("relax", "refits the selected model on the inference pool of ",
              "inference = \"selected\"; it does not combine with inference ",
              "= ", deparse(inference), ".")
  "selected"
}

# The cv.dpsco object: the path's values under their name (lambda or
# radius), the curve, the choice and the fit.
new_cv_dpsco <- function(fit, lam, ch, measure, fam, bound, n_fit, n_hold,
                         this_call, record) {
  name <- path_axis(fit)$name
  out <- c(stats::setNames(list(lam), name), list(
              cvm = ch$cvm, cvsd = ch$cvsd,
              cvup = if (!is.null(ch$cvm)) pmin(ch$cvm + ch$cvsd, bound),
              cvlo = if (!is.null(ch$cvm)) pmax(ch$cvm - ch$cvsd, 0),
              cvm_noisy = ch$cvm_noisy,
              nzero = fit$df,
              name = if (measure == "deviance") fam$deviance_label
                     else measure_names[[measure]],
              measure = measure),
           stats::setNames(list(lam[ch$index]), paste0(name, ".min")),
           # NA, not absent: coef(cvfit, s = cvfit$lambda.1se) is then the
           # error that explains why there is none, not lambda.min
           stats::setNames(list(NA_real_), paste0(name, ".1se")), list(
              index = ch$index,
              dpsco.fit = fit, n_fit = n_fit, n_hold = n_hold,
              loss_bound = bound, call = this_call, privacy = record))
  structure(out, class = "cv.dpsco")
}

# The summed clamped losses of the validation part `val` along the path
# (an empty part sums to 0).
cv_sums <- function(fit, dat, val, measure, tau, fam, bound, y_range) {
  # the fit without what the sums do not read (it goes to the workers of
  # sharded data), and the family by name: record_loss() rebuilds it
  fit$call <- NULL
  fit$trace <- NULL
  data_sums(list(x = dat$x, y = dat$y, weights = dat$weights,
                 offset = dat$offset), "cv_loss",
            list(fit = fit, val = val, measure = measure, tau = tau,
                 family = fam$name, bound = bound, y_range = y_range))
}

# The public expected sizes of the two parts: the training fit's public
# n and the divisor of the validation curve, whatever the coins give.
cv_holdout <- function(holdout, n) {
  check_number(holdout, "holdout", 0, 0.5)
  n_hold <- n * holdout
  if (n_hold < 2)
    arg_error("holdout", "gives an expected validation part of ",
              format(signif(n_hold, 3)), " records (public n = ",
              format_count(n), "); it needs at least 2.")
  list(n_fit = round(n * (1 - holdout)), n_hold = n_hold)
}

# The validation measure: the family's default or one it has.
cv_measure <- function(type.measure, fam, family) {
  measure <- type.measure %||% fam$measures[1L]
  if (identical(measure, "auc"))
    arg_error("type.measure", "\"auc\" is not available: one record changes ",
              "the AUC by an amount that depends on how many records of ",
              "each class the validation part holds, counts the guarantee ",
              "would have to privatise first; use \"class\" or ",
              "\"deviance\".")
  measure <- match_choice(measure, "type.measure",
                          c("mse", "mae", "deviance", "class", "check"))
  if (!measure %in% fam$measures)
    arg_error("type.measure", "\"", measure, "\" does not apply to family \"",
              family, "\".")
  measure
}

# The bound on a validation record's error |y - prediction|: a quarter
# of the width of the path's range of y, up to the whole width as the
# noise leaves room; else four times the released bound on |y|; else the
# clipping level, where a clip on the residual bounds the error too
# (unless the residual is bounded whatever the error, as the check
# loss's).  The clamp sets the exponential mechanism's sensitivity L, and
# the choice tells candidates apart when their summed losses differ by a
# few L / eps: a clamp at the scale of a typical error, not of the
# largest, is a far sharper choice (errors beyond it count as it: a
# robust loss), as the released range of a heavy-tailed y is many of its
# sds wide; at large n a quarter of the width hid the large errors that
# make most of such a y's mean squared error (BlogFeedback, 10 splits at
# epsilon 1: G 0.59 with half the width, 0.67 with the whole).
cv_error_bound <- function(fit, fam, private, y_range, y_bound) {
  room <- if (private) choice_room(fit) else 1
  if (!is.null(y_range)) diff(y_range) / 4 * 4^room
  else if (!is.null(y_bound)) 4 * y_bound
  else if (fam$clip_bounds_error) fit$settings$clip
}

# The choice along the path (the exponential mechanism on the summed
# losses, with the trivial model's prior) and the validation curve
# released with the `curve` share of the budget (the whole curve without
# noise when the method is not private).
cv_choice <- function(sums, private, epsilon, delta, curve, bound, fit, k,
                      n_hold) {
  if (private) {
    index <- noisy_argmin(sums, (1 - curve) * epsilon, bound,
                          trivial_prior(fit, k))
    z_curve <- if (curve > 0) calibrate_noise(list(), 1, 1, curve * epsilon,
                                              delta)
  } else {
    index <- which.min(sums)
    z_curve <- 0
  }
  out <- list(index = index, z_curve = z_curve)
  if (curve > 0 || !private) {
    cr <- curve_release(sums, n_hold, z_curve, bound)
    out$cvm_noisy <- cr$cvm
    out$cvsd <- cr$cvsd
    # post-processing (free): a mean of losses clamped to [0, L] lies in
    # [0, L], and projecting the release there moves every point closer to
    # its true value, never further
    out$cvm <- pmin(pmax(cr$cvm, 0), bound)
  }
  out
}

# The exponential mechanism on summed losses: every record's loss lies in
# [0, bound], so one record moves every sum by at most `bound`, all in the
# same direction, and P(k) proportional to exp(-eps sums_k / bound) is
# eps-DP; drawn as report-noisy-min with Gumbel noise.  The output is an
# index, so floating point leaves no lattice to read; with secure noise
# the uniforms come from the operating system's generator.
noisy_argmin <- function(sums, eps, bound, prior = 0)
  release_choice(-eps * sums / bound + prior)

# The exponential mechanism's public prior over the K candidates: a base
# measure that reads no data leaves it eps-DP (P(k) proportional to
# mu_k exp(-eps S_k / L)).  On a path whose first candidate is the trivial
# model (lambda-path.R), mu_1 = (19 (K - 1))^(1 - room) and the others 1
# (room from the public n and the budget, choice_room()): at small n,
# when no penalty's fit does better on the validation part, the trivial
# model is chosen with probability 0.95, and another only when its summed
# loss is lower by about log(19 (K - 1)) L / eps, a margin the selection's
# own noise rarely produces.  Do no harm: a fit is not chosen over the
# mean (or the base rate) unless the data show that it is better.  Where
# the noise leaves all the room the prior is flat.
trivial_prior <- function(fit, k) {
  if (!isTRUE(fit$trivial == 1L) || k < 2L) return(0)
  c(log(19 * (k - 1)) * (1 - choice_room(fit)), rep(0, k - 1L))
}

# The room the fit's noise leaves (noise_room() on its public n and the
# multiplier of one release of its budget; 0 for a fit without a record).
# Where the noise leaves room, the path's fits are far from noise (its
# support rule zeroes what is within it), and the trivial model's prior
# shrinks to nothing at room 1: at full weight it kept the intercept-only
# model in 2 of 10 private draws on raw weekly wages (AER::CPS1988,
# epsilon 1), where the best fit beat it by 4.95 L / eps, just under the
# margin (bench/README.md, bench/knobs.R seeds).
choice_room <- function(fit) {
  pr <- fit$privacy
  if (is.null(pr$public_n) || is.null(pr$epsilon)) return(0)
  noise_room(pr$public_n, calibrate_noise(list(), 1, 1, pr$epsilon,
                                          pr$delta))
}

# The validation curve: the summed losses, each record's clamped to
# [0, bound], over the public expected size n_hold of the part, plus
# Gaussian noise of multiplier z.  A record added or removed moves each of
# the K sums by at most `bound`: L2 sensitivity bound sqrt(K) / n_hold.
curve_release <- function(sums, n_hold, z, bound) {
  k <- length(sums)
  sens <- bound * sqrt(k) / n_hold
  cvsd <- z * sens
  cvm <- release(sums / n_hold, z, sens, sd = cvsd)
  list(cvm = cvm, cvsd = cvsd)
}

measure_names <- c(mse = "Mean-squared error", mae = "Mean absolute error",
                   deviance = "Binomial deviance",
                   class = "Misclassification error",
                   check = "Mean check loss")

# A record's loss, as the summary names the summed losses.
record_loss_names <- c(mse = "squared errors", mae = "absolute errors",
                       deviance = "deviances", class = "misclassifications",
                       check = "check losses")

# The measures whose bound scales with a bound on the error y - prediction.
error_measures <- c("mse", "mae", "check")

# The default clamp of the per-record deviance, the family's
# (deviance_bound()): 2 log(1000) for binomial and multinomial (a
# probability of 1/1000 on the observed class); for poisson
# 2 (log 4 - 3/4) max(R, 1), the deviance of a count R at a mean four
# times smaller, R the released bound on y (else the clipping level).  A
# clamp: privacy never rests on it holding.  `fam` a family object or its
# name.
deviance_bound <- function(fam, r_bound) {
  bound <- family_object(fam)$deviance_bound(r_bound)
  if (is.null(bound))
    arg_error("loss_bound", "is needed: this fit released no bound on |y| ",
              "and has no clipping level to take one from.")
  bound
}

# The record of the whole procedure: the fit's parts on the training
# records, the choice (and the curve) on the validation records, and the
# guarantee of the two by parallel composition.
# n_val is the public expected size of the validation part, public_n the
# public number of records of the whole procedure.
cv_privacy_record <- function(fit_record, private, epsilon, delta, curve,
                              z_curve, bound, k, n_val, measure,
                              chosen = "lambda.min", public_n) {
  rec <- fit_record
  rec$shares$pool <- "training"
  rec$public_n <- public_n
  rec$adjacency <- paste("add/remove one record at the public size n =",
                         format_count(public_n))
  rec$public <- c(public_n_note(public_n),
                  setdiff(rec$public, public_n_note(fit_record$public_n)))
  if (!private) return(rec)
  sel <- data.frame(
    part = "selection", share = 1 - curve, noise_multiplier = NA_real_,
    sample_rate = 1, steps = 1, sensitivity = bound,
    mechanism = "exponential mechanism (report-noisy-min, Gumbel)",
    released = paste0("the index of ", chosen, ", from summed ", measure,
                      " clamped to [0, ", format(signif(bound, 3)), "]"),
    kind = "dp", epsilon_stated = (1 - curve) * epsilon, delta_stated = 0,
    epsilon_alone = (1 - curve) * epsilon, pool = "validation",
    stringsAsFactors = FALSE)
  eps_val <- (1 - curve) * epsilon
  # replace-one: the choice's sums move either way by up to L (2 eps_sel),
  # the curve by twice its sensitivity (half its multiplier)
  eps_val_replace <- 2 * eps_val
  if (curve > 0) {
    curve_eps <- function(z) account_parts(list(privacy_part(
      "curve", z, 1, 1, NA_real_, 1)), delta)
    eps_curve <- curve_eps(z_curve)
    eps_val <- eps_val + eps_curve
    eps_val_replace <- eps_val_replace + curve_eps(z_curve / 2)
    sel <- rbind(sel, data.frame(
      part = "curve", share = curve, noise_multiplier = z_curve,
      sample_rate = 1, steps = 1,
      sensitivity = if (noise_secure())
        secure_gaussian(z_curve, bound * sqrt(k) / n_val, k)$sensitivity
        else bound * sqrt(k) / n_val,
      mechanism = "Gaussian", released = paste(
        "the mean validation", measure, "at each of", k,
        if (chosen == "radius.min") "radii" else "penalties"),
      kind = "gaussian", epsilon_stated = NA_real_, delta_stated = NA_real_,
      epsilon_alone = eps_curve, pool = "validation",
      stringsAsFactors = FALSE))
  }
  rec$shares <- rbind(rec$shares[, names(sel)], sel)
  rec$pools <- data.frame(pool = c("training", "validation"),
                          epsilon = c(fit_record$epsilon_accounted, eps_val),
                          delta = c(delta, if (curve > 0) delta else 0))
  rec$epsilon_accounted <- max(rec$pools$epsilon)
  # a replaced record keeps its coin: one part sees the replacement
  rec$epsilon_replace_one <- max(fit_record$epsilon_replace_one, eps_val_replace)
  rec$guarantee <- guarantee_sentence(rec$epsilon_accounted, delta, public_n,
                                      rec$epsilon_replace_one)
  rec$composition <- paste("parallel: each record is in the training part or",
                           "in the validation part, never both, by a coin of",
                           "its own; the parts' public sizes are their",
                           "expected sizes")
  rec
}
