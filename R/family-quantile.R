# The smoothed quantile (check loss) family; its losses, kernels and the
# private settings of y it releases are in R/quantile.R.

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
             measures = "check", assess_measures = c("check", "mae"),
             radius_top = 100,
             null_residual = quantile_null_residual(tau),
             null_eta = quantile_null_eta(tau),
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
             record_deviance = twice_loss(function(eta, y) check_loss(y - eta, tau)),
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

# The intercept-only fit beside the offsets: the offsets plus the weighted
# tau-quantile of y - offset, n x 1.
quantile_null_eta <- function(tau) {
  function(y, weights, offset) {
    off <- offset %||% rep(0, length(y))
    r <- y - off
    o <- order(r)
    cw <- cumsum(weights[o]) / sum(weights)
    matrix(off + r[o][which(cw >= tau)[1L]], length(y), 1L)
  }
}

# The family of a path with public tuning: a smoothed loss gets conquer's
# data-independent bandwidth (on the scale of y) unless one was declared.
family_public <- function(fam, n, p) {
  if (!inherits(fam, "dpsco_family_quantile") || !is.null(fam$bandwidth))
    return(fam)
  family_with(fam, conquer_bandwidth(n, p))
}
