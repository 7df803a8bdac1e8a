#' @include registry.R constrained.R one-pass.R
NULL

# Noisy clipped SGD for a strongly convex loss (Lowy and Razaviyayn,
# Algorithm 6): the loss plus the public ridge control$sgd_ridge, one pass
# over per-record random blocks per radius (one-pass.R).
register_method(
  "clipped_sgd", rank = 10,
  label = "one-pass noisy clipped SGD (Lowy and Razaviyayn)",
  reference = "Lowy and Razaviyayn (2023), Algorithm 6",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  adjacency = "add/remove", sampling = one_pass_sampling,
  control = c(radius_path_control, "clip", "row_bound", "sgd_ridge"),
  truncation = "l2", row = TRUE, shardable = radius_unshardable,
  one_pass = one_pass_variant(
    one_pass_codes[["clipped_sgd"]],
    plan = function(n, d, radius, z, C, beta, mu, steps) {
      D <- 2 * radius      # the diameter of the ball
      rho <- 1 / (2 * z^2) # the pass's zCDP
      L <- 2 * (beta + mu)
      # T balances Stich's 32 (L / 2) D^2 exp(-mu T / (2 L)) against
      # 36 S^2 / (mu T) with S^2 = d (z C T / n)^2 + C^2 T / n: the
      # minimiser of their sum, (2 L / mu) log(8 rho n^2 mu^2 D^2 /
      # (9 d C^2)), within [1, sqrt(n)]: the bound's linear rate is
      # pessimistic, and past sqrt(n) steps the blocks' noise dominated
      # on simulated heavy-tailed data (n = 20000: held-out RMSE 2.40 at
      # T = 100 against 2.44-2.67 at the rule's T of about 1000)
      T <- steps %||% min(ceiling(sqrt(n)), max(1L, as.integer(ceiling(
        (2 * L / mu) * log(max(exp(1), 8 * rho * n^2 * mu^2 * D^2 /
                                 (9 * d * C^2)))))))
      N <- n / T
      sd <- z * C / N
      sch <- stich_schedule(T, L, mu)
      list(engine = list(batch = as.double(N), steps = as.integer(T),
                         noise_sd = sd, step = sch$step, weight = sch$weight),
           settings = list(steps = T, batch_size = N, noise_sd = sd, mu = mu,
                           step_sizes = sch$step))
    },
    reported = "step_sizes", ridge = one_pass_ridge, public = "ridge mu"),
  fit = function(prob, path, settings)
    fit_one_pass(prob, path, "clipped_sgd", settings$budget, settings$control,
                 settings$steps))
