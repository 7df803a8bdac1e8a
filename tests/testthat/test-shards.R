# Fits on data sharded over real two-worker socket clusters and a
# two-worker MPI cluster against the single-process fit of the stacked rows
# with the same seed (the independent reference: a different path through
# the engine, with its own sampling and its own sums), and the workers'
# sums against plain R.  The tests that start clusters are skipped by
# R CMD check --as-cran (`make cluster` runs them); the others run there.

# A two-worker PSOCK cluster on this machine whose workers load dpsco from
# the library this session uses; stopped with the calling test.
shard_cluster <- function(env = parent.frame()) {
  skip_on_cran()  # starts R processes
  skip_if_not(capabilities("sockets"))
  # the workers inherit the library paths (a function sent to them would
  # carry its own copy of .libPaths()'s state)
  withr::local_envvar(R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep))
  cl <- parallel::makeCluster(2L)
  withr::defer(try(parallel::stopCluster(cl), silent = TRUE), envir = env)
  parallel::clusterEvalQ(cl, suppressMessages(library(dpsco)))
  cl
}

shard_data <- function(n = 1200, p = 5, family = "gaussian", seed = 11) {
  set.seed(seed)
  x <- matrix(stats::rt(n * p, df = 3), n, p)
  colnames(x) <- paste0("v", seq_len(p))
  eta <- drop(x %*% c(1, -1, 0.5, rep(0, p - 3))) / 2
  y <- switch(family,
              binomial = as.double(stats::runif(n) < stats::plogis(eta)),
              poisson = stats::rpois(n, exp(eta / 2)),
              # three classes, declared
              multinomial = factor(max.col(cbind(0, eta, -eta) +
                                             matrix(stats::rnorm(3 * n), n)) - 1,
                                   levels = 0:2),
              eta + stats::rt(n, df = 2))
  list(x = x, y = y)
}

# load(i) returning rows `parts[[i]]` of x and y (as matrix or via `fx`)
# and of each per-record vector of `extra` (weights, offset).
shard_loader <- function(x, y, parts, fx = identity, extra = list()) {
  force(x); force(y); force(parts); force(fx); force(extra)
  function(i)
    c(list(x = fx(x[parts[[i]], , drop = FALSE]), y = y[parts[[i]]]),
      lapply(extra, function(v) v[parts[[i]]]))
}

# (a multinomial fit's coefficients: one matrix per class, stacked)
flat <- function(b) if (is.list(b)) unlist(lapply(b, as.matrix)) else b

rel_diff <- function(a, b) {
  a <- flat(a)
  b <- flat(b)
  max(abs(a - b)) / max(abs(a), 1e-300)
}

# A single-process fit f1 and a sharded fit f2 made with the same seed:
# the same record and, to rounding, the same coefficients (before the
# support rule), intercepts and penalties.
compare_pair <- function(f1, f2) {
  raw <- function(f) if (is.null(f$support)) f$beta else f$support$beta_raw
  # the same accounting; the released settings to rounding
  expect_equal(f1$privacy, f2$privacy, tolerance = 1e-12)
  expect_identical(privacy(f1)$epsilon_accounted, privacy(f2)$epsilon_accounted)
  expect_identical(f1$settings$k, f2$settings$k)
  expect_lt(rel_diff(raw(f1), raw(f2)), 1e-12)
  expect_lt(rel_diff(f1$a0, f2$a0), 1e-12)
  expect_lt(rel_diff(f1$lambda, f2$lambda), 1e-12)
  # the support rule reads the same released values
  expect_identical(flat(f1$beta) != 0, flat(f2$beta) != 0)
}

# The two fits with the same seed, compared; returns them.  `records`: the
# per-record arguments (weights, offset) of the single-process fit, which
# the shards' load() returns.
compare_fits <- function(x, y, sh, n, ..., records = list()) {
  set.seed(21)
  f1 <- do.call(dpsco, c(list(x, y, public_n = n), records, list(...)))
  set.seed(21)
  f2 <- dpsco(sh, public_n = n, ...)
  compare_pair(f1, f2)
  invisible(list(f1, f2))
}

# The same for cv.dpsco() (c1 single-process, c2 sharded): the same choice,
# and its fit, validation sums and record to rounding.
compare_cv <- function(c1, c2) {
  expect_identical(c1$index, c2$index)
  expect_lt(rel_diff(c1$lambda.min, c2$lambda.min), 1e-12)
  expect_lt(rel_diff(c1$dpsco.fit$support$beta_raw,
                     c2$dpsco.fit$support$beta_raw), 1e-12)
  expect_lt(rel_diff(coef(c1), coef(c2)), 1e-12)
  expect_lt(rel_diff(c1$cvm_noisy, c2$cvm_noisy), 1e-12)
  expect_lt(rel_diff(c1$cvm, c2$cvm), 1e-12)
  expect_equal(c1$privacy, c2$privacy, tolerance = 1e-12)
}

