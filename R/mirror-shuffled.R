#' @include registry.R constrained.R
NULL

# Shuffled truncated one-pass mirror descent (Su, Zhao and Wang,
# Algorithm 4; mirror.R): each record, once per radius, gives its truncated
# gradient plus its own Generalized Gaussian noise (a local randomizer),
# and shuffling amplifies each pass.
register_method(
  "mirror_shuffled", rank = 6,
  label = "shuffled truncated DP mirror descent",
  reference = "Su, Zhao and Wang, Algorithm 4",
  path = "radius", families = c("gaussian", "binomial", "quantile"),
  adjacency = "replace-one",
  sampling = "one shuffled pass per radius, each record once",
  control = c(radius_path_control, "clip", "mirror_lambda", "mirror_gamma",
              "row_bound", "shrink"),
  truncation = "l2", row = TRUE, bounded = TRUE, lp = TRUE,
  shardable = radius_unshardable,
  fit = function(prob, path, settings)
    fit_mirror(prob, path, prob$lp, settings$budget,
               mirror_control(prob, settings$control), shuffled = TRUE,
               iterations = settings$steps))
