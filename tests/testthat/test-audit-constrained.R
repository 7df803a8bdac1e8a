# Empirical privacy audit of the constraint-set methods (Frank-Wolfe,
# HTP-LASSO, HTDP-FW, mirror descent, objective perturbation), as
# test-audit.R audits the rest: release a statistic many times on
# neighbouring data sets and turn the error rates of the best threshold
# test into a lower bound on epsilon with 99% confidence (helper-audit.R),
# which must stay below the accounted epsilon and exceed it for a
# deliberately broken variant.  The long tests run with
# DPSCO_AUDIT_LONG=true.

# The constraint-set methods (R/constrained.R, src/frank_wolfe.c).  Each
# Frank-Wolfe step releases one vertex v = +-r e_j of the l1 ball, drawn by
# the exponential mechanism (EM) with utility -<v, g> and add/remove
# sensitivity r sens; one step from w0 returns w0 / 3 + (2/3) v, so the
# vertex can be read off the output.  The audits run the engine with the
# settings dpsco() chose (checked to give dpsco()'s own release under a
# shared seed) at the public n: D has n - 1 rows and D' adds the
# adversarial record.
#
# The worst pair for the EM: on D every coordinate has g_j = -b sens s_j
# (s the record's sign pattern), so the vertex -s_j r e_j, which the record
# favours, has weight e^(-eps0 b / 2) and its mirror e^(eps0 b / 2); the
# record moves every g_j by the full sens s_j, one unit of b.  The two
# vertices of a coordinate move in opposite directions (hence the EM's
# factor 2), and every coordinate alike, so "a favoured vertex was chosen"
# is the Neyman-Pearson statistic: probability 1 / (1 + e^(eps0 b)) on D and
# 1 / (1 + e^(eps0 (b - 1))) on D', a log ratio that tends to eps0 as b
# grows.  b = 1.5 trades the ratio (1.88 of eps0 = 2.14) against the counts
# a few ten thousand releases give.

# One run of the engine from the warm start beta0, with fw_engine()'s
# settings (fw_engine() always starts at 0; HTP-LASSO's worst case needs a
# start on the sphere).
fw_run <- function(prob, radius, oracle, steps, eps0, sens, chunked = FALSE,
                   beta0 = rep(0, prob$d)) {
  settings <- c(oracle, list(
    family = if (prob$family$name == "binomial") 1L else 0L,
    intercept = as.integer(prob$intercept), noise_sd = 0, rate = 1,
    threads = 1L, offset = prob$offset, steps = as.integer(steps), eps0 = eps0,
    score_sensitivity = sens, chunked = as.integer(chunked)))
  drop(.Call(C_dpsco_fw, prob$x, as.double(prob$y), settings,
             as.double(radius), as.double(beta0)))
}

fw_audit_problem <- function(x, y)
  list(x = x, y = y, family = family_object("gaussian"),
       intercept = FALSE, offset = 0, n = nrow(x), p = ncol(x), d = ncol(x))

