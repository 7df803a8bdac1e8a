# The four gradient oracles: their public parameters, add/remove L2
# sensitivities and per-coordinate bounds.  The C side only sees the numbers
# computed here.

oracle_codes <- c(none = 0L, clip = 1L, kamath = 2L, holland = 3L)

#' Tuning parameters of the oracles and of the private settings
#'
#' Every value given here is declared public: it must be chosen without
#' looking at the data, and it costs no privacy.  A `NULL` asks for the
#' default, which depends on `tuning` in [dpsco()]: with
#' `tuning = "private"` the data-dependent settings (`clip`, `x_bound`,
#' `y_range`, `center`, `row_bound`, and `s` and `rho` through the equal-noise rule)
#' are estimated privately from the shares `shares` of the budget; with
#' `tuning = "public"` the paper's data-independent defaults are used.
#'
#' @param clip clipping level `C` of DP-SPGD (method `"clip"`, Algorithm 1):
#'   each record's gradient is scaled to L2 norm at most `C`.  Public
#'   default 1; private default: the `quantiles["clip"]` quantile of the
#'   per-record gradient norms at the starting point.
#' @param rho truncation width of DP-SPGD(K) (method `"kamath"`, Algorithm 3):
#'   each gradient coordinate is clipped to `[-rho/2, rho/2]`.  Public
#'   default `(epsilon m / sqrt(d log(1/delta)))^(1/kmom)`, with `d` the
#'   gradient dimension; private default: the width whose sensitivity equals
#'   that of clipping at the private `C` (equal-noise rule).
#' @param kmom moment order `k >= 2` assumed by the public default `rho`.
#' @param zeta failure probability of the robust estimators; sets the number
#'   of groups `ceiling(3 log(2 d / zeta))` (capped at the batch size) of the
#'   Kamath estimator and the default `nu` of the Holland estimator.
#' @param s scale of DP-SPGD(H) (method `"holland"`, Algorithm 4).  Public
#'   default `sqrt(m epsilon tau) / (log(1/zeta) log(1/delta)^(1/4))`;
#'   private default: the scale whose sensitivity equals that of clipping
#'   at the private `C`, `3 C / (2 sqrt(2 d))`.
#' @param nu variance parameter of the Holland estimator: public default
#'   `sqrt(log(1/zeta))` (the paper's), private default 10 (less
#'   multiplicative smoothing, which shrinks more than it helps at the
#'   equal-noise scale).
#' @param moment_bound public bound on the second moment of each gradient
#'   coordinate, used by Holland's public default `s` (called `tau` before
#'   0.9.0).
#' @param schedule step sizes of the `"spgd"` optimiser: `"constant"` uses
#'   `step_size` at every step, `"sqrt"` uses `step_size / sqrt(t)` (the
#'   schedule of the paper's convergence results).
#' @param output the output at each lambda: `"average"` of all its iterates
#'   (the paper's output), the `"last"` iterate, or the `"tail"` average of
#'   the iterates after the first half of the steps.  Default `"tail"` with
#'   `tuning = "private"` and `"average"` with `tuning = "public"`.
#' @param std_share share of the privacy budget spent by
#'   `standardize = "private"` (and `"auto"`) in [dpsco()], in (0, 1), in
#'   the unit of `shares` below (the squared `mu` of one Gaussian release
#'   meeting `(epsilon, delta)` alone); the private settings and the optimiser
#'   share what it leaves.  Under `calibration = "paper"`, whose theorem
#'   composes by adding epsilons, it is a fraction of `(epsilon, delta)`.
#' @param shares budget shares of the private settings, a named vector
#'   with some of `scale`, `centre`, `quantiles` and `curvature`.  Each is
#'   a fraction of the budget of one Gaussian release meeting
#'   `(epsilon, delta)` alone, in units of its squared `mu` (Gaussian
#'   releases on the full data compose by adding them); the optimiser gets
#'   what is left, so they must sum to less than 1.  Defaults: `quantiles`
#'   0.02 and `curvature` 0.2; `scale` `(30 z1 sqrt(2 p) / n)^2` within
#'   `[0.05, 0.2]` (up to 0.35, three quarters of it for the range of
#'   `y`, where `n / z1` is below 1,000 and `y` is unbounded: there the
#'   fit lives or dies by that range; up to 0.45, all of it for `y`,
#'   where in addition 3 noise sds of a count of `x`'s octave histograms
#'   exceed `n`: those histograms could show nothing, every bound on
#'   `|x_j|` is then 1, and they are not released) and `centre` `(100 z1 / n)^2`
#'   within `[0.03, 0.5]` (and leaving the optimiser at least 0.1), `z1`
#'   the noise multiplier of one release of the whole budget: a public
#'   rule that gives the bounds and the centre of small data sets the
#'   share they need (where a private fit is mostly its intercept and the
#'   centre's error decides whether it does worse than the mean) and
#'   leaves large ones' budget to the optimiser (0.05 and 0.03 on the blog
#'   data); the methods on radii and the binomial and multinomial
#'   families take `centre` `(40 z1 / n)^2` within `[0.03, 0.15]`.  A
#'   share given here is used whatever `n`.
#' @param x_bound public bounds `B_j` on `|x_j|` (one number, or one per
#'   column): with `tuning = "private"`, column `j` is clamped to
#'   `[-B_j, B_j]` and divided by `B_j`.
#' @param center public centre of `y` (its mean, or the event rate for
#'   binomial), the starting intercept.
#' @param row_bound public bound on the L2 norm of the rows `(1, x_i / B)`
#'   that enter the private curvature.
#' @param quantiles quantile levels of the private `clip` (of the gradient
#'   norms at the starting point, default 0.995) and `row_bound` (of the row
#'   norms, default 0.9): named `c(clip = , row = )`.
#' @param y_range public range `c(lo, hi)` of `y` (net of the offset:
#'   `y - offset` for gaussian, `y exp(-offset)` for poisson), the declared
#'   `lb`/`ub` of DPpack's convention: with `tuning = "private"` it replaces
#'   the private range of `y` (from the signed octave histogram of `y`),
#'   which sets the clamp of the private centre (gaussian: the mean of `y`
#'   clamped to `[lo, hi]`; poisson: `[0, hi]`), the bound
#'   `max(|lo|, |hi|)` on `|y|` of the quantile family's histogram and of
#'   the constraint-set methods, and the validation loss bound of
#'   [cv.dpsco()].  Declared, it costs no budget and is listed as public in
#'   [privacy()].  Not for binomial or multinomial `y`.
#' @param kappa deprecated and ignored (since 0.12.0): it set the private
#'   bound `2^(m_j + kappa s_j)` on `|x_j|` of the log-moment estimator,
#'   which the octave histograms replaced; declare public bounds with
#'   `x_bound` (and `y_range`) instead.
#' @param bandwidth `family = "quantile"`: the public bandwidth `h > 0` of
#'   the smoothed check loss, on the scale of `y`.  Default: conquer's rule
#'   `max(((log n + p) / n)^0.4, 0.05)`, times the private spread of `y`
#'   with `tuning = "private"` (see the section "Quantile regression" of
#'   [dpsco()]).
#' @param kernel `family = "quantile"`: the kernel of the convolution
#'   smoothing, `"gaussian"` (default), `"logistic"`, `"uniform"` or
#'   `"epanechnikov"`.
#' @param smoothing `family = "quantile"`: `"convolution"` (default) with
#'   `kernel`, or `"moreau"`, the Moreau envelope of the check loss with
#'   parameter `1 / bandwidth`.
#' @param ridge multiple of the typical spectral norm of the curvature's
#'   noise added to its diagonal.
#' @param memory weight in \[0, 1) of the carried gradient estimate in the
#'   `"newton"` optimiser: each step uses `(1 - memory)` times the fresh
#'   noisy gradient plus `memory` times the previous estimate moved to the
#'   new point by the quadratic model (`g + A (b_new - b) / eta`), which
#'   averages the noise of successive releases (post-processing).  0 uses
#'   each release alone.  A multinomial fit takes 0 unless `memory` is
#'   given: its model is the Hessian at the start only, and a gradient
#'   carried by it drifts as the class probabilities move.
#' @param one_release `TRUE` makes the `"newton"` path of a family with a
#'   quadratic loss (`"gaussian"`) release one gradient only: the gradient
#'   at the start, carried to every penalty of the path by the released
#'   curvature (the sufficient-statistics path: the curvature estimates
#'   `X'X / n` and the first gradient `X'(X b0 - y) / n`, so the whole path
#'   is post-processing of the two, and its one release gets the noise
#'   that twenty would share).  `FALSE` (default) releases a fresh gradient
#'   at every step, which corrects the model where the curvature's noise
#'   and ridge bend it: on five real gaussian data sets the one release
#'   kept less of glmnet's gain at every epsilon tried (see
#'   `bench/README.md`, "One release").  The record says which ran.
#' @param support the support rule of the penalised methods' paths:
#'   `"noise"` (default) sets to exactly 0, by backward elimination, the
#'   penalised coefficients within `support_level` times their noise sd,
#'   each tested in the model left by the earlier drops (those beyond it
#'   in the full model stay), the sd the optimiser's noise leaves in it,
#'   computed from released values (post-processing, no privacy
#'   cost; see the section "Support" of [dpsco-methods]); `"marginal"`
#'   tests every coefficient once in the full model, the rule of dpsco
#'   0.23 and earlier (also what `"noise"` does without a released
#'   curvature and for multinomial fits); `"none"` returns the optimiser's
#'   output as it is.  A multinomial fit keeps or
#'   drops a feature in all classes at once (kept when any class's
#'   coefficient passes the level), and the kept coefficients of each
#'   class take over the dropped ones' part of the linear predictor as far
#'   as the released curvature tells, so that dropping one of several
#'   correlated features does not undo their noise's cancellation.  The
#'   rule acts on sparse penalties only: a ridge fit (`alpha = 0`) keeps
#'   every coefficient.
#' @param support_level the multiple `c >= 0` of the noise sd below which
#'   the support rule sets a coefficient to 0.
#' @param shrink the shrinkage level `K` of the constraint-set methods
#'   (`dpsco(method = "htp_lasso")`, and `"objective"`, `"mirror"` and
#'   `"mirror_shuffled"` with `tuning = "public"`): every entry of `x` and
#'   (gaussian) `y` is shrunk to `[-K, K]`, `sign(v) min(|v|, K)`.  Default
#'   `(n epsilon)^(1/5)` (the rate of Hu et al. 2022) with public tuning;
#'   with private tuning the released bounds put the data on `[-1, 1]`
#'   instead.
#' @param objective_tol the optimisation accuracy `alpha` of
#'   `dpsco(method = "objective")` (one number, or one per radius): the
#'   perturbed objective is minimised until its Frank-Wolfe gap, a
#'   certified bound on the suboptimality, is at most `alpha` (or until
#'   the distance to the minimiser that `alpha` implies is guaranteed, see
#'   `objective_maxit`), and the
#'   output noise has variance `64 alpha log(2.5/delta) / (lambda eps^2)`.
#'   Default: the rule of Su, Zhao and Wang's Theorem 2, raised to a
#'   numerical floor where it is below it (the record says so).
#' @param strong_convexity a public lower bound `Delta` on the l2 strong
#'   convexity of every record's loss; `Delta > 0` selects the strongly
#'   convex variant (Algorithm 2) of `"objective"`.  A GLM loss has a
#'   rank-one Hessian, so `Delta > 0` holds only with one coefficient.
#' @param sgd_ridge the ridge `mu >= 0` that `"clipped_sgd"` adds to make
#'   the loss strongly convex (before 0.9.0 it read `strong_convexity`,
#'   which still works with a deprecation warning).
#' @param objective_maxit the most steps of the certified solver of
#'   `"objective"` per radius; beyond them the fit continues with projected
#'   gradient steps, as many as guarantee the accuracy `alpha` implies, so
#'   a fit never stops on the data and this setting does not bound the
#'   work.
#' @param mirror_alpha the weight `alpha` of the regulariser `alpha Phi(w)`
#'   of `dpsco(method = "mirror")` (Algorithm 3 of Su, Zhao and Wang).
#'   Default 0 with `tuning = "private"` (whose default is also 50 steps per
#'   radius), and their Theorem 7's `4 beta log2(n / T) / T` (with its `T`)
#'   with `tuning = "public"`.
#' @param mirror_lambda,mirror_gamma `"mirror_shuffled"` (Algorithm 4): the
#'   truncation margin `lambda` (a record's gradient is set to 0 when its
#'   dual norm exceeds `beta M + lambda`) and the step weight `gamma`.
#'   Defaults from their Theorem 10: `lambda = sqrt(n eps) /
#'   (kappa^2 d log(1/delta))^(1/4)`, `gamma = sqrt(T)`.
#' @param blocks number of disjoint blocks `k >= 2` of
#'   `dpsco(method = "sample_aggregate")`.  Default: the larger of the
#'   smallest `k` meeting the aggregation's condition
#'   `epsilon > 2 d / sqrt(k)` and `floor(n / (2 d))`.
#' @param block_ridge ridge strength `lambda` of each block's fit in
#'   `"sample_aggregate"` (mean loss plus `lambda / 2` times the squared
#'   l2 norm of all coefficients, intercept included).
#' @param trim records trimmed at each end by the Bun-Steinke trimmed mean
#'   of `dpsco(method = "bun_steinke")` (the constant `m` of Wang, Xiao,
#'   Devadas and Xu 2020).
#' @param mean_range prior range `c(a, b)` of every gradient coordinate's
#'   mean for `"bun_steinke"` (or a 2-row matrix, one column per
#'   coefficient); needed with `tuning = "public"`, where each record's
#'   gradient coordinate is also clamped to it.  With private tuning the
#'   default is the hard bound of the unit-scale data inside each ball.
#' @param gd_step step size of `"bun_steinke"`'s gradient descent.
#' @param tau deprecated name of `moment_bound` (it collided with the
#'   quantile level `tau` of [dpsco()]).
#'   Default `1 / beta`, `beta` the loss's curvature (1, or 1/4 for
#'   binomial) times the squared private row bound (private tuning) or
#'   times `d` (public tuning: rows of unit-scale entries).
#' @return A list of class `dpsco_control`.  It remembers which fields were
#'   set: a field the chosen method does not read (see [dpsco_methods()])
#'   is an error in [dpsco()] and [cv.dpsco()].
#' @seealso [dpsco()]
#' @examples
#' dpsco_control(clip = 5, schedule = "sqrt")
#' dpsco_control(shares = c(curvature = 0.3), x_bound = 100)
#' @export
dpsco_control <- function(clip = NULL, rho = NULL, kmom = 2, zeta = 0.1,
                          s = NULL, nu = NULL, moment_bound = 1,
                          schedule = c("constant", "sqrt"),
                          output = NULL, std_share = 0.1, shares = NULL,
                          x_bound = NULL, center = NULL, y_range = NULL,
                          row_bound = NULL,
                          quantiles = c(clip = 0.995, row = 0.9), kappa = NULL,
                          bandwidth = NULL, kernel = "gaussian",
                          smoothing = c("convolution", "moreau"),
                          ridge = 1, memory = 0.5, one_release = FALSE,
                          support = c("noise", "marginal", "none"), support_level = 5,
                          shrink = NULL,
                          objective_tol = NULL, strong_convexity = 0,
                          sgd_ridge = 0,
                          objective_maxit = 1e5, mirror_alpha = NULL,
                          mirror_lambda = NULL, mirror_gamma = NULL,
                          blocks = NULL, block_ridge = 1e-3, trim = 1L,
                          mean_range = NULL, gd_step = NULL, tau = NULL) {
  # the fields the user set: a method that does not read one of them
  # refuses it (method_control())
  given <- setdiff(names(match.call())[-1L], "")
  if (!is.null(tau)) {
    warning("dpsco_control(tau = ) is deprecated: use moment_bound (tau is ",
            "the quantile level of dpsco()).", call. = FALSE)
    moment_bound <- tau
    given <- c(setdiff(given, "tau"), "moment_bound")
  }
  if (!is.null(kappa)) given <- setdiff(given, "kappa")
  vals <- mget(names(control_checks), environment())
  for (f in names(control_checks))
    vals[f] <- list(control_checks[[f]](vals[[f]]))
  # stored in the order of the arguments, without the deprecated ones
  structure(vals[setdiff(names(formals(dpsco_control)), c("kappa", "tau"))],
            class = "dpsco_control", given = given)
}

