# The "dpsco" parsnip engine, fitted through workflows: each prediction
# equals that of the direct dpsco() or cv.dpsco() call at the same seed on
# the design written out by hand, and the engine's arguments reach the fit.

skip_if_not_installed("parsnip")
skip_if_not_installed("workflows")

tm_data <- function(n = 600) {
  set.seed(21)
  d <- data.frame(a = runif(n, -1, 1), b = runif(n, -1, 1),
                  g = factor(sample(c("u", "v"), n, TRUE)))
  eta <- 1.5 * d$a - d$b + 0.5 * (d$g == "v")
  d$y <- eta + rnorm(n, sd = 0.5)
  d$yc <- rpois(n, exp(0.3 + 0.5 * eta))
  d$yb <- factor(ifelse(runif(n) < plogis(2 * eta), "yes", "no"),
                 levels = c("no", "yes"))
  d$ym <- factor(c("p", "q", "r")[1L + (eta > -0.5) + (eta > 0.5)],
                 levels = c("r", "p", "q"))
  d
}
# parsnip's traditional indicators written out: a, b and g's second level
tm_x <- function(d) cbind(a = d$a, b = d$b, gv = as.numeric(d$g == "v"))

# fit() of a workflow with the model `spec` and the formula outcome ~ a + b + g
tm_fit <- function(spec, outcome, d, seed) {
  wf <- workflows::add_formula(workflows::add_model(workflows::workflow(), spec),
                               stats::as.formula(paste(outcome, "~ a + b + g")))
  set.seed(seed)
  generics::fit(wf, data = d)
}

test_that("the engine is registered for the four models", {
  engines <- function(model) parsnip::show_engines(model)$engine
  for (model in c("linear_reg", "logistic_reg", "poisson_reg", "multinom_reg"))
    expect_true("dpsco" %in% engines(model), info = model)
  # parsnip accepts the same registration again
  expect_silent(register_parsnip())
  expect_identical(sum(parsnip::show_engines("linear_reg")$engine == "dpsco"), 1L)
})

test_that("linear_reg with a penalty is dpsco() at that penalty", {
  d <- tm_data()
  new <- d[1:7, ]
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = 0.02, mixture = 0.6),
                              "dpsco", epsilon = 0.7, public_n = 600)
  wf <- tm_fit(spec, "y", d, 5)
  pred <- predict(wf, new_data = new)
  set.seed(5)
  ref <- dpsco(tm_x(d), d$y, family = "gaussian", lambda = 0.02,
               alpha = 0.6, epsilon = 0.7, public_n = 600)
  # a one-penalty fit is more than the intercept-only model
  expect_true(any(coef(ref)[-1L, 1L] != 0))
  expect_equal(pred$.pred,
               as.vector(predict(ref, tm_x(new), s = 0.02, type = "response")),
               tolerance = 1e-12)
  eng <- workflows::extract_fit_engine(wf)
  expect_identical(eng$lambda, 0.02)
  expect_identical(eng$settings$alpha, 0.6)
  expect_identical(privacy(eng)$epsilon, 0.7)
  expect_identical(eng$nobs, 600)
  expect_identical(rownames(eng$beta), c("a", "b", "gv"))
})

test_that("linear_reg without a penalty is cv.dpsco() at its private choice", {
  d <- tm_data()
  new <- d[1:7, ]
  spec <- parsnip::set_engine(parsnip::linear_reg(), "dpsco", epsilon = 1.3,
                              holdout = 0.25, nlambda = 4)
  wf <- tm_fit(spec, "y", d, 6)
  pred <- predict(wf, new_data = new)
  set.seed(6)
  ref <- cv.dpsco(tm_x(d), d$y, family = "gaussian", epsilon = 1.3,
                  holdout = 0.25, nlambda = 4)
  expect_equal(pred$.pred,
               as.vector(predict(ref, tm_x(new), s = ref$lambda.min,
                                 type = "response")),
               tolerance = 1e-12)
  eng <- workflows::extract_fit_engine(wf)
  expect_s3_class(eng, "cv.dpsco")
  expect_identical(privacy(eng)$epsilon, 1.3)
  expect_length(eng$lambda, 4L)
})

test_that("poisson_reg predicts the fitted mean of dpsco()", {
  d <- tm_data()
  new <- d[1:7, ]
  spec <- parsnip::set_engine(parsnip::poisson_reg(penalty = 0.01), "dpsco",
                              epsilon = 2, method = "clip")
  wf <- tm_fit(spec, "yc", d, 7)
  set.seed(7)
  ref <- dpsco(tm_x(d), d$yc, family = "poisson", lambda = 0.01,
               epsilon = 2, method = "clip")
  mu <- as.vector(predict(ref, tm_x(new), s = 0.01, type = "response"))
  expect_equal(predict(wf, new_data = new)$.pred, mu, tolerance = 1e-12)
  expect_equal(mu, as.vector(exp(cbind(1, tm_x(new)) %*% coef(ref)[, 1])),
               tolerance = 1e-12)
  expect_identical(workflows::extract_fit_engine(wf)$method, "clip")
})

