# Which dpsco() arguments each path takes (R/path-args.R): the table
# path_args, the rules path_arg_rules and their one checker
# check_path_args().  The expected messages are built here from
# dpsco_methods(), not from the helpers that build them in the package.

pa_data <- function(n = 100) {
  set.seed(11)
  x <- matrix(stats::rnorm(n * 2), n, 2)
  list(x = x, y = x[, 1] + stats::rnorm(n), n = n,
       ym = factor(sample(c("a", "b", "c"), n, replace = TRUE)))
}

pa_quoted <- function(m) paste0("\"", m, "\"", collapse = ", ")
pa_methods <- function(path) {
  m <- dpsco_methods()
  m$method[m$path == path]
}

# The refusal of an argument the method's path does not take, as the
# user reads it.
pa_lambda_msg <- function(arg, method, verb = "applies")
  sprintf("`%s` %s to the penalised methods (%s), not to the constraint-set method \"%s\".",
          arg, verb, pa_quoted(pa_methods("lambda")), method)
pa_radius_msg <- function(arg, method)
  sprintf("`%s` applies to the methods fitted along radii (%s).", arg,
          pa_quoted(pa_methods("radius")))
pa_lp_msg <- function(arg, method) {
  lp <- Filter(function(m) isTRUE(method_spec(m)$lp), dpsco_methods()$method)
  sprintf("`%s` applies to the methods of an l_p geometry (%s) only.", arg,
          pa_quoted(lp))
}

# One entry per argument that not every method takes: a value that is
# not "unset", the methods that refuse it, one that takes it, and the
# message of the refusal.
pa_expected <- function(n) {
  lam <- function(value, verb = "applies")
    list(value = value, refused = "fw", accepted = "clip",
         msg = function(arg, m) pa_lambda_msg(arg, m, verb))
  list(
    radius = list(value = 1, refused = c("clip", "holland"), accepted = "fw",
                  msg = pa_radius_msg),
    lp = list(value = 1.5, refused = c("clip", "fw"), accepted = "mirror",
              msg = pa_lp_msg),
    lambda = lam(c(1, 0.5)),
    optimizer = lam("spgd"),
    batch_size = lam(10),
    step_size = lam(0.1),
    alpha = lam(0.5),
    penalty.factor = lam(c(1, 2)),
    lower.limits = lam(0, verb = "apply"),
    upper.limits = lam(1, verb = "apply"),
    penalty.scale = lam("glmnet"),
    trace = lam(TRUE),
    lambda.min.ratio = lam(0.01),
    weights = lam(rep(0.5, n), verb = "apply"),
    offset = lam(rep(0.1, n)),
    inference = lam(0.4))
}

expect_refusal <- function(expr, arg, msg, info = NULL) {
  err <- expect_error(expr, class = "dpsco_arg_error", info = info)
  expect_identical(err$arg, arg, info = info)
  expect_identical(conditionMessage(err), msg, info = info)
}

# check_path_args() alone: NULL when every argument applies
pa_check <- function(method, ..., family = "gaussian", x = pa_data()$x)
  check_path_args(method_spec(method), list(x = x, ...),
                  family_object(family, list(nclass = 3L)))

test_that("the table has one row for each argument that not every method takes", {
  d <- pa_data()
  # a row removed from (or added to) path_args fails here as well as below
  expect_setequal(names(path_args), names(pa_expected(d$n)))
  # the unset values and the rows a family with a predictor per class refuses
  unset <- Filter(Negate(is.null), lapply(path_args, `[[`, "unset"))
  expect_identical(unset, list(alpha = list(NULL, 1), trace = list(NULL, FALSE),
                               inference = list(NULL, 0)))
  multi <- names(Filter(function(r) isFALSE(r$multi), path_args))
  expect_setequal(multi, c("trace", "offset", "inference"))
})

test_that("an argument given to a method of the other path is refused with its message", {
  d <- pa_data()
  expected <- pa_expected(d$n)
  for (arg in names(expected)) {
    e <- expected[[arg]]
    for (m in e$refused) {
      info <- paste(arg, "to", m)
      expect_refusal(do.call(dpsco, c(list(d$x, d$y, method = m, epsilon = 1),
                                      stats::setNames(list(e$value), arg))),
                     arg, e$msg(arg, m), info = info)
    }
    # the accepting path's method takes the same value
    expect_null(do.call(pa_check, c(list(e$accepted),
                                    stats::setNames(list(e$value), arg))),
                info = paste(arg, "to", e$accepted))
  }
})

