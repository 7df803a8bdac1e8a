# The inference stage (R/inference.R): its estimating equations (without a
# row bound or a clamp they are glm's, and their sandwich glm's HC0
# covariance; with them every record's terms stay within their bounds),
# its settings, its releases and its budget, and the stage without noise
# against independent fits.

inf_design <- function(n, p, seed) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, p)
  list(x = x, w = cbind(1, x))
}

test_that("without bounds the root is glm's estimate, the sandwich glm's HC0", {
  d <- inf_design(500, 3, 1)
  eta <- drop(d$w %*% c(0.3, 0.8, -0.5, 0))
  ys <- list(gaussian = eta + rnorm(500),
             binomial = rbinom(500, 1, plogis(eta)),
             poisson = rpois(500, exp(0.5 * eta)))
  glm_fams <- list(gaussian = gaussian(), binomial = binomial(),
                   poisson = poisson())
  for (nm in names(ys)) {
    fam <- family_object(nm)
    g <- glm(ys[[nm]] ~ d$x, family = glm_fams[[nm]])
    b <- inference_root(fam, d$w, ys[[nm]], rep(0, 4), Inf, Inf)
    expect_equal(b, unname(coef(g)), tolerance = 1e-8, info = nm)
    # HC0 by hand: (X'WX)^-1 X' diag(r^2) X (X'WX)^-1, r the response
    # residual and W the variance function at the fit (canonical links)
    mu <- fitted(g)
    wt <- switch(nm, gaussian = rep(1, 500), binomial = mu * (1 - mu),
                 poisson = mu)
    bread <- solve(crossprod(d$w * wt, d$w))
    meat <- crossprod(d$w * (ys[[nm]] - mu))
    hc0 <- bread %*% meat %*% bread
    mo <- inference_moments(fam, d$w, ys[[nm]], b, Inf, Inf)
    expect_equal(inference_sandwich(mo, 500), hc0, tolerance = 1e-7,
                 info = nm)
  }
})

test_that("each record's score, bread and meat terms stay within their bounds", {
  d <- inf_design(50, 2, 2)
  w <- rbind(d$w, c(1, 1e8, -1e8), c(1, 0, 0))
  R <- 3
  c0 <- 2
  ys <- list(gaussian = c(rnorm(50), -1e12, 1e12),
             binomial = c(rbinom(50, 1, 0.5), 1, 0),
             poisson = c(rpois(50, 2), 1e6, 0))
  for (nm in names(ys)) {
    fam <- family_object(nm)
    tm <- inference_terms(fam, w, ys[[nm]], c(0.2, 0.5, -0.5), R, c0,
                          d_cap = 10)
    expect_identical(tm$d_cap, 10)
    norms2 <- rowSums(w * w)
    score <- abs(tm$v * tm$psi) * sqrt(norms2)
    expect_true(all(score <= tm$bound * R * (1 + 1e-12)), info = nm)
    # a bread term's Frobenius norm v d ||w||^2 stays within d_cap R^2
    expect_true(all(tm$v * tm$d * norms2 <= 10 * R^2 * (1 + 1e-12)),
                info = nm)
    expect_true(all(is.finite(tm$psi)) && all(is.finite(tm$d)), info = nm)
  }
})

test_that("the Poisson clamp moments match their sums and limits", {
  m <- c(0.3, 2, 15)
  mo <- poisson_clamp_moments(m, Inf)
  expect_identical(mo$a, c(0, 0, 0))
  expect_identical(mo$d, m)
  # a direct sum far into the tail
  ref <- vapply(m, function(mu) {
    k <- 0:400
    p <- dpois(k, mu)
    cl <- pmin(pmax(k - mu, -1.5), 1.5)
    c(sum(p * cl), sum(p * cl * (k - mu)))
  }, c(0, 0))
  mo <- poisson_clamp_moments(m, 1.5)
  expect_equal(mo$a, ref[1, ], tolerance = 1e-13)
  expect_equal(mo$d, ref[2, ], tolerance = 1e-13)
  # the normal limit above a mean of 1e6, continuous there
  near <- poisson_clamp_moments(c(1e6 - 1, 1e6 + 1), 3)
  expect_equal(near$d[1], near$d[2], tolerance = 1e-4)
  expect_identical(poisson_clamp_moments(Inf, 3)$d, Inf)
})

