# The constraint-set methods: private Frank-Wolfe over the l1 ball ("fw"),
# the two heavy-tailed baselines of Hu, Ni, Xiao and Wang (2022)
# ("htp_lasso", "htdp_fw"), approximate objective perturbation
# ("objective", objective.R) and noisy mirror descent ("mirror",
# "mirror_shuffled", mirror.R), the two methods of Wang, Xiao, Devadas and
# Xu (2020) ("sample_aggregate", sample-aggregate.R; "bun_steinke",
# bun-steinke.R) and the one-pass clipped methods of Lowy and Razaviyayn
# ("acsa", "clipped_sgd", "localized", one-pass.R).  They fit along a path
# of constraint radii instead of penalties.  dpsco() hands them to
# dpsco_constrained(), which chooses every data-dependent setting in one
# place (the private bounds and centre of tune_private(), or the public
# rules), calls the method and builds the fit and its privacy record from
# the parts it returns.

constraint_methods <- c("fw", "htp_lasso", "htdp_fw", "objective", "mirror",
                        "mirror_shuffled", "sample_aggregate", "bun_steinke",
                        "acsa", "clipped_sgd", "localized")

# The one-pass clipped methods of Lowy and Razaviyayn (one-pass.R): each record
# is used in one step per pass (its own random block), clipped in l2.
one_pass_methods <- c("acsa", "clipped_sgd", "localized")

# Every method the bounded-data sensitivities of which need |x| <= x_bound
# and |y| <= y_bound: their data are clamped (shrunk) to public bounds.
bounded_methods <- c("htp_lasso", "objective", "mirror", "mirror_shuffled")
mirror_methods <- c("mirror", "mirror_shuffled")
# Methods whose guarantee is a theorem stated for data sets of one fixed
# size that differ in one record (replace-one): they run on the records
# resized to the public n (resize_records()), which carries the theorem's
# guarantee over to a record added or removed at that n.  "mirror" at
# lp < 2 is Su, Zhao and Wang's Theorem 6, a replace-one statement too;
# at lp = 2 its Gaussian release is accounted for add/remove directly.
resized_method <- function(method, lp = 2)
  method %in% c("objective", "mirror_shuffled", "sample_aggregate",
                "bun_steinke") || method == "mirror" && lp < 2

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
# Methods whose private tuning releases an l2 clipping level (and the row
# bound) rather than a per-coordinate truncation.
l2_clip_methods <- c(mirror_methods, one_pass_methods)

