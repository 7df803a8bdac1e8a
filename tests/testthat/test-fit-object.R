# The fit objects (R/fit-object.R), assembled from a hand-made engine
# output and compared with the arithmetic done here.

fo_std <- list(mode = "public", center = c(1, -2), scale = c(2, 4),
               range = NULL)

fo_make <- function(b, std = fo_std, fam = family_object("gaussian"),
                    x = matrix(0, 3, 2, dimnames = list(NULL, c("u", "v"))),
                    classnames = NULL, lambda = c(0.5, 0.1))
  new_dpsco(res = list(beta = b), x = x, lambda = lambda, intercept = TRUE,
            call = quote(dpsco(x, y)), fam = fam, method = "clip",
            classnames = classnames, settings = list(), privacy = list(),
            trace_at = integer(), std = std, nobs = 3L, path = "lambda")

test_that("new_dpsco() returns coefficients on the scale of x, named, with df and dim", {
  # (p + 1) x k: the intercept row first, then one row per column of x
  b <- cbind(c(0.5, 2, 0), c(-1, 0, 8))
  fit <- fo_make(b)
  beta <- cbind(c(2 / 2, 0 / 4), c(0 / 2, 8 / 4))
  a0 <- c(0.5 - (1 * 1 + 0 * -2), -1 - (0 * 1 + 2 * -2))
  expect_s3_class(fit, c("dpsco_lambda", "dpsco"), exact = TRUE)
  expect_identical(fit$beta, matrix(beta, 2, 2, dimnames = list(c("u", "v"),
                                                                 c("s0", "s1"))))
  expect_identical(fit$a0, c(s0 = a0[1], s1 = a0[2]))
  expect_identical(fit$df, c(s0 = 1, s1 = 1))
  expect_identical(fit$dim, c(2L, 2L))
  expect_identical(fit$lambda, c(0.5, 0.1))
  expect_identical(fit$family, "gaussian")
  expect_identical(fit$settings$family_object, family_object("gaussian"))
  expect_identical(fit$standardize, fo_std[c("mode", "center", "scale")])
  # unnamed columns are V1, V2, ...
  fit2 <- fo_make(b, x = matrix(0, 3, 2))
  expect_identical(rownames(fit2$beta), c("V1", "V2"))
})

test_that("non-finite coefficients give the diverged warning", {
  msg <- paste0("the iterates diverged (non-finite coefficients); use a smaller ",
                "step_size or rescale x")
  expect_warning(fo_make(cbind(c(0, Inf, 1), c(0, 1, 1))), msg, fixed = TRUE)
  expect_warning(fo_make(cbind(c(NaN, 1, 1), c(0, 1, 1))), msg, fixed = TRUE)
  expect_no_warning(fo_make(cbind(c(0, 1, 1), c(0, 1, 1))))
})

test_that("the multinomial constructor centres a0 and keeps the class probabilities", {
  # three classes, p = 2, intercept: K (p + 1) rows, one column per lambda
  b <- cbind(c(1, 0.5, 0, -2, 0, 1, 0.3, 0.2, -0.4),
             c(0, 0, 0, 2, 1, 0, -1, 0, 0))
  std <- list(mode = "none", center = c(0, 0), scale = c(1, 1), range = NULL)
  fam <- family_object("multinomial", list(nclass = 3L))
  fit <- fo_make(b, std = std, fam = fam, classnames = c("a", "b", "c"))
  expect_s3_class(fit, c("dpsco_multinomial", "dpsco_lambda", "dpsco"),
                  exact = TRUE)
  expect_identical(dimnames(fit$a0), list(c("a", "b", "c"), c("s0", "s1")))
  expect_equal(unname(colSums(fit$a0)), c(0, 0), tolerance = 1e-15)
  a0_raw <- matrix(b[c(1, 4, 7), ], 3)
  expect_equal(unname(fit$a0), a0_raw - rep(colMeans(a0_raw), each = 3),
               tolerance = 1e-15)
  set.seed(4)
  newx <- matrix(stats::rnorm(10), 5, 2)
  softmax <- function(eta) exp(eta) / rowSums(exp(eta))
  for (l in 1:2) {
    eta_raw <- sapply(0:2, function(k)
      b[3 * k + 1, l] + newx %*% b[3 * k + 2:3, l])
    eta_fit <- sapply(c("a", "b", "c"), function(k)
      fit$a0[k, l] + newx %*% fit$beta[[k]][, l])
    expect_equal(unname(softmax(eta_fit)), softmax(eta_raw), tolerance = 1e-12)
  }
  expect_identical(fit$beta$b, matrix(b[5:6, ], 2, dimnames = list(c("u", "v"),
                                                                   c("s0", "s1"))))
  # df: the features non-zero in any class; dfmat, each class's
  expect_identical(unname(fit$dfmat), rbind(c(1, 0), c(1, 1), c(2, 0)))
  expect_identical(unname(fit$df), c(2, 1))
})

