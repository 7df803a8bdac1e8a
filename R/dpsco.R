#' Differentially private penalised and constrained regression paths
#'
#' Fits an elastic-net penalised linear (`"gaussian"`), logistic
#' (`"binomial"`), Poisson (`"poisson"`, log link) or smoothed quantile
#' (`"quantile"`, see the section
#' "Quantile regression") model along a path of penalties by differentially private
#' stochastic proximal gradient descent, with one of the three private
#' gradient estimators of Xie et al. or the non-private baseline.
#'
#' The objective at each `lambda` is glmnet's:
#' \deqn{\frac{1}{n}\sum_i \ell(y_i, \beta_0 + x_i^\top\beta) +
#'   \lambda \sum_j w_j \{\alpha|\beta_j| + (1-\alpha)\beta_j^2/2\},}{
#'   (1/n) sum_i loss(y_i, b0 + x_i'b) + lambda sum_j w_j (alpha |b_j| +
#'   (1 - alpha) b_j^2 / 2),}
#' with \eqn{\ell}{loss} half the squared error, the logistic deviance
#' over two or the Poisson loss \eqn{e^\eta - y\eta}{exp(eta) - y eta},
#' and penalty factors `w` rescaled to sum to `p`.
#'
#' With `weights`, record `i`'s loss is multiplied by its weight `v_i` and
#' the sum is still divided by the public `n` (`public_n`), never by
#' `sum(weights)`, which is a count taken on the data: where glmnet
#' divides by `sum(weights)`, its solution at `lambda` is this fit's at
#' `lambda * sum(weights) / n`.  Each weight must lie in \[0, 1\]: it
#' multiplies its record's gradient, and every sensitivity of the fit
#' assumes a weight of at most 1 (a weight outside \[0, 1\] is an error,
#' not clamped: divide weights on another scale by a bound known without
#' the data, not by their largest value).  A record's weight and `offset`
#' are part of the record: they go with it wherever it is sampled, split
#' or left out.  With private tuning the settings see them as follows: the
#' bound on `|y|`, the centre of `y` (the starting intercept) and the
#' quantile family's histogram are released on `y` net of the offset
#' (`y - offset`; for poisson the count per unit of exposure
#' `y exp(-offset)`; binomial ignores the offset there), each record
#' unweighted; the clipping level comes from the weighted residuals with
#' the offsets at the start; the curvature from the rows scaled by the
#' square roots of their weights.  A weight in \[0, 1\] only shrinks a
#' record's part in each of these releases, and the clipping bounds its
#' gradient whatever its offset, so no sensitivity changes.  The
#' constraint-set methods take neither.
#'
#' The methods' details are on their own page, [dpsco-methods]
#' (`help("dpsco-methods")`): the gradient oracles and the optimisers, how
#' the private settings are chosen, the trivial model on every private
#' path, the privacy accounting and the guarantee with what it covers, the
#' defaults, the constraint-set methods, the support rule, numerical
#' robustness, sparse and file-backed `x`, secure noise and interrupting a
#' fit.
#'
#' @section Input checks:
#' Bad input raises a [`dpsco_arg_error`][dpsco_errors] naming the argument
#' before anything is fitted.  Coercions: a numeric or logical data frame
#' and a logical or integer matrix are converted with `as.matrix()` and give
#' exactly the fit of the dense double matrix; a data frame with factor or
#' character columns is an error (code
#' them first, e.g. with [stats::model.matrix()]).  Without `public_n`,
#' `x` needs at least two rows (its row count is then the public `n`);
#' with `public_n` declared, any number of rows is fitted, none included,
#' so that no error depends on the data.  A user
#' `lambda` must be strictly decreasing (an unsorted or repeated grid is an
#' error rather than silently re-sorted, as every lambda spends budget and
#' warm-starts the next).  A factor `y` keeps its declared levels, so a
#' binomial fit with one level absent from the data runs instead of
#' revealing the absence in an error; a character `y` is an error (its
#' classes would be read from the data).  Choices (`family`, `method`, `tuning`, `optimizer`,
#' `calibration`, `type`, kernels) are matched exactly: an abbreviation is
#' an error, as two methods may share a prefix and differ in their
#' privacy analysis.
#' Size limits are listed in [dpsco_errors].
#'
#' @param x numeric matrix of predictors, one row per record (a numeric data
#'   frame is converted, see Input checks), a sparse `Matrix`, or a
#'   file-backed `bigmemory::big.matrix` (see "Sparse and file-backed x" in
#'   [dpsco-methods]);
#'   or, for the formula method, a formula `y ~ terms` (see "Formula
#'   interface").
#' @param y response: numeric for `"gaussian"` and `"quantile"`; 0/1 or a two-level factor for
#'   `"binomial"` (the second level is the event); non-negative counts for
#'   `"poisson"`.
#' @param family `"gaussian"` (lasso), `"binomial"` (l1-logistic),
#'   `"poisson"` (l1-Poisson, log link; the penalised methods `"clip"`,
#'   `"kamath"`, `"holland"` and `"none"`) or `"quantile"` (smoothed
#'   quantile regression; see the section below); or a family object of
#'   `stats`, `gaussian()` (identity link), `binomial()` (logit link) or
#'   `poisson()` (log link), as glmnet takes them.  A binomial `y` must be
#'   one record per trial (a two-column matrix of counts is refused:
#'   expanding it changes the number of records, see [dpsco_families]).
#'   `"cox"` is not available (see [dpsco_families]).  With private tuning
#'   a poisson fit starts from the log of the private mean count (the
#'   count clamped to the private bound on `y`, the mean kept at least its
#'   noise sd) and its curvature is that mean count times the second
#'   moment of the rows.  `"multinomial"` (glmnet's symmetric multinomial
#'   lasso, penalised methods only, x in memory, no offset) takes a factor
#'   `y` whose levels are the classes, declared (a level absent from the
#'   data is kept); with private tuning it starts from the log of the
#'   private class shares, and its Newton model is the Hessian at that
#'   start, `(diag(p) - p p') (x) A` for the shares `p`.  Its fit holds
#'   `a0` as a classes x lambdas matrix and `beta` as a list of one
#'   matrix per class.
#' @param method private gradient oracle: `"clip"`, `"holland"`,
#'   `"kamath"` or `"none"`; or a constraint-set method, `"fw"`,
#'   `"htp_lasso"`, `"htdp_fw"`, `"objective"`, `"mirror"` or
#'   `"mirror_shuffled"` (see [dpsco-methods]); the one-pass methods
#'   `"acsa"`, `"clipped_sgd"`, `"localized"` (radii) and
#'   `"prox_clipped_sgd"` (penalties; see their section).  Default `"clip"` with private tuning (at its
#'   private level, clipping gave the lowest held-out error of the three on
#'   the raw data of `bench/utility.R`) and `"holland"` with public tuning.
#' @param epsilon,delta privacy target for the whole path; `epsilon > 0`
#'   (`Inf` only with `method = "none"`), `0 < delta < 1`, by default
#'   `0.1 / public_n`; a `delta` of `1 / public_n` or more gets a
#'   `dpsco_privacy_warning`.
#' @param public_n the number of records, treated as public: every divisor
#'   and noise scale is derived from it, whatever the number of rows of `x`
#'   (see "The guarantee" in [dpsco-methods]).  Default `NULL`: the number of rows,
#'   which the guarantee then does not protect.
#' @param lambda optional decreasing sequence of penalties (public),
#'   fitted as given (one value included).
#' @param nlambda number of penalties of the default grid; default 10
#'   (private tuning) or 20 (public).  The budget is shared by every
#'   penalty's steps, so a longer grid adds noise to each step: glmnet's
#'   `nlambda = 100` makes it about 3.2 times the default's.  A message
#'   says so when a longer grid is asked for, and print() shows it.
#' @param lambda.min.ratio smallest penalty as a fraction of the largest;
#'   default `1e-3` with private tuning, otherwise `1e-4` if `n >= p` and
#'   `0.01` if not (glmnet's rule).
#' @param alpha elastic-net mixing in \[0, 1\]; 1 is the lasso.
#' @param penalty.factor per-column penalty multipliers (0 leaves a column
#'   unpenalised, `Inf` excludes it as `exclude` does), rescaled to sum to
#'   the number of columns as in glmnet.
#' @param exclude columns of `x` (numbers or names) left out of the model:
#'   their coefficients are 0 and they are never read, so they cost no
#'   budget (the private bounds of the other columns get less noise).
#' @param lower.limits,upper.limits limits on the coefficients, one value
#'   or one per column, on the scale of the returned coefficients (`x` as
#'   given), `lower.limits <= 0 <= upper.limits` as in glmnet.  Every
#'   iterate is projected onto them, which is post-processing of the
#'   released gradients: no privacy cost.  Penalised paths only.
#' @param dfmax,pmax glmnet's caps: the path stops before the first
#'   penalty with more than `dfmax` non-zero variables, or more than
#'   `pmax` variables non-zero at some penalty so far.  The cut is
#'   post-processing; the budget was shared by the whole grid requested,
#'   so a shorter `nlambda` spends it better.
#' @param type.multinomial `"ungrouped"` (default) penalises each class's
#'   coefficients alone; `"grouped"` penalises feature j's coefficients
#'   over the classes by their 2-norm, so a feature enters or leaves every
#'   class at once (glmnet's grouped lasso).
#' @param penalty.scale the scale the penalty applies on.  `"bounded"`
#'   (default): under private tuning the columns of `x` (after
#'   `standardize`) are divided by their private bounds `B_j`, and
#'   `lambda` penalises the coefficients of those bounded columns, so a
#'   `lambda` from glmnet is not on this scale.  `"glmnet"`: the penalty
#'   factors are divided by the bounds (post-processing of released
#'   values), so `lambda` penalises the coefficients of `x` as
#'   `standardize` leaves it, as glmnet does; with `method = "none"` and
#'   `standardize = TRUE` the fit then matches glmnet's.  The same under
#'   public tuning, which has no bounds.
#' @param intercept fit an unpenalised intercept?
#' @param standardize how to scale the columns of `x` before fitting
#'   (coefficients are always returned on the original scale; penalties
#'   apply on the standardised scale divided by the private bounds, see
#'   `penalty.scale`): `"auto"` (default, or
#'   `getOption("dpsco.standardize")`) is the private standardisation below
#'   for a private fit with private tuning and an intercept of a dense
#'   in-memory `x`, with only the columns whose released centre lies
#'   beyond their released scale (values far from 0 for their spread, such
#'   as years or sensor readings) centred and scaled and the others used as
#'   given (post-processing of the same releases), where a public rule says
#'   its histograms can show a column (the level their counts must clear
#'   is below the public `n`); otherwise, with `inference` and with
#'   declared `control$x_bound`, it is `FALSE`.  `FALSE` uses
#'   `x` as given; `list(center = , scale = )` applies centres and scales the
#'   user declares public; `"private"` estimates the column means and
#'   standard deviations privately on the share `control$std_share` of the
#'   budget (accounted in the record): a noisy histogram of
#'   `ceiling(log2|x|)` per column over the public bins `2^-30, ..., 2^31`
#'   gives a bound `B_j` (the largest bin whose noisy count clears the noise
#'   level), then the trimmed means of `x / B_j` clamped to `[-1, 1]` and of
#'   its square clamped to `[0, 1]` give the centre and the scale (a column
#'   whose bound is the lowest bin, e.g. all zeros, keeps centre 0 and
#'   scale 1); `TRUE` uses the data's own means
#'   and standard deviations, which the guarantee does not cover (a
#'   `dpsco_privacy_warning` is raised for private methods).  Without an
#'   intercept, columns are scaled but not centred (declared centres are
#'   ignored), as in glmnet.
#' @param tuning `"private"` (default): the data-dependent settings are
#'   estimated privately inside the budget; `"public"`: the paper's public
#'   settings (see [dpsco-methods]).
#' @param optimizer `"newton"` (default with private tuning, up to
#'   `d = 4000` coefficients) or `"spgd"` (the paper's stochastic proximal
#'   gradient loop; the only one with public tuning, and the default for
#'   wider data, which get no released curvature: their step is
#'   `1 / (c B_H^2)`, `B_H` the private row bound and `c` the loss's
#'   curvature at the start, a bound on the curvature that costs no
#'   privacy).
#' @param batch_size expected batch size `m` in \[1, n\].
#' @param iterations steps per lambda `T`.  With `method = "none"` and
#'   `iterations` not given, the non-private baseline is solved to
#'   convergence instead (a proximal Newton method with the exact Hessian,
#'   see [dpsco_baseline]), so it is the exact non-private solution of
#'   the same objective.
#' @param step_size base step size of `"spgd"` (see `control$schedule`),
#'   or the model step `eta` of `"newton"` (the model's curvature is the
#'   released one divided by `eta`).
#' @param calibration `"accountant"` (default) calibrates the noise so the
#'   accounted epsilon meets the target; `"paper"` uses the paper's printed
#'   noise scales and reports the epsilon they deliver.
#' @param secure `FALSE` (default): Gaussian noise from R's generator, so
#'   that `set.seed()` reproduces a fit; that generator is not
#'   cryptographically secure: whoever learns the seed, or enough of the
#'   generator's other outputs to rebuild its state, can reproduce the
#'   noise and subtract it from the releases.  `TRUE`: every release is rounded
#'   to a fine power-of-two grid and given discrete Gaussian noise drawn
#'   exactly, in integer arithmetic, from the operating system's
#'   cryptographic generator (see "Secure noise" in [dpsco-methods]).  Needs full
#'   batches (`batch_size = n`) and a method among `"clip"`, `"kamath"` and
#'   `"holland"`.
#' @param control oracle tuning and optimiser options, from
#'   [dpsco_control()].
#' @param trace `FALSE`, `TRUE` (every step) or step numbers at which to keep
#'   the output iterate (the running average, or the current iterate when
#'   `control$output = "last"`) for every lambda; post-processing, free of
#'   privacy cost.
#' @param threads number of chunks each step's batch is split into; the
#'   chunks run in parallel (OpenMP) on at most `threads` threads, fewer when
#'   `OMP_THREAD_LIMIT` or the number of processors says so.  The fit depends
#'   on `threads` only through the order in which per-record sums are added:
#'   for a given seed and `threads` it is identical on every machine, with or
#'   without OpenMP and whatever number of threads actually ran.  The default
#'   is `getOption("dpsco.threads", 2)`.
#' @param radius constraint-set methods only: increasing radii of the
#'   constraint ball (default: `nlambda` radii from 0.1 to 100, or 1 to
#'   1000 for binomial, on the unit scale of private tuning).  Each radius spends part of the budget.
#' @param lp `"mirror"` and `"mirror_shuffled"` only: the norm `l_p` of the
#'   geometry and of the constraint ball, `1 < lp <= 2` (default 2).
#' @param tau `family = "quantile"` only: the quantile level in (0, 1),
#'   default 0.5.
#' @param weights per-record weights in \[0, 1\] (default `NULL`: all 1),
#'   the penalised methods only; see Details.
#' @param offset per-record offsets added to the linear predictor (as in
#'   glmnet; for poisson typically the log of an exposure), the penalised
#'   methods only; [predict.dpsco()] then needs `newoffset`.
#' @param trace.it show a progress bar over the lambdas of a penalised path
#'   (with the `cli` package; it appears only when the fit runs longer than
#'   cli's delay, two seconds by default).  Default: in interactive
#'   sessions, or `getOption("dpsco.trace.it")`.  The bar draws no random
#'   numbers: the fit is the same either way.
#' @param inference `TRUE` to add an inference stage for standard errors,
#'   confidence intervals and tests of the unpenalised model's
#'   coefficients ([confint.dpsco()], [vcov.dpsco()], `summary()`,
#'   `tidy(conf.int = TRUE)`), taking a share 0.6 of the same budget (or
#'   give the share, a number in (0, 0.9]); the path is calibrated on what
#'   is left, and the total (epsilon, delta) does not change.  The
#'   estimand is `glm()`'s coefficients (the minimiser of the deviance,
#'   whatever the true mean of y) for the gaussian, binomial and poisson
#'   families, with the penalised methods and private tuning.  The
#'   stage's releases are the record's parts `inference_centre`,
#'   `inference_design` and `inference_moment` (the design's scale),
#'   `inference_rows` and `inference_whiten` (three whitenings by the
#'   bread), `inference_levels` (histograms for the clips),
#'   `inference_steps` and `inference_step_breads` (five Newton steps,
#'   three for gaussian),
#'   `inference_rewhiten` (binomial and poisson: a whitening after
#'   them), `inference_meat`, `inference_bread`, `inference_last` and
#'   `inference_score` (the releases near the root); `privacy(fit)`
#'   lists each with its noise multiplier, sensitivity and share.
#'   `"heavy_tails"`: the same with the meat clipped up to twice as far at
#'   four times the noise, for columns where a few records carry much of
#'   the fit (raw skewed counts that are not to be transformed): measured
#'   on blog's raw counts at n = 10,000, epsilon 1, the worst coefficient
#'   is covered in 0.87 of the fits instead of 0.27, and every interval
#'   is about 1.6 times as wide as with `TRUE` (see [confint.dpsco()]).
#'   Default `FALSE`.
#' @param budget a [dp_budget()] that pays for the fit: it is admitted
#'   before any record is read only if the budget can pay its (epsilon,
#'   delta), and debited with its record's parts afterwards.  Default
#'   `getOption("dpsco.budget")` (none).  Under a budget `delta` defaults
#'   to the smaller of `0.1 / public_n` and a tenth of the budget's.
#' @return An object of class `dpsco`: `a0` (intercepts), `beta` (a `p` x
#'   `nlambda` matrix), `lambda`, `df` (non-zero coefficients), `dim`,
#'   `nobs`, `family`, `method`, `call`, `settings` (every tuning value used),
#'   `privacy` (see [privacy()]), `standardize` (mode, centres and scales),
#'   `classnames` (binomial), `offset` (`TRUE` when fitted with an
#'   offset), `trace` (a list with `steps`, `a0` and `beta` arrays, or
#'   `NULL`; the iterates before the support rule) and,
#'   for a private penalised path with `support = "noise"`, `support`: a
#'   list with `rule`, `level`, `beta_raw` (the coefficients before the
#'   rule, like `beta`), `sd` and `raw` (the noise sd of every
#'   coefficient, intercept first, and the coefficients before the rule,
#'   both in the units of the internal, scaled `x`), and the released
#'   values the sd comes from: `noise_sd`, `optimizer`, `step_size`,
#'   `curvature` (`NULL` without one), `memory`, `steps` and `output`.
#' @references Xie, H., Pietrosanu, M., Liu, Y., Tu, W., Jiang, B. and
#'   Kong, L. Differentially private regularized stochastic convex
#'   optimization with heavy-tailed data. *Statistica Sinica*.
#'   \doi{10.5705/ss.202022.0282}
#' @seealso [coef.dpsco()], [predict.dpsco()], [plot.dpsco()],
#'   [privacy()], [dpsco_control()]
#' @examples
#' set.seed(42)
#' n <- 2000; p <- 10
#' x <- matrix(runif(n * p, -1, 1), n, p)
#' y <- drop(x %*% c(2, -2, 1, rep(0, p - 3))) + rt(n, df = 2)
#' fit <- dpsco(x, y, method = "clip", epsilon = 1)   # private settings
#' fit
#' coef(fit, s = fit$lambda[5])
#' privacy(fit)                  # every data-dependent choice, accounted
#' # the paper's public settings, for replication
#' fitp <- dpsco(x, y, method = "holland", epsilon = 2, tuning = "public",
#'               iterations = 20, step_size = 0.5, nlambda = 10)
#' # a constraint-set method: private Frank-Wolfe over l1 balls (radii on
#' # the unit scale of the private bounds)
#' fw <- dpsco(x, y, method = "fw", epsilon = 1, radius = c(0.5, 1, 2, 5))
#' coef(fw, s = 2)
#' # counts with a log exposure as offset, records weighted in [0, 1]
#' expo <- runif(n, 0.5, 2)
#' yc <- rpois(n, expo * exp(0.5 + x[, 1] - x[, 2]))
#' fpo <- dpsco(x, yc, family = "poisson", epsilon = 1, offset = log(expo),
#'              weights = rep(c(1, 0.5), n / 2))
#' head(predict(fpo, x, newoffset = log(expo), type = "response")[, 10])
#' # the formula interface (factor levels declared public with xlev)
#' df <- data.frame(a = x[, 1], b = x[, 2],
#'                  g = factor(sample(c("u", "v"), n, TRUE)), y = y)
#' ff <- dpsco(y ~ a + b + g, data = df, xlev = list(g = c("u", "v")))
#' predict(ff, newdata = df[1:3, ], s = ff$lambda[5])
#' @rdname dpsco
#' @export
dpsco <- function(x, ...) UseMethod("dpsco")

