#' @include registry.R
NULL

# The penalised path of dpsco(): the methods registered with
# path = "lambda" run here, in the phases plan, prepare (shared with the
# radius path), noise, the engine's settings, the method's fit(), the
# support rule and the record.  The traits it reads (gradient_oracle,
# optimizers, truncation, disjoint, blocks, step_scale, output, mechanism,
# released, converges) are documented in method_traits (registry.R).

# Control fields of every penalised method.
lambda_path_control <- c("schedule", "output", "row_bound", "ridge", "memory",
                         "one_release", "support", "support_level")

# The engine's path: every lambda warm-started from the previous one.
engine_path_fit <- function(prob, path, settings) {
  .Call(C_dpsco_fit, prob$x, prob$y, settings, path, prob$beta0,
        prob$trace_at)
}

# `a`: the checked arguments of dpsco() (see there; `family` the family
# object), `spec` the method.  The phases: plan (public values only),
# prepare (standardisation and private settings, shared with
# radius_path()), noise, the engine's settings, the first release and the
# grid, the method's fit(), the support and the record.
lambda_path <- function(spec, a) {
  pl <- plan_lambda_path(spec, a)
  # after every check: the private standardisation draws noise.  Every
  # release from here on, and the record, use the noise chosen here.
  local_secure(a$secure)
  pr <- prepare_path(spec, a, pl$private, pl$epsilon, pl$delta, pl$optimizer,
                     pl$step_size)
  x <- pr$x
  fam <- pr$family
  tn <- pr$tn
  pl <- finish_plan(pl, spec, a, pr)
  nz <- path_noise(spec, a, pl, pr$fixed, pr$std)
  cost <- path_length_cost(a, pl, nz, pr$fixed)
  beta0 <- if (a$tuned) tn$beta0 else rep(0, pl$dd)
  # every iterate stays in a domain built from released or declared
  # ranges (R/domain.R)
  y_range <- if (pl$private)
    a$control$y_range %||% if (a$tuned) released_y_range(tn$released, fam)
  domain <- if (pl$private && a$tuned)
    path_domain(fam, y_range, a$n, tn$curvature, beta0, a$intercept,
                tn$curvature_weight)
  settings <- engine_settings(fam, pl, nz, a$weights, a$offset, domain)
  settings$records <- engine_records(x, a$intercept)
  g0 <- if (nz$first_release) first_release(x, a$y, settings, beta0, pl, nz)
  lambda <- pl$lambda %||% path_grid(a, pl, nz, x, g0, fam)
  settings <- c(settings, newton_settings(pl, tn, g0),
                compact(list(converge = if (spec$converges)
                               is.null(a$iterations))))
  settings$progress <- path_progress(isTRUE(a$trace.it), length(lambda),
                                     environment())
  res <- spec$fit(list(x = x, y = a$y, beta0 = beta0,
                       trace_at = pl$trace_at), lambda, settings)
  settings$records <- NULL
  # the trivial model is always on a private path: at the first penalty,
  # lambda_max, the intercept-only fit, whose private estimate is the
  # released start (the steps run there only to warm-start the next one)
  # (a grid the user gave starts wherever the user chose: fitted as is)
  if (a$tuned && pl$private && is.null(pl$lambda)) res$beta[, 1L] <- beta0
  sup <- lambda_path_support(res$beta, pl, nz, tn, domain)
  res$beta <- sup$beta
  inf <- if (!is.null(pr$inference))
    lambda_path_inference(a, pr, sup$beta[, length(lambda)], pl$epsilon)
  nz$fixed <- inference_record(nz$fixed, inf)
  # the records' weights and offsets are data: only whether they were
  # given is kept (predict() then needs newoffset)
  res$offset <- !is.null(a$offset)
  record <- lambda_path_record(spec, a, pl, nz, pr)
  fit <- new_dpsco(res, x, lambda, a$intercept, a$call, fam, spec$name,
                   a$classnames, settings = lambda_fit_settings(a, pl, nz, fam,
                     if (!is.null(domain)) y_range),
                   privacy = record, trace_at = pl$trace_at, std = pr$std,
                   nobs = a$n, path = "lambda", support = sup$record)
  fit$inference <- inf$result
  fit$path_cost <- cost
  lambda_path_flags(fit, a, pl, nz, tn, g0)
}

