# The guarantee as the package states it, audited for every method: two
# data sets are neighbours when one is the other with one record added or
# removed, at a declared public number of records N (public_n).  For each
# method (and family where the loss changes the release), whole fits are
# released on D and D' = D plus one record, both at public_n = N, in the
# two data-size cases (D of N - 1 records and D' of N; D of N and D' of
# N + 1), and the empirical lower bound on epsilon, in both tails and both
# directions (record added, record removed), must stay below the epsilon
# the fit's own record accounts.  Every warning, message or error the two
# fits raise must be the same: a message carries nothing computed from the
# data, and whether it appears does not depend on the data.
#
# The neighbours are the worst case of a sum of clipped terms: every record
# of D has y = +big on an all-zero column (gradient -big along the
# intercept, clipped), the added record y = -big (gradient +big), so the
# record moves the released intercept by the full sensitivity in the
# direction opposite to everything else, where a divisor taken from the
# data (the convention of 0.7.0) would move it twice as far.  The fits are
# reduced to one or two releases (one penalty or radius, one or two steps)
# so that the intercept is nearly the release itself.  Methods whose noise
# is a theorem's calibration are loose, and the check is one-sided for
# them; the tight audits of single releases, each with a broken variant
# that must be caught, are in test-audit.R, test-audit-one-pass.R,
# test-audit-quantile.R and test-audit-wang.R, and below for cv.dpsco().
#
# Quick (make check): a few dozen fits per side, which catches gross
# violations and checks the conditions; long (make audit,
# DPSCO_AUDIT_LONG=true): 150 per side.

guarantee_N <- 200
guarantee_eps <- 2
guarantee_delta <- 1e-3
guarantee_long <- identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true")

# One fit per case: its method, family, epsilon and the arguments that
# reduce it to a few releases.
guarantee_cases <- list(
  clip = list(args = list(lambda = 1e-9, iterations = 1, step_size = 1)),
  holland = list(args = list(lambda = 1e-9, iterations = 1, step_size = 1)),
  kamath = list(args = list(lambda = 1e-9, iterations = 1, step_size = 1)),
  prox_clipped_sgd = list(args = list(lambda = 1e-9, iterations = 2)),
  fw = list(args = list(radius = 1, iterations = 1)),
  htp_lasso = list(args = list(radius = 1, iterations = 1)),
  htdp_fw = list(args = list(radius = 1, iterations = 2)),
  objective = list(args = list(radius = 1), epsilon = 0.9),
  mirror = list(args = list(radius = 1, iterations = 1, lp = 2)),
  `mirror, lp = 1.5` = list(method = "mirror",
                            args = list(radius = 1, iterations = 1, lp = 1.5)),
  mirror_shuffled = list(args = list(radius = 1)),
  sample_aggregate = list(args = list(radius = 1)),
  bun_steinke = list(args = list(radius = 1, control = dpsco_control(
    mean_range = c(-1, 1)))),
  acsa = list(args = list(radius = 1, iterations = 2)),
  clipped_sgd = list(args = list(radius = 1, iterations = 2)),
  localized = list(args = list(radius = 1, iterations = 2)),
  `clip, private tuning` = list(method = "clip", tuning = "private",
                                args = list(nlambda = 2)),
  # the path from one gradient release: its last intercept is the model's,
  # carried from the first gradient by the released curvature
  `clip, private tuning, one release` = list(
    method = "clip", tuning = "private",
    args = list(nlambda = 2, control = dpsco_control(one_release = TRUE)),
    stat = function(fit) unname(fit$a0[length(fit$a0)])),
  `holland, binomial` = list(method = "holland", family = "binomial",
                             args = list(lambda = 1e-9, iterations = 1,
                                         step_size = 1)),
  `clip, quantile` = list(method = "clip", family = "quantile",
                          args = list(lambda = 1e-9, iterations = 1,
                                      step_size = 1)),
  `clip, poisson` = list(method = "clip", family = "poisson",
                         args = list(lambda = 1e-9, iterations = 1,
                                     step_size = 1)),
  `holland, poisson, private tuning` = list(
    method = "holland", family = "poisson", tuning = "private",
    args = list(nlambda = 2)),
  # a weight and an offset are part of their record (each record, the
  # added one too, carries weight 1, the largest allowed, and offset 0.3)
  `clip, weights and offset` = list(method = "clip", weight = 1, offset = 0.3,
                                    args = list(lambda = 1e-9, iterations = 1,
                                                step_size = 1)),
  `kamath, poisson, private tuning, weights and offset` = list(
    method = "kamath", family = "poisson", tuning = "private", weight = 1,
    offset = 0.3, args = list(nlambda = 2)),
  # three classes: every record of D in the first, the added one in the
  # last
  `holland, multinomial` = list(method = "holland", family = "multinomial",
                                args = list(lambda = 1e-9, iterations = 1,
                                            step_size = 1)),
  `clip, multinomial, private tuning` = list(
    method = "clip", family = "multinomial", tuning = "private",
    args = list(nlambda = 2)),
  `fw, private tuning` = list(method = "fw", tuning = "private",
                              args = list(radius = 1, iterations = 1)),
  `objective, solver budget 1` = list(
    method = "objective", epsilon = 0.9,
    args = list(radius = 1, control = dpsco_control(objective_maxit = 1))),
  `clip, secure` = list(method = "clip", args = list(
    lambda = 1e-9, iterations = 1, step_size = 1, secure = TRUE)),
  `clip, private standardisation` = list(method = "clip", args = list(
    lambda = 1e-9, iterations = 1, step_size = 1, standardize = "private")),
  # the default (standardize = "auto"): its three releases come off the
  # top of the private settings' budget
  `clip, private tuning, auto standardisation` = list(
    method = "clip", tuning = "private",
    args = list(nlambda = 2, standardize = "auto"))
)

