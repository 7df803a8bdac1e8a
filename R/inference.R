# The inference stage: private estimates, standard errors and intervals
# for the coefficients of the unpenalised model on x as glm() defines
# them, the root of the mean likelihood score sum_i w_i (y_i - mu_i) / n
# (gaussian, binomial and poisson, canonical links), whatever the true
# mean of y is.  Real data never follow the model, so the estimand is the
# minimiser of the deviance over the population and the sampling
# variance is the sandwich (glm's HC0); no row weights and no residual
# clamp that would move the estimand with the data's misfit.
#
# A record's score is unbounded, so the releases clip it, in the place
# where the clip costs least: its norm in the metric of the score's own
# sampling spread (the released meat J, which makes that spread 1 in
# every direction).  There a clip C sets the privacy noise against the
# sampling spread at C / (sqrt(n) mu) in every direction alike, and the
# clip's bias falls as C grows, so C rises with the public n:
# final_clip() = max(sqrt(n) mu, inference_clip_min).  At large n the
# privacy noise is then as large as the sampling spread (intervals about
# 1.5 times glm's), and the clip's bias stays small against the standard
# error where glm's own sandwich is reliable (bench/inference_real.R: the
# population protocol on real data).
#
# The path (R/inference-parts.R has the pieces): the design's scaling
# (three releases); three whitenings by the bread at the path's
# coefficients, each in the metric of the last (a collinear pair of
# columns is resolved by the second or third); histograms for the clip
# levels; five damped Newton steps (three for gaussian) from the path's
# start on scores clipped at a multiple of their sampling sd, with fresh
# breads; for binomial and poisson a second whitening by a bread there;
# then the meat, the bread, a last step and the final score, both clipped
# at C in the meat's metric.  The estimate pools the one-step estimates from the
# last two points (R/confint.R), with the sandwich and the privacy
# noise's covariance as its variance.

# ---------------------------------------------------------------------------
# The plan

# The releases of the stage and their fractions of its share (units of
# mu^2, as every share).  The last two scores set the privacy part of the
# interval and get 0.415 between them; the first steps bring the point
# near the root (their noise reaches the estimate only through the
# bread's noise and error); the breads and the meat need relative
# accuracy only.  Without an intercept there is no centre to release:
# its fraction goes to the score.  Where the bread does not move with
# the coefficients (gaussian) there is no second whitening: its fraction
# goes to the bread.
inference_fractions <- c(centre = 0.01, design = 0.01, moment = 0.01,
                         rows = 0.015, whiten = 0.09, levels = 0.03,
                         steps = 0.14, step_breads = 0.03, rewhiten = 0.05,
                         meat = 0.07, bread = 0.13, last = 0.17,
                         score = 0.245)

# What each part releases, for the record.
inference_released <- c(
  centre = "means of the clamped columns of x",
  design = "histograms of the columns' distances from their centres",
  moment = "mean squares of those distances, clamped",
  rows = "histograms of the bread's row terms before each whitening",
  whiten = paste("breads (Hessians) at the start, each in the metric of the",
                 "last, whose inverse roots whiten x"),
  levels = paste("histograms of the whitened scores' norms and the rows'",
                 "norms, at the start and after the first steps"),
  steps = "clipped scores at the first Newton steps",
  step_breads = "breads at the first steps after the first",
  rewhiten = paste("bread after the first steps, whose inverse root whitens",
                   "x again (the bread moves with the coefficients)"),
  meat = "meat (the score's second moment) after the first steps",
  bread = "bread (Hessian) after the first steps",
  last = "score clipped at the final clip in the meat's metric: a last step",
  score = "score clipped at the final clip in the meat's metric, at the end")

# The first steps from the path's start, before the last step and the
# final score.  Three left binomial and poisson fits on real data short of
# the root (late, a binary flight delay on the long-tailed departure
# delay, n = 20,000, epsilon 1, 60 replications in one run: mean z of
# dep_delay -0.43, its sampling s.e. 0.81 of glm's, coverage 0.915; the
# meat's noise, its clip and the final clip were ruled out by variants of
# each), so the last two scores were clipped around the wrong point; five
# reach it (z mean 0.03, s.e. 0.96 of glm's, coverage 0.96 at widths 1.66
# to 1.72 times glm-HC0's, against 1.48 to 1.66), with batting's SO bias
# cut too (bench/README.md, "Five first steps").  A family whose score
# is linear in the coefficients (gaussian) reaches its root in fewer and
# says so (its inference$steps).
inference_steps <- 5L

