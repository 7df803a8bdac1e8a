# Noisy mirror descent in l_p (R/mirror.R, src/mirror.c, src/gg_noise.c),
# checked against plain-R computations written here from the definitions:
#   mirror map  Phi(w) = ||w||_s^2 / (2 (s - 1)),
#               grad Phi(w) = ||w||_s^(2-s) sign(w) |w|^(s-1) / (s - 1),
#               its inverse (s - 1) ||v||_t^(2-t) sign(v) |v|^(t-1),
#               t = s / (s - 1);
#   step        argmin over ||u||_s <= M of <g, u> + b D_Phi(u, w) + a Phi(u)
#   noise       density proportional to exp(-||z||_r^2 / (2 sigma^2)).

lpn <- function(v, s) sum(abs(v)^s)^(1 / s)
# gradient of ||v||_s^2 / 2
jmap <- function(v, s) {
  nv <- lpn(v, s)
  if (nv == 0) return(0 * v)
  nv^(2 - s) * sign(v) * abs(v)^(s - 1)
}
grad_phi <- function(w, s) jmap(w, s) / (s - 1)
grad_phi_star <- function(th, s) (s - 1) * jmap(th, s / (s - 1))
phi <- function(w, s) lpn(w, s)^2 / (2 * (s - 1))
step_ref <- function(w, g, s, b, a, M) {
  th <- (b * grad_phi(w, s) - g) / (b + a)
  u <- grad_phi_star(th, s)
  u * min(1, M / lpn(u, s))
}
# mean gradient of the records at w, each clipped (or truncated) to l_q
# norm C
grad_ref <- function(prob, w, q, C, truncate = FALSE) {
  x1 <- if (prob$intercept) cbind(1, prob$x) else prob$x
  r <- drop(x1 %*% w) + prob$offset - prob$y
  g <- r * x1
  nq <- apply(g, 1, lpn, s = q)
  keep <- if (truncate) as.numeric(nq <= C) else pmin(1, C / nq)
  keep[nq == 0] <- 1
  colSums(g * keep) / nrow(x1)
}

mirror_prob <- function(n, p, family = "gaussian", seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * p, -1, 1), n, p)
  eta <- drop(0.5 + x %*% rep(c(1, -2, 0.5), length.out = p))
  y <- if (family == "gaussian") pmax(pmin(eta + rnorm(n, sd = 0.3), 4), -4)
       else rbinom(n, 1, plogis(eta))
  list(x = x, y = y, family = family_object(family),
       intercept = TRUE, offset = 0, n = n, p = p, d = p + 1L, x_bound = 1,
       y_bound = 4)
}

mirror_budget <- function(epsilon = 1, delta = 1e-5)
  list(epsilon = epsilon, delta = delta, fixed_components = list(),
       remaining = list(epsilon = epsilon, delta = delta))

# ---------------------------------------------------------------------------
# Generalized Gaussian noise

test_that("generalized Gaussian noise at r = 2 is N(0, sigma^2 I)", {
  set.seed(11)
  k <- 20000
  sigma <- 1.7
  z <- gg_draws(k, 4, 2, sigma)
  expect_equal(dim(z), c(4L, k))
  se_mean <- sigma / sqrt(k)
  expect_lt(max(abs(rowMeans(z))), 5 * se_mean)
  # variance sigma^2, sd of its estimate sigma^2 sqrt(2 / k)
  cv <- tcrossprod(z) / k
  expect_lt(max(abs(diag(cv) - sigma^2)), 5 * sigma^2 * sqrt(2 / k))
  expect_lt(max(abs(cv[upper.tri(cv)])), 5 * sigma^2 / sqrt(k))
  expect_gt(stats::ks.test(z[1, ] / sigma, "pnorm")$p.value, 1e-3)
})