# D and D' for a size case (rows of D) and a family.
guarantee_data <- function(rows, family) {
  if (family == "multinomial") {
    cls <- function(v) factor(v, levels = c("a", "b", "c"))
    return(list(x0 = matrix(0, rows, 1), y0 = cls(rep("a", rows)),
                x1 = matrix(0, rows + 1, 1), y1 = cls(c(rep("a", rows), "c"))))
  }
  big <- if (family == "binomial") 1 else 1e6
  y0 <- rep(big, rows)
  # (a count cannot be negative: the added record's count is 0)
  y1 <- c(y0, if (family %in% c("binomial", "poisson")) 0 else -big)
  list(x0 = matrix(0, rows, 1), y0 = y0, x1 = matrix(0, rows + 1, 1), y1 = y1)
}

guarantee_fit <- function(case, name, x, y) {
  method <- case$method %||% name
  per_record <- list(weights = if (!is.null(case$weight))
                                 rep(case$weight, nrow(x)),
                     offset = if (!is.null(case$offset))
                                rep(case$offset, nrow(x)))
  do.call(dpsco, c(list(x, y, family = case$family %||% "gaussian",
                        method = method, epsilon = case$epsilon %||% guarantee_eps,
                        delta = guarantee_delta, public_n = guarantee_N,
                        tuning = case$tuning %||% "public"), case$args,
                   Filter(Negate(is.null), per_record)))
}

# The released intercept at the first penalty or radius (or the case's own
# statistic).
guarantee_stat <- function(fit) unname(fit$a0[1L])

guarantee_audit <- function(name, trials) {
  case <- guarantee_cases[[name]]
  family <- case$family %||% "gaussian"
  out <- list()
  for (size in names(size_pairs(guarantee_N))) {
    rows <- size_pairs(guarantee_N)[[size]][1L]
    d <- guarantee_data(rows, family)
    # the same seed on both sides: the conditions must agree
    c0 <- withr::with_seed(7, capture_conditions(guarantee_fit(case, name, d$x0, d$y0)))
    c1 <- withr::with_seed(7, capture_conditions(guarantee_fit(case, name, d$x1, d$y1)))
    accounted <- if (is.null(c0$value)) NA else c0$value$privacy$epsilon_accounted
    released <- case$stat %||% guarantee_stat
    stat <- function(x, y)
      vapply(seq_len(trials), function(i)
        released(suppressWarnings(guarantee_fit(case, name, x, y))), 0)
    lb <- if (trials > 0 && !is.null(c0$value))
      audit_eps_both(stat(d$x0, d$y0), stat(d$x1, d$y1), guarantee_delta)
    out[[size]] <- list(said0 = c0$said, said1 = c1$said, accounted = accounted,
                        accounted1 = if (!is.null(c1$value))
                          c1$value$privacy$epsilon_accounted,
                        public_n = c(c0$value$privacy$public_n,
                                     c1$value$privacy$public_n),
                        lower = lb)
  }
  out
}

