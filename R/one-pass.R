# The one-pass clipped methods of Lowy and Razaviyayn ("Private stochastic
# optimization with large worst-case Lipschitz parameter"), run by the C
# engine (src/one_pass.c, and src/spgd.c's disjoint mode):
#   "acsa"             Algorithm 2, noisy clipped accelerated SGD (AC-SA);
#   "clipped_sgd"      Algorithm 6, noisy clipped SGD for a strongly convex
#                      loss (here: the loss plus a public ridge);
#   "localized"        Algorithm 4, localized noisy clipped subgradient
#                      method (phases of Algorithm 3);
#   "prox_clipped_sgd" Algorithm 8, noisy clipped proximal SGD along the
#                      penalty path of dpsco().
# The first three are constraint-set methods over the l2 ball of each
# radius (their files, acsa.R, clipped-sgd.R and localized.R, register
# them to call fit_one_pass()); the fourth runs on the penalised path
# (prox-clipped-sgd.R registers it for lambda_path()).
#
# Every step is Algorithm 1 on a block of records: each record's gradient
# clipped to l2 norm C, the block's sum divided by its public expected size
# N, plus N(0, (z C / N)^2) per coordinate.  The blocks of one radius (or
# lambda) come from labels that every record draws for itself, afresh per
# pass and independently of the data (src/sample.c, sample_groups()):
# "acsa" and "clipped_sgd" have T blocks, each record in each w.p. 1 / T,
# N = n / T; "prox_clipped_sgd" has T blocks of probability N / n each
# (T N <= n; the rest of the probability sits the pass out); "localized"
# puts a record in phase i = 1 .. k w.p. 2^-i, n_i = n 2^-i, and in none
# w.p. 2^-k.  n is the public size (prob$n, the `n` of the helpers below),
# which may differ from nrow(x): N and n_i are doubles computed from it, and
# no divisor or noise scale is ever a count of records.
#
# Privacy, add/remove one record r at the public n.  Fix the outputs of the
# earlier passes.  The other records' labels have the same distribution
# with or without r, so couple them; given the labels, r is in one block or
# in none.  Every other block holds the same records and sees the same
# iterates whenever the earlier outputs are the same: the same kernel of
# the history on both sides (adaptive composition).  r's block sum moves by
# its clipped gradient, at most C in l2, over the same public divisor N, so
# that release is a Gaussian mechanism of sensitivity C / N and sd z C / N:
# given the labels the pass is 1 / (2 z^2)-zCDP (Renyi DP alpha / (2 z^2))
# both when r is added and when it is removed (the Gaussian divergence is
# symmetric), and 0 when r sits out.  The labels are not released, and the
# Renyi divergence is jointly quasi-convex, so the mixture over them keeps
# the bound: a pass is one Gaussian release per record with multiplier z,
# the RDP alpha / (2 z^2) of the accountant's Gaussian part.  The localized
# method's record is in the T_i steps of its phase only, each with
# multiplier z sqrt(T_i) (sensitivity C / n_i, noise z sqrt(T_i) C / n_i):
# together again 1 / (2 z^2)-zCDP.  Radii (or lambdas) compose: nr such
# releases per record.  Blocks of a fixed size cut from a permutation would
# not do: an added record pushes another out of its block, a replacement
# that moves the block mean by 2 C / N.
#
# The paper states many of its formulas only up to constants or leaves
# them implicit; the choices made here (from Ghadimi and Lan 2012 for
# AC-SA, Stich 2019 for the step sizes and weights of Algorithm 6, Feldman,
# Koren and Talwar 2020 for the localization) are stated where each
# setting is chosen below.