test_that("dense shards give the single-process fit and record (private and public tuning)", {
  cl <- shard_cluster()
  for (family in c("gaussian", "binomial")) {
    d <- shard_data(family = family)
    sh <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:500, 501:1200)))
    expect_identical(sh$p, 5L)
    for (method in c("clip", "kamath", "holland"))
      compare_fits(d$x, d$y, sh, 1200, family = family, method = method,
                   epsilon = 1)
    # public tuning: the engine's sums alone, no private settings
    compare_fits(d$x, d$y, sh, 1200, family = family, method = "holland",
                 epsilon = 2, tuning = "public", iterations = 15,
                 step_size = 0.5, nlambda = 4)
  }
  # full batches cut where the single process cuts its two chunks: the
  # same sums in the same order, so the same bits
  d <- shard_data(family = "binomial")
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:600, 601:1200)))
  public <- list(family = "binomial", public_n = 1200, tuning = "public",
                 method = "clip", iterations = 10, step_size = 1,
                 nlambda = 3)
  set.seed(4)
  f1 <- do.call(dpsco, c(list(d$x, d$y, threads = 2), public))
  set.seed(4)
  f2 <- do.call(dpsco, c(list(sh), public))
  expect_identical(f1$beta, f2$beta)
  expect_identical(f1$a0, f2$a0)
  # Poisson batches (batch_size < n) and spgd split each batch by shard
  d <- shard_data()
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:700, 701:1200)))
  compare_fits(d$x, d$y, sh, 1200, method = "kamath", batch_size = 300,
               optimizer = "spgd", iterations = 10, nlambda = 3)
  # a declared public n other than the rows present, and poisson
  d <- shard_data(family = "poisson")
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:600, 601:1200)))
  f <- compare_fits(d$x, d$y, sh, 1500, family = "poisson", nlambda = 3)
  expect_identical(f[[2]]$privacy$public_n, 1500)
})

test_that("multinomial, quantile, weights and offsets on shards give the single-process fit", {
  cl <- shard_cluster()
  parts <- list(1:400, 401:900)
  # three classes: the class shares' counts, the residual norms and the
  # passes' K d sums on the workers; Kamath's labels with K classes
  d <- shard_data(n = 900, p = 4, family = "multinomial")
  w <- withr::with_seed(2, stats::runif(900))
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, parts, extra = list(weights = w)))
  compare_fits(d$x, d$y, sh, 900, family = "multinomial", nlambda = 3,
               records = list(weights = w))
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, parts))
  for (method in c("clip", "kamath"))
    compare_fits(d$x, d$y, sh, 900, family = "multinomial", method = method,
                 nlambda = 3)
  # quantile: the histogram of y net of the offsets and the smoothed check
  # loss's gradients, offsets and weights applied on the workers
  d <- shard_data(n = 900, p = 4)
  off <- withr::with_seed(3, stats::rnorm(900, 0, 0.5))
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, parts,
                                      extra = list(offset = off, weights = w)))
  compare_fits(d$x, d$y, sh, 900, family = "quantile", tau = 0.3,
               nlambda = 3, records = list(offset = off, weights = w))
  # gaussian with weights: the weighted residuals' histogram, the rows'
  # weights in the curvature, the weighted gradients
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, parts,
                                      extra = list(weights = w)))
  compare_fits(d$x, d$y, sh, 900, nlambda = 3, records = list(weights = w))
  # poisson with offsets: y net of them, the exposures' histogram and the
  # curvature's rows weighted by their exposures
  d <- shard_data(n = 900, p = 4, family = "poisson")
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, parts,
                                      extra = list(offset = off)))
  f <- compare_fits(d$x, d$y, sh, 900, family = "poisson", nlambda = 3,
                    records = list(offset = off))
  expect_true(f[[2]]$offset)
  # (the exposure bound was released, as in the single process)
  expect_identical(names(f[[2]]$privacy$released),
                   names(f[[1]]$privacy$released))
  expect_true("exposure" %in% names(f[[2]]$privacy$released))
  # Poisson batches split by shard, with the weights and offsets
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, parts,
                                      extra = list(offset = off, weights = w)))
  compare_fits(d$x, d$y, sh, 900, family = "poisson", method = "kamath",
               batch_size = 300, optimizer = "spgd", iterations = 8,
               nlambda = 2, records = list(offset = off, weights = w))
})

test_that("the workers' new sums are the plain R sums of the stacked records", {
  cl <- shard_cluster()
  n <- 300
  d <- shard_data(n = n, p = 3, family = "multinomial")
  yq <- shard_data(n = n, p = 3)$y
  w <- withr::with_seed(4, stats::runif(n))
  off <- withr::with_seed(5, stats::rnorm(n, 0, 2))
  parts <- list(1:90, 91:300)
  # the class counts of a multinomial y
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, parts))
  h <- shard_handles(sh)
  shard_check_y(h$y, "multinomial")
  expect_identical(class_counts(h$y, 3L),
                   tabulate(as.integer(d$y), 3L))
  # the quantile histogram of y net of the offsets, the exposures' octave
  # counts, the residuals at the start times the weights (with the
  # offsets) and the second moments of the rows weighted by weights and
  # exposures
  sh <- dpsco_shards(cl, shard_loader(d$x, yq, parts,
                                      extra = list(weights = w, offset = off)))
  h <- shard_handles(sh)
  shard_check_y(h$y, "gaussian")
  fam <- family_object("gaussian")
  B <- 4
  edges <- floor((yq - off + B) / (2 * B / 201)) + 1
  expect_identical(y_bin_counts(shard_net_offset(h$y, fam), B, 201L),
                   tabulate(pmin(pmax(edges, 1), 201), 201L))
  expect_identical(exposure_counts(h$offset),
                   tabulate(pmin(pmax(ceiling(off / log(2)) + 33, 1), 64), 64L))
  b0 <- 0.3
  rs <- design_row_stats(h$x, 1L, start_residuals(fam, b0, h$y, h$weights,
                                                  h$offset),
                         FALSE, TRUE)
  norm <- sqrt(1 + rowSums(d$x^2))
  r <- w * (b0 + off - yq)
  expect_identical(unname(rs$counts),
                   cbind(tabulate(log2_bin(abs(r) * norm), 64L),
                         tabulate(log2_bin(norm), 64L)))
  rb <- 1.5
  E <- 2
  sc <- shard_weigh_rows(row_scale(rs$norm, rb), shard_row_weights(E))
  rw <- pmin(1, rb / norm) * sqrt(w * exp(pmin(off - log(E), 0)))
  expect_equal(design_gram(h$x, sc, 1L), crossprod(cbind(1, d$x) * rw),
               tolerance = 1e-14, ignore_attr = TRUE)
  # the records' own weights alone
  sc <- shard_weigh_rows(row_scale(rs$norm, rb), h$weights)
  expect_equal(design_gram(h$x, sc, 1L),
               crossprod(cbind(1, d$x) * (pmin(1, rb / norm) * sqrt(w))),
               tolerance = 1e-14, ignore_attr = TRUE)
})

