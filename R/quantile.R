# The smoothed quantile family (family = "quantile"): its options, the loss
# values and derivatives on the R side (the engine's are in src/family.c),
# and the private release that sets its starting intercept, bandwidth and
# curvature weight.
#
# The check loss c(u) = tau u+ + (1 - tau)(-u)+ (u = y - eta) is smoothed at
# bandwidth h either by convolution with K_h = K(. / h) / h, which gives
# c_h(u) = tau u + h G(-u / h) with G(t) the integral of the kernel's
# distribution function up to t, or by its Moreau envelope with parameter
# 1 / h.  Either way the derivative in eta lies in [-tau, 1 - tau], so every
# per-record gradient is bounded by max(tau, 1 - tau) ||(1, x_i)|| and the
# second derivative by K(0) / h (1 / h for the Moreau envelope).

#' @name dpsco
#' @rdname dpsco
#' @section Quantile regression:
#' `family = "quantile"` fits the conditional `tau`-quantile (`tau` in
#' (0, 1), default 0.5) by the check loss
#' `c(u) = tau u+ + (1 - tau)(-u)+` of the residual `u = y - eta`, made
#' smooth at bandwidth `h` by convolution with a kernel
#' (`dpsco_control(kernel = )`: `"gaussian"`, the default, `"logistic"`,
#' `"uniform"` or `"epanechnikov"`; the conquer estimator of He, Pan, Tan
#' and Zhou) or, with `dpsco_control(smoothing = "moreau")`, by its Moreau
#' envelope with parameter `1 / h`, whose derivative is the clamp of
#' `(eta - y) / h` to `[-tau, 1 - tau]`.  Convolution smoothing approximates
#' the check loss from above and tolerates outliers better than the Moreau
#' envelope, which approximates it from below; both are offered so that
#' the two can be compared (see `vignette("quantile")`).  The derivative
#' of either loss in the linear predictor lies in `[-tau, 1 - tau]`, so a
#' record's gradient is at most `max(tau, 1 - tau) ||(1, x_i)||` whatever
#' `y` is: heavy-tailed responses need no bound for the sensitivity.  The
#' loss is `K(0) / h`-smooth in the linear predictor (`1 / h` for Moreau).
#'
#' With private tuning the settings specific to the family come from one
#' Gaussian release (the `"centre"` share) of a histogram of `y` clamped to
#' its private bound, in 201 equal bins: the starting intercept is its
#' `tau`-quantile (the private intercept-only fit), the bandwidth is
#' conquer's rule `max(((log n + p) / n)^0.4, 0.05)` times the private
#' spread `(q_0.9 - q_0.1) / 2.56` of that histogram (at least one bin
#' width), and the Newton curvature is the released second-moment matrix
#' times 1.5 times the histogram's density of `y` at the starting
#' intercept, smoothed at the scale of the spread: the check loss is curved
#' only within about `h` of its kink, so its curvature averaged over a step
#' of the size of the residuals, not its largest value `K(0) / h`, sets a
#' step that neither crawls nor overshoots.  A bandwidth given in
#' `dpsco_control(bandwidth = )` is public, on the scale of `y`; with both
#' it and `dpsco_control(center = )` declared no histogram is released and
#' the curvature weight is `K(0) / h`.  With `tuning = "public"` the
#' default bandwidth is conquer's rule alone (data-independent) and the
#' default step size `h / (K(0) d)`.
#'
#' Every method applies.  `"fw"` clamps the per-record coordinates at
#' `max(tau, 1 - tau) max(1, |x_i|_inf)` at most; `"objective"` uses the
#' Lipschitz constant `max(tau, 1 - tau) ||(1, x)||` and the smoothness
#' `K(0) / h ||(1, x)||^2`, and also accepts `radius = Inf`: the
#' unconstrained objective perturbation of the poster on private smoothed
#' quantile regression, minimised to a suboptimality certified by strong
#' convexity, `||grad||^2 / (4 lambda)`.  `predict()` gives the fitted
#' quantile for `type = "link"` and `"response"`; [cv.dpsco()] chooses
#' along the path by the (unsmoothed) check loss.
#' @references He, X., Pan, X., Tan, K. M. and Zhou, W.-X. (2023).
#'   Smoothed quantile regression with large-scale inference.
#'   *Journal of Econometrics* 232, 367--388.
NULL

