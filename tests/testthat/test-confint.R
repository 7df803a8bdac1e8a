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
  meat <- inf$meat
  ev <- eigen(meat, symmetric = TRUE)
  meat <- ev$vectors %*% (pmax(ev$values, 0) * t(ev$vectors))
  vs <- inf$map %*% hi %*% meat %*% hi %*% t(inf$map) / inf$n
  # the final score's noise, and the bread's noise acting on the last
  # step's: Cov(E delta) = s^2 (tr(D) I + D) for a symmetric Gaussian E
  D <- inf$step_cov
  mid <- inf$sd[["score"]]^2 * diag(4) +
    inf$sd[["bread"]]^2 * (sum(diag(D)) * diag(4) + D)
  vp <- inf$map %*% hi %*% mid %*% hi %*% t(inf$map)
  v <- vcov(fit)
  expect_gt(sum(diag(D)), 0)
  expect_equal(as.vector(attr(v, "sampling")), as.vector(vs), tolerance = 1e-10)
  expect_equal(as.vector(attr(v, "privacy")), as.vector(vp), tolerance = 1e-10)
  expect_equal(as.vector(v), as.vector(vs + vp), tolerance = 1e-10)
  expect_identical(dimnames(v), list(c("(Intercept)", "a", "b", "c"),
                                     c("(Intercept)", "a", "b", "c")))
  # the privacy sd of the final score: its multiplier times bound R / n
  z <- fit$privacy$shares$noise_multiplier[
    fit$privacy$shares$part == "inference_score"]
  expect_equal(inf$sd[["score"]], z * inf$clamp * inf$row_bound / inf$n,
               tolerance = 1e-12)
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
  # large the score's noise, when its variance is in the standard error
  # (without it the ratio's 0.975 quantile would be 1.96 sqrt(1 + 100))
  loud <- fit$inference
  loud$sd[c("bread", "meat")] <- 0
  loud$sd[["score"]] <- 10 * sqrt(max(diag(solve(loud$bread) %*% loud$meat %*%
                                      solve(loud$bread))) / loud$n) *
    min(eigen(loud$bread)$values)
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

test_that("a refused stage gives NA with a classed warning naming the remedies", {
  fit <- confint_fit()
  inf <- fit$inference
  withr::local_options(dpsco.inference_refusal = 1e9)
  st <- list(b = inf$point, score = inf$score, bread = inf$bread,
             meat = inf$meat, sd = inf$sd, clamp = inf$clamp,
             row_bound = inf$row_bound, d_cap = inf$d_cap, capped = FALSE,
             n = inf$n, d = 4)
  std <- list(center = rep(0, 3), scale = rep(1, 3))
  res <- inference_result(st, std, TRUE, inf$names, 0.4,
                          family_object("gaussian"))
  expect_match(res$refused, "too noisy to invert")
  refused <- fit
  refused$inference <- res
  expect_warning(ci <- confint(refused), class = "dpsco_inference_unreliable")
  expect_true(all(is.na(ci)))
  expect_warning(v <- vcov(refused), "larger inference share")
  expect_true(all(is.na(v)))
  tab <- summary(refused)$coefficients
  expect_true(all(is.na(tab$`Std. Error`)))
  expect_equal(tab$Estimate, unname(res$estimate))
  # a trust region still active at the last step: not converged
  st$capped <- TRUE
  withr::local_options(dpsco.inference_refusal = 2)
  res <- inference_result(st, std, TRUE, inf$names, 0.4,
                          family_object("binomial"))
  expect_match(res$refused, "not converged")
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
  expect_true(any(grepl("Std. Error", out)))
  expect_true(any(grepl("sampling", out)))
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