# One full-data selection (T = 1, one radius) of "fw" or "htp_lasso",
# accounted by dpsco() at (3, 0.01): eps0 = 2.14 per selection through the
# Renyi curve of its eps0^2/8-zCDP.
#   fw:        at w0 = 0 (a row's residual is -y), clamp 1; the record
#              (1e12 s, -1e12) is clamped to +-1 in every coordinate.
#              Broken: the EM run at 2 eps0.
#   htp_lasso: at the vertex w0 = r e_1, data shrunk to [-K, K], K = 2; the
#              record x = K s, y = -K (opposite in sign to its fit
#              x'w0 = r K) has residual K (1 + r), the sup-norm bound
#              K (K + r K) in every coordinate without any clamping.
#              Broken: that bound without the factor 1 + r (sens / 2 at
#              r = 1; the clamp of the oracle stays where it is, or it
#              would hide the mistake).
# Real rows x = s, y = x'w0 + b C / (n - 1) (C the coordinate bound) give
# g_j = -b sens s_j, every value inside the clamp.
em_audit <- function(method, trials, b = 1.5) {
  set.seed(20261210 + (method == "htp_lasso"))
  n <- 30
  p <- 3
  r <- 1
  K <- 2
  eps <- 3
  delta <- audit_delta
  sig <- rep_len(c(1, -1), p)
  fw <- method == "fw"
  w0 <- if (fw) rep(0, p) else r * (seq_len(p) == 1)  # sig[1] = 1: x'w0 = r K
  coord <- if (fw) 1 else K * (K + r * K)
  ctl <- if (fw) dpsco_control(clip = 1) else dpsco_control(shrink = K)
  real_x <- matrix(sig, n - 1, p, byrow = TRUE)
  real_y <- drop(real_x %*% w0) + b * coord / (n - 1)
  rec_x <- if (fw) 1e12 * sig else K * sig
  rec_y <- if (fw) -1e12 else -K
  x0 <- real_x
  y0 <- real_y
  x1 <- rbind(real_x, rec_x)
  y1 <- c(real_y, rec_y)
  run <- function(x, y)
    dpsco(x, y, method = method, tuning = "public", radius = r, iterations = 1,
          epsilon = eps, delta = delta, public_n = n, intercept = FALSE,
          standardize = FALSE, control = ctl)
  fit <- run(x0, y0)
  st <- fit$settings
  oracle <- list(oracle = oracle_codes[["kamath"]], m = n, clip = Inf,
                 rho = 2 * st$coordinate_bound, k = 1L, s = 1, nu = 1)
  prob0 <- fw_audit_problem(x0, y0)
  prob1 <- fw_audit_problem(x1, y1)
  same <- identical(
    withr::with_seed(1, as.numeric(coef(run(x1, y1)))[-1]),
    withr::with_seed(1, with_fit_stream(
      fw_run(prob1, r, oracle, 1, st$eps0, st$sensitivity))))
  # +1 when the chosen vertex is one the record favours, -1 otherwise
  release <- function(prob, eps0, sens) function() {
    w <- fw_run(prob, r, oracle, 1, eps0, sens, beta0 = w0)
    sum(-sig * round((3 * w - w0) / (2 * r)))
  }
  stat <- function(prob, eps0, sens)
    vapply(seq_len(trials), function(i) release(prob, eps0, sens)(), 0)
  t0 <- stat(prob0, st$eps0, st$sensitivity)
  t1 <- stat(prob1, st$eps0, st$sensitivity)
  broken <- if (fw) list(2 * st$eps0, st$sensitivity)
            else list(st$eps0, K * K / n)
  b0 <- do.call(stat, c(list(prob0), broken))
  b1 <- do.call(stat, c(list(prob1), broken))
  list(st = st, pr = privacy(fit), same = same, n = n, coord = coord,
       epsilon = eps, delta = delta,
       # the record's contribution at w0, clamped as the oracle clamps it
       record = pmin(pmax((sum(rec_x * w0) - rec_y) * rec_x, -coord), coord),
       record_raw = (sum(rec_x * w0) - rec_y) * rec_x, sig = sig,
       freq = c(mean(t0 == 1), mean(t1 == 1)),
       p = c(1 / (1 + exp(st$eps0 * b)), 1 / (1 + exp(st$eps0 * (b - 1)))),
       honest = audit_eps_both(t0, t1, 0), broken = audit_eps_both(b0, b1, 0),
       honest_delta = audit_eps_both(t0, t1, delta),
       broken_delta = audit_eps_both(b0, b1, delta))
}

expect_em_audit <- function(a, method) {
  expect_true(a$same)
  # the coordinate bound and sensitivity the package claims
  expect_equal(a$st$coordinate_bound, a$coord)
  expect_equal(a$st$sensitivity, a$coord / a$n)
  expect_equal(a$st$steps, 1L)
  # the record moves every coordinate by the full bound (htp_lasso: with no
  # clamping, i.e. the bound is attained by data inside [-K, K])
  expect_equal(a$record, a$coord * a$sig)
  if (method == "htp_lasso") expect_equal(a$record_raw, a$coord * a$sig)
  # the selection frequencies are the EM's closed form for this pair
  expect_equal(a$freq, a$p, tolerance = 0.15)
  # pure DP: eps0 per selection (delta 0)
  expect_audit(a$honest, a$broken, a$st$eps0)
  # the Renyi accounting of the selection at (epsilon, delta)
  expect_lte(a$pr$epsilon_accounted, a$epsilon * (1 + 1e-9))
  expect_lte(a$honest_delta, a$pr$epsilon_accounted)
  expect_gt(a$broken_delta, a$pr$epsilon_accounted)
}

