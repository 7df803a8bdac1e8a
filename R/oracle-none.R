#' @include registry.R family.R lambda-path.R oracles.R baseline.R
NULL

# The non-private baseline: the same proximal gradient loop without
# truncation or noise.
register_method(
  "none", rank = 4,
  label = "SPGD, not private",
  reference = "proximal stochastic gradient descent (not private)",
  path = "lambda", families = family_names(),
  adjacency = "add/remove",
  sampling = "Poisson batches at rate batch_size / n",
  shardable = "it is not private and takes its lambda grid from the data",
  control = lambda_path_control,
  optimizers = c("newton", "spgd"), truncation = "none",
  # solved to convergence when iterations is not given (baseline.R)
  converges = TRUE,
  oracle = new_oracle(
    "none",
    setup = function(out, control, m, d, eps, log_delta) {
      out$sensitivity <- 0
      out$bound <- Inf
      out
    },
    paper = function(base, k) 0, private = FALSE),
  fit = none_path_fit)
