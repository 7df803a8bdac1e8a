# Bun-Steinke gradient descent (Wang, Xiao, Devadas and Xu 2020, Algorithms
# 2-3) against plain-R references: the trimmed mean and its smooth bound,
# a replay of the whole loop with the same random numbers, the zCDP
# accounting in closed form, the noise-free descent against glm(), and
# Algorithm 4 against method "holland" with a full batch.

# Plain-R Algorithm 2 without noise: clamp to [a, b], sort, trim m at each
# end, truncate the mean; Wang et al.'s smooth-sensitivity bound.
ref_trim <- function(v, m, a, b, eps) {
  v <- sort(pmin(pmax(v, a), b))
  n <- length(v)
  mu <- min(max(mean(v[(m + 1):(n - m)]), a), b)
  c(mu, max((v[n] - v[1]) / (n - 2 * m), exp(-m * eps^2 / 16) * (b - a)))
}

# Plain-R Algorithm 3 on z = (1, x) (raw data, public ranges).
ref_descent <- function(x, y, family, radius, steps, step, m, lo, hi, eps,
                        offset = 0, noise = TRUE) {
  z <- cbind(1, x)
  w <- numeric(ncol(z))
  out <- matrix(0, ncol(z), length(radius))
  for (l in seq_along(radius)) {
    for (t in seq_len(steps)) {
      eta <- offset + drop(z %*% w)
      r <- if (family == "binomial") plogis(eta) - y else eta - y
      g <- vapply(seq_along(w), function(j) {
        tm <- ref_trim(r * z[, j], m, lo[j], hi[j], eps)
        tm[1] + if (noise) tm[2] / (eps / 4) * sinh(rnorm(1)) else 0
      }, 0)
      w <- w - step * g
      nrm <- sqrt(sum(w^2))
      if (nrm > radius[l]) w <- w * radius[l] / nrm
    }
    out[, l] <- w
  }
  out
}

bs_data <- function(n = 400, p = 3, seed = 11) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, p)
  y <- drop(x %*% seq(1, -1, length.out = p)) + rlnorm(n) - exp(0.5)
  list(x = x, y = y)
}

test_that("one release: trimmed mean, smooth bound and arsinh-normal noise", {
  set.seed(3)
  v <- cbind(rt(301, df = 2), rlnorm(301, 0, 2), rep(0.5, 301))
  lo <- c(-2, 0, -1)
  hi <- c(2, 5, 1)
  eps <- 0.7
  for (m in c(0L, 1L, 5L)) {
    plain <- bs_mean_release(v, lo, hi, m, eps, noise = FALSE)
    ref <- vapply(1:3, function(j) ref_trim(v[, j], m, lo[j], hi[j], eps),
                  numeric(2))
    expect_equal(plain[1:2, ], ref, tolerance = 1e-13)
    set.seed(9)
    rel <- bs_mean_release(v, lo, hi, m, eps)
    set.seed(9)
    expect_equal(rel[3, ], ref[1, ] + ref[2, ] / (eps / 4) * sinh(rnorm(3)),
                 tolerance = 1e-13)
  }
  # a constant column inside [a, b]: range 0, the floor e^{-mt}(b - a)
  expect_equal(bs_mean_release(v[, 3, drop = FALSE], -1, 1, 2L, 0.7,
                                       noise = FALSE)[2, 1],
               exp(-2 * 0.7^2 / 16) * 2, tolerance = 1e-15)
})

test_that("the loop replays in plain R with the same random numbers", {
  dat <- bs_data()
  n <- nrow(dat$x)
  eps <- 1.5
  delta <- 1e-4
  steps <- 6L
  radius <- c(0.5, 2)
  ctl <- dpsco_control(mean_range = c(-3, 3), gd_step = 0.3, trim = 2L)
  set.seed(5)
  fit <- dpsco(dat$x, dat$y, method = "bun_steinke", epsilon = eps,
               delta = delta, radius = radius, tuning = "public",
               iterations = steps, control = ctl)
  L <- log(1 / delta)
  eps_call <- (sqrt(2 * L + 2 * eps) - sqrt(2 * L)) / sqrt(4 * steps * 2)
  expect_equal(fit$settings$eps_call, eps_call, tolerance = 1e-14)
  set_fit_seed(5)
  ref <- ref_descent(dat$x, dat$y, "gaussian", radius, steps, 0.3, 2L,
                     rep(-3, 4), rep(3, 4), eps_call)
  expect_equal(unname(rbind(fit$a0, as.matrix(fit$beta))), ref,
               tolerance = 1e-10)

  # binomial, with the same loop
  yb <- as.numeric(dat$y > 0)
  set.seed(6)
  fb <- dpsco(dat$x, yb, family = "binomial", method = "bun_steinke",
              epsilon = eps, delta = delta, radius = 3, tuning = "public",
              iterations = steps, control = ctl)
  set_fit_seed(6)
  rb <- ref_descent(dat$x, yb, "binomial", 3, steps, 0.3, 2L, rep(-3, 4),
                    rep(3, 4), (sqrt(2 * L + 2 * eps) - sqrt(2 * L)) /
                      sqrt(4 * steps))
  expect_equal(unname(rbind(fb$a0, as.matrix(fb$beta))), rb,
               tolerance = 1e-10)
})