test_that("generalized Gaussian noise has ||z||_r = sigma chi_d and the right marginals", {
  d <- 5
  sigma <- 0.8
  k <- 20000
  for (r in c(1.5, 4)) {
    set.seed(12)
    z <- gg_draws(k, d, r, sigma)
    nr <- apply(z, 2, lpn, s = r)
    # E||z||_r^2 = sigma^2 E chi_d^2 = sigma^2 2 Gamma((d+2)/2) / Gamma(d/2)
    # = d sigma^2; ||z||_r^2 / sigma^2 ~ chi^2_d has variance 2 d
    e2 <- sigma^2 * 2 * gamma((d + 2) / 2) / gamma(d / 2)
    expect_equal(e2, d * sigma^2)
    expect_lt(abs(mean(nr^2) - e2), 5 * sigma^2 * sqrt(2 * d / k))
    expect_gt(stats::ks.test(nr / sigma, function(v) pchisq(v^2, d))$p.value,
              1e-3)
    # E|z_j|^r = E||z||_r^r / d = sigma^r 2^(r/2) Gamma((d+r)/2) /
    # (d Gamma(d/2)), the same for every coordinate
    er <- sigma^r * 2^(r / 2) * gamma((d + r) / 2) / (d * gamma(d / 2))
    mr <- rowMeans(abs(z)^r)
    se <- sqrt(apply(abs(z)^r, 1, var) / k)
    expect_true(all(abs(mr - er) < 5 * se))
    # symmetric coordinates: sign tests and odd moments near 0
    pos <- rowSums(z > 0)
    expect_true(all(abs(pos - k / 2) < 5 * sqrt(k) / 2))
    expect_true(all(abs(rowMeans(z)) < 5 * sqrt(apply(z, 1, var) / k)))
  }
})

test_that("generalized Gaussian noise matches a rejection sampler (d = 2, r = 4)", {
  # density exp(-||z||_4^2 / 2); in R^2, ||z||_2^2 <= sqrt(2) ||z||_4^2, so
  # N(0, sqrt(2) I) is an envelope with acceptance ratio
  # exp(-||z||_4^2 / 2 + ||z||_2^2 / (2 sqrt(2))) <= 1
  set.seed(13)
  k <- 6000
  out <- matrix(0, 0, 2)
  while (nrow(out) < k) {
    v <- matrix(rnorm(2 * 4 * k, sd = 2^(1 / 4)), ncol = 2)
    n4 <- sqrt(sqrt(rowSums(v^4)))
    acc <- runif(nrow(v)) < exp(-n4^2 / 2 + rowSums(v^2) / (2 * sqrt(2)))
    out <- rbind(out, v[acc, , drop = FALSE])
  }
  ref <- out[seq_len(k), ]
  z <- t(gg_draws(k, 2, 4, 1))
  expect_gt(stats::ks.test(z[, 1], ref[, 1])$p.value, 1e-3)
  expect_gt(stats::ks.test(z[, 1] * z[, 2], ref[, 1] * ref[, 2])$p.value, 1e-3)
  expect_gt(stats::ks.test(abs(z[, 1]) - abs(z[, 2]),
                           abs(ref[, 1]) - abs(ref[, 2]))$p.value, 1e-3)
})

# ---------------------------------------------------------------------------
# Mirror map and step

test_that("the mirror map and its inverse are inverse maps", {
  set.seed(14)
  for (s in c(1.3, 1.7)) {
    for (w in list(rnorm(9), c(3e-200, -1e150, 2, 0), c(0, 0, 1e-3))) {
      u <- mirror_map(w, s)
      back <- mirror_map(u, s, inverse = TRUE)
      expect_lte(max(abs(back - w)), 1e-12 * max(abs(w)))
    }
    w <- rnorm(9)
    expect_lte(max(abs(mirror_map(w, s) - grad_phi(w, s))), 1e-12)
    expect_lte(max(abs(mirror_map(w, s, TRUE) -
                         grad_phi_star(w, s))), 1e-12)
  }
  expect_identical(mirror_map(c(1, -2), 2), c(1, -2))
})

