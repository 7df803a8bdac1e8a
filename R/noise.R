# The secure release (secure = TRUE): the grid rule, the sensitivity with
# the rounding inside it, and access to the exact samplers of
# src/discrete_gaussian.c.

# The grid of a release whose noise sd is `sd`: the power of two
# 2^(floor(log2(sd)) - 24), so sd / grid lies in [2^24, 2^25).  Fine
# enough that rounding to it costs a relative 2^-24 of the noise or less,
# coarse enough that sigma^2 in grid units fits 64-bit integers and the
# released values (below 2^28 noise sds) are exact doubles.
noise_grid <- function(sd) 2^(floor(log2(sd)) - 24)

# A secure release of `dim` coordinates of L2 sensitivity `sensitivity`
# with multiplier z.  Rounding each coordinate to the grid moves it by at
# most grid / 2, so neighbouring rounded values are at most
# sensitivity + grid sqrt(dim) apart; the noise sd is z times that.  In grid
# units the query is integer-valued, and the discrete Gaussian of scale
# sigma on an integer query of L2 sensitivity Delta is
# Delta^2 / (2 sigma^2)-zCDP (Canonne, Kamath and Steinke 2020, Theorem 14:
# Renyi divergence adds over independent coordinates, each at most
# alpha mu^2 / (2 sigma^2) for an integer shift mu): the Renyi curve of the
# continuous Gaussian with multiplier z.
secure_gaussian <- function(z, sensitivity, dim) {
  grid <- noise_grid(z * sensitivity)
  sens <- sensitivity + grid * sqrt(dim)
  list(grid = grid, sd = z * sens, sensitivity = sens)
}

# Whether the operating system's generator answers.
secure_available <- function() {
  !inherits(tryCatch(.Call(C_dpsco_secure_unif, 1), error = identity), "error")
}

# n exact discrete Gaussian draws with sigma^2 = num / den (tests).
dg_sample <- function(n, num, den = 1)
  .Call(C_dpsco_dg_sample, as.double(n), as.double(num), as.double(den))
