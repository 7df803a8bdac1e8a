#' @include registry.R family.R lambda-path.R oracles.R
NULL

# DP-SPGD (Xie et al., Algorithm 1): per-record gradients clipped to L2
# norm C and averaged over the public expected batch size m.  One record
# added or removed moves the sum by at most C, the mean by C / m.
register_method(
  "clip", rank = 1,
  label = "DP-SPGD, gradient clipping",
  reference = "Xie et al., Statistica Sinica, Algorithm 1",
  path = "lambda", families = family_names(),
  adjacency = "add/remove",
  sampling = "Poisson batches at the public rate batch_size / n",
  secure = TRUE, shardable = TRUE,
  control = c(lambda_path_control, "clip"),
  optimizers = c("newton", "spgd"), truncation = "l2",
  oracle = new_oracle(
    "clip",
    setup = function(out, control, m, d, eps, log_delta) {
      out$sensitivity <- out$clip / m
      out$bound <- out$clip
      out
    },
    # the paper prints sd C sqrt(log(1/delta)) / (m eps), sensitivity C / m
    paper = function(base, k) base, params = "clip"),
  fit = engine_path_fit)