test_that("private tuning: the ranges are the hard bound of the unit-scale ball", {
  dat <- bs_data(n = 600)
  set.seed(8)
  fit <- dpsco(dat$x, dat$y, method = "bun_steinke", epsilon = 2,
               radius = c(1, 4), iterations = 3)
  off <- fit$settings$offset          # on the unit scale of the fit
  # |y| <= 1, |x| <= 1: |r| <= 1 + |offset| + r sqrt(1 + p)
  g <- 1 + abs(off) + 4 * sqrt(1 + 3)
  expect_equal(unname(fit$settings$mean_range[, 1]), c(-(1 + abs(off) + sqrt(4)),
                                                        1 + abs(off) + sqrt(4)),
               tolerance = 1e-12)
  # one neighbouring relation: add/remove one record at the public n; the
  # theorem (replace-one) holds for the records resized to that n
  pr <- fit$privacy
  expect_identical(pr$adjacency, "add/remove one record at the public size n = 600")
  expect_identical(pr$public_n, 600)
  expect_match(pr$resized, "resized to the public n", fixed = TRUE)
  # the private settings are released as for every other method: the
  # multipliers of their shares of one release at the target, not halved
  sh <- pr$shares
  set_parts <- sh$part != "optimizer"
  expect_identical(sh$part[set_parts], c("scale", "centre", "quantiles"))
  z1 <- dp_noise_multiplier(2, 0.1 / 600, 1, 1)
  expect_equal(sh$noise_multiplier[set_parts],
               z1 * sqrt(1 / c(scale_share_ref(z1, ncol(dat$x), 600),
                               centre_share_ref(z1, 600, ncol(dat$x), cap = 0.15, k = 40,
                                                others = scale_share_ref(z1, ncol(dat$x), 600) + 0.22), 0.02)),
               tolerance = 1e-6)
  expect_false(any(grepl("replace-one", sh$mechanism)))
  expect_lte(pr$epsilon_accounted, 2)
  # both epsilons through the Renyi curves (improved conversion): the
  # settings' Gaussian releases a / (2 z^2) per step, the descent's part
  # as recorded; for a record replaced the settings move by twice their
  # sensitivity (a z / 2 multiplier) and the descent keeps its theorem's
  # replace-one curve (its part's relation is "replace")
  orders <- c(seq(1.1, 10.9, by = 0.1), 12:63)
  conv <- function(rdp) min(rdp + log((orders - 1) / orders) -
                              (log(pr$delta) + log(orders)) / (orders - 1))
  curve <- function(z, steps) steps * orders / (2 * z^2)
  opt <- curve(sh$noise_multiplier[!set_parts], sh$steps[!set_parts])
  sets <- Map(curve, sh$noise_multiplier[set_parts], sh$steps[set_parts])
  sets_half <- Map(curve, sh$noise_multiplier[set_parts] / 2, sh$steps[set_parts])
  expect_equal(pr$epsilon_accounted, conv(Reduce(`+`, sets) + opt),
               tolerance = 1e-9)
  expect_equal(pr$epsilon_replace_one, conv(Reduce(`+`, sets_half) + opt),
               tolerance = 1e-9)
  expect_gt(pr$epsilon_replace_one, pr$epsilon_accounted)
  expect_true(is.finite(g))
})

test_that("accounting: d T nr releases of eps'^2/2-zCDP, Renyi alpha rho", {
  dat <- bs_data()
  eps <- 1
  delta <- 1e-5
  set.seed(1)
  fit <- dpsco(dat$x, dat$y, method = "bun_steinke", epsilon = eps,
               delta = delta, radius = c(1, 2, 3), tuning = "public",
               iterations = 4, control = dpsco_control(mean_range = c(-1, 1)))
  L <- log(1 / delta)
  eps_tilde <- sqrt(2 * L + 2 * eps) - sqrt(2 * L)
  rho <- 4 * 4 * 3 * (eps_tilde / sqrt(4 * 4 * 3))^2 / 2
  # Wang et al.'s conversion of the total zCDP level gives back epsilon
  expect_equal(rho + 2 * sqrt(rho * L), eps, tolerance = 1e-12)
  # the accountant: RDP alpha rho, improved conversion over its orders
  orders <- c(seq(1.1, 10.9, by = 0.1), 12:63)
  conv <- min(orders * rho + log((orders - 1) / orders) -
                (log(delta) + log(orders)) / (orders - 1))
  expect_equal(fit$privacy$epsilon_accounted, conv, tolerance = 1e-9)
  expect_lt(fit$privacy$epsilon_accounted, eps)
  expect_equal(fit$privacy$shares$kind, "rdp")
  expect_equal(fit$privacy$shares$steps, 48)
})