test_that("quick audit: one Frank-Wolfe selection stays within its epsilon0", {
  for (method in c("fw", "htp_lasso"))
    expect_em_audit(em_audit(method, trials = 30000), method)
})

test_that("long audit: one Frank-Wolfe selection stays within its epsilon0", {
  skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
  for (method in c("fw", "htp_lasso")) {
    a <- em_audit(method, trials = 2e5)
    message(sprintf(paste("audit %-9s eps0 %.3f  eps_lb %.3f  broken %.3f;",
                          "(eps, delta) accounted %.3f  eps_lb %.3f  broken %.3f"),
                    method, a$st$eps0, a$honest, a$broken,
                    a$pr$epsilon_accounted, a$honest_delta, a$broken_delta))
    expect_em_audit(a, method)
    expect_gt(a$honest, 0.75 * a$st$eps0)
  }
})

# One HTDP-FW pass with tuning = "public" (pure epsilon-DP): one radius,
# T = 2 chunks, eps0 = epsilon = 2.  Each record gets a uniform chunk
# label, so the record of D' lands in a chunk the observer does not see
# and the audited release is the mixture over its chunk; the event "both
# selections favoured" keeps the full ratio of the record's own chunk
# (the other chunk is the same on D and D'), which is why T is 2.  The
# chunks' gaps must not depend on the labels, nor on the iterate: the real
# rows have y = 1e6 and x = t s / 1e6 (residual -1e6 up to 1e-14, each
# coordinate adds -s_j h(t) with Holland's nu = 1e8, far below the bound B
# = 2 sqrt(2) / 3), and the chunk of N rows has gap b = N h(t) / B, N
# binomial (n - 1, 1/2): about 1.26, sd 0.13 (many small contributions
# keep it nearly fixed).  The record (1e12 s, -1e12) adds B s_j to every
# coordinate in its chunk at both steps.  The output after two steps is
# r (v1 / 3 + v2 / 2), so the statistic sum(-s w) / r is -5/6, -1/6, 1/6
# or 5/6 as neither, the first, the second or both selections are
# favoured; its distribution is known in closed form.
htdp_audit <- function(trials) {
  set.seed(20261212)
  n <- 100
  p <- 3
  steps <- 2L
  r <- 1
  sig <- rep_len(c(1, -1), p)
  ctl <- dpsco_control(s = 1, nu = 1e8)
  t <- 0.024
  real_x <- matrix(sig * t / 1e6, n - 1, p, byrow = TRUE)
  real_y <- rep(1e6, n - 1)
  x0 <- real_x
  y0 <- real_y
  x1 <- rbind(real_x, 1e12 * sig)
  y1 <- c(real_y, -1e12)
  run <- function(x, y)
    dpsco(x, y, method = "htdp_fw", tuning = "public", radius = r,
          iterations = steps, epsilon = 2, delta = 1e-3, public_n = n,
          intercept = FALSE, standardize = FALSE, control = ctl)
  fit <- run(x0, y0)
  st <- fit$settings
  oracle <- list(oracle = oracle_codes[["holland"]], m = st$batch_size,
                 clip = Inf, rho = 0, k = 1L, s = st$s, nu = st$nu)
  prob0 <- fw_audit_problem(x0, y0)
  prob1 <- fw_audit_problem(x1, y1)
  same <- identical(
    withr::with_seed(1, as.numeric(coef(run(x1, y1)))[-1]),
    withr::with_seed(1, with_fit_stream(
      fw_run(prob1, r, oracle, steps, st$eps0, st$sensitivity,
             chunked = TRUE))))
  stat <- function(prob, eps0) vapply(seq_len(trials), function(i)
    sum(-sig * fw_run(prob, r, oracle, steps, eps0, st$sensitivity,
                      chunked = TRUE)) / r, 0)
  t0 <- stat(prob0, st$eps0)
  t1 <- stat(prob1, st$eps0)
  # the broken variant: the selections at twice their epsilon
  b0 <- stat(prob0, 2 * st$eps0)
  b1 <- stat(prob1, 2 * st$eps0)
  # closed form: P(favoured) = q(gap) per selection, gaps a N1 and a N2
  # (minus 1 in the record's chunk), N1 + N2 = n - 1
  B <- 2 * sqrt(2) * st$s / 3
  a <- h_ref(t, st$nu) / B
  q <- function(b) 1 / (1 + exp(st$eps0 * b))
  n1 <- 0:(n - 1)
  wt <- stats::dbinom(n1, n - 1, 0.5)
  outcomes <- function(g1, g2) {
    p1 <- q(g1)
    p2 <- q(g2)
    c(sum(wt * (1 - p1) * (1 - p2)), sum(wt * p1 * (1 - p2)),
      sum(wt * (1 - p1) * p2), sum(wt * p1 * p2))
  }
  g1 <- a * n1
  g2 <- a * (n - 1 - n1)
  count <- function(tt)
    tabulate(match(round(6 * tt), c(-5, -1, 1, 5)), 4L)
  list(st = st, pr = privacy(fit), same = same, n = n, steps = steps, B = B,
       gap = a * (n - 1) / 2,
       counts0 = count(t0), counts1 = count(t1),
       p0 = outcomes(g1, g2),
       p1 = (outcomes(g1 - 1, g2) + outcomes(g1, g2 - 1)) / 2,
       honest = audit_eps_both(t0, t1, 0), broken = audit_eps_both(b0, b1, 0))
}