dpsco_constrained <- function(call, x, yy, family, method, epsilon, delta,
                              radius, nradius, lp, intercept, standardize,
                              tuning, iterations, control, threads,
                              quant = NULL, n) {
  p <- ncol(x)
  d <- p + intercept
  mirror <- method %in% mirror_methods
  if (mirror) {
    lp <- lp %||% 2
    check_number(lp, "lp", 1, 2)
  } else if (!is.null(lp)) {
    arg_error("lp", "applies to methods \"mirror\" and \"mirror_shuffled\" only.")
  }
  radius <- if (is.null(radius)) NULL
            else check_radius(radius, allow_inf = method == "mirror" ||
                                method == "objective" && family != "gaussian")
  nr <- if (is.null(radius)) check_count(nradius %||% 10L, "nlambda", 1, 1000)
        else length(radius)
  steps <- if (is.null(iterations)) NULL
           else check_count(iterations, "iterations", 1, 1e6)
  threads <- check_count(threads, "threads", 1, 64)
  if (!is.null(control$shrink) && method != "htp_lasso" &&
      !(method %in% bounded_methods && tuning == "public"))
    arg_error("control", "$shrink (K) applies to \"htp_lasso\", and to the ",
              "bounded-data methods with tuning = \"public\".")

  std <- standardize_x(x, standardize, intercept, TRUE, epsilon, delta, control,
                       n)
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
    # mirror descent clips in (a norm below) l2 and steps by the squared
    # row bound; the Frank-Wolfe oracles clamp coordinates
    l2 <- method %in% l2_clip_methods
    # bun_steinke needs no clip level, only the row bound for its step
    bs <- method == "bun_steinke"
    tn <- tune_private(x, y, family, if (method %in% c("fw", "htdp_fw",
                                                      l2_clip_methods))
                       "clip" else "none", "spgd", intercept, z1, NULL, control,
                       constrained = TRUE,
                       clip_norm = if (l2) "l2" else "coordinate",
                       row = l2 || bs, quant = quant, n = n)
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
    smoothness <- if (l2 || bs) tn$row_bound^2
    released <- tn$released
    public <- c(public, "budget shares", tn$public)
  } else {
    offset <- if (!intercept || is.null(control$center)) 0
              else if (family != "binomial") control$center
              else stats::qlogis(control$center)
    if (family == "quantile")
      quant$bandwidth <- quant$bandwidth %||% conquer_bandwidth(n, p)
    if (intercept && !is.null(control$center)) public <- c(public, "centre of y")
    x_bound <- y_bound <- Inf
    if (method %in% bounded_methods) {
      # the shrinkage of Hu et al.: every entry of x and y to [-K, K]
      k <- control$shrink %||% (n * epsilon)^(1 / 5)
      x <- pmin(pmax(x, -k), k)
      if (family == "gaussian") y <- pmin(pmax(y, -k), k)
      x_bound <- k
      y_bound <- if (family == "gaussian") k else 1
      public <- c(public, sprintf("shrinkage level K = %s",
                                  format(signif(k, 4))))
    }
    clip <- control$clip %||% 1
    smoothness <- NULL
    public <- c(public, "oracle parameters")
  }
  if (family == "binomial") y_bound <- 1
  # a quantile residual is bounded whatever y is: y is not shrunk
  if (family == "quantile" && tuning == "public") {
    y <- yy$y
    y_bound <- Inf
  }
  if (method == "htp_lasso" && tuning == "private" && !is.null(control$shrink)) {
    x <- pmin(pmax(x, -control$shrink), control$shrink)
    x_bound <- min(1, control$shrink)
  }
  radius <- radius %||% default_radii(nr, family)
  resized <- resized_method(method, lp %||% 2)
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
               tuning = tuning, clip = clip)
  # what the newer methods take: the target, the private settings' parts
  # and the (epsilon, delta) those leave for the method
  budget <- list(epsilon = epsilon, delta = delta, fixed = fixed,
                 remaining = remaining_budget(fixed, epsilon, delta))
  res <- switch(method,
    fw = , htp_lasso = , htdp_fw =
      fit_fw(prob, radius, method, steps, fixed, epsilon, delta, clip,
             control, tuning, threads),
    objective = fit_objective(prob, radius,
                              remaining_budget(fixed, epsilon, delta), control),
    sample_aggregate = fit_sample_aggregate(prob, radius, budget, control,
                                            steps),
    bun_steinke = fit_bun_steinke(prob, radius, budget, control, steps),
    acsa = , clipped_sgd = , localized =
      fit_one_pass(prob, radius, method, budget, control, steps),
    fit_mirror(prob, radius, lp,
               list(epsilon = epsilon, delta = delta,
                    fixed_components = lapply(fixed, part_component),
                    remaining = remaining_budget(fixed, epsilon, delta)),
               if (tuning == "private") utils::modifyList(control, list(clip = clip))
               else control, shuffled = method == "mirror_shuffled",
               iterations = steps))

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
                                   lp = if (mirror) lp, offset = offset,
                                   y_scale = y_scale, x_bound = x_bound,
                                   y_bound = y_bound, control = control,
                                   threads = threads,
                                   # on y's own scale, as coef() is
                                   quantile = if (!is.null(quant))
                                     utils::modifyList(quant, list(
                                       bandwidth = quant$bandwidth * y_scale))))
  fit <- new_dpsco(list(beta = beta), x, radius, intercept, call, family,
                   method, yy$classnames, settings = settings,
                   privacy = record, trace_at = integer(), std = std, nobs = n)
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
default_radii <- function(nr, family) {
  top <- if (family == "binomial") 1000 else 100
  if (nr == 1L) return(top / 100)
  top * 10^seq(-3, 0, length.out = nr)
}