test_that("sparse and file-backed shards give the single-process fit", {
  skip_if_not_installed("bigmemory")
  skip_if_not_installed("Matrix")
  skip_on_os("windows")
  cl <- shard_cluster()
  d <- shard_data(n = 1000, p = 6)
  d$x[abs(d$x) < 0.8] <- 0
  parts <- list(1:400, 401:1000)
  sp <- dpsco_shards(cl, shard_loader(d$x, d$y, parts,
                                      function(v) Matrix::Matrix(v, sparse = TRUE)))
  compare_fits(d$x, d$y, sp, 1000, method = "clip", nlambda = 4)
  # each worker attaches its own file-backed shard
  dir <- tempfile("shards")
  dir.create(dir)
  withr::defer(unlink(dir, recursive = TRUE))
  desc <- character(2)
  for (i in 1:2) {
    bigmemory::as.big.matrix(d$x[parts[[i]], ], type = "double",
                             backingfile = paste0("x", i, ".bin"),
                             descriptorfile = paste0("x", i, ".desc"),
                             backingpath = dir)
    desc[i] <- file.path(dir, paste0("x", i, ".desc"))
  }
  y <- d$y
  load <- function(i)
    list(x = bigmemory::attach.big.matrix(desc[i]), y = y[parts[[i]]])
  fb <- dpsco_shards(cl, load)
  for (method in c("clip", "holland"))
    compare_fits(d$x, d$y, fb, 1000, method = method, nlambda = 4)
  # cv.dpsco(): each worker's parts are views of its file; predictions
  # by blocks of 50 rows on the workers
  parallel::clusterEvalQ(cl, options(dpsco.block_values = 300))
  set.seed(8)
  c1 <- cv.dpsco(d$x, d$y, public_n = 1000, nlambda = 4, curve = 0.5)
  set.seed(8)
  c2 <- cv.dpsco(fb, public_n = 1000, nlambda = 4, curve = 0.5)
  compare_cv(c1, c2)
  parallel::clusterEvalQ(cl, options(dpsco.block_values = NULL))
  # a part is a view of the worker's file: its rows of the file listed,
  # nothing copied
  h <- shard_handles(fb)
  keep <- withr::with_seed(3, stats::runif(1000) < 0.3)
  v <- shard_view(h$x, keep)$x
  # (evaluated in the workers' own namespace, where their store is)
  held <- parallel::clusterCall(cl, eval, bquote(
    (function(x) list(class = class(x), index = x$index, dim = dim(x)))(
      shard_store[[.(v$shards$id)]]$x)), asNamespace("dpsco"))
  for (i in 1:2) {
    expect_identical(held[[i]]$class, "dpsco_mapped")
    expect_identical(held[[i]]$index, which(keep[parts[[i]]]) - 1L)
    expect_identical(held[[i]]$dim, c(sum(keep[parts[[i]]]), 6L))
  }
  shard_drop_views(h$x)
  d2 <- d
  d2$y <- as.double(d$y > 0)
  fb2 <- dpsco_shards(cl, function(i)
    list(x = bigmemory::attach.big.matrix(desc[i]),
         y = as.double(y[parts[[i]]] > 0)))
  compare_fits(d2$x, d2$y, fb2, 1000, family = "binomial", method = "kamath",
               nlambda = 3)
  # the mapped pass with the shard's weights and offsets
  w <- withr::with_seed(6, stats::runif(1000))
  off <- withr::with_seed(7, stats::rnorm(1000, 0, 0.5))
  yp <- withr::with_seed(8, stats::rpois(1000, exp(off)))
  fb3 <- dpsco_shards(cl, function(i)
    list(x = bigmemory::attach.big.matrix(desc[i]), y = yp[parts[[i]]],
         weights = w[parts[[i]]], offset = off[parts[[i]]]))
  compare_fits(d$x, yp, fb3, 1000, family = "poisson", method = "holland",
               nlambda = 3, records = list(weights = w, offset = off))
  # the multinomial pass streams rows in memory only
  cls <- factor(as.integer(d$y > 0), levels = 0:1)
  fb4 <- dpsco_shards(cl, function(i)
    list(x = bigmemory::attach.big.matrix(desc[i]), y = cls[parts[[i]]]))
  expect_error(dpsco(fb4, family = "multinomial", public_n = 1000),
               "file-backed shards; a multinomial fit needs", class = "dpsco_arg_error")
})

test_that("cv.dpsco on shards splits, fits and validates as the single process does", {
  cl <- shard_cluster()
  for (family in c("gaussian", "binomial", "multinomial", "quantile")) {
    d <- shard_data(family = family)
    sh <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:500, 501:1200)))
    # curve = 0.5 releases the validation sums, which are then compared
    set.seed(8)
    c1 <- cv.dpsco(d$x, d$y, family = family, public_n = 1200, nlambda = 5,
                   curve = 0.5)
    set.seed(8)
    c2 <- cv.dpsco(sh, family = family, public_n = 1200, nlambda = 5,
                   curve = 0.5)
    compare_cv(c1, c2)
  }
  expect_error(cv.dpsco(sh, family = "binomial"),
               "must be given for sharded data", class = "dpsco_arg_error")
})

