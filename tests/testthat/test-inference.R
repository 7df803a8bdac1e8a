# The inference stage (R/inference.R): without noise it is glm() with
# the HC0 sandwich, whatever the true mean of y; its budget comes off the
# top and the record adds up; a private stage covers glm's coefficient of
# a misspecified model; it answers for a strongly collinear pair, and
# refuses, in plain words, where it cannot answer.

# A population whose mean is not linear in x and whose errors are skewed
# and heteroscedastic: glm's coefficients are a projection, and a clamp
# or a row weight would move them.
misfit_data <- function(n, family, seed) {
  set.seed(seed)
  x1 <- rexp(n) * 2
  x2 <- rnorm(n)
  x <- cbind(x1 = x1, x2 = x2)
  eta <- 0.4 + 0.6 * x1 - 0.08 * x1^2 + 0.5 * x2 + 0.3 * x2^2
  y <- switch(family,
    gaussian = eta + (rexp(n) - 1) * (0.5 + 0.5 * x1),
    binomial = rbinom(n, 1, plogis(eta - 1)),
    poisson = rpois(n, exp(0.3 * eta)))
  list(x = x, y = y)
}

glm_family <- function(f) switch(f, gaussian = gaussian(),
                                 binomial = binomial(), poisson = poisson())

test_that("without noise the stage is glm(), its sandwich glm's HC0", {
  for (fam in c("gaussian", "binomial", "poisson")) {
    d <- misfit_data(3000, fam, 1)
    g <- glm(d$y ~ d$x, family = glm_family(fam))
    fit <- dpsco(d$x, d$y, family = fam, method = "none", inference = TRUE)
    inf <- fit$inference
    expect_null(inf$refused)
    expect_equal(unname(inf$estimate), unname(coef(g)), tolerance = 1e-8,
                 info = fam)
    # HC0 by hand: (X'WX)^-1 X' diag(r^2) X (X'WX)^-1 at glm's fit
    w <- cbind(1, d$x)
    mu <- fitted(g)
    v <- switch(fam, gaussian = rep(1, 3000), binomial = mu * (1 - mu),
                poisson = mu)
    bread <- solve(crossprod(w * v, w))
    hc0 <- bread %*% crossprod(w * (d$y - mu)) %*% bread
    expect_equal(as.vector(vcov(fit)), as.vector(hc0), tolerance = 1e-7,
                 info = fam)
    expect_equal(max(abs(attr(vcov(fit), "privacy"))), 0)
  }
})

test_that("the stage's share comes off the top and the record adds up", {
  set.seed(6)
  x <- matrix(rnorm(3000 * 3), 3000, 3)
  y <- drop(x %*% c(1, -1, 0)) + rnorm(3000)
  f0 <- dpsco(x, y, epsilon = 1)
  f1 <- dpsco(x, y, epsilon = 1, inference = TRUE)
  sh <- f1$privacy$shares
  expect_equal(sum(sh$share), 1, tolerance = 1e-12)
  inf <- sh[startsWith(sh$part, "inference_"), ]
  expect_equal(sum(inf$share), 0.6, tolerance = 1e-12)
  # every part of the plan, the gaussian one without a second whitening
  expect_setequal(sub("^inference_", "", inf$part),
                  setdiff(names(inference_fractions), "rewhiten"))
  # each part's multiplier is the single release's z1 over sqrt(share / k)
  z1 <- dp_noise_multiplier(1, f1$privacy$delta, 1, 1)
  expect_equal(inf$noise_multiplier, z1 * sqrt(inf$steps / inf$share),
               tolerance = 1e-6)
  # gaussian's linear score: three first steps; binomial and poisson five
  expect_identical(inf$steps[inf$part == "inference_steps"], 3)
  expect_identical(inf$steps[inf$part == "inference_step_breads"], 2)
  yb <- as.double(y + rnorm(3000) > 0)
  sb <- dpsco(x, yb, family = "binomial", epsilon = 1,
              inference = TRUE)$privacy$shares
  expect_identical(sb$steps[sb$part == "inference_steps"], 5)
  expect_identical(sb$steps[sb$part == "inference_step_breads"], 4)
  expect_identical(inf$steps[inf$part == "inference_whiten"], 3)
  # the settings keep their shares of the rest (0.4 of the budget; the
  # scale's and the centre's adapt to the multiplier, which grows)
  set0 <- f0$privacy$shares
  set0 <- set0[set0$part %in% c("quantiles", "curvature"), ]
  set1 <- sh[match(set0$part, sh$part), ]
  expect_equal(set1$share, set0$share * 0.4, tolerance = 1e-12)
  expect_lte(f1$privacy$epsilon_accounted, 1 + 1e-9)
  expect_gt(f1$privacy$epsilon_accounted, 1 - 1e-4)
  # the sensitivities the stage used: the last two scores' clip over n,
  # the meat's clip squared over n, the bread's clip over n
  st <- f1$inference
  sens <- function(part) inf$sensitivity[inf$part == part]
  expect_equal(sens("inference_score"), st$clip / 3000, tolerance = 1e-12)
  expect_equal(sens("inference_last"), st$clip / 3000, tolerance = 1e-12)
  expect_equal(sens("inference_meat"), st$levels[["clip_meat"]]^2 / 3000,
               tolerance = 1e-12)
  expect_equal(sens("inference_bread"), st$levels[["clip_bread"]] / 3000,
               tolerance = 1e-12)
  # the final clip: max(sqrt(n) / z, 20), z the last two scores' pooled
  # multiplier
  zs <- inf$noise_multiplier[inf$part %in% c("inference_last",
                                             "inference_score")]
  expect_equal(st$clip, max(sqrt(3000) * sqrt(sum(1 / zs^2)), 20),
               tolerance = 1e-12)
  # the whitenings' part names each release's sensitivity
  wh <- f1$privacy$shares$released[sh$part == "inference_whiten"]
  expect_match(wh, "sensitivities [-0-9.e]+, [-0-9.e]+, [-0-9.e]+\\)$")
  # without inference nothing changes (the same draws, the same fit)
  set.seed(7)
  a <- dpsco(x, y, epsilon = 1)
  set.seed(7)
  b <- dpsco(x, y, epsilon = 1, inference = FALSE)
  expect_identical(coef(a), coef(b))
})