test_that("logistic_reg gives dpsco()'s classes and probabilities", {
  d <- tm_data()
  new <- d[1:9, ]
  spec <- parsnip::set_engine(parsnip::logistic_reg(penalty = 0.01), "dpsco",
                              epsilon = 1.5)
  wf <- tm_fit(spec, "yb", d, 8)
  set.seed(8)
  ref <- dpsco(tm_x(d), d$yb, family = "binomial", lambda = 0.01,
               epsilon = 1.5)
  # the probability of the second level, "yes", from the coefficients
  p <- as.vector(plogis(cbind(1, tm_x(new)) %*% coef(ref)[, 1]))
  prob <- predict(wf, new_data = new, type = "prob")
  expect_identical(names(prob), c(".pred_no", ".pred_yes"))
  expect_equal(prob$.pred_yes, p, tolerance = 1e-12)
  expect_equal(prob$.pred_no, 1 - p, tolerance = 1e-12)
  cls <- predict(wf, new_data = new)$.pred_class
  expect_identical(levels(cls), c("no", "yes"))
  expect_identical(as.character(cls), ifelse(p > 0.5, "yes", "no"))
  expect_identical(privacy(workflows::extract_fit_engine(wf))$epsilon, 1.5)
})

test_that("multinom_reg gives dpsco()'s probabilities in the outcome's level order", {
  d <- tm_data()
  new <- d[1:9, ]
  spec <- parsnip::set_engine(parsnip::multinom_reg(penalty = 0.005), "dpsco",
                              epsilon = 2)
  wf <- tm_fit(spec, "ym", d, 9)
  set.seed(9)
  ref <- dpsco(tm_x(d), d$ym, family = "multinomial", lambda = 0.005,
               epsilon = 2)
  # the softmax of the linear predictors, one column per class
  eta <- vapply(coef(ref), function(b)
    as.vector(cbind(1, tm_x(new)) %*% b[, 1L]), numeric(nrow(new)))
  p <- exp(eta) / rowSums(exp(eta))
  prob <- predict(wf, new_data = new, type = "prob")
  expect_identical(names(prob), c(".pred_r", ".pred_p", ".pred_q"))
  expect_equal(unname(as.matrix(prob)), unname(p[, c("r", "p", "q")]),
               tolerance = 1e-12)
  cls <- predict(wf, new_data = new)$.pred_class
  expect_identical(as.character(cls), colnames(p)[max.col(p, "first")])
})

test_that("a penalty that is not a single positive number is an error naming it", {
  d <- tm_data()
  expect_error(dpsco_parsnip_fit(tm_x(d), d$y, "gaussian", lambda = c(0.1, 0.01)),
               class = "dpsco_arg_error", regexp = "^`penalty` must be a single")
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = 0), "dpsco")
  expect_error(tm_fit(spec, "y", d, 1), class = "dpsco_arg_error",
               regexp = "^`penalty` must lie in \\(0, Inf\\)")
})

test_that("tidy() of a parsnip fit and a workflow: parsnip's table at the fitted penalty", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("workflows")
  set.seed(4)
  d <- data.frame(a = runif(3000, -1, 1), b = runif(3000, -1, 1),
                  c = runif(3000, -1, 1))
  d$y <- 2 * d$a - d$b + rnorm(3000)
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = 0.02), "dpsco",
                              epsilon = 1, public_n = 3000)
  fit <- withr::with_seed(1, parsnip::fit(spec, y ~ ., data = d))
  tb <- generics::tidy(fit)
  expect_identical(names(tb), c("term", "estimate", "penalty"))
  expect_identical(tb$term, c("(Intercept)", "a", "b", "c"))
  # the coefficients of the same dpsco() fit, at its only penalty
  ref <- withr::with_seed(1, dpsco(as.matrix(d[1:3]), d$y, lambda = 0.02,
                                   epsilon = 1, public_n = 3000))
  expect_equal(tb$estimate, unname(coef(ref)[, 1]))
  expect_equal(unique(tb$penalty), 0.02)
  wf <- workflows::add_model(workflows::add_formula(workflows::workflow(),
                                                    y ~ .), spec)
  wfit <- withr::with_seed(1, parsnip::fit(wf, data = d))
  expect_equal(generics::tidy(wfit), tb)
  # no penalty: the private choice, at lambda.min, with its coefficients
  spec0 <- parsnip::set_engine(parsnip::linear_reg(), "dpsco", epsilon = 1,
                               public_n = 3000, nlambda = 10)
  fit0 <- withr::with_seed(2, parsnip::fit(spec0, y ~ ., data = d))
  t0 <- generics::tidy(fit0)
  expect_identical(names(t0), c("term", "estimate", "penalty"))
  expect_equal(t0$penalty[1], fit0$fit$lambda.min)
  expect_false(anyNA(t0$estimate))
  expect_equal(t0$estimate, unname(coef(fit0$fit)[, 1]))
  # the engine's fit is still a dpsco fit for every other method
  expect_s3_class(fit$fit, "dpsco")
  expect_equal(predict(fit, new_data = d[1:5, ])$.pred,
               unname(predict(ref, as.matrix(d[1:5, 1:3]), type = "response")[, 1]))
})

test_that("poisson_reg() without a penalty fits as cv.dpsco() does on the same data", {
  skip_if_not_installed("parsnip")
  set.seed(3)
  n <- 4000
  d <- data.frame(a = runif(n, -1, 1), b = runif(n, -1, 1))
  d$y <- rpois(n, exp(0.5 + d$a - 0.7 * d$b))
  spec <- parsnip::set_engine(parsnip::poisson_reg(), "dpsco", epsilon = 1,
                              public_n = n, nlambda = 10)
  f <- withr::with_seed(1, parsnip::fit(spec, y ~ ., data = d))
  g <- withr::with_seed(1, cv.dpsco(as.matrix(d[1:2]), d$y, family = "poisson",
                                    epsilon = 1, public_n = n, nlambda = 10))
  expect_equal(coef(f$fit), coef(g))
  expect_equal(f$fit$lambda.min, g$lambda.min)
})