test_that("cv.dpsco on shards with weights and offsets equals the single-process cv", {
  cl <- shard_cluster()
  # each part of the split keeps its records' weights and offsets on the
  # worker; the validation sums predict with the offsets and weigh the
  # clamped losses (released with curve = 0.5, so compared)
  g <- shard_data(n = 900)
  po <- shard_data(n = 900, family = "poisson")
  w <- withr::with_seed(6, stats::runif(900))
  off <- withr::with_seed(7, stats::rnorm(900, 0, 0.5))
  parts <- list(1:400, 401:900)
  cases <- list(
    list(d = g, family = "gaussian", records = list(weights = w)),
    list(d = po, family = "poisson", records = list(offset = off)),
    list(d = po, family = "poisson", records = list(offset = off, weights = w)))
  for (case in cases) {
    sh <- dpsco_shards(cl, shard_loader(case$d$x, case$d$y, parts,
                                        extra = case$records))
    args <- list(family = case$family, public_n = 900, nlambda = 3,
                 curve = 0.5)
    set.seed(8)
    c1 <- do.call(cv.dpsco, c(list(case$d$x, case$d$y), case$records, args))
    set.seed(8)
    c2 <- do.call(cv.dpsco, c(list(sh), args))
    compare_cv(c1, c2)
  }
})

test_that("records at the edges of the domain: shards give the single-process fit", {
  # The edge-record audit (test-audit-guarantee.R) checks the single
  # process on D and D plus such a record; the sharded fit must say the
  # same things and give the same numbers, so the audit carries over.
  cl <- shard_cluster()
  big <- .Machine$double.xmax
  records <- list(`x +-max` = list(x = big * c(1, -1, 1, -1, 1)),
                  `x all zero` = list(x = rep(0, 5)),
                  `y far` = list(y = NULL),
                  `x max, y far` = list(x = big * c(-1, 1, -1, 1, -1), y = NULL))
  far <- c(gaussian = -big, binomial = 0, poisson = 1e308)
  for (family in names(far)) {
    d <- shard_data(n = 400, family = family)
    for (name in names(records)) {
      r <- records[[name]]
      x1 <- rbind(d$x, r$x %||% rep(1, 5))
      y1 <- c(d$y, if ("y" %in% names(r)) far[[family]] else d$y[1L])
      sh <- dpsco_shards(cl, shard_loader(x1, y1, list(1:200, 201:401)))
      for (method in if (family == "gaussian") c("clip", "kamath", "holland")
                      else "clip") {
        label <- paste(family, name, method)
        one <- withr::with_seed(3, capture_conditions(
          dpsco(x1, y1, family = family, method = method, public_n = 400,
                nlambda = 3)))
        sharded <- withr::with_seed(3, capture_conditions(
          dpsco(sh, family = family, method = method, public_n = 400,
                nlambda = 3)))
        expect_identical(sharded$said, one$said, label = label)
        expect_true(all(is.finite(c(sharded$value$a0,
                                    as.matrix(sharded$value$beta)))),
                    label = label)
        expect_lt(rel_diff(one$value$a0, sharded$value$a0), 1e-12,
                  label = label)
        expect_lt(rel_diff(one$value$support$beta_raw,
                           sharded$value$support$beta_raw), 1e-12,
                  label = label)
      }
    }
  }
})

test_that("records at the edges of the domain: the new families, weights and offsets on shards give the single-process fit", {
  # as above, for the multinomial and quantile families and records with
  # weights 0 and 1 and offsets of +-800 (poisson, gaussian)
  cl <- shard_cluster()
  big <- .Machine$double.xmax
  d <- shard_data(n = 400, family = "multinomial")
  dq <- shard_data(n = 400)
  dp <- shard_data(n = 400, family = "poisson")
  w <- withr::with_seed(9, stats::runif(400))
  off <- withr::with_seed(10, stats::rnorm(400, 0, 0.5))
  cases <- list(
    `multinomial x +-max` = list(x = d$x, y = d$y, family = "multinomial",
                                 xr = big * c(1, -1, 1, -1, 1), yr = d$y[1L]),
    `quantile y far` = list(x = dq$x, y = dq$y, family = "quantile",
                            xr = rep(1, 5), yr = -big),
    `poisson offset 800, weight 0` = list(
      x = dp$x, y = dp$y, family = "poisson", xr = rep(1, 5), yr = 1e308,
      records = list(weights = c(w, 0), offset = c(off, 800))),
    `gaussian offset -800, weight 1` = list(
      x = dq$x, y = dq$y, family = "gaussian", xr = big * c(-1, 1, -1, 1, -1),
      yr = 3, records = list(weights = c(w, 1), offset = c(off, -800))))
  for (label in names(cases)) {
    cs <- cases[[label]]
    x1 <- rbind(cs$x, cs$xr)
    y1 <- if (is.factor(cs$y)) factor(c(as.character(cs$y), as.character(cs$yr)),
                                      levels = levels(cs$y))
          else c(cs$y, cs$yr)
    sh <- dpsco_shards(cl, shard_loader(x1, y1, list(1:200, 201:401),
                                        extra = cs$records %||% list()))
    one <- withr::with_seed(3, capture_conditions(do.call(dpsco, c(
      list(x1, y1, family = cs$family, public_n = 400, nlambda = 3),
      cs$records))))
    sharded <- withr::with_seed(3, capture_conditions(
      dpsco(sh, family = cs$family, public_n = 400, nlambda = 3)))
    expect_identical(sharded$said, one$said, label = label)
    expect_true(all(is.finite(c(sharded$value$a0,
                                flat(sharded$value$support$beta_raw)))),
                label = label)
    expect_lt(rel_diff(one$value$a0, sharded$value$a0), 1e-12, label = label)
    expect_lt(rel_diff(one$value$support$beta_raw,
                       sharded$value$support$beta_raw), 1e-12, label = label)
  }
})

