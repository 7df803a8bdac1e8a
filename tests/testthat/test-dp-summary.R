# dp_summary(): the private Table 1, against plain-R statistics of the same
# data, the released noise it states, and an audit at the edge records.

table_data <- function(n, seed = 1) {
  set.seed(seed)
  data.frame(age = round(runif(n, 20, 80)), income = rlnorm(n, 10, 1),
             score = rnorm(n, 5, 2),
             smoker = factor(sample(c("no", "yes"), n, TRUE, c(0.8, 0.2)),
                             levels = c("no", "yes")),
             region = sample(c("N", "S", "E"), n, TRUE, c(0.5, 0.3, 0.2)),
             stringsAsFactors = FALSE)
}

# the signed octave of v (plain R): sign times ceiling(log2 |v|)
octave_of <- function(v) sign(v) * ceiling(log2(abs(v)))

test_that("with almost no noise the table is the plain-R statistics", {
  df <- table_data(3000)
  tab <- dp_summary(df, epsilon = 1e4, delta = 1e-6,
                    ranges = list(age = c(18, 90)),
                    levels = list(region = c("N", "S", "E")))
  num <- tab[is.na(tab$level), ]
  expect_identical(num$variable, c("age", "income", "score"))
  # the means: of the columns clamped to their ranges (age's declared; the
  # private ones hold every value here)
  expect_equal(num$lo[1:1], 18)
  expect_true(all(num$lo[2:3] <= sapply(df[2:3], min)) &&
                all(num$hi[2:3] >= sapply(df[2:3], max)))
  expect_equal(num$mean, unname(sapply(df[1:3], mean)), tolerance = 1e-4)
  expect_lt(max(abs(num$mean - sapply(df[1:3], mean)) / num$noise_sd), 6)
  # every octave of the distances is seen: the sd is the sample sd
  expect_equal(num$sd, unname(sapply(df[1:3], sd)), tolerance = 1e-3)
  # the quartiles: in the octave of the distance from the mean that holds
  # the sample quartile, or the next
  for (j in 1:3) {
    q <- quantile(df[[j]], c(0.25, 0.75), names = FALSE) - num$mean[j]
    got <- c(num$q25[j], num$q75[j]) - num$mean[j]
    expect_true(all(abs(octave_of(got) - octave_of(q)) <= 1))
  }
  lev <- tab[!is.na(tab$level), ]
  expect_identical(lev$level, c("no", "yes", "N", "S", "E", "(other)"))
  ref <- c(table(df$smoker) / 3000, table(factor(df$region, c("N", "S", "E"))) / 3000, 0)
  expect_equal(lev$share, unname(ref), tolerance = 1e-3)
})

test_that("at epsilon 1 the means are within 3 stated noise sds in 95% of seeds", {
  df <- table_data(10000)
  truth <- sapply(df[1:3], mean)
  within <- replicate(40, {
    tab <- dp_summary(df[1:4], epsilon = 1, ranges = list(age = c(18, 90)))
    num <- tab[is.na(tab$level), ]
    abs(num$mean - truth) <= 3 * num$noise_sd
  })
  expect_true(all(rowMeans(within) >= 0.95))
  # the quartiles within one octave of the distance from the mean
  tab <- dp_summary(df[1:4], epsilon = 1, ranges = list(age = c(18, 90)))
  num <- tab[is.na(tab$level), ]
  for (j in 1:3) {
    q <- quantile(df[[j]], c(0.25, 0.75), names = FALSE) - num$mean[j]
    got <- c(num$q25[j], num$q75[j]) - num$mean[j]
    expect_true(all(abs(octave_of(got) - octave_of(q)) <= 1))
  }
})

