# Sparse (dgCMatrix) and file-backed (bigmemory) x against the dense fit of
# the same data and seed, which is the independent reference: the dense
# pass and the dense R statistics are separate code from the CSR pass, the
# mapped reader and the block statistics.

# Heavy-tailed data with 70% zeros and a few values of 1e4, which put
# Holland's contributions beyond the table's exact cubic region.
design_data <- function(n = 300, p = 11, family = "gaussian") {
  set.seed(7)
  x <- matrix(stats::rt(n * p, df = 1.5), n, p)
  x[stats::runif(n * p) < 0.7] <- 0
  x[sample(n * p, 5)] <- 1e4
  x[, 3] <- 0  # an empty column
  x[7, ] <- 0  # and an empty record
  colnames(x) <- paste0("f", seq_len(p))
  eta <- drop(x[, 1:3] %*% c(1, -1, 0.5)) / 10
  y <- switch(family, binomial = as.double(stats::runif(n) < stats::plogis(eta)),
              eta + stats::rt(n, df = 2))
  list(x = x, y = y)
}

# A file-backed big.matrix holding x, in a directory removed with the
# calling test.
filebacked <- function(x, env = parent.frame()) {
  skip_on_os("windows")  # no memory mapping there (an argument error)
  dir <- tempfile("bm")
  dir.create(dir)
  withr::defer(unlink(dir, recursive = TRUE), envir = env)
  bigmemory::as.big.matrix(x, type = "double", backingfile = "x.bin",
                           descriptorfile = "x.desc", backingpath = dir)
}

# The fit's numbers after the same seed for each form of x.
fits_by_form <- function(forms, seed, ...) {
  lapply(forms, function(x) {
    set.seed(seed)
    fit <- dpsco(x, ...)
    # beta: the engine's path, before the support rule; support: after it
    list(beta = if (is.null(fit$support)) fit$beta else fit$support$beta_raw,
         support = fit$beta, a0 = fit$a0, lambda = fit$lambda,
         privacy = fit$privacy$released)
  })
}

# Bit for bit where the compiler keeps the dense loop's operations
# (x86-64: no contraction into fused multiply-adds), else to 1e-12.
expect_same_fit <- function(a, b) {
  if (R.version$arch %in% c("x86_64", "amd64")) expect_identical(a, b)
  else expect_equal(a, b, tolerance = 1e-12)
}

test_that("sparse and file-backed x give the dense fit for every oracle and optimiser", {
  skip_if_not_installed("Matrix")
  skip_if_not_installed("bigmemory")
  # under memcheck one family: the record layouts do not depend on it
  for (family in if (memcheck()) "gaussian" else c("gaussian", "binomial")) {
    d <- design_data(family = family)
    forms <- list(dense = d$x, sparse = methods::as(d$x, "CsparseMatrix"),
                  mapped = filebacked(d$x))
    cases <- list(
      list(method = "clip"),                                  # newton
      list(method = "kamath", optimizer = "spgd", batch_size = 150),
      list(method = "holland", optimizer = "spgd", batch_size = 100),
      list(method = "holland", tuning = "public", iterations = 4),
      list(method = "kamath", tuning = "public", iterations = 4,
           batch_size = 120, threads = 1),
      list(method = "prox_clipped_sgd", batch_size = 50),
      list(method = "none", tuning = "public", iterations = 3,
           intercept = FALSE))
    # under memcheck each oracle once on each layout (private settings,
    # Newton and SPGD, the disjoint blocks): the public variants repeat
    # the same record readers
    if (memcheck()) cases <- cases[c(1, 2, 3, 6)]
    for (cs in cases) {
      f <- do.call(fits_by_form, c(list(forms, 11, y = d$y, family = family,
                                        nlambda = 3, epsilon = 2), cs))
      expect_true(all(is.finite(f$dense$beta)))
      expect_gt(sum(f$dense$beta != 0), 0)
      expect_same_fit(f$sparse, f$dense)
      expect_same_fit(f$mapped, f$dense)
    }
  }
})

