# R/shards-handles.R: the settings' generics on sharded records return
# handles for the workers (their values against the workers' own sums are
# in test-shards.R); on records in memory they compute as before.

fake <- function(cls, ...)
  structure(list(...), class = c(cls, "dpsco_sharded"))

test_that("record_rows() subsets local records and marks a sharded offset", {
  v <- c(5, 6, 7, 8)
  expect_equal(record_rows(v, c(0L, 3L)), c(5, 8))
  m <- matrix(1:8, 4)
  expect_equal(record_rows(m, 1L), matrix(c(2L, 6L), 1))
  expect_null(record_rows(NULL, 1L))
  off <- fake("dpsco_shard_offset", key = "o1")
  expect_equal(record_rows(off, c(2L, 9L))$rows, c(2L, 9L))
  expect_null(record_rows(off, NULL)$rows)
  y <- fake("dpsco_shard_y", key = "y1")
  expect_identical(record_rows(y, 1:3), y)
})

test_that("scale_clamp() of a sharded x records the bound under a new key", {
  x <- fake("dpsco_shard_x", key = "k0", bound = NULL)
  a <- scale_clamp(x, c(2, 3))
  b <- scale_clamp(x, c(2, 3))
  expect_equal(a$bound, c(2, 3))
  expect_false(identical(a$key, "k0"))
  expect_false(identical(a$key, b$key))
  expect_equal(scale_clamp(matrix(c(-5, 1, 0.5, 9), 2), c(2, 3)),
               matrix(c(-1, 0.5, 0.5 / 3, 1), 2))
  expect_identical(check_design(x), x)
})

test_that("the residuals, offsets and weights of sharded records are handles", {
  fam <- family_object("poisson")
  y <- fake("dpsco_shard_y", key = "y1")
  r <- start_residuals(fam, 0.3, y)
  expect_s3_class(r, "dpsco_shard_resid")
  expect_equal(r$eta, 0.3)
  # in memory: the family's residual at the start, times the weights
  yy <- c(0, 1, 4)
  expect_equal(start_residuals(fam, 0.3, yy, c(1, 0.5, 1), c(0, 0, log(2))),
               fam$residual(0.3 + c(0, 0, log(2)), yy) * c(1, 0.5, 1))
  expect_equal(net_offset(y, fam, NULL)$net, fam$net_offset)
  off <- fake("dpsco_shard_offset", key = "o1")
  expect_equal(exposure_weights(off, NULL, 4)$exposure, 4)
  expect_equal(exposure_weights(c(0, log(8)), c(1, 0.5), 4),
               c(1 * exp(-log(4)), 0.5))
  sc <- row_scale(fake("dpsco_shard_norms", key = "k1"), 2)
  expect_equal(sc$row_bound, 2)
  expect_true(weigh_rows(sc, exposure_weights(off, NULL, 4))$weighted)
  expect_equal(weigh_rows(row_scale(c(1, 4), 2), c(1, 0.25)),
               c(1, 0.5 * 0.5))
})