# The default grid size of a privately tuned path.
default_nlambda <- 10L

# What a grid size other than the default costs: the budget is shared by
# every penalty's steps, so a step's noise sd grows with the grid (the
# accountant's multiplier for the default grid against this one).  A
# message says so when a longer `nlambda` is given; print() shows it.
path_length_cost <- function(a, pl, nz, fixed) {
  # (one release whatever the grid: its penalties cost nothing)
  if (is.null(a$nlambda) || !pl$private || !a$tuned ||
      a$calibration == "paper" || pl$nlam == default_nlambda ||
      isTRUE(pl$one_release)) return(NULL)
  per <- if (pl$disjoint) 1 else pl$steps
  rel <- nz$releases - pl$nlam * per + default_nlambda * per
  z_def <- calibrate_noise(fixed, nz$q, rel, pl$epsilon, pl$delta)
  cost <- list(nlambda = pl$nlam, default_nlambda = default_nlambda,
               ratio = nz$z / z_def)
  if (pl$nlam > default_nlambda) message(sprintf(paste0(
    "nlambda = %d: the budget is shared by %d penalties, so each step's ",
    "noise sd is %s times that of the default nlambda = %d."),
    pl$nlam, pl$nlam, format(signif(cost$ratio, 3)), default_nlambda))
  cost
}

# Phase 1, from public values only: the optimiser, the target, batches and
# steps, the grid size, the output and the trace.
plan_lambda_path <- function(spec, a) {
  n <- a$n
  p <- ncol(a$x)
  tuned <- a$tuned
  oracle_name <- spec$gradient_oracle %||% spec$name
  private <- method_spec(oracle_name)$oracle$private
  # the Newton path needs the released d x d curvature, which wide data
  # do not get (curvature_max_d())
  wide <- p + a$intercept > curvature_max_d()
  optimizer <- if (is.null(a$optimizer))
                 (if (tuned && !wide && "newton" %in% spec$optimizers) "newton"
                  else "spgd")
               else match_choice(a$optimizer, "optimizer", c("newton", "spgd"))
  target <- path_target(private, a$epsilon, a$delta, n, a$epsilon_given)
  check_number(a$alpha, "alpha", 0, 1, lower_open = FALSE)
  pf <- check_penalty_factor(a$penalty.factor %||% rep(1, p), p)
  bs <- path_batches(spec, a, optimizer)
  lambda <- if (!is.null(a$lambda)) check_lambda(a$lambda)
  nlam <- if (is.null(lambda))
            check_count(a$nlambda %||% if (tuned) default_nlambda else 20L,
                        "nlambda")
          else length(lambda)
  check_sizes(p, a$intercept, nlam, bs$steps, a$trace,
              is.null(a$iterations) && !tuned && !spec$disjoint)
  if (!is.null(a$step_size)) check_number(a$step_size, "step_size", 0)
  nclass <- family_nclass(a$family)
  c(target, list(n = n, m = bs$m,
    lambda = lambda,
    oracle_name = oracle_name, private = private, optimizer = optimizer,
    alpha = a$alpha, pf = pf, lower = a$lower.limits, upper = a$upper.limits,
    grouped = identical(a$type.multinomial, "grouped"),
    penalty_scale = a$penalty.scale %||% "bounded",
    nlam = nlam, steps = as.integer(bs$steps),
    intercept = a$intercept, d = p + a$intercept, nclass = nclass,
    dd = nclass * (p + a$intercept), step_size = a$step_size,
    trace_at = check_trace(a$trace, bs$steps),
    threads = check_count(a$threads, "threads", 1, 64),
    output = spec$output %||% a$control$output %||%
      if (tuned) "tail" else "average",
    step_scale = spec$step_scale, disjoint = spec$disjoint))
}