# Frank-Wolfe over the l1 ball for "fw", "htp_lasso" and "htdp_fw": the
# gradient estimate of the oracle (no Gaussian noise) and one exponential
# mechanism per step.
fit_fw <- function(prob, radius, method, steps, fixed, epsilon, delta, clip,
                   control, tuning, threads) {
  n <- prob$n
  d <- prob$d
  nr <- length(radius)
  chunked <- method == "htdp_fw"
  # T of the rates of Hu et al.: (n eps)^(2/5) for the full-data methods,
  # (n eps)^(1/3) for the one-pass HTDP-FW (at most n chunks)
  steps <- steps %||% as.integer(ceiling((n * epsilon)^(if (chunked) 1 / 3
                                                          else 2 / 5)))
  if (chunked) steps <- min(steps, n)
  m <- if (chunked) n / steps else n
  # `coord`: how far one record's contribution can move any coordinate of
  # the oracle's sum, so the estimate's add/remove sensitivity is coord / m
  if (chunked) {
    ctl <- control
    if (tuning == "private") {
      # Holland's per-coordinate bound 2 sqrt(2) s / 3 equal to the private
      # clipping level C, as a coordinate clamp at C would have
      ctl$s <- ctl$s %||% (3 * clip / (2 * sqrt(2)))
      ctl$nu <- ctl$nu %||% 10
    }
    oracle <- oracle_setup("holland", ctl, m, d, epsilon, delta)
    coord <- oracle$bound
  } else {
    # |resid| <= |y| + |offset| + r max(1, K) inside the ball of radius r,
    # and each coordinate of (1, x) is at most max(1, K): HTP-LASSO's bound,
    # which also caps the clamp of "fw" on bounded (privately tuned) data
    # (a logistic residual is at most 1, a quantile one max(tau, 1 - tau))
    hard <- max(1, prob$x_bound) *
      if (prob$family == "binomial") 1
      else if (prob$family == "quantile") max(prob$quant$tau, 1 - prob$quant$tau)
      else prob$y_bound + abs(prob$offset) + max(radius) * max(1, prob$x_bound)
    coord <- if (method == "htp_lasso") hard else min(clip, hard)
    # one Kamath group is a coordinate clamp at rho / 2
    oracle <- list(oracle = oracle_codes[["kamath"]], m = m, clip = 1,
                   rho = 2 * coord, k = 1L, s = 1, nu = 1)
  }
  sens <- coord / m
  selections <- if (chunked) nr else as.double(nr) * steps
  # pure epsilon-DP only when nothing else (e.g. a private standardisation)
  # has spent part of the budget
  pure <- chunked && tuning == "public" && !length(fixed)
  if (pure) {
    eps0 <- epsilon / nr
    part <- dp_part("optimizer", epsilon, 0, nr, sens, 1, mechanism = sprintf(
      paste("exponential mechanism over the %d vertices, epsilon0 = %s per",
            "pass (pure epsilon-DP: parallel composition over the %d chunks,",
            "basic over the radii)"), 2L * d, format(signif(eps0, 4)), steps),
      released = sprintf("%d vertices per radius", steps))
  } else {
    z <- calibrate_rdp(fixed, selections, epsilon, delta)
    eps0 <- 2 / z
    part <- privacy_part(
      "optimizer", z, 1, selections, sens, 1, kind = "rdp",
      mechanism = sprintf(paste(
        "exponential mechanism over the %d vertices, epsilon0 = %s per",
        "selection (epsilon0^2/8-zCDP)%s"), 2L * d, format(signif(eps0, 4)),
        if (chunked) ", one pass in chunks per radius" else ""),
      released = sprintf("%d vertices per radius", steps))
  }
  beta <- fw_engine(prob, radius, oracle, steps, eps0, sens, chunked, threads)
  list(beta = beta, parts = list(part),
       settings = list(steps = steps, eps0 = eps0, sensitivity = sens,
                       batch_size = m, coordinate_bound = coord,
                       s = if (chunked) oracle$s, nu = if (chunked) oracle$nu,
                       clip = if (method == "fw") clip),
       public = character(), pure_epsilon = if (pure) epsilon)
}

# The Frank-Wolfe path in C: `oracle` as from oracle_setup(), eps0 the
# exponential mechanism's epsilon per selection (0: exact selection, not
# private), `sens` the bound on one record's move of any coordinate of the
# oracle's estimate.  Returns the d x length(radius) matrix of outputs.
fw_engine <- function(prob, radius, oracle, steps, eps0, sens, chunked = FALSE,
                      threads = 1L) {
  # [[ ]]: prob$fam would partially match prob$family
  settings <- c(oracle, prob[["fam"]] %||% family_settings(prob$family), list(
    intercept = as.integer(prob$intercept), noise_sd = 0, rate = 1,
    threads = as.integer(threads), offset = prob$offset,
    steps = as.integer(steps), eps0 = eps0, score_sensitivity = sens,
    chunked = as.integer(chunked)))
  .Call(C_dpsco_fw, prob$x, as.double(prob$y), settings, as.double(radius),
        rep(0, prob$d))
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