test_that("a cluster from parallelly::makeClusterPSOCK() holds shards too", {
  skip_on_cran()
  skip_if_not_installed("parallelly")
  cl <- parallelly::makeClusterPSOCK(2L, rscript_libs = .libPaths(),
                                     verbose = FALSE)
  withr::defer(parallel::stopCluster(cl))
  parallel::clusterEvalQ(cl, suppressMessages(library(dpsco)))
  d <- shard_data(n = 600, family = "binomial")
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:250, 251:600)))
  compare_fits(d$x, d$y, sh, 600, family = "binomial", method = "holland",
               nlambda = 3)
})

# The fits of `jobs` (see tools/mpi-fits.R) on a two-worker MPI cluster of snow
# and Rmpi, made by mpi-fits.R in an R process of its own (why: see
# there).  Only where DPSCO_TEST_MPI=true (make cluster, which installs
# Open MPI, Rmpi and snow and sets it): there an MPI cluster that does not
# start, or a coordinator that fails or hangs, is an error, never a skip.
# The coordinator's script: tools/mpi-fits.R of the source tree, where
# `make cluster` runs the tests (tools/ is not part of the built package,
# so R CMD check neither ships it nor asks for Rmpi and snow).
mpi_script <- function() {
  f <- test_path("..", "..", "tools", "mpi-fits.R")
  if (!file.exists(f))
    stop("tools/mpi-fits.R not found: run the MPI tests from the source ",
         "tree (make cluster)", call. = FALSE)
  normalizePath(f)
}

mpi_fits <- function(jobs) {
  skip_on_cran()
  if (!identical(Sys.getenv("DPSCO_TEST_MPI"), "true"))
    skip("MPI clusters are tested where DPSCO_TEST_MPI=true (make cluster)")
  input <- withr::local_tempfile(fileext = ".rds")
  output <- withr::local_tempfile(fileext = ".rds")
  saveRDS(jobs, input)
  # the coordinator and the workers it spawns load dpsco from this
  # session's libraries
  withr::local_envvar(R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep))
  log <- suppressWarnings(system2(
    file.path(R.home("bin"), "Rscript"),
    c("--vanilla", shQuote(mpi_script()), shQuote(input),
      shQuote(output)),
    stdout = TRUE, stderr = TRUE, timeout = 300))
  status <- attr(log, "status")
  if (!is.null(status) || !file.exists(output))
    stop("the MPI coordinator (mpi-fits.R) failed with exit status ",
         if (is.null(status)) 0 else status, " (124: timed out):\n",
         paste(utils::tail(log, 40), collapse = "\n"), call. = FALSE)
  readRDS(output)
}

test_that("an MPI cluster (snow, Rmpi) holds dense and file-backed shards and runs cv.dpsco and every family", {
  # every message through Rmpi costs a full gc() on both ends (mpi-fits.R),
  # the dearer the more a worker has loaded (Matrix: a sparse shard's
  # steps took 0.8 s here), so few messages and no sparse shards (their
  # layout is the worker's own business, tested on the socket clusters):
  # cv.dpsco() with private tuning sends every kind of task (the settings'
  # sums, the split, the steps with Kamath labels, the validation sums),
  # on dense shards and on file-backed ones with weights (whose parts are
  # views of the workers' files, with copies of their weights); file-backed shards take a few public-tuning steps,
  # with offsets; the multinomial (with weights) and quantile (with
  # offsets) families' private settings and steps.
  g <- shard_data(n = 800, p = 4)
  po <- shard_data(n = 600, p = 4, family = "poisson")
  mu <- shard_data(n = 600, p = 3, family = "multinomial")
  q <- shard_data(n = 600, p = 3)
  w <- withr::with_seed(2, stats::runif(600))
  off <- withr::with_seed(3, stats::rnorm(600, 0, 0.5))
  wg <- withr::with_seed(4, stats::runif(800))
  jobs <- list(
    cv = list(x = g$x, y = g$y, parts = list(1:350, 351:800),
              layout = "dense", fun = "cv.dpsco", seed = 8,
              args = list(public_n = 800, method = "kamath", nlambda = 2,
                          curve = 0.5)),
    cv_file = list(x = g$x, y = g$y, parts = list(1:450, 451:800),
                   layout = "file", fun = "cv.dpsco", seed = 9,
                   records = list(weights = wg),
                   args = list(public_n = 800, nlambda = 2, curve = 0.5)),
    file = list(x = po$x, y = po$y, parts = list(1:250, 251:600),
                layout = "file", fun = "dpsco", seed = 21,
                records = list(offset = off),
                args = list(public_n = 600, family = "poisson",
                            method = "holland", tuning = "public",
                            iterations = 3, step_size = 0.5, nlambda = 2)),
    multinomial = list(x = mu$x, y = mu$y, parts = list(1:250, 251:600),
                       layout = "dense", fun = "dpsco", seed = 5,
                       records = list(weights = w),
                       args = list(public_n = 600, family = "multinomial",
                                   method = "kamath", nlambda = 2)),
    quantile = list(x = q$x, y = q$y, parts = list(1:250, 251:600),
                    layout = "dense", fun = "dpsco", seed = 6,
                    records = list(offset = off),
                    args = list(public_n = 600, family = "quantile",
                                tau = 0.3, nlambda = 2)))
  res <- mpi_fits(jobs)
  # a spawned MPI cluster: the coordinator and two workers, other processes
  expect_true(all(c("spawnedMPIcluster", "MPIcluster", "cluster") %in%
                  res$class))
  expect_identical(res$ranks, 3L)
  expect_length(unique(res$pids), 2L)
  expect_false(res$master %in% res$pids)
  # stopped: both workers quit
  expect_length(res$alive, 0L)
  # the single-process fits with the same seeds
  for (name in names(jobs)) {
    job <- jobs[[name]]
    set.seed(job$seed)
    f1 <- do.call(job$fun, c(list(job$x, job$y), job$records, job$args))
    if (job$fun == "cv.dpsco") compare_cv(f1, res$fits[[name]])
    else compare_pair(f1, res$fits[[name]])
  }
})

