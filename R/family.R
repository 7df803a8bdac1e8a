# The loss families and what the C engine needs to know of one: its code
# (src/family.c) and, for the smoothed quantile loss, the level tau, the
# kernel (or the Moreau envelope) and the bandwidth.  Every .Call that
# passes records takes these fields from family_settings() (a family
# object's `settings`), so a new family is added here and in family.c only.

family_codes <- c(gaussian = 0L, binomial = 1L, quantile = 2L, poisson = 3L,
                  multinomial = 4L)

# Every family: what a method that fits them all declares (the paper's
# oracles), so that a new family reaches them from here.
family_names <- function() names(family_codes)

# "moreau" is not a kernel: code 4 selects the Moreau envelope of the check
# loss (dpsco_control(smoothing = "moreau")) instead of a convolution
kernel_codes <- c(gaussian = 0L, logistic = 1L, uniform = 2L,
                  epanechnikov = 3L, moreau = 4L)

# Fields of the engine's settings list for `family`; `tau`, `bandwidth` and
# `kernel` matter for "quantile" only.  `kernel` is a name of kernel_codes.
family_settings <- function(family, tau = NULL, bandwidth = NULL,
                            kernel = NULL, nclass = 1L) {
  list(family = family_codes[[family]], tau = as.double(tau %||% 0.5),
       bandwidth = as.double(bandwidth %||% 1),
       kernel = kernel_codes[[kernel %||% "gaussian"]],
       nclass = as.integer(nclass))
}

# The quantile level of dpsco() and cv.dpsco(): NULL (0.5) for "quantile",
# and only there.
check_tau <- function(tau, family) {
  if (family != "quantile") {
    if (!is.null(tau))
      arg_error("tau", "applies to family = \"quantile\" only.")
    return(NULL)
  }
  if (is.null(tau)) return(0.5)
  check_number(tau, "tau", 0, 1)
  if (tau >= 1) arg_error("tau", "must lie in (0, 1); got ", format(tau), ".")
  as.double(tau)
}

