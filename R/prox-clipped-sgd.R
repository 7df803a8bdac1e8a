#' @include registry.R lambda-path.R one-pass.R
NULL

# Noisy clipped proximal SGD (Lowy and Razaviyayn, Algorithm 8) along the
# penalty path: the clip oracle over the blocks of one pass per lambda,
# each record in one block (its own random label), the last iterate as
# output and steps of 1 / (2 beta).
register_method(
  "prox_clipped_sgd", rank = 5,
  label = "one-pass noisy clipped proximal SGD (Lowy and Razaviyayn)",
  reference = "Lowy and Razaviyayn (2023), Algorithm 8",
  path = "lambda", families = c("gaussian", "binomial", "quantile"),
  adjacency = "add/remove", sampling = one_pass_sampling,
  shardable = "its one pass over random blocks is not a sum the workers form",
  control = c(lambda_path_control, "clip"),
  gradient_oracle = "clip", optimizers = "spgd", truncation = "l2",
  disjoint = TRUE, blocks = one_pass_blocks, step_scale = 1 / 2,
  output = "last",
  mechanism = function()
    paste0("Gaussian: clipped block means divided by the public expected ",
           "block size, each record in one random block per pass (its own ",
           "label, drawn independently of the data), one pass per lambda ",
           "(parallel composition: one release per record per lambda)"),
  released = function(nlam, steps, first_release)
    paste0(nlam, " passes of ", steps, " block means",
           if (first_release) "; one full-data clipped gradient sets the lambda grid"),
  fit = engine_path_fit)
