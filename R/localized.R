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
  truncation = "l2", row = TRUE, radius_inf = function(family) FALSE,
  fit = function(prob, radius, budget, control, steps)
    fit_one_pass(prob, radius, "localized", budget, control, steps))
