# Privacy accountant: Renyi DP of the Poisson-subsampled Gaussian mechanism,
# its conversion to (epsilon, delta), the exact analytic Gaussian mechanism for
# unsampled steps, composition of heterogeneous steps and calibration of the
# noise multiplier.  Everything is computed from the mathematics below and
# in R/accountant-rdp.R (the Renyi DP of one step, the analytic Gaussian
# mechanism and the conversions); no approximation other than floating
# point and a series summed to machine precision.
#
# Conventions.  A step releases  f(D) + N(0, (z * s)^2 I)  where s is the L2
# sensitivity under add/remove adjacency and z the noise multiplier; with
# Poisson sampling each record enters the batch with probability q.  Scaling
# by s, the worst-case pair of output distributions is
#   mu0 = N(0, z^2)  and  mu = (1 - q) mu0 + q N(1, z^2)
# (Mironov, Talwar and Zhang 2019), and the Renyi divergence of order a is
#   RDP(a) = log(A_a) / (a - 1),   A_a = E_{x ~ mu0}[(mu(x) / mu0(x))^a].

# ---------------------------------------------------------------------------
# Composition of heterogeneous components

# `components`: a list, each element list(noise_multiplier, sample_rate, steps)
# (named, or unnamed in that order); a component with sample_rate 0, infinite
# noise or 0 steps releases nothing.  Returns the normalised form (acc_cm).
acc_components <- function(components) {
  if (!is.list(components) || length(components) == 0L)
    arg_error("components", "must be a non-empty list of components.")
  get <- function(cmp, name, pos) {
    v <- if (!is.null(names(cmp)) && name %in% names(cmp)) cmp[[name]]
         else if (length(cmp) >= pos) cmp[[pos]] else NULL
    if (!is.numeric(v) || length(v) != 1L || is.na(v))
      arg_error("components", "needs a single number `", name, "` in every ",
                "component.")
    as.double(v)
  }
  z <- q <- steps <- numeric(length(components))
  for (k in seq_along(components)) {
    cmp <- components[[k]]
    if (is.numeric(cmp)) cmp <- as.list(cmp)
    if (!is.list(cmp))
      arg_error("components", "must contain lists of noise_multiplier, ",
                "sample_rate and steps.")
    z[k] <- get(cmp, "noise_multiplier", 1L)
    q[k] <- get(cmp, "sample_rate", 2L)
    steps[k] <- get(cmp, "steps", 3L)
  }
  if (any(!(z > 0)))
    arg_error("components", "must have noise multipliers in (0, Inf].")
  if (any(!is.finite(q)) || any(q < 0 | q > 1))
    arg_error("components", "must have sample rates in [0, 1].")
  if (any(!is.finite(steps)) || any(steps < 0) || any(steps != round(steps)))
    arg_error("components", "must have whole, non-negative step counts.")
  acc_cm(z, q, steps)
}

# the normalised form: parallel vectors of multipliers, rates and step counts
acc_cm <- function(z, q, steps)
  structure(list(z = as.double(z), q = as.double(q), steps = as.double(steps)),
            class = "dpsco_components")

acc_all_unsampled <- function(cm) {
  act <- acc_active(cm)
  all(cm$q[act] == 1)
}

acc_mu <- function(cm) {
  act <- acc_active(cm)
  sqrt(sum(cm$steps[act] / cm$z[act]^2))
}


acc_rdp_total <- function(cm, orders)
  acc_memo("rdp", acc_key(cm$z, cm$q, cm$steps, orders),
           function() acc_rdp_sum(cm, orders))

acc_rdp_sum <- function(cm, orders) {
  act <- which(acc_active(cm))
  out <- numeric(length(orders))
  for (k in act)
    out <- out + cm$steps[k] * rdp_subsampled_gaussian(cm$q[k], cm$z[k], orders)
  out
}

# The series of an order a has about 2a terms, so orders are capped to keep
# a call fast and small; 1e4 certifies epsilon down to about
# -log(delta) / 1e4 already.
max_order <- 1e4

