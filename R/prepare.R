# The prepare phase shared by both path drivers: standardisation and the
# private settings, after every argument check.

# Phase 2 of both paths, after every check: the standardisation and, with
# private tuning, every private setting (tune_private(); the radius
# methods' `constrained` settings), or with public tuning the family's
# data-independent options.  Draws noise.  Returns the design the fit
# sees, the standardisation (with the private bounds), the private
# settings' parts (`fixed`), the family with its chosen options and the
# private settings `tn` (NULL with public tuning).
prepare_path <- function(spec, a, private, epsilon, delta,
                         optimizer = "spgd", step_size = NULL,
                         constrained = FALSE) {
  paper <- identical(a$calibration, "paper")
  std <- standardize_x(a$x, a$standardize, a$intercept, private, epsilon,
                       delta, a$control, a$n, paper)
  fixed <- if (is.null(std$part)) list() else list(std$part)
  if (isTRUE(std$deferred) && !a$tuned)
    stop("internal error: a deferred standardisation needs private tuning")
  if (!a$tuned)
    return(list(x = std$x, std = std, fixed = fixed, tn = NULL,
                family = family_public(a$family, a$n, ncol(a$x))))
  z1 <- if (private) calibrate_noise(list(), 1, 1, epsilon, delta) else 0
  # the inference stage's share and the private standardisation's come off
  # the top: the settings take their shares of what is left, all in the
  # one unit of R/settings.R (mu^2), so their multipliers grow by
  # 1 / sqrt(1 - share)
  share <- (a$inference %||% 0) + (if (paper) 0 else std$part$share %||% 0)
  tn <- tune_private(std$x, a$y, a$family, spec$truncation, optimizer,
                     a$intercept, z1 / sqrt(1 - share), step_size, a$control,
                     constrained = constrained,
                     row = !constrained || spec$row, n = a$n,
                     weights = a$weights, offset = a$offset,
                     delta = if (private) delta,
                     moved = if (isTRUE(std$deferred))
                               moved_columns(std$x, std))
  parts <- lapply(tn$parts, function(p) {
    p$share <- p$share * (1 - share)
    p
  })
  inf <- if (isTRUE(a$inference > 0))
    inference_plan(a$family, a$inference, z1, a$intercept,
                   tails = a$inference_tails %||% "default")
  list(x = tn$x, std = add_bounds(std, tn$bound),
       fixed = c(fixed, parts, inf$parts), tn = tn, family = tn$family,
       inference = inf)
}
