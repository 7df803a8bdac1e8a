# The loss families and what the C engine needs to know of one: its code
# (src/family.c) and, for the smoothed quantile loss, the level tau, the
# kernel (or the Moreau envelope) and the bandwidth.  Every .Call that
# passes records takes these fields from family_settings(), so a new family
# is added here and in family.c only.

family_codes <- c(gaussian = 0L, binomial = 1L, quantile = 2L)
# "moreau" is not a kernel: code 4 selects the Moreau envelope of the check
# loss (dpsco_control(smoothing = "moreau")) instead of a convolution
kernel_codes <- c(gaussian = 0L, logistic = 1L, uniform = 2L,
                  epanechnikov = 3L, moreau = 4L)

# Fields of the engine's settings list for `family`; `tau`, `bandwidth` and
# `kernel` matter for "quantile" only.  `kernel` is a name of kernel_codes.
family_settings <- function(family, tau = NULL, bandwidth = NULL,
                            kernel = NULL) {
  list(family = family_codes[[family]], tau = as.double(tau %||% 0.5),
       bandwidth = as.double(bandwidth %||% 1),
       kernel = kernel_codes[[kernel %||% "gaussian"]])
}

# The same fields from a fitted model's `quantile` element (NULL for the
# other families).
fit_family_settings <- function(family, q) {
  family_settings(family, q$tau, q$bandwidth, q$smoother)
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