test_that("the unset values pass for every method, and a fit runs with them", {
  d <- pa_data()
  for (m in c("fw", "clip", "mirror")) {
    expect_null(pa_check(m, alpha = 1, trace = FALSE), info = m)
    # NULL is "not given" for every row
    nulls <- stats::setNames(rep(list(NULL), length(path_args)), names(path_args))
    expect_null(do.call(pa_check, c(list(m), nulls)), info = m)
  }
  set.seed(3)
  fit <- dpsco(d$x, d$y, method = "fw", epsilon = 1, alpha = 1, trace = FALSE)
  expect_s3_class(fit, "dpsco_radius")
  # the same values, refused when they are not the unset ones
  expect_refusal(dpsco(d$x, d$y, method = "fw", alpha = 0.99), "alpha",
                 pa_lambda_msg("alpha", "fw"))
})

test_that("a family with one predictor per class refuses the multi = FALSE rows", {
  d <- pa_data()
  given <- list(trace = TRUE, offset = rep(0.1, d$n), inference = 0.4)
  for (arg in names(given)) {
    expect_refusal(do.call(dpsco, c(list(d$x, d$ym, family = "multinomial",
                                         method = "clip", epsilon = 1),
                                    given[arg])),
                   arg, sprintf("`%s` is not available for the multinomial family.", arg),
                   info = arg)
    # a penalised fit of one predictor takes it
    expect_null(do.call(pa_check, c(list("clip"), given[arg])), info = arg)
  }
  # unset, trace = FALSE passes for the multinomial family too
  expect_null(pa_check("clip", trace = FALSE, family = "multinomial"))
})

test_that("the table's rules are the six restrictions tested below", {
  expect_setequal(names(path_arg_rules),
                  c("calibration", "secure", "x", "optimizer", "control",
                    "inference"))
})

test_that("inference needs a family with a score, private tuning and x in memory", {
  d <- pa_data()
  expect_refusal(dpsco(d$x, abs(d$y), family = "quantile", tau = 0.5,
                       inference = TRUE), "inference",
                 paste0("`inference` is not yet available for the quantile ",
                        "family (it is for gaussian, binomial and poisson)."))
  expect_refusal(dpsco(d$x, d$y, tuning = "public", inference = TRUE),
                 "inference", paste0("`inference` needs tuning = \"private\": ",
                                     "the stage's scale and row bound are ",
                                     "private settings."))
  skip_if_not_installed("bigmemory")
  dir <- withr::local_tempdir()
  xb <- bigmemory::as.big.matrix(d$x, type = "double", backingfile = "x.bin",
                                 descriptorfile = "x.desc", backingpath = dir)
  expect_refusal(dpsco(xb, d$y, inference = TRUE), "inference",
                 "`inference` needs x in memory (a matrix or a dgCMatrix).")
  # the penalised methods with private tuning take it
  for (m in c("clip", "holland", "kamath"))
    expect_null(pa_check(m, inference = 0.4), info = m)
})

test_that("calibration = \"paper\" exists for the paper's methods only", {
  d <- pa_data()
  msg <- paste0("`calibration` \"paper\" exists only for the paper's methods ",
                "clip, kamath and holland.")
  for (m in c("prox_clipped_sgd", "fw"))
    expect_refusal(dpsco(d$x, d$y, method = m, calibration = "paper"),
                   "calibration", msg, info = m)
  for (m in c("clip", "kamath", "holland"))
    expect_null(pa_check(m, calibration = "paper", tuning = "public"), info = m)
})

