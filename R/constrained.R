#' @include registry.R
NULL

# The path of constraint radii of dpsco(): the methods registered with
# path = "radius" run here.  dpsco() hands them to radius_path(), which
# chooses every data-dependent setting in one place (the private bounds and
# centre of tune_private(), or the public rules), calls the method's fit()
# and builds the fit and its privacy record from the parts it returns.
# The traits it reads (truncation, row, bounded, shrink, lp, radius_inf,
# adjacency) are documented in method_traits (registry.R).
# fit(prob, radius, settings) returns list(beta (d x
# radii), parts, settings, public) and optionally calibration,
# pure_epsilon and sampling.  prob is list(x, y, family (the family
# object; its engine fields are family$settings), intercept,
# offset, n, p, d, x_bound, y_bound, threads, smoothness, tuning, clip, lp,
# resized, y_scale, public); settings is list(budget, control, steps),
# budget list(epsilon, delta, fixed (the private settings' parts),
# fixed_components, remaining).

# Control fields of every radius method.
radius_path_control <- character()

# The records resized to the public size n: padded with the fixed public
# record x = 0, y = 0 when there are fewer (it lies inside every bound the
# theorems assume), or a uniformly random n of them when there are more.
# For data sets D and D' = D plus a record r, resize(D) and resize(D')
# differ in one record: when D has fewer than n records, r takes the place
# of one pad; otherwise, choosing the n records of D' uniformly, either r
# is left out and the choice is a uniform n-subset of D, or r is in and
# the other n - 1 are a uniform (n - 1)-subset S of D, which resize(D)
# completes with a uniform record of D \ S.  So resize(D') is a mixture of
# resize(D)'s outcomes and of sets that replace one of their records by r,
# with the same weights, and by the joint convexity of the hockey-stick
# divergence a mechanism (eps, delta)-DP for replace-one neighbours of size
# n is (eps, delta)-DP, both ways, for a record added or removed at the
# public n.  For two data sets of n records it is the identity.
resize_records <- function(x, y, n) {
  rows <- nrow(x)
  if (rows < n) {
    pad <- n - rows
    return(list(x = rbind(x, matrix(0, pad, ncol(x))), y = c(y, rep(0, pad))))
  }
  if (rows > n) {
    keep <- sort(sample.int(rows, n))
    return(list(x = x[keep, , drop = FALSE], y = y[keep]))
  }
  list(x = x, y = y)
}

# `a`: the checked arguments of dpsco() (see there; `family` the family
# object), `spec` the method.  The phases: plan (public values only),
# prepare (standardisation and private settings, shared with
# lambda_path()), the problem the method sees, its fit() and the record.
radius_path <- function(spec, a) {
  pl <- plan_radius_path(spec, a)
  pr <- prepare_path(spec, a, TRUE, pl$epsilon, pl$delta, constrained = TRUE)
  prob <- radius_problem(spec, a, pl, pr)
  radius <- pl$radius %||% default_radii(pl$nr, prob$family)
  # what every method takes: the target, the private settings' parts and
  # the (epsilon, delta) those leave for the method
  fixed <- pr$fixed
  budget <- list(epsilon = pl$epsilon, delta = pl$delta, fixed = fixed,
                 fixed_components = lapply(fixed, part_component),
                 remaining = remaining_budget(fixed, pl$epsilon, pl$delta))
  res <- spec$fit(prob, radius, list(budget = budget, control = a$control,
                                      steps = pl$steps))
  # the method's parts take what the private settings leave; a resized
  # method's guarantee is its theorem's, for replace-one pairs of n records
  for (k in seq_along(res$parts)) {
    res$parts[[k]]$share <- share_left(fixed) / length(res$parts)
    if (prob$resized) res$parts[[k]]$relation <- "replace"
  }
  beta <- res$beta
  if (a$intercept) beta[1L, ] <- beta[1L, ] + prob$offset
  beta <- beta * prob$y_scale
  # the family on y's own scale, as coef() and predict() are
  fam <- family_with(prob$family, prob$family$bandwidth * prob$y_scale)
  fit <- new_dpsco(list(beta = beta), prob$x, radius, a$intercept, a$call,
                   fam, spec$name, a$classnames,
                   settings = c(res$settings, list(
                     tuning = a$tuning, radius = radius, lp = pl$lp,
                     offset = prob$offset, y_scale = prob$y_scale,
                     x_bound = prob$x_bound, y_bound = prob$y_bound,
                     control = a$control, threads = pl$threads,
                     quantile = fam$options)),
                   privacy = radius_path_record(a, pl, pr, prob, res, radius),
                   trace_at = integer(), std = pr$std, nobs = a$n,
                   path = "radius")
  fit$radius <- radius
  fit$lambda <- NULL
  colnames(fit$beta) <- names(fit$a0) <- names(fit$df) <-
    paste0("r", seq_len(pl$nr) - 1L)
  fit
}

