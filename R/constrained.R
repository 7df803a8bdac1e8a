#' @include registry.R
NULL

# The path of constraint radii of dpsco(): the methods registered with
# path = "radius" run here.  dpsco() hands them to radius_path(), which
# chooses every data-dependent setting in one place (the private bounds and
# centre of tune_private(), or the public rules), calls the method's fit()
# and builds the fit and its privacy record from the parts it returns.
# Traits read from the method's object:
#   truncation  "coordinate" when private tuning releases a clamp of the
#               coordinates |r_i| max(1, |x_i|_inf), "l2" when it releases
#               an l2 clipping level, "none" when the method needs neither;
#   row         TRUE when it needs the private row bound (its square is the
#               smoothness of the loss on the unit scale);
#   bounded     TRUE when its sensitivities need public bounds on |x| and
#               |y|: with public tuning the data are shrunk to [-K, K];
#   shrink      TRUE when control$shrink also applies with private tuning;
#   lp          TRUE when it takes dpsco(lp = );
#   radius_inf  function(fam), fam the family object: may a radius be Inf?
#   adjacency   "replace-one" (or a function of lp giving it): it runs on
#               the records resized to the public n, see resize_records().
# fit(prob, radius, budget, control, steps) returns list(beta (d x
# radii), parts, settings, public) and optionally calibration,
# pure_epsilon and sampling.  prob is list(x, y, family, fam, quant,
# intercept, offset, n, p, d, x_bound, y_bound, threads, smoothness,
# tuning, clip, lp); budget is list(epsilon, delta, fixed (the private
# settings' parts), fixed_components, remaining).

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
# `a`: the checked arguments of dpsco() (see there), `spec` the method.
radius_path <- function(spec, a) {
  x <- a$x
  yy <- list(y = a$y, classnames = a$classnames)
  family <- a$family
  fam <- family_object(family, a$quant)
  quant <- a$quant
  control <- a$control
  intercept <- a$intercept
  tuning <- a$tuning
  n <- a$n
  if (a$calibration == "paper")
    arg_error("calibration", "\"paper\" exists only for the paper's ",
              "methods clip, kamath and holland.")
  for (arg in c("lambda", "optimizer", "batch_size", "step_size"))
    if (!is.null(a[[arg]]))
      arg_error(arg, "does not apply to the constraint-set method \"",
                spec$name, "\" (its path is over `radius`).")
  if (!identical(a$alpha, 1) || !is.null(a$penalty.factor) ||
      !isFALSE(a$trace) || !is.null(a$lambda.min.ratio))
    arg_error(if (!identical(a$alpha, 1)) "alpha"
              else if (!is.null(a$penalty.factor)) "penalty.factor"
              else if (!isFALSE(a$trace)) "trace" else "lambda.min.ratio",
              "does not apply to the constraint-set method \"", spec$name,
              "\".")
  epsilon <- a$epsilon
  delta <- check_target(epsilon, a$delta, n)
  p <- ncol(x)
  d <- p + intercept
  lp <- NULL
  if (isTRUE(spec$lp)) {
    lp <- a$lp %||% 2
    check_number(lp, "lp", 1, 2)
  } else if (!is.null(a$lp)) {
    arg_error("lp", "applies to the methods of an l_p geometry (",
              paste0("\"", lp_methods(), "\"", collapse = ", "), ") only.")
  }
  radius <- if (is.null(a$radius)) NULL
            else check_radius(a$radius, allow_inf = isTRUE(spec$radius_inf(fam)))
  nr <- if (is.null(radius)) check_count(a$nlambda %||% 10L, "nlambda", 1, 1000)
        else length(radius)
  steps <- if (is.null(a$iterations)) NULL
           else check_count(a$iterations, "iterations", 1, 1e6)
  threads <- check_count(a$threads, "threads", 1, 64)
  bounded <- isTRUE(spec$bounded)
  if (!is.null(control$shrink) && !isTRUE(spec$shrink) &&
      !(bounded && tuning == "public"))
    arg_error("control", "$shrink (K) applies to ",
              paste0("\"", Filter(function(m) isTRUE(method_spec(m)$shrink),
                                  method_names()), "\"", collapse = ", "),
              ", and to the bounded-data methods with tuning = \"public\".")

  std <- standardize_x(x, a$standardize, intercept, TRUE, epsilon, delta,
                       control, n)
  x <- std$x
  fixed <- if (is.null(std$part)) list() else list(std$part)
  y <- yy$y
  y_scale <- 1
  released <- NULL
  public <- c(public_n_note(n), "p (dimension)", "constraint radii",
              "iterations", std$public)
  if (tuning == "private") {
    # one place for the data-dependent settings: bounds on x and y (the fit
    # sees clamp(x / B, -1, 1) and, for gaussian, clamp(y / B_y, -1, 1)),
    # the centre as an offset of the linear predictor, and for the
    # Frank-Wolfe oracles the truncation level
    z1 <- calibrate_components(list(), 1, 1, epsilon, delta)
    tn <- tune_private(x, y, family, spec$truncation, "spgd", intercept, z1,
                       NULL, control, constrained = TRUE,
                       row = isTRUE(spec$row), quant = quant, n = n)
    quant <- tn$quant
    x <- tn$x
    y <- tn$y
    y_scale <- tn$y_scale
    std <- add_bounds(std, tn$bound)
    fixed <- c(fixed, tn$parts)
    offset <- tn$beta0[1L] * intercept
    x_bound <- 1
    y_bound <- 1
    clip <- tn$clip
    smoothness <- if (isTRUE(spec$row)) tn$row_bound^2
    released <- tn$released
    public <- c(public, "budget shares", tn$public)
  } else {
    offset <- if (!intercept || is.null(control$center)) 0
              else fam$link(control$center)
    # a smoothed loss: conquer's data-independent bandwidth
    if (!is.null(quant))
      quant$bandwidth <- quant$bandwidth %||% conquer_bandwidth(n, p)
    if (intercept && !is.null(control$center)) public <- c(public, "centre of y")
    x_bound <- y_bound <- Inf
    if (bounded) {
      # the shrinkage of Hu et al.: every entry of x and y to [-K, K]
      k <- control$shrink %||% (n * epsilon)^(1 / 5)
      x <- clamp(x, -k, k)
      if (!fam$bounded) y <- clamp(y, -k, k)
      x_bound <- k
      y_bound <- if (!fam$bounded) k else 1
      public <- c(public, sprintf("shrinkage level K = %s",
                                  format(signif(k, 4))))
    }
    clip <- control$clip %||% 1
    smoothness <- NULL
    public <- c(public, "oracle parameters")
  }
  if (fam$classes) y_bound <- 1
  # a quantile residual is bounded whatever y is: y is not shrunk
  if (fam$bounded && !fam$classes && tuning == "public") {
    y <- yy$y
    y_bound <- Inf
  }
  if (isTRUE(spec$shrink) && tuning == "private" && !is.null(control$shrink)) {
    x <- clamp(x, -control$shrink, control$shrink)
    x_bound <- min(1, control$shrink)
  }
  radius <- radius %||% default_radii(nr, fam)
  resized <- method_adjacency(spec, lp %||% 2) == "replace-one"
  if (resized) {
    rs <- resize_records(x, y, n)
    x <- rs$x
    y <- rs$y
  }
  prob <- list(x = x, y = y, family = family,
               fam = family_settings(family, quant$tau, quant$bandwidth,
                                     quant$smoother), quant = quant,
               intercept = intercept,
               offset = offset, n = n, p = p, d = d, x_bound = x_bound,
               y_bound = y_bound, threads = threads, smoothness = smoothness,
               tuning = tuning, clip = clip, lp = lp)
  # what every method takes: the target, the private settings' parts and
  # the (epsilon, delta) those leave for the method
  budget <- list(epsilon = epsilon, delta = delta, fixed = fixed,
                 fixed_components = lapply(fixed, part_component),
                 remaining = remaining_budget(fixed, epsilon, delta))
  res <- spec$fit(prob, radius, list(budget = budget, control = control, steps = steps))

  # the method's parts take what the private settings leave; a resized
  # method's guarantee is its theorem's, for replace-one pairs of n records
  for (k in seq_along(res$parts)) {
    res$parts[[k]]$share <- (1 - sum(vapply(fixed, `[[`, 0, "share"))) /
      length(res$parts)
    if (resized) res$parts[[k]]$relation <- "replace"
  }
  beta <- res$beta
  if (intercept) beta[1L, ] <- beta[1L, ] + offset
  beta <- beta * y_scale
  parts <- c(fixed, res$parts)
  kinds <- vapply(res$parts, part_kind, "")
  record <- new_privacy_record(
    epsilon, delta, parts,
    # a method whose noise is its theorem's formula says so (res$calibration)
    calibration = res$calibration %||%
      if (any(kinds == "dp")) "theorem" else "accountant",
    public = unique(c(public, res$public,
                      "any preprocessing applied to x and y before the call")),
    not_covered = std$not_covered, public_n = n,
    extra = c(list(steps = res$settings$steps %||% NA_integer_, nradius = nr,
                   radius = radius, tuning = tuning, released = released,
                   pure_epsilon = res$pure_epsilon,
                   resized = if (resized) paste(
                     "the records are resized to the public n (padded with",
                     "x = 0, y = 0, or a uniform subset of n) before the",
                     "method, whose theorem is stated for replace-one",
                     "neighbours of n records"),
                   loss = quantile_loss_text(quant)),
              # a method's own account of its batches (NULL keeps the default)
              if (!is.null(res$sampling)) list(sampling = res$sampling)))
  settings <- c(res$settings, list(tuning = tuning, radius = radius,
                                   lp = lp, offset = offset,
                                   y_scale = y_scale, x_bound = x_bound,
                                   y_bound = y_bound, control = control,
                                   threads = threads,
                                   # on y's own scale, as coef() is
                                   quantile = if (!is.null(quant))
                                     utils::modifyList(quant, list(
                                       bandwidth = quant$bandwidth * y_scale))))
  fit <- new_dpsco(list(beta = beta), x, radius, intercept, a$call, family,
                   spec$name, yy$classnames, settings = settings,
                   privacy = record, trace_at = integer(), std = std, nobs = n,
                   path = "radius")
  fit$radius <- radius
  fit$lambda <- NULL
  colnames(fit$beta) <- names(fit$a0) <- names(fit$df) <-
    paste0("r", seq_len(nr) - 1L)
  fit
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

# The smallest multiplier-equivalent z, i.e. the largest epsilon0 = 2 / z of
# an exponential mechanism, such that `steps` such selections composed with
# the `fixed` parts meet (epsilon, delta) through their Renyi curves.
calibrate_rdp <- function(fixed, steps, epsilon, delta) {
  eps_at <- function(z) account_parts(c(fixed, list(privacy_part(
    "em", z, 1, steps, 1, 1, kind = "rdp"))), delta)
  floor_eps <- if (length(fixed)) account_parts(fixed, delta) else 0
  if (floor_eps >= epsilon)
    arg_error("epsilon", "= ", format(epsilon), " is used up by the private ",
              "settings (epsilon ", format(signif(floor_eps, 4)), ").")
  calibration_search(eps_at, sqrt(steps), epsilon, 1e-6)$hi
}
