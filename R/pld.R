# Privacy loss distributions (PLD) of Gaussian steps with and without
# Poisson subsampling, discretised pessimistically and composed by FFT.
#
# A pair of output distributions (P, Q) has privacy loss L = log(dP/dQ)
# under P, and delta(eps) = E_P[(1 - exp(eps - L))_+] (plus the P-mass
# where Q is 0).  Composition adds independent losses.  A step of
# multiplier z and rate q (sensitivity 1) has the two dominating pairs
#   remove: P = (1 - q) N(0, z^2) + q N(1, z^2), Q = N(0, z^2),
#   add:    P = N(0, z^2), Q = that mixture,
# and the composition's delta is the larger of the two directions'.
#
# Discretisation.  On the grid eps_k = k h, the P-mass of an outcome with
# loss l in (eps_{k-1}, eps_k] is split between eps_{k-1} and eps_k so
# that both its P-mass and its Q-mass are kept.  Splitting an outcome
# into two is undone by merging them, a post-processing, so the split
# pair dominates the original: every delta it gives is an upper bound
# (the "connect the dots" discretisation).  Beyond the top point b an
# outcome is split between b and a point Q never reaches (loss +Inf);
# below the bottom point a all P-mass moves to a (the Q-mass left over
# goes to an outcome P never reaches).  Both are splits too.
#
# Composition.  The discrete losses are summed by FFT on a window of the
# grid chosen by Chernoff bounds computed from the discrete distributions
# themselves; mass outside the window wraps around into it (only adding
# mass), and the Chernoff bound on the mass beyond the window's top is
# added to delta.  So the reported delta is an upper bound up to floating
# point in the bin masses and the FFT (errors around 1e-12).

# The arithmetic is in C (src/pld.c: discretisation, window, FFT and the
# reading of epsilon or delta), because a calibration evaluates it a dozen
# times.  Each pair's grid covers the losses whose P-mass beyond is above
# ~1e-25.  Beyond a million grid points or an FFT of 2^21 (noise
# multipliers near 0) the distribution is not computed and the Renyi
# accountant answers alone.

# Deltas below pld_min_delta are left to the Renyi accountant: the bin
# masses come from differences of normal probabilities, exact to about
# 1e-16 each, and their sum over up to 1e6 bins could move delta by some
# 1e-11.  So are deltas above pld_max_delta, a regime of next to no noise
# where the distribution's window grows without use.
pld_min_delta <- 1e-10
pld_max_delta <- 0.1
pld_delta_ok <- function(delta) delta >= pld_min_delta && delta <= pld_max_delta

# The distribution of the active components of cm, on the grid h (or, where
# that would need too many grid points, on a grid 4, 16 or 64 times
# coarser, whose points are among h's, so its bounds are only looser):
# epsilon at delta = target (what = 0) or delta at epsilon = target
# (what = 1), the larger of the two directions'; NA where no grid fits.
# Unsampled Gaussian components compose to one Gaussian.
pld_compute <- function(cm, h, tau, what, target) {
  act <- acc_active(cm)
  z <- cm$z[act]
  q <- cm$q[act]
  st <- cm$steps[act]
  gauss <- q >= 1
  zs <- z[!gauss]
  qs <- q[!gauss]
  ss <- st[!gauss]
  if (any(gauss)) {
    zs <- c(1 / sqrt(sum(st[gauss] / z[gauss]^2)), zs)
    qs <- c(1, qs)
    ss <- c(1, ss)
  }
  if (!length(zs)) return(NA_real_)
  .Call(C_dpsco_pld, as.double(zs), as.double(qs), as.double(ss), h, tau,
        as.integer(what), target)
}

# Inf (epsilon) or 1 (delta) where the distribution is not computed.
pld_epsilon <- function(cm, delta, h = 3e-4) {
  if (!pld_delta_ok(delta)) return(Inf)
  acc_memo("pld", paste(acc_cm_key(cm), acc_key(delta, h)), function() {
    e <- pld_compute(cm, h, delta * 1e-6, 0L, delta)
    if (is.na(e)) Inf else e
  })
}

pld_delta <- function(cm, epsilon, h = 3e-4) {
  d <- pld_compute(cm, h, 1e-15, 1L, epsilon)
  if (is.na(d) || d < pld_min_delta) 1 else d
}
