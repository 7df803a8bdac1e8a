# The method registry: every registered method, with every family it
# supports and a dense and a sparse x, fits and gives coefficients,
# predictions, a plot, a summary and a privacy record whose parts compose to
# the accounted epsilon; what it does not support is a dpsco_arg_error.  The
# methods are read from dpsco_methods() and the families from the registered
# family codes, never typed here; family_data() (helper-data.R) draws each
# family's response.

# epsilon of the exact composition of full-batch Gaussian releases with
# multipliers z (each used `steps` times) at delta: a Gaussian mechanism of
# mu = sqrt(sum(steps / z^2)) (Dong, Roth and Su), solved for epsilon.
gaussian_composition_eps <- function(z, steps, delta) {
  mu <- sqrt(sum(steps / z^2))
  dlt <- function(e) pnorm(-e / mu + mu / 2) - exp(e) * pnorm(-e / mu - mu / 2)
  uniroot(function(e) dlt(e) - delta, c(0, 60), tol = 1e-12)$root
}

# A fit's coefficients as a list of (p + 1) x nlambda matrices: the one of
# a single response, or one a class (multinomial).
coef_blocks <- function(cf) if (is.list(cf)) lapply(cf, as.matrix) else list(as.matrix(cf))

# The linear predictor of the rows of xn at one lambda, from coefficients
# as coef() gives them: n x 1, or n x classes x 1 (multinomial).
link_ref <- function(xn, cf) {
  blocks <- coef_blocks(cf)
  eta <- vapply(blocks, function(b) drop(cbind(1, xn) %*% b), numeric(nrow(xn)))
  dim(eta) <- c(nrow(xn), if (length(blocks) > 1L) c(length(blocks), 1L) else 1L)
  eta
}

methods <- dpsco_methods()

test_that("dpsco_methods() describes every registered method consistently", {
  expect_s3_class(methods, "data.frame")
  expect_identical(anyDuplicated(methods$method), 0L)
  expect_true(all(methods$path %in% c("lambda", "radius")))
  for (i in seq_len(nrow(methods))) {
    spec <- method_spec(methods$method[i])
    expect_true(all(spec$families %in% names(family_codes)), info = spec$name)
    # every control field a method names is a field of dpsco_control()
    expect_true(all(spec$control %in% names(formals(dpsco_control))), info = spec$name)
    expect_true(nzchar(spec$label) && nzchar(spec$reference), info = spec$name)
  }
  # the paper's three oracles are there, with their traits
  expect_true(all(c("clip", "kamath", "holland") %in% methods$method))
  expect_identical(methods$secure[methods$method == "fw"], FALSE)
  expect_identical(methods$adjacency[methods$method == "objective"], "replace-one")
})