# The privacy target: (epsilon, delta) checked for a private method; a
# method that adds no noise runs at (Inf, 0).
path_target <- function(private, epsilon, delta, n, epsilon_given = TRUE) {
  if (private) return(list(epsilon = epsilon,
                           delta = check_target(epsilon, delta, n)))
  if (epsilon_given) check_number(epsilon, "epsilon", 0, allow_inf = TRUE)
  if (!is.null(delta)) check_number(delta, "delta", 0, 1, upper_open = TRUE)
  list(epsilon = Inf, delta = 0)
}

# The expected batch size m and the steps per lambda: per-record random
# blocks (spec$blocks()) or Poisson batches.
path_batches <- function(spec, a, optimizer) {
  n <- a$n
  if (spec$disjoint) return(spec$blocks(n, a$batch_size, a$iterations))
  m <- if (is.null(a$batch_size)) n
       else check_number(a$batch_size, "batch_size", 1, n, lower_open = FALSE)
  if (a$secure && m < n)
    arg_error("batch_size", "must be n with secure = TRUE: the accountant's ",
              "bound for Poisson subsampling is proved for the continuous ",
              "Gaussian, and no proof carries it to the discrete Gaussian.")
  steps <- if (!is.null(a$iterations))
             check_count(a$iterations, "iterations", upper = Inf)
           else if (!a$tuned) ceiling(5 * (n / m)^2)
           else if (optimizer == "newton") a$family$model_steps %||% 2L
           else 100
  list(m = m, steps = steps)
}

# The plan completed by the prepared data: the control with the oracle's
# truncation set to the released clipping level (and the Newton path's
# memory at the family's default unless the control gave one), and the
# step size.
finish_plan <- function(pl, spec, a, pr) {
  if (a$tuned) {
    pl$control <- equal_noise_oracle(pl$oracle_name, a$control, pr$tn$clip,
                                     pl$dd, pl$m)
    pl$step_size <- if (is.null(pl$step_size))
                      pr$tn$step_size * pl$step_scale
                    else pr$tn$step_size
  } else {
    # the step from the loss's largest curvature per unit of squared row
    # norm
    pl$control <- a$control
    pl$step_size <- pl$step_size %||%
      (1 / ((1 / pl$step_scale) * pl$d * pr$family$curvature))
  }
  pl <- internal_penalty(pl, pr$std$scale, pr$tn$bound)
  mem <- pr$family$model_memory
  if (pl$optimizer == "newton" && !is.null(mem) &&
      !"memory" %in% attr(pl$control, "given"))
    pl$control$memory <- mem
  pl$one_release <- one_release_path(pl, a, pr)
  if (pl$one_release) {
    # (memory 1: the engine carries the first release to every point and
    # draws nothing more, src/newton.c; one step per penalty reaches the
    # model's minimiser)
    pl$control$memory <- 1
    if (is.null(a$iterations)) pl$steps <- 1L
  }
  pl
}

# Whether a penalised path makes one release (dpsco_control(one_release)):
# only the Newton path of a family whose loss is quadratic, where the
# released curvature is the model's Hessian and the first gradient fixes
# the model.  Not the default: the released curvature is ridged (and,
# where its noise hides a direction, mostly ridge), so the one release's
# path is a ridge-biased one, which fresh gradients correct: at epsilon 1
# it kept 0.47 of glmnet's gain on diamonds where the steps kept 0.80,
# 0.28 against 0.69 on CPS1988 (7 of 9 of the curvature's eigenvalues
# above its noise) and none on ames (bench/README.md, "One release").
one_release_path <- function(pl, a, pr) {
  if (!isTRUE(a$control$one_release)) return(FALSE)
  if (pl$optimizer != "newton" || !isTRUE(pr$family$quadratic) ||
      pl$nclass > 1L || is.null(pr$tn$curvature))
    arg_error("one_release", "= TRUE needs the \"newton\" optimiser with ",
              "a released curvature and a quadratic loss (family ",
              "\"gaussian\").")
  TRUE
}