test_that("Holland's far region and the quantile family read the same values", {
  skip_if_not_installed("Matrix")
  skip_if_not_installed("bigmemory")
  d <- design_data()
  xs <- methods::as(d$x, "CsparseMatrix")
  # public settings: the scale s is the paper's, and |r x / s| reaches the
  # values of 1e4, far beyond the exact cubic region
  f <- fits_by_form(list(d$x, xs, filebacked(d$x)), 3, y = d$y,
                    method = "holland", tuning = "public", iterations = 3,
                    nlambda = 2, control = dpsco_control(s = 0.05))
  expect_same_fit(f[[2]], f[[1]])
  expect_same_fit(f[[3]], f[[1]])
  # nu so small that no table is built: the exact contributions
  e <- fits_by_form(list(d$x, xs, filebacked(d$x)), 3, y = d$y,
                    method = "holland", tuning = "public", iterations = 2,
                    nlambda = 2, control = dpsco_control(s = 0.05, nu = 1e-6))
  expect_false(identical(e[[1]]$beta, f[[1]]$beta))
  expect_same_fit(e[[2]], e[[1]])
  expect_same_fit(e[[3]], e[[1]])
  q <- fits_by_form(list(d$x, xs), 5, y = d$y, family = "quantile",
                    tau = 0.7, nlambda = 2)
  expect_same_fit(q[[2]], q[[1]])
})

test_that("a sparse x is not densified by the fit", {
  skip_if_not_installed("Matrix")
  # 4e4 x 4e4 would be 12.8 GB dense; its 4e4 non-zeros take 0.5 MB
  n <- 40000
  set.seed(1)
  xs <- Matrix::sparseMatrix(i = seq_len(n), j = sample(n), x = stats::rnorm(n),
                             dims = c(n, n))
  y <- stats::rnorm(n)
  fit <- dpsco(xs, y, method = "clip", tuning = "public", iterations = 2,
               nlambda = 1, epsilon = 1, control = dpsco_control(clip = 1))
  expect_identical(dim(fit$beta), c(as.integer(n), 1L))
  expect_equal(fit$nobs, n)
})

test_that("predictions from sparse and file-backed newx equal the dense ones", {
  skip_if_not_installed("Matrix")
  skip_if_not_installed("bigmemory")
  d <- design_data()
  set.seed(2)
  fit <- dpsco(d$x, d$y, nlambda = 3)
  expect_false(is.null(fit$x_range))  # private bounds: newx is clamped
  ref <- predict(fit, d$x)
  expect_identical(predict(fit, methods::as(d$x, "CsparseMatrix")), ref)
  expect_identical(predict(fit, filebacked(d$x)), ref)
  # the clamp and the product by hand
  xc <- pmin(pmax(d$x, rep(fit$x_range[1, ], each = nrow(d$x))),
             rep(fit$x_range[2, ], each = nrow(d$x)))
  expect_equal(unname(ref), unname(xc %*% fit$beta +
                                     rep(fit$a0, each = nrow(d$x))),
               tolerance = 1e-12)
})

test_that("the mapped reader returns the stored rows, clamped by the bound", {
  skip_if_not_installed("bigmemory")
  d <- design_data(n = 50, p = 4)
  xm <- check_design(filebacked(d$x))
  expect_identical(dim(xm), c(50L, 4L))
  expect_identical(colnames(xm), colnames(d$x))
  expect_identical(design_rows(xm, 11, 20), d$x[11:20, ])
  b <- c(0.5, 2, 1, 4)
  xb <- scale_clamp(xm, b)
  expect_identical(design_rows(xb, 1, 50),
                   pmin(pmax(d$x / rep(b, each = 50), -1), 1))
  # block statistics over several blocks equal the one-block sums
  xs <- methods::as(d$x, "CsparseMatrix")
  withr::local_options(dpsco.block_values = 7 * 4)
  expect_equal(design_row_ss(xs), rowSums(d$x^2), tolerance = 1e-15)
  w <- stats::runif(50)
  expect_equal(design_gram(xm, w, TRUE), crossprod(cbind(1, d$x) * w),
               tolerance = 1e-14, ignore_attr = TRUE)
  expect_equal(design_crossprod(xs, d$y), drop(crossprod(d$x, d$y)),
               tolerance = 1e-14, ignore_attr = TRUE)
  expect_identical(design_columns(xm, c(2, 4)), d$x[, c(2, 4)])
})