# The default share of the budget when `inference = TRUE`: the two last
# scores then have a multiplier of about 1 / (0.12 sqrt(n)) of the score
# at epsilon 1, enough for final_clip() to meet inference_clip_min at
# n = 20,000.
inference_default_share <- 0.6

# The smallest final clip, in units of the score's sampling sd per
# direction.  Below it the clip's bias grows fast on real data with
# heavy-tailed columns (batting's walks and strikeouts, diamonds' large
# stones: 0.3 to 0.9 standard errors at 16, 0.1 to 0.3 at 20 to 24, on
# the populations of bench/inference_real.R), while the noise it saves is
# what makes the interval wider than glm's.
inference_clip_min <- 20

# The clips in the whitened design, where the bread is about the identity
# and a record's bread term d_i ||ws_i||^2 is about d on average.
#   inference_bread_clip: the breads' clip, in multiples of d, the
#     largest within these bounds whose noise has a typical spectral norm
#     of at most inference_bread_noise (bread_clip()).  At 10 d the bread
#     keeps 0.7 to 0.99 of its curvature in its weakest direction on the
#     real populations, at 30 d 0.9 to 0.99; a Newton step with a
#     curvature kept at a fraction f overshoots by 1 / f.
#   inference_step_clip: the first steps' scores, in units of the score's
#     sampling sd per direction (their root is near glm's: the start of
#     the last two scores, clipped at final_clip()).  The unit is the 0.9
#     quantile of the whitened scores' norms over a standard normal
#     d-vector's (stage_levels()): steady at 2.7 to 3.2 such units on the
#     real populations, where the median ranges from 0.4 to 1.2.
#   inference_meat_clip, inference_meat_noise: the meat's clip in the
#     same units, the largest within the bounds whose noise has a typical
#     spectral norm of at most that share of its scale (meat_clip()).  A
#     higher clip loses less of the meat's tail (on diamonds a few records
#     hold two thirds of its largest eigenvalue) and gives it more noise.
#   inference_whitenings, inference_whiten_tau, floor_whiten: the
#     whitenings clip their row terms at their 0.98 quantile, released
#     before each (their scale is the family's and the data's before the
#     first, the over- or under-scaled directions' after it), and floor
#     the bread's eigenvalues at a quarter of its noise: a direction of
#     curvature below the noise is then scaled up four times more than
#     the noise alone would, so the next whitening sees it (a pair of
#     columns correlated 0.975 has a curvature of 0.01 to 0.02 against
#     noise of 0.1 to 0.3 at n = 5,000 to 20,000).
inference_bread_clip <- c(4, 30)
inference_bread_noise <- 0.3
inference_step_clip <- 15
inference_meat_clip <- c(8, 14)
inference_meat_noise <- 0.7

# The meat's clip bounds and noise target per kind of tails, the
# `inference` of dpsco(): TRUE the defaults above; "heavy_tails" a clip
# up to 28 units at four times the noise.  Where a few records carry much
# of the sandwich's variance (blog's raw counts: the meat clipped at 14
# units keeps under half of glm's s.e. of one coefficient) the defaults'
# intervals miss (worst coefficient 0.27 at n = 10,000, epsilon 1) and
# these come near (0.87; late and batting at n = 20,000 then cover), at
# about 1.6 times the width everywhere (bench/README.md, "inference =
# "heavy_tails": the whole study").  No released value tells the two kinds of
# data apart at these n (bench/influence.R), so it is the user's choice,
# from what they know of their columns.
inference_meat_sets <- list(
  default = list(clip = inference_meat_clip, noise = inference_meat_noise),
  heavy_tails = list(clip = c(8, 28), noise = 4 * inference_meat_noise))
inference_whitenings <- 3L
inference_whiten_tau <- 0.02
floor_whiten <- 4