# ---------------------------------------------------------------------------
# The family object: what the rest of the package asks of a loss instead of
# branching on its name.  Internal; built by the constructors below, by
# as_family() from the user's arguments (once per fit, which stores it and
# hands it to every phase), and by family_object() from a name and the
# options a fit stores (fits saved before the object was stored).  Fields:
#   name           "gaussian", "binomial", "poisson", "multinomial" or
#                  "quantile"
#   label          the family as print() names it (with tau for quantile)
#   model          the model as summary() names it
#   code, settings the engine's family code and settings fields
#                  (family_settings())
#   tau, smoother, kernel, smoothing, bandwidth, options
#                  quantile only (NULL otherwise): the level, the smoother
#                  (a kernel name or "moreau"), the kernel and smoothing as
#                  given, the bandwidth (NULL: not chosen yet) and the
#                  list of these options a fit stores (settings$quantile;
#                  with private tuning also the released centre and
#                  curvature weight, family_with())
#   residual(eta, y)  the loss derivative in eta (the engine's, family.c)
#   loss(eta, y)      the per-record loss the fit minimises
#   eval_loss(eta, y) the per-record loss of a held-out risk (the check
#                  loss unsmoothed for quantile, the loss itself otherwise)
#   curvature      bound on the loss's second derivative in eta, so that
#                  the per-record Hessian is at most curvature ||(1, x)||^2
#   step_curvature the curvature a fixed gradient step assumes (1 for the
#                  check loss, whose K(0) / h grows without bound as h
#                  shrinks and would stall the descent of "bun_steinke")
#   bounded        TRUE when the residual is bounded whatever y and eta
#   slope_bound    that bound (Inf for least squares)
#   residual_bound(error_bound)
#                  the largest |residual| when |y - eta| <= error_bound:
#                  error_bound itself for least squares, slope_bound
#                  otherwise (error_bound is then not evaluated)
#   clip_bounds_error  TRUE when a clip on the residual also bounds the
#                  prediction error |y - response| (the check loss's
#                  derivative says nothing of it)
#   quadratic      TRUE when the loss is quadratic (a quadratic model is
#                  exact, not a majoriser)
#   null_risk_bound(offset)  a bound on the mean loss at w = 0 that holds
#                  for every y, or NULL when there is none
#   inverse_link(eta) the response predict() gives
#   classes        TRUE when the response is a class label (0/1, or 0 to
#                  K - 1 for multinomial)
#   multi          TRUE when the model has one predictor per class
#                  (multinomial: eta is then an n x K matrix, and a
#                  residual one row of K per record)
#   start(centre, n)  the starting intercept from a released centre of y
#                  on the response scale, n the public size (multinomial:
#                  the K intercepts from the released class shares)
#   centre_release(y, z, n)  the family's own release of the centre
#                  (multinomial: the class shares), NULL for the others
#   measures       the validation measures of cv.dpsco(), the default first
#   radius_top     the largest default radius of the constraint methods
#   null_residual(x, y, intercept, unpenalised, weights, offset)
#                  minus the gradient's residual at the fit of the
#                  unpenalised terms alone (non-private lambda_max); with
#                  record weights or offsets (NULL: none), the weights
#                  times the residual of the weighted fit beside the
#                  offsets (the glm families: glm.fit() with the family's
#                  stats family, glm_null_residual())
#   link(mean)     the linear predictor of a declared mean of y
#   centre_range(y_range)  the range the private centre of y is clamped to,
#                  from the released (or declared) range c(lo, hi) of y
#                  (NULL: the family's y_settings release the centre)
#   centre_floor   TRUE: the released centre is kept within [its noise
#                  sd, the bound] (poisson: a mean count; NULL otherwise)
#   start_curvature(b0, intercept, fam)  the loss's curvature per unit of
#                  second moment at the start b0 (the private curvature's
#                  weight; b0 the start's intercepts, one per class for
#                  multinomial)
#   offset_curvature  TRUE: the curvature at b0 grows with each record's
#                  exposure e^offset_i, so the curvature release weights
#                  the rows by their exposures over a released bound
#                  (poisson; NULL otherwise)
#   class_matrix(b0, intercept)  multinomial: the K x K class factor S of
#                  the curvature S (x) A at b0, A the released curvature
#                  times start_curvature() (S's top eigenvalue 1)
#   model_step     the default step of the Newton path's quadratic model
#   model_memory   the Newton path's default memory when it is not the
#                  control's (NULL: dpsco_control()'s)
#   model_steps    the Newton path's default steps per lambda (NULL: 2)
#   net_offset(y, offset)  y net of per-record offsets, on the response
#                  scale, whose bound and centre the private settings
#                  release (the start is then the intercept beside the
#                  offsets)
#   y_settings     the family's own private settings of y (quantile.R:
#                  the centre and bandwidth from a histogram of y), NULL
#                  when it has none
#   inference      the inference stage's score (R/inference.R), NULL for
#                  the families without one yet (quantile, multinomial):
#                  list(terms(eta, y): per record list(psi (glm's score
#                  residual y - mu), d (the bread weight dmu / deta)),
#                  both finite for finite eta and y; trust: the largest
#                  move of a linear predictor in one step (Inf: none);
#                  constant_bread: TRUE when d does not depend on eta)
#   y_check(y)     the family's own check of a numeric y that check_y()
#                  has found finite (poisson: counts are non-negative),
#                  NULL when it has none
#   trials_matrix  TRUE when glmnet takes y as a two-column matrix of
#                  (successes, failures) counts (binomial), which
#                  check_y_columns() refuses with how to expand it
#   hessian(eta, y)  the loss's second derivative in eta, per record (the
#                  exact Newton solver's weights, baseline.R); NULL for
#                  multinomial, whose converged_multinomial() builds the
#                  K x K blocks itself
#   measure_loss   the per-record validation losses of cv.dpsco() that
#                  are the family's own, a list of function(y, pred) by
#                  measure name (pred on the response scale: an n x K
#                  matrix, multinomial an n x classes x K array); the
#                  measures of the error y - pred ("mse", "mae", "check")
#                  are record_loss()'s
#   deviance(eta, y) the deviance of each penalty's fit on (x, y) from
#                  its linear predictors eta (n x K; multinomial
#                  n x classes x K)
#   deviance_bound(r_bound)  cv.dpsco()'s default clamp of one record's
#                  deviance, r_bound the released bound on y (NULL: none),
#                  NULL when the family needs that bound and has none; NULL
#                  for the families without the "deviance" measure
#   deviance_label the display name of the "deviance" measure (cv.dpsco()'s
#                  `name`); NULL for the families without it
#   y_error_scale  TRUE when y is on the scale of the prediction error,
#                  so cv.dpsco() clamps held-out y to the released range of
#                  y (gaussian, quantile)
#   shardable      TRUE when every release of the fit is a sum the workers
#                  of sharded data form (shards.R)

