# The methods of a cv.dpsco() fit (R/cv-methods.R): coef() and predict() at
# lambda.min against the training part's path, print() and summary()
# against the fit's own fields (no negative loss, the private choice
# labelled, the guarantee stated), and the refusal of lambda.1se.

test_that("coef() and predict() use lambda.min of the path fitted on the training part", {
  d <- cv_data(n = 800)
  set.seed(13)
  cvf <- cv.dpsco(d$x, d$y, nlambda = 6)
  fit <- cvf$dpsco.fit
  k <- cvf$index
  expect_equal(unname(coef(cvf)[, 1]), unname(c(fit$a0[k], fit$beta[, k])),
               tolerance = 1e-12)
  expect_equal(predict(cvf, d$x[1:5, ]), predict(fit, d$x[1:5, ], s = cvf$lambda.min))
  expect_equal(coef(cvf, s = fit$lambda[2]), coef(fit, s = fit$lambda[2]))
  expect_identical(cvf$nzero, fit$df)
  out <- capture.output(print(cvf))
  # the public expected sizes of the parts (n = 800, holdout 0.2)
  expect_identical(c(cvf$n_fit, cvf$n_hold), c(640, 160))
  expect_true(any(grepl("expected 640 training and 160 validation records",
                        out, fixed = TRUE)))
  # `...` of coef() and predict() takes nothing: an argument there is an
  # error naming it (glmnet's exact = TRUE with its own reason)
  err <- expect_error(coef(cvf, exact = TRUE), class = "dpsco_arg_error")
  expect_identical(err$arg, "exact")
  expect_match(conditionMessage(err), "refitting", fixed = TRUE)
  err <- expect_error(predict(cvf, d$x[1:5, ], foo = 1), class = "dpsco_arg_error")
  expect_identical(err$arg, "foo")
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_invisible(plot(cvf))
})

# ---- the display -----------------------------------------------------------------

# The Measure column of print(cvfit), read back from the printed table.
printed_measure <- function(cvf) {
  out <- capture.output(print(cvf))
  i <- grep("^private choice", out)
  head <- strsplit(trimws(out[i - 1L]), " +")[[1]]
  vals <- strsplit(trimws(sub("^private choice", "", out[i])), " +")[[1]]
  list(out = out, measure = as.numeric(vals[match("Measure", head)]),
       header = head)
}

test_that("print(cvfit) never shows a negative loss and labels the private choice", {
  # small data with a true MSE about 1 (t(5) noise of variance 1 on a
  # bounded design, epsilon 10): the curve's noise is larger than the losses,
  # so raw releases go below 0, and the shown one is the release projected
  # on [0, L]
  set.seed(10)
  n <- 300
  x <- matrix(runif(n * 2, -1, 1), n, 2)
  y <- drop(x %*% c(1, -1)) + rt(n, df = 5) / sqrt(5 / 3)
  raw_neg <- shown_at_choice <- 0
  for (seed in 1:8) {
    set.seed(seed)
    cvf <- cv.dpsco(x, y, method = "clip", epsilon = 10, curve = 0.25,
                    nlambda = 5)
    L <- cvf$loss_bound
    expect_equal(unname(cvf$cvm), pmin(pmax(unname(cvf$cvm_noisy), 0), L))
    expect_true(all(c(cvf$cvm, cvf$cvlo, cvf$cvup) >= 0))
    expect_true(all(c(cvf$cvm, cvf$cvlo, cvf$cvup) <= L))
    pm <- printed_measure(cvf)
    expect_gte(pm$measure, 0)
    expect_equal(pm$measure, unname(signif(cvf$cvm[cvf$index], 4)))
    expect_identical(pm$header, c("Lambda", "Index", "Measure", "SD", "Nonzero"))
    # the row is the private choice, and the print says how it was made
    expect_false(any(grepl("^min ", pm$out)))
    txt <- paste(pm$out, collapse = " ")
    expect_match(txt, "drawn by the exponential mechanism", fixed = TRUE)
    expect_match(txt, paste0("noisy private release of the validation curve (noise sd ",
                             format(signif(cvf$cvsd, 4)), ")"), fixed = TRUE)
    raw_neg <- raw_neg + (cvf$cvm_noisy[cvf$index] < 0)
  }
  # the test bites: a raw release at the choice went below 0
  expect_gt(raw_neg, 0)
  # the exact (non-private) curve is the minimum and is labelled so
  set.seed(1)
  cvn <- cv.dpsco(x, y, method = "none", nlambda = 4, iterations = 20)
  out <- capture.output(print(cvn))
  expect_true(any(grepl("^min ", out)))
  expect_identical(cvn$index, which.min(cvn$cvm))
})

test_that("the default releases no curve: the whole validation budget chooses", {
  # bench/cv_display.R: on blog at epsilon 1 the curve's noise sd exceeds
  # the spread of the true validation losses at every share (ratio 1.25 on
  # average even at share 0.99), so by default no curve is released
  expect_identical(formals(cv.dpsco.default)$curve, 0)
  d <- cv_data(n = 600)
  set.seed(21)
  cvf <- cv.dpsco(d$x, d$y, nlambda = 5)
  expect_null(cvf$cvm)
  expect_null(cvf$cvm_noisy)
  pr <- privacy(cvf)
  sel <- pr$shares[pr$shares$pool == "validation", ]
  expect_identical(sel$part, "selection")
  expect_identical(sel$share, 1)
  expect_identical(sel$epsilon_alone, 1)
  pm <- capture.output(print(cvf))
  expect_true(any(grepl("^private choice", pm)))
  expect_false(any(grepl("Measure ", pm[grep("^private choice", pm) - 1L])))
  expect_match(paste(pm, collapse = " "), "No validation curve was released",
               fixed = TRUE)
})