#' @name dpsco
#' @rdname dpsco
#' @section One-pass clipped methods (Lowy and Razaviyayn):
#' Four methods of Lowy and Razaviyayn (2023, "Private stochastic
#' optimization with large worst-case Lipschitz parameter") use each record
#' at most once per pass: per radius or lambda every record draws its own
#' random block label, independently of the data, and a block is the
#' records that drew its label; a step takes the sum of its block's
#' gradients, each clipped to l2 norm `C`, divided by the block's public
#' expected size `N` (not by its realised size), plus `N(0, (z C / N)^2)`
#' per coordinate.  Adding or removing a record then changes one block only,
#' by at most `C / N`, so a pass is one Gaussian release per record
#' (parallel composition), which is `1 / (2 z^2)`-zCDP, i.e. Renyi DP
#' `alpha / (2 z^2)` at every order: the passes and the private settings
#' are composed exactly by the accountant, and `z` is calibrated to the
#' target.  The expected sizes come from the public `n`.
#' \describe{
#'   \item{`"acsa"`}{noisy clipped accelerated SGD (their Algorithm 2,
#'     AC-SA of Ghadimi and Lan 2012) over the l2 ball of each radius;
#'     `T = (beta D n sqrt(rho) / (C sqrt(d)))^(2/5)` steps, each record in
#'     each of the `T` blocks with probability `1 / T`, `N = n / T` (`D`
#'     the ball's diameter, `rho = 1 / (2 z^2)`, `beta` the smoothness),
#'     step weights `alpha_t = 2 / (t + 1)`,
#'     `gamma_t = 4 eta / (t (t + 1))` with `eta` the minimiser of Ghadimi
#'     and Lan's bound given the estimate's variance
#'     `d (z C / N)^2 + C^2 / N`.}
#'   \item{`"clipped_sgd"`}{noisy clipped projected SGD for a strongly convex
#'     loss (Algorithm 6): the loss plus the public ridge `mu ||w||^2 / 2`
#'     (`dpsco_control(sgd_ridge = mu)`, default `beta / 1000`), the
#'     step sizes and averaging weights of Stich (2019); at most
#'     `sqrt(n)` steps by default, blocks as for `"acsa"`.}
#'   \item{`"localized"`}{localized noisy clipped subgradient method
#'     (Algorithm 4, iterative localization of Feldman, Koren and Talwar
#'     2020): `k` phases (`iterations`, default `log2(n)`); a record joins
#'     phase `i` with probability `2^-i` (and no phase with probability
#'     `2^-k`), and phase `i`, of expected size `n_i = n / 2^i`, runs `T_i`
#'     steps (at most 100) on the loss plus
#'     `(lambda_i / 2) ||w - w_{i-1}||^2` (only the loss is clipped),
#'     over the ball intersected with `||w - w_{i-1}|| <= C / lambda_i`; each
#'     step's noise is `z sqrt(T_i) C / n_i`, so a record's `T_i` releases
#'     together are again `1 / (2 z^2)`-zCDP.}
#'   \item{`"prox_clipped_sgd"`}{noisy clipped proximal SGD (Algorithm 8)
#'     along the elastic-net penalty path: per lambda one pass of
#'     `iterations` (default 20) blocks of expected size `batch_size`
#'     (default `n / iterations`), each record in each block with
#'     probability `batch_size / n`, Lowy and Razaviyayn's step
#'     `1 / (2 beta)` (beta: the top eigenvalue of the released curvature,
#'     or `d` with public tuning), the last iterate as output and warm
#'     start.  With private tuning it
#'     takes `"clip"`'s private settings and its lambda grid from one
#'     full-data clipped gradient released with the same `z`.}
#' }
#' With private tuning the clip level `C` and the smoothness (the squared
#' private row bound, times 1/4 for binomial) are those of the mirror
#' methods; with `tuning = "public"`, `control$clip` (default 1) and `d`.
#' Where Lowy and Razaviyayn leave a constant implicit, `R/one-pass.R`
#' states the choice made.
NULL

one_pass_codes <- c(acsa = 0L, clipped_sgd = 1L, localized = 2L)

one_pass_sampling <- paste(
  "per-record random block labels, drawn afresh per pass independently of",
  "the data; each block's clipped sum divided by its public expected size",
  "(from the public n): each record in at most one step (\"localized\": in",
  "its phase's steps) per pass")

# The number of phases of "localized" by default: Feldman, Koren and
# Talwar's k = log2(n), the most for which every phase keeps a record.
default_phases <- function(n) max(1L, as.integer(floor(log2(n))))

# The step sizes and averaging weights of Algorithm 6, from Stich (2019,
# Lemma 3) with the recursion of Lowy and Razaviyayn's Proposition 32:
# steps at most 1 / L (L = 2 beta), strong convexity a = mu.  Few steps
# (T <= L / a): constant 1 / L and weights (1 - a / L)^-(t + 1); otherwise
# the first t0 = ceiling(T / 2) steps at 1 / L with weight 0, then
# 2 / (a (kappa + t - t0)) with weight (kappa + t - t0)^2, kappa = 2 L / a.
# t = 0, ..., T - 1; the weight of step t goes to the iterate it produces.
stich_schedule <- function(T, L, a) {
  t <- seq_len(T) - 1
  if (T <= L / a) {
    lw <- -(t + 1) * log1p(-a / L)
    list(step = rep(1 / L, T), weight = exp(lw - max(lw)))
  } else {
    t0 <- ceiling(T / 2)
    kappa <- 2 * L / a
    late <- t >= t0
    list(step = ifelse(late, 2 / (a * (kappa + t - t0)), 1 / L),
         weight = ifelse(late, (kappa + t - t0)^2, 0))
  }
}

# The user's iterations against the public n: each step's (or phase's)
# block must hold at least one record in expectation; `variant$max_steps`
# says how many fit into n, and its `too_many` text why.
check_one_pass_steps <- function(variant, steps, n) {
  if (is.null(steps)) return(NULL)
  steps <- check_count(steps, "iterations", 1)
  if (steps > variant$max_steps(n))
    arg_error("iterations", "= ", steps, variant$too_many(n))
  steps
}

