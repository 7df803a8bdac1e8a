#' @include registry.R constrained.R
NULL

# Private Frank-Wolfe over the l1 ball (Talwar, Thakurta and Zhang 2015):
# each step picks a vertex -+r e_j by the exponential mechanism on the
# coordinate-clamped mean gradient of all records.  One record moves each
# coordinate of the clamped mean by at most the clamp over n, so the
# utility -<v, g> of a vertex of radius r moves by r clamp / n.
register_method(
  "fw", rank = 1,
  label = "private Frank-Wolfe over the l1 ball",
  reference = "Talwar, Thakurta and Zhang (2015)",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  adjacency = "add/remove", sampling = "every record at every step",
  control = c(radius_path_control, "clip"),
  truncation = "coordinate", shardable = radius_unshardable,
  fit = function(prob, path, settings)
    fit_fw(prob, path, settings$budget, settings$control, settings$steps))

# Frank-Wolfe over the l1 ball, the loop of "fw", "htp_lasso" and
# "htdp_fw": the gradient estimate of the oracle (no Gaussian noise) and
# one exponential mechanism per step.  `chunked`: one pass over random
# chunks per radius with Holland's estimator (HTDP-FW); otherwise the
# coordinate-clamped mean of all records, clamped at HTP-LASSO's bound
# (`hard`) or at the smaller of it and the clipping level.
fit_fw <- function(prob, radius, budget, control, steps, chunked = FALSE,
                   hard_clamp = FALSE) {
  n <- prob$n
  d <- prob$d
  nr <- length(radius)
  fixed <- budget$fixed
  epsilon <- budget$epsilon
  delta <- budget$delta
  clip <- prob$clip
  tuning <- prob$tuning
  threads <- prob$threads
  # T of the rates of Hu et al.: (n eps)^(2/5) for the full-data methods,
  # (n eps)^(1/3) for the one-pass HTDP-FW (at most n chunks)
  steps <- steps %||% as.integer(ceiling((n * epsilon)^(if (chunked) 1 / 3
                                                          else 2 / 5)))
  if (chunked) steps <- min(steps, n)
  m <- if (chunked) n / steps else n
  # `coord`: how far one record's contribution can move any coordinate of
  # the oracle's sum, so the estimate's add/remove sensitivity is coord / m
  if (chunked) {
    ctl <- control
    if (tuning == "private") {
      # Holland's per-coordinate bound 2 sqrt(2) s / 3 equal to the private
      # clipping level C, as a coordinate clamp at C would have
      ctl$s <- ctl$s %||% (3 * clip / (2 * sqrt(2)))
      ctl$nu <- ctl$nu %||% 10
    }
    oracle <- oracle_setup("holland", ctl, m, d, epsilon, delta)
    coord <- oracle$bound
  } else {
    # |resid| <= |y| + |offset| + r max(1, K) inside the ball of radius r,
    # and each coordinate of (1, x) is at most max(1, K): HTP-LASSO's bound,
    # which also caps the clamp of "fw" on bounded (privately tuned) data
    # (a logistic residual is at most 1, a quantile one max(tau, 1 - tau))
    hard <- max(1, prob$x_bound) * prob$family$residual_bound(
      prob$y_bound + abs(prob$offset) + max(radius) * max(1, prob$x_bound))
    coord <- if (hard_clamp) hard else min(clip, hard)
    # one Kamath group is a coordinate clamp at rho / 2
    oracle <- list(oracle = oracle_codes[["kamath"]], m = m, clip = Inf,
                   rho = 2 * coord, k = 1L, s = 1, nu = 1)
  }
  sens <- coord / m
  selections <- if (chunked) nr else as.double(nr) * steps
  # pure epsilon-DP only when nothing else (e.g. a private standardisation)
  # has spent part of the budget
  pure <- chunked && tuning == "public" && !length(fixed)
  if (pure) {
    eps0 <- epsilon / nr
    part <- dp_part("optimizer", epsilon, 0, nr, sens, 1, mechanism = sprintf(
      paste("exponential mechanism over the %d vertices, epsilon0 = %s per",
            "pass (pure epsilon-DP: parallel composition over the %d chunks,",
            "basic over the radii)"), 2L * d, format(signif(eps0, 4)), steps),
      released = sprintf("%d vertices per radius", steps))
  } else {
    z <- calibrate_rdp(fixed, selections, epsilon, delta)
    eps0 <- 2 / z
    part <- privacy_part(
      "optimizer", z, 1, selections, sens, 1, kind = "rdp",
      mechanism = sprintf(paste(
        "exponential mechanism over the %d vertices, epsilon0 = %s per",
        "selection (epsilon0^2/8-zCDP)%s"), 2L * d, format(signif(eps0, 4)),
        if (chunked) ", one pass in chunks per radius" else ""),
      released = sprintf("%d vertices per radius", steps))
  }
  beta <- fw_engine(prob, radius, oracle, steps, eps0, sens, chunked, threads)
  list(beta = beta, parts = list(part),
       settings = list(steps = steps, eps0 = eps0, sensitivity = sens,
                       batch_size = m, coordinate_bound = coord,
                       s = if (chunked) oracle$s, nu = if (chunked) oracle$nu,
                       clip = if (!chunked && !hard_clamp) clip),
       public = character(), pure_epsilon = if (pure) epsilon)
}

# The Frank-Wolfe path in C: `oracle` as from oracle_setup(), eps0 the
# exponential mechanism's epsilon per selection (0: exact selection, not
# private), `sens` the bound on one record's move of any coordinate of the
# oracle's estimate.  Returns the d x length(radius) matrix of outputs.
fw_engine <- function(prob, radius, oracle, steps, eps0, sens, chunked = FALSE,
                      threads = 1L) {
  settings <- c(oracle, prob$family$settings, list(
    intercept = as.integer(prob$intercept), noise_sd = 0, rate = 1,
    threads = as.integer(threads), offset = prob$offset,
    steps = as.integer(steps), eps0 = eps0, score_sensitivity = sens,
    chunked = as.integer(chunked)))
  .Call(C_dpsco_fw, prob$x, as.double(prob$y), settings, as.double(radius),
        rep(0, prob$d))
}