test_that("secure = TRUE refuses what it cannot cover, naming the argument", {
  set.seed(32)
  x <- matrix(stats::rnorm(200), 100, 2)
  y <- stats::rnorm(100)
  expect_error(dpsco(x, y, secure = NA), class = "dpsco_arg_error", regexp = "secure")
  expect_error(dpsco(x, y, secure = TRUE, batch_size = 50),
               class = "dpsco_arg_error", regexp = "batch_size")
  # a method without noise, and one whose noise has no exact sampler
  expect_refusal(dpsco(x, y, secure = TRUE, method = "none"), "secure",
                 "`secure` applies to private fits; method \"none\" adds no noise.")
  m <- dpsco_methods()
  sampler_msg <- function(method)
    paste0("`secure` = TRUE is available for the Gaussian releases of methods ",
           paste(m$method[m$secure], collapse = ", "), "; method \"", method,
           "\" privatises with a mechanism that has no exact sampler here.")
  for (method in c("fw", "prox_clipped_sgd"))
    expect_refusal(dpsco(x, y, secure = TRUE, method = method), "secure",
                   sampler_msg(method), info = method)
  for (method in m$method[m$secure])
    expect_null(pa_check(method, secure = TRUE), info = method)
})

test_that("a file-backed x is refused where the fit needs x in memory", {
  # (test-design.R refuses a real file-backed x end to end; here each
  # case of the rule on an x of the mapped class)
  mapped <- structure(list(), class = "dpsco_mapped")
  tail <- " needs x in memory (a matrix or a dgCMatrix)."
  expect_refusal(pa_check("fw", x = mapped), "x",
                 paste0("`x` is file-backed; the constraint-set method \"fw\"", tail))
  expect_refusal(pa_check("clip", x = mapped, family = "multinomial"), "x",
                 paste0("`x` is file-backed; a multinomial fit", tail))
  expect_null(pa_check("clip", x = mapped))
})

test_that("optimizer: newton needs private tuning, a method running it and a small d", {
  d <- pa_data()
  expect_refusal(dpsco(d$x, d$y, tuning = "public", optimizer = "newton"),
                 "optimizer",
                 "`optimizer` \"newton\" needs the private curvature of tuning = \"private\".")
  expect_refusal(dpsco(d$x, d$y, method = "prox_clipped_sgd", optimizer = "newton"),
                 "optimizer",
                 paste0("`optimizer` \"prox_clipped_sgd\" runs with optimizer = ",
                        "\"spgd\" only; leave optimizer NULL."))
  expect_null(pa_check("prox_clipped_sgd", optimizer = "spgd"))
  expect_null(pa_check("clip", optimizer = "newton", tuning = "private"))
  # d counts the intercept: at the limit passes, one above is refused
  lim <- curvature_max_d()
  wide <- matrix(0, 1, lim)
  expect_null(pa_check("clip", optimizer = "newton", tuning = "private",
                       x = wide, intercept = FALSE))
  expect_refusal(pa_check("clip", optimizer = "newton", tuning = "private",
                          x = wide, intercept = TRUE), "optimizer",
                 sprintf(paste0("`optimizer` \"newton\" releases a d x d curvature ",
                                "matrix; d = %d is above its limit of %d (use ",
                                "\"spgd\", the default there)."), lim + 1L, lim))
})

test_that("control: a fixed output and the shrinkage K are refused where they do not apply", {
  d <- pa_data()
  expect_refusal(dpsco(d$x, d$y, method = "prox_clipped_sgd",
                       control = dpsco_control(output = "average")),
                 "control", "`control` $output: \"prox_clipped_sgd\" returns the last iterate.")
  expect_null(pa_check("prox_clipped_sgd", control = dpsco_control(output = "last")))
  shrinkers <- Filter(function(m) isTRUE(method_spec(m)$shrink),
                      dpsco_methods()$method)
  shrink_msg <- paste0("`control` $shrink (K) applies to ", pa_quoted(shrinkers),
                       ", and to the bounded-data methods with tuning = \"public\".")
  for (m in c("objective", "mirror"))
    expect_refusal(dpsco(d$x, d$y, method = m, tuning = "private",
                         control = dpsco_control(shrink = 2)),
                   "control", shrink_msg, info = m)
  ctl <- dpsco_control(shrink = 2)
  expect_null(pa_check("objective", control = ctl, tuning = "public"))
  for (m in shrinkers)
    expect_null(pa_check(m, control = ctl, tuning = "private"), info = m)
})