test_that("the plan splits the share by the fractions, by family", {
  for (fam in c("gaussian", "binomial")) {
    pl <- inference_plan(family_object(fam), 0.5, 2, intercept = FALSE)
    shares <- vapply(pl$parts, `[[`, 0, "share")
    names(shares) <- sub("^inference_", "", vapply(pl$parts, `[[`, "", "name"))
    expect_equal(sum(shares), 0.5, tolerance = 1e-12)
    expect_false("centre" %in% names(shares))
    expect_equal(shares[["score"]], 0.5 * (inference_fractions[["score"]] +
                                             inference_fractions[["centre"]]),
                 tolerance = 1e-12)
    # a second whitening only where the bread moves with the coefficients
    expect_identical("rewhiten" %in% names(shares), fam == "binomial")
    # z of a part: z1 sqrt(k / share)
    k <- vapply(pl$parts, `[[`, 0, "steps")
    expect_equal(unname(pl$z[names(shares)]), unname(2 * sqrt(k / shares)),
                 tolerance = 1e-12)
  }
})

test_that("a private stage covers glm's coefficients of a misspecified model", {
  # the truth: glm on 400,000 draws of the same population; 30 fits at
  # n = 10,000 and epsilon 2, each a fresh sample (a smoke test of
  # bench/inference_real.R: 90 intervals, coverage sd 0.023 at 0.95)
  big <- misfit_data(4e5, "gaussian", 2)
  truth <- unname(coef(lm(big$y ~ big$x)))
  hit <- vapply(1:30, function(r) {
    d <- misfit_data(10000, "gaussian", 100 + r)
    ci <- suppressWarnings(confint(dpsco(d$x, d$y, epsilon = 2,
                                         inference = TRUE)))
    (ci[, 1] <= truth) & (truth <= ci[, 2])
  }, logical(3))
  expect_false(anyNA(hit))
  expect_gte(mean(hit), 0.88)
})

test_that("a strongly collinear pair beside a heavy-tailed column gets intervals", {
  # columns correlated 0.99 and a t2 column, n = 10,000, epsilon 1: the
  # whitenings resolve the pair's weak direction (the old stage refused
  # every such fit)
  set.seed(8)
  n <- 10000
  z1 <- rnorm(n)
  x <- cbind(a = z1, b = 0.99 * z1 + sqrt(1 - 0.99^2) * rnorm(n),
             h = rt(n, 2))
  y <- drop(1 + x %*% c(0.5, 0.5, 0.2)) + rnorm(n)
  g <- lm(y ~ x)
  fit <- dpsco(x, y, epsilon = 1, inference = TRUE)
  inf <- fit$inference
  expect_null(inf$refused)
  ci <- confint(fit)
  expect_true(all(is.finite(ci)))
  # wider than lm's along the pair, as it must be, and centred near it
  w_lm <- 2 * qnorm(0.975) * sqrt(diag(vcov(g)))
  expect_true(all(ci[, 2] - ci[, 1] > w_lm))
  expect_lt(max(abs(inf$estimate - coef(g)) / sqrt(diag(vcov(fit)))), 4)
})