# `inference` as dpsco() takes it: FALSE, TRUE (the default share) or a
# share in (0, 0.9] (and "heavy_tails", dpsco_inference_arg()).  Returns
# the share, 0 for none.
check_inference <- function(inference) {
  if (isFALSE(inference) || is.null(inference)) return(0)
  if (isTRUE(inference)) return(inference_default_share)
  if (identical(inference, "heavy_tails"))
    arg_error("inference", "= \"heavy_tails\" is for dpsco(); here give ",
              "TRUE, FALSE or the share of the budget for inference.")
  if (!is.numeric(inference) || length(inference) != 1L ||
      !is.finite(inference) || inference <= 0 || inference > 0.9)
    arg_error("inference", "must be TRUE, FALSE, \"heavy_tails\" ",
              "(dpsco()) or the share of the budget for inference, a number ",
              "in (0, 0.9].")
  inference
}

# dpsco()'s `inference`: list(share, tails), tails a name of
# inference_meat_sets ("heavy_tails": the default share).
dpsco_inference_arg <- function(inference) {
  if (identical(inference, "heavy_tails"))
    return(list(share = inference_default_share, tails = "heavy_tails"))
  list(share = check_inference(inference), tails = "default")
}

# The stage's releases, planned from public values before the path: the
# multiplier of each (z1 the single release's, 0 when not private) and
# its part of the record, whose sensitivities (which follow released
# values) inference_record() fills in.
inference_plan <- function(fam, share, z1, intercept,
                           steps = fam$inference$steps %||% inference_steps,
                           tails = "default") {
  fr <- inference_fractions
  if (!intercept) {
    fr[["score"]] <- fr[["score"]] + fr[["centre"]]
    fr[["centre"]] <- 0
  }
  # (where the bread does not move, the steps' breads and the final one
  # are pooled: no second whitening)
  if (isTRUE(fam$inference$constant_bread)) {
    fr[["bread"]] <- fr[["bread"]] + fr[["rewhiten"]]
    fr[["rewhiten"]] <- 0
  }
  k <- stats::setNames(rep(1, length(fr)), names(fr))
  k[["steps"]] <- steps
  k[["rows"]] <- k[["whiten"]] <- inference_whitenings
  k[["step_breads"]] <- steps - 1
  k[["levels"]] <- 2
  fr[k == 0] <- 0
  z <- vapply(names(fr), function(nm)
    if (fr[[nm]] > 0) part_multiplier(z1, share * fr[[nm]], k[[nm]]) else 0,
    0)
  keep <- names(fr)[fr > 0]
  released <- inference_released
  if (tails == "heavy_tails")
    released[["meat"]] <- paste(released[["meat"]], "(the clip and noise for",
                                "heavy tails, inference = \"heavy_tails\")")
  parts <- lapply(keep, function(nm)
    privacy_part(paste0("inference_", nm), z[[nm]], 1, k[[nm]], NA_real_,
                 share * fr[[nm]], mechanism = "Gaussian: inference stage",
                 released = released[[nm]]))
  list(share = share, z = z, steps = steps, parts = parts, tails = tails,
       meat = inference_meat_sets[[tails]])
}

# ---------------------------------------------------------------------------
# The stage

