#' @include registry.R constrained.R one-pass.R
NULL

# The localized noisy clipped subgradient method (Lowy and Razaviyayn,
# Algorithm 4): phases of Algorithm 3 in shrinking balls, each record in
# one phase per radius (one-pass.R).
register_method(
  "localized", rank = 11,
  label = "localized noisy clipped subgradient method (Lowy and Razaviyayn)",
  reference = "Lowy and Razaviyayn (2023), Algorithm 4",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  adjacency = "add/remove", sampling = one_pass_sampling,
  control = c(radius_path_control, "clip", "row_bound"),
  truncation = "l2", row = TRUE, shardable = radius_unshardable,
  one_pass = one_pass_variant(
    one_pass_codes[["localized"]],
    plan = function(n, d, radius, z, C, beta, mu, steps) {
      D <- 2 * radius      # the diameter of the ball
      rho <- 1 / (2 * z^2) # the pass's zCDP
      k <- steps %||% default_phases(n)
      # the public expected phase sizes: a record joins phase i w.p. 2^-i
      ni <- n / 2^seq_len(k)
      # Feldman, Koren and Talwar's phased ERM: eta_i = eta 4^-i on
      # n_i = n 2^-i records with the regulariser ||w - w_{i-1}||^2 /
      # (eta_i n_i), i.e. lambda_i = 2 / (eta_i n_i), and their base step
      # eta = (D / L) min(4 / sqrt(n), eps / (7 sqrt(d log(1/delta)))) with
      # the clip level as L and eps / sqrt(log(1/delta)) read as
      # sqrt(2 rho) = 1 / z for zCDP
      eta <- (D / C) * min(4 / sqrt(n), 1 / (7 * z * sqrt(d)))
      lam <- 2 / (eta * 4^-seq_len(k) * ni)
      # the local ball: the minimiser of the clipped regularised loss is
      # within C / lambda_i of w_{i-1} (the clipped mean has norm <= C)
      local <- C / lam
      # T_i: Lowy and Razaviyayn's balance of the optimisation error
      # G^2 / (lambda T) against the noise's d sd_i^2 / lambda,
      # T_i = n_i^2 rho / d (the public n_i), at most 100 steps per phase
      # (run time: each step passes over n_i records; without noise the
      # error fell as 1 / T_1: 0.22, 0.09, 0.04 at 20, 50, 100 steps on a
      # simulated least-squares problem)
      Ti <- as.integer(pmin(100, pmax(1, ceiling(ni^2 * rho / d))))
      sd <- z * sqrt(Ti) * C / ni
      list(engine = list(batch = as.double(ni), steps = as.integer(Ti),
                         noise_sd = sd, step = lam, weight = local),
           settings = list(steps = k, batch_size = ni, phase_steps = Ti,
                           noise_sd = sd, lambda_phase = lam,
                           local_radius = local, eta = eta))
    },
    reported = c("phase_steps", "lambda_phase", "local_radius", "eta"),
    max_steps = function(n) floor(log2(n)),
    too_many = function(n)
      paste0(" phases of \"localized\" do not fit into n = ", n, ": phase ",
             "i takes n / 2^i records in expectation, so at most ",
             default_phases(n), " phases."),
    mechanism = paste(" (each record in the steps of its phase only, noise",
                      "multiplier z sqrt(T_i) per step)")),
  fit = function(prob, path, settings)
    fit_one_pass(prob, path, "localized", settings$budget, settings$control,
                 settings$steps))