test_that("a view of some rows of a mapped x reads, sums and fits as those rows in memory", {
  skip_if_not_installed("bigmemory")
  # several blocks of rows, so that the blocks of the view are its own
  withr::local_options(dpsco.block_values = 300 * 7)
  set.seed(5)
  n <- 2000
  p <- 7
  x <- matrix(stats::rt(n * p, df = 2), n, p)
  colnames(x) <- paste0("f", seq_len(p))
  x[1:40, 2] <- 0
  y <- drop(x[, 1:2] %*% c(1, -1)) + stats::rnorm(n)
  keep <- stats::runif(n) < 0.6
  xk <- x[keep, , drop = FALSE]
  v <- check_design(filebacked(x))[keep, , drop = FALSE]
  expect_true(is_mapped(v))
  expect_identical(dim(v), dim(xk))
  expect_identical(design_rows(v, 1, nrow(xk)), xk)
  # a view of a view, and by positions
  expect_identical(design_rows(v[c(3, 10:20), ], 1, 12), xk[c(3, 10:20), ])
  # the settings' passes over the view: those over x[keep, ] (bit for bit;
  # test above: the dense passes are R's block statistics)
  bound <- 2^stats::runif(p, -1, 1)
  r <- stats::rt(nrow(xk), df = 2)
  w <- stats::runif(nrow(xk))
  for (th in 1:2) {
    withr::local_options(dpsco.threads = th)
    vt <- scale_clamp(v, bound)
    kt <- scale_clamp(xk, bound)
    expect_identical(design_octaves(v), design_octaves(xk))
    expect_identical(design_octaves(vt), design_octaves(kt))
    expect_identical(design_row_stats(vt, TRUE, r, FALSE, TRUE),
                     design_row_stats(kt, TRUE, r, FALSE, TRUE))
    expect_identical(design_row_stats(vt, FALSE, r, TRUE, FALSE),
                     design_row_stats(kt, FALSE, r, TRUE, FALSE))
    expect_identical(design_gram(vt, w, TRUE), design_gram(kt, w, TRUE))
    # a subsample of the view (the private settings' rows of a training
    # part): its listed rows of the view's list of file rows
    sr <- sort(sample.int(nrow(xk), 300)) - 1L
    expect_identical(design_octaves(vt, sr), design_octaves(kt[sr + 1L, ]))
    expect_identical(design_row_stats(vt, TRUE, r[sr + 1L], FALSE, TRUE, sr),
                     design_row_stats(kt[sr + 1L, ], TRUE, r[sr + 1L],
                                      FALSE, TRUE))
    expect_identical(design_gram(vt, w[sr + 1L], TRUE, sr),
                     design_gram(kt[sr + 1L, ], w[sr + 1L], TRUE))
  }
  # the engine's passes over the view (its records read through the list)
  cases <- list(list(method = "clip"),
                list(method = "kamath", optimizer = "spgd", batch_size = 300),
                list(method = "holland", tuning = "public", iterations = 4))
  for (cs in cases) {
    f <- do.call(fits_by_form, c(list(list(xk, v), 4, y = y[keep],
                                      nlambda = 3), cs))
    expect_same_fit(f[[2]], f[[1]])
  }
})