new_family <- function(name, ...) {
  fields <- list(...)
  flags <- family_flags[setdiff(names(family_flags), names(fields))]
  structure(c(list(name = name, code = family_codes[[name]]), fields, flags),
            class = c(paste0("dpsco_family_", name), "dpsco_family"))
}

# The flags a family sets only when they hold.
family_flags <- list(multi = FALSE, centre_floor = FALSE,
                     offset_curvature = FALSE)

# Residual of the data from the GLM fit of the unpenalised terms; `empty`
# is the residual with no term at all.
glm_null_residual <- function(glm_family, empty) {
  function(x, y, intercept, unpenalised, weights = NULL, offset = NULL) {
    if (!is.null(weights) || !is.null(offset))
      return(glm_weighted_residual(glm_family(), x, y, intercept,
                                   unpenalised, weights, offset))
    z <- cbind(if (intercept) 1, design_columns(x, unpenalised))
    if (ncol(z) == 0L) return(empty(y))
    if (!any(unpenalised)) return(y - mean(y))  # intercept only: exact
    fit <- suppressWarnings(stats::glm.fit(z, y, family = glm_family(),
                                           control = list(epsilon = 1e-12,
                                                          maxit = 100)))
    y - fit$fitted.values
  }
}

# The weighted residual w (y - mu) of glm's fit of the unpenalised terms
# beside the offsets (mu the inverse link of the offsets when there is no
# term).
glm_weighted_residual <- function(glm_fam, x, y, intercept, unpenalised,
                                  weights, offset) {
  w <- weights %||% rep(1, length(y))
  off <- offset %||% rep(0, length(y))
  z <- cbind(if (intercept) 1, design_columns(x, unpenalised))
  mu <- if (ncol(z) == 0L) glm_fam$linkinv(off)
        else suppressWarnings(stats::glm.fit(
          z, y, weights = w, offset = off, family = glm_fam,
          control = list(epsilon = 1e-12, maxit = 100)))$fitted.values
  w * (y - mu)
}

# The deviance of each penalty as twice the summed per-record loss.
loss_deviance <- function(loss) function(eta, y) 2 * colSums(loss(eta, y))

# The binomial deviance -2 log p(y) of fitted probabilities, kept off 0
# and 1.
binomial_deviance <- function(y, pred) {
  pr <- pmin(pmax(pred, 1e-300), 1 - 1e-16)
  -2 * (y * log(pr) + (1 - y) * log1p(-pr))
}

# A 0/1 record misclassified by the probability pred.
binomial_misclass <- function(y, pred) 1 * ((pred > 0.5) != (y == 1))

family_gaussian <- function() {
  new_family("gaussian", label = "gaussian", model = "linear",
             settings = family_settings("gaussian"),
             residual = function(eta, y) eta - y,
             loss = function(eta, y) (y - eta)^2 / 2,
             eval_loss = function(eta, y) (y - eta)^2 / 2,
             curvature = 1, step_curvature = 1,
             bounded = FALSE, slope_bound = Inf,
             residual_bound = function(error_bound) error_bound,
             clip_bounds_error = TRUE, quadratic = TRUE,
             null_risk_bound = function(offset) NULL,
             inverse_link = identity, classes = FALSE,
             start = function(centre, n) centre,
             measures = c("mse", "mae"), radius_top = 100,
             null_residual = glm_null_residual(stats::gaussian,
                                               function(y) y),
             link = identity,
             centre_range = function(y_range) y_range,
             start_curvature = function(b0, intercept, fam) 1,
             net_offset = function(y, offset) y - offset,
             # glm's score: the residual, bread weight 1 at every point
             inference = list(terms = function(eta, y)
               list(psi = y - eta, d = rep(1, length(eta))), trust = Inf,
               constant_bread = TRUE),
             model_step = 1, y_settings = NULL, y_check = NULL,
             trials_matrix = FALSE,
             hessian = function(eta, y) rep(1, length(eta)),
             measure_loss = list(),
             deviance = loss_deviance(function(eta, y) (y - eta)^2 / 2),
             # (no "deviance" measure: the label cv.R's table gives)
             deviance_bound = NULL, deviance_label = NULL,
             y_error_scale = TRUE, shardable = TRUE)
}

# The logistic loss log(1 + e^eta) - y eta in a form that does not
# overflow.
logistic_loss <- function(eta, y) pmax(eta, 0) + log1p(exp(-abs(eta))) - y * eta