test_that("at p = 2 with alpha = 0 and no noise a mirror step is a projected gradient step", {
  prob <- mirror_prob(300, 4)
  w0 <- c(0.3, -0.2, 0.1, 0.4, -0.5)
  x1 <- cbind(1, prob$x)
  g <- drop(crossprod(x1, drop(x1 %*% w0) - prob$y)) / prob$n
  for (M in c(0.5, Inf)) {
    pl <- mirror_plan(prob, M, 2, mirror_budget(),
                                list(clip = 1e6, mirror_alpha = 0), iterations = 1)
    pl$engine$sigma[] <- 0
    got <- mirror_run(prob, M, pl$engine, beta0 = w0)
    u <- w0 - g / pl$settings$beta_smooth
    if (is.finite(M)) expect_gt(sqrt(sum(u^2)), M)  # the projection acts
    want <- u * min(1, M / sqrt(sum(u^2)))
    expect_lte(max(abs(drop(got) - want)), 1e-12)
  }
})

test_that("the constrained mirror step minimises its objective on the ball", {
  set.seed(15)
  s <- 1.5
  w <- c(0.2, -0.4, 0.1)
  g <- c(1.5, -0.3, 2)
  b <- 2
  a <- 0.5
  M <- 0.2
  obj <- function(u) sum(g * u) + a * phi(u, s) +
    b * (phi(u, s) - phi(w, s) - sum(grad_phi(w, s) * (u - w)))
  onto <- function(v) v * min(1, M / lpn(v, s))
  # the engine's step, through Algorithm 3 with one noise-free step from w
  # on a one-record problem whose gradient r (1, x) is g: x = g[-1] / g[1]
  # and y such that the residual x1'w - y is r = g[1]
  x1 <- c(1, g[-1] / g[1])
  prob <- list(x = matrix(x1[-1], 1), y = sum(x1 * w) - g[1],
               family = family_object("gaussian"),
               intercept = TRUE, offset = 0, n = 1L,
               p = 2L, d = 3L, x_bound = 2, y_bound = 4)
  pl <- mirror_plan(prob, M, s, mirror_budget(),
                              list(clip = 1e6, mirror_alpha = a), iterations = 1)
  pl$engine$sigma[] <- 0
  pl$engine$b[] <- b
  got <- drop(mirror_run(prob, M, pl$engine, beta0 = w))
  expect_lte(max(abs(got - step_ref(w, g, s, b, a, M))), 1e-12)
  expect_equal(lpn(got, s), M)
  best <- Inf
  for (start in list(c(0, 0, 0), -g, rnorm(3), rnorm(3)))
    best <- min(best, stats::optim(start, function(v) obj(onto(v)),
                                   method = "BFGS",
                                   control = list(reltol = 1e-14,
                                                  maxit = 5000))$value)
  expect_lte(obj(got), best + 1e-9)
  # no feasible point nearby does better
  near <- vapply(1:200, function(i) obj(onto(got + rnorm(3, sd = 0.05))), 0)
  expect_gte(min(near), obj(got) - 1e-12)
})

# ---------------------------------------------------------------------------
# The two algorithms, noise-free, against plain R

test_that("noise-free unconstrained Algorithm 3 converges to least squares", {
  # with alpha = 0 the step's fixed point is the minimiser of the mean loss
  # in every geometry; p = 2 is plain gradient descent
  prob <- mirror_prob(200, 3, seed = 3)
  ls <- unname(stats::lm.fit(cbind(1, prob$x), prob$y)$coefficients)
  for (lp in c(2, 1.5)) {
    pl <- mirror_plan(prob, Inf, lp, mirror_budget(),
                                list(clip = 1e6, mirror_alpha = 0),
                                iterations = 50000)
    pl$engine$sigma[] <- 0
    got <- drop(mirror_run(prob, Inf, pl$engine))
    # the output averages the iterates: its error is O(1 / T)
    expect_lte(max(abs(got - ls)), 1e-3)
  }
})

test_that("noise-free Algorithm 3 at p = 1.5 follows the plain-R recursion", {
  prob <- mirror_prob(150, 3, seed = 4)
  s <- 1.5
  q <- 3
  pl <- mirror_plan(prob, c(0.8, 2), s, mirror_budget(),
                              list(clip = 2, mirror_alpha = 3), iterations = 4)
  pl$engine$sigma[] <- 0
  got <- mirror_run(prob, c(0.8, 2), pl$engine)
  b <- pl$settings$beta_smooth
  a <- 3
  cw <- (2 * b + a) / (2 * b)
  w <- rep(0, 4)
  for (l in 1:2) {
    M <- c(0.8, 2)[l]
    ws <- matrix(0, 4, 4)
    for (t in 1:4) {
      w <- step_ref(w, grad_ref(prob, w, q, 2), s, b, a, M)
      ws[, t] <- w
    }
    w <- drop(ws %*% cw^(1:4)) / sum(cw^(1:4))
    expect_lte(max(abs(got[, l] - w)), 1e-12)
  }
})

