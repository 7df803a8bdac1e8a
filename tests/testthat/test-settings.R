# The private settings of tuning = "private" (R/settings.R), each checked
# against a plain-R computation written from its description: the budget
# shares and their composition, the subsampled settings, the whole
# tuning replayed, and the noise-free Newton path against glmnet on the
# transformed design (the ranges, truncation and curvature releases have
# their own files, test-settings-*.R).

test_that("part_multiplier() splits one release's budget in units of mu^2", {
  z1 <- 1.3
  expect_equal(part_multiplier(z1, 0.25), z1 * 2, tolerance = 1e-15)
  expect_equal(part_multiplier(z1, 0.05, 2), z1 * sqrt(40), tolerance = 1e-15)
  expect_identical(part_multiplier(0, 0.2), 0)
  # k releases at multiplier z spend k / z^2 = share / z1^2
  z <- part_multiplier(z1, 0.05, 2)
  expect_equal(2 / z^2, 0.05 / z1^2, tolerance = 1e-14)
})

# ---- the settings of a fit -----------------------------------------------------


test_that("a noise-free private fit (method none) releases the plain-R settings", {
  d <- settings_data()
  fit <- dpsco(d$x, d$y, method = "none", iterations = 2)
  rel <- privacy(fit)$released
  # bounds on |x_j| and the range of y from the exact octave counts (y
  # weighted by sqrt(p), which without noise changes nothing)
  yr <- signed_range_ref(signed_counts_ref(d$y), 0)
  # by hand: without noise (z1 = 0) all the room: the upper edge of the
  # octave of the 99th percentile times 2 * 4^s, s the octaves from the
  # median's to it less one, over 3, within [0, 1]
  q <- apply(d$x, 2, function(v) {
    a <- sort(abs(v[v != 0]))
    c(q99 = a[ceiling(length(a) * 0.99) - 1], med = a[ceiling(length(a) / 2)])
  })
  spread <- ceiling(log2(q["q99", ])) - ceiling(log2(q["med", ]))
  f <- 2 * 4^pmin(pmax((spread - 1) / 3, 0), 1)
  B <- f * 2^ceiling(log2(q["q99", ]))
  expect_equal(unname(B), vapply(seq_len(ncol(d$x)), function(j)
    octave_bound_ref(octave_counts_ref(d$x[, j]), 0, f = f[j]), 0))
  # (the design's columns: two with a long tail, two within two octaves)
  expect_identical(unname(f[1:2]), c(8, 8))
  expect_lt(max(f[3:4]), 8)
  expect_equal(rel$x_bound, B, tolerance = 1e-15)
  expect_equal(rel$y_range, yr, tolerance = 1e-15)
  expect_equal(rel$y_bound, max(abs(yr)), tolerance = 1e-15)
  expect_equal(fit$standardize$scale, B, tolerance = 1e-12)
  expect_equal(fit$x_range, rbind(-B, B), tolerance = 1e-12, ignore_attr = TRUE)
  # the centre: the mean of y clamped to [lo, hi]
  expect_equal(rel$centre, mean(pmin(pmax(d$y, yr[1]), yr[2])), tolerance = 1e-12)
  # the row bound: the 0.9 quantile edge of ||(1, x / B)||, capped at sqrt(d)
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  wn <- sqrt(1 + rowSums(xt^2))
  expect_identical(rel$row_bound, min(quantile_edge_ref(wn, 0.1), sqrt(5)))
  # no clipping level for method none
  expect_null(rel$clip)
  # binomial: no bound on y, the centre is the event rate
  fb <- dpsco(d$x, d$yb, family = "binomial", method = "none", iterations = 2)
  rb <- privacy(fb)$released
  expect_null(rb$y_bound)
  expect_null(rb$y_range)
  expect_equal(rb$centre, mean(d$yb), tolerance = 1e-12)
})

test_that("tune_private() is the composition of the releases test-audit.R audits", {
  # replayed from the same seed, in order: the scale (y weighted by
  # sqrt(p)), the centre, the two histograms and the curvature, each with
  # the multiplier of its share; everything else is post-processing.  Every
  # divisor and noise scale is the public n, here the rows (600) or not.
  d <- settings_data(n = 600)
  p <- d$p
  z1 <- 3
  ctl <- dpsco_control()
  for (n in c(d$n, 750, 480)) {
    set.seed(17)
    tn <- tune_private(d$x, d$y, "gaussian", "clip", "newton", TRUE, z1,
                               NULL, ctl, n = n)
    set.seed(17)
    pm <- function(share, k = 1) z1 * sqrt(k / share)
    # (no room at z1 = 3 and these n: the range of y comes first, the
    # scale share up to 0.35 and y weighted by sqrt(3 p))
    expect_true(y_first_ref(n, z1))
    s_scale <- scale_share_ref(z1, p, n, 0.35)
    s_centre <- centre_share_ref(z1, n, p)
    # one release of the octave counts of x's columns and of y's signed
    # octaves, y weighted by sqrt(3 p), noise in that order
    wt <- c(rep(1, p), sqrt(3 * p))
    sdv <- pm(s_scale) * sqrt(4 * p) / wt
    noisy <- c(apply(d$x, 2, octave_counts_ref), signed_counts_ref(d$y)) +
      rep(sdv, c(rep(64, p), 127)) * stats::rnorm(64 * p + 127)
    B <- vapply(1:p, function(j) octave_bound_ref(noisy[64 * (j - 1) + 1:64], sdv[j]), 0)
    yr <- signed_range_ref(noisy[64 * p + 1:127], sdv[p + 1])
    # the centre's clamp: the same octaves with the factor 2^room
    yc <- signed_range_ref(noisy[64 * p + 1:127], sdv[p + 1], f = 2^room_ref(n, z1))
    xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
    centre <- dp_mean_release(matrix(d$y), matrix(yc, 2L),
                                      pm(s_centre), n)$estimate
    centre <- min(max(centre, yc[1]), yc[2])
    wn <- sqrt(1 + rowSums(xt^2))
    rc <- release_counts(cbind(abs(centre - d$y) * wn, wn), pm(0.02))
    clip <- hist_quantile(rc$counts[, 1], 0.005, n, rc$sd, within = TRUE)
    row <- min(hist_quantile(rc$counts[, 2], 0.1, n, rc$sd), sqrt(p + 1))
    rh <- release_curvature(cbind(1, xt), pm(0.2), row, n)
    A <- curvature_matrix(rh$h, rh$sd, 1, 1)$A
    info <- paste("public n", n)
    expect_equal(unname(tn$bound), B, tolerance = 1e-14, label = info)
    expect_identical(tn$y_range, yr)
    expect_identical(tn$y_bound, max(abs(yr)))
    expect_equal(tn$x, xt, ignore_attr = TRUE, tolerance = 1e-14)
    expect_equal(tn$beta0, c(centre, rep(0, p)), tolerance = 1e-14, label = info)
    expect_identical(tn$clip, clip)
    expect_identical(tn$row_bound, row)
    expect_equal(tn$curvature, A, tolerance = 1e-12, label = info)
    # the parts' multipliers and sensitivities are those of the releases
    sh <- vapply(tn$parts, `[[`, 0, "noise_multiplier")
    expect_equal(sh, c(pm(s_scale), pm(s_centre), pm(0.02), pm(0.2)),
                 tolerance = 1e-14)
    sens <- vapply(tn$parts, `[[`, 0, "sensitivity")
    expect_equal(sens, c(sqrt(4 * p), (yc[2] - yc[1]) / 2 / n, sqrt(2), row^2 / n),
                 tolerance = 1e-14, label = info)
    expect_equal(rc$sd, pm(0.02) * sqrt(2), tolerance = 1e-15)
  }
})