check_orders <- function(orders) {
  if (!is.numeric(orders) || length(orders) < 1L || anyNA(orders) ||
      any(!is.finite(orders)) || any(orders <= 1) || any(orders > max_order))
    arg_error("orders", "must be numbers greater than 1 and at most ",
              format(max_order), ".")
  as.double(orders)
}

# epsilon of the composition at `delta`: exact Gaussian composition when no
# component is subsampled; otherwise the privacy loss distribution
# (accountant "pld", R/pld.R) or the summed RDP curves converted ("rdp").
# Both are upper bounds, so "pld" reports the smaller of the two.
account_epsilon <- function(components, delta, orders = dp_orders(),
                            accountant = "pld") {
  cm <- if (inherits(components, "dpsco_components")) components
        else acc_components(components)
  delta <- acc_check_delta(delta)
  orders <- check_orders(orders)
  if (acc_all_unsampled(cm)) return(gaussian_epsilon(acc_mu(cm), delta))
  rdp <- rdp_to_epsilon(acc_rdp_total(cm, orders), orders, delta)
  if (accountant == "rdp") return(rdp)
  min(pld_epsilon(cm, delta), rdp)
}

# delta of the composition at `epsilon`
account_delta <- function(components, epsilon, orders = dp_orders(),
                          accountant = "pld") {
  cm <- if (inherits(components, "dpsco_components")) components
        else acc_components(components)
  epsilon <- check_number(epsilon, "epsilon", 0, Inf, lower_open = FALSE)
  orders <- check_orders(orders)
  if (acc_all_unsampled(cm)) return(gaussian_delta(acc_mu(cm), epsilon))
  rdp <- rdp_to_delta(acc_rdp_total(cm, orders), orders, epsilon)
  if (accountant == "rdp") return(rdp)
  min(pld_delta(cm, epsilon), rdp)
}

check_accountant <- function(accountant) match_choice(accountant, "accountant",
                                                      c("pld", "rdp"))

# ---------------------------------------------------------------------------
# Calibration

# A starting point for the bracket: by the central limit theorem, `steps`
# Poisson-subsampled Gaussian steps act roughly like one Gaussian mechanism
# with mu = q sqrt(steps) / z (Dong, Roth and Su 2022), so take the z whose
# mu meets the target exactly.  Only a guess: the bracket and the accountant
# decide.
clt_guess <- function(q, steps, epsilon, delta) {
  if (q >= 1) return(sqrt(steps) / gaussian_mu(epsilon, delta))
  mu <- gaussian_mu(epsilon, delta)
  if (!is.finite(mu) || mu <= 0) return(1)
  min(max(q * sqrt(steps) / mu, 2^-50), 2^50)
}

# The mu of a Gaussian mechanism that is exactly (epsilon, delta)-DP.
gaussian_mu <- function(epsilon, delta) {
  r <- tryCatch(stats::uniroot(function(mu) gaussian_epsilon(mu, delta) - epsilon,
                               c(1e-3, 10), extendInt = "upX", tol = 1e-6),
                error = function(e) NULL)
  if (is.null(r)) NA_real_ else r$root
}