# Phase 1, from public values only: the target, the geometry, the radii,
# their number and the iterations.
plan_radius_path <- function(spec, a) {
  target <- path_target(TRUE, a$epsilon, a$delta, a$n)
  lp <- if (spec$lp) a$lp %||% 2
  if (!is.null(lp)) check_number(lp, "lp", 1, 2)
  radius <- if (!is.null(a$radius))
    check_radius(a$radius, allow_inf = spec$radius_inf(a$family))
  c(target, list(
    lp = lp, radius = radius,
    nr = if (is.null(radius))
           check_count(a$nlambda %||% 10L, "nlambda", 1, 1000)
         else length(radius),
    steps = if (!is.null(a$iterations))
              check_count(a$iterations, "iterations", 1, 1e6),
    threads = check_count(a$threads, "threads", 1, 64)))
}

# The problem list a radius method's fit() receives (see the top of this
# file), from the prepared data: with private tuning on the unit scale of
# the released bounds, the released centre an offset of the linear
# predictor; with public tuning on the user's scale, the bounded-data
# methods' data shrunk to [-K, K].  Also `resized` and `y_scale` (the
# scale of y the fit is on) and `public` for the record.
radius_problem <- function(spec, a, pl, pr) {
  fam <- pr$family
  ctl <- a$control
  n <- a$n
  x <- pr$x
  y <- a$y
  sc <- if (a$tuned) radius_private_scale(spec, pr$tn, a$intercept)
        else radius_public_scale(spec, a, fam, x)
  # ([[ ]]: sc$x would partially match sc$x_bound)
  x <- sc[["x"]] %||% x
  y <- sc[["y"]] %||% y
  y_bound <- if (fam$classes) 1 else sc$y_bound
  # a quantile residual is bounded whatever y is: y is not shrunk
  if (fam$bounded && !fam$classes && !a$tuned) {
    y <- a$y
    y_bound <- Inf
  }
  x_bound <- sc$x_bound
  if (spec$shrink && a$tuned && !is.null(ctl$shrink)) {
    x <- clamp(x, -ctl$shrink, ctl$shrink)
    x_bound <- min(1, ctl$shrink)
  }
  resized <- method_adjacency(spec, pl$lp %||% 2) == "replace-one"
  if (resized) {
    rs <- resize_records(x, y, n)
    x <- rs$x
    y <- rs$y
  }
  list(x = x, y = y, family = fam, intercept = a$intercept,
       offset = sc$offset, n = n, p = ncol(x), d = ncol(x) + a$intercept,
       x_bound = x_bound, y_bound = y_bound, threads = pl$threads,
       smoothness = sc$smoothness, tuning = a$tuning, clip = sc$clip,
       lp = pl$lp, resized = resized, y_scale = sc$y_scale,
       public = sc$public)
}