family_binomial <- function() {
  new_family("binomial", label = "binomial", model = "logistic",
             settings = family_settings("binomial"),
             residual = function(eta, y) stats::plogis(eta) - y,
             loss = logistic_loss, eval_loss = logistic_loss,
             # Bohning's bound
             curvature = 1 / 4, step_curvature = 0.25,
             bounded = TRUE, slope_bound = 1,
             residual_bound = function(error_bound) 1,
             clip_bounds_error = TRUE, quadratic = FALSE,
             # the loss is >= 0 and at most |offset| + log 2 at w = 0
             null_risk_bound = function(offset) abs(offset) + log(2),
             inverse_link = stats::plogis, classes = TRUE,
             # the log-odds of the centre kept off 0 and 1 by 1 / (n + 2)
             start = function(centre, n)
               stats::qlogis(min(max(centre, 1 / (n + 2)), 1 - 1 / (n + 2))),
             measures = c("deviance", "class"),
             # log-odds need larger coefficients
             radius_top = 1000,
             null_residual = glm_null_residual(stats::binomial,
                                               function(y) y - 0.5),
             link = stats::qlogis,
             centre_range = function(y_range) c(0, 1),
             # at b0 every fitted probability is the (released) event rate:
             # at most 1/4, and falling as the fit separates the classes,
             # so a model with it never overshoots
             start_curvature = function(b0, intercept, fam) {
               if (!intercept) return(1 / 4)
               pr <- stats::plogis(b0)
               pr * (1 - pr)
             },
             # a step 0.7 times the logistic model's: without noise a longer
             # one contracts faster (the curvature only falls away from
             # b0), but on a noisy gradient and curvature it overshoots, and
             # a path of a few thousand records jumps to fits worse than the
             # majority class (test accuracy gain at the private choice,
             # epsilon 1, 70/30 splits, 8 runs: Satellite 0.54 at 1.5, 0.62
             # at 1, 0.78 at 0.7, 0.49 at 0.5; spam 0.85, 0.88, 0.89, 0.88;
             # BlogFeedback's y > 0 the same at every step)
             # a 0/1 response has no net of an offset: its event rate
             net_offset = function(y, offset) y,
             # glm's score: y - mu, bread weight mu (1 - mu)
             inference = list(terms = function(eta, y) {
               mu <- stats::plogis(eta)
               list(psi = y - mu, d = mu * (1 - mu))
             }, trust = 5),
             model_step = 0.7, y_settings = NULL, y_check = NULL,
             trials_matrix = TRUE,
             hessian = function(eta, y) {
               p <- stats::plogis(eta)
               p * (1 - p)
             },
             measure_loss = list(deviance = binomial_deviance,
                                 class = binomial_misclass),
             deviance = loss_deviance(logistic_loss),
             # a probability of 1/1000 on the observed class
             deviance_bound = function(r_bound) 2 * log(1000),
             deviance_label = "Binomial deviance",
             y_error_scale = FALSE, shardable = TRUE)
}

# The Poisson loss e^eta - y eta (glmnet's, up to the term in y alone).
poisson_loss <- function(eta, y) exp(eta) - y * eta

# The Poisson unit deviance 2 (y log(y / mu) - (y - mu)) of fitted means mu
# (y recycles down each column of an n x K mu): the saturated model's
# log-likelihood is not 0 for counts, unlike the loss's.
poisson_deviance <- function(y, mu) {
  mu <- pmax(mu, 1e-300)
  ylog <- y * log(pmax(y, 1e-300) / mu)
  ylog[rep_len(y == 0, length(ylog))] <- 0
  dev <- 2 * (ylog - (y - mu))
  # an infinite mean has an infinite deviance (mu outgrows y log mu);
  # the formula's -Inf + Inf would be NaN
  dev[is.infinite(mu)] <- Inf
  dev
}

