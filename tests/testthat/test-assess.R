# assess.dpsco(), confusion.dpsco() and roc.dpsco(): glmnet's helpers
# applied to the same predictions, and plain-R formulas.

as_data <- function(n = 400, seed = 9) {
  set.seed(seed)
  x <- matrix(rnorm(n * 4), n, 4)
  eta <- drop(x %*% c(1.5, -1, 0.5, 0))
  list(x = x, y = eta + rnorm(n), yb = rbinom(n, 1, plogis(eta)),
       yp = rpois(n, exp(0.4 * eta)), w = runif(n, 0.2, 2))
}

# glmnet's measures as plain numbers (attributes kept)
glmnet_assess <- function(...) {
  suppressWarnings(glmnet::assess.glmnet(...))
}

test_that("assess.dpsco() on predictions is assess.glmnet() on the same predictions", {
  skip_if_not_installed("glmnet")
  d <- as_data()
  set.seed(1)
  fit <- dpsco(d$x[1:300, ], d$y[1:300], epsilon = 1, nlambda = 5)
  te <- 301:400
  eta <- predict(fit, d$x[te, ])
  ours <- assess.dpsco(eta, newy = d$y[te], family = "gaussian",
                       weights = d$w[te])
  ref <- glmnet_assess(eta, newy = d$y[te], family = "gaussian",
                       weights = d$w[te])
  expect_identical(names(ours), names(ref))
  for (m in names(ref)) {
    expect_equal(unname(ours[[m]]), unname(ref[[m]]), tolerance = 1e-12)
    expect_identical(attr(ours[[m]], "measure"), attr(ref[[m]], "measure"))
  }
  # on the fit itself: the same numbers, named by the path
  on_fit <- assess.dpsco(fit, newx = d$x[te, ], newy = d$y[te],
                         weights = d$w[te])
  expect_equal(on_fit$mse, ours$mse)
  expect_identical(names(on_fit$mse), paste0("s", 0:4))
  # binomial, with ties in the predictions (the AUC's half counts)
  fb <- dpsco(d$x[1:300, ], d$yb[1:300], family = "binomial", epsilon = 1,
              nlambda = 5)
  eb <- round(predict(fb, d$x[te, ]), 1)
  ours <- assess.dpsco(eb, newy = d$yb[te], family = "binomial",
                       weights = d$w[te])
  ref <- glmnet_assess(eb, newy = d$yb[te], family = "binomial",
                       weights = d$w[te])
  expect_identical(names(ours), c("deviance", "class", "auc", "mse", "mae"))
  expect_identical(names(ours), names(ref))
  for (m in names(ref)) {
    expect_equal(unname(ours[[m]]), unname(ref[[m]]), tolerance = 1e-10)
    expect_identical(attr(ours[[m]], "measure"), attr(ref[[m]], "measure"))
  }
  # poisson
  fp <- dpsco(d$x[1:300, ], d$yp[1:300], family = "poisson", epsilon = 1,
              nlambda = 4)
  ep <- predict(fp, d$x[te, ])
  ours <- assess.dpsco(ep, newy = d$yp[te], family = "poisson")
  ref <- glmnet_assess(ep, newy = d$yp[te], family = "poisson")
  expect_identical(names(ours), names(ref))
  for (m in names(ref))
    expect_equal(unname(ours[[m]]), unname(ref[[m]]), tolerance = 1e-10)
})

test_that("multinomial assess and confusion follow glmnet on the same predictions", {
  skip_if_not_installed("glmnet")
  d <- mn_data(n = 400)
  set.seed(2)
  fit <- dpsco(d$x[1:300, ], d$y[1:300], family = "multinomial", epsilon = 2,
               nlambda = 4)
  te <- 301:400
  eta <- predict(fit, d$x[te, ])
  ours <- assess.dpsco(eta, newy = d$y[te], family = "multinomial")
  ref <- glmnet_assess(eta, newy = d$y[te], family = "multinomial")
  expect_identical(names(ours), c("deviance", "class", "mse", "mae"))
  expect_identical(names(ours), names(ref))
  for (m in names(ref))
    expect_equal(unname(ours[[m]]), unname(ref[[m]]), tolerance = 1e-10)
  # the confusion table at one s: predicted by true class
  s <- fit$lambda[4]
  tab <- confusion.dpsco(fit, newx = d$x[te, ], newy = d$y[te], s = s)
  pred <- predict(fit, d$x[te, ], s = s, type = "class")[, 1]
  expect_identical(unclass(tab)[, ],
                   unclass(table(Predicted = factor(pred, levels = c("u", "v", "w")),
                                 True = d$y[te]))[, ])
  expect_identical(names(dimnames(tab)), c("Predicted", "True"))
  out <- capture.output(print(tab))
  expect_identical(out[length(out)], paste0(" Percent Correct:  ",
    format(round(mean(pred == d$y[te]), 4)), " "))
  # several s: a list named by them
  tabs <- confusion.dpsco(fit, newx = d$x[te, ], newy = d$y[te],
                          s = fit$lambda[3:4])
  expect_identical(names(tabs), c("s1", "s2"))
  expect_identical(unclass(tabs$s2)[, ], unclass(tab)[, ])
})