# The inference stage: from the path's coefficients `b0` (on the fit's
# scale `std`) to the released scores and bread at the final points and
# the meat.  `x` the user's design, `y_scale` a released scale of y
# (gaussian: the stage works on y / y_scale, so that its octave
# histograms see the residuals at any scale), `plan` inference_plan()'s,
# n the public n.  Every value it uses besides the records is released or
# public.  The phases: whiten, the first steps, the final releases.
inference_stage <- function(fam, x, y, std, b0, plan, n, intercept,
                            offset = NULL, weights = NULL, y_scale = 1) {
  z <- plan$z
  y <- y / y_scale
  off <- (offset %||% 0) / y_scale
  sc <- inference_scaling(x, std, intercept, z, n)
  w <- inference_design(x, sc, intercept)
  d <- ncol(w)
  b <- drop(inference_unmap(sc, intercept, d) %*%
              (inference_map(std, intercept, d) %*% b0)) / y_scale
  if (all(z == 0)) return(stage_exact(fam, w, y, b, off, weights, n, sc,
                                      y_scale))
  s <- list(fam = fam, w = w, d = d, z = z, n = n, steps = plan$steps,
            meat = plan$meat %||% inference_meat_sets$default,
            const = isTRUE(fam$inference$constant_bread),
            terms = function(b) inference_terms(fam, drop(w %*% b) + off, y,
                                                weights))
  wh <- stage_whitenings(s, b)
  fs <- stage_first_steps(s, wh, b)
  out <- stage_final(s, fs)
  sens <- c(centre = sqrt(d - intercept) / n,
            design = sqrt(d - intercept),
            moment = sqrt(d - intercept) / n, rows = 1,
            whiten = max(wh$clips) / n, levels = sqrt(2),
            steps = fs$clips[["steps"]] / n,
            step_breads = fs$clips[["step_bread"]] / n,
            rewhiten = fs$clips[["rewhiten"]] / n,
            meat = out$levels[["clip_meat"]]^2 / n,
            bread = fs$clips[["bread"]] / n,
            last = out$clip / n, score = out$clip / n)
  # (a part's releases with different sensitivities: the whitenings')
  c(out, list(n = n, d = d, std = sc, y_scale = y_scale,
              sens = sens[!is.na(sens)], whiten_sens = wh$clips / n))
}

# The whitenings by the bread at the start b, each in the metric of the
# last: each resolves directions whose curvature the last one's noise hid
# (a collinear pair), by floor_whiten's factor.  Returns the whitening
# (to be applied on the right of the rows), the rows in it and the clips.
stage_whitenings <- function(s, b) {
  tm <- s$terms(b)
  tw <- diag(s$d)
  clips <- numeric(inference_whitenings)
  for (r in seq_len(inference_whitenings)) {
    rn <- row_norms(s$w %*% tw)
    clips[r] <- octave_quantiles(list(tm$d * rn$norm^2), inference_whiten_tau,
                                 s$z[["rows"]], s$n)
    tw <- tw %*% stage_whiten(rn, tm, clips[r], s$z[["whiten"]], s$n)
  }
  list(tw = tw, rn = row_norms(s$w %*% tw), tm = tm, clips = clips)
}

# The first steps, in the whitened coordinates bt = tw^-1 b, where the
# bread at the start is the identity: from the second on, a fresh bread at
# the current point; the scores clipped at inference_step_clip units
# (their root is near glm's: the start of the last two scores).  The
# covariance of the point's privacy noise is carried along to first
# order: each step's score noise through its preconditioner, and the
# preconditioner's noise acting on the point's noise before.  Where the
# bread moves with the coefficients, a bread at the end whitens the
# design again, so that the final bread is about the identity too.
stage_first_steps <- function(s, wh, b) {
  d <- s$d
  z <- s$z
  rn <- wh$rn
  tw <- wh$tw
  tm <- wh$tm
  lv <- stage_levels(rn, tm, z[["levels"]], s$n)
  # (the breads' noise: of the final bread alone, or where the bread does
  # not depend on the coefficients, of the pool of every bread; the
  # steps' breads are clipped for their own noise where they are not
  # pooled: they only aim the steps)
  zb <- if (s$const) 1 / sqrt(sum(1 / z[["bread"]]^2,
                                  (s$steps - 1) / z[["step_breads"]]^2))
        else z[["bread"]]
  clips <- c(steps = inference_step_clip * lv[["unit"]],
             bread = bread_clip(d, zb, s$n),
             step_bread = if (s$const) bread_clip(d, zb, s$n)
                          else bread_clip(d, z[["step_breads"]], s$n),
             rewhiten = if (s$const) NA else bread_clip(d, z[["rewhiten"]],
                                                        s$n))
  bt <- drop(solve(tw, b))
  pre <- diag(d)
  pre_sd <- 0
  breads <- list()
  point_cov <- matrix(0, d, d)
  capped <- FALSE
  for (k in seq_len(s$steps)) {
    if (k > 1L) {
      hk <- stage_bread(rn, tm$d, clips[["step_bread"]], z[["step_breads"]],
                        s$n)
      breads <- c(breads, list(hk))
      if (s$const) hk <- pool_releases(breads)
      pre <- floor_eigen(hk$value, noise_norm(hk$sd, d))
      pre_sd <- hk$sd
    }
    g <- stage_score(rn, tm$psi, clips[["steps"]], z[["steps"]], s$n)
    st <- trust_step(s$fam, solve(pre, g$value), lv[["rows"]])
    capped <- attr(st, "capped")
    bt <- bt + st
    tm <- s$terms(drop(tw %*% bt))
    pinv <- solve(pre)
    point_cov <- pinv %*% (g$sd^2 * diag(d) + pre_sd^2 *
                             (sum(diag(point_cov)) * diag(d) + point_cov)) %*%
      pinv
  }
  if (!s$const) {
    rw <- stage_whiten(rn, tm, clips[["rewhiten"]], z[["rewhiten"]], s$n)
    tw <- tw %*% rw
    rn <- row_norms(s$w %*% tw)
    rwi <- solve(rw)
    bt <- drop(rwi %*% bt)
    point_cov <- rwi %*% point_cov %*% rwi
  }
  list(tw = tw, rn = rn, tm = tm, bt = bt, point_cov = point_cov,
       breads = breads, clips = clips, rows = lv[["rows"]], capped = capped,
       steps_sd = g$sd)
}

