# The estimating equations of the inference stage (issue 35, in progress):
# the unpenalised model's Mallows-weighted, residual-bounded score, its
# bread (the expected Jacobian) and its meat (the score's second moment),
# on the design w_i = (1, x_i / B) that is scaled but never clamped.  A
# record's Mallows weight v_i = min(1, R^2 / ||w_i||^2) and the family's
# bounded score psi (|psi| <= fam$inference(...)$bound) bound its score by
# bound * R, its bread term by D_max R^2 and its meat term by bound^2 R^2,
# whatever x and y are: the sensitivities of the releases to come.  With
# R = Inf and c = Inf the root is glm's estimate and the sandwich glm's
# HC0 covariance (tests/testthat/test-inference.R).  Nothing here is
# private yet: the releases, the budget share and the intervals follow.

# The per-record terms at coefficients b: list(v (Mallows weights times
# the cap weights), psi, d (bread weights), bound).  `w` the n x d design,
# `d_cap` the cap on the bread weight (poisson's grows with the mean): a
# record above it has its score and bread weighted by d_cap / d, so the
# bread stays the Jacobian of the weighted score; `offset` per-record
# offsets (0: none), `weights` per-record weights in [0, 1] (NULL: 1).
inference_terms <- function(fam, w, y, b, row_bound, c, d_cap = NULL,
                            offset = 0, weights = NULL) {
  eta <- drop(w %*% b) + (offset %||% 0)
  v <- pmin(1, row_bound^2 / rowSums(w * w))
  v[!is.finite(v)] <- 1
  tm <- fam$inference$terms(eta, y, c)
  d_cap <- d_cap %||% tm$d_cap
  tm$d_cap <- d_cap
  u <- if (is.finite(d_cap)) clamp(d_cap / tm$d, 0, 1, nan = 0) else 1
  # the weights apart from the Mallows weight, as release_curvature()
  # takes them (its row scaling supplies the Mallows weight)
  tm$uw <- u * (weights %||% 1)
  tm$mallows <- v
  tm$v <- v * tm$uw
  tm$psi[tm$v == 0] <- 0
  tm$d[tm$v == 0] <- 0
  tm
}

# The mean score, bread and meat at b (each over the public n).
inference_moments <- function(fam, w, y, b, row_bound, c, d_cap = NULL,
                              n = nrow(w), offset = 0, weights = NULL) {
  tm <- inference_terms(fam, w, y, b, row_bound, c, d_cap, offset, weights)
  list(score = drop(crossprod(w, tm$v * tm$psi)) / n,
       bread = crossprod(w * (tm$v * tm$d), w) / n,
       meat = crossprod(w * (tm$v * tm$psi), w * (tm$v * tm$psi)) / n)
}

# The root of the mean score by Newton's method with the bread as the
# Jacobian (non-private; the private stage takes a few damped steps of
# released scores instead).
inference_root <- function(fam, w, y, b0, row_bound, c, d_cap = NULL,
                           offset = 0, weights = NULL, tol = 1e-12,
                           maxit = 100) {
  b <- b0
  for (it in seq_len(maxit)) {
    mo <- inference_moments(fam, w, y, b, row_bound, c, d_cap,
                            offset = offset, weights = weights)
    # (a singular bread, collinear columns: stop where it is; the result
    # then refuses, inference_result())
    if (rcond(mo$bread) < 1e-12) break
    step <- solve(mo$bread, mo$score)
    b <- b + step
    if (max(abs(step)) <= tol * max(1, max(abs(b)))) break
  }
  b
}

# The sandwich covariance H^-1 J H^-1 / n of the root.
inference_sandwich <- function(mo, n) {
  hi <- solve(mo$bread)
  hi %*% mo$meat %*% hi / n
}

# The bound on the clamped Poisson score |clamp(y - mu, -c, c) - a_c(mu)|:
# with y >= 0 the score lies in [-min(mu, c) - a, c - a], and a_c(mu) in
# [-c, 0] is small (at most 0.21 c for c >= 0.5): the largest of those
# ends over a fine grid of means, with a margin of 1%.  The score is
# clamped to it as well, so the sensitivity holds whatever the grid
# misses, and the clamp binds (breaking Fisher consistency) for no mean
# on the grid.
poisson_score_bound <- function(c) {
  if (!is.finite(c)) return(Inf)
  mu <- 10^seq(-8, 8, length.out = 3201)
  a <- poisson_clamp_moments(mu, c)$a
  1.01 * max(c - a, pmin(mu, c) + a)
}