test_that("where the noise would hide every count of x, the scale release is y's alone", {
  d <- settings_data(n = 100)
  p <- d$p
  z1 <- 6
  pm <- function(share, k = 1) z1 * sqrt(k / share)
  # the public rule at the shares of y_first(): 3 noise sds of a count of
  # x, z sqrt(p + 3 p), against the public n
  hidden_ref <- function(n) 3 * pm(scale_share_ref(z1, p, n, 0.35)) * sqrt(4 * p) > n
  expect_true(hidden_ref(100))
  expect_false(hidden_ref(130))
  st <- function(n) list(z1 = z1, n = n, y_weight = 3,
                         shares = c(scale = scale_share_ref(z1, p, n, 0.35)))
  expect_true(x_counts_hidden(st(100), p, TRUE))
  expect_false(x_counts_hidden(st(130), p, TRUE))
  # what the rule saves: at that noise octave_bound() gives 1 whatever the
  # counts (every count below k sds of the n records is dropped)
  sd_x <- pm(scale_share_ref(z1, p, 100, 0.35)) * sqrt(4 * p)
  set.seed(2)
  for (k in 1:5)
    expect_identical(octave_bound(stats::rpois(64, 200), sd_x, n = 100), 1)
  # the fit: no histograms of x, the bounds 1, y's signed octaves alone at
  # the scale share's cap 0.45 (its noise sd the share's multiplier: the
  # weight sqrt(3) is the whole sensitivity), the centre's share from
  # what is left; replayed from the same seed
  set.seed(17)
  tn <- tune_private(d$x, d$y, "gaussian", "clip", "newton", TRUE, z1, NULL,
                     dpsco_control(), n = 100)
  set.seed(17)
  s_scale <- scale_share_ref(z1, p, 100, 0.45)
  expect_identical(s_scale, 0.45)
  s_centre <- centre_share_ref(z1, 100, p, others = s_scale + 0.22)
  noisy <- signed_counts_ref(d$y) + pm(s_scale) * stats::rnorm(127)
  yr <- signed_range_ref(noisy, pm(s_scale))
  expect_identical(unname(tn$bound), rep(1, p))
  expect_identical(tn$y_range, yr)
  sh <- vapply(tn$parts, `[[`, 0, "noise_multiplier")
  expect_equal(sh[1:2], c(pm(s_scale), pm(s_centre)), tolerance = 1e-14)
  expect_equal(tn$parts[[1]]$sensitivity, sqrt(3), tolerance = 1e-15)
  expect_match(tn$parts[[1]]$mechanism, "no histograms of |x_j|", fixed = TRUE)
  expect_true(any(grepl("by the public rule", tn$public, fixed = TRUE)))
  expect_null(tn$released$x_bound)
  # a declared range of y: nothing to release, and the centre's share as
  # at the share of y_first() (the release that would have borne it is
  # not made)
  tk <- tune_private(d$x, d$y, "gaussian", "clip", "newton", TRUE, z1, NULL,
                     dpsco_control(y_range = c(-20, 20)), n = 100)
  parts <- vapply(tk$parts, `[[`, "", "name")
  expect_false("scale" %in% parts)
  expect_equal(tk$parts[[which(parts == "centre")]]$noise_multiplier,
               pm(centre_share_ref(z1, 100, p)), tolerance = 1e-14)
  # 30 more records: the histograms of x are released with y's, as before
  tm <- tune_private(d$x, d$y, "gaussian", "clip", "newton", TRUE, z1, NULL,
                     dpsco_control(), n = 130)
  expect_equal(tm$parts[[1]]$sensitivity, sqrt(4 * p), tolerance = 1e-15)
})

test_that("dpsco_control() defaults leave every data-dependent setting to the private tuning", {
  ctl <- dpsco_control()
  for (nm in c("clip", "rho", "s", "nu", "output", "x_bound", "center", "row_bound"))
    expect_null(ctl[[nm]], label = nm)
  expect_equal(ctl$shares, c(scale = 0.2, centre = 0.03, quantiles = 0.02,
                             curvature = 0.2), ignore_attr = TRUE)
  expect_identical(attr(ctl$shares, "given"), character())
  expect_lt(sum(ctl$shares), 0.5)
  expect_equal(ctl$quantiles, c(clip = 0.995, row = 0.9))
  expect_null(ctl$kappa)
  expect_null(ctl$y_range)
  expect_identical(c(ctl$ridge, ctl$memory), c(1, 0.5))
  # ... and the public fit still takes C = 1 and averages all iterates
  d <- settings_data(n = 100)
  f <- dpsco(d$x, d$y, method = "clip", tuning = "public", iterations = 2,
             nlambda = 2)
  expect_identical(f$settings$clip, 1)
  expect_identical(f$settings$output, "average")
  fp <- dpsco(d$x, d$y, method = "clip", iterations = 2, nlambda = 2)
  expect_identical(fp$settings$output, "tail")
})

