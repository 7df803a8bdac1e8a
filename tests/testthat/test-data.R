# Tests for the `blog` dataset (BlogFeedback training data, UCI id 304).
# The reference numbers below were computed by data-raw/blog.R from a separate
# direct read of the target column in blogData_train.csv.

get_blog <- function() {
  e <- new.env(parent = emptyenv())
  utils::data("blog", package = "dpsco", envir = e)
  e$blog
}

test_that("blog has the documented shape", {
  blog <- get_blog()
  expect_s3_class(blog, "data.frame")
  expect_identical(dim(blog), c(52397L, 281L))
  expect_false(anyNA(blog))
  expect_false(anyDuplicated(names(blog)) > 0)
  expect_identical(make.names(names(blog)), names(blog))
})

test_that("blog columns have the documented names", {
  blog <- get_blog()
  idx <- c(1, 5, 50, 51, 61, 62, 63, 262, 263, 276, 280, 281)
  expect_identical(
    names(blog)[idx],
    c("src_comments_total_mean", "src_comments_total_median",
      "src_links_diff_median", "comments_total",
      "hours_since_publication", "post_length",
      "word_001", "word_200", "basetime_mon", "published_sun",
      "parent_comments_mean", "comments_next24h")
  )
  expect_identical(
    names(blog)[51:60],
    c("comments_total", "comments_last24h", "comments_24h_to_48h",
      "comments_first24h", "comments_diff", "links_total", "links_last24h",
      "links_24h_to_48h", "links_first24h", "links_diff")
  )
  expect_identical(names(blog)[6], "src_comments_last24h_mean")
  expect_identical(names(blog)[277:279],
                   c("parents", "parent_comments_min", "parent_comments_max"))
})

test_that("documented identities hold in every row", {
  blog <- get_blog()
  expect_true(all(
    blog$comments_diff == blog$comments_last24h - blog$comments_24h_to_48h
  ))
  expect_true(all(
    blog$links_diff == blog$links_last24h - blog$links_24h_to_48h
  ))
  expect_true(all(rowSums(blog[263:269]) == 1))
  expect_true(all(rowSums(blog[270:276]) == 1))
  words <- as.matrix(blog[63:262])
  expect_true(all(words == 0L | words == 1L))
})

test_that("the target has the expected distribution", {
  blog <- get_blog()
  y <- blog$comments_next24h
  expect_type(y, "integer")
  expect_identical(length(y), 52397L)
  expect_identical(max(y), 1424L)
  expect_identical(min(y), 0L)
  expect_identical(sum(y == 0L), 33559L)
  expect_identical(sum(as.numeric(y)), 354451)
  expect_lt(abs(mean(y) - 6.764719354), 1e-3)
  expect_equal(stats::median(y), 0)
})