test_that("the clamped Poisson score stays Fisher-consistent", {
  # with c = 1 most residuals are clamped, yet the root estimates the
  # model's coefficients (an uncorrected clamp would bias the intercept)
  d <- inf_design(20000, 2, 3)
  beta <- c(1, 0.4, -0.3)
  y <- rpois(20000, exp(drop(d$w %*% beta)))
  b <- inference_root(family_object("poisson"), d$w, y, rep(0, 3), Inf, 1)
  expect_equal(b, beta, tolerance = 0.03)
})

test_that("the Poisson score bound holds for every count and mean", {
  for (c0 in c(0.3, 1, 1.9, 7)) {
    b <- poisson_score_bound(c0)
    mu <- 10^seq(-6, 4, length.out = 400)
    a <- poisson_clamp_moments(mu, c0)$a
    # every count up to far in each mean's tail, by brute force
    worst <- max(vapply(seq_along(mu), function(i) {
      k <- 0:(qpois(1 - 1e-12, mu[i]) + 20)
      max(abs(pmin(pmax(k - mu[i], -c0), c0) - a[i]))
    }, 0))
    expect_lte(worst, b)
    # and it is tight: within 2% of the worst score on this grid
    expect_lte(b, 1.02 * worst)
  }
  expect_identical(poisson_score_bound(Inf), Inf)
})

test_that("octave quantiles without noise fall in the right octave, near the truth", {
  set.seed(4)
  v <- list(exp(rnorm(5000)), abs(rt(5000, 3)), rexp(5000) * 1e-3)
  for (tau in c(0.1, 0.32, 0.5)) {
    q <- octave_quantiles(v, tau, 0, 5000)
    ref <- vapply(v, quantile, 0, 1 - tau, names = FALSE)
    # within a quarter of an octave of the sample quantile
    expect_lt(max(abs(log2(q / ref))), 0.25)
  }
})

test_that("the stage's releases carry the noise of their stated sensitivities", {
  set.seed(5)
  w <- cbind(1, matrix(rnorm(300 * 2), 300, 2))
  tm <- inference_terms(family_object("gaussian"), w, rnorm(300), c(0, 1, 0),
                        2, 1.5)
  z <- 3
  draws <- replicate(3000, inference_release("score", tm, w, z, 2, 300)$value)
  # the score's noise sd is z bound R / n in every coordinate
  expect_equal(apply(draws, 1, sd), rep(z * 1.5 * 2 / 300, 3), tolerance = 0.05)
  br <- replicate(3000, inference_release("bread", tm, w, z, 2, 300)$value[2, 3])
  expect_equal(sd(br), z * 1 * 4 / 300, tolerance = 0.05)
  # and without noise the releases are the moments themselves
  y <- rnorm(300)
  tm <- inference_terms(family_object("gaussian"), w, y, c(0, 1, 0), 2, 1.5)
  mo <- inference_moments(family_object("gaussian"), w, y, c(0, 1, 0), 2, 1.5,
                          n = 300)
  for (what in c("score", "bread", "meat"))
    expect_equal(inference_release(what, tm, w, 0, 2, 300)$value, mo[[what]],
                 tolerance = 1e-12, info = what)
})

test_that("the stage's share comes off the top and the record adds up", {
  set.seed(6)
  x <- matrix(rnorm(3000 * 3), 3000, 3)
  y <- drop(x %*% c(1, -1, 0)) + rnorm(3000)
  f0 <- dpsco(x, y, epsilon = 1)
  f1 <- dpsco(x, y, epsilon = 1, inference = 0.4)
  sh <- f1$privacy$shares
  expect_equal(sum(sh$share), 1, tolerance = 1e-12)
  inf <- sh[startsWith(sh$part, "inference_"), ]
  expect_equal(sum(inf$share), 0.4, tolerance = 1e-12)
  # each part's multiplier is the single release's z1 over sqrt(share / k)
  z1 <- dp_noise_multiplier(1, f1$privacy$delta, 1, 1)
  expect_equal(inf$noise_multiplier, z1 * sqrt(inf$steps / inf$share),
               tolerance = 1e-6)
  # the settings keep their shares of the rest (0.6 of the budget)
  set0 <- f0$privacy$shares
  set0 <- set0[set0$part %in% c("scale", "centre", "quantiles", "curvature"), ]
  set1 <- sh[match(set0$part, sh$part), ]
  expect_equal(set1$share, set0$share * 0.6, tolerance = 1e-12)
  expect_equal(set1$noise_multiplier, set0$noise_multiplier / sqrt(0.6),
               tolerance = 1e-6)
  expect_lte(f1$privacy$epsilon_accounted, 1 + 1e-9)
  expect_gt(f1$privacy$epsilon_accounted, 1 - 1e-4)
  # the sensitivities the stage used: score bound R / n with the Huber clamp
  st <- f1$inference
  expect_equal(inf$sensitivity[inf$part == "inference_score"],
               st$clamp * st$row_bound / 3000, tolerance = 1e-12)
  expect_equal(inf$sensitivity[inf$part == "inference_bread"],
               st$row_bound^2 / 3000, tolerance = 1e-12)
  # without inference nothing changes (the same draws, the same fit)
  set.seed(7)
  a <- dpsco(x, y, epsilon = 1)
  set.seed(7)
  b <- dpsco(x, y, epsilon = 1, inference = FALSE)
  expect_identical(coef(a), coef(b))
})