# ---- the engine: noise-free Newton steps reach glmnet's lasso --------------------

newton_case <- function(seed = 7, n = 400) {
  set.seed(seed)
  p <- 6
  x <- matrix(stats::rnorm(n * p), n, p) * rep(c(1, 20, 0.05, 3, 1, 1), each = n)
  x[, 5] <- exp(stats::rnorm(n))
  x[sample(n, n / 4), 6] <- 0
  eta <- drop(x %*% c(1, 0.05, 10, 0, 0.5, -1))
  list(x = x, y = eta + stats::rt(n, df = 3),
       yb = stats::rbinom(n, 1, stats::plogis(eta / 3)), n = n, p = p)
}

test_that("noise-free Newton steps converge to glmnet's solution on clamp(x / B)", {
  skip_if_not_installed("glmnet")
  d <- newton_case()
  # for alpha < 1 glmnet rescales a gaussian y to unit variance, which
  # changes its elastic-net problem; a y of unit (1/n) variance is left as is
  yu <- (d$y - mean(d$y)) / sqrt(mean((d$y - mean(d$y))^2)) + 0.3
  runs <- list(
    list(family = "gaussian", y = d$y, intercept = TRUE, alpha = 1, pf = NULL),
    list(family = "gaussian", y = d$y, intercept = FALSE, alpha = 1, pf = NULL),
    list(family = "gaussian", y = yu, intercept = TRUE, alpha = 0.5,
         pf = c(0, 1, 2, 1, 1, 0.5)),
    list(family = "binomial", y = d$yb, intercept = TRUE, alpha = 1, pf = NULL),
    list(family = "binomial", y = d$yb, intercept = FALSE, alpha = 0.3,
         pf = c(1, 1, 3, 1, 0.5, 1)))
  for (rn in runs) {
    info <- paste(rn$family, rn$intercept, rn$alpha)
    fit <- dpsco(d$x, rn$y, family = rn$family, method = "none",
                 intercept = rn$intercept, alpha = rn$alpha,
                 penalty.factor = rn$pf, iterations = 300,
                 control = dpsco_control(output = "last"))
    expect_identical(fit$settings$optimizer, "newton")
    B <- fit$standardize$scale
    expect_equal(fit$x_range, rbind(-B, B), ignore_attr = TRUE)
    xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
    g <- glmnet::glmnet(xt, rn$y, family = rn$family, lambda = fit$lambda,
                        alpha = rn$alpha, penalty.factor = rn$pf %||% rep(1, d$p),
                        intercept = rn$intercept, standardize = FALSE,
                        thresh = 1e-14, maxit = 1e6)
    # coefficients on the scale of x are glmnet's on clamp(x / B), over B
    gb <- as.matrix(g$beta) / B
    expect_lt(max(abs(unname(fit$beta) - unname(gb))), 1e-6, label = info)
    expect_lt(max(abs(unname(fit$a0) - unname(g$a0))), 1e-6, label = info)
    # the same sparsity pattern (up to coefficients below the tolerance),
    # and the path really moved
    expect_true(all(fit$beta[gb == 0] == 0), label = info)
    expect_true(all(fit$beta[abs(gb) > 1e-6] != 0), label = info)
    expect_gt(max(abs(gb)), 0.1)
  }
})

test_that("the first noise-free Newton step from the released curvature is exact for least squares", {
  # without clipped rows (row_bound = sqrt(d) declared public) the released
  # curvature is the exact Hessian, so one step at lambda = 0 is the OLS fit
  d <- newton_case(n = 300)
  fit <- dpsco(d$x, d$y, method = "none", lambda = 1e-12, iterations = 1,
               control = dpsco_control(output = "last",
                                       row_bound = sqrt(d$p + 1)))
  B <- fit$standardize$scale
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  ols <- stats::lm.fit(cbind(1, xt), d$y)$coefficients
  # (to 1e-5: without noise the bounds are 8 times the octave edge, so
  # the columns of xt are smaller and the solve less well conditioned)
  expect_equal(unname(c(fit$a0, fit$beta[, 1] * B)), unname(ols),
               tolerance = 1e-5)
})

# ---- the privacy record of a private fit ---------------------------------------