# The noise of the steps: the multiplier z meets the target with the
# private settings' parts (the accountant composes them exactly: the
# shares are those parts' mu^2, R/settings.R).  The per-lambda epsilon
# and delta below split nothing: they are what the paper's rules read
# (its default rho and s, its printed noise scales, and its own
# calibration under calibration = "paper", which composes by adding
# epsilons, so there the private standardisation's share is a fraction
# of (epsilon, delta), R/standardize.R).
path_noise <- function(spec, a, pl, fixed, std) {
  opt_share <- 1 - (std$part$share %||% 0)
  eps_run <- opt_share * pl$epsilon / pl$nlam
  delta_run <- opt_share * pl$delta / pl$nlam
  oracle <- oracle_setup(pl$oracle_name, pl$control, pl$m, pl$dd, eps_run,
                         delta_run)
  # a privately tuned path first releases the gradient at its starting
  # point: its largest coordinate sets the grid, and the Newton path reuses
  # it as its first step
  first <- a$tuned && (is.null(a$lambda) || pl$optimizer == "newton")
  # one pass over per-record random blocks is one release per record
  # (parallel composition), like the full-data first release
  q <- if (pl$disjoint) 1 else min(1, pl$m / a$n)
  # (one release: the first gradient, which the model carries everywhere)
  releases <- if (isTRUE(pl$one_release)) 1
              else as.double(pl$nlam) * (if (pl$disjoint) 1 else pl$steps) +
                (first && pl$optimizer == "spgd")
  z <- if (!pl$private) 0
       else if (a$calibration == "paper")
         paper_multiplier(spec$name, eps_run, delta_run, oracle$k)
       else calibrate_noise(fixed, q, releases, pl$epsilon, pl$delta)
  # the secure release rounds to a grid, whose step is inside its
  # sensitivity (and so in its noise sd)
  noise <- if (a$secure && z > 0) secure_gaussian(z, oracle$sensitivity, pl$dd)
           else list(sd = z * oracle$sensitivity, grid = 0,
                     sensitivity = oracle$sensitivity)
  list(oracle = oracle, z = z, q = q, releases = releases, noise = noise,
       first_release = first, eps_run = eps_run, delta_run = delta_run,
       fixed = fixed)
}

# The engine's settings of a penalised path, the fields of src/entry.c's
# fit_fields in its order: the problem (the family's fields, the sampling
# rate, the noise and each record's weight and offset, read with its
# record), the oracle (oracle_setup()'s list whole), the loop and the
# bounded domain.  The Newton model's fields follow the first release
# (newton_settings()).
engine_settings <- function(fam, pl, nz, weights, offset, domain) {
  c(list(intercept = as.integer(pl$intercept), threads = pl$threads),
    fam$settings,
    list(rate = if (pl$disjoint) pl$m / pl$n else nz$q,
         noise_sd = nz$noise$sd, noise_grid = nz$noise$grid),
    # (sharded: the workers' own, which never come here)
    compact(list(weights = if (!is_sharded(weights)) weights,
                 offsets = if (!is_sharded(offset)) offset)),
    nz$oracle,
    list(steps = pl$steps, step_size = pl$step_size,
         sqrt_schedule = as.integer(pl$control$schedule == "sqrt"),
         last_iterate = as.integer(pl$output == "last"),
         tail_average = as.integer(pl$output == "tail"), alpha = pl$alpha,
         penalty_factor = pl$pf, disjoint = as.integer(pl$disjoint)),
    compact(list(lower_limits = pl$lower_limits,
                 upper_limits = pl$upper_limits,
                 grouped = if (pl$grouped) 1L)),
    domain)
}

