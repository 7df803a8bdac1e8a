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
  truncation = "l2", row = TRUE, radius_inf = function(family) FALSE,
  fit = function(prob, radius, budget, control, steps)
    fit_one_pass(prob, radius, "acsa", budget, control, steps))