# K(0) of each smoother: the largest second derivative of the smoothed
# loss is K(0) / h.  The Moreau envelope's is 1 / h.
kernel_k0 <- c(gaussian = 0.3989422804014327, logistic = 0.25, uniform = 0.5,
               epanechnikov = 0.75, moreau = 1)

kernel_choices <- c("gaussian", "logistic", "uniform", "epanechnikov")

# conquer's default bandwidth, max(((log n + p) / n)^0.4, 0.05), for
# responses on the unit scale.
conquer_bandwidth <- function(n, p) max(((log(n) + p) / n)^0.4, 0.05)

# The check loss and its smoothed versions at residuals u = y - eta.
check_loss <- function(u, tau) u * (tau - (u < 0))

smoothed_check_loss <- function(u, tau, h, smoother = "gaussian") {
  if (smoother == "moreau") {
    lo <- -(1 - tau) * h
    hi <- tau * h
    return(ifelse(u > hi, tau * u - tau^2 * h / 2,
           ifelse(u < lo, -(1 - tau) * u - (1 - tau)^2 * h / 2,
                  u^2 / (2 * h))))
  }
  t <- -u / h
  # G(t) = integral of the kernel's distribution function up to t
  g <- switch(smoother,
    gaussian = t * stats::pnorm(t) + stats::dnorm(t),
    logistic = pmax(t, 0) + log1p(exp(-abs(t))),
    uniform = ifelse(t <= -1, 0, ifelse(t >= 1, t, (t + 1)^2 / 4)),
    epanechnikov = ifelse(t <= -1, 0, ifelse(t >= 1, t,
                          t / 2 + 3 * t^2 / 8 - t^4 / 16 + 3 / 16)))
  tau * u + h * g
}

# Derivative of the smoothed check loss in eta (the engine's residual),
# clamped to [-tau, 1 - tau] as family.c does.
quantile_residual <- function(eta, y, tau, h, smoother = "gaussian") {
  u <- (eta - y) / h
  r <- if (smoother == "moreau") u
       else switch(smoother,
         gaussian = stats::pnorm(u),
         logistic = stats::plogis(u),
         uniform = pmin(pmax((u + 1) / 2, 0), 1),
         epanechnikov = {
           v <- pmin(pmax(u, -1), 1)
           0.5 + 0.75 * v - 0.25 * v^3
         }) - tau
  # NaN (a diverged iterate) gives 0, as family.c does
  clamp(r, -tau, 1 - tau, nan = 0)
}

# The smoothing kernel K itself: the loss's second derivative in eta is
# K(u) / h at u = (eta - y) / h.  For the Moreau envelope it is 1 / h where
# the clamp of quantile_residual() is inactive, u in (-tau, 1 - tau).
kernel_density <- function(u, smoother = "gaussian", tau = 0.5) {
  switch(smoother,
    gaussian = stats::dnorm(u),
    logistic = stats::dlogis(u),
    uniform = ifelse(abs(u) <= 1, 0.5, 0),
    epanechnikov = ifelse(abs(u) <= 1, 0.75 * (1 - u^2), 0),
    moreau = ifelse(u > -tau & u < 1 - tau, 1, 0))
}

# ---------------------------------------------------------------------------
# The private release of the family's settings

# One Gaussian release: the counts of clamp(y, -B, B) in `nbins` equal bins
# of [-B, B] (B the private bound on |y|), noise sd z.  One record adds 1 to
# one count, so the L2 sensitivity is 1.  Everything else is
# post-processing of the noisy counts: the tau-quantile (the first bin
# centre at which the cumulative counts reach tau times their total; an odd
# number of bins puts 0 at a centre, so a point mass at 0 is found
# exactly), the spread (q_0.9 - q_0.1) / 2.56, at least one bin width, and
# the smoothed density at the quantile.
release_y_histogram <- function(y, bound, z, nbins = 201L) {
  w <- 2 * bound / nbins
  centres <- -bound + w * (seq_len(nbins) - 0.5)
  n_b <- y_bin_counts(y, bound, nbins)
  counts <- release(n_b, z, 1)
  list(counts = counts, centres = centres, width = w, sd = z)
}

hist_level <- function(hist, level) {
  cs <- cumsum(hist$counts)
  total <- cs[length(cs)]
  k <- which(cs >= level * total)[1L]
  hist$centres[if (is.na(k)) length(cs) else k]
}