test_that("cv.dpsco() of a file-backed x gives the in-memory cv.dpsco()", {
  skip_if_not_installed("bigmemory")
  d <- design_data(n = 600, p = 6)
  xm <- filebacked(d$x)
  w <- withr::with_seed(3, stats::runif(600))
  off <- withr::with_seed(4, stats::rnorm(600, 0, 0.3))
  yp <- withr::with_seed(5, stats::rpois(600, exp(off)))
  cases <- list(
    list(y = d$y, method = "clip", curve = 0.5),
    list(y = d$y, method = "kamath", optimizer = "spgd", batch_size = 200,
         curve = 0.3),
    list(y = as.double(d$y > 0), family = "binomial", method = "holland"),
    list(y = yp, family = "poisson", weights = w, offset = off, curve = 0.5),
    list(y = d$y, method = "prox_clipped_sgd", batch_size = 100))
  # one block of rows (the predictions in one piece), and blocks of 37
  # rows (the validation part predicted and summed block by block)
  for (values in c(2^21, 37 * 6)) for (cs in cases) {
    withr::local_options(dpsco.block_values = values)
    cv_of <- function(x) {
      set.seed(12)
      do.call(cv.dpsco, c(list(x, nlambda = 4), cs))
    }
    a <- cv_of(d$x)
    b <- cv_of(xm)
    info <- paste(cs$method, cs$family, values)
    expect_identical(b$index, a$index, info = info)
    expect_identical(b$lambda, a$lambda, info = info)
    expect_identical(coef(b), coef(a), info = info)
    expect_identical(b$privacy, a$privacy, info = info)
    # the sums of the validation losses: by blocks, to rounding
    expect_equal(b$cvm_noisy, a$cvm_noisy, tolerance = 1e-12, info = info)
    expect_equal(b$cvm, a$cvm, tolerance = 1e-12, info = info)
    if (values == 2^21)
      expect_identical(b$cvm_noisy, a$cvm_noisy, info = info)
  }
  # with subsampled settings (forced at this n): the training part's
  # subsample is read through the view's rows of the file
  withr::local_options(dpsco.settings_subsample = 150)
  cv_of <- function(x) {
    set.seed(12)
    cv.dpsco(x, d$y, nlambda = 4, curve = 0.5)
  }
  a <- cv_of(d$x)
  b <- cv_of(xm)
  expect_lt(privacy(a$dpsco.fit)$shares$sample_rate[1L], 1)
  expect_identical(b$index, a$index)
  expect_identical(coef(b), coef(a))
  expect_identical(b$privacy, a$privacy)
  expect_equal(b$cvm, a$cvm, tolerance = 1e-12)
})

test_that("the private settings' passes equal R's block statistics on every layout and thread count", {
  skip_if_not_installed("Matrix")
  skip_if_not_installed("bigmemory")
  # 5000 x 24 values: enough for the passes to use threads; blocks of 700
  # rows, so that the block order of the sums matters
  withr::local_options(dpsco.block_values = 700 * 24)
  set.seed(11)
  n <- 5000
  p <- 24
  x <- matrix(stats::rt(n * p, df = 1.5) * 2^stats::runif(n * p, -40, 40), n, p)
  # mostly zeros in the first half of the rows (the gram's sparse route),
  # few in the second (its dense route)
  x[cbind(rep(1:2500, p), rep(seq_len(p), each = 2500))][
    stats::runif(2500 * p) < 0.8] <- 0
  x[, 5] <- 0
  x[9, ] <- 0
  # just above a power of two, where log2() rounds to the power's
  # exponent, and the powers themselves (the edges of the bins)
  x[10:11, 1:4] <- rep(2^c(20, -20, 5, 30), each = 2) * c(1 + 2^-52, 1)
  bound <- 2^stats::runif(p, -3, 3)
  r <- stats::rt(n, df = 2)
  w <- pmin(1, stats::runif(n, 0, 2))
  # the R computations the passes replace (R/design.R's block statistics)
  # octave counts of each column: bin 1 for |v| <= 2^-32, bin b for
  # (2^(b - 34), 2^(b - 33)], bin 64 above 2^30
  octaves <- function(v) vapply(1:64, function(b)
    sum(abs(v) > (if (b == 1) -1 else 2^(b - 34)) &
          (b == 64 | abs(v) <= 2^(b - 33))), 0L)
  ref_oct <- apply(x, 2, octaves)
  xt <- pmin(pmax(x / rep(bound, each = n), -1), 1)
  ref_oct_t <- apply(xt, 2, octaves)
  ref_ss <- design_apply(xt, function(b, rows) rowSums(b * b), "c")
  norm <- sqrt(ref_ss + 1)
  ref_counts <- cbind(tabulate(log2_bin(abs(r) * norm), 64L),
                      tabulate(log2_bin(norm), 64L))
  cnorm <- pmax(1, apply(abs(xt), 1L, max))
  ref_gram <- design_apply(xt, function(b, rows)
    crossprod(cbind(rep(1, nrow(b)), b) * w[rows]))
  expect_identical(scale_clamp(x, bound), xt)
  forms <- list(dense = x, sparse = check_design(
                  methods::as(x, "CsparseMatrix")),
                mapped = check_design(filebacked(x)))
  res <- list()
  for (th in 1:2) for (k in names(forms)) {
    withr::local_options(dpsco.threads = th)
    f <- forms[[k]]
    ft <- scale_clamp(f, bound)
    rs <- design_row_stats(ft, TRUE, r, FALSE, TRUE)
    res[[paste(k, th)]] <- list(
      oct = design_octaves(f), oct_t = design_octaves(ft),
      rows = rs, coord = design_row_stats(ft, TRUE, r, TRUE, FALSE),
      gram = design_gram(ft, w, TRUE))
  }
  # every layout and thread count: the same sums, bit for bit
  for (k in names(res)[-1]) expect_identical(res[[k]], res[[1]], label = k)
  a <- res[[1]]
  # colSums() per block and rowSums() sum in long double, as the passes do
  expect_identical(unname(a$oct), ref_oct)
  expect_identical(unname(a$oct_t), ref_oct_t)
  expect_identical(colSums(a$oct), rep(n, p))
  expect_identical(a$oct[1, 5], as.integer(n))      # the zero column
  expect_identical(a$rows$ss, ref_ss)
  expect_identical(a$rows$norm, norm)
  expect_identical(a$rows$counts, ref_counts)
  expect_identical(a$coord$counts,
                   matrix(tabulate(log2_bin(abs(r) * cnorm), 64L)))
  # crossprod() goes through the BLAS, whose order of summation is its own:
  # equal to rounding (bit for bit with the reference BLAS)
  expect_equal(a$gram, ref_gram, tolerance = 1e-14, ignore_attr = TRUE)
  expect_identical(a$gram, t(a$gram))
  # without the intercept
  expect_equal(design_gram(xt, w, FALSE),
               design_apply(xt, function(b, rows) crossprod(b * w[rows])),
               tolerance = 1e-14, ignore_attr = TRUE)
})