# A step that moves no linear predictor of a row of the median norm
# `rows` by more than the family's trust radius; attribute `capped`
# whether it had to be shortened.
trust_step <- function(fam, step, rows) {
  lim <- fam$inference$trust / (rows * sqrt(sum(step^2)))
  capped <- is.finite(lim) && lim < 1
  structure(if (capped) step * lim else step, capped = capped)
}

# The final releases near the root: the meat, whose inverse root is the
# metric of the last two scores (their sampling spread is then 1 in every
# direction); the bread (pooled with the steps' where it does not move);
# a last step and the final score, both clipped at final_clip() of their
# pooled noise.
stage_final <- function(s, fs) {
  d <- s$d
  z <- s$z
  rn <- fs$rn
  tm <- fs$tm
  lf <- stage_levels(rn, tm, z[["levels"]], s$n)
  clip_meat <- meat_clip(lf[["unit"]], d, z[["meat"]], s$n, s$meat)
  meat <- stage_meat(rn, tm$psi, clip_meat, z[["meat"]], s$n)
  # (for the metric, floored at its noise, so that no direction of the
  # score is scaled up by noise; for the sandwich at 0: its noise then
  # moves the standard errors both ways, where a floor would inflate them)
  jf <- floor_eigen(meat$value, noise_norm(meat$sd, d))
  tj <- attr(jf, "isqrt")
  bread <- stage_bread(rn, tm$d, fs$clips[["bread"]], z[["bread"]], s$n)
  if (s$const) bread <- pool_releases(c(fs$breads, list(bread)))
  clip <- final_clip(1 / sqrt(1 / z[["last"]]^2 + 1 / z[["score"]]^2), s$n)
  rj <- function(rn) row_norms(rn$ws %*% tj)
  score <- function(tm, zz) {
    g <- stage_score(rj(rn), tm$psi, clip, zz, s$n)
    list(value = drop(solve(tj, g$value)), sd = g$sd)
  }
  g1 <- score(tm, z[["last"]])
  st <- trust_step(s$fam, solve(floor_eigen(bread$value,
                                            noise_norm(bread$sd, d)),
                                g1$value), fs$rows)
  bt <- fs$bt + st
  g2 <- score(s$terms(drop(fs$tw %*% bt)), z[["score"]])
  list(point1 = fs$bt, point = bt, score1 = g1$value, score = g2$value,
       bread = bread$value, meat = floor_eigen(meat$value, 0), metric = jf,
       sd = c(score1 = g1$sd, score = g2$sd, bread = bread$sd,
              meat = meat$sd, steps = fs$steps_sd),
       point_cov = fs$point_cov, whiten = fs$tw, clip = clip,
       levels = c(unit = lf[["unit"]], median_row = fs$rows,
                  clip_steps = fs$clips[["steps"]], clip_meat = clip_meat,
                  clip_bread = fs$clips[["bread"]]),
       capped = fs$capped || attr(st, "capped"))
}