# Bracket the smallest z with eps_at(z) <= epsilon from the guess z (epsilon
# is non-increasing in z), then close the bracket to a relative rel_tol.
# Returns the bracket: eps_at(hi) <= epsilon < eps_at(lo).
calibration_search <- function(eps_at, z, epsilon, rel_tol) {
  z_max <- 2^60
  if (eps_at(z) > epsilon) {
    repeat {
      lo <- z
      z <- 1.5 * z
      if (z > z_max)
        arg_error("epsilon", "= ", format(epsilon), " cannot be met: noise ",
                  "multipliers up to 2^60 do not reach it.")
      if (eps_at(z) <= epsilon) break
    }
    hi <- z
  } else {
    repeat {
      hi <- z
      z <- z / 1.5
      if (z < 2^-60) return(list(lo = NA_real_, hi = hi))  # next to no noise
      if (eps_at(z) > epsilon) break
    }
    lo <- z
  }
  # Illinois-type secant steps in log z on the bracket: each probe sits a
  # little beyond the secant estimate of the root, on the side whose end is
  # farther, so an accurate estimate closes the bracket in two probes.  The
  # bracket only ever shrinks, so the answer keeps the guarantee of the
  # bisection it replaces: eps(hi) <= epsilon < eps(lo), hi / lo - 1 <= rel_tol.
  f_lo <- eps_at(lo) - epsilon
  f_hi <- eps_at(hi) - epsilon
  last <- 0L
  while (hi / lo - 1 > rel_tol) {
    l_lo <- log(lo)
    l_hi <- log(hi)
    est <- exp(l_lo + (l_hi - l_lo) * f_lo / (f_lo - f_hi))
    probe <- if (hi / est > est / lo) est * (1 + rel_tol / 2.5)
             else est * (1 - rel_tol / 2.5)
    # keep the probe strictly inside the bracket (at worst a bisection)
    if (!(probe > lo * (1 + rel_tol / 10) && probe < hi / (1 + rel_tol / 10)))
      probe <- sqrt(lo * hi)
    f <- eps_at(probe) - epsilon
    if (f <= 0) {
      hi <- probe
      f_hi <- f
      if (last == 1L) f_lo <- f_lo / 2  # Illinois: the same end moved twice
      last <- 1L
    } else {
      lo <- probe
      f_lo <- f
      if (last == -1L) f_hi <- f_hi / 2
      last <- -1L
    }
  }
  list(lo = lo, hi = hi)
}

# Smallest noise multiplier z of a component (sample_rate, steps) such that,
# composed with the `fixed` components, the accounted epsilon at `delta` does
# not exceed `epsilon`.  Epsilon is non-increasing in z: bracket by doubling
# or halving from z = 1, then bisect (geometrically) until the bracket is
# within a relative 1e-6, and return its upper end, which meets the target.
calibrate_components <- function(fixed = list(), sample_rate, steps, epsilon,
                                 delta, orders = dp_orders(), rel_tol = 1e-6,
                                 accountant = "pld") {
  epsilon <- check_number(epsilon, "epsilon", 0, Inf)
  delta <- acc_check_delta(delta)
  sample_rate <- check_number(sample_rate, "sample_rate", 0, 1)
  steps <- acc_check_steps(steps)
  orders <- check_orders(orders)
  # (the distribution certifies deltas in [1e-10, 0.1] only, R/pld.R)
  if (!pld_delta_ok(delta)) accountant <- "rdp"
  fx <- if (length(fixed)) acc_components(fixed)
        else acc_cm(numeric(0), numeric(0), numeric(0))
  # the search is deterministic in its inputs: a repeat is a lookup
  acc_memo("calibrate", paste(acc_cm_key(fx), acc_key(sample_rate, steps,
                                                      epsilon, delta, orders,
                                                      rel_tol), accountant),
           function() calibrate_search(fx, sample_rate, steps, epsilon, delta,
                                       orders, rel_tol, accountant))
}

