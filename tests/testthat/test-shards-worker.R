# R/shards-worker.R: a worker's sums on its store are the sums of R/sums.R
# on its records, with the handles resolved from them.

store <- function() {
  st <- new.env(parent = emptyenv())
  set.seed(5)
  st$x <- matrix(rnorm(40), 20)
  st$y <- st$yf <- rpois(20, 2)
  st$weights <- runif(20)
  st$offset <- rnorm(20, sd = 0.2)
  st$rows <- 20L
  st
}

test_that("a worker's sum is the local sum of its records", {
  st <- store()
  common <- list(what = "octaves", args = list(), key = NULL, bound = NULL)
  expect_identical(shard_task_sums(st, common, list()),
                   data_sums(st$x, "octaves"))
  common <- list(what = "classes", args = list(K = 9L))
  expect_equal(shard_task_sums(st, common, list()),
               tabulate(st$yf + 1L, 9L))
  expect_equal(shard_records(st, "y", list(net = function(y, o) y - 1)),
               st$yf - 1)
})

test_that("the row norms are kept for the gram, which checks their key", {
  st <- store()
  rows <- c(0L, 4L, 7L)
  common <- list(what = "row_stats", key = "k1", bound = c(2, 2),
                 args = list(intercept = TRUE, residual = NULL,
                             coordinate = FALSE, row_hist = TRUE))
  counts <- shard_task_sums(st, common, list(rows = rows))
  xt <- pmin(pmax(st$x / 2, -1), 1)
  nrm <- sqrt(1 + rowSums(xt[rows + 1L, ]^2))
  expect_equal(st$norm, nrm)
  expect_equal(drop(counts), data_sums(nrm, "signed_octaves")[64:127])
  sc <- structure(list(key = "k1", row_bound = 1.1),
                  class = c("dpsco_shard_scale", "dpsco_sharded"))
  g <- shard_task_sums(st, list(what = "gram", key = "k1", bound = c(2, 2),
                                args = list(w = sc, intercept = TRUE)),
                       list(rows = rows))
  w <- pmin(1, 1.1 / nrm)
  expect_equal(g, crossprod(cbind(1, xt[rows + 1L, ]) * w),
               ignore_attr = TRUE)
  sc$key <- "k2"
  expect_error(shard_resolve(st, list(w = sc), list(rows = rows)),
               "row norms of another fit")
})

test_that("the start's residuals are formed from the worker's records", {
  st <- store()
  fam <- family_object("poisson")
  h <- structure(list(fam = list(multi = FALSE, residual = fam$residual),
                      eta = 0.5),
                 class = c("dpsco_shard_resid", "dpsco_sharded"))
  a <- shard_resolve(st, list(residual = h), list(rows = c(1L, 2L)))
  expect_equal(a$residual, fam$residual(0.5 + st$offset[2:3], st$yf[2:3]) *
                 st$weights[2:3])
  # a per-record argument cut for this worker replaces the common one
  expect_equal(shard_resolve(st, list(val = NULL), list(val = c(TRUE, FALSE)))$val,
               c(TRUE, FALSE))
})