# The first release: the gradient at the start (disjoint blocks: a clipped
# mean of every record, sensitivity C / n).
first_release <- function(x, y, settings, beta0, pl, nz) {
  if (pl$disjoint)
    settings <- utils::modifyList(settings, list(
      m = pl$n, rate = 1, noise_sd = nz$z * nz$oracle$clip / pl$n,
      disjoint = 0L))
  .Call(C_dpsco_release, x, y, settings, beta0)
}

# The engine's copy of x (row-major, CSR, or a mapped file's row norms),
# built once for the path: the first release and every step read it
# (src/shard.c dpsco_layout()).  None for a sharded x, whose records stay
# on its workers.
engine_records <- function(x, intercept) {
  if (!(is.matrix(x) && is.double(x)) && !is_sparse(x) && !is_mapped(x))
    return(NULL)
  density <- getOption("dpsco.sparse_density", 0.2)
  if (!is.numeric(density) || !is.finite(density[1L])) density <- 0.2
  threads <- as.integer(getOption("dpsco.threads", 2L))
  .Call(C_dpsco_layout, x, as.integer(intercept), as.double(density[1L]),
        threads)
}

# The lambda grid when none is given: from the first release (private
# tuning) or the non-private lambda_max of the data.
path_grid <- function(a, pl, nz, x, g0, fam) {
  tuned <- a$tuned
  lmr <- a$lambda.min.ratio %||%
    if (tuned) 1e-3 else if (a$n < ncol(x)) 0.01 else 1e-4
  check_number(lmr, "lambda.min.ratio", 0, 1)
  if (lmr >= 1) arg_error("lambda.min.ratio", "must be below 1.")
  if (tuned) released_grid(g0, pl$intercept, pl$alpha, pl$pf, pl$nlam, lmr,
                           pl$nclass)
  else lambda_grid(nz$oracle$bound, x, a$y, fam, pl$private, pl$alpha,
                   pl$pf, pl$intercept, pl$nlam, lmr, fam$tau, a$weights,
                   a$offset, pl$nclass)
}

# The Newton model's fields: the first gradient, the released curvature,
# the memory and a multinomial's class matrix.
newton_settings <- function(pl, tn, g0) {
  if (pl$optimizer != "newton") return(list())
  compact(list(first_gradient = g0, curvature = tn$curvature,
               memory = pl$control$memory, class_matrix = tn$class_matrix))
}

# The support: coefficients within the noise the optimiser carried are 0
# (post-processing of released values: R/support.R); zeroing coefficients
# (and the multinomial rule's adjustment of the kept ones,
# drop_features()) can leave the domain in its metric: back into it.
lambda_path_support <- function(beta, pl, nz, tn, domain) {
  curv <- if (!is.null(tn$curvature))
            structure(tn$curvature, eigen = tn$curvature_eigen)
  sup <- path_support(beta, pl$control, nz$noise$sd, pl$optimizer,
                      pl$step_size, curv, pl$steps, pl$output, pl$intercept,
                      pl$pf, pl$alpha, pl$nclass,
                      if (pl$optimizer == "newton") tn$class_matrix)
  sup$beta <- clamp_limits(project_domain(sup$beta, domain, pl$nclass), pl)
  sup
}

# The coefficients back in the box of lower.limits and upper.limits (the
# fitted scale's), which the support rule's compensation can leave.
clamp_limits <- function(beta, pl) {
  if (is.null(pl$lower_limits) && is.null(pl$upper_limits)) return(beta)
  p <- pl$d - pl$intercept
  lo <- rep_len(pl$lower_limits %||% -Inf, p)
  hi <- rep_len(pl$upper_limits %||% Inf, p)
  for (k in seq_len(pl$nclass)) {
    r <- (k - 1L) * pl$d + pl$intercept + seq_len(p)
    beta[r, ] <- pmin(pmax(beta[r, , drop = FALSE], lo), hi)
  }
  beta
}

