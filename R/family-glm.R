# The generalised linear families: gaussian (least squares), binomial
# (logistic) and poisson (log link), each a family object (R/family-fields.R
# lists and checks its fields).

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

# The linear predictor of the intercept-only glm fitted beside the offsets,
# n x 1 (glmnet's null model), for a stats family.
glm_null_eta <- function(glm_family) {
  function(y, weights, offset) {
    n <- length(y)
    fam <- glm_family()
    mu <- suppressWarnings(stats::glm.fit(matrix(1, n, 1L), y, weights = weights,
                                          offset = offset %||% rep(0, n),
                                          family = fam,
                                          intercept = TRUE))$fitted.values
    matrix(fam$linkfun(mu), n, 1L)
  }
}

# Each record's deviance as twice its loss.
twice_loss <- function(loss) function(eta, y) 2 * loss(eta, y)

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
             measures = c("mse", "mae"),
             assess_measures = c("mse", "mae"), radius_top = 100,
             null_residual = glm_null_residual(stats::gaussian,
                                               function(y) y),
             null_eta = glm_null_eta(stats::gaussian),
             link = identity,
             centre_range = function(y_range) y_range,
             start_curvature = function(b0, intercept, fam) 1,
             net_offset = function(y, offset) y - offset,
             # glm's score: the residual, bread weight 1 at every point;
             # linear in the coefficients, so three first steps reach its
             # root (more add their noise only: R/inference.R)
             inference = list(terms = function(eta, y)
               list(psi = y - eta, d = rep(1, length(eta))), trust = Inf,
               constant_bread = TRUE, steps = 3L),
             model_step = 1, y_settings = NULL, y_check = NULL,
             trials_matrix = FALSE,
             hessian = function(eta, y) rep(1, length(eta)),
             measure_loss = list(),
             deviance = loss_deviance(function(eta, y) (y - eta)^2 / 2),
             record_deviance = twice_loss(function(eta, y) (y - eta)^2 / 2),
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
             assess_measures = c("deviance", "class", "auc", "mse", "mae"),
             # log-odds need larger coefficients
             radius_top = 1000,
             null_residual = glm_null_residual(stats::binomial,
                                               function(y) y - 0.5),
             null_eta = glm_null_eta(stats::binomial),
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
             record_deviance = twice_loss(logistic_loss),
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
             measures = c("deviance", "mse", "mae"),
             assess_measures = c("deviance", "mse", "mae"), radius_top = 100,
             null_residual = glm_null_residual(stats::poisson,
                                               function(y) y - 1),
             null_eta = glm_null_eta(stats::poisson),
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
             record_deviance = function(eta, y) poisson_deviance(y, exp(eta)),
             # the deviance of a count r_bound at a mean four times
             # smaller, 2 B (log 4 - 3/4): a clamp at the scale of a large
             # error, not of the largest (cv.dpsco()'s choice then tells a
             # real signal from the trivial model; privacy never rests on
             # it holding).  At 1000 times smaller, the clamp was 11 times
             # wider and cv.dpsco() kept the trivial model in 5 of 12 fits
             # of a clear two-slope signal at n = 4000 (bench/README.md)
             deviance_bound = function(r_bound)
               if (!is.null(r_bound)) poisson_clamp(max(r_bound, 1)),
             deviance_label = "Poisson deviance",
             y_error_scale = FALSE, shardable = TRUE)
}

# cv.dpsco()'s default clamp of a Poisson record's deviance, for a bound B
# on the counts: the deviance of a count B at a mean B / 4.
poisson_clamp <- function(b) 2 * b * (log(4) - 3 / 4)