expect_htdp_audit <- function(a) {
  expect_true(a$same)
  st <- a$st
  expect_equal(c(st$steps, st$eps0, st$batch_size), c(a$steps, 2, a$n / a$steps))
  expect_equal(st$sensitivity, a$B / st$batch_size)
  expect_equal(c(a$pr$pure_epsilon, a$pr$epsilon_accounted), c(2, 2))
  # every release is one of the four outcomes, as often as the closed form
  # (chunks uniform, each record in one of them, eps0 per selection) says
  expect_equal(sum(a$counts0), sum(a$counts1))
  for (k in 0:1) {
    counts <- a[[paste0("counts", k)]]
    expect_equal(sum(counts), sum(a$counts0))
    chi <- suppressWarnings(stats::chisq.test(counts, p = a[[paste0("p", k)]]))
    expect_gt(chi$p.value, 1e-3)
  }
  expect_audit(a$honest, a$broken, a$pr$pure_epsilon)
}

test_that("quick audit: a public HTDP-FW pass stays within its pure epsilon", {
  expect_htdp_audit(htdp_audit(trials = 30000))
})

test_that("long audit: a public HTDP-FW pass stays within its pure epsilon", {
  skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
  a <- htdp_audit(trials = 1e5)
  message(sprintf("audit htdp_fw   pure eps %.3f  eps_lb %.3f  broken %.3f",
                  a$pr$pure_epsilon, a$honest, a$broken))
  expect_htdp_audit(a)
  expect_gt(a$honest, 0.6 * a$pr$pure_epsilon)
})