#' @rdname dpsco
#' @export
dpsco.default <- function(x, y, family = c("gaussian", "binomial", "poisson",
                                           "multinomial", "quantile"),
                  method = NULL,
                  epsilon = 1, delta = NULL, public_n = NULL, lambda = NULL,
                  nlambda = NULL,
                  lambda.min.ratio = NULL, alpha = 1, penalty.factor = NULL,
                  exclude = NULL, lower.limits = -Inf, upper.limits = Inf,
                  dfmax = NULL, pmax = NULL,
                  type.multinomial = c("ungrouped", "grouped"),
                  penalty.scale = c("bounded", "glmnet"),
                  intercept = TRUE,
                  standardize = getOption("dpsco.standardize", "auto"),
                  tuning = c("private", "public"), optimizer = NULL,
                  batch_size = NULL, iterations = NULL, step_size = NULL,
                  calibration = c("accountant", "paper"), secure = FALSE,
                  control = dpsco_control(), trace = FALSE,
                  threads = getOption("dpsco.threads", 2L), radius = NULL,
                  lp = NULL, tau = NULL, weights = NULL, offset = NULL,
                  trace.it = getOption("dpsco.trace.it", interactive()),
                  inference = FALSE,
                  budget = getOption("dpsco.budget"), ...) {
  this_call <- generic_call(match.call(), "dpsco")
  # (`...` is the generic's; a name not matched above is an error)
  check_no_dots(list(...), "dpsco")
  family <- match_choice(family_arg(family), "family")
  if (!inherits(control, "dpsco_control"))
    arg_error("control", "must come from dpsco_control().")
  tm <- check_tuning(match_choice(tuning, "tuning"),
                     match_choice(calibration, "calibration"), !missing(tuning))
  spec <- check_method(method, family, if (tm$tuned) "clip" else "holland")
  secure <- check_secure(secure)
  inf <- dpsco_inference_arg(inference)
  control <- method_control(spec, control)
  dat <- check_data_args(x, y, family, public_n, weights, offset, spec)
  # budget.R: admitted before a record is read
  bo <- budget_open(budget, if (method_private(spec)) epsilon else Inf, delta,
                    dat$n, "dpsco()")
  delta <- bo$delta
  # the family object, built once: the paths and the fit carry it
  fam <- as_family(family, tau, control, length(dat$classnames))
  pen <- penalty_args(exclude, penalty.factor, lower.limits, upper.limits,
                      dfmax, pmax, type.multinomial, penalty.scale, dat$x, fam)
  dat$x <- keep_columns(dat$x, pen)
  if (!is.logical(intercept) || length(intercept) != 1L || is.na(intercept))
    arg_error("intercept", "must be TRUE or FALSE.")
  standardize <- resolve_standardize(
    standardize, dat$x, method_private(spec), tm$tuned, intercept,
    spec$path == "radius", isTRUE(inf$share > 0), dat$n, epsilon, delta,
    control)
  args <- c(tm, list(
    call = this_call, x = dat$x, y = dat$y, classnames = dat$classnames,
    family = fam, n = dat$n, control = control, epsilon = epsilon,
    epsilon_given = !missing(epsilon), delta = delta, secure = secure,
    intercept = intercept, standardize = standardize, lambda = lambda,
    nlambda = nlambda, lambda.min.ratio = lambda.min.ratio, alpha = alpha,
    penalty.factor = pen$pf, lower.limits = pen$lower,
    upper.limits = pen$upper,
    type.multinomial = if (pen$grouped) "grouped",
    penalty.scale = if (pen$scale != "bounded") pen$scale,
    optimizer = optimizer,
    batch_size = batch_size, iterations = iterations, step_size = step_size,
    trace = trace, threads = threads, radius = radius, lp = lp,
    trace.it = check_trace_it(trace.it), weights = dat$weights,
    offset = dat$offset, inference = inf$share, inference_tails = inf$tails))
  check_path_args(spec, args, fam)
  args$x <- design_in_memory(args$x, standardize, spec$path == "radius")
  local_fit_stream()  # rng.R: .Random.seed afterwards is free of the data
  fit <- if (spec$path == "radius") radius_path(spec, args)
         else baseline_fit(lambda_path(spec, args), spec, args)
  fit <- finish_penalty(fit, pen)
  check_releases(fit$privacy)   # release.R: the record shows every release
  budget_debit(bo$adm, fit$privacy)
  fit
}