test_that("the record accounts every release exactly, and a budget is debited", {
  df <- table_data(2000)
  b <- dp_budget(3, 1e-5)
  tab <- dp_summary(df, epsilon = 1, budget = b,
                    levels = list(region = c("N", "S", "E")))
  pr <- privacy(tab)
  sh <- pr$shares
  expect_identical(sh$part, paste0("summary_",
                                   c("ranges", "mean", "spread", "moment", "levels")))
  expect_equal(sum(sh$share), 1)
  # Gaussian parts composed exactly: one mechanism with mu^2 the sum
  mu <- sqrt(sum(1 / sh$noise_multiplier^2))
  expect_equal(pr$epsilon_accounted, gauss_eps_ref(mu, pr$delta), tolerance = 1e-6)
  expect_equal(pr$epsilon_accounted, 1, tolerance = 1e-6)
  expect_equal(sh$sensitivity, c(sqrt(3), sqrt(3) / 2000, sqrt(3), sqrt(3) / 2000, sqrt(2)))
  # (the budget composes at its own delta)
  expect_equal(dp_spent(b)$epsilon, gauss_eps_ref(mu, 1e-5), tolerance = 1e-6)
  # a declared range for every numeric column: no range release
  tab2 <- dp_summary(df[1], epsilon = 0.5, ranges = list(age = c(0, 100)))
  expect_identical(privacy(tab2)$shares$part,
                   paste0("summary_", c("mean", "spread", "moment")))
  expect_error(dp_summary(df[1:4], epsilon = 2.5, budget = b),
               class = "dpsco_budget_error")
  expect_output(print(summary(tab)), "released with Gaussian noise and satisfy")
  expect_output(print(tab), "region: (other)", fixed = TRUE)
  # factors alone: n is still the number of rows
  tf <- dp_summary(df["smoker"], epsilon = 1)
  expect_identical(privacy(tf)$public_n, 2000)
  expect_equal(tf$share, unname(c(table(df$smoker)) / 2000), tolerance = 0.02)
})

test_that("bad inputs get errors naming the argument, with no data values", {
  df <- table_data(200)
  expect_error(dp_summary(df[, c("age", "region")], epsilon = 1),
               class = "dpsco_arg_error", regexp = "levels")
  na <- df
  na$income[3] <- NA
  e <- tryCatch(dp_summary(na, levels = list(region = c("N", "S", "E"))),
                error = identity)
  expect_s3_class(e, "dpsco_arg_error")
  expect_identical(e$arg, "data")
  expect_false(grepl("[0-9]", conditionMessage(e)))
  expect_error(dp_summary(df[1:3], ranges = list(smoker = c(0, 1))),
               class = "dpsco_arg_error", regexp = "ranges")
  expect_error(dp_summary(df[1:3], ranges = list(age = c(5, 1))),
               class = "dpsco_arg_error", regexp = "range")
  expect_error(dp_summary(df[1:3], epsilon = 0), class = "dpsco_arg_error",
               regexp = "epsilon")
  expect_error(dp_summary(data.frame(d = Sys.Date() + 1:3)),
               class = "dpsco_arg_error", regexp = "data")
})

test_that("set.seed() reproduces the table, and the user's stream is free of the data", {
  df <- table_data(500)[1:4]
  a <- withr::with_seed(3, dp_summary(df, epsilon = 1))
  b <- withr::with_seed(3, dp_summary(df, epsilon = 1))
  c <- withr::with_seed(4, dp_summary(df, epsilon = 1))
  expect_identical(a$mean, b$mean)
  expect_false(identical(a$mean, c$mean))
  after <- function(d) withr::with_seed(9, {
    dp_summary(d, epsilon = 1, public_n = 500)
    get(".Random.seed", envir = globalenv())
  })
  expect_identical(after(df[-1, ]), after(df))
})

test_that("records at the edges of the domain: no NaN, the same conditions", {
  set.seed(8)
  df <- data.frame(a = rnorm(300), b = rexp(300),
                   g = factor(sample(c("u", "v"), 300, TRUE), c("u", "v")))
  run <- function(d) capture_conditions(withr::with_seed(2,
    dp_summary(d, epsilon = 1, public_n = 300)))
  base <- run(df[-300, ])
  for (edge in list(c(1e308, -1e308), c(-.Machine$double.xmax, 1e308), c(0, 0))) {
    d <- df
    d[300, c("a", "b")] <- edge
    r <- run(d)
    expect_identical(r$said, base$said)
    num <- as.data.frame(r$value)[, c("mean", "sd", "q25", "median", "q75",
                                      "lo", "hi", "sd_clamp", "noise_sd")]
    expect_true(all(is.finite(unlist(num[1:2, ]))))
    expect_true(all(is.finite(r$value$share[3:4])))
    # the added record moves each clamped mean by at most its half-range / n
    expect_true(all(abs(r$value$mean[1:2] - base$value$mean[1:2]) <=
                      6 * r$value$noise_sd[1:2] + (r$value$hi[1:2] - r$value$lo[1:2]) / 300))
  }
})