family_poisson <- function() {
  new_family("poisson", label = "poisson", model = "Poisson (log link)",
             settings = family_settings("poisson"),
             residual = function(eta, y) exp(eta) - y,
             loss = poisson_loss, eval_loss = poisson_loss,
             # e^eta has no bound: a fixed step has nothing to rest on but
             # the unit curvature of a mean count of 1
             curvature = 1, step_curvature = 1,
             bounded = FALSE, slope_bound = Inf,
             residual_bound = function(error_bound) error_bound,
             # the residual is the prediction error mu - y itself
             clip_bounds_error = TRUE, quadratic = FALSE,
             null_risk_bound = function(offset) NULL,
             inverse_link = exp, classes = FALSE,
             # the log of the released mean count, kept off 0 by 1 / n
             start = function(centre, n) log(max(centre, 1 / n)),
             measures = c("deviance", "mse", "mae"), radius_top = 100,
             null_residual = glm_null_residual(stats::poisson,
                                               function(y) y - 1),
             link = log,
             # a count: the mean of y clamped to [0, the top of its range]
             centre_range = function(y_range) c(0, max(y_range[2L], 0)),
             # the released mean count kept at least its noise sd
             # (centre_release())
             centre_floor = TRUE,
             # at b0 a record's fitted mean is e^(b0 + offset_i): with
             # offsets the curvature release weights its rows by their
             # exposures (R/settings.R, curvature_release())
             offset_curvature = TRUE,
             # at b0 every fitted mean per unit of exposure is the
             # released mean count e^b0
             start_curvature = function(b0, intercept, fam)
               if (intercept) exp(b0) else 1,
             # the count per unit of exposure e^offset: y e^-offset is
             # 0 * Inf = NaN for y = 0 and an offset below -709.8, where
             # the count is 0 whatever the exposure; an overflow is the
             # largest double, which every clamp then meets as its bound
             net_offset = function(y, offset) {
               u <- y * exp(-offset)
               u[y == 0] <- 0
               pmin(u, .Machine$double.xmax)
             },
             # glm's score: y - mu, bread weight mu (the mean kept finite:
             # a linear predictor beyond 700 is a count beyond 1e304)
             inference = list(terms = function(eta, y) {
               mu <- exp(pmin(eta, 700))
               list(psi = y - mu, d = mu)
             }, trust = 5),
             # half the model's step: the curvature at b0 is that of the
             # mean count, and records with larger means have more of it
             # (full steps overshoot on heavy-tailed counts)
             model_step = 0.5, y_settings = NULL,
             # (the message names the problem, never a count of the data)
             y_check = function(y)
               if (any(y < 0))
                 arg_error("y", "must be non-negative counts for the ",
                           "poisson family; it has negative values."),
             trials_matrix = FALSE,
             hessian = function(eta, y) exp(eta),
             measure_loss = list(deviance = poisson_deviance),
             deviance = function(eta, y) colSums(poisson_deviance(y, exp(eta))),
             # about the deviance of a count r_bound at a mean 1000 times
             # smaller; a clamp, privacy never rests on it holding
             deviance_bound = function(r_bound)
               if (!is.null(r_bound)) 2 * log(1000) * max(r_bound, 1),
             deviance_label = "Poisson deviance",
             y_error_scale = FALSE, shardable = TRUE)
}

# tau in (0, 1); smoother: a kernel of kernel_choices or "moreau"; kernel:
# the kernel as given (the smoother unless that is "moreau"); bandwidth:
# the public bandwidth, NULL while it is still to be chosen (then the
# fields that need it, curvature and model, are NA).
family_quantile <- function(tau = 0.5, smoother = "gaussian", kernel = NULL,
                            bandwidth = NULL) {
  tau <- as.double(tau)
  moreau <- identical(smoother, "moreau")
  kernel <- kernel %||% if (moreau) "gaussian" else smoother
  h <- bandwidth
  options <- list(tau = tau, smoother = smoother, kernel = kernel,
                  smoothing = if (moreau) "moreau" else "convolution",
                  bandwidth = bandwidth)
  slope <- max(tau, 1 - tau)
  new_family("quantile",
             label = sprintf("quantile (tau = %s)", format(signif(tau, 4))),
             model = if (is.null(h)) NA_character_
                     else sprintf("linear %s-quantile (%s)",
                                  format(signif(tau, 4)),
                                  quantile_loss_text(options)),
             settings = family_settings("quantile", tau, h, smoother),
             tau = tau, smoother = smoother, kernel = kernel,
             smoothing = options$smoothing, bandwidth = h, options = options,
             residual = function(eta, y)
               quantile_residual(eta, y, tau, h, smoother),
             loss = function(eta, y)
               smoothed_check_loss(y - eta, tau, h, smoother),
             eval_loss = function(eta, y) check_loss(y - eta, tau),
             # K(0) / h; the Moreau envelope's 1 / h (kernel_k0 1)
             curvature = if (is.null(h)) NA_real_ else kernel_k0[[smoother]] / h,
             step_curvature = 1,
             bounded = TRUE, slope_bound = slope,
             residual_bound = function(error_bound) slope,
             clip_bounds_error = FALSE, quadratic = FALSE,
             null_risk_bound = function(offset) NULL,
             inverse_link = identity, classes = FALSE,
             start = function(centre, n) centre,
             measures = "check", radius_top = 100,
             null_residual = quantile_null_residual(tau),
             link = identity, centre_range = NULL,
             # the smoothed check loss's curvature averaged over moves of
             # the size of y's spread, from y's histogram (quantile.R)
             start_curvature = function(b0, intercept, fam) fam$weight,
             net_offset = function(y, offset) y - offset,
             model_step = 1, y_settings = quantile_settings, y_check = NULL,
             trials_matrix = FALSE,
             hessian = function(eta, y)
               kernel_density((eta - y) / h, smoother, tau) / h,
             measure_loss = list(),
             deviance = loss_deviance(function(eta, y)
               check_loss(y - eta, tau)),
             # (no "deviance" measure: the label cv.R's table gives)
             deviance_bound = NULL, deviance_label = NULL,
             y_error_scale = TRUE, shardable = TRUE)
}