test_that("a worker's pass takes exactly the settings fields of its table", {
  # no cluster: the worker-side routine, called in this process
  set.seed(3)
  x <- matrix(stats::rnorm(18), 6, 3)
  y <- stats::rnorm(6)
  beta <- c(0.2, -0.4, 0.1, 0.3)
  clip <- 0.8
  lay <- .Call(C_dpsco_layout, x, 1L, -1, 1L)
  # the fit's settings as the engine hands them over: more fields than the
  # pass takes (the loop's, the quantile family's, the accounting's)
  fit_st <- list(oracle = 1L, m = 6, clip = clip, rho = 0, k = 1L, s = 1,
                 nu = 1, family = 0L, tau = 0.5, bandwidth = 1, kernel = 0L,
                 nclass = 1L, intercept = 1L, rate = 1, noise_sd = 0.5,
                 steps = 10L, sensitivity = 1, threads = 1L)
  st <- shard_pass_settings(fit_st, 2L)
  expect_named(st, c("oracle", "m", "clip", "rho", "k", "s", "nu", "exact",
                     "family", "tau", "bandwidth", "kernel", "nclass",
                     "threads"))
  pass <- function(st)
    .Call(C_dpsco_shard_pass, lay, y, st, beta, NULL, NULL)
  # plain R: the clipped gradients r_i (1, x_i), summed
  w <- cbind(1, x)
  g <- (drop(w %*% beta) - y) * w
  norm <- sqrt(rowSums(g^2))
  expect_true(any(norm > clip))   # the clipping matters here
  ref <- colSums(g * pmin(1, clip / norm))
  expect_equal(pass(st), ref, tolerance = 1e-14)
  # the optional field (exact, default 0) may be absent
  expect_equal(pass(st[names(st) != "exact"]), ref, tolerance = 1e-14)
  # a field the fit's settings lack (here renamed) is missing, not its old
  # default (clip 0: no clipping)
  renamed <- fit_st
  names(renamed)[names(renamed) == "clip"] <- "clip_level"
  expect_error(pass(shard_pass_settings(renamed, 2L)),
               "settings field 'clip' is missing", fixed = TRUE)
  for (f in c("oracle", "m", "clip", "rho", "k", "s", "nu", "family",
              "threads"))
    expect_error(pass(st[names(st) != f]),
                 sprintf("dpsco_shard_pass: settings field '%s' is missing", f),
                 fixed = TRUE)
  # a field outside the table
  expect_error(pass(c(st, rate = 1)),
               "dpsco_shard_pass: unknown settings field 'rate'", fixed = TRUE)
  qst <- st
  qst$family <- 7L
  expect_error(pass(qst), "takes no family 7", fixed = TRUE)
  # the quantile family's derivative at its level, kernel and bandwidth,
  # with the shard's weights and offsets (which the worker adds)
  wt <- c(1, 0.5, 0, 0.25, 1, 0.75)
  off <- c(0.3, -0.2, 1, 0, -1, 0.5)
  qst <- utils::modifyList(st, list(family = 2L, tau = 0.3, bandwidth = 0.4,
                                    kernel = 0L))
  eta <- drop(w %*% beta) + off
  r <- wt * pmin(pmax(stats::pnorm((eta - y) / 0.4) - 0.3, -0.3), 0.7)
  g <- r * w
  ref <- colSums(g * pmin(1, clip / sqrt(rowSums(g^2))))
  expect_equal(pass(c(qst, list(weights = wt, offsets = off))), ref,
               tolerance = 1e-14)
  # three classes: K blocks of d sums, each record's residual vector
  # w_i (softmax(B'(1, x_i)) - e_(y_i)) clipped by its norm
  yc <- c(0, 2, 1, 1, 0, 2)
  bk <- c(beta, -beta / 2, c(0.1, 0, 0.2, -0.3))
  mst <- utils::modifyList(st, list(family = 4L, nclass = 3L))
  pr <- exp(w %*% matrix(bk, 4L))
  pr <- pr / rowSums(pr)
  rk <- wt * (pr - outer(yc, 0:2, `==`))
  scale <- pmin(1, clip / (sqrt(rowSums(rk^2)) * sqrt(rowSums(w^2))))
  ref <- as.vector(crossprod(w, rk * scale))
  expect_equal(.Call(C_dpsco_shard_pass, lay, yc,
                     c(mst, list(weights = wt)), bk, NULL, NULL),
               ref, tolerance = 1e-14)
  # no offsets for a multinomial pass
  expect_error(.Call(C_dpsco_shard_pass, lay, yc, c(mst, list(offsets = off)),
                     bk, NULL, NULL), "multinomial pass with offsets")
})