test_that("every method fits every family it supports, dense and sparse", {
  skip_if_not_installed("Matrix")
  for (i in seq_len(nrow(methods))) {
    m <- methods$method[i]
    spec <- method_spec(m)
    for (family in names(family_codes)) {
      d <- family_data(family)
      if (!family %in% spec$families) {
        expect_error(dpsco(d$x, d$y, family = family, method = m),
                     class = "dpsco_arg_error", regexp = "family", info = m)
        next
      }
      for (sparse in c(FALSE, TRUE)) {
        info <- paste(m, family, if (sparse) "sparse" else "dense")
        xx <- if (sparse) Matrix::Matrix(d$x, sparse = TRUE) else d$x
        set.seed(2)
        fit <- suppressWarnings(dpsco(xx, d$y, family = family, method = m,
                                      epsilon = 2, nlambda = 3))
        expect_s3_class(fit, paste0("dpsco_", spec$path))
        path <- fit[[spec$path]]
        expect_length(path, 3)
        for (cf in coef_blocks(coef(fit))) {
          expect_identical(dim(cf), c(5L, 3L), info = info)
          expect_true(all(is.finite(cf)), info = info)
        }
        # predictions are the linear predictor of the clamped new data
        xn <- d$x[1:5, ]
        if (!is.null(fit$x_range))
          xn <- pmin(pmax(xn, rep(fit$x_range[1, ], each = 5)),
                     rep(fit$x_range[2, ], each = 5))
        expect_equal(unname(predict(fit, d$x[1:5, ], s = path[2], type = "link")),
                     unname(link_ref(xn, coef(fit, s = path[2]))),
                     tolerance = 1e-10, info = info)
        expect_match(paste(capture.output(print(fit)), collapse = "\n"),
                     spec$label, fixed = TRUE, info = info)
        expect_s3_class(summary(fit), "summary.dpsco")
        pdf(NULL)
        expect_silent(plot(fit))
        dev.off()
        pr <- privacy(fit)
        if (!method_private(spec)) {
          expect_false(pr$private, info = info)
          next
        }
        # the record's parts compose to its accounted epsilon, within the
        # target: exactly as Gaussian mechanisms compose when they all are
        # full-batch Gaussian releases; otherwise at least any part alone at
        # the whole delta
        sh <- pr$shares
        expect_lte(pr$epsilon_accounted, 2 * (1 + 1e-6))
        if (all(sh$kind == "gaussian") && all(sh$sample_rate == 1)) {
          expect_equal(pr$epsilon_accounted,
                       gaussian_composition_eps(sh$noise_multiplier, sh$steps,
                                                pr$delta),
                       tolerance = 1e-6, info = info)
        } else {
          at_delta <- sh$part %in% names(default_shares)
          if (any(at_delta))
            expect_gte(pr$epsilon_accounted,
                       max(sh$epsilon_alone[at_delta]) * (1 - 1e-9))
        }
      }
    }
  }
})

test_that("a control field the method does not read is an error naming it", {
  d <- family_data("gaussian")
  fields <- names(formals(dpsco_control))
  common <- common_control
  for (m in methods$method) {
    spec <- method_spec(m)
    unused <- setdiff(fields, c(common, spec$control, "tau"))
    expect_gt(length(unused), 0)
    ctl <- do.call(dpsco_control, stats::setNames(
      list(formals(dpsco_control)[[unused[1]]] %||% 1), unused[1]))
    err <- expect_error(dpsco(d$x, d$y, method = m, control = ctl),
                        class = "dpsco_arg_error", info = m)
    expect_match(conditionMessage(err), unused[1], fixed = TRUE, info = m)
    expect_match(conditionMessage(err), m, fixed = TRUE, info = m)
  }
  # the colliding names: tau is the quantile level, Holland's bound is
  # moment_bound; clipped_sgd's ridge is sgd_ridge
  expect_warning(ctl <- dpsco_control(tau = 2), "moment_bound")
  expect_identical(ctl$moment_bound, 2)
  set.seed(3)
  a <- dpsco(d$x, d$y, method = "holland", tuning = "public", epsilon = 2,
             nlambda = 2, iterations = 3, control = dpsco_control(moment_bound = 2))
  set.seed(3)
  b <- suppressWarnings(dpsco(d$x, d$y, method = "holland", tuning = "public",
                              epsilon = 2, nlambda = 2, iterations = 3,
                              control = dpsco_control(tau = 2)))
  expect_identical(a$beta, b$beta)
  expect_false(identical(a$settings$s, dpsco(d$x, d$y, method = "holland",
                                             tuning = "public", nlambda = 2,
                                             iterations = 3, epsilon = 2)$settings$s))
  set.seed(4)
  a <- dpsco(d$x, d$y, method = "clipped_sgd", radius = 1, epsilon = 2,
             control = dpsco_control(sgd_ridge = 0.5))
  set.seed(4)
  expect_warning(b <- dpsco(d$x, d$y, method = "clipped_sgd", radius = 1,
                            epsilon = 2,
                            control = dpsco_control(strong_convexity = 0.5)),
                 "sgd_ridge")
  expect_identical(a$beta, b$beta)
  expect_identical(a$settings$ridge, 0.5)
})

