#' @include registry.R constrained.R one-pass.R
NULL

# Noisy clipped accelerated SGD, AC-SA (Lowy and Razaviyayn, Algorithm 2),
# one pass over per-record random blocks per radius (one-pass.R).
register_method(
  "acsa", rank = 9,
  label = "accelerated one-pass clipped method, AC-SA (Lowy and Razaviyayn)",
  reference = "Lowy and Razaviyayn (2023), Algorithm 2",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  adjacency = "add/remove", sampling = one_pass_sampling,
  control = c(radius_path_control, "clip", "row_bound"),
  truncation = "l2", row = TRUE, shardable = radius_unshardable,
  one_pass = one_pass_variant(
    one_pass_codes[["acsa"]],
    plan = function(n, d, radius, z, C, beta, mu, steps) {
      D <- 2 * radius      # the diameter of the ball
      rho <- 1 / (2 * z^2) # the pass's zCDP
      # T balances Lowy and Razaviyayn's bound beta D^2 / T^2 against the
      # noise term D sqrt(d) C sqrt(T) / (n sqrt(rho)) (the variance of the
      # block mean grows as T^2 / n^2 and the bound takes it over T steps):
      # T = (beta D n sqrt(rho) / (C sqrt(d)))^(2/5), within [1, n]
      T <- steps %||% min(n, max(1L, as.integer(ceiling(
        (beta * D * n * sqrt(rho) / (C * sqrt(d)))^(2 / 5)))))
      # the public expected block size: each record in each block w.p. 1 / T
      N <- n / T
      sd <- z * C / N
      # Ghadimi and Lan's gamma_t = 4 eta / (t (t + 1)) with
      # eta = max(2 beta, sqrt(S^2 T (T + 1) (T + 2) / (3 V))), the minimiser
      # of their bound 4 eta V / (T (T + 1)) + 4 S^2 (T + 2) / (3 eta):
      # S^2 = d sd^2 + C^2 / N bounds the estimate's variance (noise plus
      # the sampling of N clipped gradients) and V = D^2 / 2 the Bregman
      # distance to the solution
      S2 <- d * sd^2 + C^2 / N
      eta <- max(2 * beta, sqrt(S2 * T * (T + 1) * (T + 2) / (3 * D^2 / 2)))
      list(engine = list(batch = as.double(N), steps = as.integer(T),
                         noise_sd = sd, step = eta),
           settings = list(steps = T, batch_size = N, noise_sd = sd,
                           eta = eta))
    },
    reported = "eta"),
  fit = function(prob, path, settings)
    fit_one_pass(prob, path, "acsa", settings$budget, settings$control,
                 settings$steps))