# tuning and calibration (matched; calibration first): "paper" implies
# (and needs) public tuning.
check_tuning <- function(tuning, calibration, tuning_given) {
  if (calibration == "paper") {
    if (tuning_given && tuning == "private")
      arg_error("calibration", "\"paper\" uses the paper's public settings: ",
                "it needs tuning = \"public\".")
    tuning <- "public"
  }
  list(tuning = tuning, tuned = tuning == "private",
       calibration = calibration)
}

# x, y, the public n, the weights and the offsets as dpsco() and
# cv.dpsco() check them; `spec` the method when x may be sharded.  With a
# declared public_n the rows present are data: any number of them (none
# included) is fitted, so no error can depend on how many there are.
check_data_args <- function(x, y, family, public_n, weights, offset,
                            spec = NULL) {
  x <- check_design(x, min_rows = if (is.null(public_n)) 2L else 0L)
  # the public number of records: every divisor and noise scale of the fit
  n <- check_public_n(public_n, nrow(x))
  if (is_sharded(x)) {                 # rows on cluster workers (shards.R)
    if (!is.null(spec)) shard_check_method(spec)
    yy <- shard_check_y(y, family)
  } else {
    check_y_columns(y, family)
    yy <- check_y(y, nrow(x), family_object(family))
  }
  # (sharded: the workers checked their own, shards.R)
  list(x = x, n = n, y = yy$y, classnames = yy$classnames,
       weights = if (is_sharded(weights)) weights
                 else check_weights(weights, nrow(x)),
       offset = if (is_sharded(offset)) offset
                else check_offset(offset, nrow(x)))
}

# A sparse or file-backed x made a dense matrix where the fit needs one:
# centring makes a sparse x dense (standardize), and the radius methods'
# settings read x in memory (a file-backed x was refused by
# check_path_args()).
design_in_memory <- function(x, standardize, radius = FALSE) {
  if (is.matrix(x) || (isFALSE(standardize) && !radius)) return(x)
  if (is_mapped(x))
    arg_error("standardize", "must be FALSE for a file-backed x (the ",
              "private bounds of tuning = \"private\" put its columns on ",
              "a common scale).")
  as.matrix(x)
}