test_that("the harness has a case for every registered private method", {
  # a method registered without an audit case fails here, not silently
  private <- Filter(function(m) method_private(method_spec(m)),
                    dpsco_methods()$method)
  cased <- vapply(names(guarantee_cases), function(k)
    guarantee_cases[[k]]$method %||% k, "")
  expect_setequal(intersect(cased, dpsco_methods()$method), private)
})

test_that("audit harness: every method, at the same public n, both sizes and directions", {
  trials <- if (guarantee_long) 60 else 25
  set.seed(20261125)
  for (name in names(guarantee_cases)) {
    a <- guarantee_audit(name, trials)
    for (size in names(a)) {
      r <- a[[size]]
      label <- paste0(name, ", ", size, " n")
      # no error on either side, and the same words on both
      expect_false(any(startsWith(c(r$said0, r$said1), "error:")), label = label)
      expect_identical(r$said0, r$said1, label = label)
      # the record depends on public numbers only: the same epsilon and n
      expect_equal(r$accounted1, r$accounted, label = label)
      expect_equal(r$public_n, rep(guarantee_N, 2), label = label)
      expect_lte(r$accounted, (guarantee_cases[[name]]$epsilon %||% guarantee_eps) *
                   (1 + 1e-9), label = label)
      expect_lte(r$lower, r$accounted, label = label)
      if (guarantee_long)
        message(sprintf("audit harness %-28s %s n: accounted %.3f  eps_lb %.3f",
                        name, size, r$accounted, r$lower))
    }
  }
})

# ---------------------------------------------------------------------------
# cv.dpsco() (the finding of the split): each record's own coin puts it in
# the validation part with probability h, and the training fit divides by
# the public expected size round(N (1 - h)) whatever the coins give.  The
# fit is reduced to one step at one penalty (so the choice is trivial and
# the curve one value) and the audited release is the training fit's
# intercept.  Broken: the convention of 0.7.0, in which the training part
# divided by its realised size (dpsco() on the part with its own row count
# as n): a record that lands in it moves the mean by twice the
# sensitivity.  The quick audit replays the split and the training release
# with the engine's oracle (checked to be cv.dpsco()'s own release under a
# shared seed); the long one also runs cv.dpsco() itself.

cv_audit_setup <- function(above = FALSE) {
  N <- 200
  holdout <- 0.2
  rows <- N - 1 + above
  list(N = N, holdout = holdout, n_fit = round(N * (1 - holdout)),
       x0 = matrix(0, rows, 1), y0 = rep(1e6, rows),
       x1 = matrix(0, rows + 1, 1), y1 = c(rep(1e6, rows), -1e6))
}

cv_audit_run <- function(s, x, y)
  cv.dpsco(x, y, method = "clip", epsilon = guarantee_eps,
           delta = guarantee_delta, public_n = s$N, holdout = s$holdout,
           loss_bound = 1, tuning = "public", lambda = 1e-9, iterations = 1,
           step_size = 1)

# The training release replayed: the coins, then the clipped mean of the
# part's gradients -y (1, x) over `divisor(part size)` plus the noise of
# multiplier z; the fit's intercept after one step of size 1 is minus its
# first coordinate.
cv_audit_release <- function(s, x, y, z, divisor) function() {
  val <- stats::runif(nrow(x)) < s$holdout
  g <- -y[!val] * cbind(1, x[!val, , drop = FALSE])
  m <- divisor(sum(!val))
  # (the training fit draws its noise on a stream of its own, R/rng.R)
  -with_fit_stream(
    oracle_mean(g, "clip", m = m, clip = 1, noise_sd = z / m))[1L]
}