test_that("without noise the descent reaches glm()'s fit inside a large ball", {
  dat <- bs_data(n = 300)
  prob <- list(x = dat$x, y = dat$y, family = family_object("gaussian"),
               intercept = TRUE,
               offset = 0.2, n = 300, p = 3, d = 4, threads = 1L)
  plan <- list(steps = 400L, step = 0.5, trim = 0L, decay = 1, s = 1,
               lo = matrix(-1e6, 4, 1), hi = matrix(1e6, 4, 1))
  w <- bs_engine(prob, 100, plan, noise = FALSE)$beta
  ref <- coef(glm(dat$y ~ dat$x, offset = rep(0.2, 300)))
  expect_equal(drop(w), unname(ref), tolerance = 1e-9)
  # binomial: the logistic MLE
  yb <- as.numeric(dat$y > 0.3)
  prob$y <- yb
  prob$family <- family_object("binomial")
  plan$steps <- 6000L
  plan$step <- 4
  wb <- bs_engine(prob, 100, plan, noise = FALSE)$beta
  rb <- coef(glm(yb ~ dat$x, family = binomial(), offset = rep(0.2, 300),
                 control = glm.control(epsilon = 1e-14)))
  expect_equal(drop(wb), unname(rb), tolerance = 1e-7)
  # with trimming, the plain-R descent without noise agrees
  plan$steps <- 30L
  plan$trim <- 3L
  plan$lo <- matrix(-0.4, 4, 1)
  plan$hi <- matrix(0.4, 4, 1)
  wt <- bs_engine(prob, 2, plan, noise = FALSE)$beta
  rt <- ref_descent(dat$x, yb, "binomial", 2, 30L, 4, 3L, rep(-0.4, 4),
                    rep(0.4, 4), 1, offset = 0.2, noise = FALSE)
  expect_equal(wt, rt, tolerance = 1e-12)
})

test_that("bad settings are argument errors", {
  dat <- bs_data(n = 50)
  expect_error(dpsco(dat$x, dat$y, method = "bun_steinke", radius = 1,
                     tuning = "public"), class = "dpsco_arg_error")
  expect_error(dpsco(dat$x, dat$y, method = "bun_steinke", radius = 1,
                     tuning = "public",
                     control = dpsco_control(mean_range = c(-1, 1), trim = 25L)),
               class = "dpsco_arg_error")
  # eps' above 1: Bun and Steinke's theorem does not cover it
  err <- tryCatch(dpsco(dat$x, dat$y, method = "bun_steinke", radius = 1,
                        epsilon = 500, iterations = 1, tuning = "public",
                        control = dpsco_control(mean_range = c(-1, 1))),
                  dpsco_arg_error = function(e) e)
  expect_equal(err$arg, "epsilon")
  expect_error(dpsco_control(mean_range = c(1, -1)), class = "dpsco_arg_error")
  expect_error(dpsco_control(trim = -1), class = "dpsco_arg_error")
  expect_error(dpsco(dat$x, dat$y, method = "bun_steinke", radius = 1,
                     tuning = "public",
                     control = dpsco_control(mean_range = matrix(c(-1, 1), 2, 3))),
               class = "dpsco_arg_error")
})

# ---------------------------------------------------------------------------
# Algorithm 4 (known variance) is method "holland" with a full batch: per
# step each coordinate is s times Holland's smoothed Catoni-Giulini mean
# (Wang et al.'s equation (10), beta = nu) plus N(0, sigma^2), then a plain
# gradient step; the output is the last iterate.  Parameters agree when s,
# nu, the step, T, lambda = 0 and output = "last" are set alike.  Only the
# noise's calibration differs: Wang et al.'s sigma^2 = 8 v d T / (9 log(1/delta')
# n eps~) is the Gaussian mechanism for replace-one neighbours composed in
# zCDP, while dpsco calibrates add/remove neighbours with the exact Gaussian
# composition.