test_that("Algorithm 4 truncates in the dual norm and steps on the l_p ball", {
  prob <- mirror_prob(400, 3, seed = 5)
  s <- 1.5
  q <- 3
  M <- 0.3
  x1 <- cbind(1, prob$x)
  nq <- abs(prob$y) * apply(x1, 1, lpn, s = q)  # ||g_i||_q at w = 0
  pl0 <- mirror_plan(prob, M, s, mirror_budget(1e-3),
                               list(mirror_lambda = 1), TRUE, iterations = 1)
  lambda <- median(nq) - pl0$settings$beta_smooth * M
  pl <- mirror_plan(prob, M, s, mirror_budget(1e-3),
                              list(mirror_lambda = lambda, mirror_gamma = 2), TRUE,
                              iterations = 1)
  C <- pl$settings$truncation
  expect_equal(C, median(nq))
  pl$engine$sigma[] <- 0
  set.seed(16)
  got <- drop(mirror_run(prob, M, pl$engine))
  g <- grad_ref(prob, rep(0, 4), q, C, truncate = TRUE)
  expect_lt(sum(nq <= C), prob$n)  # some records are dropped
  want <- step_ref(rep(0, 4), g, s, 2, 0, M)
  expect_lte(max(abs(got - want)), 1e-12)
  # clipping instead of truncation gives a different step
  expect_gt(max(abs(want - step_ref(rep(0, 4), grad_ref(prob, rep(0, 4), q, C),
                                    s, 2, 0, M))), 1e-6)
})

# ---------------------------------------------------------------------------
# Privacy calibration

test_that("Algorithm 3's noise is the method's sigma (p = 1.5)", {
  prob <- mirror_prob(5000, 3)
  f <- fit_mirror(prob, c(1, 3), 1.5, mirror_budget(0.8, 1e-6),
                            list())
  st <- f$settings
  d <- 4
  eps <- 0.4
  delta <- 5e-7
  kappa <- min(1 / (1.5 - 1), 2 * log(d))
  L <- prob$y_bound * (1 + 3 * prob$x_bound^3)^(1 / 3)
  T <- ceiling((prob$n * eps * kappa / sqrt(d * log(1 / delta)))^(2 / 5))
  beta <- (1 + 3)^(2 / 3)
  expect_equal(st$kappa, kappa)
  expect_equal(st$L, L)
  expect_equal(st$T, T)
  expect_equal(st$alpha, 4 * beta * log2(prob$n / T) / T)
  expect_equal(st$sigma, sqrt(64 * L^2 * kappa * T * log(1 / delta) /
                                (prob$n^2 * eps^2)))
  part <- f$parts[[1]]
  expect_identical(part$kind, "dp")
  expect_equal(c(part$epsilon, part$delta), c(0.8, 1e-6))
  expect_equal(account_parts(f$parts, 1e-6), 0.8)
  # Theorem 6 is for replace-one neighbours of n records: dpsco() runs it
  # on the records resized to the public n
  expect_identical(part$neighbouring,
                   "replace-one (Theorem 6), on the records resized to the public n")
  expect_equal(dim(f$beta), c(4L, 2L))
  expect_true(all(is.finite(f$beta)))
})