# Minus the check loss's subgradient at the intercept-only fit (the
# tau-quantile of y), the unpenalised columns left aside; with weights or
# offsets, the weights times it on y net of the offsets (the check loss
# has no glm).
quantile_null_residual <- function(tau) {
  plain <- function(y, intercept)
    (y > if (intercept) stats::quantile(y, tau, names = FALSE) else 0) -
      (1 - tau)
  function(x, y, intercept, unpenalised, weights = NULL, offset = NULL) {
    if (is.null(weights) && is.null(offset)) return(plain(y, intercept))
    w <- weights %||% rep(1, length(y))
    off <- offset %||% rep(0, length(y))
    w * plain(y - off, intercept)
  }
}

# softmax of the rows of eta (a matrix, or a vector of one row), by the
# largest entry so that nothing overflows.
softmax_rows <- function(eta) {
  if (!is.matrix(eta)) eta <- matrix(eta, 1L)
  e <- exp(eta - row_max(eta))
  e / rowSums(e)
}

# The largest entry of each row (max.col() finds it in C; a row with a
# NaN gives NaN).
row_max <- function(m) m[cbind(seq_len(nrow(m)), max.col(m, "first"))]

# The counts of the K classes of y, coded 0 to K - 1 (sharded: summed over
# the workers, shards.R).
class_counts <- function(y, K) {
  if (is_sharded(y)) return(shard_class_counts(y, K))
  tabulate(y + 1L, K)
}

# The n x K indicators of y's classes, coded 0 to K - 1.
class_indicators <- function(y, K) {
  out <- matrix(0, length(y), K)
  out[cbind(seq_along(y), y + 1L)] <- 1
  out
}