# dpsco_control()'s checks, one per field in the order they run: each takes
# the value given and returns it as stored (NULL asks for the default
# chosen at the fit where the field allows it).
control_optional <- function(check) function(v) {
  if (!is.null(v)) check(v)
  v
}
control_number <- function(arg, lower, below = NULL, ...) function(v) {
  check_number(v, arg, lower, ...)
  if (!is.null(below) && v >= below) arg_error(arg, "must be below ", below, ".")
  v
}
control_choice <- function(arg, choices = NULL) function(v)
  match_choice(v, arg, choices %||% eval(formals(dpsco_control)[[arg]]))

control_checks <- list(
  clip = control_optional(control_number("clip", 0)),
  rho = control_optional(control_number("rho", 0)),
  kmom = control_number("kmom", 2, lower_open = FALSE),
  zeta = control_number("zeta", 0, below = 1, upper = 1),
  s = control_optional(control_number("s", 0)),
  nu = control_optional(control_number("nu", 0)),
  moment_bound = control_number("moment_bound", 0),
  std_share = control_number("std_share", 0, below = 1, upper = 1),
  output = control_optional(control_choice("output", c("average", "last", "tail"))),
  shares = function(v) check_shares(v),
  x_bound = control_optional(function(v)
    if (!is.numeric(v) || !length(v) || !all(is.finite(v)) || any(v <= 0))
      arg_error("x_bound", "must be finite positive numbers.")),
  center = control_optional(control_number("center", -Inf)),
  row_bound = control_optional(control_number("row_bound", 0)),
  quantiles = function(v) {
    if (!is.numeric(v) || length(v) != 2L ||
        !setequal(names(v), c("clip", "row")) || anyNA(v) ||
        any(v <= 0 | v >= 1))
      arg_error("quantiles", "must be c(clip = , row = ) with levels in (0, 1).")
    v
  },
  kappa = function(v) {
    if (!is.null(v))
      warning("dpsco_control(kappa = ) is deprecated and ignored: the ",
              "private bounds on |x_j| come from noisy octave histograms ",
              "since 0.12.0 (declare public bounds with x_bound and y_range).",
              call. = FALSE)
    NULL
  },
  y_range = function(v) {
    if (is.null(v)) return(NULL)
    if (!is.numeric(v) || length(v) != 2L || !all(is.finite(v)) || v[1L] >= v[2L])
      arg_error("y_range", "must be c(lo, hi), finite numbers with lo < hi.")
    as.double(v)
  },
  bandwidth = control_optional(control_number("bandwidth", 0)),
  kernel = control_choice("kernel", kernel_choices),
  smoothing = control_choice("smoothing"),
  ridge = control_number("ridge", 0),
  memory = control_number("memory", 0, below = 1, upper = 1, lower_open = FALSE),
  one_release = function(v) {
    if (!is_flag(v)) arg_error("one_release", "must be TRUE or FALSE.")
    v
  },
  support = control_choice("support"),
  support_level = control_number("support_level", 0, lower_open = FALSE),
  shrink = control_optional(control_number("shrink", 0)),
  objective_tol = control_optional(function(v)
    if (!is.numeric(v) || !length(v) || anyNA(v) || any(v <= 0 | v > 1))
      arg_error("objective_tol", "must be numbers in (0, 1].")),
  strong_convexity = control_number("strong_convexity", 0, lower_open = FALSE),
  sgd_ridge = control_number("sgd_ridge", 0, lower_open = FALSE),
  objective_maxit = control_number("objective_maxit", 1, lower_open = FALSE),
  mirror_alpha = control_optional(control_number("mirror_alpha", 0, lower_open = FALSE)),
  mirror_lambda = control_optional(control_number("mirror_lambda", 0)),
  mirror_gamma = control_optional(control_number("mirror_gamma", 0)),
  blocks = control_optional(function(v) check_count(v, "blocks", 2)),
  block_ridge = control_number("block_ridge", 0),
  trim = function(v) {
    check_count(v, "trim", 0)
    v
  },
  mean_range = function(v) {
    if (is.null(v)) return(NULL)
    if (!is.numeric(v) || anyNA(v) || any(!is.finite(v)) ||
        !(length(v) == 2L || (is.matrix(v) && nrow(v) == 2L)) ||
        any(v[c(FALSE, TRUE)] <= v[c(TRUE, FALSE)]))
      arg_error("mean_range", "must be c(a, b) with a < b, or a 2-row matrix ",
                "of such ranges (one column per coefficient).")
    matrix(as.double(v), 2L)
  },
  gd_step = control_optional(control_number("gd_step", 0)),
  schedule = control_choice("schedule"))