test_that("inference takes a share, and refuses where it does not apply", {
  expect_identical(check_inference(FALSE), 0)
  expect_identical(check_inference(TRUE), 0.6)
  expect_identical(check_inference(0.4), 0.4)
  for (bad in list(0, 1, NA, "yes", c(0.2, 0.3), "heavy_tails"))
    expect_error(check_inference(bad), class = "dpsco_arg_error")
  x <- matrix(rnorm(400), 200, 2)
  y <- rnorm(200)
  expect_error(dpsco(x, y, inference = "heavy"), class = "dpsco_arg_error",
               regexp = "heavy_tails")
  expect_error(cv.dpsco(x, y, inference = "heavy_tails"),
               class = "dpsco_arg_error", regexp = "is for dpsco")
  expect_error(dpsco(x, y, method = "fw", inference = TRUE), "penalised")
  expect_error(dpsco(x, y, family = "quantile", inference = TRUE),
               "not yet available for the quantile family")
  expect_error(dpsco(x, factor(sample(letters[1:3], 200, TRUE)),
                     family = "multinomial", inference = TRUE),
               "multinomial")
  expect_error(dpsco(x, y, tuning = "public", inference = TRUE),
               "tuning = \"private\"")
})

test_that("inference = \"heavy_tails\" clips the meat farther, in the same budget", {
  set.seed(11)
  n <- 8000
  x <- cbind(rnorm(n), rexp(n))
  y <- drop(x %*% c(1, -0.5)) + rt(n, 3)
  f0 <- withr::with_seed(1, dpsco(x, y, epsilon = 1, inference = TRUE))
  f1 <- withr::with_seed(1, dpsco(x, y, epsilon = 1, inference = "heavy_tails"))
  expect_identical(f1$inference$tails, "heavy_tails")
  expect_identical(f0$inference$tails, "default")
  # the same parts, multipliers and guarantee: only the meat's clip moves
  p0 <- privacy(f0)$shares
  p1 <- privacy(f1)$shares
  expect_identical(p1$part, p0$part)
  expect_identical(p1$noise_multiplier, p0$noise_multiplier)
  expect_equal(privacy(f1)$epsilon_accounted, privacy(f0)$epsilon_accounted)
  expect_match(p1$released[p1$part == "inference_meat"], "heavy_tails", fixed = TRUE)
  # the clip in score units: the rule's, with four times the noise target
  lv <- f1$inference$levels
  zm <- p1$noise_multiplier[p1$part == "inference_meat"]
  k <- sqrt(2.8 * n / (2 * zm * sqrt(3)))
  expect_equal(lv[["clip_meat"]] / lv[["unit"]], min(28, max(8, k)))
  # the meat's sensitivity in the record is the clip's square over n
  expect_equal(p1$sensitivity[p1$part == "inference_meat"], lv[["clip_meat"]]^2 / n)
  # still intervals for glm's coefficients (lm's here)
  ci <- confint(f1)
  b <- coef(lm(y ~ x))
  expect_true(all(ci[, 1] < b & b < ci[, 2]))
})

test_that("too few records: no estimate, and a refusal that says how many would do", {
  set.seed(9)
  x <- matrix(rnorm(400 * 4), 400, 4)
  y <- drop(x %*% c(1, -1, 0.5, 0)) + rnorm(400)
  fit <- dpsco(x, y, epsilon = 0.5, inference = TRUE)
  inf <- fit$inference
  expect_false(is.null(inf$refused))
  expect_true(all(is.na(inf$estimate)))
  expect_warning(ci <- confint(fit), class = "dpsco_inference_unreliable")
  expect_true(all(is.na(ci)))
  msg <- refusal_text(inf)
  expect_match(msg, "records are too few for intervals at epsilon 0.5|did not settle")
  if (identical(inf$refused, "too_few") && inf$bread_min > 0) {
    # the count it names: the noise falls as 1 / n against the bread's
    # smallest eigenvalue
    expect_equal(inf$records_needed,
                 signif(1.25 * 400 * inf$noise_norm / inf$bread_min, 2))
    expect_match(msg, format(inf$records_needed, big.mark = ","), fixed = TRUE)
  } else if (identical(inf$refused, "too_few")) {
    # a smallest eigenvalue at or below 0 gives no count to name
    expect_true(is.na(inf$records_needed))
    expect_match(msg, "Several times as many records")
  }
  # no coefficient table in summary(), no number posing as an estimate
  expect_null(summary(fit)$coefficients)
  out <- paste(capture.output(print(summary(fit))), collapse = " ")
  expect_match(out, "No standard errors or intervals")
})

test_that("collinear or constant columns refuse the intervals, never fail", {
  set.seed(12)
  n <- 3000
  x <- matrix(rnorm(n * 3), n, 3)
  x <- cbind(x, x[, 1], 5)
  y <- drop(x[, 1:3] %*% c(1, -1, 0.5)) + rnorm(n)
  f0 <- dpsco(x, y, method = "none", inference = TRUE)
  expect_identical(f0$inference$refused, "singular")
  expect_match(refusal_text(f0$inference), "collinear")
  f1 <- dpsco(x, y, epsilon = 1, inference = TRUE)
  expect_false(is.null(f1$inference$refused))
  expect_warning(ci <- confint(f1), class = "dpsco_inference_unreliable")
  expect_true(all(is.na(ci)))
})
