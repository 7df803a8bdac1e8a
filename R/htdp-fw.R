#' @include registry.R constrained.R
NULL

# HTDP-FW (Hu, Ni, Xiao and Wang 2022): one pass per radius over disjoint
# random chunks; step t uses the coordinate-wise Holland (Catoni-Giulini)
# mean of chunk t and one exponential mechanism (fw.R), so by parallel
# composition each pass is one selection per record.
register_method(
  "htdp_fw", rank = 3,
  label = "HTDP-FW (Hu et al. 2022): one-pass Frank-Wolfe, Holland estimator",
  reference = "Hu, Ni, Xiao and Wang (2022), HTDP-FW",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  adjacency = "add/remove",
  sampling = "one pass per radius over random chunks (each record in one)",
  control = c(radius_path_control, "clip", "s", "nu", "zeta", "moment_bound"),
  truncation = "coordinate", shardable = radius_unshardable,
  fit = function(prob, path, settings)
    fit_fw(prob, path, settings$budget, settings$control, settings$steps,
           chunked = TRUE))