# Shares of the private settings: the defaults, updated by the named values
# given; each in (0, 1) and all together below 1.
check_shares <- function(shares) {
  sh <- default_shares
  if (is.null(shares)) return(structure(sh, given = character()))
  if (!is.numeric(shares) || is.null(names(shares)) || anyNA(shares) ||
      !all(names(shares) %in% names(sh)))
    arg_error("shares", "must be a named numeric vector with names among ",
              paste(names(sh), collapse = ", "), ".")
  if (any(shares <= 0 | shares >= 1))
    arg_error("shares", "must each lie in (0, 1).")
  sh[names(shares)] <- shares
  if (sum(sh) >= 1)
    arg_error("shares", "add up to ", format(sum(sh)), "; they must leave ",
              "part of the budget (below 1 in all) for the optimiser.")
  # the shares given keep their values whatever n (adaptive_shares())
  structure(sh, given = names(shares))
}

# Resolve an oracle's parameters for expected batch size m, gradient
# dimension d and the privacy target (eps, delta) of one run; returns what
# the C engine needs plus the sensitivity and the per-coordinate bound.
# `method` names a registered method with an `oracle` (its file holds the
# oracle's parameters and sensitivity).
oracle_setup <- function(method, control, m, d, eps, delta) {
  oracle <- method_spec(method)$oracle
  out <- list(oracle = oracle$code, m = m, clip = control$clip %||% 1,
              rho = 0, k = 1L, s = 1, nu = 1)
  private <- oracle$private
  out <- oracle$setup(out, control, m, d, eps,
                      if (private) log(1 / delta) else NA)
  if (private && !(is.finite(out$sensitivity) && out$sensitivity > 0))
    arg_error("control", "gives a non-finite or zero sensitivity for method '",
              method, "'; check rho, s and epsilon.")
  out
}