# Mirror descent at p = 2 (R/mirror.R, src/mirror.c): one full-data step
# with radius Inf from w = 0, at p = 2 the Euclidean step
# w = -(g + N(0, sigma^2 I)) / (a + b), a Gaussian release of the mean
# gradient clipped at L (its l2 norm), accounted at (2, 0.01).  Data are
# shrunk to [-K, K]; the record x = K s, y = -K has gradient
# K (1, K s) of norm K sqrt(1 + p K^2) = L, the clip level, so it moves the
# mean by the full L / n.  The release is the engine's, with the plan's
# settings (checked against dpsco()'s own release).  Broken: half the noise.
mirror_audit <- function(trials) {
  set.seed(20261213)
  n <- 30
  p <- 2
  K <- 2
  eps <- audit_eps_target
  nb <- bounded_neighbours(n, p, K)
  # D: the n - 1 real rows; D': with the record (public n)
  x0 <- nb$x0[-n, , drop = FALSE]
  y0 <- nb$y0[-n]
  x1 <- nb$x1
  y1 <- nb$y1
  ctl <- dpsco_control(shrink = K)
  run <- function(x, y)
    dpsco(x, y, method = "mirror", lp = 2, tuning = "public", radius = Inf,
          iterations = 1, epsilon = eps, delta = audit_delta, public_n = n,
          standardize = FALSE, control = ctl)
  prob <- function(x, y)
    list(x = x, y = y, family = family_object("gaussian"),
         intercept = TRUE, offset = 0, n = n, p = p, d = p + 1, x_bound = K,
         y_bound = K)
  fit <- run(x0, y0)
  st <- fit$settings
  budget <- list(epsilon = eps, delta = audit_delta, fixed_components = list(),
                 remaining = remaining_budget(list(), eps, audit_delta))
  plan <- mirror_plan(prob(x0, y0), Inf, 2, budget, ctl, FALSE, 1L)
  release <- function(x, y, sd) {
    engine <- plan$engine
    engine$sigma <- rep(sd, length(engine$sigma))
    function() drop(mirror_run(prob(x, y), Inf, engine))
  }
  same <- identical(withr::with_seed(1, as.numeric(coef(run(x1, y1)))),
                    withr::with_seed(1, with_fit_stream(
                      release(x1, y1, st$sigma)())))
  effect <- release(x1, y1, 0)() - release(x0, y0, 0)()
  u <- unit(effect)
  pr <- privacy(fit)
  list(st = st, plan = plan, pr = pr, same = same, n = n,
       L_ref = K * sqrt(1 + p * K^2),
       shift = sqrt(sum(effect^2)) * (st$alpha + st$beta_smooth),
       accounted = pr$epsilon_accounted,
       honest = audit_releases(release(x0, y0, st$sigma),
                               release(x1, y1, st$sigma), u, trials, audit_delta),
       broken = audit_releases(release(x0, y0, st$sigma / 2),
                               release(x1, y1, st$sigma / 2), u, trials,
                               audit_delta))
}

expect_mirror_audit <- function(a) {
  expect_true(a$same)
  expect_equal(a$plan$settings$sigma, a$st$sigma)
  expect_equal(a$st$T, 1L)
  # the clip level is the bound on the record's gradient, the noise the
  # accountant's multiplier times L / n, and the record attains it
  expect_equal(a$st$L, a$L_ref)
  expect_equal(a$st$sigma, audit_z() * a$L_ref / a$n, tolerance = 1e-6)
  expect_equal(a$shift, a$L_ref / a$n, tolerance = 1e-12)
  expect_lte(a$accounted, audit_eps_target * (1 + 1e-9))
  expect_audit(a$honest, a$broken, a$accounted)
}

test_that("quick audit: one mirror-descent step (p = 2) stays within its epsilon", {
  skip_if_not(exists("fit_mirror", asNamespace("dpsco")), "no fit_mirror()")
  expect_mirror_audit(mirror_audit(trials = 20000))
})

test_that("long audit: one mirror-descent step (p = 2) stays within its epsilon", {
  skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
  skip_if_not(exists("fit_mirror", asNamespace("dpsco")), "no fit_mirror()")
  a <- mirror_audit(trials = 2e5)
  message(sprintf("audit mirror    accounted %.3f  eps_lb %.3f  broken %.3f",
                  a$accounted, a$honest, a$broken))
  expect_mirror_audit(a)
  expect_gt(a$honest, 0.8 * a$accounted)
})

