test_that("signal_check() grades the largest released coordinate against noise alone", {
  g0 <- c(10, 0.2, -0.3, 0.1, 0.4)   # intercept first: not penalised
  s <- signal_check(g0, noise_sd = 0.1, penalised = 2:5)
  expect_equal(s$ratio, 4)
  expect_equal(s$noise_max, sqrt(2 * log(8)))
  expect_equal(s$excess, 4 - sqrt(2 * log(8)))
  expect_identical(s$grade, "borderline")
  expect_false(s$detected)
  expect_equal(s$factor, (5 + sqrt(2 * log(8))) / (4 - sqrt(2 * log(8))))
  strong <- signal_check(c(0, 3, 0), 0.1, 2:3)
  expect_identical(strong$grade, "strong")
  expect_true(strong$detected)
  expect_null(strong$factor)
  expect_match(signal_text(strong, 100, 1),
               "^Signal: .* is 30 noise sds, more than 5 sds beyond the 1.7 ")
  none <- signal_check(c(0, 0.1, 0), 0.1, 2:3)
  expect_identical(none$grade, "none")
  expect_null(none$factor)
  expect_match(signal_text(none, 100, 1),
               "what data without signal give at n = 100 and epsilon = 1")
  # the n and epsilon the message names scale with the factor
  txt <- signal_text(s, 1000, 0.5)
  expect_match(txt, format_count(ceiling(1000 * s$factor)), fixed = TRUE)
  expect_match(txt, "judge them on held-out records", fixed = TRUE)
  expect_null(signal_check(g0, 0, 2:5))
  # a fit saved before the grades: detected or not
  old <- list(ratio = 2, level = 5, noise_max = 2.1, detected = FALSE)
  expect_match(signal_text(old, 100, 1), "what data without signal give")
})

test_that("the intercept's noise is taken off each coordinate through the curvature", {
  # a curvature whose intercept column is (1, 2, 0) and a start whose
  # intercept coordinate is 0.5 off: coordinate 2 carries 2 x 0.5 = 1 of
  # it, which the check takes off; its noise sd grows by sqrt(1 + 2^2)
  A <- matrix(c(1, 2, 0, 2, 5, 0, 0, 0, 1), 3)
  a0 <- signal_offset(A, intercept = TRUE, nclass = 1L, penalised = 2:3)
  expect_equal(a0, c(2, 0))
  g0 <- c(0.5, 1 + 0.3, -0.2)
  s <- signal_check(g0, 0.1, 2:3, a0 = a0)
  expect_equal(s$ratio, max(abs(c(0.3 / (0.1 * sqrt(5)), -0.2 / 0.1))))
  expect_true(s$adjusted)
  expect_equal(signal_check(g0, 0.1, 2:3)$ratio, 13)
  expect_match(signal_text(s, 50, 1), "(net of the intercept's noise)", fixed = TRUE)
  expect_null(signal_offset(A, intercept = FALSE, nclass = 1L, penalised = 1:3))
  expect_null(signal_offset(NULL, intercept = TRUE, nclass = 1L, penalised = 2:3))
  expect_null(signal_offset(A, intercept = TRUE, nclass = 2L, penalised = 2:3))
})

test_that("print() and summary() say what the first release supports", {
  set.seed(4)
  n <- 200
  x <- matrix(stats::rnorm(n * 5), n)
  noise_only <- dpsco(x, stats::rnorm(n), epsilon = 0.5)
  expect_false(noise_only$signal$detected)
  expect_true(noise_only$signal$adjusted)
  expect_true(noise_only$signal$grade %in% c("none", "borderline"))
  out <- paste(utils::capture.output(print(noise_only)), collapse = " ")
  sig <- noise_only$signal
  expect_match(out, paste0("No predictor stands out .*from the privacy ",
                           "noise: .* is ", format(signif(sig$ratio, 2)),
                           " noise sds"))
  expect_match(out, format(signif(sqrt(2 * log(10)), 2)), fixed = TRUE)
  expect_match(paste(summary(noise_only)$text, collapse = " "),
               "No predictor stands out")
  # a strong signal at a larger n: graded strong, and said
  n <- 5000
  x <- matrix(stats::rnorm(n * 5), n)
  strong <- dpsco(x, 3 * x[, 1] + stats::rnorm(n), epsilon = 2)
  expect_identical(strong$signal$grade, "strong")
  out <- paste(utils::capture.output(print(strong)), collapse = " ")
  expect_false(grepl("No predictor stands out", out))
  expect_match(out, "at least one predictor stands out from the privacy noise")
})

test_that("a range of y lost in the noise is said, and a declared one is not", {
  # 60 records and 11 columns at epsilon 0.2: y spreads over five
  # octaves, and no octave or window of octaves clears its noise, so the
  # fit takes [-1, 1] for a y of mean 14: its trivial model (and the
  # centre of its domain) lies in that range
  set.seed(9)
  n <- 60
  x <- matrix(stats::rnorm(n * 11), n)
  y <- exp(stats::runif(n, log(2), log(50)))
  lost <- dpsco(x, y, epsilon = 0.2)
  expect_true(lost$y_unresolved)
  expect_identical(privacy(lost)$released$y_range, c(-1, 1))
  expect_lte(abs(lost$a0[[1]]), 1)
  txt <- "The range of y could not be told apart from the privacy noise at n = 60"
  expect_match(paste(utils::capture.output(print(lost)), collapse = " "), txt,
               fixed = TRUE)
  expect_match(paste(summary(lost)$text, collapse = " "), "dpsco_control(y_range = )",
               fixed = TRUE)
  cv <- cv.dpsco(x, y, epsilon = 0.2)
  expect_true(cv$dpsco.fit$y_unresolved)
  expect_match(paste(utils::capture.output(print(cv)), collapse = " "),
               "The range of y could not be told apart", fixed = TRUE)
  expect_match(paste(summary(cv)$text, collapse = " "),
               "The range of y could not be told apart", fixed = TRUE)
  # declared: no release, nothing said, and the centre is near the mean
  known <- dpsco(x, y, epsilon = 0.2, control = dpsco_control(y_range = c(0, 40)))
  expect_null(known$y_unresolved)
  expect_false(grepl("could not be told apart from the privacy noise at n",
                     paste(utils::capture.output(print(known)), collapse = " ")))
  # (within 3 of its noise sds, from the record, of the mean clamped to
  # the declared range)
  sh <- privacy(known)$shares
  centre_sd <- sh$noise_multiplier[sh$part == "centre"] *
    sh$sensitivity[sh$part == "centre"]
  expect_match(sh$mechanism[sh$part == "centre"], "clamped to [0, 40]",
               fixed = TRUE)
  expect_lt(abs(privacy(known)$released$centre - mean(pmin(y, 40))),
            3 * centre_sd)
  # a response the histogram resolves (5,000 records): nothing said
  n <- 5000
  x <- matrix(stats::rnorm(n * 11), n)
  seen <- dpsco(x, exp(stats::runif(n, log(2), log(50))), epsilon = 0.5)
  expect_null(seen$y_unresolved)
  expect_gt(privacy(seen)$released$y_range[2], 20)
})
