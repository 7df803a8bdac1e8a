# Every privacy noise of the package is drawn here: release() adds Gaussian
# noise to a released value (a vector or matrix, kept in shape), from the
# operating system's generator as an exact discrete Gaussian when the fit
# asked for secure noise (secure = TRUE of dpsco(); noise_state, R/noise.R)
# and from R's generator otherwise; release_symmetric() releases a
# symmetric matrix through it.  tools/check-structure.R fails on a random
# draw anywhere else (but the listed exceptions: the split's coins, the
# fit's stream, simulations of released noise), so `grep "release("`
# lists every release.  What a release costs is the caller's privacy part
# (settings_part(), privacy_part()), from the same z and sensitivity.
#
# `value` is released with L2 sensitivity `sensitivity` and multiplier z:
# noise of sd z * sensitivity on each entry.  `scale` (per entry) says
# the value was released as value * scale and is shown divided by it
# again (the noise of entry i then has sd z * sensitivity / scale_i).
# `sd` is that noise sd, computed by the caller where its own formula
# must be kept to the last bit (the fits are reproducible exactly across
# versions).  R's generator draws one normal per entry even when z is 0
# (the stream of a noise-free fit is that of a noisy one), unless
# `skip_zero`; secure noise needs z > 0 and leaves value as it is
# otherwise (so does a sensitivity of 0).  `secure = FALSE`: a mechanism with no secure version (its
# method does not take secure = TRUE).
release <- function(value, z, sensitivity, scale = 1,
                    sd = z * sensitivity / scale, skip_zero = FALSE,
                    secure = noise_secure()) {
  if (secure) {
    if (!(z * sensitivity > 0)) return(value)
    v <- as.double(value) * scale
    g <- secure_gaussian(z, sensitivity, length(v))
    out <- .Call(C_dpsco_secure_noise, v, g$sd, g$grid) / scale
    dim(out) <- dim(value)
    return(out)
  }
  if (skip_zero && !(z > 0)) return(value)
  value + sd * stats::rnorm(length(value))
}

# A symmetric matrix h whose records' terms have Frobenius norm at most
# `sensitivity`: the noise on its upper triangle (whose L2 norm is at most
# the Frobenius norm), mirrored.  `square`: R's generator draws a whole
# d x d matrix and mirrors its upper triangle (the curvature's order of
# draws), rather than the triangle alone.  Nothing is drawn when
# z * sensitivity is 0.
release_symmetric <- function(h, z, sensitivity, sd = z * sensitivity,
                              square = FALSE) {
  if (!(sd > 0)) return(h)
  if (square && !noise_secure()) {
    e <- release(matrix(0, nrow(h), ncol(h)), z, sensitivity, sd = sd)
    e[lower.tri(e)] <- t(e)[lower.tri(e)]
    return(h + e)
  }
  up <- upper.tri(h, diag = TRUE)
  h[up] <- release(h[up], z, sensitivity, sd = sd)
  h[lower.tri(h)] <- t(h)[lower.tri(h)]
  h
}

# The exponential mechanism's choice as report-noisy-max with Gumbel
# noise: the index of the largest score - log(-log(u)), u uniform (from
# the operating system's generator with secure noise).  Scores are the
# caller's eps * utility / sensitivity, prior included.
release_choice <- function(score) {
  u <- if (noise_secure()) .Call(C_dpsco_secure_unif, length(score))
       else stats::runif(length(score))
  which.max(score - log(-log(u)))
}