test_that("at p = 2 Algorithm 3 is an exactly accounted Gaussian mechanism", {
  prob <- mirror_prob(3000, 3)
  f <- fit_mirror(prob, c(1, Inf), 2, mirror_budget(1, 1e-5), list())
  part <- f$parts[[1]]
  expect_identical(part$kind, "gaussian")
  # accounted for add/remove directly (sensitivity L / n, n public)
  expect_null(part$relation)
  expect_equal(f$settings$sigma, part$noise_multiplier * f$settings$L / prob$n)
  # T nr unsampled Gaussian steps of multiplier z compose to mu = sqrt(T nr)
  # / z; their exact delta at epsilon (Balle and Wang 2018, Theorem 8)
  mu <- sqrt(part$steps) / part$noise_multiplier
  dlt <- pnorm(-1 / mu + mu / 2) - exp(1) * pnorm(-1 / mu - mu / 2)
  expect_lte(dlt, 1e-5 * (1 + 1e-6))
  expect_gt(dlt, 1e-5 * 0.999)
})

test_that("the shuffling bound is the more conservative closed form of Feldman, McMillan and Talwar", {
  # n = 1e5, eps0 = 1, delta = 1e-6: log(4 / delta) = 15.2018049,
  # a = 8 sqrt(e log(4 / delta) / n) = 0.1626241, c = 8 e / n = 0.0002175,
  # e = log(1 + a + c) = 0.1508666; the reference implementation's factor
  # (1 - e^-1) / (1 + e^(-1 - e)) = 0.6321206 / 1.3163620 = 0.4802025 and
  # log(1 + 0.4802025 * 0.1628416) = 0.0752901, above Theorem 3.1's
  # log(1 + tanh(1 / 2) * 0.1628415) = 0.0725549
  expect_equal(shuffle_epsilon(1, 1e5, 1e-6), 0.0752901,
               tolerance = 1e-6)
  thm <- function(e0, n, d)
    log1p(tanh(e0 / 2) * (8 * sqrt(exp(e0) * log(4 / d) / n) + 8 * exp(e0) / n))
  e0 <- c(0.01, 0.1, 0.5, 1)
  expect_true(all(shuffle_epsilon(e0, 1e3, 1e-6) > thm(e0, 1e3, 1e-6)))
  expect_equal(max(shuffle_epsilon(e0, 1e3, 1e-6) / thm(e0, 1e3, 1e-6)),
               1.3299, tolerance = 1e-3)
  prob <- mirror_prob(20000, 3)
  f <- fit_mirror(prob, c(0.5, 1), 1.5, mirror_budget(0.1, 1e-5),
                            list(), shuffled = TRUE)
  st <- f$settings
  n <- prob$n
  eps_r <- 0.05
  delta_r <- 5e-6
  # the reference implementation's closed form, in plain R
  fmt <- function(e0, dl) {
    a <- 8 * sqrt(exp(e0) * log(4 / dl) / n)
    cc <- 8 * exp(e0) / n
    log(1 + (1 - exp(-e0)) / (1 + exp(-e0 - log(1 + a + cc))) * (a + cc))
  }
  expect_lte(st$eps0, min(1, log(n / (16 * log(4 / (delta_r / 2))))))
  expect_equal(st$epsilon_amplified, fmt(st$eps0, delta_r / 2))
  expect_equal(st$epsilon_amplified, eps_r, tolerance = 1e-9)
  expect_lte(st$epsilon_amplified, eps_r)
  total_delta <- delta_r / 2 + (exp(st$epsilon_amplified) + 1) *
    (1 + exp(-st$eps0) / 2) * n * st$delta0
  expect_lte(total_delta, delta_r * (1 + 1e-12))
  # the local randomizer: the generalized Gaussian of the method's Lemma 3
  # with replace-one sensitivity 2 (beta M + lambda)
  expect_equal(st$sigma, sqrt(2 * st$kappa * log(1 / st$delta0)) *
                 2 * (st$beta_smooth * c(0.5, 1) + st$lambda) / st$eps0)
  part <- f$parts[[1]]
  # the theorem is for replace-one neighbours of n records: dpsco() runs
  # it on the records resized to the public n
  expect_identical(part$neighbouring,
                   "replace-one (shuffle model), on the records resized to the public n")
  expect_equal(part$eps0, st$eps0)
  expect_lte(account_parts(f$parts, 1e-5), 0.1 * (1 + 1e-9))
})