calibrate_search <- function(fx, sample_rate, steps, epsilon, delta, orders,
                             rel_tol, accountant) {
  total <- function(z)
    acc_cm(c(fx$z, z), c(fx$q, sample_rate), c(fx$steps, steps))
  # the fixed part is computed once; eps_at(z) equals
  # account_epsilon(total(z), delta, orders) (same operations, same order)
  analytic <- sample_rate == 1 && acc_all_unsampled(fx)
  if (analytic) {
    mu2_fixed <- acc_mu(fx)^2
    eps_at <- function(z) gaussian_epsilon(sqrt(mu2_fixed + steps / z^2), delta)
    floor_eps <- gaussian_epsilon(sqrt(mu2_fixed), delta)
  } else {
    rdp_fixed <- acc_rdp_total(fx, orders)
    rdp_at <- function(z, k) rdp_fixed[k] +
      steps * rdp_subsampled_gaussian(sample_rate, z, orders[k])
    # (memoised: the bracket's ends are evaluated again when it closes)
    rdp_all <- memo_z(function(z) rdp_at(z, seq_along(orders)))
    eps_at <- function(z) rdp_to_epsilon(rdp_all(z), orders, delta)
    # z -> Inf: the calibrated component contributes nothing, but a finite z
    # still goes through the RDP conversion (no zero-RDP shortcut)
    floor_eps <- max(0, min(rdp_epsilon_by_order(rdp_fixed, orders, delta)))
    # the privacy loss distribution has no such floor
    if (accountant == "pld")
      floor_eps <- if (any(acc_active(fx)))
        account_epsilon(fx, delta, orders, "pld") else 0
  }
  if (floor_eps >= epsilon)
    arg_error("epsilon", "= ", format(epsilon), " cannot be met at delta = ",
              format(delta), ": even infinite noise on the calibrated ",
              "component leaves epsilon ", format(signif(floor_eps, 6)),
              if (!analytic && accountant == "rdp")
                " with these Renyi orders (larger orders lower this limit)",
              ".")
  z <- clt_guess(sample_rate, steps, epsilon, delta)
  if (analytic) {
    hi <- calibration_search(eps_at, z, epsilon, rel_tol)$hi
  } else if (accountant == "pld") {
    # start from the Renyi multiplier to 1%, an upper bound a few percent
    # above the answer (a bad start would probe multipliers near 0, whose
    # distributions are wide and slow).  It is found with the orders near
    # the best one at the guess, whose epsilon is never below the full
    # grid's: a tenth of the work, and still a start at or above the full
    # grid's multiplier.
    near <- rdp_near(rdp_all(z), orders, delta)
    near_floor <- min(rdp_epsilon_by_order(rdp_fixed[near], orders[near], delta))
    eps_near <- if (near_floor < epsilon)
      memo_z(function(z) rdp_to_epsilon(rdp_at(z, near), orders[near], delta))
    else eps_at
    z_rdp <- tryCatch(calibration_search(eps_near, z, epsilon, 1e-2)$hi,
                      dpsco_arg_error = function(e) z)
    hi <- calibrate_pld(total, z_rdp, epsilon, delta, eps_at)
  } else {
    # Search with the orders near the best one at the starting guess (a
    # tenth of the work per evaluation).  Their epsilon is never below the
    # full grid's, so the result meets the target; it is also the smallest
    # multiplier on the full grid when the full grid still fails at the
    # bracket's lower end.  Otherwise (or if those orders cannot reach the
    # target at all) search again with every order.
    near <- rdp_near(rdp_all(z), orders, delta)
    near_floor <- min(rdp_epsilon_by_order(rdp_fixed[near], orders[near], delta))
    br <- if (near_floor < epsilon) calibration_search(
      function(z) rdp_to_epsilon(rdp_at(z, near), orders[near], delta),
      z, epsilon, rel_tol)
    hi <- if (is.null(br)) z else br$hi
    if (is.null(br) || (!is.na(br$lo) && !(eps_at(br$lo) > epsilon)))
      hi <- calibration_search(eps_at, hi, epsilon, rel_tol)$hi
  }
  # (the loop is a safeguard).  The reported epsilon is the smaller of the
  # distribution's and the Renyi one, so the distribution's alone meeting
  # the target settles it (and was computed by the search).
  meets <- function(z) {
    if (!analytic && accountant == "pld" &&
        pld_epsilon(total(z), delta) <= epsilon) return(TRUE)
    account_epsilon(total(z), delta, orders, accountant) <= epsilon
  }
  for (i in 0:20) {
    if (meets(hi)) return(hi)
    if (analytic || accountant == "rdp") break
    hi <- hi * (1 + 1e-4)
  }
  stop("calibration failed to meet epsilon = ", epsilon, call. = FALSE)
}