# The stage without noise (method "none": the settings and releases are
# exact) against fits computed here: the stage's design and weights are
# rebuilt from its released map, row bound and clamp.
stage_design <- function(fit, x) {
  inf <- fit$inference
  m <- inf$map
  s <- 1 / diag(m)[-1]
  cen <- -m[1, -1] * s
  w <- cbind(1, sweep(sweep(x, 2, cen), 2, s, "/"))
  list(w = w, v = pmin(1, inf$row_bound^2 / rowSums(w * w)), inf = inf)
}

test_that("without noise the stage is a Mallows-weighted Huber fit (gaussian)", {
  set.seed(8)
  n <- 2000
  x <- cbind(rnorm(n, 3, 2), rt(n, 3))
  y <- drop(1 + x %*% c(0.5, -1)) + rt(n, 3)
  fit <- dpsco(x, y, method = "none", inference = TRUE)
  sd <- stage_design(fit, x)
  w <- sd$w
  v <- sd$v
  c0 <- sd$inf$clamp
  # iteratively reweighted least squares, Huber weights min(1, c / |r|)
  b <- qr.solve(w * sqrt(v), y * sqrt(v))
  for (i in 1:200) {
    r <- drop(y - w %*% b)
    hw <- v * pmin(1, c0 / abs(r))
    b <- qr.solve(w * sqrt(hw), y * sqrt(hw))
  }
  expect_equal(unname(sd$inf$estimate), drop(sd$inf$map %*% b),
               tolerance = 1e-8)
  r <- drop(y - w %*% b)
  bread <- crossprod(w * (v * (abs(r) < c0)), w) / n
  meat <- crossprod(w * (v * pmin(pmax(r, -c0), c0))) / n
  hi <- solve(bread)
  ref <- sd$inf$map %*% hi %*% meat %*% hi %*% t(sd$inf$map) / n
  expect_equal(as.vector(vcov(fit)), as.vector(ref), tolerance = 1e-7)
  expect_equal(max(abs(attr(vcov(fit), "privacy"))), 0)
})

test_that("without noise the stage is glm with Mallows weights (binomial)", {
  set.seed(9)
  n <- 3000
  x <- cbind(rnorm(n), rexp(n))
  y <- rbinom(n, 1, plogis(drop(-0.5 + x %*% c(1, 0.5))))
  fit <- dpsco(x, y, family = "binomial", method = "none", inference = TRUE)
  sd <- stage_design(fit, x)
  g <- suppressWarnings(glm(y ~ sd$w - 1, family = binomial(), weights = sd$v,
                            control = glm.control(epsilon = 1e-14, maxit = 100)))
  expect_equal(unname(sd$inf$estimate), drop(sd$inf$map %*% coef(g)),
               tolerance = 1e-8)
  # the HC0 sandwich of that weighted fit, at its coefficients
  mu <- plogis(drop(sd$w %*% coef(g)))
  bread <- crossprod(sd$w * (sd$v * mu * (1 - mu)), sd$w) / n
  meat <- crossprod(sd$w * (sd$v * (y - mu))) / n
  hi <- solve(bread)
  ref <- sd$inf$map %*% hi %*% meat %*% hi %*% t(sd$inf$map) / n
  expect_equal(as.vector(vcov(fit)), as.vector(ref), tolerance = 1e-7)
  # with no row downweighted the estimate would be glm's own: the weights
  # are what separates them, and only a little
  g0 <- glm(y ~ x, family = binomial())
  expect_lt(max(abs(sd$inf$estimate - coef(g0)) / sqrt(diag(vcov(g0)))), 1)
})

