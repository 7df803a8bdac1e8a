# The small utilities (R/utils.R).

test_that("%||% gives the left side unless it is NULL", {
  expect_identical(NULL %||% 2, 2)
  expect_identical(1 %||% 2, 1)
  # falsy values other than NULL are kept
  expect_identical(FALSE %||% TRUE, FALSE)
  expect_identical(NA %||% 1, NA)
  expect_identical(list() %||% 1, list())
  expect_identical(character() %||% "a", character())
  # the right side is evaluated only when needed
  expect_identical(1 %||% stop("evaluated"), 1)
})

test_that("compact() drops the NULL elements and keeps the other falsy ones", {
  l <- list(a = NULL, b = 0, c = FALSE, d = NA, e = "", f = list(), g = NULL)
  expect_identical(compact(l), list(b = 0, c = FALSE, d = NA, e = "", f = list()))
  expect_identical(compact(list(NULL, NULL)), list())
  expect_identical(compact(list(1, NULL, 3)), list(1, 3))
})

test_that("generic_call() names the generic and unnames a formula method's first argument", {
  call <- quote(dpsco.formula(x = y ~ a + b, data = d, epsilon = matrix(rnorm(2))))
  expect_identical(generic_call(call, "dpsco", formula = TRUE),
                   quote(dpsco(y ~ a + b, data = d, epsilon = matrix(rnorm(2)))))
  # not a formula method: the name x stays
  expect_identical(generic_call(call, "dpsco"),
                   quote(dpsco(x = y ~ a + b, data = d, epsilon = matrix(rnorm(2)))))
  # a first argument named otherwise, or none, is left as it is
  expect_identical(generic_call(quote(cv.dpsco.formula(data = d, x = f)), "cv.dpsco",
                                formula = TRUE),
                   quote(cv.dpsco(data = d, x = f)))
  expect_identical(generic_call(quote(dpsco.default()), "dpsco", formula = TRUE),
                   quote(dpsco()))
  # the call a fit keeps is the generic's as the user wrote it
  set.seed(1)
  df <- data.frame(y = stats::rnorm(50), a = stats::rnorm(50))
  fit <- dpsco(y ~ a, data = df, method = "none", nlambda = 2, tuning = "public")
  expect_identical(fit$call, quote(dpsco(y ~ a, data = df, method = "none",
                                         nlambda = 2, tuning = "public")))
})

test_that("max_threads() is a positive count no larger than the processors or the limit", {
  n <- max_threads()
  expect_type(n, "integer")
  expect_length(n, 1L)
  expect_gte(n, 1L)
  limit <- suppressWarnings(as.integer(Sys.getenv("OMP_THREAD_LIMIT")))
  cores <- parallel::detectCores()
  bound <- max(1L, if (!is.na(limit)) limit else if (!is.na(cores)) cores else 1L)
  expect_lte(n, bound)
})