test_that("summary(cvfit) gives the choice, its size, the measure and the guarantee", {
  d <- cv_data(n = 800)
  for (curve in c(0.3, 0)) {
    set.seed(5)
    cvf <- cv.dpsco(d$x, d$y, method = "clip", epsilon = 1, curve = curve,
                    nlambda = 5)
    sm <- summary(cvf)
    expect_s3_class(sm, "summary.cv.dpsco")
    i <- cvf$index
    expect_identical(sm$name, "lambda")
    expect_identical(sm$value, cvf$lambda[i])
    expect_identical(sm$index, i)
    expect_identical(sm$nzero, cvf$dpsco.fit$df[i])
    expect_identical(sm$measure, "Mean-squared error")
    expect_identical(sm$guarantee, privacy(cvf)$guarantee)
    expect_identical(sm$privacy, privacy(cvf))
    out <- capture.output(res <- withVisible(print(sm)))
    expect_false(res$visible)
    txt <- paste(out, collapse = " ")
    expect_match(txt, sprintf("lambda = %s, position %d of 5, with %d non-zero",
                              num(cvf$lambda[i]), i, cvf$nzero[i]), fixed = TRUE)
    # the selection's epsilon: the validation pool's share for the choice
    expect_match(txt, sprintf("exponential mechanism (report-noisy-min) with epsilon = %s",
                              num(1 - curve)), fixed = TRUE)
    # the guarantee sentence of privacy(), word for word (rewrapped)
    expect_match(gsub(" +", " ", txt), privacy(cvf)$guarantee,
                 fixed = TRUE)
    # the fit on the training part as summary.dpsco() describes it
    expect_match(gsub(" +", " ", txt), substr(summary(cvf$dpsco.fit)$text[1], 1, 60),
                 fixed = TRUE)
    tab_line <- grep("^private choice", out, value = TRUE)
    expect_length(tab_line, 1)
    if (curve > 0) {
      expect_identical(sm$cvm, cvf$cvm[i])
      expect_identical(sm$cvsd, cvf$cvsd)
      expect_gte(sm$cvm, 0)
      expect_match(txt, sprintf("noise sd %s", num(cvf$cvsd)), fixed = TRUE)
      expect_match(txt, sprintf("at the choice it reads %s", num(cvf$cvm[i])),
                   fixed = TRUE)
    } else {
      expect_null(sm$cvm)
      expect_match(txt, "No validation curve was released (curve = 0).", fixed = TRUE)
    }
  }
})

test_that("lambda.1se is refused with the reason and what to use instead", {
  d <- cv_data(n = 400)
  set.seed(2)
  cvf <- cv.dpsco(d$x, d$y, nlambda = 4, curve = 0.25)
  # glmnet users also write s = cvfit$lambda.1se: NA here, the same error
  # (it used to be NULL, which silently gave lambda.min)
  expect_identical(cvf$lambda.1se, NA_real_)
  for (f in list(function() coef(cvf, s = "lambda.1se"),
                 function() predict(cvf, d$x[1:2, ], s = "lambda.1se"),
                 function() coef(cvf, s = cvf$lambda.1se),
                 function() predict(cvf, d$x[1:2, ], s = cvf$lambda.1se))) {
    err <- expect_error(f(), class = "dpsco_arg_error")
    expect_identical(err$arg, "s")
    msg <- conditionMessage(err)
    expect_match(msg, "\"lambda.1se\" is not available for a private choice", fixed = TRUE)
    expect_match(msg, "does not release", fixed = TRUE)
    expect_match(msg, "s = cvfit$lambda[cvfit$index - 1]", fixed = TRUE)
  }
  # the advice works: a neighbouring released penalty is a sparser fit
  if (cvf$index > 1)
    expect_equal(coef(cvf, s = cvf$lambda[cvf$index - 1]),
                 coef(cvf$dpsco.fit, s = cvf$lambda[cvf$index - 1]))
})

test_that("print() and summary() of cv.dpsco state the privacy status", {
  d <- cv_data(n = 400)
  set.seed(12)
  expect_warning(cvs <- cv.dpsco(d$x, d$y, epsilon = 1, nlambda = 3,
                                 standardize = TRUE),
                 class = "dpsco_privacy_warning")
  set.seed(12)
  cv0 <- cv.dpsco(d$x, d$y, epsilon = 1, nlambda = 3)
  cvn <- cv.dpsco(d$x, d$y, method = "none", nlambda = 3)
  # the training fit's standardisation is not covered: the procedure's
  # record, as well as the fit's, says so
  expect_identical(cvs$privacy$not_covered$reason, std_reason)
  expect_identical(cvs$privacy$not_covered,
                   cvs$dpsco.fit$privacy$not_covered)
  out <- capture.output(print(cvs))
  i <- which(out == paste0(status_not_covered, ":"))
  expect_length(i, 1L)
  expect_identical(out[i + 1L], paste("  -", std_item))
  expect_identical(capture.output(print(cv0))[length(capture.output(print(cv0)))],
                   status_covered)
  out <- capture.output(print(cvn))
  expect_identical(out[length(out)], paste0(status_not_private, "."))
  # summary(): the privacy paragraph ends with the status
  priv <- summary(cvs)$text[4]
  expect_true(endsWith(priv, paste0(" ", status_not_covered, ": ", std_item,
                                    ".")))
  expect_true(endsWith(summary(cv0)$text[4], paste0(" ", status_covered)))
  expect_true(endsWith(summary(cvn)$text[4],
                       paste0(" ", status_not_private, ".")))
  expect_match(flat_text(capture.output(print(summary(cvs)))),
               paste0(status_not_covered, ": ", std_item, "."), fixed = TRUE)
})
