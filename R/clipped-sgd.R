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
  truncation = "l2", row = TRUE, radius_inf = function(family) FALSE,
  fit = function(prob, radius, budget, control, steps)
    fit_one_pass(prob, radius, "clipped_sgd", budget, control, steps))