# The privacy loss distribution's calibration: a search on the coarse grid
# h = 1e-3, whose epsilon is (but for tail masses of order 1e-25) never
# below a finer nested grid's, so its answer `hi` also meets the target on
# the reporting grid 3e-4; then secant steps in log-log scale on that grid (the first along the coarse curve's
# slope), each probe aimed a relative 2e-4 above the estimated root and
# kept only where it meets the target: at most four finer evaluations.
calibrate_pld <- function(total, z, epsilon, delta, rdp_at) {
  # where the distribution is not computed (Inf: a multiplier near 0), the
  # Renyi epsilon stands in
  at <- function(h) function(z) {
    e <- pld_epsilon(total(z), delta, h)
    if (is.finite(e)) e else rdp_at(z)
  }
  coarse <- at(1e-3)
  fine <- at(3e-4)
  hi <- calibration_search(coarse, z, epsilon, 1e-3)$hi
  e_hi <- fine(hi)
  slope <- log(coarse(hi * 0.99) / coarse(hi)) / -log(0.99)
  z0 <- hi
  e0 <- e_hi
  for (i in 1:4) {
    if (!(e0 > 0) || !is.finite(slope) || !(slope > 0)) break
    probe <- z0 * (e0 / epsilon)^(1 / slope) * (1 + 2e-4)
    if (!(probe < hi * (1 - 1e-4))) break
    e <- fine(probe)
    if (e <= epsilon) hi <- probe
    if (abs(log(probe / z0)) > 0 && e > 0)
      slope <- log(e0 / e) / log(probe / z0)
    z0 <- probe
    e0 <- e
  }
  hi
}

# the 17 orders around the one that gives the smallest epsilon for rdp
rdp_near <- function(rdp, orders, delta) {
  best <- which.min(rdp_epsilon_by_order(rdp, orders, delta))
  max(1L, best - 8L):min(length(orders), best + 8L)
}

# f(z) memoised on the exact z, for one search
memo_z <- function(f) {
  seen <- new.env(parent = emptyenv())
  function(z) {
    k <- sprintf("%.17g", z)
    v <- seen[[k]]
    if (is.null(v)) {
      v <- f(z)
      assign(k, v, envir = seen)
    }
    v
  }
}

# ---------------------------------------------------------------------------
# Exported interface

acc_check_steps <- function(steps) {
  check_number(steps, "steps", 1, 2^53, lower_open = FALSE)
  if (steps != round(steps))
    arg_error("steps", "must be a whole number; got ", steps, ".")
  as.double(steps)
}

acc_check_delta <- function(delta) {
  check_number(delta, "delta", 0, 1)
  if (delta >= 1) arg_error("delta", "must lie in (0, 1); got ", format(delta), ".")
  as.double(delta)
}