# E[clamp(Y - mu, -c, c)] and E[clamp(Y - mu, -c, c) (Y - mu)] for Y ~
# Poisson(mu), vectorised over mu, in closed form from the identities
# k p_k = mu p_(k-1) and k (k - 1) p_k = mu^2 p_(k-2) of the Poisson
# probabilities: over the counts a..b inside the clamp the sums of
# (k - mu) p_k and (k - mu)^2 p_k are mu (p_(a-1) - p_b) and
# mu^2 (p_b - p_(a-1) - p_(b-1) + p_(a-2)) + mu P(a - 1 <= Y <= b - 1),
# and beyond the clamp E[(Y - mu) 1{Y >= k}] = mu p_(k-1).  Above a mean
# of 1e6 the normal limit: 0 and mu (2 Phi(c / sqrt(mu)) - 1); an
# infinite mean has an infinite bread weight, which the cap weights out.
poisson_clamp_moments <- function(mu, c) {
  if (!is.finite(c)) return(list(a = rep(0, length(mu)), d = mu))
  a <- d <- numeric(length(mu))
  big <- !is.finite(mu) | mu > 1e6
  a[big] <- 0
  d[big] <- ifelse(is.finite(mu[big]),
                   mu[big] * (2 * stats::pnorm(c / sqrt(mu[big])) - 1), Inf)
  m <- mu[!big]
  hi <- ceiling(m + c)   # the first count clamped at +c
  lo <- floor(m - c)     # the last count clamped at -c
  p <- function(k) stats::dpois(pmax(k, -1), m)
  P <- function(k) stats::ppois(k, m)
  s1 <- m * (p(lo) - p(hi - 1))
  s2 <- m^2 * (p(hi - 1) - p(lo) - p(hi - 2) + p(lo - 1)) +
    m * pmax(P(hi - 2) - P(lo - 1), 0)
  a[!big] <- s1 + c * (stats::ppois(hi - 1, m, lower.tail = FALSE) - P(lo))
  d[!big] <- s2 + c * m * (p(hi - 1) + p(lo))
  list(a = a, d = d)
}

# ---------------------------------------------------------------------------
# The private stage

# The releases of the stage and their fractions of its share (units of
# mu^2, as every share): the design's centres and scales, a histogram of
# the residuals' magnitudes at the start (for the residual clamp c, and
# poisson's cap on the bread weight), the steps (the bread at the start,
# the preconditioner of every step, and one score per step), then at the
# final point the score, the bread and the meat.  The final score sets
# the privacy part of the interval, so it gets the most; bread and meat
# need relative accuracy only (their noise moves the standard error, not
# the centre).  Without an intercept there is no centre to release: its
# fraction goes to the score.
inference_fractions <- c(centre = 0.02, design = 0.02, moment = 0.02,
                         scale = 0.02, steps = 0.22, score = 0.44,
                         bread = 0.18, meat = 0.08)

# The damped steps from the path's start to the final point.
inference_steps <- 3L

# The default share of the budget when `inference = TRUE`.
inference_default_share <- 0.4

# `inference` as dpsco() takes it: FALSE, TRUE (the default share) or a
# share in (0, 0.9].  Returns the share, 0 for none.
check_inference <- function(inference) {
  if (isFALSE(inference) || is.null(inference)) return(0)
  if (isTRUE(inference)) return(inference_default_share)
  if (!is.numeric(inference) || length(inference) != 1L ||
      !is.finite(inference) || inference <= 0 || inference > 0.9)
    arg_error("inference", "must be TRUE, FALSE or the share of the budget ",
              "for inference, a number in (0, 0.9].")
  inference
}