# The broken variant is always replayed (20000 releases a side): it must be
# caught whatever the honest audit runs through.
cv_audit <- function(trials, above = FALSE, via = c("internal", "cv.dpsco"),
                     broken_trials = 20000) {
  via <- match.arg(via)
  s <- cv_audit_setup(above)
  fit <- cv_audit_run(s, s$x1, s$y1)
  z <- fit$dpsco.fit$privacy$noise_multiplier
  honest <- function(x, y) cv_audit_release(s, x, y, z, function(k) s$n_fit)
  broken <- function(x, y) cv_audit_release(s, x, y, z, function(k) max(k, 1))
  same <- all.equal(withr::with_seed(3, unname(cv_audit_run(s, s$x1, s$y1)$dpsco.fit$a0[1])),
                    withr::with_seed(3, with_fit_stream(honest(s$x1, s$y1)())),
                    tolerance = 1e-12)
  draw <- function(release)
    vapply(seq_len(trials), function(i) release(), 0)
  out <- list(fit = fit, same = same,
              accounted = fit$privacy$epsilon_accounted)
  if (via == "cv.dpsco") {
    run <- function(x, y) function() unname(cv_audit_run(s, x, y)$dpsco.fit$a0[1])
    out$honest <- audit_eps_both(draw(run(s$x0, s$y0)), draw(run(s$x1, s$y1)),
                                 guarantee_delta)
  } else {
    out$honest <- audit_eps_both(draw(honest(s$x0, s$y0)),
                                 draw(honest(s$x1, s$y1)), guarantee_delta)
  }
  out$broken <- audit_eps_both(
    vapply(seq_len(broken_trials), function(i) broken(s$x0, s$y0)(), 0),
    vapply(seq_len(broken_trials), function(i) broken(s$x1, s$y1)(), 0),
    guarantee_delta)
  out
}

expect_cv_audit <- function(a) {
  expect_true(isTRUE(a$same))
  expect_equal(a$fit$dpsco.fit$nobs, 160)
  expect_equal(a$fit$privacy$public_n, 200)
  expect_lte(a$accounted, guarantee_eps * (1 + 1e-9))
  expect_lte(a$honest, a$accounted)
  expect_gt(a$broken, a$accounted)
}

test_that("quick audit: cv.dpsco() divides each part by its public expected size", {
  set.seed(20261126)
  for (above in c(FALSE, TRUE)) expect_cv_audit(cv_audit(20000, above))
})

test_that("long audit: cv.dpsco() stays within its accounted epsilon", {
  skip_if_not(guarantee_long)
  set.seed(20261127)
  for (above in c(FALSE, TRUE)) {
    a <- cv_audit(600, above, via = "cv.dpsco")
    message(sprintf(paste("audit cv.dpsco %s n: accounted %.3f  eps_lb %.3f",
                          "realised part size %.3f"),
                    if (above) "above" else "below", a$accounted, a$honest,
                    a$broken))
    expect_cv_audit(a)
  }
})

# The validation curve of cv.dpsco() (curve_release()): the K summed
# losses clamped to [0, L] over the public expected size of the part.  On
# D every loss is 0; the record loses L at every penalty, moving the
# release by L sqrt(K) / n_hold in L2, the claimed sensitivity.  Broken:
# the noise of one penalty's sum, without the sqrt(K) of the K sums a
# record moves at once.
curve_audit <- function(trials) {
  K <- 5
  L <- 2
  n_hold <- 40
  z <- dp_noise_multiplier(guarantee_eps, guarantee_delta, 1, 1)
  sums0 <- rep(0, K)
  sums1 <- sums0 + L
  rel <- function(sums, zz) function()
    curve_release(sums, n_hold, zz, L)$cvm
  eff <- rel(sums1, 0)() - rel(sums0, 0)()
  list(effect = eff, sd = curve_release(sums0, n_hold, z, L)$cvsd,
       accounted = dp_epsilon(z, 1, 1, guarantee_delta), K = K, L = L,
       n_hold = n_hold, z = z,
       honest = audit_releases(rel(sums0, z), rel(sums1, z), unit(eff), trials,
                               guarantee_delta),
       broken = audit_releases(rel(sums0, z / sqrt(K)), rel(sums1, z / sqrt(K)),
                               unit(eff), trials, guarantee_delta))
}

test_that("quick audit: the validation curve of cv.dpsco() stays within its epsilon", {
  set.seed(20261128)
  a <- curve_audit(5000)
  expect_equal(sqrt(sum(a$effect^2)), a$L * sqrt(a$K) / a$n_hold, tolerance = 1e-12)
  expect_equal(a$sd, a$z * a$L * sqrt(a$K) / a$n_hold, tolerance = 1e-12)
  expect_audit(a$honest, a$broken, a$accounted)
})

