# Standard errors, intervals and tables from the inference stage's
# released values (R/confint.R): each is a closed form of fit$inference,
# computed here from its fields.

confint_fit <- local({
  fit <- NULL
  function() {
    if (is.null(fit)) {
      set.seed(11)
      x <- matrix(rnorm(20000 * 3), 20000, 3,
                  dimnames = list(NULL, c("a", "b", "c")))
      y <- drop(x %*% c(1, -0.5, 0)) + rnorm(20000)
      fit <<- dpsco(x, y, epsilon = 1, inference = TRUE)
    }
    fit
  }
})

test_that("vcov() is the released sandwich plus the privacy covariance", {
  fit <- confint_fit()
  inf <- fit$inference
  hi <- solve(inf$bread)
  vs <- inf$map %*% hi %*% inf$meat %*% hi %*% t(inf$map) / inf$n
  # the two last scores' noise, sd^2 M each (M the meat's metric), and the
  # bread's noise acting on each point's own noise: Cov(E delta) =
  # s^2 (tr(D) I + D) for a symmetric Gaussian E of entry sd s
  sd <- inf$sd
  M <- inf$metric
  eb <- function(D) sd[["bread"]]^2 * (sum(diag(D)) * diag(4) + D)
  v1 <- hi %*% (sd[["score1"]]^2 * M + eb(inf$point_cov)) %*% hi
  v2 <- hi %*% (sd[["score"]]^2 * M +
                  eb(sd[["score1"]]^2 * hi %*% M %*% hi)) %*% hi
  # pooled by the traces' precision
  w <- sum(diag(v1)) / (sum(diag(v1)) + sum(diag(v2)))
  vp <- inf$map %*% ((1 - w)^2 * v1 + w^2 * v2) %*% t(inf$map)
  v <- vcov(fit)
  expect_gt(sum(diag(inf$point_cov)), 0)
  expect_equal(as.vector(attr(v, "sampling")), as.vector(vs), tolerance = 1e-10)
  expect_equal(as.vector(attr(v, "privacy")), as.vector(vp), tolerance = 1e-10)
  expect_equal(as.vector(v), as.vector(vs + vp), tolerance = 1e-10)
  expect_identical(dimnames(v), list(c("(Intercept)", "a", "b", "c"),
                                     c("(Intercept)", "a", "b", "c")))
  # the estimate pools the two one-step estimates with the same weight
  e1 <- inf$point1 + hi %*% inf$score1
  e2 <- inf$point + hi %*% inf$score
  expect_equal(unname(inf$estimate), drop(inf$map %*% ((1 - w) * e1 + w * e2)),
               tolerance = 1e-12)
  # the scores' noise sd: each multiplier times the final clip over n
  sh <- fit$privacy$shares
  for (nm in c("score", "last")) {
    z <- sh$noise_multiplier[sh$part == paste0("inference_", nm)]
    expect_equal(sd[[if (nm == "last") "score1" else "score"]],
                 z * inf$clip / inf$n, tolerance = 1e-12)
  }
})

test_that("Wald intervals are the estimate plus and minus z standard errors", {
  fit <- confint_fit()
  inf <- fit$inference
  se <- sqrt(diag(vcov(fit)))
  ci <- confint(fit)
  expect_equal(unname(ci[, 1]), unname(inf$estimate - qnorm(0.975) * se),
               tolerance = 1e-12)
  expect_equal(unname(ci[, 2]), unname(inf$estimate + qnorm(0.975) * se),
               tolerance = 1e-12)
  expect_identical(colnames(ci), c("2.5 %", "97.5 %"))
  ci90 <- confint(fit, parm = c("b", "a"), level = 0.9)
  expect_identical(rownames(ci90), c("b", "a"))
  expect_identical(colnames(ci90), c("5 %", "95 %"))
  expect_equal(unname(ci90[, 2] - ci90[, 1]),
               unname(2 * qnorm(0.95) * se[c("b", "a")]), tolerance = 1e-12)
  expect_equal(confint(fit, parm = 2), confint(fit, parm = "a"))
  expect_error(confint(fit, parm = "zz"), class = "dpsco_arg_error")
  expect_error(confint(fit, level = 1.5), class = "dpsco_arg_error")
  expect_error(confint(fit, method = "exact"), class = "dpsco_arg_error")
})

