# The loss families and what the C engine needs to know of one: its code
# (src/family.c) and, for the smoothed quantile loss, the level tau, the
# kernel (or the Moreau envelope) and the bandwidth.  Every .Call that
# passes records takes these fields from family_settings() (a family
# object's `settings`), so a new family is added here (its code), in a
# constructor file (R/family-*.R, its fields checked by R/family-fields.R)
# and in family.c.

family_codes <- c(gaussian = 0L, binomial = 1L, quantile = 2L, poisson = 3L,
                  multinomial = 4L)

# Every family: what a method that fits them all declares (the paper's
# oracles), so that a new family reaches them from here.
family_names <- function() names(family_codes)

# The families in the order the documentation lists them (the choices of
# a `family` argument).
family_choices <- c("gaussian", "binomial", "poisson", "multinomial", "quantile")

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