# ---------------------------------------------------------------------------
# Records at the edges of the input domain.  A record is valid when it
# passes the input checks: every value finite, weights in [0, 1], counts
# non-negative, a class among the declared levels.  Such a record must not
# change what a fit says (the same errors, warnings and messages on D and
# on D plus the record, for the same seed), must not make any output
# non-finite on one side only, and must not move the released values
# further than the accounted epsilon allows.  "pmin(pmax(NaN, lo), hi)" is
# NaN, so a record whose arithmetic overflows (0 * Inf, Inf - Inf) is
# where a guarantee resting on "every term is clamped" breaks: 0.10.0 gave
# a NaN centre for a count of 0 with an offset below -709.8, and a NaN
# validation score for a count whose fitted mean overflowed.
#
# D is a small ordinary data set (3 columns, a response of the family);
# the record is added to it at the same public n, in both data-size
# cases.  Quick (make check): every method and family on dense x with the
# records that reach the most arithmetic, the lambda methods on sparse and
# file-backed x and in cv.dpsco(), and the two records of 0.10.0's
# findings audited for epsilon.  Long (make audit): the whole catalogue on
# dense x for the penalised methods, the records that reach the most arithmetic in the other
# layouts and in cv.dpsco() for more methods and families, and epsilon
# lower bounds for the penalised methods on every family.

edge_p <- 3

# D: rows of an ordinary design and response (the same for every case).
edge_base <- function(rows, family) {
  withr::with_seed(101, {
    x <- matrix(stats::rnorm(rows * edge_p), rows)
    y <- switch(family,
      gaussian = , quantile = stats::rnorm(rows, 1),
      binomial = stats::rbinom(rows, 1, 0.4),
      poisson = stats::rpois(rows, 2),
      # three declared classes, the third absent from D
      multinomial = factor(sample(c("a", "b"), rows, TRUE),
                           levels = c("a", "b", "c")))
  })
  list(x = x, y = y)
}

# The catalogue: x, y, offset and weight at the extremes of their domains,
# one at a time and combined.  `y` NULL is an ordinary response; `x` NULL
# the all-ones row; `dup` repeats D's first record.
edge_records <- function(family, full = TRUE) {
  big <- .Machine$double.xmax
  sg <- rep_len(c(1, -1), edge_p)
  yfar <- switch(family, gaussian = , quantile = -big, binomial = 0,
                 poisson = 1e308, multinomial = "c")
  ytiny <- switch(family, gaussian = , quantile = 5e-324, binomial = 1,
                  poisson = 0, multinomial = "a")
  r <- list(
    `x +-max` = list(x = big * sg),
    `x all zero` = list(x = rep(0, edge_p)),
    `y far` = list(y = yfar),
    `x max, y far` = list(x = big * sg, y = yfar),
    `y 0, offset -800` = list(y = ytiny, offset = -800),
    `y far, offset 800` = list(y = yfar, offset = 800),
    `weight 0, x max, y far` = list(x = big * sg, y = yfar, weight = 0),
    `duplicate` = list(dup = TRUE))
  if (!full) return(r)
  c(r, list(
    `x -+max` = list(x = -big * sg),
    `x +-1e308` = list(x = 1e308 * sg),
    `x denormal` = list(x = 5e-324 * sg),
    `x one huge` = list(x = c(big, 0, 0)),
    `y tiny` = list(y = ytiny),
    `offset +max` = list(offset = big),
    `offset -max` = list(offset = -big),
    `x max, y far, offset -max` = list(x = big * sg, y = yfar, offset = -big),
    `weight 1, x max, y far` = list(x = big * sg, y = yfar, weight = 1),
    `weight 0, offset max` = list(y = yfar, weight = 0, offset = big)),
    if (family %in% c("gaussian", "quantile"))
      list(`y +max` = list(y = big), `y -1e308` = list(y = -1e308)))
}

# D and D plus the record r, with offsets and weights on both when r has
# one (D's records: offset 0.1, weight 1).
edge_pair <- function(family, r, rows) {
  b <- edge_base(rows, family)
  if (isTRUE(r$dup)) r <- list(x = b$x[1L, ], y = b$y[1L])
  ry <- r$y %||% switch(family, multinomial = "b", binomial = 1, 1)
  y1 <- if (is.factor(b$y)) factor(c(as.character(b$y), as.character(ry)),
                                   levels = levels(b$y))
        else c(b$y, ry)
  list(x0 = b$x, y0 = b$y, x1 = rbind(b$x, r$x %||% rep(1, edge_p)), y1 = y1,
       off0 = if (!is.null(r$offset)) rep(0.1, rows),
       off1 = if (!is.null(r$offset)) c(rep(0.1, rows), r$offset),
       w0 = if (!is.null(r$weight)) rep(1, rows),
       w1 = if (!is.null(r$weight)) c(rep(1, rows), r$weight))
}