# E psi(a + bZ) in closed form (Wang et al.'s equation (9), DESIGN.md section 3)
ref_catoni <- function(a, b) {
  r2 <- sqrt(2)
  out <- numeric(length(a))
  nz <- b > 0
  a0 <- a[!nz]
  out[!nz] <- ifelse(abs(a0) <= r2, a0 - a0^3 / 6, sign(a0) * 2 * r2 / 3)
  a <- a[nz]
  b <- b[nz]
  u <- (r2 - a) / b
  w <- (r2 + a) / b
  pp <- pnorm(u, lower.tail = FALSE)
  pm <- pnorm(w, lower.tail = FALSE)
  cc <- (2 * r2 / 3) * (pp - pm) - (a - a^3 / 6) * (pp + pm) +
    b * (1 - a^2 / 2) * (dnorm(w) - dnorm(u)) +
    (a * b^2 / 2) * (pp + pm + u * dnorm(u) + w * dnorm(w)) +
    (b^3 / 6) * ((u^2 + 2) * dnorm(u) - (w^2 + 2) * dnorm(w))
  out[nz] <- a * (1 - b^2 / 2) - a^3 / 6 + cc
  out
}

test_that("Algorithm 4 is method \"holland\" with batch_size = n", {
  set.seed(21)
  n <- 500
  x <- matrix(runif(n * 2, -1, 1), n, 2)
  y <- drop(x %*% c(0.8, -0.5)) + (rlnorm(n, 0, 0.5) - exp(0.125)) / 2
  eps <- 1
  delta <- 1e-3
  delta_p <- 0.05                       # the failure probability delta'
  v <- 1                                # second-moment bound
  steps <- 8L
  s <- sqrt(n * v / (2 * log(1 / delta_p)))
  nu <- log(1 / delta_p)
  eta <- 0.7
  set.seed(4)
  fit <- dpsco(x, y, method = "holland", tuning = "public", batch_size = n,
               lambda = 0, iterations = steps, step_size = eta,
               intercept = FALSE, epsilon = eps, delta = delta,
               control = dpsco_control(s = s, nu = nu, output = "last",
                                       support = "none"))
  sigma <- fit$privacy$noise_sd
  set_fit_seed(4)
  w <- c(0, 0)
  for (t in seq_len(steps)) {
    r <- drop(x %*% w) - y
    g <- vapply(1:2, function(j) {
      l <- r * x[, j]
      s * mean(ref_catoni(l / s, abs(l) / (s * sqrt(nu))))
    }, 0) + sigma * rnorm(2)
    w <- w - eta * g
  }
  # the engine tabulates h for its nu: agreement to the table's accuracy
  expect_equal(unname(drop(as.matrix(fit$beta))), w, tolerance = 1e-6)

  # the noise: Wang et al.'s sigma is the Gaussian mechanism with the
  # replace-one sensitivity 4 sqrt(2) s sqrt(d) / (3 n) at total zCDP
  # level eps~ over T steps, which converts back to epsilon
  L <- log(1 / delta)
  eps_t <- (sqrt(L + eps) - sqrt(L))^2
  sigma_paper <- sqrt(8 * v * 2 * steps / (9 * log(1 / delta_p) * n * eps_t))
  sens_rep <- 4 * sqrt(2) * s * sqrt(2) / (3 * n)
  rho <- steps * sens_rep^2 / (2 * sigma_paper^2)
  expect_equal(rho, eps_t, tolerance = 1e-12)
  expect_equal(rho + 2 * sqrt(rho * L), eps, tolerance = 1e-12)
  # dpsco's add/remove sensitivity is half of it; its exact accounting
  # needs less noise than Wang et al.'s conversion
  expect_equal(fit$privacy$sensitivity, sens_rep / 2, tolerance = 1e-12)
  expect_lt(sigma, sigma_paper)
  # at Wang et al.'s sigma, the exact accountant (add/remove) is below epsilon
  expect_lt(dp_epsilon(sigma_paper / (sens_rep / 2), 1, steps, delta), eps)
})

test_that("the Bun-Steinke engine refuses unknown and missing settings fields", {
  v <- matrix(c(0.1, -0.3, 0.2, 0.5, 0, -0.1), 3)
  s <- list(task = 1L, trim = 0L, decay = 1, s = 1, noise = 0L,
            lo = c(-1, -1), hi = c(1, 1))
  rel <- function(s) .Call(C_dpsco_bun_steinke, v, NULL, s, NULL, NULL)
  expect_equal(rel(s), bs_mean_release(v, -1, 1, 0L, 1, noise = FALSE))
  # the path's fields are not the release's
  expect_error(rel(c(s, steps = 2L)),
               "dpsco_bun_steinke: unknown settings field 'steps'", fixed = TRUE)
  s$decay <- NULL
  expect_error(rel(s), "dpsco_bun_steinke: settings field 'decay' is missing",
               fixed = TRUE)
})
