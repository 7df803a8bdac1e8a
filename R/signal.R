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
# Returns the ratio of the largest penalised coordinate to its noise sd,
# the signal estimate after the noise-only maximum is taken off, whether
# it is detected, and the factor by which n (or epsilon) would have to
# grow for the estimate to reach the level (absent when none stands out).
signal_check <- function(g0, noise_sd, penalised, level = 5) {
  if (!(noise_sd > 0) || !length(penalised)) return(NULL)
  ratio <- max(abs(g0[penalised])) / noise_sd
  noise_max <- sqrt(2 * log(2 * length(penalised)))
  excess <- ratio - noise_max
  out <- list(ratio = ratio, level = level, noise_max = noise_max,
              detected = excess >= level)
  # (absent, not NA, when nothing stands out: every field of a fit is a
  # number whatever the data)
  if (excess > 0) out$factor <- (level + noise_max) / excess
  out
}

# The sentence print() and summary() add when no signal was detected.
signal_text <- function(sig, n, epsilon) {
  if (is.null(sig) || isTRUE(sig$detected)) return(NULL)
  head <- paste0(
    "No predictor stands out clearly from the privacy noise: the largest ",
    "coordinate of the released gradient at the intercept-only model is ",
    format(signif(sig$ratio, 2)), " noise sds, less than ", sig$level,
    " sds beyond the ", format(signif(sig$noise_max, 2)), " that noise ",
    "alone gives, so the path's non-zero coefficients may be noise.")
  more <- if (is.null(sig$factor))
    paste0(" The data show no signal at n = ", format_count(n),
           " and epsilon = ", format(signif(epsilon, 3)), "; the fit is ",
           "the intercept-only model in all but noise.")
  else paste0(" A signal of this size would stand out with about ",
              format_count(ceiling(n * sig$factor)), " records at this ",
              "epsilon, or epsilon about ",
              format(signif(epsilon * sig$factor, 2)), " at this n.")
  paste0(head, more)
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