# x in one of the engine's layouts (a file-backed big.matrix in a
# directory removed when `env` ends).
edge_layout <- function(x, layout, env = parent.frame()) {
  switch(layout,
    dense = x,
    sparse = Matrix::Matrix(x, sparse = TRUE),
    file = {
      dir <- tempfile("edge")
      dir.create(dir)
      withr::defer(unlink(dir, recursive = TRUE), envir = env)
      bigmemory::as.big.matrix(x, type = "double", backingfile = "x.bin",
                               descriptorfile = "x.desc", backingpath = dir)
    })
}

# One fit with the method's defaults (private settings) reduced to a few
# releases: two penalties, or the harness's radius arguments.
edge_fit <- function(method, family, x, y, offset, weights, cv = FALSE,
                     epsilon = NULL, extra = list()) {
  spec <- method_spec(method)
  case <- guarantee_cases[[method]]
  args <- if (spec$path == "lambda") list(nlambda = 2)
          else case$args[setdiff(names(case$args), "control")]
  do.call(if (cv) cv.dpsco else dpsco,
          c(list(x, y, family = family, method = method,
                 epsilon = epsilon %||% case$epsilon %||% guarantee_eps,
                 delta = guarantee_delta, public_n = guarantee_N),
            args, extra, Filter(Negate(is.null),
                                list(offset = offset, weights = weights))))
}

# The paths of the numeric leaves of a fit that are not all finite.
nonfinite_fields <- function(obj, path = "") {
  if (is.list(obj)) {
    nm <- names(obj) %||% rep("", length(obj))
    return(unlist(lapply(seq_along(obj), function(i)
      nonfinite_fields(obj[[i]], paste0(path, "$", if (nzchar(nm[i])) nm[i] else i)))))
  }
  if (is.numeric(obj) && !all(is.finite(obj))) path else character()
}

# The statistic audited for epsilon: the released intercept at the first
# penalty (cv.dpsco(): at the chosen one); a fit with no usable value
# gives a value no fit releases, so a one-sided failure is as far from D's
# releases as a statistic can be.
edge_stat <- function(fit) {
  if (inherits(fit, "cv.dpsco")) {
    k <- fit$index
    v <- if (length(k) == 1L && !is.na(k)) fit$dpsco.fit$a0[k] else NA
  } else {
    v <- if (is.null(fit)) NA else fit$a0[1L]
  }
  v <- unname(v[1L])
  if (is.finite(v)) v else 1e300
}

# One case on both sides in both size cases: the conditions, the
# non-finite fields and (trials > 0) the epsilon lower bound.  `seeds`
# repeats the deterministic checks (cv.dpsco(): the record's own coin puts
# it in the validation part one time in five).
edge_case <- function(method, family, record, layout = "dense", cv = FALSE,
                      trials = 0, seeds = 7, epsilon = NULL, extra = list(),
                      statistic = edge_stat) {
  r <- edge_records(family)[[record]]
  out <- list()
  for (size in names(size_pairs(guarantee_N))) {
    d <- edge_pair(family, r, size_pairs(guarantee_N)[[size]][1L])
    x0 <- edge_layout(d$x0, layout)
    x1 <- edge_layout(d$x1, layout)
    run <- function(x, y, off, w) edge_fit(method, family, x, y, off, w, cv,
                                           epsilon, extra)
    same <- finite <- TRUE
    said <- character()
    for (s in seeds) {
      c0 <- withr::with_seed(s, capture_conditions(run(x0, d$y0, d$off0, d$w0)))
      c1 <- withr::with_seed(s, capture_conditions(run(x1, d$y1, d$off1, d$w1)))
      same <- same && identical(c0$said, c1$said)
      finite <- finite && identical(nonfinite_fields(unclass(c0$value)),
                                    nonfinite_fields(unclass(c1$value)))
      said <- union(said, c(c0$said, c1$said))
    }
    ran <- !is.null(c0$value)
    accounted <- if (ran) c0$value$privacy$epsilon_accounted
    lb <- if (trials > 0 && ran) {
      stat <- function(x, y, off, w) vapply(seq_len(trials), function(i)
        statistic(suppressWarnings(tryCatch(run(x, y, off, w),
                                            error = function(e) NULL))), 0)
      audit_eps_both(stat(x0, d$y0, d$off0, d$w0),
                     stat(x1, d$y1, d$off1, d$w1), guarantee_delta)
    }
    out[[size]] <- list(same = same, finite = finite, ran = ran, said = said,
                        coef_finite = !ran || all(is.finite(coef_numbers(c1$value))),
                        accounted = accounted, lower = lb)
  }
  out
}