test_that("unstandardize_split() keeps exact zeros, even a negative zero", {
  sp <- list(a0 = c(1, 2), beta = cbind(c(-0, 4), c(6, 0)))
  out <- unstandardize_split(sp, fo_std)
  expect_identical(out$beta, cbind(c(0, 1), c(3, 0)))
  # -0 / 2 would be -0: a zero coefficient comes out as +0
  expect_identical(1 / out$beta[1, 1], Inf)
  expect_identical(out$a0, c(1 - (0 * 1 + 1 * -2), 2 - (3 * 1 + 0 * -2)))
  # without a standardisation the split is returned as it is
  none <- list(mode = "none", center = c(0, 0), scale = c(1, 1))
  expect_identical(unstandardize_split(sp, none), sp)
})

test_that("df counts magnitudes above 1e-10 times the path's largest", {
  # a Frank-Wolfe-like path: coordinates left behind at 1e-15 and 1e-12
  b <- cbind(c(0, 3, 1e-15, 0), c(1, 1e-12, 2e-9, -4), c(0, 0, 0, 0))
  std <- list(mode = "none", center = 0, scale = 1, range = NULL)
  fit <- fo_make(b, std = std,
                 x = matrix(0, 3, 3, dimnames = list(NULL, c("u", "v", "w"))),
                 lambda = c(0.5, 0.1, 0.01))
  tol <- 1e-10 * 4
  expect_identical(nonzero_tol(fit$beta), tol)
  expect_identical(unname(fit$df), unname(colSums(abs(b[-1, ]) > tol)))
  expect_identical(unname(fit$df), c(1, 2, 0))
  # an all-zero path: exact zeros only
  expect_identical(nonzero_tol(matrix(0, 2, 2)), 0)
  # predict(type = "nonzero") agrees with df
  nz <- predict(fit, type = "nonzero")
  expect_identical(lengths(nz), c(1L, 2L, 0L))
  expect_identical(unname(nz[[2]]), c(2L, 3L))
})

test_that("a multinomial path counts non-zeros with one tolerance over the classes", {
  # three classes, p = 2: rows (intercept, u, v) per class
  b <- cbind(c(0, 2, 1e-14, 0, 0, 1e-13, 0, 0, 0),
             c(0, 0, 0, 0, 0, 0, 0, 5e-9, 0))
  std <- list(mode = "none", center = c(0, 0), scale = c(1, 1), range = NULL)
  fam <- family_object("multinomial", list(nclass = 3L))
  fit <- fo_make(b, std = std, fam = fam, classnames = c("a", "b", "c"))
  slopes <- lapply(0:2, function(k) b[3 * k + 2:3, , drop = FALSE])
  tol <- 1e-10 * max(abs(unlist(slopes)))
  ref <- t(vapply(slopes, function(bk) colSums(abs(bk) > tol), numeric(2)))
  expect_identical(unname(fit$dfmat), ref)
  expect_identical(unname(fit$dfmat), rbind(c(1, 0), c(0, 0), c(0, 1)))
  expect_identical(unname(fit$df), c(1, 1))
})
