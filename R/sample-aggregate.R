# Sample-and-aggregate for strongly convex losses: Wang, Xiao, Devadas and
# Xu (2020), Section 4 (their Algorithm 1, the framework of Nissim,
# Raskhodnikova and Smith 2007).  The records are split uniformly at random
# into k disjoint blocks; each block is fitted without privacy (ridge
# regression, or ridge-penalised logistic regression, constrained to the
# l2 ball of the radius, so every block's output lies in a set of diameter
# Lambda = 2 r); the k fits are aggregated by the "centre of attention"
# with noise scaled to its smooth sensitivity (sa_aggregate()).

#' @name dpsco
#' @rdname dpsco
#' @section Sample and aggregate (`method = "sample_aggregate"`):
#' Section 4 of Wang, Xiao, Devadas and Xu (2020) (their Algorithm 1, from
#' Nissim, Raskhodnikova and Smith 2007).  The records are split uniformly
#' at random into `k` disjoint blocks (`dpsco_control(blocks = )`); each
#' block is fitted exactly and without privacy, minimising the mean loss
#' plus `block_ridge / 2` times the squared l2 norm of all coefficients
#' over the l2 ball of the radius.  With `m = k` block estimates
#' `s_1, ..., s_m`, `s = sqrt(m)`, `gamma = eps / (5 sqrt(2 log(2/delta)))`
#' and `beta = eps / (4 (d + log(2/delta)))`, the release is
#' `s_i* + S / gamma * u`, `u ~ N(0, I_d)`, where `i*` minimises `r_i(t0)`,
#' the distance from `s_i` to its `t0`-th nearest other estimate,
#' `t0 = (m + s) / 2 + 1`, and `S = 2 max_k rho(t0 + (k + 1) s) e^(-beta k)`,
#' `rho(t)` the mean of the `ceiling(s / beta)` largest `r_i(t)` (all `m`
#' when there are fewer), with `r_i(t) = Lambda = 2 r`, the diameter of the
#' ball, for `t > m - 1`.  Non-integer orders `t` are rounded up.  The
#' release is then projected onto the ball (post-processing).
#'
#' Privacy: `(epsilon, delta)`-DP per radius (Wang et al.'s Theorem 1,
#' Nissim et al.'s Theorem 4.2) for neighbours that differ in one record
#' (replace-one: one record changes one block estimate, within the
#' framework's allowance of `s = sqrt(m)` changed estimates), applied to
#' the records resized to the public `n` (see "Theorems stated for
#' replace-one neighbours" in [dpsco-methods]), under the
#' condition `epsilon > 2 d / sqrt(m)` (an error otherwise; Wang et al.'s
#' other condition, `m = omega(log^2 n)`, is asymptotic and not checked).
#' The radii split what the private settings leave by basic composition.
#' Default `k`: the larger of the smallest `k` meeting the condition and
#' `floor(n / (2 d))`; `block_ridge` defaults to `1e-3`.  Wang et al. do
#' not run this method in their experiments (sample-and-aggregate is known
#' to need very many blocks); on real data the condition alone asks for more
#' than `4 d^2 / epsilon^2` blocks.
NULL

# The smallest number of blocks with epsilon > 2 d / sqrt(k).
sa_min_blocks <- function(d, eps) floor((2 * d / eps)^2) + 1

# Exact fit of one block: argmin over ||w|| <= r of
#   mean loss(offset + z_i'w) + lambda / 2 ||w||^2.
# On the boundary the KKT conditions are those of the same objective with
# a larger ridge mu > lambda at which ||w(mu)|| = r; mu is found by a root
# search in log(mu) (||w(mu)|| decreases in mu).
sa_block_fit <- function(z, y, offset, family, lambda, r) {
  fit_mu <- sa_solvers[[family_object(family)$name]](z, y, offset)
  w <- fit_mu(lambda)
  if (sqrt(sum(w^2)) <= r) return(w)
  # ||w(mu)|| <= ||gradient of the mean loss at 0|| / mu
  g0 <- fit_mu(NULL)
  hi <- max(sqrt(sum(g0^2)) / r, lambda) * 2
  f <- function(u) sqrt(sum(fit_mu(exp(u))^2)) - r
  u <- stats::uniroot(f, c(log(lambda), log(hi)), tol = 1e-13,
                      maxiter = 200)$root
  w <- fit_mu(exp(u))
  w * (r / sqrt(sum(w^2)))
}