# The stage's releases, planned from public values before the path: the
# multiplier of each (z1 the single release's, 0 when not private) and
# its part of the record, whose sensitivities (which follow the released
# clamp) inference_record() fills in.
inference_plan <- function(fam, share, z1, intercept,
                           steps = inference_steps) {
  fr <- inference_fractions
  unused <- if (!intercept) "centre"
  fr[["score"]] <- fr[["score"]] + sum(fr[unused])
  fr[unused] <- 0
  k <- c(centre = 1, design = 1, moment = 1, scale = 1, steps = steps + 1,
         score = 1, bread = 1, meat = 1)
  z <- vapply(names(fr), function(nm)
    if (fr[[nm]] > 0) part_multiplier(z1, share * fr[[nm]], k[[nm]]) else 0,
    0)
  what <- c(centre = "means of the clamped columns of x",
            design = "histograms of the columns' distances from their centres",
            moment = "mean squares of those distances, clamped",
            scale = paste0("histograms of the rows' norms",
                           if (fam$inference$residual_scale)
                             ", of the residuals' magnitudes",
                           if (!is.null(fam$inference$cap_from))
                             ", of the means", " at the start"),
            steps = sprintf("bread at the start and %d scores", steps),
            score = "score at the final point",
            bread = "bread (Hessian) at the final point",
            meat = "meat (score second moment) at the final point")
  keep <- names(fr)[fr > 0]
  parts <- lapply(keep, function(nm)
    privacy_part(paste0("inference_", nm), z[[nm]], 1, k[[nm]], NA_real_,
                 share * fr[[nm]], mechanism = "Gaussian: inference stage",
                 released = what[[nm]]))
  list(share = share, z = z, steps = steps, parts = parts)
}

# The stage's design w = (1, (x - centre) / scale) with `std`'s centres
# and scales, never clamped: the estimand stays the model's coefficients
# on x.
inference_design <- function(x, std, intercept) {
  x <- as.matrix(x)
  w <- (x - rep(std$center, each = nrow(x))) / rep(std$scale, each = nrow(x))
  if (intercept) w <- cbind(1, w)
  # a row that overflows (x near the largest double) is set to 0: its
  # Mallows weight R^2 / ||w||^2 has made its every term 0 already in the
  # limit, and Inf * 0 would make them NaN
  w[!is.finite(rowSums(w)), ] <- 0
  w
}

# The stage's own standardisation, so that every column of its design has
# a second moment near 1 and the released bread's isotropic noise meets
# every direction alike.  Three releases on the fit's design (x - centre)
# / scale, whose released bounds put most of it within [-1, 1]: the means
# of its columns clamped to [-1, 1] (sensitivity sqrt(p) / n; with an
# intercept only); octave histograms of each column's distance from that
# centre (sensitivity sqrt(p)), for its 0.99 quantile q; and the mean
# squares of those distances over q, clamped to [0, 1] (sensitivity
# sqrt(p) / n).  The scale is q times the root of the last (floored at
# three noise sds): about the column's sd, robust to a heavy tail (the
# 1% beyond q count at q), and right for a column that is mostly 0.
inference_scaling <- function(x, std, intercept, z, n) {
  w0 <- inference_design(x, std, FALSE)
  p <- ncol(w0)
  sens <- sqrt(p) / n
  m <- if (intercept)
         release_vector(colSums(clamp(w0, -1, 1)) / n, z[["centre"]], sens)
       else rep(0, p)
  dev <- abs(w0 - rep(m, each = nrow(w0)))
  q <- pmax(octave_quantiles(lapply(seq_len(p), function(j) dev[, j]), 0.01,
                             z[["design"]], n), 2^-30)
  u2 <- clamp(dev / rep(q, each = nrow(dev)), 0, 1)^2
  m2 <- release_vector(colSums(u2) / n, z[["moment"]], sens)
  s <- q * sqrt(pmax(m2, 3 * z[["moment"]] * sens, 1e-12))
  list(center = std$center + std$scale * m, scale = std$scale * s)
}

# The (1 - tau) quantiles (tau one per vector, or one for all) of the
# vectors of the list `vals`, from one release of their octave histograms
# (release_counts(): one record adds 1 to one count of each, so the L2
# sensitivity is sqrt(length(vals))): hist_quantile()'s bin, then a point
# within it, log-uniform between its edges by the share of the bin's
# kept noisy count (hist_kept()) the quantile leaves above (octave bins
# hold enough records to clear the noise at small n, where finer bins
# would not).
octave_quantiles <- function(vals, tau, z, n) {
  hc <- release_counts(vals, z)
  vapply(seq_along(vals), function(j) {
    counts <- hc$counts[, j]
    tau <- rep_len(tau, length(vals))[j]
    top <- hist_quantile(counts, tau, n, hc$sd)
    b <- round(log2(top)) + 33
    kept <- hist_kept(counts, hc$sd)
    above <- sum(kept[-seq_len(b)])
    frac <- if (kept[b] > 0) clamp((tau * n - above) / kept[b], 0, 1) else 0
    top * 2^-frac
  }, 0)
}