test_that("an epsilon beyond the shuffling bound's reach is spent as its reach", {
  prob <- mirror_prob(2000, 3)
  set.seed(9)
  f <- fit_mirror(prob, 1, 1.5, mirror_budget(1, 1e-5), list(),
                            shuffled = TRUE)
  reach <- shuffle_epsilon(
    min(1, log(2000 / (16 * log(4 / 5e-6)))), 2000, 5e-6)
  expect_true(f$settings$epsilon_capped)
  expect_equal(f$settings$epsilon_amplified, reach, tolerance = 1e-9)
  expect_lte(f$settings$epsilon_amplified, reach)
  expect_equal(f$parts[[1]]$epsilon, reach, tolerance = 1e-9)
  expect_match(f$parts[[1]]$mechanism, "capped", fixed = TRUE)
  # too few records for any eps0
  small <- mirror_prob(100, 3)
  err <- expect_error(fit_mirror(small, 1, 1.5, mirror_budget(0.01),
                                           list(), shuffled = TRUE),
                      class = "dpsco_arg_error")
  expect_identical(err$arg, "epsilon")
})

test_that("bad arguments are argument errors", {
  prob <- mirror_prob(200, 3)
  arg_of <- function(...) tryCatch(fit_mirror(prob, ...),
                                   dpsco_arg_error = function(e) e$arg)
  b <- mirror_budget()
  expect_identical(arg_of(1, 1, b, list()), "lp")
  expect_identical(arg_of(1, 2.5, b, list()), "lp")
  expect_identical(arg_of(c(2, 1), 1.5, b, list()), "radius")
  expect_identical(arg_of(c(1, -1), 1.5, b, list()), "radius")
  expect_identical(arg_of(Inf, 1.5, b, list(), shuffled = TRUE), "radius")
  expect_identical(arg_of(1, 1.5, b, list(), iterations = 0), "iterations")
  expect_identical(arg_of(1, 1.5, b, list(), iterations = 2.5), "iterations")
  expect_identical(arg_of(1, 1.5, b, list(), shuffled = TRUE,
                          iterations = 201), "iterations")
})

test_that("set.seed() reproduces a fit", {
  prob <- mirror_prob(3000, 5, family = "binomial")
  for (sh in c(FALSE, TRUE)) {
    bud <- mirror_budget(if (sh) 0.05 else 1)
    set.seed(21)
    f1 <- fit_mirror(prob, c(0.5, 1), 1.6, bud, list(), shuffled = sh)
    set.seed(21)
    f2 <- fit_mirror(prob, c(0.5, 1), 1.6, bud, list(), shuffled = sh)
    set.seed(22)
    f3 <- fit_mirror(prob, c(0.5, 1), 1.6, bud, list(), shuffled = sh)
    expect_identical(f1$beta, f2$beta)
    expect_false(identical(f1$beta, f3$beta))
    expect_true(all(is.finite(f1$beta)))
  }
})

test_that("the mirror engine refuses unknown and missing settings fields", {
  map <- function(s) .Call(C_dpsco_mirror, NULL, NULL, s, NULL, c(1, -2))
  s <- list(task = mirror_tasks[["map"]], s = 1.5, inverse = 0L)
  expect_equal(map(s), mirror_map(c(1, -2), 1.5))
  # each task has its own fields: the noise task's sigma is not the map's
  expect_error(map(c(s, sigma = 1)),
               "dpsco_mirror: unknown settings field 'sigma'", fixed = TRUE)
  s$inverse <- NULL
  expect_error(map(c(s, invrese = 1L)),
               "dpsco_mirror: unknown settings field 'invrese'", fixed = TRUE)
  expect_error(map(s), "dpsco_mirror: settings field 'inverse' is missing",
               fixed = TRUE)
  prob <- mirror_prob(40, 2)
  pl <- mirror_plan(prob, 1, 1.5, mirror_budget(),
                              list(clip = 2, mirror_alpha = 3), iterations = 2)
  e <- pl$engine
  expect_error(mirror_run(prob, 1, c(e, noise_grd = 0)),
               "dpsco_mirror: unknown settings field 'noise_grd'", fixed = TRUE)
  e$a <- NULL
  expect_error(mirror_run(prob, 1, e),
               "dpsco_mirror: settings field 'a' is missing", fixed = TRUE)
})
