#' @include registry.R family.R lambda-path.R oracles.R
NULL

# DP-SPGD(K) (Xie et al., Algorithms 2-3): every coordinate clamped to
# [-rho/2, rho/2], the median of k group means.  One record moves one group
# mean by at most rho sqrt(d) / (m / k) in L2, the median by that times
# kamath_median_factor(k); the mean of the coordinates over m, so the
# sensitivity is rho k sqrt(d) factor / (2 m) with the factor 1/2 of even k
# (and rho / 2 per coordinate).
register_method(
  "kamath", rank = 3,
  label = "DP-SPGD(K), Kamath estimator",
  reference = "Xie et al., Statistica Sinica, Algorithms 2-3",
  path = "lambda", families = family_names(),
  adjacency = "add/remove",
  sampling = "Poisson batches at the public rate batch_size / n; random group labels",
  secure = TRUE, shardable = TRUE,
  control = c(lambda_path_control, "clip", "rho", "kmom", "zeta"),
  optimizers = c("newton", "spgd"), truncation = "l2",
  oracle = new_oracle(
    "kamath",
    setup = function(out, control, m, d, eps, log_delta) {
      out$rho <- control$rho %||% (eps * m / sqrt(d * log_delta))^(1 / control$kmom)
      out$k <- kamath_groups(control$zeta, d, m)
      out$sensitivity <- out$rho * out$k * sqrt(d) *
        kamath_median_factor(out$k) / (2 * m)
      out$bound <- out$rho / 2
      out
    },
    equal_noise = function(control, clip, d, m) {
      if (is.null(control$rho)) {
        k <- kamath_groups(control$zeta, d, m)
        control$rho <- 2 * clip / (k * sqrt(d) * kamath_median_factor(k))
      }
      control
    },
    # the printed sd is twice the sensitivity times sqrt(log(1/delta)) / eps
    # for the odd-k sensitivity; an even k halves the sensitivity, so the
    # multiplier doubles to keep the printed noise
    paper = function(base, k) 2 * base / kamath_median_factor(k),
    params = c("rho", "k")),
  fit = engine_path_fit)