# The share of the rows beyond the row bound: the privacy noise of the
# score grows with R and that of the bread with R^2, while the Mallows
# weights R^2 / ||w_i||^2 of the rows beyond it cost little efficiency
# (with half of a Gaussian design's rows beyond it, the sampling sd
# grows by a few percent, the privacy sd falls by about 1.7 at d = 11).
row_bound_tau <- 0.5

# The share of the residuals beyond the clamp c: the score's privacy noise
# grows with c, its sampling sd falls; at 0.2 (c about 1.3 sd for normal
# errors, Huber's choice for 95% efficiency) the sum of the two is about
# its smallest at n = 20,000 and epsilon 1.
clamp_tau <- 0.2

# The stage's settings at the start, from one release of octave
# histograms (octave_quantiles()): the row bound R at the median of the
# rows' norms ||w_i|| (row_bound_tau); for a family with a residual
# clamp, c at the 0.8 quantile of |r_i| (clamp_tau); for a family with
# cap_from (poisson), the cap on the bread weight at the 0.9 quantile of
# those bounds, so that few records are weighted down by it.
inference_settings <- function(fam, w, eta, y, z, n) {
  spec <- fam$inference
  vals <- list(row = sqrt(rowSums(w * w)))
  tau <- c(row = row_bound_tau)
  if (spec$residual_scale) {
    vals$clamp <- abs(spec$terms(eta, y, Inf)$psi)
    tau[["clamp"]] <- clamp_tau
  }
  if (!is.null(spec$cap_from)) {
    vals$cap <- spec$cap_from(eta)
    tau[["cap"]] <- 0.1
  }
  q <- stats::setNames(octave_quantiles(vals, tau, z, n), names(vals))
  c <- if (spec$residual_scale) q[["clamp"]] else Inf
  d_cap <- spec$terms(0, 0, c)$d_cap
  if (!is.null(spec$cap_from)) d_cap <- min(d_cap, q[["cap"]])
  list(row_bound = q[["row"]], clamp = c, d_cap = d_cap,
       histograms = length(vals))
}

# The stage's releases at b: each Gaussian, over the public n, with the
# record's terms within their bounds (inference_terms()): the score of
# sensitivity bound R / n; the bread, d_cap times release_curvature() of
# the rows at row bound R with weights u d / d_cap in [0, 1] (its row
# scaling is the Mallows weight), sensitivity d_cap R^2 / n; the meat,
# bound^2 times the same with weights (u psi / bound)^2 v, sensitivity
# bound^2 R^2 / n.
inference_release <- function(what, tm, w, z, R, n) {
  norms <- sqrt(rowSums(w * w))
  # (the d x d sums in C, design_gram(): several times faster than
  # crossprod() with R's reference BLAS at d in the hundreds)
  cols <- structure(list(x = w), class = "design_cols")
  switch(what,
    score = list(value = release_vector(
      drop(crossprod(w, tm$v * tm$psi)) / n, z, tm$bound * R / n),
      sd = z * tm$bound * R / n),
    bread = {
      rc <- release_curvature(cols, z, R, n, norms,
                              weights = tm$uw * tm$d / tm$d_cap)
      list(value = tm$d_cap * rc$h, sd = tm$d_cap * rc$sd)
    },
    meat = {
      rc <- release_curvature(cols, z, R, n, norms, weights = clamp(
        (tm$uw * tm$psi / tm$bound)^2 * tm$mallows, 0, 1))
      list(value = tm$bound^2 * rc$h, sd = tm$bound^2 * rc$sd)
    })
}

# A symmetric matrix with its eigenvalues floored at `floor`, and at
# 1e-12 of the largest, so that it can be inverted.
floor_eigen <- function(m, floor) {
  ev <- eigen((m + t(m)) / 2, symmetric = TRUE)
  vals <- pmax(ev$values, floor, 1e-12 * max(ev$values, 0))
  ev$vectors %*% (vals * t(ev$vectors))
}