# The ridge mu of "clipped_sgd": control$sgd_ridge when positive,
# else beta / 1000.  On the raw blog data (epsilon = 2, 80% split) the
# held-out RMSE at the best radius was 41.3, 40.3 and 39.7 for beta / 20,
# beta / 100 and beta / 1000: the ridge's bias costs more than its faster
# contraction saves.
one_pass_ridge <- function(control, beta) {
  mu <- control$sgd_ridge %||% 0
  if (mu > 0) mu else beta / 1000
}

# A one-pass fit along the radius path (see the file's header).
#   prob    as radius_path() builds it: x, y (unit scale with private
#           tuning), family, fam, intercept, offset, n (the public size:
#           every divisor and noise scale comes from it, not from
#           nrow(x)), p, d, threads, smoothness (the squared row bound,
#           private tuning), clip
#   radius  increasing radii of the l2 ball of (b0, b)
#   budget  list(epsilon, delta, fixed (the private settings' parts))
#   steps   the user's iterations, or NULL
# Returns list(beta = d x length(radius), parts, settings, public, ...).
# `method` names a registered one-pass method, whose object's `one_pass`
# element (see one_pass_variant()) holds what differs between them.
fit_one_pass <- function(prob, radius, method, budget, control, steps = NULL) {
  method <- match_choice(method, "method", names(one_pass_codes))
  variant <- method_spec(method)$one_pass
  radius <- check_radius(radius)
  n <- prob$n
  d <- prob$d
  nr <- length(radius)
  steps <- check_one_pass_steps(variant, steps, n)
  C <- prob$clip %||% control$clip %||% 1
  # the smoothness: the squared private row bound, or with public tuning d,
  # the largest curvature of a design with every entry in [-1, 1] (the
  # public convention of dpsco()'s default step), times the loss's
  # curvature per unit squared row norm
  beta <- (prob$smoothness %||% d) * prob$family$curvature
  mu <- variant$ridge(control, beta)
  # one Gaussian release per record per radius (each record's own block
  # label: see the file's header), composed with the private settings
  z <- calibrate_components(lapply(budget$fixed, part_component), 1, nr,
                            budget$epsilon, budget$delta)
  plans <- lapply(radius, function(r)
    variant$plan(n, d, r, z, C, beta, mu, steps))
  x <- prob$x
  if (!is.double(x)) storage.mode(x) <- "double"
  beta_out <- matrix(0, d, nr)
  w <- rep(0, d)
  for (l in seq_len(nr)) {
    w <- one_pass_run(prob, radius[l], method, plans[[l]]$engine, C, mu, w, x)
    beta_out[, l] <- w
  }
  nmin <- min(unlist(lapply(plans, function(p) p$engine$batch)))
  part <- privacy_part(
    "optimizer", z, 1, nr, C / nmin, 1, kind = "gaussian",
    mechanism = paste0("Gaussian: clipped block sums over the public ",
                       "expected block size, blocks from per-record random ",
                       "labels, one pass per radius (one release per record ",
                       "per radius, 1/(2 z^2)-zCDP)", variant$mechanism),
    released = paste(nr, "passes of noisy clipped block means"))
  st <- lapply(plans, `[[`, "settings")
  one <- function(name) {
    v <- lapply(st, `[[`, name)
    if (all(vapply(v, length, 0L) == 1L)) unlist(v) else v
  }
  settings <- list(algorithm = method, steps = if (length(unique(one("steps"))) == 1L)
                     st[[1L]]$steps else NA_integer_,
                   T = one("steps"), batch_size = one("batch_size"),
                   noise_sd = one("noise_sd"), noise_multiplier = z,
                   clip = C, smoothness = beta, ridge = mu)
  extra <- lapply(stats::setNames(nm = variant$reported), one)
  list(beta = beta_out, parts = list(part), settings = c(settings, extra),
       public = c("clip level", "step sizes and iterations", variant$public),
       pure_epsilon = NULL, sampling = one_pass_sampling)
}

# What differs between the one-pass methods, for their registration:
#   code       the engine's algorithm (one_pass_codes)
#   plan(n, d, radius, z, C, beta, mu, steps)
#              everything a fit at one radius uses before it runs: the
#              engine's settings (`engine`: batch, the blocks' public
#              expected sizes; steps; noise_sd; step; weight) and the values
#              for the fit's settings; z is the pass's noise multiplier,
#              beta the loss's smoothness, C the clip level, d the
#              dimension, steps the user's iterations or NULL
#   max_steps(n), too_many(n)  the most steps (phases) at the public n, and
#              the message's rest when the user asks for more
#   ridge(control, beta)  the ridge mu added to the loss (0: none)
#   reported   the plan's settings the fit reports beyond the common ones
#   mechanism, public  text added to the record
one_pass_variant <- function(code, plan, reported, ridge = function(control, beta) 0,
                             max_steps = function(n) n,
                             too_many = NULL, mechanism = "",
                             public = character()) {
  list(code = code, plan = plan, reported = reported, ridge = ridge,
       max_steps = max_steps,
       too_many = too_many %||% function(n)
         paste0(" exceeds n = ", n, ": each step takes its own block of ",
                "n / iterations >= 1 records in expectation."),
       mechanism = mechanism, public = public)
}