# The equal-noise rule: an oracle's truncation is set so that its
# add/remove sensitivity equals clipping's at the private level C, so the
# oracles add the same noise and differ only in how they truncate.
equal_noise_oracle <- function(method, control, clip, d, m) {
  ctl <- method_spec(method)$oracle$equal_noise(control, clip, d, m)
  ctl$clip <- clip
  ctl
}

# The noise multiplier of the paper's printed noise scales for one run at
# (eps, delta); k is Kamath's number of groups.
paper_multiplier <- function(method, eps, delta, k = 1L) {
  paper <- method_registry[[method]]$oracle$paper
  if (is.null(paper))
    arg_error("calibration", "\"paper\" exists only for the paper's ",
              "methods clip, kamath and holland.")
  paper(sqrt(log(1 / delta)) / eps, k)
}

# An oracle's description for register_method(): its engine code (see
# oracle_codes), whether it is private, `setup(out, control, m, d, eps,
# log_delta)` filling in its parameters, `sensitivity` and per-coordinate
# `bound`, `equal_noise(control, clip, d, m)` and the paper's multiplier
# `paper(base, k)` for base = sqrt(log(1 / delta)) / eps; `params` names
# the parameters dp_mean() reports.
new_oracle <- function(name, setup, equal_noise = function(control, ...) control,
                       paper = NULL, private = TRUE, params = character()) {
  list(code = oracle_codes[[name]], setup = setup, equal_noise = equal_noise,
       paper = paper, private = private, params = params)
}