# The inference stage: damped private Newton steps on the unpenalised
# model's bounded score from the path's coefficients `b0` (on the fit's
# scale `std`), then one release of score, bread and meat at the final
# point.  `x` the user's design, `plan` inference_plan()'s, n the public
# n.  Every value it uses besides the records is released or public.
inference_stage <- function(fam, x, y, std, b0, plan, n, intercept,
                            offset = NULL, weights = NULL) {
  z <- plan$z
  sc <- inference_scaling(x, std, intercept, z, n)
  w <- inference_design(x, sc, intercept)
  d <- ncol(w)
  b <- drop(inference_unmap(sc, intercept, d) %*%
              (inference_map(std, intercept, d) %*% b0))
  off <- offset %||% 0
  set <- inference_settings(fam, w, drop(w %*% b) + off, y, z[["scale"]], n)
  R <- set$row_bound
  terms <- function(b) inference_terms(fam, w, y, b, R, set$clamp,
                                       set$d_cap, off, weights)
  # a step moves no linear predictor of a row within the row bound by
  # more than the family's trust radius
  trust <- function(step) {
    lim <- fam$inference$trust / (R * sqrt(sum(step^2)))
    if (is.finite(lim) && lim < 1) structure(step * lim, capped = TRUE)
    else structure(step, capped = FALSE)
  }
  capped <- FALSE
  step_cov <- matrix(0, d, d)
  if (all(z == 0)) {
    # not private: the steps cost nothing, so Newton runs to the root
    b <- inference_root(fam, w, y, b, R, set$clamp, set$d_cap, off, weights)
    tm <- terms(b)
  } else {
    tm <- terms(b)
    h0 <- inference_release("bread", tm, w, z[["steps"]], R, n)
    pre <- floor_eigen(h0$value, 2 * h0$sd * sqrt(d))
    for (k in seq_len(plan$steps)) {
      g <- inference_release("score", tm, w, z[["steps"]], R, n)
      step <- trust(solve(pre, g$value))
      capped <- attr(step, "capped")
      b <- b + drop(step)
      tm <- terms(b)
    }
    # the covariance of the last step's privacy noise, which the final
    # point carries into the one-step estimate through the bread's noise
    pre_inv <- solve(pre)
    step_cov <- g$sd^2 * pre_inv %*% pre_inv
  }
  # (tm: the terms at the final point b)
  rel <- lapply(c(score = "score", bread = "bread", meat = "meat"),
                function(what) inference_release(what, tm, w, z[[what]], R, n))
  list(b = b, score = rel$score$value, bread = rel$bread$value,
       meat = rel$meat$value, sd = vapply(rel, `[[`, 0, "sd"),
       clamp = set$clamp, row_bound = R, d_cap = tm$d_cap, bound = tm$bound,
       capped = capped, n = n, d = d, std = sc, step_cov = step_cov,
       sens = c(centre = sqrt(d - intercept) / n,
                design = sqrt(d - intercept),
                moment = sqrt(d - intercept) / n,
                scale = sqrt(set$histograms),
                steps = max(tm$bound * R, tm$d_cap * R^2) / n,
                score = tm$bound * R / n, bread = tm$d_cap * R^2 / n,
                meat = tm$bound^2 * R^2 / n))
}

# The refusal rule's multiplier: intervals are refused when the released
# bread's smallest eigenvalue is below this many times the typical
# spectral norm of its noise, 2 sd sqrt(d) (a symmetric Gaussian matrix's).
# The option exists for the validation (bench/inference.R), which
# measures coverage with the rule off and reads it at several levels;
# the rule is post-processing, so no level changes the guarantee.  At 1
# every cell of the validation that returns intervals covers (n = 20,000
# at epsilon 0.5 to 2, normal, t3, heteroscedastic errors and a
# heavy-tailed design), and at n = 2,000 every fit is refused; below 1
# the n = 2,000 intervals at epsilon 1 under-cover (worst coefficients
# 0.88 to 0.91 at level 0), and above it fits at n = 20,000 that cover
# are refused (1% at level 2, epsilon 1; all poisson fits at 0.5).
inference_refusal <- function() getOption("dpsco.inference_refusal", 1)