#' Privacy accountant for noisy stochastic gradient steps
#'
#' `dp_epsilon()` returns the epsilon at which `steps` Gaussian-noised steps
#' with Poisson sampling are `(epsilon, delta)`-differentially private;
#' `dp_delta()` the delta at a given epsilon.
#'
#' Each step releases a statistic of L2 sensitivity `s` (under add/remove
#' adjacency) plus `N(0, (noise_multiplier * s)^2)` noise per coordinate,
#' computed on a batch that contains each record independently with
#' probability `sample_rate`.
#'
#' With `sample_rate < 1` and `accountant = "pld"` (the default) the
#' privacy loss distribution of a step is computed for both neighbouring
#' directions (a record added, a record removed), discretised on a grid of
#' losses with spacing `h = 3e-4` and composed over the steps by FFT
#' (Koskela, Jalko and Honkela 2020; Gopi, Lee and Wutschitz 2021).  The
#' discretisation is pessimistic: each loss's probability is split between
#' the two neighbouring grid points so that the split distributions are a
#' refinement of the true ones, and therefore less private ("connect the
#' dots", Doroshenko et al. 2022); the composition's window is chosen by a
#' Chernoff bound, which is added to delta.  The result is an upper bound
#' on epsilon (up to floating-point rounding, about 1e-12 in delta) that
#' is typically within a relative `1e-4` of the exact value and 8-25%
#' below the Renyi bound; the smaller of the two bounds is reported.  It takes
#' 0.001-0.1 s (results are kept for repeated calls with the same
#' arguments).  For `delta` outside `[1e-10, 0.1]`, and where a noise
#' multiplier near 0 would need more than a million grid points, the Renyi
#' accountant answers alone (below `1e-10` the floating-point error of the
#' bin probabilities could matter).
#'
#' With `accountant = "rdp"` the Renyi differential privacy (RDP) of the
#' sampled Gaussian mechanism is computed exactly at each order in `orders`
#' (Mironov, Talwar and Zhang 2019: the finite binomial expansion for
#' integer orders, the two-series expansion summed to machine precision for
#' fractional ones), multiplied by `steps`, and converted to
#' `(epsilon, delta)` with the improved conversion of Balle, Barthe,
#' Gaboardi, Hsu and Sato (2020),
#' `epsilon = min_a RDP(a) + log((a - 1) / a) - (log(delta) + log(a)) / (a - 1)`
#' (and its inverse for `dp_delta()`).
#'
#' With `sample_rate = 1` there is no subsampling and the exact analytic
#' Gaussian mechanism of Balle and Wang (2018) is used instead: `steps`
#' steps are one Gaussian mechanism with `mu = sqrt(steps) / noise_multiplier`,
#' `delta(epsilon) = pnorm(mu/2 - epsilon/mu) - exp(epsilon) pnorm(-mu/2 - epsilon/mu)`,
#' solved for epsilon by root finding.  `orders` is then not used.
#'
#' @param noise_multiplier noise standard deviation divided by the L2
#'   sensitivity of each step, in `(0, Inf]`.
#' @param sample_rate Poisson sampling probability of each record per step,
#'   in `(0, 1]`.
#' @param steps number of steps, a whole number `>= 1`.
#' @param delta target delta, in `(0, 1)`.
#' @param epsilon target epsilon, positive.
#' @param orders Renyi orders (all `> 1` and at most `1e4`) to optimise over;
#'   see [dp_orders()].
#' @param accountant `"pld"` (default): the privacy loss distribution;
#'   `"rdp"`: Renyi DP.  Without subsampling both give the exact analytic
#'   Gaussian answer.
#' @return `dp_epsilon()`: the epsilon (a number `>= 0`); `dp_delta()`: the
#'   delta (in `[0, 1]`).
#' @references
#' Mironov, I., Talwar, K. and Zhang, L. (2019). Renyi differential privacy
#' of the sampled Gaussian mechanism. arXiv:1908.10530.
#'
#' Balle, B., Barthe, G., Gaboardi, M., Hsu, J. and Sato, T. (2020).
#' Hypothesis testing interpretations and Renyi differential privacy.
#' *AISTATS 2020*, PMLR 108, 2496--2506.
#'
#' Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian mechanism for
#' differential privacy: analytical calibration and optimal denoising.
#' *ICML 2018*, PMLR 80, 394--403.
#'
#' Koskela, A., Jalko, J. and Honkela, A. (2020). Computing tight
#' differential privacy guarantees using FFT. *AISTATS 2020*, PMLR 108,
#' 2560--2569.
#'
#' Gopi, S., Lee, Y. T. and Wutschitz, L. (2021). Numerical composition of
#' differential privacy. *NeurIPS 2021*.
#'
#' Doroshenko, V., Ghazi, B., Kamath, P., Kumar, R. and Manurangsi, P.
#' (2022). Connect the dots: tighter discrete approximations of privacy
#' loss distributions. *PoPETs* 2022(4), 552--570.
#' @seealso [dp_noise_multiplier()] for the inverse problem.
#' @examples
#' dp_epsilon(noise_multiplier = 1.5, sample_rate = 0.04, steps = 2250,
#'            delta = 1e-5)
#' dp_delta(noise_multiplier = 1.5, sample_rate = 0.04, steps = 2250,
#'          epsilon = 7.5)
#' # no subsampling: exact Gaussian mechanism
#' dp_epsilon(noise_multiplier = 5, sample_rate = 1, steps = 10, delta = 1e-5)
#' @export
dp_epsilon <- function(noise_multiplier, sample_rate, steps, delta,
                       orders = dp_orders(), accountant = c("pld", "rdp")) {
  accountant <- check_accountant(accountant)
  z <- check_number(noise_multiplier, "noise_multiplier", 0, Inf,
                    allow_inf = TRUE)
  q <- check_number(sample_rate, "sample_rate", 0, 1)
  steps <- acc_check_steps(steps)
  delta <- acc_check_delta(delta)
  orders <- check_orders(orders)
  account_epsilon(acc_cm(z, q, steps), delta, orders, accountant)
}