test_that("register_method() enforces the trait table", {
  traits <- method_traits
  reg <- function(..., fit = function(prob, path, settings) NULL)
    register_method("trait_test", label = "a", reference = "b",
                            path = "radius", families = "gaussian",
                            adjacency = "add/remove", sampling = "c",
                            fit = fit, ...)
  # a misspelt or unknown trait is an error naming it, not a silent default
  expect_error(reg(bounde = TRUE), "unknown trait `bounde`")
  expect_error(reg(cv = TRUE), "unknown trait `cv`")
  expect_error(reg(bounded = "yes"), "trait `bounded` fails its check")
  expect_error(reg(shardable = FALSE), "trait `shardable` fails its check")
  expect_error(register_method("trait_test", label = "a"),
               "trait `reference` is required")
  # one fit() signature for both paths
  expect_error(reg(fit = function(prob, radius, budget, control, steps) NULL),
               "trait `fit` fails its check")
  expect_false(exists("trait_test", envir = method_registry))
  for (m in methods$method) {
    spec <- method_spec(m)
    # every trait is there, the declared or the default value, and passes
    # its check
    expect_setequal(names(spec), names(traits))
    for (t in names(traits))
      expect_true(traits[[t]]$check(spec[[t]]), info = paste(m, t))
    expect_identical(names(formals(spec$fit)), c("prob", "path", "settings"))
  }
})

test_that("the shardable trait decides which methods run on sharded data", {
  expect_identical(methods$method[methods$shardable],
                   c("clip", "holland", "kamath"))
  # dpsco_methods() says why the others cannot (their trait's reason)
  expect_true(all(is.na(methods$shard_note[methods$shardable])))
  expect_identical(methods$shard_note[!methods$shardable],
                   vapply(methods$method[!methods$shardable], function(m)
                     method_spec(m)$shardable, "", USE.NAMES = FALSE))
  expect_identical(methods$shard_note[methods$method == "fw"],
                   "the constraint-set methods run their own loops over the records")
  for (m in methods$method[!methods$shardable]) {
    reason <- method_spec(m)$shardable
    expect_true(is.character(reason) && nzchar(reason), info = m)
    expect_identical(methods$shard_note[methods$method == m], reason)
    err <- expect_error(shard_check_method(method_spec(m)),
                        class = "dpsco_arg_error", info = m)
    expect_match(conditionMessage(err),
                 paste0("\"", m, "\" cannot be fitted on sharded data: ",
                        reason, "; use \"clip\", \"holland\" or \"kamath\"."),
                 fixed = TRUE, info = m)
  }
})

test_that("secure noise and cv.dpsco() follow the registry's traits", {
  # (the shuffled mirror descent needs n > 16 log(4 / delta) per part)
  d <- family_data("gaussian", n = 600)
  for (m in methods$method[!methods$secure]) {
    expect_error(dpsco(d$x, d$y, method = m, secure = TRUE),
                 class = "dpsco_arg_error", regexp = "secure", info = m)
  }
  for (m in methods$method[methods$secure]) {
    fit <- dpsco(d$x, d$y, method = m, secure = TRUE, epsilon = 2, nlambda = 2)
    expect_identical(fit$settings$secure, TRUE)
  }
  # every method is chosen along its path by cv.dpsco()
  for (m in methods$method) {
    set.seed(5)
    # (sample_aggregate's blocks need epsilon 3 at this size)
    cv <- suppressWarnings(cv.dpsco(d$x, d$y, method = m,
                                    epsilon = if (m == "sample_aggregate") 3 else 2,
                                    nlambda = 3))
    path <- method_spec(m)$path
    expect_true(cv[[paste0(path, ".min")]] %in% cv[[path]], info = m)
  }
})