# The stage without noise (method "none"): Newton's method to glm's root,
# and its bread and meat there, nothing clipped.
stage_exact <- function(fam, w, y, b, off, weights, n, sc, y_scale) {
  d <- ncol(w)
  b <- inference_root(fam, w, y, b, off, weights)
  tm <- inference_terms(fam, drop(w %*% b) + off, y, weights)
  u <- w * tm$psi
  meat <- crossprod(u) / n
  list(point1 = NULL, point = b, score1 = NULL, score = colSums(u) / n,
       bread = crossprod(w * tm$d, w) / n, meat = meat, metric = diag(d),
       sd = c(score1 = 0, score = 0, bread = 0, meat = 0, steps = 0),
       point_cov = matrix(0, d, d), whiten = diag(d), clip = Inf,
       levels = NULL, capped = FALSE, n = n, d = d, std = sc,
       y_scale = y_scale, sens = NULL)
}

# The root of the mean score by Newton's method with the bread as the
# Jacobian (not private: the stage without noise, and the tests).
inference_root <- function(fam, w, y, b0, offset = 0, weights = NULL,
                           tol = 1e-12, maxit = 100) {
  b <- b0
  for (it in seq_len(maxit)) {
    tm <- inference_terms(fam, drop(w %*% b) + offset, y, weights)
    bread <- crossprod(w * tm$d, w)
    # (a singular bread, collinear columns: stop where it is; the result
    # then refuses, inference_result())
    if (rcond(bread) < 1e-12) break
    step <- solve(bread, drop(crossprod(w, tm$psi)))
    # halve a step that does not lower the deviance's gradient norm, so
    # that a far start cannot make Newton diverge for binomial or poisson
    b1 <- b + step
    for (h in 1:30) {
      tm1 <- inference_terms(fam, drop(w %*% b1) + offset, y, weights)
      if (all(is.finite(tm1$psi)) &&
          sum(crossprod(w, tm1$psi)^2) <= sum(crossprod(w, tm$psi)^2))
        break
      step <- step / 2
      b1 <- b + step
    }
    b <- b1
    if (max(abs(step)) <= tol * max(1, max(abs(b)))) break
  }
  b
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
  m <- diag(c(if (intercept) 1, 1 / std$scale), d)
  if (intercept) m[1L, -1L] <- -std$center / std$scale
  m
}

# The stage after a penalised path: from the coefficients at its last
# penalty `b0` (released).
lambda_path_inference <- function(a, pr, b0, epsilon) {
  fam <- pr$family
  # (a family whose y has an error scale, gaussian, is fitted on y over a
  # released scale of it)
  y_scale <- if (isTRUE(fam$y_error_scale)) stage_y_scale(pr$tn) else 1
  st <- inference_stage(fam, a$x, a$y, pr$std, b0, pr$inference, a$n,
                        a$intercept, a$offset, a$weights, y_scale)
  # the map from the stage's whitened coordinates to the scale of x
  st$map <- y_scale * inference_map(st$std, a$intercept, st$d) %*% st$whiten
  names <- c(if (a$intercept) "(Intercept)",
             colnames(a$x) %||% paste0("V", seq_len(ncol(a$x))))
  res <- inference_result(st, names, pr$inference$share, fam$name, epsilon)
  res$tails <- pr$inference$tails
  list(stage = st, result = res)
}

# A released scale of a gaussian y: half the width of its released (or
# declared) range.
stage_y_scale <- function(tn) {
  r <- tn$y_range
  s <- if (length(r) == 2L) (r[2L] - r[1L]) / 2 else tn$y_bound %||% 1
  if (is.finite(s) && s > 0) s else 1
}

# The record's inference parts with the sensitivities the stage used
# (the whitenings' differ from release to release: the part shows the
# largest, and its text each).
inference_record <- function(fixed, inf) {
  if (is.null(inf) || is.null(inf$stage$sens)) return(fixed)
  sens <- inf$stage$sens
  lapply(fixed, function(p) {
    if (!startsWith(p$name, "inference_")) return(p)
    nm <- sub("^inference_", "", p$name)
    p$sensitivity <- sens[[nm]]
    if (nm == "whiten")
      p$released <- paste0(p$released, " (sensitivities ",
                           paste(format(signif(inf$stage$whiten_sens, 3)),
                                 collapse = ", "), ")")
    p
  })
}
