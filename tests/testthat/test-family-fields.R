# The family object's field table (R/family-fields.R): every family sets
# exactly the table's fields, new_family() refuses an unknown, missing or
# ill-typed field, and the fields that replaced branches on a family's
# name give what glmnet and stats' families give.

every_family <- function()
  list(gaussian = family_gaussian(), binomial = family_binomial(),
       poisson = family_poisson(), multinomial = family_multinomial(3L),
       quantile = family_quantile(0.3, bandwidth = 0.5))

test_that("every family sets the table's required fields and no other", {
  spec <- family_fields()
  required <- names(spec)[vapply(spec, `[[`, NA, "required")]
  expect_true(all(nzchar(vapply(spec, `[[`, "", "doc"))))
  for (f in every_family()) {
    fields <- setdiff(names(f), c("name", "code"))
    expect_setequal(setdiff(fields, names(spec)), character())
    expect_setequal(setdiff(required, fields), character())
  }
  # the flags a constructor leaves out are FALSE
  expect_false(family_gaussian()$multi)
  expect_true(family_multinomial(3L)$multi)
  expect_true(family_poisson()$centre_floor)
  expect_false(family_binomial()$offset_curvature)
})

test_that("new_family() refuses an unknown, a missing or an ill-typed field", {
  f <- family_gaussian()
  args <- unclass(f)[setdiff(names(f), c("name", "code", "multi",
                                         "centre_floor", "offset_curvature"))]
  ok <- do.call(new_family, c(list("gaussian"), args))
  expect_identical(names(ok), names(f))
  expect_error(do.call(new_family, c(list("gaussian"), args, list(colour = 1))),
               "unknown field\\(s\\) colour")
  expect_error(do.call(new_family, c(list("gaussian"), args[names(args) != "loss"])),
               "the field loss is missing")
  bad <- args
  bad$curvature <- "one"
  expect_error(do.call(new_family, c(list("gaussian"), bad)),
               "the field curvature must be of kind number")
  bad <- args
  bad$measures <- NULL
  expect_error(do.call(new_family, c(list("gaussian"), bad, list(measures = NULL))),
               "the field measures must be of kind strings")
})

test_that("assess measures are glmnet's for each family", {
  skip_if_not_installed("glmnet")
  set.seed(4)
  x <- matrix(rnorm(300 * 3), 300, 3)
  ys <- list(gaussian = x[, 1] + rnorm(300),
             binomial = rbinom(300, 1, plogis(x[, 1])),
             poisson = rpois(300, exp(0.3 * x[, 1])),
             multinomial = sample(0:2, 300, TRUE))
  for (fam in names(ys)) {
    g <- glmnet::glmnet(x, ys[[fam]], family = fam, nlambda = 3)
    got <- names(glmnet::assess.glmnet(g, newx = x, newy = ys[[fam]],
                                       family = fam))
    expect_identical(every_family()[[fam]]$assess_measures, got)
  }
})

test_that("record deviances are stats' unit deviances", {
  set.seed(5)
  eta <- matrix(rnorm(40), 20, 2)
  yg <- rnorm(20)
  yb <- rbinom(20, 1, 0.4)
  yp <- rpois(20, 2)
  mu <- function(fam, e) fam$linkinv(e)
  fams <- every_family()
  expect_equal(fams$gaussian$record_deviance(eta, yg),
               matrix(stats::gaussian()$dev.resids(rep(yg, 2), c(eta), 1), 20))
  expect_equal(fams$binomial$record_deviance(eta, yb),
               matrix(stats::binomial()$dev.resids(rep(yb, 2), plogis(c(eta)), 1), 20))
  expect_equal(fams$poisson$record_deviance(eta, yp),
               matrix(stats::poisson()$dev.resids(rep(yp, 2), exp(c(eta)), 1), 20))
})

test_that("the intercept-only linear predictor is glm's beside the offsets", {
  set.seed(6)
  n <- 50
  w <- runif(n, 0.5, 2)
  off <- rnorm(n, 0, 0.3)
  yp <- rpois(n, 3)
  g <- suppressWarnings(glm(yp ~ 1 + offset(off), family = poisson, weights = w))
  expect_equal(drop(family_poisson()$null_eta(yp, w, off)), unname(predict(g)),
               tolerance = 1e-8)
  yb <- rbinom(n, 1, 0.3)
  g <- suppressWarnings(glm(yb ~ 1, family = binomial, weights = w))
  expect_equal(drop(family_binomial()$null_eta(yb, w, NULL)), unname(predict(g)),
               tolerance = 1e-8)
  # multinomial: the log of the weighted class shares
  yk <- sample(0:2, n, TRUE)
  eta <- family_multinomial(3L)$null_eta(yk, w, NULL)
  expect_equal(dim(eta), c(n, 3L, 1L))
  share <- tapply(w, factor(yk, 0:2), sum) / sum(w)
  expect_equal(eta[1, , 1], as.vector(log(share)))
})
