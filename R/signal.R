# Whether a private path carries signal, from released values only (no
# budget): the first gradient released at the start (the trivial model)
# has, per penalised coordinate, the data's signal (the covariance of a
# feature with the residual of the trivial model) plus Gaussian noise of
# the release's known sd.  The largest of p noise-only coordinates is
# about sqrt(2 log(2 p)) sds, so a coordinate stands out when it is
# `level` sds beyond that.  The release's noise sd falls as 1 / n at a
# fixed epsilon (and about as 1 / epsilon at a fixed n) while the signal
# does not change, so the ratio says roughly how much more data (or
# budget) a detectable signal needs.
#   g0        the released first gradient (intercept first when present;
#             a multinomial's K blocks)
#   noise_sd  its noise sd per coordinate
#   penalised the positions of the penalised coordinates in g0
#   a0        NULL, or the released curvature's intercept column over its
#             corner (one per penalised coordinate): the private start's
#             intercept is off the mean by its own noise, and x is not
#             centred, so every coordinate j carries a0_j times the
#             intercept's coordinate.  That part is taken off (bench on
#             blog's raw counts, n = 20,000 with y permuted: a largest
#             coordinate 4.6 sds beyond noise alone, 0 after), and the
#             noise sd of coordinate j becomes noise_sd sqrt(1 + a0_j^2).
# Returns the ratio of the largest penalised coordinate to its noise sd,
# the excess over the noise-only maximum, the grade ("strong": at least
# `level` beyond; "borderline": beyond, by less; "none": not beyond), and
# the factor by which n (or epsilon) would have to grow for the excess to
# reach the level (absent unless borderline).
signal_check <- function(g0, noise_sd, penalised, level = 5, a0 = NULL) {
  if (!(noise_sd > 0) || !length(penalised)) return(NULL)
  z <- if (is.null(a0)) g0[penalised] / noise_sd
       else (g0[penalised] - a0 * g0[1L]) / (noise_sd * sqrt(1 + a0^2))
  ratio <- max(abs(z))
  noise_max <- sqrt(2 * log(2 * length(penalised)))
  excess <- ratio - noise_max
  out <- list(ratio = ratio, level = level, noise_max = noise_max,
              excess = excess, detected = excess >= level,
              grade = if (excess >= level) "strong"
                      else if (excess > 0) "borderline" else "none",
              adjusted = !is.null(a0))
  # (absent, not NA, when nothing stands out: every field of a fit is a
  # number whatever the data)
  if (out$grade == "borderline") out$factor <- (level + noise_max) / excess
  out
}

# The released curvature's intercept column over its corner, for the
# penalised coordinates (signal_check()'s a0): NULL without an intercept,
# a curvature, or with several classes.
signal_offset <- function(curvature, intercept, nclass, penalised) {
  if (!intercept || is.null(curvature) || nclass > 1L) return(NULL)
  curvature[penalised, 1L] / curvature[1L, 1L]
}

# The sentence print() and summary() add, by the check's grade: what the
# first release supports at this n and epsilon.
signal_text <- function(sig, n, epsilon) {
  if (is.null(sig)) return(NULL)
  grade <- sig$grade %||% if (isTRUE(sig$detected)) "strong" else "none"
  what <- paste0("the largest coordinate of the released gradient at the ",
                 "intercept-only model", if (isTRUE(sig$adjusted))
                   " (net of the intercept's noise)", " is ",
                 format(signif(sig$ratio, 2)), " noise sds")
  noise <- paste0("the ", format(signif(sig$noise_max, 2)), " that noise ",
                  "alone gives")
  at <- paste0("n = ", format_count(n), " and epsilon = ",
               format(signif(epsilon, 3)))
  switch(grade,
    strong = paste0(
      "Signal: ", what, ", more than ", sig$level, " sds beyond ", noise,
      ", so at least one predictor stands out from the privacy noise at ",
      at, "."),
    borderline = paste0(
      "No predictor stands out clearly from the privacy noise: ", what,
      ", less than ", sig$level, " sds beyond ", noise, ".  A signal ",
      "spread over many predictors can still be there, but the path's ",
      "non-zero coefficients may be noise: judge them on held-out records ",
      "(cv.dpsco() does so privately, with the intercept-only model as a ",
      "candidate).  A predictor of this size would stand out with about ",
      format_count(ceiling(n * sig$factor)), " records at this epsilon, ",
      "or epsilon about ", format(signif(epsilon * sig$factor, 2)),
      " at this n."),
    paste0(
      "No predictor stands out from the privacy noise: ", what, ", not ",
      "beyond ", noise, ", which is what data without signal give at ", at,
      ".  Unless a held-out check (cv.dpsco()) chooses another model, ",
      "treat the fit as the intercept-only model: its non-zero ",
      "coefficients may be noise."))
}

# The sentence print() and summary() add when the scale release told no
# bin of y's octave histogram apart from its noise (signed_octave_range()):
# the fit then took [-1, 1] as the range of y, a guess rather than a
# release: its centre lies inside it and its predictions stay near it.
y_range_text <- function(fit, n, epsilon) {
  if (!isTRUE(fit$y_unresolved)) return(NULL)
  paste0(
    "The range of y could not be told apart from the privacy noise at n = ",
    format_count(n), " and epsilon = ", format(signif(epsilon, 3)),
    ": the fit took [-1, 1] as the range of y, so its predictions stay ",
    "near that range whatever the scale of y.  If the range ",
    "of y is public knowledge, declare it (dpsco_control(y_range = ), ",
    "which costs no budget); otherwise more records or a larger epsilon ",
    "are needed.")
}