test_that("a worker's pass returns the oracle's sums over its rows", {
  cl <- shard_cluster()
  d <- shard_data(n = 300, p = 3)
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:100, 101:300)))
  parallel::clusterCall(cl, function(id) {
    st <- get(id, envir = shard_store)
    st$yf <- as.double(st$y)
    NULL
  }, sh$id)
  beta <- c(0.3, 0.5, -0.2, 0.1)
  clip <- 1.5
  st <- list(oracle = 1L, m = 300, clip = clip, rho = 0, k = 1L, s = 1,
             nu = 1, family = 0L)
  # the handle's row counts for the total
  expect_identical(shard_rows(sh), c(100, 200))
  rows <- c(5, 17, 250, 300, 120)                 # of the stacked data
  sx <- structure(list(shards = sh, rows = 300L, p = 3L, bound = NULL,
                       key = "raw", ledger = new.env()),
                  class = c("dpsco_shard_x", "dpsco_sharded"))
  sx$ledger$gradients <- 0
  got <- shard_remote_pass(sx, c(st, intercept = 1L), beta,
                                   as.integer(sort(rows) - 1L), NULL)
  # plain R: the clipped gradients r_i (1, x_i) of the rows on each shard
  w <- cbind(1, d$x)
  g <- function(i) {
    r <- sum(w[i, ] * beta) - d$y[i]
    v <- r * w[i, ]
    v * min(1, clip / sqrt(sum(v^2)))
  }
  ref <- cbind(Reduce(`+`, lapply(c(5, 17), g)),
               Reduce(`+`, lapply(c(120, 250, 300), g)))
  expect_equal(unname(got), unname(ref), tolerance = 1e-14)
  expect_identical(sx$ledger$gradients, 1)
})

test_that("shards are checked where they are loaded", {
  cl <- shard_cluster()
  d <- shard_data(n = 200, p = 3)
  x <- d$x
  y <- d$y
  bad <- x
  bad[150, 2] <- NA
  expect_error(dpsco_shards(cl, shard_loader(bad, y, list(1:100, 101:200))),
               "on worker 2: `x` contains NA", class = "dpsco_arg_error")
  expect_error(dpsco_shards(cl, function(i)
                 list(x = if (i == 1) x[1:100, ] else x[101:200, 1:2],
                      y = y[if (i == 1) 1:100 else 101:200])),
               "2 columns on worker 2 and 3 on worker 1",
               class = "dpsco_arg_error")
  expect_error(dpsco_shards(cl, function(i)
                 list(x = x[1:100, ], y = if (i == 1) y[1:100] else y[1:99])),
               "on worker 2: `y` has length 99", class = "dpsco_arg_error")
  expect_error(dpsco_shards(cl, function(i)
                 list(x = x[1:100, ], y = if (i == 1) y[1:100] else letters[1:100])),
               "on worker 2: `y` must be", class = "dpsco_arg_error")
  e <- tryCatch(dpsco_shards(cl, function(i) {
                  if (i == 2) stop("no such file: shard2.bin")
                  list(x = x[1:100, ], y = y[1:100])
                }), error = identity)
  expect_s3_class(e, "dpsco_shard_error")
  expect_identical(e$worker, 2L)
  expect_match(conditionMessage(e), "worker 2 failed while loading the shards: no such file")
  sh <- dpsco_shards(cl, shard_loader(x, y, list(1:71, 72:200)))
  # the row counts are data: never printed ...
  out <- capture.output(print(sh))
  expect_false(any(grepl("71|129", out)))
  expect_match(out[1], "2 workers: 3 columns")
  # ... nor saved: serialize() (as saveRDS() and save()) writes neither
  # count, as a double or an integer (XDR: big-endian), where a plain
  # vector of them would show
  has <- function(bytes, v)
    length(grepRaw(writeBin(v, raw(), endian = "big"), bytes,
                   fixed = TRUE)) > 0L
  expect_true(has(serialize(list(rows = c(71, 129)), NULL), 71))
  bytes <- serialize(sh, NULL)
  for (v in c(71, 129)) {
    expect_false(has(bytes, as.double(v)))
    expect_false(has(bytes, as.integer(v)))
  }
  expect_identical(shard_rows(sh), c(71, 129))
  # a restored copy holds none, and is refused by name
  back <- unserialize(bytes)
  expect_error(dpsco(back, public_n = 200), "restored from a saved copy",
               class = "dpsco_arg_error")
  sh <- dpsco_shards(cl, shard_loader(x, y, list(1:100, 101:200)))
  expect_error(dpsco(sh, epsilon = 1), "must be given for sharded data",
               class = "dpsco_arg_error")
  # every method that cannot run on shards is refused by dpsco() and
  # cv.dpsco() with the reason dpsco_methods() gives for it
  m <- dpsco_methods()
  expect_gt(sum(!m$shardable), 0)
  for (k in which(!m$shardable)) {
    why <- paste0("\"", m$method[k], "\" cannot be fitted on sharded data: ",
                  m$shard_note[k], "; use")
    for (fun in c(dpsco, cv.dpsco))
      expect_error(fun(sh, public_n = 200, method = m$method[k]), why,
                   fixed = TRUE, class = "dpsco_arg_error", info = m$method[k])
  }
  expect_error(dpsco(sh, public_n = 200, weights = rep(1, 200)),
               "`weights` is per-record data.*load\\(\\) returns it",
               class = "dpsco_arg_error")
  expect_error(dpsco(sh, public_n = 200, offset = rep(0, 200)),
               "`offset` is per-record data", class = "dpsco_arg_error")
  # the shards' weights and offsets, checked on the workers as dpsco()
  # checks them, from every shard or none
  w <- rep(c(0.5, 1.5), 100)
  expect_error(dpsco_shards(cl, shard_loader(x, y, list(1:100, 101:200),
                                             extra = list(weights = w))),
               "on worker 1: `weights` must lie in \\[0, 1\\]",
               class = "dpsco_arg_error")
  expect_error(dpsco_shards(cl, function(i)
                 list(x = x[1:100, ], y = y[1:100],
                      offset = if (i == 1) rep(0, 100) else c(NA, rep(0, 99)))),
               "on worker 2: `offset` contains NA", class = "dpsco_arg_error")
  expect_error(dpsco_shards(cl, function(i)
                 list(x = x[1:100, ], y = y[1:100],
                      weights = if (i == 2) rep(1, 100))),
               "weights on worker 2 but not on worker 1",
               class = "dpsco_arg_error")
  expect_error(dpsco(sh, public_n = 200, family = "binomial"),
               "on worker 1: `y`", class = "dpsco_arg_error")
})