# The settings the histogram gives: the starting intercept and the spread.
quantile_hist_settings <- function(hist, tau) {
  q <- hist_level(hist, tau)
  spread <- max((hist_level(hist, 0.9) - hist_level(hist, 0.1)) / 2.56,
                hist$width)
  list(centre = q, spread = spread)
}

# The curvature weight of the Newton model (tune_private()): the density
# of y at the starting intercept q, smoothed at the scale of y's spread
# (the within-bin spread added), from the noisy histogram.  The smoothed
# check loss is curved only within about h of its kink and nearly linear
# beyond, so its Hessian at the start (up to K(0) / h) overstates the
# curvature met along a step of the size of the residuals; averaged over
# moves of y's spread it is the density of y there.  Times 1.5, since a
# fit's residuals are more concentrated than y (on the raw blog data 1.5
# beat 1 and 2 at tau 0.5 and 0.9, epsilon 0.5 and 2; 1 was unstable at
# tau 0.5).  Floored at 1e-3 of a normal's with that spread (a histogram
# empty around q).  Post-processing of the histogram.
quantile_curvature_weight <- function(hist, q, spread) {
  he <- sqrt(spread^2 + hist$width^2 / 12)
  cnt <- pmax(hist$counts, 0)
  dens <- sum(cnt * stats::dnorm((q - hist$centres) / he)) /
    (he * max(sum(cnt), 1))
  1.5 * max(dens, 1e-3 * stats::dnorm(0) / spread)
}

# The family's private settings (called by tune_private() after the bound
# on |y| is released): the histogram of y (one Gaussian release, the
# "centre" share of the budget, sensitivity 1) unless the centre and the
# bandwidth are both declared.  `fam` the quantile family object.  Returns
# the family completed by family_with() (bandwidth, centre, curvature
# weight) and the part, released values and public declarations for the
# record.  y and the bound are on y's own scale.
quantile_settings <- function(y, y_bound, fam, intercept, center, n, p, z1,
                              shares, constrained) {
  fmt <- function(v) format(signif(v, 3))
  parts <- list()
  released <- list()
  public <- character()
  hist <- NULL
  need_hist <- is.null(fam$bandwidth) || intercept && is.null(center)
  if (need_hist) {
    z <- part_multiplier(z1, shares[["centre"]])
    hist <- release_y_histogram(y, y_bound, z)
    hs <- quantile_hist_settings(hist, fam$tau)
  }
  centre <- 0
  if (intercept) {
    if (!is.null(center)) {
      centre <- center
      public <- c(public, "centre of y")
    } else {
      centre <- hs$centre
    }
  }
  if (!is.null(fam$bandwidth)) {
    h <- fam$bandwidth
    public <- c(public, "bandwidth")
  } else {
    h <- conquer_bandwidth(n, p) * hs$spread
  }
  # without the histogram: the largest curvature K(0) / h (a majoriser)
  weight <- if (constrained) NULL
            else if (is.null(hist)) family_with(fam, h)$curvature
            else quantile_curvature_weight(hist, centre, hs$spread)
  if (need_hist) {
    parts <- list(privacy_part(
      "centre", z, 1, 1, 1, shares[["centre"]],
      mechanism = sprintf(paste("Gaussian: histogram of y clamped to",
                                "[-%s, %s], %d bins"), fmt(y_bound),
                          fmt(y_bound), length(hist$counts)),
      released = paste0(
        if (intercept && is.null(center))
          sprintf("%s-quantile of y %s; ", fmt(fam$tau), fmt(centre)),
        sprintf("spread of y %s", fmt(hs$spread)),
        if (is.null(fam$bandwidth)) sprintf("; bandwidth %s", fmt(h)),
        if (!is.null(weight)) sprintf("; curvature weight %s", fmt(weight)))))
    released$y_quantile <- if (intercept && is.null(center)) centre
    released$y_spread <- hs$spread
  }
  released$bandwidth <- h
  list(family = family_with(fam, h, centre, weight), parts = parts,
       released = released, public = public)
}

# One line naming the loss for print(), summary() and the privacy record,
# from the quantile options (a family's `options`, a fit's
# settings$quantile); NULL for the other families.
quantile_loss_text <- function(options) {
  if (is.null(options)) return(NULL)
  sprintf("check loss at tau = %s, %s at bandwidth %s",
          format(signif(options$tau, 4)),
          if (options$smoother == "moreau") "Moreau envelope"
          else paste0("convolution-smoothed (", options$smoother, " kernel)"),
          format(signif(options$bandwidth, 4)))
}