#' @rdname dp_epsilon
#' @export
dp_delta <- function(noise_multiplier, sample_rate, steps, epsilon,
                     orders = dp_orders(), accountant = c("pld", "rdp")) {
  accountant <- check_accountant(accountant)
  z <- check_number(noise_multiplier, "noise_multiplier", 0, Inf,
                    allow_inf = TRUE)
  q <- check_number(sample_rate, "sample_rate", 0, 1)
  steps <- acc_check_steps(steps)
  epsilon <- check_number(epsilon, "epsilon", 0, Inf)
  orders <- check_orders(orders)
  account_delta(acc_cm(z, q, steps), epsilon, orders, accountant)
}

#' Calibrate the noise multiplier to a privacy budget
#'
#' The smallest noise multiplier (noise standard deviation divided by the L2
#' sensitivity of a step) at which `steps` Poisson-sampled Gaussian steps
#' are `(epsilon, delta)`-differentially private according to
#' [dp_epsilon()].
#'
#' Accounted epsilon decreases with the noise multiplier.  The search starts
#' at 1, doubles or halves until the accounted epsilon straddles the target,
#' then bisects until the bracket is narrower than a relative `1e-6`, and
#' returns the bracket's upper end, so that
#' `dp_epsilon(result, ...) <= epsilon` always holds while a multiplier
#' smaller by more than a relative `1e-6` does not meet the target.
#'
#' With subsampling and the privacy loss distribution (`accountant =
#' "pld"`, the default) the search runs on a coarse grid of losses
#' (`h = 1e-3`), then takes up to four secant steps down on the reporting
#' grid `3e-4` (a coarser grid whose points are among the finer one's does
#' not report a smaller epsilon).  The result is within about a relative
#' `1e-3` of the smallest multiplier that meets the target.
#'
#' With `accountant = "rdp"` and `sample_rate < 1` the Renyi accountant cannot certify arbitrarily
#' small epsilon with a finite grid of orders: even infinite noise leaves
#' `min_a log((a - 1)/a) - (log(delta) + log(a)) / (a - 1)` (about 0.10 at
#' `delta = 1e-5` with the default orders); smaller targets raise an error
#' suggesting larger orders.  With `sample_rate = 1` the exact analytic
#' Gaussian mechanism is used (see [dp_epsilon()]).
#'
#' @inheritParams dp_epsilon
#' @return The noise multiplier, a positive number.
#' @references
#' Mironov, I., Talwar, K. and Zhang, L. (2019). Renyi differential privacy
#' of the sampled Gaussian mechanism. arXiv:1908.10530.
#'
#' Balle, B., Barthe, G., Gaboardi, M., Hsu, J. and Sato, T. (2020).
#' Hypothesis testing interpretations and Renyi differential privacy.
#' *AISTATS 2020*, PMLR 108, 2496--2506.
#'
#' Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian mechanism for
#' differential privacy: analytical calibration and optimal denoising.
#' *ICML 2018*, PMLR 80, 394--403.
#' @seealso [dp_epsilon()]
#' @examples
#' z <- dp_noise_multiplier(epsilon = 1, delta = 1e-5, sample_rate = 0.01,
#'                          steps = 1000)
#' z
#' dp_epsilon(z, sample_rate = 0.01, steps = 1000, delta = 1e-5)
#' @export
dp_noise_multiplier <- function(epsilon, delta, sample_rate, steps,
                                orders = dp_orders(),
                                accountant = c("pld", "rdp")) {
  accountant <- check_accountant(accountant)
  epsilon <- check_number(epsilon, "epsilon", 0, Inf)
  delta <- acc_check_delta(delta)
  q <- check_number(sample_rate, "sample_rate", 0, 1)
  steps <- acc_check_steps(steps)
  orders <- check_orders(orders)
  calibrate_components(list(), q, steps, epsilon, delta, orders,
                       accountant = accountant)
}