test_that("a worker that fails or dies mid-fit stops the fit and keeps the record of what was released", {
  cl <- shard_cluster()
  d <- shard_data(n = 400, p = 3)
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:200, 201:400)))
  # worker 2's y becomes unreadable after `after` reads: the settings read
  # it three times (the octave counts of y, the centre, the clipping
  # level), then each gradient step once
  break_worker <- function(id, after, die) {
    st <- get(id, envir = shard_store)
    val <- NULL
    reads <- 0
    suppressWarnings(rm("yf", envir = st))
    makeActiveBinding("yf", function(v) {
      if (!missing(v)) return(invisible(val <<- v))
      reads <<- reads + 1
      if (reads > after) {
        if (die) tools::pskill(Sys.getpid())
        stop("disk read failed")
      }
      val
    }, st)
    NULL
  }
  parallel::clusterCall(cl[2], break_worker, sh$id, 4, FALSE)
  set.seed(1)
  e <- tryCatch(dpsco(sh, public_n = 400, nlambda = 3), error = identity)
  expect_s3_class(e, "dpsco_shard_error")
  expect_identical(e$worker, 2L)
  expect_match(conditionMessage(e),
               "worker 2 failed while computing a gradient step: disk read failed")
  # the private settings (the octave counts of x and y, the centre, the
  # histograms, the curvature) and the one gradient that completed
  expect_identical(e$released$gradients, 1)
  expect_identical(e$released$settings,
                   c("octave counts of x", "octave counts of y",
                     "clamped sum of y", "histogram counts",
                     "second-moment matrix"))
  # a worker that dies
  sh2 <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:200, 201:400)))
  parallel::clusterCall(cl[2], break_worker, sh2$id, 5, TRUE)
  e <- tryCatch(dpsco(sh2, public_n = 400, nlambda = 3), error = identity)
  expect_s3_class(e, "dpsco_shard_error")
  expect_identical(e$worker, 2L)
  expect_match(conditionMessage(e), "worker 2 stopped answering")
  expect_identical(e$released$gradients, 2)
  expect_length(e$released$settings, 5L)
})

test_that("subsampled settings: shards send each worker its rows of the subsample and give the single-process fit", {
  skip_if_not_installed("Matrix")
  cl <- shard_cluster()
  # forced at this n (the rule subsamples from 16 * 2^18 records)
  withr::local_options(dpsco.settings_subsample = 300)
  for (family in c("gaussian", "binomial")) {
    d <- shard_data(family = family)
    sh <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:500, 501:1200)))
    f <- compare_fits(d$x, d$y, sh, 1200, family = family, epsilon = 1)
    expect_equal(privacy(f[[2]])$shares$sample_rate[c(1, 3, 4)],
                 rep(300 / 1200, 3))
  }
  d <- shard_data(n = 1000, p = 6)
  d$x[abs(d$x) < 0.8] <- 0
  sp <- dpsco_shards(cl, shard_loader(d$x, d$y, list(1:400, 401:1000),
                                      function(v) Matrix::Matrix(v, sparse = TRUE)))
  compare_fits(d$x, d$y, sp, 1000, method = "clip", nlambda = 4)
  # the shards' own weights and offsets enter each release on the
  # workers' rows of its subsample (the residuals' and exposures'
  # histograms, the curvature's row weights); the other families too
  parts <- list(1:400, 401:900)
  w <- withr::with_seed(2, stats::runif(900))
  off <- withr::with_seed(3, stats::rnorm(900, 0, 0.5))
  d <- shard_data(n = 900, p = 4, family = "poisson")
  sh <- dpsco_shards(cl, shard_loader(d$x, d$y, parts,
                                      extra = list(offset = off, weights = w)))
  f <- compare_fits(d$x, d$y, sh, 900, family = "poisson", nlambda = 3,
                    records = list(offset = off, weights = w))
  expect_true("exposure" %in% names(f[[2]]$privacy$released))
  expect_equal(privacy(f[[2]])$shares$sample_rate[c(1, 3, 4)],
               rep(300 / 900, 3))
  for (family in c("multinomial", "quantile")) {
    d <- shard_data(n = 900, p = 4, family = family)
    sh <- dpsco_shards(cl, shard_loader(d$x, d$y, parts,
                                        extra = list(weights = w)))
    compare_fits(d$x, d$y, sh, 900, family = family, nlambda = 3,
                 records = list(weights = w))
  }
})