# A one-pass method's plan at one radius (see one_pass_variant()).
one_pass_radius_plan <- function(method, n, d, radius, z, C, beta, mu, steps) {
  method_spec(method)$one_pass$plan(n, d, radius, z, C, beta, mu, steps)
}

# The engine at one radius from w: the d-vector output.
one_pass_run <- function(prob, radius, method, engine, clip, mu, w, x = prob$x) {
  settings <- c(prob$family$settings, list(
    method = method_spec(method)$one_pass$code,
    intercept = as.integer(prob$intercept),
    offset = as.double(prob$offset %||% 0),
    threads = as.integer(prob$threads %||% getOption("dpsco.threads", 2L)),
    m = as.double(engine$batch[1L]),
    # the first block's probability, its expected size over the public n
    # (the engine sets each block's own)
    rate = as.double(engine$batch[1L]) / prob$n, clip = as.double(clip),
    ridge = as.double(mu), batch = as.double(engine$batch),
    steps = as.integer(engine$steps),
    step = as.double(engine$step),
    weight = if (!is.null(engine$weight)) as.double(engine$weight),
    noise_sd = as.double(engine$noise_sd)))
  drop(.Call(C_dpsco_one_pass, x, as.double(prob$y), settings,
             as.double(radius), as.double(w)))
}

# The engine's projection of w on {||u|| <= radius} intersected with
# {||u - centre|| <= local} (centre inside the first ball).
project_two_balls <- function(w, radius, centre, local) {
  .Call(C_dpsco_one_pass, NULL, as.double(centre), NULL,
        as.double(c(radius, local)), as.double(w))
}

# ---------------------------------------------------------------------------
# "prox_clipped_sgd": Algorithm 8 along dpsco()'s penalty path.  Per lambda,
# one pass over T blocks of public expected size m (T m <= n): each record
# joins each block with probability m / n (src/spgd.c's disjoint mode: block
# floor(u / (m / n)) for its own uniform u, none when that is T or more),
# each step the clipped block sum over m plus N(0, (z C / m)^2), then the
# elastic-net prox with Lowy and Razaviyayn's step 1 / (2 beta); the output
# is the last iterate, the warm start of the next lambda.  The private
# settings are dpsco()'s for "clip" with optimizer "spgd" (bounds, centre,
# clip level, curvature, whose top eigenvalue is beta), and the lambda grid
# comes from one full-data clipped gradient released with the same
# multiplier z (as sensitivity C / n).  Every release is an unsampled
# Gaussian mechanism of multiplier z (the file's header: one release per
# record per pass): nlambda passes (plus the grid's release) compose
# exactly.

# The default number of steps per lambda: 20 (at most n).  Each step's
# noise grows with the number of blocks; on the raw blog data (80% split,
# n = 42,000) the best held-out RMSE along the path was 39.4, 47.6 and 85.5
# for 20, 50 and 100 steps at epsilon = 0.5, and 36.6, 40.1 and 46.0 at 2.
default_prox_steps <- function(n) min(n, 20L)

# The blocks of a pass at the public n: `steps` blocks of expected size
# `m` (a double), each record in each with probability m / n, so
# steps * m <= n.  By default min(n, 20) steps and m = n / steps (every
# record in some block); with batch_size, m = batch_size and the steps are
# `iterations` or floor(n / m).
one_pass_blocks <- function(n, batch_size, iterations) {
  if (!is.null(batch_size)) {
    m <- check_count(batch_size, "batch_size", 1, n)
    steps <- if (is.null(iterations)) n %/% m
             else check_count(iterations, "iterations", 1, n)
  } else {
    steps <- if (is.null(iterations)) default_prox_steps(n)
             else check_count(iterations, "iterations", 1, n)
    m <- n / steps
  }
  # (n / steps) * steps may exceed n by a rounding error, a whole m times
  # steps never does by less than 1
  if (as.double(steps) * m > n * (1 + 1e-12))
    arg_error("batch_size", "times iterations is ", as.double(steps) * m,
              ", more than n = ", n, ": each record joins each of the ",
              steps, " blocks with probability batch_size / n = ", m / n,
              ", at most 1 / iterations.")
  list(m = as.double(m), steps = as.integer(steps))
}