test_that("binomial confusion and ROC are glmnet's on the same link predictions", {
  skip_if_not_installed("glmnet")
  d <- as_data()
  set.seed(3)
  fb <- dpsco(d$x[1:300, ], d$yb[1:300], family = "binomial", epsilon = 1,
              nlambda = 5)
  te <- 301:400
  s <- fb$lambda[5]
  eb <- predict(fb, d$x[te, ], s = s)
  tab <- confusion.dpsco(fb, newx = d$x[te, ], newy = d$yb[te], s = s)
  ref <- glmnet::confusion.glmnet(eb, newy = d$yb[te], family = "binomial")
  # glmnet names the predicted classes 1, 2 when given bare predictions
  expect_equal(as.vector(unclass(tab)), as.vector(unclass(ref)))
  expect_identical(dimnames(tab)$Predicted, c("0", "1"))
  roc <- roc.dpsco(fb, newx = d$x[te, ], newy = d$yb[te], s = s)
  expect_equal(roc, glmnet::roc.glmnet(eb, newy = d$yb[te]),
               ignore_attr = TRUE)
  expect_identical(names(roc), c("FPR", "TPR"))
  # with ties, and against the plain-R count at every threshold
  et <- round(eb, 1)
  rt <- roc.dpsco(et, newy = d$yb[te])
  expect_equal(rt, glmnet::roc.glmnet(et, newy = d$yb[te]), ignore_attr = TRUE)
  th <- sort(unique(et[, 1]), decreasing = TRUE)
  y <- d$yb[te]
  expect_equal(rt$TPR, vapply(th, function(t) mean(et[y == 1, 1] >= t), 0))
  expect_equal(rt$FPR, vapply(th, function(t) mean(et[y == 0, 1] >= t), 0))
})

test_that("a cv.dpsco object is assessed at lambda.min; a fit needs data", {
  d <- as_data()
  set.seed(4)
  cvf <- cv.dpsco(d$x[1:300, ], d$yb[1:300], family = "binomial", epsilon = 1,
                  nlambda = 4)
  te <- 301:400
  a <- assess.dpsco(cvf, newx = d$x[te, ], newy = d$yb[te])
  p <- drop(predict(cvf, d$x[te, ], type = "response"))
  y <- d$yb[te]
  expect_equal(a$class, mean((p > 0.5) != (y == 1)), ignore_attr = TRUE)
  pc <- pmin(pmax(p, 1e-5), 1 - 1e-5)
  expect_equal(a$deviance, mean(-2 * (y * log(pc) + (1 - y) * log(1 - pc))),
               ignore_attr = TRUE)
  expect_equal(a$mse, mean(2 * (y - p)^2), ignore_attr = TRUE)
  # the AUC: pairs of (1, 0) records in the right order
  pairs <- outer(p[y == 1], p[y == 0], ">") + outer(p[y == 1], p[y == 0], "==") / 2
  expect_equal(a$auc, mean(pairs), ignore_attr = TRUE)
  expect_error(assess.dpsco(cvf, newy = y), class = "dpsco_arg_error")
  expect_error(assess.dpsco(cvf, newx = d$x[te, ]), class = "dpsco_arg_error")
  expect_error(roc.dpsco(dpsco(d$x, d$y, epsilon = 1, nlambda = 3),
                         newx = d$x, newy = d$y), class = "dpsco_arg_error")
})

test_that("quantile predictions are assessed by the check loss and the mae", {
  set.seed(6)
  y <- rnorm(50)
  eta <- cbind(s0 = rnorm(50), s1 = rnorm(50))
  a <- assess.dpsco(eta, newy = y, family = "quantile", tau = 0.2)
  u <- y - eta
  expect_identical(names(a), c("check", "mae"))
  expect_equal(a$check, colMeans(u * (0.2 - (u < 0))), ignore_attr = TRUE)
  expect_equal(a$mae, colMeans(abs(u)), ignore_attr = TRUE)
  expect_identical(names(a$mae), c("s0", "s1"))
  expect_identical(attr(a$check, "measure"), "Check Loss")
})
