#' @include registry.R
NULL

# The penalised path of dpsco(): the methods registered with
# path = "lambda" run here.  Traits read from the method's object:
#   gradient_oracle  the registered oracle whose estimator each step uses (its
#                own name unless it borrows another's);
#   optimizers   the optimisers it runs with, the first its default with
#                private tuning ("newton" needs the private curvature);
#   truncation   "l2" when private tuning releases a clipping level,
#                "none" when it needs none;
#   disjoint     TRUE: each pass is one pass over per-record random blocks
#                (the engine's disjoint mode), FALSE: Poisson batches;
#   blocks       (disjoint) function(n, batch_size, iterations) giving the
#                blocks' expected size m and their number per pass;
#   step_scale   the factor of the default step (1 / 2 for Algorithm 8);
#   output       the output it always returns, or NULL for control$output;
#   mechanism, released  (disjoint) functions giving the record's text.

# Control fields of every penalised method.
lambda_path_control <- c("schedule", "output", "row_bound", "ridge", "memory",
                         "support", "support_level")

# The engine's path: every lambda warm-started from the previous one.
engine_path_fit <- function(prob, path, settings) {
  .Call(C_dpsco_fit, prob$x, prob$y, settings, path, prob$beta0, prob$trace_at)
}

# `a`: the checked arguments of dpsco() (see there), `spec` the method.
lambda_path <- function(spec, a) {
  x <- a$x
  n <- a$n
  p <- ncol(x)
  family <- a$family
  quant <- a$quant
  control <- a$control
  tuned <- a$tuned
  intercept <- a$intercept
  disjoint <- isTRUE(spec$disjoint)
  # a multinomial model has one block of p + intercept coefficients per
  # declared class; everything the oracles and the noise see has K of them
  multi <- family == "multinomial"
  nclass <- if (multi) length(a$classnames) else 1L
  if (multi) {
    if (!is.null(a$offset))
      arg_error("offset", "is not available for the multinomial family.")
    if (is_mapped(x))
      arg_error("x", "is file-backed; a multinomial fit needs x in memory ",
                "(a matrix or a dgCMatrix).")
  }
  oracle_name <- spec$gradient_oracle %||% spec$name
  private <- method_spec(oracle_name)$oracle$private
  if (!is.null(a$radius))
    arg_error("radius", "applies to the methods fitted along radii (",
              paste0("\"", path_methods("radius"), "\"", collapse = ", "), ").")
  if (!is.null(a$lp))
    arg_error("lp", "applies to the methods of an l_p geometry (",
              paste0("\"", lp_methods(), "\"", collapse = ", "), ") only.")
  # the Newton path needs the released d x d curvature, which wide data
  # do not get (curvature_max_d)
  wide <- p + intercept > curvature_max_d()
  optimizer <- if (is.null(a$optimizer))
                 (if (tuned && !wide && "newton" %in% spec$optimizers) "newton"
                  else "spgd")
               else match_choice(a$optimizer, "optimizer", c("newton", "spgd"))
  if (!optimizer %in% spec$optimizers)
    arg_error("optimizer", "\"", spec$name, "\" runs with optimizer = \"",
              spec$optimizers, "\" only; leave optimizer NULL.")
  if (optimizer == "newton" && !tuned)
    arg_error("optimizer", "\"newton\" needs the private curvature of ",
              "tuning = \"private\".")
  if (a$calibration == "paper" && is.null(spec$oracle$paper))
    arg_error("calibration", "\"paper\" exists only for the paper's ",
              "methods clip, kamath and holland.")
  if (!is.null(spec$output) && !is.null(control$output) &&
      control$output != spec$output)
    arg_error("control", "$output: \"", spec$name, "\" returns the ",
              spec$output, " iterate.")
  epsilon <- a$epsilon
  delta <- a$delta
  if (private) {
    delta <- check_target(epsilon, delta, n)
  } else {
    if (a$epsilon_given) check_number(epsilon, "epsilon", 0, allow_inf = TRUE)
    if (!is.null(delta)) check_number(delta, "delta", 0, 1, upper_open = TRUE)
    epsilon <- Inf
    delta <- 0
  }
  alpha <- a$alpha
  check_number(alpha, "alpha", 0, 1, lower_open = FALSE)
  pf <- check_penalty_factor(a$penalty.factor %||% rep(1, p), p)
  iterations <- a$iterations
  if (disjoint) {
    bs <- spec$blocks(n, a$batch_size, iterations)
    m <- bs$m
    steps <- bs$steps
  } else {
    m <- if (is.null(a$batch_size)) n
         else check_number(a$batch_size, "batch_size", 1, n, lower_open = FALSE)
    if (a$secure && m < n)
      arg_error("batch_size", "must be n with secure = TRUE: the accountant's ",
                "bound for Poisson subsampling is proved for the continuous ",
                "Gaussian, and no proof carries it to the discrete Gaussian.")
    steps <- if (!is.null(iterations)) check_count(iterations, "iterations", upper = Inf)
             else if (!tuned) ceiling(5 * (n / m)^2)
             else if (optimizer == "newton") 2 else 100
  }
  lambda <- a$lambda
  if (is.null(lambda)) {
    nlam <- check_count(a$nlambda %||% if (tuned) 10L else 20L, "nlambda")
  } else {
    lambda <- check_lambda(lambda)
    nlam <- length(lambda)
  }
  check_sizes(p, intercept, nlam, steps, a$trace,
              is.null(iterations) && !tuned && !disjoint)
  steps <- as.integer(steps)
  d <- p + intercept
  dd <- nclass * d  # coordinates of every release
  if (optimizer == "newton" && wide)
    arg_error("optimizer", "\"newton\" releases a d x d curvature matrix; ",
              "d = ", d, " is above its limit of ", curvature_max_d(),
              " (use \"spgd\", the default there).")
  step_size <- a$step_size
  if (!is.null(step_size)) check_number(step_size, "step_size", 0)
  trace_at <- check_trace(a$trace, steps)
  if (multi && length(trace_at))
    arg_error("trace", "is not available for the multinomial family.")
  threads <- check_count(a$threads, "threads", 1, 64)
  output <- spec$output %||% control$output %||% if (tuned) "tail" else "average"
  step_scale <- spec$step_scale %||% 1
  # after every check: the private standardisation draws noise.  Every
  # release from here on, and the record, use the noise chosen here.
  local_secure(a$secure)
  std <- standardize_x(x, a$standardize, intercept, private, epsilon, delta,
                       control, n)
  x <- std$x
  q <- min(1, m / n)
  fixed <- if (is.null(std$part)) list() else list(std$part)
  if (tuned) {
    z1 <- if (private) calibrate_noise(list(), 1, 1, epsilon, delta) else 0
    tn <- tune_private(x, a$y, if (multi) family_multinomial(nclass) else family,
                       spec$truncation, optimizer, intercept,
                       z1, step_size, control, quant = quant, n = n,
                       weights = a$weights, offset = a$offset)
    quant <- tn$quant
    x <- tn$x
    std <- add_bounds(std, tn$bound)
    control <- equal_noise_oracle(oracle_name, control, tn$clip, dd, m)
    step_size <- if (is.null(step_size)) tn$step_size * step_scale
                 else tn$step_size
    fixed <- c(fixed, tn$parts)
  } else {
    # a smoothed loss: conquer's data-independent bandwidth; the step from
    # the loss's largest curvature per unit of squared row norm
    if (!is.null(quant))
      quant$bandwidth <- quant$bandwidth %||% conquer_bandwidth(n, p)
    step_size <- step_size %||%
      (1 / ((1 / step_scale) * d * family_object(family, quant)$curvature))
  }
  # the optimiser's share of the budget, split over the lambdas, sets the
  # paper's default rho and s and its printed noise scales
  opt_share <- 1 - (std$part$share %||% 0)
  eps_run <- opt_share * epsilon / nlam
  delta_run <- opt_share * delta / nlam
  oracle <- oracle_setup(oracle_name, control, m, dd, eps_run, delta_run)
  # a privately tuned path first releases the gradient at its starting
  # point: its largest coordinate sets the grid, and the Newton path reuses
  # it as its first step
  first_release <- tuned && (is.null(lambda) || optimizer == "newton")
  # one pass over per-record random blocks is one release per record
  # (parallel composition), like the full-data first release
  if (disjoint) q <- 1
  releases <- as.double(nlam) * (if (disjoint) 1 else steps) +
    (first_release && optimizer == "spgd")
  z <- if (!private) 0
       else if (a$calibration == "paper")
         paper_multiplier(spec$name, eps_run, delta_run, oracle$k)
       else calibrate_noise(fixed, q, releases, epsilon, delta)
  # the secure release rounds to a grid, whose step is inside its
  # sensitivity (and so in its noise sd)
  noise <- if (a$secure && z > 0) secure_gaussian(z, oracle$sensitivity, dd)
           else list(sd = z * oracle$sensitivity, grid = 0,
                     sensitivity = oracle$sensitivity)

  settings <- c(oracle, family_settings(family, quant$tau, quant$bandwidth,
                                        quant$smoother, nclass), list(
    intercept = as.integer(intercept),
    noise_sd = noise$sd, noise_grid = noise$grid,
    rate = if (disjoint) m / n else q, steps = steps,
    step_size = step_size,
    sqrt_schedule = as.integer(control$schedule == "sqrt"),
    last_iterate = as.integer(output == "last"),
    tail_average = as.integer(output == "tail"), alpha = alpha,
    penalty_factor = pf, threads = threads, disjoint = as.integer(disjoint)),
    # each record's weight and offset, read with its record by the engine
    compact(list(weights = a$weights, offsets = a$offset)))
  beta0 <- if (tuned) tn$beta0 else rep(0, dd)
  # every iterate stays in a domain built from released or declared
  # ranges (R/domain.R)
  y_range <- if (private)
    control$y_range %||% if (tuned) released_y_range(tn$released, family)
  domain <- if (private && tuned)
    path_domain(if (multi) family_multinomial(nclass)
                else family_object(family, quant),
                y_range, n, tn$curvature, beta0, intercept, quant, nclass,
                tn$curvature_weight)
  settings <- c(settings, domain)
  if (first_release) {
    # (disjoint blocks: a clipped mean of every record, sensitivity C / n)
    g0 <- .Call(C_dpsco_release, x, a$y,
                if (!disjoint) settings
                else utils::modifyList(settings, list(
                  m = n, rate = 1, noise_sd = z * oracle$clip / n,
                  disjoint = 0L)),
                beta0)
    if (optimizer == "newton") settings$first_gradient <- g0
  }
  if (is.null(lambda)) {
    lmr <- a$lambda.min.ratio %||% if (tuned) 1e-3 else if (n < p) 0.01 else 1e-4
    check_number(lmr, "lambda.min.ratio", 0, 1)
    if (lmr >= 1) arg_error("lambda.min.ratio", "must be below 1.")
    lambda <- if (tuned) released_grid(g0, intercept, alpha, pf, nlam, lmr,
                                       nclass)
              else lambda_grid(oracle$bound, x, a$y, family, private, alpha,
                               pf, intercept, nlam, lmr, quant$tau,
                               a$weights, a$offset, nclass)
  }
  if (optimizer == "newton") {
    mem <- family_object(family)$model_memory
    if (!is.null(mem) && !"memory" %in% attr(control, "given"))
      control$memory <- mem
    settings$curvature <- tn$curvature
    settings$memory <- control$memory
    if (multi) settings$class_matrix <- tn$class_matrix
  }
  # a method that solves to convergence does so unless iterations is given
  if (isTRUE(spec$converges)) settings$converge <- is.null(iterations)
  settings$progress <- path_progress(isTRUE(a$trace.it), length(lambda),
                                     environment())
  res <- spec$fit(list(x = x, y = a$y, beta0 = beta0, trace_at = trace_at), lambda, settings)
  # the trivial model is always on a private path: at the first penalty,
  # lambda_max, the intercept-only fit, whose private estimate is the
  # released start (the steps run there only to warm-start the next one)
  if (tuned && private) res$beta[, 1L] <- beta0
  # the support: coefficients within the noise the optimiser carried are 0
  # (post-processing of released values: R/support.R)
  curv <- if (tuned && !is.null(tn$curvature))
            structure(tn$curvature, eigen = tn$curvature_eigen)
  # (a ridge, alpha = 0, has no sparsity for the rule to act on: every
  # coefficient stays)
  sup <- if (alpha == 0) list(beta = res$beta, record = NULL)
         else if (multi)
           apply_support_classes(res$beta, control, noise$sd, optimizer,
                                 step_size, curv, steps, output, intercept,
                                 pf, nclass, settings$class_matrix)
         else apply_support(res$beta, control, noise$sd, optimizer, step_size,
                            curv, steps, output, intercept, pf)
  res$beta <- sup$beta
  # zeroing coefficients (and the multinomial rule's adjustment of the
  # kept ones, drop_features()) can leave the domain in its metric: back
  # into it
  res$beta <- project_domain(res$beta, domain, nclass)
  # the records' weights and offsets are data: only whether they were
  # given is kept (predict() then needs newoffset)
  res$offset <- !is.null(a$offset)

  public <- c(public_n_note(n), "p (dimension)",
              if (!tuned || !first_release) "lambda grid",
              if (tuned) c("batch size and iterations", "budget shares",
                           tn$public)
              else c("batch size, iterations and step sizes",
                     "oracle parameters"),
              std$public,
              if (!is.null(a$weights)) "the bound 1 on the weights",
              "any preprocessing applied to x and y before the call")
  parts <- c(fixed, list(privacy_part(
    "optimizer", z, q, releases, noise$sensitivity,
    1 - sum(vapply(fixed, `[[`, 0, "share")),
    mechanism = if (disjoint) spec$mechanism()
      else paste0("Gaussian: ", spec$name, " oracle",
                  if (q < 1) ", Poisson-subsampled"),
    released = if (disjoint) spec$released(nlam, steps, first_release)
      else paste0(releases, " gradients",
                  if (first_release) "; the first sets the lambda grid"))))
  record <- new_privacy_record(
    epsilon, delta, parts,
    calibration = if (private) a$calibration else "none", public = public,
    not_covered = std$not_covered, public_n = n,
    extra = c(list(steps = steps, nlambda = nlam, batch_size = m,
                   noise_grid = if (a$secure) noise$grid,
                   epsilon_per_lambda = eps_run, delta_per_lambda = delta_run,
                   tuning = a$tuning, released = if (tuned) tn$released,
                   loss = quantile_loss_text(quant)),
              if (disjoint) list(sampling = spec$sampling)))
  fit <- new_dpsco(res, x, lambda, intercept, a$call, family, spec$name, a$classnames,
            settings = list(batch_size = m, iterations = steps, secure = a$secure,
                            step_size = step_size, schedule = control$schedule,
                            output = output, alpha = alpha,
                            penalty.factor = pf, clip = oracle$clip,
                            rho = oracle$rho, k = oracle$k, s = oracle$s,
                            nu = oracle$nu, calibration = a$calibration,
                            tuning = a$tuning, optimizer = optimizer,
                            control = control, threads = threads,
                            threads_used = min(threads, max_threads()),
                            quantile = quant,
                            y_range = if (!is.null(domain)) y_range),
            privacy = record, trace_at = trace_at, std = std, nobs = n,
            path = "lambda", support = sup$record)
  # where the trivial model is on the path (cv.dpsco()'s prior)
  fit$trivial <- if (tuned && private) 1L
  # whether the range of y was lost in the noise (signal.R)
  if (tuned && isTRUE(tn$y_unresolved)) fit$y_unresolved <- TRUE
  # whether the first release shows any signal (signal.R)
  if (first_release && private)
    fit$signal <- signal_check(g0, noise$sd,
                               penalised_rows(pf, intercept, nclass))
  fit
}

# The positions of the penalised coefficients among the dd = nclass (p +
# intercept) of a release.
penalised_rows <- function(pf, intercept, nclass = 1L) {
  d <- length(pf) + intercept
  as.vector(outer(which(pf > 0) + intercept, (seq_len(nclass) - 1L) * d, `+`))
}