# Ridge regression through one eigendecomposition: w(mu) =
# (Z'Z / n + mu I)^-1 Z'(y - offset) / n.  mu = NULL gives the gradient of
# the mean loss at 0.
sa_ridge_solver <- function(z, y, offset) {
  nb <- nrow(z)
  cz <- drop(crossprod(z, y - offset)) / nb
  e <- eigen(crossprod(z) / nb, symmetric = TRUE)
  ev <- pmax(e$values, 0)
  cv <- drop(crossprod(e$vectors, cz))
  function(mu) {
    if (is.null(mu)) return(-cz)
    drop(e$vectors %*% (cv / (ev + mu)))
  }
}

# Ridge-penalised logistic regression by Newton's method with step
# halving, warm-started from the previous solution.
sa_logit_solver <- function(z, y, offset) {
  nb <- nrow(z)
  d <- ncol(z)
  w_prev <- numeric(d)
  obj <- function(w, mu) {
    eta <- offset + drop(z %*% w)
    mean(pmax(eta, 0) + log1p(exp(-abs(eta))) - y * eta) + mu / 2 * sum(w * w)
  }
  function(mu) {
    if (is.null(mu))
      return(drop(crossprod(z, stats::plogis(offset) - y)) / nb)
    w <- w_prev
    f <- obj(w, mu)
    for (it in seq_len(200)) {
      pr <- stats::plogis(offset + drop(z %*% w))
      g <- drop(crossprod(z, pr - y)) / nb + mu * w
      h <- crossprod(z * (pr * (1 - pr)), z) / nb
      diag(h) <- diag(h) + mu
      step <- solve(h, g)
      a <- 1
      repeat {
        wn <- w - a * step
        fn <- obj(wn, mu)
        if (fn <= f + 1e-15 * abs(f) || a < 1e-10) break
        a <- a / 2
      }
      w <- wn
      f <- fn
      if (max(abs(a * step)) < 1e-13 * max(1, max(abs(w)))) break
    }
    w_prev <<- w
    w
  }
}

# The exact block solvers of the families sample and aggregate fits (a
# closed form or Newton's method; the check loss has neither): the
# method's families are this table's names.
sa_solvers <- list(gaussian = sa_ridge_solver, binomial = sa_logit_solver)

# The aggregation of Algorithm 1 on the m x d matrix of block estimates S:
# returns the centre s_i*, the smooth bound S(S), gamma and beta, and the
# orders used.  Lambda bounds every distance (the diameter of the ball).
sa_aggregate <- function(est, eps, delta, Lambda) {
  m <- nrow(est)
  d <- ncol(est)
  s <- sqrt(m)
  lg <- log(2 / delta)
  gamma <- eps / (5 * sqrt(2 * lg))
  beta <- eps / (4 * (d + lg))
  t0 <- ceiling((m + s) / 2 + 1)
  # the orders t0 + (k + 1) s (rounded up) until they pass m - 1, where
  # r_i(t) = Lambda for every i and e^{-beta k} only falls
  ks <- 0:max(0, ceiling((m - 1 - t0) / s))
  ts <- ceiling(t0 + (ks + 1) * s)
  need <- sort(unique(c(t0, ts[ts <= m - 1])))
  need <- need[need <= m - 1]
  # r_i(t) for the needed t: the t-th smallest distance to the others
  r <- matrix(Lambda, m, length(need))
  if (length(need)) {
    sq <- rowSums(est * est)
    for (i in seq_len(m)) {
      dist <- sqrt(pmax(sq + sq[i] - 2 * drop(est %*% est[i, ]), 0))[-i]
      dist <- pmin(dist, Lambda)
      r[i, ] <- sort(dist, partial = need)[need]
    }
  }
  r_at <- function(t) if (t > m - 1) rep(Lambda, m) else r[, match(t, need)]
  istar <- which.min(r_at(t0))
  top <- min(ceiling(s / beta), m)
  rho <- function(t) mean(sort(r_at(t), decreasing = TRUE)[seq_len(top)])
  terms <- vapply(seq_along(ks), function(j) rho(ts[j]) * exp(-beta * ks[j]), 0)
  list(centre = est[istar, ], index = istar, smooth = 2 * max(terms),
       gamma = gamma, beta = beta, t0 = t0, top = top, s = s)
}

