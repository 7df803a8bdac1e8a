# What the accountant and the privacy loss distributions share
# (R/accountant-memo.R): the active components and the memo.

test_that("acc_active() marks the components that release something", {
  cm <- acc_cm(z = c(1, Inf, 2, 3, 0.5), q = c(0.1, 0.1, 0, 1, 1),
               steps = c(10, 10, 10, 0, 1))
  expect_s3_class(cm, "dpsco_components")
  # infinite noise, a sample rate of 0 and no steps release nothing
  expect_identical(acc_active(cm), c(TRUE, FALSE, FALSE, FALSE, TRUE))
})

test_that("acc_key() writes every input to its last bit", {
  expect_identical(acc_key(1, c(2, 0.5), 3L), "1|2,0.5|3")
  a <- 0.1
  b <- 0.1 + 2^-56                     # the next double above 0.1
  expect_false(a == b)
  # the two agree to 16 significant digits and differ in the 17th
  expect_identical(sprintf("%.16g", a), sprintf("%.16g", b))
  expect_false(identical(acc_key(a), acc_key(b)))
  expect_identical(acc_key(a), acc_key(0.1))
  cm <- acc_cm(c(1, 2), c(0.5, 1), c(3, 4))
  expect_identical(acc_cm_key(cm), "1,2|0.5,1|3,4")
})

test_that("acc_memo() computes once per key and returns the cached value", {
  acc_cache_clear()
  calls <- 0
  compute <- function() {
    calls <<- calls + 1
    calls * 10
  }
  expect_identical(acc_memo("memo_test", acc_key(1, 2), compute), 10)
  expect_identical(acc_memo("memo_test", acc_key(1, 2), compute), 10)
  expect_identical(calls, 1)
  # another key or another kind is computed afresh
  expect_identical(acc_memo("memo_test", acc_key(1, 3), compute), 20)
  expect_identical(acc_memo("memo_other", acc_key(1, 2), compute), 30)
  expect_identical(calls, 3)
})

test_that("the memo starts afresh beyond acc_cache_max entries", {
  acc_cache_clear()
  calls <- 0
  compute <- function() {
    calls <<- calls + 1
    calls
  }
  for (i in seq_len(acc_cache_max))
    acc_memo("fill", acc_key(i), compute)
  expect_identical(length(acc_cache), as.integer(acc_cache_max))
  expect_identical(acc_memo("fill", acc_key(1), compute), 1)   # still cached
  # one more entry empties the cache and holds only itself
  acc_memo("fill", acc_key(0), compute)
  expect_identical(length(acc_cache), 1L)
  expect_identical(acc_memo("fill", acc_key(1), compute), acc_cache_max + 2)
  acc_cache_clear()
})

test_that("a memoised accountant result equals the one computed afresh", {
  acc_cache_clear()
  e1 <- dp_epsilon(1.1, 0.01, 100, 1e-5)
  expect_gt(length(acc_cache), 0L)
  e2 <- dp_epsilon(1.1, 0.01, 100, 1e-5)
  acc_cache_clear()
  expect_identical(e2, e1)
  expect_identical(dp_epsilon(1.1, 0.01, 100, 1e-5), e1)
})