# Approximate objective perturbation (R/objective.R) at one radius,
# (0.99, 0.01): the released Proj_C(theta2 + H) projected on the direction
# of the noise-free difference of theta2 (G = 0, solved exactly) between
# D and D' (public n = 300, data shrunk to [-K, K], the record at the
# limits).  D has n - 1 rows, which the fit resizes to n with the record
# x = 0, y = 0 (bounded_neighbours()' null row): the audited pair is the
# resized one, and `same` checks that dpsco() releases it.
# The calibration of the theorem is loose: the record moves the noisy
# gradient by at most L / n against noise sigma1 / n, and
# L / sigma1 = eps / sqrt(128 log(2.5 / delta)) < eps / 10, so the honest
# release leaks an epsilon of about eps / 8 at most and no number of
# releases lets an audit reach 0.3 of the stated epsilon (nor catch half
# the noise, which leaks about twice as little as stated).  What the audit
# can catch is a gross mistake: broken = both noise scales computed from
# the sensitivity of the mean, L / n, in place of L (the objective already
# divides G by n), i.e. the noise divided by n.
objective_audit <- function(trials, half = TRUE) {
  set.seed(20261214)
  n <- 300
  p <- 2
  K <- 2
  r <- 1
  eps <- 0.99
  obj_delta <- 1e-3  # below 1 / n
  nb <- bounded_neighbours(n, p, K)
  x0 <- nb$x0
  y0 <- nb$y0
  x1 <- nb$x1
  y1 <- nb$y1
  run <- function(x, y)
    dpsco(x, y, method = "objective", tuning = "public", radius = r,
          epsilon = eps, delta = obj_delta, public_n = n,
          standardize = FALSE, control = dpsco_control(shrink = K))
  prob <- function(x, y)
    list(x = x, y = y, family = family_object("gaussian"),
         intercept = TRUE, offset = 0, n = n, p = p, d = p + 1, x_bound = K,
         y_bound = K)
  fit <- run(x0[-n, , drop = FALSE], y0[-n])
  same_resized <- identical(
    withr::with_seed(2, as.numeric(coef(run(x0[-n, , drop = FALSE], y0[-n])))),
    withr::with_seed(2, as.numeric(coef(run(x0, y0)))))
  cal <- obj_calibrate(prob(x0, y0), r, eps, obj_delta, 0)
  # fit_objective()'s draws and solve at one radius, the noise scaled by f
  release <- function(x, y, f) {
    pb <- prob(x, y)
    curv <- obj_curvature(pb)
    function() {
      G <- stats::rnorm(pb$d, 0, f * cal$sigma1)
      sol <- obj_solve(pb, G, cal$lambda, r, cal$alpha, NULL, curv)
      H <- stats::rnorm(pb$d, 0, f * cal$sigma2)
      obj_proj_l1(sol$w + H, r)
    }
  }
  same <- identical(withr::with_seed(1, as.numeric(coef(run(x1, y1)))),
                    withr::with_seed(1, with_fit_stream(
                      release(x1, y1, 1)())))
  exact <- function(x, y)
    obj_solve(prob(x, y), numeric(p + 1), cal$lambda, r, 1e-12)$w
  u <- unit(exact(x1, y1) - exact(x0, y0))
  pr <- privacy(fit)
  list(st = fit$settings, cal = cal, pr = pr, same = same && same_resized,
       delta = obj_delta,
       eps = eps, accounted = pr$epsilon_accounted,
       honest = audit_releases(release(x0, y0, 1), release(x1, y1, 1), u,
                               trials, obj_delta),
       half = if (half) audit_releases(release(x0, y0, 1 / 2),
                                       release(x1, y1, 1 / 2), u, trials,
                                       obj_delta),
       broken = audit_releases(release(x0, y0, 1 / n), release(x1, y1, 1 / n),
                               u, trials, obj_delta))
}

expect_objective_audit <- function(a) {
  expect_true(a$same)
  expect_equal(a$st$sigma1, a$cal$sigma1)
  expect_equal(a$st$sigma2, a$cal$sigma2)
  expect_equal(c(a$pr$epsilon_accounted, a$pr$delta), c(a$eps, a$delta))
  expect_lte(a$honest, a$accounted)
  if (!is.null(a$half)) expect_lte(a$half, a$accounted)
  expect_gt(a$broken, a$accounted)
}

# Quick: a few hundred releases (about 1 ms each) catch the gross mistake.
test_that("quick audit: objective perturbation stays within its stated epsilon", {
  skip_if_not(exists("fit_objective", asNamespace("dpsco")), "no fit_objective()")
  expect_objective_audit(objective_audit(trials = 600, half = FALSE))
})

test_that("long audit: objective perturbation stays within its stated epsilon", {
  skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
  skip_if_not(exists("fit_objective", asNamespace("dpsco")), "no fit_objective()")
  a <- objective_audit(trials = 10000)
  message(sprintf(paste("audit objective stated %.3f  eps_lb %.3f  half noise",
                        "%.3f  broken (noise / n) %.3f"),
                  a$accounted, a$honest, a$half, a$broken))
  expect_objective_audit(a)
})