fit_sample_aggregate <- function(prob, radius, budget, control, steps) {
  if (!is.null(steps))
    arg_error("iterations", "does not apply to \"sample_aggregate\": every ",
              "block is fitted exactly.")
  fam <- prob$family
  n <- prob$n
  d <- prob$d
  nr <- length(radius)
  rem <- budget$remaining
  eps <- rem$epsilon / nr
  delta <- rem$delta / nr
  kmin <- sa_min_blocks(d, eps)
  k <- control$blocks %||% max(kmin, floor(n / (2 * d)), 2)
  if (k < 2) arg_error("blocks", "must be at least 2.")
  if (k > n)
    arg_error("blocks", "= ", format(k), " exceeds the ", n, " records",
              if (is.null(control$blocks))
                paste0(" (the aggregation needs epsilon > 2 d / sqrt(k), ",
                       "i.e. k >= ", format(kmin), " at epsilon ",
                       format(signif(eps, 4)), " per radius and d = ", d,
                       ")"), ".")
  if (!(eps > 2 * d / sqrt(k)))
    arg_error("blocks", "= ", k, " fails the condition epsilon > 2 d / ",
              "sqrt(k) of the aggregation (Wang et al. Theorem 1): epsilon ",
              "per radius is ", format(signif(eps, 4)), ", 2 d / sqrt(k) = ",
              format(signif(2 * d / sqrt(k), 4)), "; k must be at least ",
              format(kmin), ".")
  lambda <- control$block_ridge %||% 1e-3
  z <- if (prob$intercept) cbind(1, prob$x) else prob$x
  y <- as.double(prob$y)
  # a uniformly random partition into k blocks of sizes floor/ceil(n / k)
  block <- sample(rep_len(seq_len(k), n))
  rows <- split(seq_len(n), block)
  beta <- matrix(0, d, nr)
  for (l in seq_len(nr)) {
    r <- radius[l]
    est <- t(vapply(rows, function(ix)
      sa_block_fit(z[ix, , drop = FALSE], y[ix], prob$offset, fam,
                   lambda, r), numeric(d)))
    agg <- sa_aggregate(est, eps, delta, 2 * r)
    out <- release(agg$centre, z = 1, sensitivity = agg$smooth,
                   scale = agg$gamma, secure = FALSE, part = "optimizer")
    nrm <- sqrt(sum(out^2))
    beta[, l] <- if (nrm > r) out * (r / nrm) else out
  }
  if (!is.null(colnames(prob$x)))
    rownames(beta) <- c(if (prob$intercept) "(Intercept)", colnames(prob$x))
  f4 <- function(v) format(signif(v, 4))
  part <- dp_part(
    "optimizer", rem$epsilon, rem$delta, nr, NA_real_, 1,
    mechanism = sprintf(paste(
      "sample and aggregate (Nissim, Raskhodnikova and Smith 2007; Wang et",
      "al. Algorithm 1): %d disjoint random blocks, each a ridge-penalised",
      "(lambda = %s) fit in the l2 ball, centre of attention plus Gaussian",
      "noise S / gamma, gamma = %s, beta = %s, per radius at (epsilon, delta)",
      "= (%s, %s) under epsilon > 2 d / sqrt(k) = %s; basic composition over",
      "%d radii"), k, f4(lambda), f4(agg$gamma), f4(agg$beta), f4(eps),
      f4(delta), f4(2 * d / sqrt(k)), nr),
    released = sprintf("%d coefficients at each of %d radii", d, nr))
  # the smooth bounds and the chosen block stay inside: only the noisy
  # centre is released
  list(beta = beta, parts = list(part),
       settings = list(blocks = k, block_ridge = lambda, epsilon = eps,
                       delta = delta,
                       gamma = agg$gamma, beta = agg$beta, t0 = agg$t0),
       public = c("number of blocks", "block ridge strength"),
       pure_epsilon = NULL)
}

#' @include registry.R constrained.R
NULL

register_method(
  "sample_aggregate", rank = 7,
  label = "sample-and-aggregate (Wang et al. 2020, Algorithm 1)",
  reference = "Wang, Xiao, Devadas and Xu (2020), Algorithm 1",
  path = "radius", families = names(sa_solvers),
  adjacency = "replace-one",
  sampling = "records split into disjoint random blocks, one fit each",
  control = c(radius_path_control, "blocks", "block_ridge"),
  truncation = "none", shardable = radius_unshardable,
  fit = function(prob, path, settings)
    fit_sample_aggregate(prob, path, settings$budget, settings$control,
                         settings$steps))