# The multinomial (softmax) model of K classes, glmnet's "multinomial"
# with its symmetric parametrisation: one coefficient block per class,
# each penalised.  Its per-record gradient r_i (x) (1, x_i) has
# r_i = softmax(eta_i) - e_(y_i), of norm at most sqrt(2), and its Hessian
# (diag(p) - p p') (x) (1, x)(1, x)', which at the start b0 (every record
# at the class shares p) the Newton path's model S (x) A takes whole.  Functions of eta take an n x K matrix
# (or a K vector standing for every row); y is coded 0 to K - 1.
family_multinomial <- function(nclass = NULL) {
  # the class shares at b0 (the intercepts; equal without intercept)
  shares <- function(b0, intercept)
    if (intercept) drop(softmax_rows(b0)) else rep(1 / length(b0), length(b0))
  # the Hessian's class factor at b0, diag(p) - p p', made positive
  # definite along the one direction where it is 0 (all classes moved
  # alike, on which the loss does not depend and which the engine takes
  # out of every release) by its mean eigenvalue
  class_factor <- function(b0, intercept) {
    pr <- shares(b0, intercept)
    K <- length(pr)
    s0 <- diag(pr, K) - pr %o% pr
    s0 + sum(diag(s0)) / K^2
  }
  top <- function(m) max(eigen(m, symmetric = TRUE, only.values = TRUE)$values)
  loss <- function(eta, y) {
    if (!is.matrix(eta)) eta <- matrix(eta, length(y), length(eta), byrow = TRUE)
    top <- row_max(eta)
    top + log(rowSums(exp(eta - top))) - eta[cbind(seq_along(y), y + 1L)]
  }
  new_family("multinomial", label = "multinomial",
             model = "multinomial logistic", nclass = nclass,
             settings = family_settings("multinomial", nclass = nclass %||% 2L),
             multi = TRUE,
             residual = function(eta, y) {
               pr <- softmax_rows(eta)
               ind <- class_indicators(y, ncol(pr))
               if (nrow(pr) == 1L) pr <- pr[rep(1L, length(y)), , drop = FALSE]
               pr - ind
             },
             loss = loss, eval_loss = loss,
             curvature = 1 / 2, step_curvature = 0.5,
             bounded = TRUE, slope_bound = sqrt(2),
             residual_bound = function(error_bound) sqrt(2),
             clip_bounds_error = TRUE, quadratic = FALSE,
             null_risk_bound = function(offset) log(nclass %||% 2L),
             inverse_link = softmax_rows, classes = TRUE,
             # the log shares kept off 0 by 1 / (n + 2), centred (the
             # symmetric parametrisation's intercepts sum to 0)
             start = function(centre, n) {
               b <- log(pmax(centre, 1 / (n + 2)))
               b - mean(b)
             },
             # the shares of the K classes: the sum of the indicators over
             # the public n, one record moving it by e_(y_i), of norm 1
             centre_release = function(y, z, n) {
               # K is the number of declared classes, never read from y
               est <- class_counts(y, nclass) / n
               sens <- 1 / n
               if (noise_secure() && z > 0)
                 est <- secure_values(est, z, sens)
               else est <- est + z * sens * stats::rnorm(nclass)
               list(estimate = est, noise_sd = z * sens, sensitivity = sens)
             },
             measures = c("deviance", "class"), radius_top = 1000,
             null_residual = multinomial_null_residual(nclass),
             link = function(mean) log(mean) - mean(log(mean)),
             centre_range = function(y_range) c(0, 1),
             start_curvature = function(b0, intercept, fam)
               top(class_factor(b0, intercept)),
             class_matrix = function(b0, intercept) {
               s <- class_factor(b0, intercept)
               s / top(s)
             },
             net_offset = function(y, offset) y,
             # no memory: the model S (x) A is the Hessian at b0 only, and
             # a gradient carried by it drifts as the probabilities move
             # (test accuracy on Satellite at epsilon 2: 0.81 against 0.80);
             # three steps per lambda: the model moves away from its start
             # along the path (Satellite, 70/30 splits, epsilon 2, 14 runs:
             # 0.796 against 0.783 at two steps)
             model_step = 1, model_memory = 0, model_steps = 3L,
             y_settings = NULL,
             y_check = NULL, trials_matrix = FALSE,
             hessian = NULL,
             measure_loss = list(deviance = multinomial_deviance,
                                 class = multinomial_misclass),
             deviance = function(eta, y)
               vapply(seq_len(dim(eta)[3L]), function(j)
                 2 * sum(loss(matrix(eta[, , j], nrow(eta)), y)), 0),
             # a probability of 1/1000 on the observed class
             deviance_bound = function(r_bound) 2 * log(1000),
             deviance_label = "Multinomial deviance",
             y_error_scale = FALSE, shardable = TRUE)
}

# The residual at the fit of the intercepts alone (the class shares,
# weighted when weights are given; equal without intercept).  Unpenalised
# columns would need a multinomial glm, which base R does not have; the
# family takes no offsets.
multinomial_null_residual <- function(nclass) {
  function(x, y, intercept, unpenalised, weights = NULL, offset = NULL) {
    if (any(unpenalised))
      arg_error("penalty.factor", "of 0 (an unpenalised column) is not ",
                "available for a multinomial fit whose lambda grid is ",
                "taken from the data; give lambda.")
    ind <- class_indicators(y, nclass)
    if (is.null(weights)) {
      if (!intercept) return(ind - 1 / ncol(ind))
      return(ind - rep(colMeans(ind), each = nrow(ind)))
    }
    shares <- if (intercept) colSums(weights * ind) / sum(weights)
              else rep(1 / nclass, nclass)
    weights * (ind - rep(shares, each = length(y)))
  }
}

# Each record's own class in every penalty's slice of the n x classes x K
# probabilities pred: the n x K index of pred.
own_class_index <- function(y, pred) {
  n <- length(y)
  k <- dim(pred)[3L]
  cbind(rep(seq_len(n), k), rep(y + 1L, k), rep(seq_len(k), each = n))
}

# -2 log p_y per record and penalty (y coded 0 to classes - 1).
multinomial_deviance <- function(y, pred)
  matrix(-2 * log(pmax(pred[own_class_index(y, pred)], 1e-300)), length(y),
         dim(pred)[3L])