coef_numbers <- function(fit) {
  if (inherits(fit, "cv.dpsco")) fit <- fit$dpsco.fit
  c(fit$a0, unlist(fit$beta))
}

expect_edge_case <- function(a, label) {
  for (size in names(a)) {
    r <- a[[size]]
    lab <- paste0(label, ", ", size, " n")
    expect_true(r$same, label = paste(lab, "(the same conditions)"))
    expect_true(r$finite, label = paste(lab, "(the same finite fields)"))
    expect_true(r$coef_finite, label = paste(lab, "(finite coefficients)"))
    if (!is.null(r$lower))
      expect_lte(r$lower, r$accounted, label = lab)
    if (guarantee_long)
      message(sprintf("edge record %-52s %-5s ran %-5s same %-5s finite %-5s eps_lb %s / %s",
                      label, size, r$ran, r$same, r$finite && r$coef_finite,
                      if (is.null(r$lower)) "-" else sprintf("%.3f", r$lower),
                      if (is.null(r$accounted)) "-" else sprintf("%.3f", r$accounted)))
  }
}

# Every private method with every family it fits.
edge_methods <- function() {
  m <- dpsco_methods()
  m <- m[vapply(m$method, function(k)
    method_private(method_spec(k)), NA), ]
  stats::setNames(strsplit(m$families, ", "), m$method)
}
lambda_methods <- c("clip", "holland", "kamath")

test_that("edge records: every method and family, dense x", {
  # (long: the whole catalogue for the penalised methods, whose settings
  # and steps read every kind of record; the others' own loops see the
  # quick catalogue)
  for (method in names(edge_methods())) for (family in edge_methods()[[method]]) {
    full <- guarantee_long && method %in% lambda_methods
    for (record in names(edge_records(family, full = full))) {
      a <- edge_case(method, family, record)
      expect_edge_case(a, paste(method, family, record, sep = ", "))
    }
  }
})

test_that("edge records: the lambda methods on sparse and file-backed x", {
  skip_if_not_installed("Matrix")
  skip_if_not_installed("bigmemory")
  skip_on_os("windows")
  for (layout in c("sparse", "file"))
    for (method in if (guarantee_long) lambda_methods else "clip") {
    fams <- if (guarantee_long && method == "clip")
              c("gaussian", "binomial", "poisson")
            else if (guarantee_long) "gaussian" else c("gaussian", "poisson")
    for (family in fams) {
      recs <- names(edge_records(family, full = FALSE))
      if (!guarantee_long) recs <- recs[c(1, 4, 5, 6)]
      for (record in recs)
        expect_edge_case(edge_case(method, family, record, layout),
                         paste(method, family, record, layout, sep = ", "))
    }
  }
})

test_that("edge records: cv.dpsco(), the record in either part", {
  # several seeds, so that the record lands in the validation part too
  seeds <- 1:4
  for (method in if (guarantee_long) lambda_methods else "clip") {
    fams <- if (method == "clip") edge_methods()[[method]] else "gaussian"
    for (family in fams) {
      recs <- names(edge_records(family, full = FALSE))
      if (!guarantee_long) recs <- recs[c(4, 5, 6)]
      for (record in recs)
        expect_edge_case(edge_case(method, family, record, cv = TRUE,
                                   seeds = seeds),
                         paste("cv", method, family, record, sep = ", "))
    }
  }
})

# At epsilon 1, as the findings were measured: 100 fits a side can show a
# lower bound above 1 for a release that fails on one side only (the last
# test below), and 0.10.0 failed these two cases.
edge_finding_trials <- if (guarantee_long) 120 else 100