test_that("bad sparse and big.matrix inputs are argument errors", {
  skip_if_not_installed("Matrix")
  skip_if_not_installed("bigmemory")
  d <- design_data(n = 40, p = 3)
  xs <- methods::as(d$x, "CsparseMatrix")
  xs@x[2] <- NA
  e <- expect_error(dpsco(xs, d$y), class = "dpsco_arg_error")
  expect_identical(e$arg, "x")
  expect_match(conditionMessage(e), "NA, NaN or infinite")
  skip_on_os("windows")
  dir <- tempfile("bm")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  xi <- bigmemory::filebacked.big.matrix(40, 3, type = "integer",
                                         backingfile = "i.bin",
                                         descriptorfile = "i.desc",
                                         backingpath = dir)
  e <- expect_error(dpsco(xi, d$y), class = "dpsco_arg_error")
  expect_match(conditionMessage(e), "type \"integer\"")
  xn <- d$x
  xn[5, 2] <- Inf
  e <- expect_error(dpsco(filebacked(xn), d$y), class = "dpsco_arg_error")
  expect_match(conditionMessage(e), "infinite")
  xm <- filebacked(d$x)
  e <- expect_error(dpsco(bigmemory::sub.big.matrix(xm, firstRow = 2), d$y[-1]),
                    class = "dpsco_arg_error")
  expect_match(conditionMessage(e), "sub.big.matrix")
  e <- expect_error(dpsco(xm, d$y, standardize = TRUE),
                    class = "dpsco_arg_error")
  expect_identical(e$arg, "standardize")
  e <- expect_error(dpsco(xm, d$y, method = "fw"), class = "dpsco_arg_error")
  expect_identical(e$arg, "x")
  e <- expect_error(cv.dpsco(xm, d$y, method = "fw"),
                    class = "dpsco_arg_error")
  expect_identical(e$arg, "x")
  e <- expect_error(cv.dpsco(xm, d$y, relax = TRUE),
                    class = "dpsco_arg_error")
  expect_identical(e$arg, "inference")
  e <- expect_error(dpsco(xm, d$y[-1]), class = "dpsco_arg_error")
  expect_identical(e$arg, "y")
})