# The stage's released values turned into what confint(), vcov() and
# summary() show (post-processing only): the one-step estimate from the
# final point, the sandwich H^-1 J H^-1 / n and the privacy covariance
# sd_g^2 H^-2 of the final score's noise, all mapped to the scale of x
# (`std`), or the reason the intervals are refused.
inference_result <- function(st, std, intercept, names, share, fam) {
  d <- st$d
  sym <- (st$bread + t(st$bread)) / 2
  lmin <- min(eigen(sym, symmetric = TRUE, only.values = TRUE)$values)
  noise_norm <- 2 * st$sd[["bread"]] * sqrt(d)
  tmap <- inference_map(std, intercept, d)
  out <- list(family = fam$name, share = share, n = st$n, names = names,
              clamp = st$clamp, row_bound = st$row_bound, d_cap = st$d_cap,
              sd = st$sd, bread = sym, meat = st$meat, score = st$score,
              step_cov = st$step_cov,
              point = st$b, map = tmap, bread_min = lmin,
              noise_norm = noise_norm, refused = NULL)
  level <- inference_refusal()
  reason <- if (noise_norm > 0 && !(lmin > level * noise_norm))
    sprintf(paste("the released bread is too noisy to invert: its smallest",
                  "eigenvalue %s is below %sthe typical spectral norm of its",
                  "noise, %s"), format(signif(lmin, 3)),
            if (level == 1) "" else paste(format(level), "times "),
            format(signif(noise_norm, 3)))
  if (is.null(reason) && (!(lmin > 0) || rcond(sym) < 1e-12))
    reason <- paste("the released bread is singular (collinear columns of",
                    "x, or a column without variation)")
  step <- if (is.null(reason)) drop(solve(sym, st$score))
  if (is.null(reason) && (st$capped ||
      st$row_bound * sqrt(sum(step^2)) > fam$inference$trust))
    reason <- paste("the private Newton steps had not converged (the last",
                    "step was still limited by the trust region)")
  if (!is.null(reason)) {
    out$refused <- reason
    out$estimate <- stats::setNames(drop(tmap %*% st$b), names)
    return(out)
  }
  hi <- solve(sym)
  meat <- floor_eigen(st$meat, 0)
  out$estimate <- stats::setNames(drop(tmap %*% (st$b + step)), names)
  vs <- tmap %*% hi %*% meat %*% hi %*% t(tmap) / st$n
  vp <- tmap %*% inference_privacy_cov(hi, st$sd,
                                       st$step_cov %||% matrix(0, d, d)) %*%
    t(tmap)
  dimnames(vs) <- dimnames(vp) <- list(names, names)
  out$vcov_sampling <- (vs + t(vs)) / 2
  out$vcov_privacy <- (vp + t(vp)) / 2
  out
}

# The privacy covariance of the one-step estimate b + H^-1 g (on the
# stage's scale), to first order: the final score's noise, sd_g^2 H^-2,
# and the noise E of the released bread acting on the final point's own
# noise delta (the last step's, covariance D = step_cov): the estimate
# moves by H^-1 E delta, and for a symmetric Gaussian E of entry sd s,
# Cov(E delta) = s^2 (tr(D) I + D).
inference_privacy_cov <- function(hi, sd, step_cov) {
  d <- nrow(hi)
  sd[["score"]]^2 * hi %*% hi +
    sd[["bread"]]^2 * hi %*% (sum(diag(step_cov)) * diag(d) + step_cov) %*% hi
}

# The inverse of inference_map(): b_j = scale_j beta_j, and the intercept
# plus sum beta_j centre_j.
inference_unmap <- function(std, intercept, d) {
  m <- diag(c(if (intercept) 1, std$scale), d)
  if (intercept) m[1L, -1L] <- std$center
  m
}

# The linear map from the stage's coefficients (on w) to the scale of x:
# beta_j = b_j / scale_j, and the intercept less sum b_j centre_j / scale_j.
inference_map <- function(std, intercept, d) {
  p <- length(std$scale)
  m <- diag(c(if (intercept) 1, 1 / std$scale), d)
  if (intercept) m[1L, -1L] <- -std$center / std$scale
  m
}

# The stage after a penalised path: from the coefficients at its last
# penalty `b0` (released).
lambda_path_inference <- function(a, pr, b0) {
  fam <- pr$family
  st <- inference_stage(fam, a$x, a$y, pr$std, b0, pr$inference, a$n,
                        a$intercept, a$offset, a$weights)
  names <- c(if (a$intercept) "(Intercept)",
             colnames(a$x) %||% paste0("V", seq_len(ncol(a$x))))
  list(stage = st, result = inference_result(st, st$std, a$intercept, names,
                                             pr$inference$share, fam))
}

# The record's inference parts with the sensitivities the stage used.
inference_record <- function(fixed, inf) {
  if (is.null(inf)) return(fixed)
  sens <- inf$stage$sens
  lapply(fixed, function(p) {
    nm <- sub("^inference_", "", p$name)
    if (startsWith(p$name, "inference_")) p$sensitivity <- sens[[nm]]
    p
  })
}