# A record misclassified by the first class of largest probability, per
# penalty.
multinomial_misclass <- function(y, pred) {
  n <- length(y)
  k <- dim(pred)[3L]
  best <- vapply(seq_len(k), function(j)
    max.col(matrix(pred[, , j], n), ties.method = "first"), integer(n))
  1 * (matrix(best, n, k) != y + 1L)
}

# The family of dpsco() and cv.dpsco() from the user's arguments, with
# their checks: tau for "quantile" only (check_tau()), and the quantile
# options from `control` (bandwidth, kernel, smoothing), the bandwidth
# refused for the other families; `nclass` the declared number of classes
# of a multinomial y.  `family` is a matched name (or already an object,
# returned as it is).  The front door builds it once; the paths pass it on.
as_family <- function(family, tau = NULL, control = NULL, nclass = NULL) {
  if (inherits(family, "dpsco_family")) return(family)
  tau <- check_tau(tau, family)
  if (family != "quantile") {
    if (!is.null(control$bandwidth))
      arg_error("control", "$bandwidth applies to family = \"quantile\" only.")
    return(family_object(family, list(nclass = nclass)))
  }
  smoother <- if (identical(control$smoothing, "moreau")) "moreau"
              else control$kernel %||% "gaussian"
  family_quantile(tau, smoother, control$kernel %||% "gaussian",
                  control$bandwidth)
}

# The family with the settings a fit chose.  For quantile: the bandwidth
# and, from private tuning, the released centre of y and the Newton
# model's curvature weight, as fields (the weight is what
# start_curvature() reads) and in `options`, the list a fit stores as
# settings$quantile.  The other families have none and are returned as
# they are.
family_with <- function(fam, bandwidth = fam$bandwidth, centre = fam$centre,
                        weight = fam$weight) {
  if (!inherits(fam, "dpsco_family_quantile")) return(fam)
  out <- family_quantile(fam$tau, fam$smoother, fam$kernel, bandwidth)
  extra <- compact(list(centre = centre, weight = weight))
  out$options <- c(out$options, extra)
  out[names(extra)] <- extra
  out
}

# The family of a path with public tuning: a smoothed loss gets conquer's
# data-independent bandwidth (on the scale of y) unless one was declared.
family_public <- function(fam, n, p) {
  if (!inherits(fam, "dpsco_family_quantile") || !is.null(fam$bandwidth))
    return(fam)
  family_with(fam, conquer_bandwidth(n, p))
}

# The number of predictors per record: the declared classes of a
# multinomial family, 1 otherwise.
family_nclass <- function(fam) if (fam$multi) fam$nclass else 1L

# The family from its name and `options`: for "quantile" as stored in a
# fit (settings$quantile), list(tau, smoother, kernel, bandwidth), missing
# ones at their defaults; for "multinomial", list(nclass).  No checks: the arguments
# were checked when the fit or the problem was made.
family_object <- function(family, options = NULL) {
  if (inherits(family, "dpsco_family")) return(family)
  switch(family,
    gaussian = family_gaussian(),
    binomial = family_binomial(),
    poisson = family_poisson(),
    multinomial = family_multinomial(options$nclass),
    quantile = family_quantile(options$tau %||% 0.5,
                               options$smoother %||% "gaussian",
                               options$kernel, options$bandwidth))
}

# The family of a fitted model: the object the fit stored
# (settings$family_object, on y's own scale), else, for a fit made before
# it was stored, one rebuilt from its name and options.
fit_family <- function(fit) {
  if (!is.null(fit$settings$family_object))
    return(fit$settings$family_object)
  if (identical(fit$family, "multinomial"))
    return(family_multinomial(length(fit$classnames)))
  family_object(fit$family, fit$settings$quantile)
}

# The radius of a penalised path's domain (domain.R, path_domain()) from
# the released (or declared) range of y net of the offsets and the public
# n; NULL when there is nothing to bound with.
family_domain_radius <- function(fam, y_range, n) {
  switch(fam$name,
    gaussian = , quantile = if (!is.null(y_range)) diff(y_range) / 2,
    poisson = if (!is.null(y_range))
      (max(log(y_range[2L]), -log(n)) + log(n)) / 2,
    binomial = , multinomial = log(n + 1))
}

# The range of y from a released bound b on |y|: [0, b] for counts.
family_y_range <- function(fam, b) {
  if (identical(fam$name, "poisson")) c(0, b) else c(-b, b)
}