test_that("an in-memory big.matrix and the methods that densify give the dense fit", {
  skip_if_not_installed("Matrix")
  skip_if_not_installed("bigmemory")
  d <- design_data(n = 120, p = 4)
  f <- fits_by_form(list(d$x, bigmemory::as.big.matrix(d$x)), 9, y = d$y,
                    nlambda = 2)
  expect_identical(f[[2]], f[[1]])
  # the constraint-set methods and standardisation take a sparse x dense
  xs <- methods::as(d$x, "CsparseMatrix")
  for (a in list(list(method = "fw", radius = c(1, 2)),
                 list(standardize = "private", nlambda = 2))) {
    g <- do.call(fits_by_form, c(list(list(d$x, xs), 4, y = d$y), a))
    expect_identical(g[[2]], g[[1]])
  }
})

test_that("a dense x with few non-zeros, stored sparse, gives the row-major fit", {
  # 90% zeros: the engine keeps the non-zeros only (at most 20% by
  # default); options(dpsco.sparse_density = 0) keeps every value
  d <- design_data()
  d$x[stats::runif(length(d$x)) < 0.7] <- 0
  expect_lt(mean(d$x != 0), 0.2)
  cases <- list(
    list(method = "clip"),
    list(method = "kamath", optimizer = "spgd", batch_size = 150),
    list(method = "holland", tuning = "public", iterations = 4,
         control = dpsco_control(s = 0.05)),
    list(method = "mirror", lp = 1.5, radius = c(1, 4)),
    list(method = "fw", radius = c(1, 4)),
    list(method = "acsa", radius = c(1, 4)),
    list(method = "prox_clipped_sgd", batch_size = 50))
  for (cs in cases) {
    run <- function(density) withr::with_options(
      list(dpsco.sparse_density = density),
      do.call(fits_by_form, c(list(list(d$x), 14, y = d$y, epsilon = 2), cs)))
    rows <- run(0)[[1]]
    expect_true(all(is.finite(rows$beta)))
    expect_gt(sum(rows$beta != 0), 0)
    expect_same_fit(run(0.2)[[1]], rows)
  }
})

test_that("the mapped norms of records with extreme values equal the dense ones", {
  skip_if_not_installed("bigmemory")
  # records whose largest value is beyond 1e140 or below 1e-140 take the
  # scaled sum of squares (records.c), which the column-wise pre-pass
  # leaves to a row-wise evaluation
  d <- design_data(n = 60, p = 5)
  d$x[3, ] <- c(1e160, -2e159, 0, 1, 0)  # its square overflows
  d$x[4, ] <- c(1e-150, 0, -3e-150, 0, 0)
  f <- fits_by_form(list(d$x, filebacked(d$x)), 8, y = d$y, method = "clip",
                    tuning = "public", iterations = 2, lambda = 1e-6,
                    control = dpsco_control(clip = 1, support = "none"))
  expect_true(all(is.finite(f[[1]]$beta)))
  expect_gt(abs(f[[1]]$beta[1, 1]), 1e-3)  # record 3 moves it
  expect_same_fit(f[[2]], f[[1]])
  xn <- d$x
  xn[60, 5] <- NaN
  expect_error(dpsco(filebacked(xn), d$y), class = "dpsco_arg_error")
})

test_that("weights and offsets travel with their records on every layout", {
  skip_if_not_installed("Matrix")
  skip_if_not_installed("bigmemory")
  d <- design_data()
  set.seed(3)
  w <- stats::runif(nrow(d$x))
  off <- stats::rnorm(nrow(d$x), sd = 0.3)
  forms <- list(dense = d$x, sparse = methods::as(d$x, "CsparseMatrix"),
                mapped = filebacked(d$x))
  for (cs in list(list(method = "clip"),
                  list(method = "kamath", optimizer = "spgd", batch_size = 150),
                  list(method = "none", tuning = "public", iterations = 3))) {
    f <- do.call(fits_by_form, c(list(forms, 11, y = d$y, nlambda = 3,
                                      epsilon = 2, weights = w, offset = off),
                                 cs))
    expect_true(all(is.finite(f$dense$beta)))
    expect_same_fit(f$sparse, f$dense)
    expect_same_fit(f$mapped, f$dense)
  }
})