# The privacy record of a penalised path: the private settings' parts and
# the optimiser's, and what was public.
lambda_path_record <- function(spec, a, pl, nz, pr) {
  tuned <- a$tuned
  first <- nz$first_release
  fixed <- nz$fixed
  public <- c(public_n_note(a$n), "p (dimension)",
              if (!tuned || !first) "lambda grid",
              if (tuned) c("batch size and iterations", "budget shares",
                           pr$tn$public)
              else c("batch size, iterations and step sizes",
                     "oracle parameters"),
              pr$std$public,
              if (!is.null(a$weights)) "the bound 1 on the weights",
              "any preprocessing applied to x and y before the call")
  parts <- c(fixed, list(privacy_part(
    "optimizer", nz$z, nz$q, nz$releases, nz$noise$sensitivity,
    share_left(fixed),
    mechanism = if (pl$disjoint) spec$mechanism()
      else paste0("Gaussian: ", spec$name, " oracle",
                  if (nz$q < 1) ", Poisson-subsampled"),
    released = if (pl$disjoint) spec$released(pl$nlam, pl$steps, first)
      else if (isTRUE(pl$one_release))
        paste("1 gradient, at the start: it sets the lambda grid, and the",
              "released curvature carries it to every penalty",
              "(post-processing)")
      else paste0(nz$releases, " gradients",
                  if (first) "; the first sets the lambda grid"))))
  new_privacy_record(
    pl$epsilon, pl$delta, parts,
    calibration = if (pl$private) a$calibration else "none", public = public,
    not_covered = pr$std$not_covered, public_n = a$n,
    extra = c(list(steps = pl$steps, nlambda = pl$nlam, batch_size = pl$m,
                   one_release = if (isTRUE(pl$one_release)) TRUE,
                   noise_grid = if (a$secure) nz$noise$grid,
                   epsilon_per_lambda = nz$eps_run,
                   delta_per_lambda = nz$delta_run,
                   tuning = a$tuning, released = if (tuned) pr$tn$released,
                   loss = quantile_loss_text(pr$family$options)),
              if (pl$disjoint) list(sampling = spec$sampling)))
}

# The fit's `settings`: every tuning value used.
lambda_fit_settings <- function(a, pl, nz, fam, y_range) {
  oracle <- nz$oracle
  list(batch_size = pl$m, iterations = pl$steps, secure = a$secure,
       step_size = pl$step_size, schedule = pl$control$schedule,
       output = pl$output, alpha = pl$alpha, penalty.factor = pl$pf,
       clip = oracle$clip, rho = oracle$rho, k = oracle$k, s = oracle$s,
       nu = oracle$nu, calibration = a$calibration, tuning = a$tuning,
       optimizer = pl$optimizer, one_release = isTRUE(pl$one_release),
       control = pl$control, threads = pl$threads,
       threads_used = min(pl$threads, max_threads()),
       quantile = fam$options, y_range = y_range)
}

# What the fit says of its path: where the trivial model is on it
# (cv.dpsco()'s prior), whether the range of y was lost in the noise and
# whether the first release shows any signal (signal.R).
lambda_path_flags <- function(fit, a, pl, nz, tn, g0) {
  fit$trivial <- if (a$tuned && pl$private && is.null(pl$lambda)) 1L
  if (a$tuned && isTRUE(tn$y_unresolved)) fit$y_unresolved <- TRUE
  if (nz$first_release && pl$private) {
    pen <- penalised_rows(pl$pf, pl$intercept, pl$nclass)
    fit$signal <- signal_check(g0, nz$noise$sd, pen, a0 = signal_offset(
      tn$curvature, pl$intercept, pl$nclass, pen))
  }
  fit
}

# The positions of the penalised coefficients among the dd = nclass (p +
# intercept) of a release.
penalised_rows <- function(pf, intercept, nclass = 1L) {
  d <- length(pf) + intercept
  as.vector(outer(which(pf > 0) + intercept, (seq_len(nclass) - 1L) * d, `+`))
}