# The scale of a privately tuned problem: every bound 1 (the fit sees
# clamp(x / B, -1, 1) and, for gaussian, clamp(y / B_y, -1, 1)), the
# released centre as the offset, the released clipping level and, for the
# methods that need it, the squared row bound as the smoothness.
radius_private_scale <- function(spec, tn, intercept) {
  list(y = tn$y, y_scale = tn$y_scale, offset = tn$beta0[1L] * intercept,
       x_bound = 1, y_bound = 1, clip = tn$clip,
       smoothness = if (spec$row) tn$row_bound^2,
       public = c("budget shares", tn$public))
}

# The scale of a publicly tuned problem: the declared centre as the
# offset and, for the bounded-data methods, the shrinkage of Hu et al.
# (every entry of x and y to [-K, K]).
radius_public_scale <- function(spec, a, fam, x) {
  ctl <- a$control
  out <- list(y_scale = 1, x_bound = Inf, y_bound = Inf,
              offset = if (!a$intercept || is.null(ctl$center)) 0
                       else fam$link(ctl$center),
              clip = ctl$clip %||% 1,
              public = if (a$intercept && !is.null(ctl$center)) "centre of y")
  if (spec$bounded) {
    k <- ctl$shrink %||% (a$n * a$epsilon)^(1 / 5)
    out$x <- clamp(x, -k, k)
    if (!fam$bounded) out$y <- clamp(a$y, -k, k)
    out$x_bound <- k
    out$y_bound <- if (!fam$bounded) k else 1
    out$public <- c(out$public, sprintf("shrinkage level K = %s",
                                        format(signif(k, 4))))
  }
  out$public <- c(out$public, "oracle parameters")
  out
}

# The privacy record of a radius path.
radius_path_record <- function(a, pl, pr, prob, res, radius) {
  parts <- c(pr$fixed, res$parts)
  kinds <- vapply(res$parts, part_kind, "")
  public <- c(public_n_note(a$n), "p (dimension)", "constraint radii",
              "iterations", pr$std$public, prob$public, res$public,
              "any preprocessing applied to x and y before the call")
  new_privacy_record(
    pl$epsilon, pl$delta, parts,
    # a method whose noise is its theorem's formula says so (res$calibration)
    calibration = res$calibration %||%
      if (any(kinds == "dp")) "theorem" else "accountant",
    public = unique(public), not_covered = pr$std$not_covered,
    public_n = a$n,
    extra = c(list(steps = res$settings$steps %||% NA_integer_,
                   nradius = pl$nr, radius = radius, tuning = a$tuning,
                   released = pr$tn$released,
                   pure_epsilon = res$pure_epsilon,
                   resized = if (prob$resized) paste(
                     "the records are resized to the public n (padded with",
                     "x = 0, y = 0, or a uniform subset of n) before the",
                     "method, whose theorem is stated for replace-one",
                     "neighbours of n records"),
                   loss = quantile_loss_text(prob$family$options)),
              # a method's own account of its batches (NULL keeps the default)
              if (!is.null(res$sampling)) list(sampling = res$sampling)))
}

check_radius <- function(radius, allow_inf = FALSE) {
  if (!is.numeric(radius) || !length(radius) || anyNA(radius) ||
      any(radius <= 0) || (!allow_inf && any(!is.finite(radius))))
    arg_error("radius", "must be positive", if (!allow_inf) " finite",
              " numbers.")
  if (length(radius) > 1L && any(diff(radius) <= 0))
    arg_error("radius", "must be strictly increasing (each radius spends ",
              "budget and warm-starts the next).")
  as.double(radius)
}

# The default path: nr radii on a log scale, from 0.1 to 100 (gaussian) or
# 1 to 1000 (binomial: log-odds need larger coefficients).  With private
# tuning the data are on the unit scale (|x| <= 1, |y| <= 1), where a
# least-squares fit's l1 norm on the raw blog data and a logistic fit's on
# Satellite (glmnet at lambda.min: 424) fall inside these; with public
# tuning the user's scale decides and radii should be given.
default_radii <- function(nr, fam) {
  top <- fam$radius_top
  if (nr == 1L) return(top / 100)
  top * 10^seq(-3, 0, length.out = nr)
}