test_that("the bootstrap-t draws the released statistics' noise", {
  fit <- confint_fit()
  set.seed(12)
  cb <- confint(fit, method = "bootstrap", B = 2000)
  cw <- confint(fit)
  # at n = 20,000 the released bread and meat are precise: the t-ratios
  # are nearly normal and the intervals nearly Wald's
  expect_equal(unname(cb[, 2] - cb[, 1]), unname(cw[, 2] - cw[, 1]),
               tolerance = 0.08)
  # without noise in bread and meat the t-ratio is exactly normal, however
  # large the scores' noise, when its variance is in the standard error
  # (without it the ratio's 0.975 quantile would be 1.96 sqrt(1 + 100))
  loud <- fit$inference
  loud$sd[c("bread", "meat")] <- 0
  loud$sd[c("score", "score1")] <- 10 *
    sqrt(max(diag(solve(loud$bread) %*% loud$meat %*% solve(loud$bread))) /
           loud$n) * min(eigen(loud$bread)$values)
  set.seed(14)
  tq <- inference_bootstrap(loud, 4000)
  expect_equal(apply(tq, 2, quantile, 0.975), rep(qnorm(0.975), 4),
               tolerance = 0.06, ignore_attr = TRUE)
  # a noisy meat makes the standard error uncertain: the t-ratios spread
  noisy <- fit$inference
  noisy$sd[["meat"]] <- 2 * max(diag(noisy$meat))
  set.seed(13)
  tq <- inference_bootstrap(noisy, 2000)
  expect_gt(abs(mean(apply(tq, 2, quantile, 0.975)) / qnorm(0.975) - 1), 0.05)
})

test_that("a refused stage gives no estimate and a classed warning in plain words", {
  fit <- confint_fit()
  withr::local_options(dpsco.inference_refusal = 1e9)
  st <- fit$inference
  res <- inference_result(st, st$names, 0.6, "gaussian", 1)
  expect_identical(res$refused, "too_few")
  expect_true(all(is.na(res$estimate)))
  refused <- fit
  refused$inference <- res
  expect_warning(ci <- confint(refused), class = "dpsco_inference_unreliable")
  expect_true(all(is.na(ci)))
  expect_warning(v <- vcov(refused), "records are too few for intervals")
  expect_true(all(is.na(v)))
  expect_null(summary(refused)$coefficients)
  # the count it names: 1.25 n times the needed ratio (1e9 noise norms)
  expect_equal(res$records_needed,
               signif(1.25 * 20000 * 1e9 * res$noise_norm / res$bread_min, 2))
  # steps that had not settled: refused too
  withr::local_options(dpsco.inference_refusal = 1, dpsco.inference_settle = 0)
  res <- inference_result(st, st$names, 0.6, "gaussian", 1)
  expect_identical(res$refused, "not_converged")
  expect_match(refusal_text(res), "had not settled")
})

test_that("summary() and tidy(conf.int = TRUE) show the same numbers", {
  fit <- confint_fit()
  tab <- summary(fit)$coefficients
  se <- sqrt(diag(vcov(fit)))
  expect_equal(tab$`Std. Error`, unname(se), tolerance = 1e-12)
  expect_equal(tab$sampling, unname(sqrt(diag(attr(vcov(fit), "sampling")))),
               tolerance = 1e-12)
  expect_equal(tab$`z value`, unname(fit$inference$estimate / se),
               tolerance = 1e-12)
  expect_equal(tab$`Pr(>|z|)`, 2 * pnorm(-abs(tab$`z value`)), tolerance = 1e-12)
  out <- capture.output(print(summary(fit)))
  # the coefficient table first, as in glm's summary; the privacy
  # paragraph after it, short
  expect_match(out[1], "^Coefficients")
  expect_true(any(grepl("Std. Error", out[1:3])))
  expect_lt(which(grepl("^Coefficients", out)), which(grepl("^Privacy", out)))
  priv <- summary(fit)$text[length(summary(fit)$text)]
  expect_match(priv, "privacy\\(fit\\) lists them")
  expect_lt(nchar(priv), 700)
  td <- tidy(fit, conf.int = TRUE, conf.level = 0.9)
  expect_identical(td$term, c("(Intercept)", "a", "b", "c"))
  expect_equal(td$conf.low, unname(confint(fit, level = 0.9)[, 1]),
               tolerance = 1e-12)
  expect_equal(td$std.error.privacy, tab$privacy, tolerance = 1e-12)
  # the path is still tidy()'s default
  expect_true("lambda" %in% names(tidy(fit)))
})

test_that("a fit without the stage says how to get intervals", {
  set.seed(15)
  x <- matrix(rnorm(600), 300, 2)
  fit <- dpsco(x, rnorm(300), epsilon = 1)
  expect_error(confint(fit), class = "dpsco_no_inference")
  expect_error(vcov(fit), "inference = TRUE")
  expect_error(tidy(fit, conf.int = TRUE), class = "dpsco_no_inference")
  expect_null(summary(fit)$coefficients)
})