# Kamath's number of groups, ceiling(3 log(2 d / zeta)), capped at the
# expected batch size.
kamath_groups <- function(zeta, d, m) {
  as.integer(min(ceiling(3 * log(2 * d / zeta)), max(1, floor(m))))
}

# How far the median of k group means moves, per coordinate, when one group
# mean moves by c: by c for odd k, by c / 2 for even k.  Proof: changing one
# of k values by c moves every order statistic by at most c and all in the
# same direction, and their moves add up to c (the sum of the order
# statistics is the sum of the values).  For even k the median is the mean
# of the two middle order statistics, whose moves add up to at most c.
kamath_median_factor <- function(k) if (k %% 2L == 0L) 0.5 else 1

# One noise-free (noise_sd = 0) or noisy release of an oracle on the rows of
# g, all of which are in the batch; m is the expected batch size; `clip` the
# L2 clip (kamath and holland: before their truncation, none at Inf).
# `labels` (0-based) fixes the Kamath groups; NULL draws them from R's
# generator.
oracle_mean <- function(g, method, m = nrow(g), clip = Inf, rho = 1, k = 1L,
                        s = 1, nu = 1, labels = NULL, noise_sd = 0,
                        noise_grid = 0) {
  g <- as.matrix(g)
  if (!is.double(g)) storage.mode(g) <- "double"  # a double g is not copied
  settings <- list(oracle = oracle_codes[[method]], m = as.double(m),
                   clip = clip, rho = rho, k = as.integer(k), s = s, nu = nu,
                   noise_sd = noise_sd, noise_grid = noise_grid)
  if (!is.null(labels)) {
    labels <- as.integer(labels)
    # the engine indexes group sums with them
    if (length(labels) != nrow(g) || anyNA(labels) || any(labels < 0L | labels >= k))
      stop("labels must give a group in 0 .. k - 1 for every row of g")
  }
  .Call(C_dpsco_oracle_mean, g, settings, labels)
}

# E psi(a + b Z) for the Catoni-Giulini psi, and the Holland contribution
# h(a) = E psi(a + |a| Z / sqrt(nu)) clamped to +-2 sqrt(2)/3.
catoni_mean <- function(a, b) {
  n <- max(length(a), length(b))
  .Call(C_dpsco_catoni_mean, rep_len(as.double(a), n), rep_len(as.double(b), n))
}

holland_h <- function(a, nu, tabulated = FALSE)
  .Call(C_dpsco_holland_h, as.double(a), as.double(nu), tabulated)