test_that("edge records: the two records that broke 0.10.0, audited for epsilon", {
  set.seed(20261127)
  # a count of 0 with an offset below -709.8 (the private settings)
  a <- edge_case("clip", "poisson", "y 0, offset -800",
                 trials = edge_finding_trials, epsilon = 1)
  expect_edge_case(a, "clip, poisson, y 0, offset -800")
  # a count whose fitted mean overflows in the validation part
  a <- edge_case("clip", "poisson", "y far, offset 800", cv = TRUE,
                 trials = edge_finding_trials, seeds = 1:4, epsilon = 1)
  expect_edge_case(a, "cv, clip, poisson, y far, offset 800")
})

test_that("edge records: epsilon lower bounds for the penalised methods and every family", {
  # (the records that reach the most arithmetic: the extremes of x and y
  # together, and the count net of an extreme offset; clip on every
  # family, holland and kamath on gaussian, 60 fits a side in each case)
  skip_if_not(guarantee_long)
  set.seed(20261128)
  cases <- c(lapply(edge_methods()[["clip"]], function(f) c("clip", f)),
             list(c("holland", "gaussian"), c("kamath", "gaussian")))
  for (cs in cases) {
    for (record in c("x max, y far", "y 0, offset -800"))
      expect_edge_case(edge_case(cs[1L], cs[2L], record, trials = 40),
                       paste(cs[1L], cs[2L], record, sep = ", "))
  }
})

test_that("edge records: the gaussian path from one gradient release", {
  # (the records of the extremes of x and y; the statistic is the last
  # penalty's intercept, which the curvature carries from the one release)
  set.seed(20261202)
  last <- function(fit) {
    v <- if (is.null(fit)) NA else unname(fit$a0[length(fit$a0)])
    if (length(v) == 1L && is.finite(v)) v else 1e300
  }
  one <- list(control = dpsco_control(one_release = TRUE))
  recs <- names(edge_records("gaussian", full = guarantee_long))
  for (record in recs)
    expect_edge_case(edge_case("clip", "gaussian", record, extra = one),
                     paste("one release", record, sep = ", "))
  expect_edge_case(edge_case("clip", "gaussian", "x max, y far", extra = one,
                             trials = if (guarantee_long) 60 else 20,
                             statistic = last),
                   "one release, x max, y far, audited")
})

# The inference stage (dpsco(inference = TRUE)): its releases read x
# and y unclamped (each record's score, bread and meat terms are clipped
# to their norms instead, in the stage's whitened metrics), so the
# records at the edges of the domain go through all of it.  The
# statistic audited for epsilon is the stage's released intercept (a
# refused fit's, none: the largest value).
inference_stat <- function(fit) {
  v <- if (is.null(fit)) NA else unname(fit$inference$estimate[1L])
  if (length(v) == 1L && is.finite(v)) v else 1e300
}

test_that("edge records: the inference stage, every family it takes", {
  # (quick: the records of the extremes of x, y and the offset, and two of
  # them audited for epsilon; long: the whole catalogue)
  set.seed(20261129)
  for (family in c("gaussian", "binomial", "poisson")) {
    recs <- names(edge_records(family, full = guarantee_long))
    if (!guarantee_long) recs <- recs[c(1, 4, 5, 6)]
    for (record in recs) {
      trials <- if (record %in% c("x max, y far", "y far, offset 800"))
                  (if (guarantee_long) 40 else 20) else 0
      a <- edge_case("clip", family, record, trials = trials,
                     extra = list(inference = TRUE), statistic = inference_stat)
      expect_edge_case(a, paste("inference", family, record, sep = ", "))
    }
  }
})

test_that("the edge audit's statistic catches a release that fails on one side only", {
  # 0.10.0's poisson centre: NaN on D plus the record in every fit, which
  # edge_stat() maps to a value no fit releases
  set.seed(1)
  t0 <- stats::rnorm(edge_finding_trials)
  t1 <- rep(edge_stat(list(a0 = NaN)), edge_finding_trials)
  expect_equal(edge_stat(list(a0 = c(s0 = NaN))), 1e300)
  expect_gt(audit_eps_both(t0, t1, guarantee_delta), 1)
  # and a cv fit without a chosen index (0.10.0's which.max(NaN))
  expect_equal(edge_stat(structure(list(index = integer(0)), class = "cv.dpsco")),
               1e300)
})