test_that("a default private fit accounts every part and composes to the target", {
  d <- settings_data()
  eps <- 1
  set.seed(4)
  fit <- dpsco(d$x, d$y, epsilon = eps)
  pr <- privacy(fit)
  sh <- pr$shares
  expect_identical(sh$part, c("scale", "centre", "quantiles", "curvature",
                              "optimizer"))
  expect_identical(pr$tuning, "private")
  expect_identical(fit$settings$optimizer, "newton")
  # every part is a full-data Gaussian mechanism; they compose exactly to
  # one with mu^2 = sum(steps / z^2)
  expect_true(all(sh$sample_rate == 1))
  mu <- sqrt(sum(sh$steps / sh$noise_multiplier^2))
  expect_equal(dp_epsilon(1 / mu, 1, 1, pr$delta), pr$epsilon_accounted,
               tolerance = 1e-6)
  expect_lte(pr$epsilon_accounted, eps)
  expect_gt(pr$epsilon_accounted, eps * (1 - 1e-4))
  expect_equal(pr$delta, 0.1 / d$n)
  # in units of one release's mu^2 (z1 = its multiplier), the settings
  # spend their shares and the optimiser what is left
  z1 <- dp_noise_multiplier(eps, pr$delta, 1, 1)
  spent <- sh$steps / sh$noise_multiplier^2 * z1^2
  # (the scale and centre shares by the rule of ?dpsco_control)
  # (no room: the range of y first, the scale share's cap 0.35)
  want <- c(scale_share_ref(z1, d$p, d$n, 0.35), centre_share_ref(z1, d$n, d$p), 0.02, 0.2)
  expect_equal(spent[1:4], want, tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(spent[5], 1 - sum(want), tolerance = 1e-5)
  expect_equal(sh$share, c(want, 1 - sum(want)), tolerance = 1e-12)
  # the sensitivities, from the released values: scale sqrt(sum w^2)
  # with w = 1 per column of x and sqrt(3 p) for y (no room: the range
  # of y first); the centre (hi - lo) /
  # (2 n); two histograms; B_H^2 / n; the oracle's C / n
  rel <- pr$released
  expect_equal(sh$sensitivity,
               c(sqrt(d$p + 3 * d$p), diff(rel$centre_range) / 2 / d$n, sqrt(2),
                 rel$row_bound^2 / d$n, rel$clip / d$n), tolerance = 1e-12)
  expect_identical(sh$steps, c(1, 1, 1, 1, 20))
  # 10 lambdas x 2 steps, the first released at the start sets the grid
  expect_identical(fit$settings$iterations, 2L)
  expect_length(fit$lambda, 10)
  expect_identical(names(rel), c("x_bound", "y_bound", "y_range", "centre_range",
                                 "centre", "clip", "row_bound", "ridge"))
  # the centre's clamp: the octaves of the range with the factor 2^room
  # (room 0 here) in place of 2: half the range of a y of both signs;
  # the centre in it
  expect_lt(rel$y_range[1], 0)
  expect_equal(rel$centre_range, rel$y_range / 2)
  expect_gte(rel$centre, rel$centre_range[1])
  expect_lte(rel$centre, rel$centre_range[2])
  # each part's own epsilon: one Gaussian mechanism with its own mu
  expect_equal(sh$epsilon_alone[2], dp_epsilon(sh$noise_multiplier[2], 1, 1, pr$delta),
               tolerance = 1e-6)
})

test_that("a declared y_range replaces the range of y, costs nothing and is public", {
  d <- settings_data()
  set.seed(5)
  fit <- dpsco(d$x, d$y, control = dpsco_control(y_range = c(-20, 30)))
  pr <- privacy(fit)
  sh <- pr$shares
  # the scale release covers x alone (weights 1): sensitivity sqrt(p)
  expect_equal(sh$sensitivity[sh$part == "scale"], sqrt(d$p), tolerance = 1e-15)
  expect_match(sh$mechanism[1], "octave histograms of |x_j|$")
  expect_true("range of y" %in% pr$public)
  expect_null(pr$released$y_range)
  expect_null(pr$released$y_bound)
  # the centre: the mean of y clamped to [-20, 30], sensitivity 50 / (2 n)
  expect_equal(sh$sensitivity[sh$part == "centre"], 25 / d$n, tolerance = 1e-15)
  expect_identical(sh$mechanism[2], "Gaussian: mean of y clamped to [-20, 30]")
  # without noise, the plain-R clamped mean
  f0 <- dpsco(d$x, d$y, method = "none", iterations = 2,
              control = dpsco_control(y_range = c(-1, 2)))
  expect_equal(privacy(f0)$released$centre, mean(pmin(pmax(d$y, -1), 2)),
               tolerance = 1e-12)
  # x_bound per column and y_range both declared: no scale release, and
  # its share goes to the optimiser
  f2 <- dpsco(d$x, d$y, control = dpsco_control(y_range = c(-20, 30),
                                                x_bound = c(1, 2, 3, 4)))
  p2 <- privacy(f2)
  expect_identical(p2$shares$part, c("centre", "quantiles", "curvature", "optimizer"))
  z1 <- dp_noise_multiplier(1, p2$delta, 1, 1)
  expect_equal(p2$shares$share[4], 1 - centre_share_ref(z1, d$n, d$p) - 0.02 - 0.2,
               tolerance = 1e-12)
  expect_equal(f2$x_range, rbind(-(1:4), 1:4), ignore_attr = TRUE)
  expect_true(all(c("bounds on |x_j|", "range of y") %in% p2$public))
  # checks
  expect_identical(arg_of(dpsco_control(y_range = c(3, 1))), "y_range")
  expect_identical(arg_of(dpsco_control(y_range = c(0, Inf))), "y_range")
  expect_identical(arg_of(dpsco_control(y_range = 1)), "y_range")
  expect_identical(arg_of(dpsco(d$x, d$yb, family = "binomial",
                                control = dpsco_control(y_range = c(0, 1)))),
                   "control")
  expect_identical(arg_of(dpsco(d$x, d$y, control = dpsco_control(x_bound = c(1, 2)))),
                   "control")
})

test_that("dpsco_control(kappa = ) is deprecated and ignored", {
  expect_warning(ctl <- dpsco_control(kappa = 2), "deprecated and ignored.*octave")
  expect_null(ctl$kappa)
  expect_false("kappa" %in% attr(ctl, "given"))
  d <- settings_data(n = 300)
  f1 <- withr::with_seed(3, dpsco(d$x, d$y, control = ctl, nlambda = 2))
  f0 <- withr::with_seed(3, dpsco(d$x, d$y, nlambda = 2))
  expect_identical(privacy(f1)$released, privacy(f0)$released)
})

test_that("declared public settings cost nothing and are listed as public", {
  d <- settings_data()
  set.seed(5)
  fit <- dpsco(d$x, d$y, control = dpsco_control(x_bound = 20, center = 1,
                                                 clip = 3, row_bound = 2))
  pr <- privacy(fit)
  # only the curvature and the optimiser touch the data
  expect_identical(pr$shares$part, c("curvature", "optimizer"))
  expect_true(all(c("bounds on |x_j|", "centre of y", "clip level",
                    "row bound of the curvature") %in% pr$public))
  expect_equal(fit$x_range, rbind(rep(-20, 4), rep(20, 4)))
  expect_identical(fit$settings$clip, 3)
  expect_equal(pr$sensitivity, 3 / d$n, tolerance = 1e-15)
  expect_equal(pr$shares$sensitivity[1], 2^2 / d$n, tolerance = 1e-15)
  # still the whole budget
  mu <- sqrt(sum(pr$shares$steps / pr$shares$noise_multiplier^2))
  expect_equal(dp_epsilon(1 / mu, 1, 1, pr$delta), 1, tolerance = 1e-4)
})

test_that("optimizer = 'spgd' under private tuning pays one more release for the grid", {
  d <- settings_data()
  set.seed(6)
  fit <- dpsco(d$x, d$y, optimizer = "spgd", iterations = 5, nlambda = 3)
  pr <- privacy(fit)
  expect_identical(fit$settings$optimizer, "spgd")
  expect_identical(pr$shares$steps[5], 3 * 5 + 1)
  # its step size is 1 over the top eigenvalue of the released curvature
  expect_gt(fit$settings$step_size, 0)
  # a user grid needs no first release
  f2 <- dpsco(d$x, d$y, optimizer = "spgd", iterations = 5,
              lambda = c(0.5, 0.1, 0.01))
  expect_identical(privacy(f2)$shares$steps[5], 15)
  expect_true("lambda grid" %in% privacy(f2)$public)
})

test_that("set.seed() reproduces a default private fit exactly", {
  d <- settings_data()
  run <- function(seed, y = d$y, family = "gaussian") {
    set.seed(seed)
    f <- dpsco(d$x, y, family = family)
    f$call <- NULL
    f
  }
  a <- run(21)
  expect_identical(run(21), a)
  expect_false(identical(run(22)$beta, a$beta))
  expect_identical(run(3, d$yb, "binomial"), run(3, d$yb, "binomial"))
})

test_that("predict() clamps newx to the private bounds", {
  d <- settings_data()
  set.seed(7)
  fit <- dpsco(d$x, d$y, method = "clip")
  rng <- fit$x_range
  expect_identical(dim(rng), c(2L, as.integer(d$p)))
  newx <- d$x[1:3, ]
  newx[1, 1] <- rng[2, 1] * 100          # beyond the upper bound
  newx[2, 2] <- -rng[2, 2] * 7           # beyond the lower bound
  at_bound <- newx
  at_bound[1, 1] <- rng[2, 1]
  at_bound[2, 2] <- rng[1, 2]
  pr <- predict(fit, newx)
  expect_identical(pr, predict(fit, at_bound))
  # plain R: intercept plus the clamped x times the coefficients
  k <- ncol(pr)
  xc <- pmin(pmax(newx, rep(rng[1, ], each = 3)), rep(rng[2, ], each = 3))
  expect_equal(unname(pr[, k]), unname(fit$a0[k] + drop(xc %*% fit$beta[, k])),
               tolerance = 1e-12)
  # a fit whose coefficient on x_1 is non-zero does move with the clamp
  if (any(fit$beta[1, ] != 0)) {
    raw <- fit$a0[k] + drop(newx %*% fit$beta[, k])
    expect_false(isTRUE(all.equal(unname(pr[, k]), unname(raw))))
  }
  # a public fit has no bounds and does not clamp
  fp <- dpsco(d$x, d$y, method = "none", tuning = "public", iterations = 2)
  expect_null(fp$x_range)
  expect_equal(unname(predict(fp, newx)[, 2]),
               unname(fp$a0[2] + drop(newx %*% fp$beta[, 2])), tolerance = 1e-12)
})

# ---- input checks of the new arguments ------------------------------------------

test_that("shares, tuning and optimizer are checked with dpsco_arg_errors", {
  expect_identical(arg_of(dpsco_control(shares = c(curvature = 0.9, scale = 0.2))),
                   "shares")
  expect_identical(arg_of(dpsco_control(shares = c(curvature = 0.7, scale = 0.1,
                                                   centre = 0.1, quantiles = 0.1))),
                   "shares")          # exactly 1 leaves nothing
  expect_identical(arg_of(dpsco_control(shares = c(speed = 0.1))), "shares")
  expect_identical(arg_of(dpsco_control(shares = c(0.1, 0.1))), "shares")
  expect_identical(arg_of(dpsco_control(shares = c(scale = -0.1))), "shares")
  expect_identical(arg_of(dpsco_control(shares = c(scale = NA_real_))), "shares")
  expect_identical(arg_of(dpsco_control(shares = c(scale = "0.1"))), "shares")
  expect_identical(arg_of(dpsco_control(output = "middle")), "output")
  expect_identical(arg_of(dpsco_control(x_bound = -1)), "x_bound")
  expect_identical(arg_of(dpsco_control(quantiles = c(clip = 1, row = 0.9))),
                   "quantiles")
  # a valid update keeps the other defaults
  sh <- dpsco_control(shares = c(curvature = 0.3))$shares
  expect_equal(sh, c(scale = 0.2, centre = 0.03, quantiles = 0.02, curvature = 0.3),
               ignore_attr = TRUE)
  expect_identical(attr(sh, "given"), "curvature")
  d <- settings_data(n = 100)
  expect_identical(arg_of(dpsco(d$x, d$y, tuning = "private", calibration = "paper")),
                   "calibration")
  expect_identical(arg_of(dpsco(d$x, d$y, tuning = "public", optimizer = "newton")),
                   "optimizer")
  expect_identical(arg_of(dpsco(d$x, d$y, optimizer = "adam")), "optimizer")
  expect_identical(arg_of(dpsco(d$x, d$y, tuning = "secret")), "tuning")
  # calibration = "paper" alone implies the public settings
  f <- dpsco(d$x, d$y, method = "clip", calibration = "paper", iterations = 2,
             nlambda = 2)
  expect_identical(f$settings$tuning, "public")
  expect_identical(f$settings$optimizer, "spgd")
})

test_that("new shares change the noise of the parts as documented", {
  d <- settings_data()
  set.seed(8)
  fit <- dpsco(d$x, d$y, control = dpsco_control(shares = c(curvature = 0.4,
                                                            scale = 0.1)))
  sh <- privacy(fit)$shares
  z1 <- dp_noise_multiplier(1, privacy(fit)$delta, 1, 1)
  # (the centre's default share follows the rule, its cap the shares given)
  s_centre <- centre_share_ref(z1, d$n, d$p, others = 0.1 + 0.02 + 0.4)
  expect_equal(sh$noise_multiplier[1:4],
               z1 * sqrt(c(1 / 0.1, 1 / s_centre, 1 / 0.02, 1 / 0.4)), tolerance = 1e-12)
  expect_equal(sh$steps[5] / sh$noise_multiplier[5]^2 * z1^2, 1 - 0.52 - s_centre,
               tolerance = 1e-5)
})

test_that("wide data get no curvature release and the row bound's step", {
  skip_if_not_installed("Matrix")
  # the rule at a small limit: d = 41 above 40
  withr::local_options(dpsco.curvature_max_d = 40L)
  expect_identical(curvature_max_d(), 40L)
  set.seed(8)
  n <- 300
  p <- 40  # d = p + 1 with the intercept: one too many
  x <- Matrix::rsparsematrix(n, p, density = 0.2)
  y <- as.vector(x[, 1:3] %*% c(1, -1, 1)) + rnorm(n)
  fit <- dpsco(x, y, epsilon = 1, nlambda = 2, iterations = 3)
  pr <- privacy(fit)
  expect_identical(fit$settings$optimizer, "spgd")
  expect_false("curvature" %in% pr$shares$part)
  expect_true(any(grepl("no curvature released", pr$public)))
  # the step: 1 / (c B_H^2), c = 1 for least squares, B_H the released row
  # bound
  expect_equal(fit$settings$step_size, 1 / pr$released$row_bound^2,
               tolerance = 1e-15)
  expect_error(dpsco(x, y, epsilon = 1, optimizer = "newton"),
               class = "dpsco_arg_error", regexp = "optimizer")
  # binomial: the logistic curvature at the released start, p (1 - p)
  yb <- rbinom(n, 1, 0.3)
  fb <- dpsco(x, yb, family = "binomial", epsilon = 1, nlambda = 2,
              iterations = 3)
  rate <- privacy(fb)$released$centre
  b0 <- qlogis(min(max(rate, 1 / (n + 2)), 1 - 1 / (n + 2)))
  expect_equal(fb$settings$step_size,
               1 / (plogis(b0) * (1 - plogis(b0)) *
                      privacy(fb)$released$row_bound^2), tolerance = 1e-12)
  # one column fewer: the Newton path with its released curvature
  f2 <- dpsco(x[, -1], y, epsilon = 1, nlambda = 2)
  expect_identical(f2$settings$optimizer, "newton")
  expect_true("curvature" %in% privacy(f2)$shares$part)
})

test_that("tune_private() for poisson with weights and offsets replays its releases", {
  # the bound and centre of the count net of the offsets, the clip level
  # from the weighted residuals beside the offsets, the exposure bound E
  # from a third histogram (of e^offset), the curvature from the rows
  # scaled by the square roots of their weights and of their exposures
  # over E (at most 1), times the mean count and E
  d <- settings_data(n = 600)
  p <- d$p
  set.seed(4)
  yc <- as.double(stats::rpois(d$n, exp(0.5 + 0.2 * pmin(d$x[, 1], 3))))
  w <- stats::runif(d$n)
  off <- stats::rnorm(d$n, sd = 0.4)
  z1 <- 3
  n <- 750
  set.seed(17)
  tn <- tune_private(d$x, yc, "poisson", "clip", "newton", TRUE, z1,
                             NULL, dpsco_control(), n = n, weights = w,
                             offset = off)
  set.seed(17)
  pm <- function(share, k = 1) z1 * sqrt(k / share)
  ynet <- yc * exp(-off)
  wt <- c(rep(1, p), sqrt(3 * p))
  s_scale <- scale_share_ref(z1, p, n, 0.35)
  s_centre <- centre_share_ref(z1, n, p)
  sdv <- pm(s_scale) * sqrt(4 * p) / wt
  noisy <- c(apply(d$x, 2, octave_counts_ref), signed_counts_ref(ynet)) +
    rep(sdv, c(rep(64, p), 127)) * stats::rnorm(64 * p + 127)
  B <- vapply(1:p, function(j) octave_bound_ref(noisy[64 * (j - 1) + 1:64], sdv[j]), 0)
  yb <- signed_range_ref(noisy[64 * p + 1:127], sdv[p + 1],
                         f = 2^room_ref(n, z1))[2]
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  # the mean count clamped to [0, hi], kept within [its noise sd, hi]
  rel <- dp_mean_release(matrix(ynet), matrix(c(0, yb), 2L), pm(s_centre), n)
  centre <- min(max(rel$estimate, pm(s_centre) * yb / 2 / n), yb)
  b0 <- log(max(centre, 1 / n))
  wn <- sqrt(1 + rowSums(xt^2))
  r <- w * abs(exp(b0 + off) - yc)
  rc <- release_counts(cbind(r * wn, wn, exp(off)), pm(0.02))
  clip <- hist_quantile(rc$counts[, 1], 0.01, n, rc$sd)
  row <- min(hist_quantile(rc$counts[, 2], 0.1, n, rc$sd), sqrt(p + 1))
  E <- hist_quantile(rc$counts[, 3], 0.1, n, rc$sd)
  v <- pmin(exp(off) / E, 1)
  rh <- release_curvature(cbind(1, xt) * sqrt(w * v), pm(0.2), row, n,
                                  norms = wn)
  A <- curvature_matrix(rh$h, rh$sd, 1, exp(b0) * E)$A
  expect_equal(unname(tn$bound), B, tolerance = 1e-14)
  expect_equal(tn$beta0, c(b0, rep(0, p)), tolerance = 1e-14)
  expect_identical(tn$clip, clip)
  expect_identical(tn$row_bound, row)
  expect_identical(tn$released$exposure, E)
  expect_equal(tn$curvature, A, tolerance = 1e-12)
  sens <- vapply(tn$parts, `[[`, 0, "sensitivity")
  expect_equal(sens, c(sqrt(4 * p), yb / 2 / n, sqrt(3), row^2 / n),
               tolerance = 1e-14)
})

test_that("poisson: a constant shift of the offsets moves the start and leaves the curvature", {
  # 0.12.0 released the curvature at the mean count per unit of exposure,
  # e^b0, which the shift c divides by e^c while the Hessian, a sum of
  # e^(b0 + offset_i) x_i x_i', does not change: Newton steps e^c times
  # too long.  Noise-free settings (z1 = 0 is not private; a tiny z1
  # keeps every release and its rule)
  set.seed(12)
  n <- 2000
  x <- matrix(stats::rnorm(n * 3), n)
  e <- stats::runif(n, 0.5, 5)
  y <- as.double(stats::rpois(n, e * exp(-2 + 0.5 * x[, 1])))
  tune <- function(shift) withr::with_seed(3, tune_private(
    x, y, "poisson", "clip", "newton", TRUE, 1e-6, NULL, dpsco_control(),
    n = n, offset = log(e) + shift))
  a <- tune(0)
  b <- tune(2.5)
  expect_equal(a$beta0[1] - b$beta0[1], 2.5, tolerance = 1e-3)
  # the plain-R Hessian of the loss at the start, on the clamped rows
  hess <- function(tn, shift) {
    w <- cbind(1, tn$x)
    crossprod(w * sqrt(exp(tn$beta0[1] + log(e) + shift))) / n
  }
  expect_equal(hess(a, 0), hess(b, 2.5), tolerance = 1e-3)
  # the released curvature is that Hessian, up to the records beyond the
  # exposure bound (taken at the bound) and the row clip
  for (tn in list(a, b)) {
    ratio <- tn$curvature[1, 1] / hess(a, 0)[1, 1]
    expect_gt(ratio, 0.7)
    expect_lte(ratio, 1 + 1e-6)
  }
  expect_equal(a$curvature, b$curvature, tolerance = 0.05)
})

test_that("poisson: a count of 0 with an offset below -709.8 leaves the settings finite", {
  # 0.10.0: y exp(-offset) = 0 * Inf = NaN made the released centre, the
  # start and every coefficient NaN on D plus this record, and with a
  # declared x bound the released y bound became 1
  set.seed(3)
  n <- 199
  x <- matrix(stats::rnorm(n * 3), n)
  y <- stats::rpois(n, 2)
  x1 <- rbind(x, 0)
  y1 <- c(y, 0)
  fit <- function(x, y, off, ...) withr::with_seed(5, dpsco(
    x, y, family = "poisson", offset = off, epsilon = 1, public_n = 200,
    nlambda = 3, ...))
  for (extra in list(list(), list(control = dpsco_control(x_bound = 3)),
                     list(secure = TRUE))) {
    f0 <- expect_silent(do.call(fit, c(list(x, y, rep(0, n)), extra)))
    f1 <- expect_silent(do.call(fit, c(list(x1, y1, c(rep(0, n), -800)), extra)))
    rel0 <- unlist(f0$privacy$released)
    rel1 <- unlist(f1$privacy$released)
    expect_true(all(is.finite(rel1)))
    expect_true(all(is.finite(c(f1$a0, as.matrix(f1$beta)))))
    # the record's net count is 0: the y bound is the same kind of value
    # on both sides, not 1 on one of them
    expect_equal(names(rel1), names(rel0))
    if (!is.null(rel1[["y_bound"]]))
      expect_gt(rel1[["y_bound"]], 1)
  }
})

test_that("adaptive_shares(): the centre's share grows to 0.5 at small n", {
  sh <- dpsco_control()$shares
  sh_of <- function(n, p, z1, shares = sh)
    adaptive_shares(shares, n, p, z1)
  # 354 records (Boston's training part) at z1 = 2.5: a target
  # (100 z1 / n)^2 = 0.50 above the cap 0.9 - (0.2 + 0.02 + 0.2) = 0.48
  s <- sh_of(354, 13, 2.5)
  expect_equal(s, c(scale = 0.2, centre = 0.48, quantiles = 0.02, curvature = 0.2),
               ignore_attr = TRUE)
  # a smaller scale share leaves the cap at 0.5
  expect_equal(sh_of(300, 1, 3)[["centre"]], 0.5)
  # a target between the floor and the cap is taken as it is
  expect_equal(sh_of(1000, 13, 2)[["centre"]], (100 * 2 / 1000)^2)
  # large n: the floor
  expect_equal(sh_of(5e4, 2, 2)[["centre"]], 0.03)
  # large shares given for the others: the centre keeps its default, and
  # everything still leaves the optimiser a part
  big <- dpsco_control(shares = c(curvature = 0.7))$shares
  s <- sh_of(100, 5, 3, big)
  expect_equal(s[["centre"]], 0.03)
  expect_lt(sum(s), 1)
  # a centre share given is kept
  given <- dpsco_control(shares = c(centre = 0.1))$shares
  expect_equal(sh_of(100, 5, 3, given)[["centre"]], 0.1)
  # not private: the shares as given
  expect_identical(sh_of(100, 5, 0), sh)
  # through the fits, 300 records at epsilon 1 (no room): a gaussian path
  # takes the larger rules (and y weight sqrt(3 p)), a binomial one and a
  # radius method 0.12.0's
  set.seed(5)
  n <- 300
  x <- matrix(stats::rnorm(n * 3), n)
  y <- x[, 1] + stats::rnorm(n)
  z1 <- dp_noise_multiplier(1, 0.1 / n, 1, 1)
  expect_true(y_first_ref(n, z1))
  parts <- function(fit) setNames(privacy(fit)$shares$share, privacy(fit)$shares$part)
  g <- parts(dpsco(x, y, epsilon = 1, nlambda = 2))
  expect_equal(g[["scale"]], scale_share_ref(z1, 3, n, 0.35))
  expect_equal(g[["centre"]], centre_share_ref(z1, n, 3))
  expect_equal(privacy(dpsco(x, y, epsilon = 1, nlambda = 2))$shares$sensitivity[1],
               sqrt(3 + 3 * 3))
  b <- parts(dpsco(x, as.numeric(y > 0), family = "binomial", epsilon = 1,
                   nlambda = 2))
  expect_equal(b[["centre"]], centre_share_ref(z1, n, 3, cap = 0.15, k = 40,
                                               others = scale_share_ref(z1, 3, n) + 0.22))
  expect_false("scale" %in% names(b) && b[["scale"]] > 0.2)
})

test_that("the settings subsample's public rule: 2^18 records (the curvature's at least n / 8) from n = 2^20 up, never with secure noise", {
  withr::local_options(dpsco.settings_subsample = NULL)
  expect_identical(subsample_size, 2^18)
  expect_identical(subsample_threshold, 2^20)
  expect_null(settings_subsample(2^20 - 1, 50, FALSE))
  expect_null(settings_subsample(1e6, 50, FALSE))
  expect_identical(settings_subsample(2^20, 50, FALSE),
                   list(m = 2^18, q = 1 / 4, curvature = list(m = 2^18, q = 1 / 4)))
  # the issue's file-backed case: both at m (2^18 > 2e6 / 8)
  expect_identical(settings_subsample(2e6, 50, FALSE),
                   list(m = 2^18, q = 2^18 / 2e6, curvature = list(m = 2^18, q = 2^18 / 2e6)))
  expect_identical(settings_subsample(2^22, 50, FALSE),
                   list(m = 2^18, q = 1 / 16, curvature = list(m = 2^19, q = 1 / 8)))
  expect_identical(settings_subsample(2e7, 3, FALSE),
                   list(m = 2^18, q = 2^18 / 2e7, curvature = list(m = 2.5e6, q = 1 / 8)))
  # the same whatever p
  expect_identical(settings_subsample(2e7, 3, FALSE),
                   settings_subsample(2e7, 4000, FALSE))
  # secure noise, or no noise: full passes
  expect_null(settings_subsample(2e7, 50, TRUE))
  expect_null(settings_subsample(2e7, 50, FALSE, private = FALSE))
  # the option: off, on (m at most n / 4), a given m
  withr::local_options(dpsco.settings_subsample = FALSE)
  expect_null(settings_subsample(2e7, 50, FALSE))
  withr::local_options(dpsco.settings_subsample = TRUE)
  expect_identical(settings_subsample(1000, 5, FALSE),
                   list(m = 250, q = 0.25, curvature = list(m = 250, q = 0.25)))
  expect_identical(settings_subsample(2e7, 5, FALSE)$m, 2^18)
  expect_null(settings_subsample(1000, 5, TRUE))
  withr::local_options(dpsco.settings_subsample = 300)
  expect_identical(settings_subsample(1200, 5, FALSE),
                   list(m = 300, q = 0.25, curvature = list(m = 300, q = 0.25)))
  withr::local_options(dpsco.settings_subsample = 100)
  expect_identical(settings_subsample(1600, 5, FALSE)$curvature, list(m = 200, q = 1 / 8))
  expect_error(settings_subsample(100, 5, FALSE), "internal error")
})

test_that("subsample_multiplier(): the smallest z whose subsampled release costs no more than the full one", {
  for (case in list(c(z = 10, q = 0.05, delta = 1e-6), c(z = 3, q = 0.25, delta = 1e-5),
                    c(z = 40, q = 0.01, delta = 1e-7))) {
    zs <- subsample_multiplier(case[["z"]], case[["q"]], case[["delta"]])
    eps_full <- gauss_eps_ref(1 / case[["z"]], case[["delta"]])
    eps_sub <- function(z) account_epsilon(list(list(noise_multiplier = z,
                                                     sample_rate = case[["q"]],
                                                     steps = 1)), case[["delta"]])
    expect_lte(eps_sub(zs), eps_full * (1 + 1e-9))
    # (to the calibration's precision on the discretised loss distribution)
    expect_gt(eps_sub(zs * 0.98), eps_full)
    # amplified: less noise than the full-data release's
    expect_lt(zs, case[["z"]])
  }
})

test_that("a fit with subsampled settings records each subsampled part and composes them exactly", {
  d <- settings_data()
  withr::local_options(dpsco.settings_subsample = 400)
  eps <- 1
  set.seed(4)
  fit <- dpsco(d$x, d$y, epsilon = eps)
  pr <- privacy(fit)
  sh <- pr$shares
  q <- 400 / d$n
  expect_identical(sh$part, c("scale", "centre", "quantiles", "curvature",
                              "optimizer"))
  expect_equal(sh$sample_rate, c(q, 1, q, q, 1))
  # each subsampled part: the share's full-data multiplier made no more
  # costly at the fit's delta (the closed-form Gaussian epsilon)
  z1 <- dp_noise_multiplier(eps, pr$delta, 1, 1)
  for (k in c(1, 3, 4)) {
    z_full <- z1 / sqrt(sh$share[k])
    expect_lte(sh$epsilon_alone[k], gauss_eps_ref(1 / z_full, pr$delta) * (1 + 1e-9))
    expect_lt(sh$noise_multiplier[k], z_full)
  }
  # the centre stays on the full data, at its share
  expect_equal(sh$noise_multiplier[2], z1 / sqrt(sh$share[2]), tolerance = 1e-12)
  # the accountant composes the record's components: recomputed
  # independently from the table, and within the target
  comps <- lapply(seq_len(nrow(sh)), function(k)
    list(noise_multiplier = sh$noise_multiplier[k],
         sample_rate = sh$sample_rate[k], steps = sh$steps[k]))
  expect_equal(pr$epsilon_accounted, account_epsilon(comps, pr$delta),
               tolerance = 1e-12)
  expect_lte(pr$epsilon_accounted, eps)
  expect_gt(pr$epsilon_accounted, 0.99 * eps)
  # the curvature's sensitivity and noise over the expected size m
  rel <- pr$released
  expect_equal(sh$sensitivity[4], rel$row_bound^2 / 400, tolerance = 1e-14)
  expect_match(sh$mechanism[c(1, 3, 4)], "Poisson subsample \\(rate q = 0.267")
  out <- format(pr)
  expect_true(any(grepl(sprintf("scale .*z = %s, q = 0.2667", format(signif(sh$noise_multiplier[1], 4))),
                        out)))
  # set.seed() reproduces it, and the option off gives the full-pass fit
  set.seed(4)
  expect_identical(dpsco(d$x, d$y, epsilon = eps)$beta, fit$beta)
  withr::local_options(dpsco.settings_subsample = FALSE)
  set.seed(4)
  full <- privacy(dpsco(d$x, d$y, epsilon = eps))
  expect_true(all(full$shares$sample_rate == 1))
  expect_equal(full$shares$share, sh$share)
})

test_that("the subsampled releases read the drawn records: replayed from the same coins", {
  d <- settings_data()
  withr::local_options(dpsco.settings_subsample = 400)
  z1 <- dp_noise_multiplier(1, 1e-4, 1, 1)
  ctl <- dpsco_control()
  set.seed(9)
  tn <- tune_private(d$x, d$y, "gaussian", "clip", "newton", TRUE, z1,
                     NULL, ctl, n = d$n, delta = 1e-4)
  # the same stream: the scale release's coins come first, then its noise
  set.seed(9)
  rows <- settings_rows(d$x, list(q = 400 / d$n))
  st_z <- subsample_multiplier(part_multiplier(z1, tn$parts[[1]]$share),
                               400 / d$n, 1e-4)
  expect_equal(tn$parts[[1]]$noise_multiplier, st_z, tolerance = 1e-12)
  w <- c(rep(1, d$p), sqrt(3 * d$p))
  rel <- octave_release(design_octaves(d$x, rows),
                        signed_octave_counts(d$y, rows), st_z, w)
  rule <- c(octave_rule, room_n = d$n, room_z1 = z1)
  expect_equal(tn$bound, vapply(seq_len(d$p), function(j)
    octave_bound(rel$x[, j], rel$sd[j], rule, n = 400), 0))
  expect_equal(tn$y_range, signed_octave_range(rel$y, rel$sd[d$p + 1], n = 400))
})
