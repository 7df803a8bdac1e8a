# The truncation levels (R/settings-truncation.R): the private clipping
# level against the quantile edge computed in plain R at the start.

test_that("the private clipping level is the 0.995 quantile of |r_i| ||(1, x_i)|| at the start", {
  # at a huge epsilon the releases are exact up to ~1e-6 relative noise,
  # and the noise leaves all the room: the level is twice the quantile,
  # placed inside its octave
  d <- settings_data()
  set.seed(3)
  fit <- dpsco(d$x, d$y, method = "clip", epsilon = 1e7, iterations = 2)
  rel <- privacy(fit)$released
  B <- rel$x_bound
  xt <- pmin(pmax(d$x / rep(B, each = d$n), -1), 1)
  wn <- sqrt(1 + rowSums(xt^2))
  r0 <- rel$centre - d$y
  expect_equal(rel$clip, 2 * quantile_within_ref(abs(r0) * wn, 0.005),
               tolerance = 1e-3)
  expect_identical(fit$settings$clip, rel$clip)
  # the equal-noise rule: holland and kamath clip each record's gradient
  # first (holland at C, truncating at C too; kamath at C over the
  # median's factor, clamping there), which gives clip's sensitivity
  for (m in c("holland", "kamath")) {
    set.seed(3)
    f <- dpsco(d$x, d$y, method = m, epsilon = 1e7, iterations = 2)
    st <- f$settings
    dd <- d$p + 1
    C <- privacy(f)$released$clip
    expect_identical(C, rel$clip)
    if (m == "holland") {
      expect_equal(st$clip, C)
      expect_equal(2 * sqrt(2) * st$s / 3, C, tolerance = 1e-15)
      sens <- min(st$clip, 2 * sqrt(2) * st$s * sqrt(dd) / 3) / d$n
    } else {
      f_k <- median_factor_ref(st$k)
      expect_equal(st$clip, C / (st$k * f_k), tolerance = 1e-15)
      expect_equal(st$rho / 2, st$clip, tolerance = 1e-15)
      sens <- min(st$clip, st$rho * sqrt(dd) / 2) * st$k * f_k / d$n
    }
    expect_equal(sens, C / d$n, tolerance = 1e-12, label = m)
    expect_equal(privacy(f)$sensitivity, C / d$n, tolerance = 1e-12)
  }
})