test_that("the settings passes over a subsample's rows are the passes over x[rows + 1, ] in every form", {
  skip_if_not_installed("bigmemory")
  set.seed(11)
  n <- 3000
  x <- matrix(rt(n * 6, df = 3), n, 6)
  x[sample(length(x), 9000)] <- 0
  x[1:40, 2] <- 1e-12                        # the first octave bin
  set.seed(12)
  rows <- settings_rows(x, list(q = 0.2))
  # the coins: Poisson, increasing 0-based indices from R's generator
  expect_type(rows, "integer")
  expect_false(is.unsorted(rows, strictly = TRUE))
  expect_true(all(rows >= 0 & rows < n))
  set.seed(12)
  expect_identical(settings_rows(x, list(q = 0.2)), rows)
  # the same coins in R: geometric gaps floor(E / -log(1 - q)), E ~ Exp(1)
  set.seed(12)
  ref <- integer()
  cur <- -1
  repeat {
    cur <- cur + 1 + floor(stats::rexp(1) / -log1p(-0.2))
    if (cur >= n) break
    ref <- c(ref, as.integer(cur))
  }
  expect_identical(rows, ref)
  # (more than one chunk of 256 gathered values per column)
  expect_gt(length(rows), 512)
  expect_equal(length(rows), 0.2 * n, tolerance = 4 * sqrt(0.2 * n) / (0.2 * n))
  sub <- x[rows + 1L, , drop = FALSE]
  m <- length(rows)
  r <- rt(m, df = 2)
  w <- runif(m)
  bound <- c(1, 2, 0.5, 3, 1, 1)
  # small blocks, so that a subsample spans several of R's blocks
  withr::local_options(dpsco.block_values = 600)
  forms <- list(dense = x, sparse = Matrix::Matrix(x, sparse = TRUE),
                mapped = check_design(filebacked(x)))
  for (nm in names(forms)) {
    f <- forms[[nm]]
    expect_identical(design_octaves(f, rows), design_octaves(sub), label = nm)
    # the plain-R octave counts of the sampled rows
    expect_identical(unname(design_octaves(f, rows)),
                     vapply(1:6, function(j) tabulate(log2_bin(abs(sub[, j])), 64L),
                            integer(64)), label = nm)
    rs <- design_row_stats(f, TRUE, r, FALSE, TRUE, rows)
    ref <- design_row_stats(sub, TRUE, r, FALSE, TRUE)
    expect_identical(rs, ref, label = nm)
    expect_equal(rs$norm, sqrt(1 + rowSums(sub^2)), tolerance = 1e-14)
    expect_identical(rs$counts[, 2], tabulate(log2_bin(sqrt(1 + rowSums(sub^2))), 64L))
    g <- design_gram(f, w, TRUE, rows)
    expect_identical(g, design_gram(sub, w, TRUE), label = nm)
    expect_equal(g, crossprod(cbind(1, sub) * w), tolerance = 1e-13, label = nm)
    # with the fit's bounds on x (a mapped x applies them as it reads)
    fb <- scale_clamp(f, bound)
    expect_identical(design_octaves(fb, rows),
                     design_octaves(scale_clamp(sub, bound)), label = nm)
    expect_equal(design_gram(fb, w, FALSE, rows),
                 crossprod(scale_clamp(sub, bound) * w), tolerance = 1e-13,
                 label = nm)
  }
  # y's counts of the same records
  y <- rt(n, df = 2)
  expect_identical(signed_octave_counts(y, rows), signed_octave_counts(y[rows + 1L]))
  # no rows: an empty subsample counts nothing
  expect_identical(sum(design_octaves(x, integer(0))), 0L)
  expect_error(design_octaves(x, c(3L, 2L)), "increasing")
  expect_error(design_octaves(x, n), "rows")
})