test_that("without noise the stage solves the corrected Poisson score", {
  set.seed(10)
  n <- 3000
  x <- cbind(rnorm(n), rnorm(n))
  y <- rpois(n, exp(drop(0.5 + x %*% c(0.5, -0.25))))
  fit <- dpsco(x, y, family = "poisson", method = "none", inference = TRUE)
  sd <- stage_design(fit, x)
  inf <- sd$inf
  b <- solve(inf$map, inf$estimate)
  mu <- exp(drop(sd$w %*% b))
  c0 <- inf$clamp
  # the clamp's mean and the bread weight by direct sums over the counts
  k <- 0:200
  mom <- vapply(mu, function(m) {
    p <- dpois(k, m)
    cl <- pmin(pmax(k - m, -c0), c0)
    c(sum(p * cl), sum(p * cl * (k - m)))
  }, c(0, 0))
  u <- pmin(1, inf$d_cap / mom[2, ])
  psi <- pmin(pmax(y - mu, -c0), c0) - mom[1, ]
  score <- colSums(sd$w * (sd$v * u * psi)) / n
  expect_lt(max(abs(score)), 1e-10)
  # and it is near glm's estimate (Fisher-consistent)
  g0 <- glm(y ~ x, family = poisson())
  expect_lt(max(abs(inf$estimate - coef(g0)) / sqrt(diag(vcov(g0)))), 1)
})

test_that("a private stage covers: 40 gaussian fits at n = 5000", {
  # (a smoke test of the validation in bench/inference.R: 440 intervals,
  # whose coverage sd is 0.01 at 0.95)
  beta <- c(0.5, 1, -0.5, 0.25, rep(0, 7))
  hit <- vapply(1:40, function(r) {
    set.seed(100 + r)
    x <- matrix(rnorm(5000 * 10), 5000, 10)
    y <- drop(cbind(1, x) %*% beta) + rnorm(5000)
    ci <- suppressWarnings(confint(dpsco(x, y, epsilon = 2, inference = TRUE)))
    (ci[, 1] <= beta) & (beta <= ci[, 2])
  }, logical(11))
  expect_false(anyNA(hit))
  expect_gte(mean(hit), 0.9)
})

test_that("inference takes a share, and refuses where it does not apply", {
  expect_identical(check_inference(FALSE), 0)
  expect_identical(check_inference(TRUE), 0.4)
  expect_identical(check_inference(0.6), 0.6)
  for (bad in list(0, 1, NA, "yes", c(0.2, 0.3)))
    expect_error(check_inference(bad), class = "dpsco_arg_error")
  x <- matrix(rnorm(400), 200, 2)
  y <- rnorm(200)
  expect_error(dpsco(x, y, method = "fw", inference = TRUE), "penalised")
  expect_error(dpsco(x, y, family = "quantile", inference = TRUE),
               "not yet available for the quantile family")
  expect_error(dpsco(x, factor(sample(letters[1:3], 200, TRUE)),
                     family = "multinomial", inference = TRUE),
               "multinomial")
  expect_error(dpsco(x, y, tuning = "public", inference = TRUE),
               "tuning = \"private\"")
  # the stage's releases are planned from public values: the budget split
  pl <- inference_plan(family_object("binomial"), 0.5, 2, intercept = FALSE)
  shares <- vapply(pl$parts, `[[`, 0, "share")
  expect_equal(sum(shares), 0.5, tolerance = 1e-12)
  expect_false("inference_centre" %in% vapply(pl$parts, `[[`, "", "name"))
})

test_that("collinear or constant columns refuse the intervals, never fail", {
  set.seed(12)
  n <- 3000
  x <- matrix(rnorm(n * 3), n, 3)
  x <- cbind(x, x[, 1], 5)
  y <- drop(x[, 1:3] %*% c(1, -1, 0.5)) + rnorm(n)
  f0 <- dpsco(x, y, method = "none", inference = TRUE)
  expect_match(f0$inference$refused, "singular")
  f1 <- dpsco(x, y, epsilon = 1, inference = TRUE)
  expect_false(is.null(f1$inference$refused))
  expect_warning(ci <- confint(f1), class = "dpsco_inference_unreliable")
  expect_true(all(is.na(ci)))
  expect_true(all(is.finite(f1$inference$estimate)))
})
