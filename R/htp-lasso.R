#' @include registry.R constrained.R
NULL

# HTP-LASSO (Hu, Ni, Xiao and Wang 2022): every entry of x and y shrunk to
# [-K, K], then private Frank-Wolfe (fw.R) on the exact mean gradient,
# whose coordinates one record moves by at most
# max(1, K) (K + |offset| + r max(1, K)) / n inside the ball of radius r.
register_method(
  "htp_lasso", rank = 2,
  label = "HTP-LASSO (Hu et al. 2022): shrinkage and private Frank-Wolfe",
  reference = "Hu, Ni, Xiao and Wang (2022), HTP-LASSO",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  adjacency = "add/remove", sampling = "every record at every step",
  control = c(radius_path_control, "shrink"),
  truncation = "none", bounded = TRUE, shrink = TRUE,
  shardable = radius_unshardable,
  fit = function(prob, path, settings)
    fit_fw(prob, path, settings$budget, settings$control, settings$steps,
           hard_clamp = TRUE))
