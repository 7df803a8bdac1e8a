# coef / predict / print / summary of dpsco fits, checked against
# computations written out by hand.

meth_gauss <- function(intercept = TRUE) {
  set.seed(202)
  n <- 120
  p <- 4
  x <- matrix(runif(n * p, -1, 1), n, p)
  y <- drop(x %*% c(1.5, -1, 0.5, 0)) + 0.5 + rnorm(n, sd = 0.3)
  lam <- c(0.6, 0.25, 0.1, 0.03, 0.005)
  fit <- dpsco(tuning = "public", x, y, method = "none", lambda = lam, iterations = 40,
               step_size = 0.4, intercept = intercept)
  list(x = x, y = y, fit = fit, lam = lam)
}

meth_binom <- function() {
  set.seed(303)
  n <- 150
  p <- 3
  x <- matrix(runif(n * p, -1, 1), n, p)
  y <- as.numeric(runif(n) < plogis(drop(x %*% c(3, -2, 0)) + 0.3))
  lam <- c(0.2, 0.05, 0.01)
  fit <- dpsco(tuning = "public", x, y, family = "binomial", method = "none", lambda = lam,
               iterations = 40, step_size = 1)
  list(x = x, y = y, fit = fit, lam = lam)
}

# hand interpolation in lambda between neighbouring fitted columns
hand_coef <- function(fit, s) {
  B <- rbind(fit$a0, fit$beta)
  lam <- fit$lambda
  K <- length(lam)
  vapply(s, function(v) {
    if (v >= lam[1]) return(B[, 1])
    if (v <= lam[K]) return(B[, K])
    j <- max(which(lam >= v))          # larger neighbour
    if (lam[j] == v) return(B[, j])
    frac <- (lam[j] - v) / (lam[j] - lam[j + 1])
    B[, j] + frac * (B[, j + 1] - B[, j])
  }, numeric(nrow(B)))
}

test_that("the fixture path has zero and non-zero coefficients", {
  g <- meth_gauss()
  expect_true(any(g$fit$beta == 0))
  expect_true(any(g$fit$beta != 0))
  expect_gt(length(unique(g$fit$df)), 1)
})

test_that("coef() without s is rbind(a0, beta) with named rows and columns", {
  g <- meth_gauss()
  fit <- g$fit
  cf <- coef(fit)
  expect_identical(dim(cf), c(5L, 5L))
  expect_identical(rownames(cf), c("(Intercept)", paste0("V", 1:4)))
  expect_identical(colnames(cf), paste0("s", 0:4))
  expect_equal(unname(cf[1, ]), unname(fit$a0))
  expect_equal(unname(cf[-1, ]), unname(fit$beta))
  expect_identical(predict(fit, type = "coefficients"), cf)
})

test_that("coef() at the fitted lambdas equals the fitted columns", {
  g <- meth_gauss()
  fit <- g$fit
  B <- unname(rbind(fit$a0, fit$beta))
  cf <- coef(fit, s = fit$lambda)
  expect_equal(unname(cf), B, tolerance = 1e-14)
  expect_identical(rownames(cf), c("(Intercept)", paste0("V", 1:4)))
  for (j in seq_along(fit$lambda)) {
    expect_equal(unname(coef(fit, s = fit$lambda[j])[, 1]), B[, j],
                 tolerance = 1e-14)
  }
})

test_that("coef() between two lambdas is the linear interpolation in lambda", {
  g <- meth_gauss()
  fit <- g$fit
  lam <- fit$lambda
  B <- unname(rbind(fit$a0, fit$beta))
  # 30% of the way from lam[2] down to lam[3]
  s <- lam[2] - 0.3 * (lam[2] - lam[3])
  expected <- 0.7 * B[, 2] + 0.3 * B[, 3]
  expect_equal(unname(coef(fit, s = s)[, 1]), expected, tolerance = 1e-12)
  # an arbitrary, unsorted vector of s, including both ends and outside
  s_vec <- c(0.07, 0.5, 0.0301, 0.2, 0.011)
  cf <- coef(fit, s = s_vec)
  expect_identical(colnames(cf), paste0("s", 1:5))
  expect_equal(unname(cf), unname(hand_coef(fit, s_vec)), tolerance = 1e-12)
  # the interpolation really is in lambda (not log lambda): midpoint check
  mid <- (lam[4] + lam[5]) / 2
  expect_equal(unname(coef(fit, s = mid)[, 1]), (B[, 4] + B[, 5]) / 2,
               tolerance = 1e-12)
  expect_false(isTRUE(all.equal(B[, 4], B[, 5])))
})

test_that("coef() clamps s outside the fitted range to the end columns", {
  g <- meth_gauss()
  fit <- g$fit
  B <- unname(rbind(fit$a0, fit$beta))
  K <- length(fit$lambda)
  cf <- coef(fit, s = c(10, 1e-8, 0, max(fit$lambda) * 1.0001))
  expect_equal(unname(cf[, 1]), B[, 1], tolerance = 1e-14)
  expect_equal(unname(cf[, 2]), B[, K], tolerance = 1e-14)
  expect_equal(unname(cf[, 3]), B[, K], tolerance = 1e-14)
  expect_equal(unname(cf[, 4]), B[, 1], tolerance = 1e-14)
})

test_that("coef() of a fit without intercept has a zero intercept row", {
  g <- meth_gauss(intercept = FALSE)
  fit <- g$fit
  expect_identical(unname(fit$a0), rep(0, 5))
  cf <- coef(fit, s = c(0.4, 0.02))
  expect_identical(unname(cf[1, ]), c(0, 0))
  expect_equal(unname(cf[-1, ]), unname(hand_coef(fit, c(0.4, 0.02))[-1, ]),
               tolerance = 1e-12)
})

test_that("a single-lambda fit returns its column for every s", {
  g <- meth_gauss()
  fit1 <- dpsco(tuning = "public", g$x, g$y, method = "none", lambda = 0.05, iterations = 20,
                step_size = 0.4)
  B <- unname(rbind(fit1$a0, fit1$beta))
  cf <- coef(fit1, s = c(1, 0.05, 0.001))
  expect_equal(unname(cf), B[, c(1, 1, 1)], tolerance = 0)
})

test_that("predict(type = 'link') is cbind(1, newx) %*% coef", {
  g <- meth_gauss()
  fit <- g$fit
  set.seed(9)
  newx <- matrix(runif(7 * 4, -1, 1), 7, 4)
  B <- rbind(fit$a0, fit$beta)
  # by hand, element by element
  hand <- matrix(NA_real_, 7, 5)
  for (i in 1:7) for (j in 1:5)
    hand[i, j] <- B[1, j] + sum(newx[i, ] * B[-1, j])
  link <- predict(fit, newx)
  expect_identical(dim(link), c(7L, 5L))
  expect_equal(unname(link), hand, tolerance = 1e-12)
  expect_equal(unname(predict(fit, newx, type = "link")), hand,
               tolerance = 1e-12)
  # gaussian response is the link
  expect_equal(unname(predict(fit, newx, type = "response")), hand,
               tolerance = 1e-12)
  # at interpolated s
  s <- c(0.15, 0.02)
  hs <- cbind(1, newx) %*% hand_coef(fit, s)
  expect_equal(unname(predict(fit, newx, s = s)), unname(hs), tolerance = 1e-12)
  # a numeric data frame newx is accepted
  expect_equal(unname(predict(fit, as.data.frame(newx))), hand,
               tolerance = 1e-12)
})

test_that("columns are named as glmnet's: s0, s1, ... on the path, s1, s2, ... at s", {
  skip_if_not_installed("glmnet")
  g <- meth_gauss()
  b <- meth_binom()
  gg <- glmnet::glmnet(g$x, g$y, lambda = g$lam)
  gb <- glmnet::glmnet(b$x, b$y, family = "binomial", lambda = b$lam)
  s <- c(0.3, 0.05, 0.01)
  nx <- g$x[1:3, ]
  expect_identical(colnames(coef(g$fit)), colnames(as.matrix(coef(gg))))
  expect_identical(colnames(coef(g$fit, s = s)),
                   colnames(as.matrix(coef(gg, s = s))))
  expect_identical(colnames(coef(g$fit, s = s)), c("s1", "s2", "s3"))
  expect_identical(colnames(predict(g$fit, nx)), colnames(predict(gg, nx)))
  expect_identical(colnames(predict(g$fit, nx, s = s)),
                   colnames(predict(gg, nx, s = s)))
  expect_identical(colnames(predict(g$fit, nx, s = 0.1)), "s1")
  expect_identical(colnames(predict(b$fit, b$x[1:3, ], s = s, type = "class")),
                   colnames(predict(gb, b$x[1:3, ], s = s, type = "class")))
  # multinomial: the same names per class and along the third dimension
  # (glmnet names a given s 1, 2, ... there; see ?coef.dpsco_multinomial)
  d <- mn_data()
  set.seed(1)
  fm <- dpsco(d$x, d$y, family = "multinomial", epsilon = 2, nlambda = 5)
  expect_identical(lapply(coef(fm), colnames),
                   list(u = paste0("s", 0:4), v = paste0("s", 0:4),
                        w = paste0("s", 0:4)))
  sm <- fm$lambda[c(2, 4)]
  expect_identical(colnames(coef(fm, s = sm)$v), c("s1", "s2"))
  expect_identical(dimnames(predict(fm, d$x[1:2, ], s = sm))[[3]],
                   c("s1", "s2"))
  expect_identical(colnames(predict(fm, d$x[1:2, ], s = sm, type = "class")),
                   c("s1", "s2"))
})

test_that("binomial predict: response is plogis(link), class thresholds at 0.5", {
  b <- meth_binom()
  fit <- b$fit
  newx <- b$x[1:40, ]
  eta <- cbind(1, newx) %*% rbind(fit$a0, fit$beta)
  prob <- 1 / (1 + exp(-eta))
  expect_equal(unname(predict(fit, newx, type = "link")), unname(eta),
               tolerance = 1e-12)
  expect_equal(unname(predict(fit, newx, type = "response")), unname(prob),
               tolerance = 1e-12)
  cls <- predict(fit, newx, type = "class")
  expect_identical(dim(cls), dim(prob))
  expect_true(is.character(cls))
  expect_identical(unname(cls), unname(ifelse(prob > 0.5, "1", "0")))
  # both classes occur, so the threshold is exercised
  expect_true(all(c("0", "1") %in% cls))
  # at an interpolated s
  s <- 0.03
  eta_s <- cbind(1, newx) %*% hand_coef(fit, s)
  expect_equal(unname(predict(fit, newx, s = s, type = "response")),
               unname(1 / (1 + exp(-eta_s))), tolerance = 1e-12)
})

test_that("predict(type = 'nonzero') gives which(beta != 0) per column", {
  g <- meth_gauss()
  fit <- g$fit
  nz <- predict(fit, type = "nonzero")
  expect_length(nz, 5)
  for (j in 1:5) {
    expect_identical(unname(nz[[j]]), seq_len(4)[fit$beta[, j] != 0])
  }
  # at an s between lambdas: union of the neighbours' supports
  nz_s <- predict(fit, type = "nonzero", s = 0.4)
  cs <- hand_coef(fit, 0.4)[-1, 1]
  expect_identical(unname(nz_s[[1]]), seq_len(4)[cs != 0])
})

test_that("df counts the non-zero coefficients of each column", {
  g <- meth_gauss()
  fit <- g$fit
  hand <- numeric(ncol(fit$beta))
  for (j in seq_len(ncol(fit$beta))) for (i in seq_len(nrow(fit$beta)))
    hand[j] <- hand[j] + (abs(fit$beta[i, j]) > 0)
  expect_equal(unname(fit$df), hand)
  b <- meth_binom()
  expect_equal(unname(b$fit$df), unname(colSums(b$fit$beta != 0)))
})

# parse the Df / Lambda table printed by print.dpsco
parse_print_table <- function(out) {
  h <- grep("^\\s*Df\\s+Lambda\\s*$", out)
  stopifnot(length(h) == 1L)
  end <- h
  while (end < length(out) && nzchar(trimws(out[end + 1L]))) end <- end + 1L
  utils::read.table(text = out[h:end], header = TRUE)
}

test_that("print() shows a Df/Lambda table equal to df and signif(lambda)", {
  g <- meth_gauss()
  fit <- g$fit
  res <- NULL
  out <- capture.output(res <- withVisible(print(fit)))
  expect_false(res$visible)
  expect_identical(res$value, fit)
  tab <- parse_print_table(out)
  expect_identical(nrow(tab), length(fit$lambda))
  expect_equal(tab$Df, unname(fit$df))
  expect_equal(tab$Lambda, signif(fit$lambda, 4), tolerance = 1e-12)
  expect_true(any(grepl("SPGD, not private", out, fixed = TRUE)))
  expect_true(any(grepl("epsilon = Inf", out, fixed = TRUE)))

  # a private fit with lambdas needing rounding, and another digits value
  set.seed(4)
  fp <- dpsco(tuning = "public", g$x, g$y, method = "holland", epsilon = 2, delta = 1e-3,
              iterations = 3, nlambda = 4)
  out3 <- capture.output(print(fp, digits = 3))
  tab3 <- parse_print_table(out3)
  expect_equal(tab3$Lambda, signif(fp$lambda, 3), tolerance = 1e-12)
  expect_false(isTRUE(all.equal(signif(fp$lambda, 3), fp$lambda)))
  expect_equal(tab3$Df, unname(fp$df))
  expect_true(any(grepl("DP-SPGD(H), Holland estimator", out3, fixed = TRUE)))
  # the privacy line: target, accounted epsilon (at 3 digits), path, calibration
  acc <- privacy(fp)$epsilon_accounted
  expect_lte(acc, 2)
  expect_true(any(out3 == sprintf(paste0(
    "Privacy: target (epsilon, delta) = (2, 0.001), accounted epsilon %s, ",
    "over 4 lambdas x 3 steps, calibration \"accountant\""),
    format(signif(acc, 3)))))
  # with the paper's scales the accounted epsilon is what they deliver
  fpp <- dpsco(tuning = "public", g$x, g$y, method = "holland", epsilon = 2, delta = 1e-3,
               iterations = 3, nlambda = 4, calibration = "paper")
  z <- 2 * sqrt(log(4 / 1e-3)) / (2 / 4)
  acc_p <- dp_epsilon(z, 1, 12, 1e-3)
  outp <- capture.output(print(fpp))
  expect_true(any(outp == sprintf(paste0(
    "Privacy: target (epsilon, delta) = (2, 0.001), accounted epsilon %s, ",
    "over 4 lambdas x 3 steps, calibration \"paper\""),
    format(signif(acc_p, 4)))))
})

test_that("summary() text states epsilon, delta and the noise sd of the record", {
  g <- meth_gauss()
  n <- nrow(g$x)
  set.seed(8)
  eps <- 1.5
  del <- 2e-4
  K <- 4
  T <- 3
  fp <- dpsco(tuning = "public", g$x, g$y, method = "clip", epsilon = eps, delta = del,
              iterations = T, nlambda = K, calibration = "paper",
              control = dpsco_control(clip = 2))
  # independent noise sd: the paper's z times the sensitivity C / m, m = n
  z <- sqrt(log(K / del)) / (eps / K)
  sd_hand <- z * 2 / n
  acc <- dp_epsilon(z, 1, K * T, del)
  sm <- summary(fp)
  expect_s3_class(sm, "summary.dpsco")
  txt <- paste(sm$text, collapse = " ")
  expect_true(grepl(paste0("standard deviation ", num(sd_hand)), txt,
                    fixed = TRUE))
  expect_true(grepl(paste0("noise multiplier ", num(z)), txt, fixed = TRUE))
  expect_true(grepl(paste0("L2 sensitivity ", num(2 / n)), txt, fixed = TRUE))
  expect_true(grepl(sprintf("Each of the %d x %d steps", K, T), txt,
                    fixed = TRUE))
  expect_true(grepl("Poisson batch at rate 1 ", txt, fixed = TRUE))
  # the paper's per-lambda budget and what it delivers over the path
  expect_true(grepl(sprintf("printed in Xie et al. for (%s, %s) per penalty",
                            num(eps / K), num(del / K)), txt, fixed = TRUE))
  expect_true(grepl(sprintf("they give epsilon = %s at delta = %s", num(acc),
                            num(del)), txt, fixed = TRUE))
  # below the target here, so no overshoot factor; no DP claim at the target
  expect_lt(acc, eps)
  expect_false(grepl("times the nominal", txt, fixed = TRUE))
  expect_false(grepl("differentially private", txt, fixed = TRUE))
  expect_true(grepl(sprintf("n = %d records", n), txt, fixed = TRUE))
  expect_true(grepl(sprintf("Treated as public: n = %d, the number of records (not protected)", n),
                    txt, fixed = TRUE))
  # the guarantee sentence of the record opens the privacy paragraph
  expect_true(grepl(paste("Privacy:", fp$privacy$guarantee), txt, fixed = TRUE))
  expect_true(grepl(sprintf("with the number of records n = %d treated as public", n),
                    txt, fixed = TRUE))
  expect_false(grepl("add/remove-one adjacency", txt, fixed = TRUE))
  expect_identical(sm$privacy, fp$privacy)
  expect_equal(sm$path, data.frame(Df = fp$df, Lambda = fp$lambda))
  # print.summary.dpsco shows the numbers and returns invisibly
  res <- NULL
  out <- capture.output(res <- withVisible(print(sm)))
  expect_false(res$visible)
  all_out <- paste(out, collapse = " ")
  expect_true(grepl(num(sd_hand), all_out, fixed = TRUE))
  expect_true(grepl(num(del), all_out, fixed = TRUE))

  # the default calibration claims (epsilon, delta)-DP and gives the
  # accountant's epsilon
  set.seed(8)
  fa <- dpsco(tuning = "public", g$x, g$y, method = "clip", epsilon = eps, delta = del,
              iterations = T, nlambda = K, control = dpsco_control(clip = 2))
  ra <- privacy(fa)
  ta <- paste(summary(fa)$text, collapse = " ")
  expect_true(grepl(sprintf("(%s, %s)-differentially private", num(eps),
                            num(del)), ta, fixed = TRUE))
  expect_true(grepl(sprintf("the accountant certifies epsilon = %s",
                            num(ra$epsilon_accounted)), ta, fixed = TRUE))
  expect_true(grepl(paste0("noise multiplier ", num(ra$noise_multiplier)), ta,
                    fixed = TRUE))
  expect_true(grepl(paste0("standard deviation ",
                           num(ra$noise_multiplier * 2 / n)), ta, fixed = TRUE))
  expect_false(grepl("Xie et al.", ta, fixed = TRUE))

  s_none <- summary(g$fit)
  expect_true(grepl("not private", s_none$text[2], fixed = TRUE))
  expect_false(any(grepl("differentially private", s_none$text, fixed = TRUE)))
})

test_that("summary() of a paper fit that overshoots gives the factor", {
  g <- meth_gauss()
  n <- nrow(g$x)
  K <- 2
  T <- 45                           # 5 (n / m)^2 with m = n / 3
  # (the paper's delta = 1 / n is warned about)
  expect_warning(
    fp <- dpsco(tuning = "public", g$x, g$y, method = "clip", epsilon = 1, delta = 1 / n,
                nlambda = K, batch_size = n / 3, calibration = "paper"),
    class = "dpsco_privacy_warning")
  z <- sqrt(log(K * n)) / (1 / K)
  acc <- dp_epsilon(z, 1 / 3, K * T, 1 / n)
  expect_identical(privacy(fp)$steps, as.integer(T))
  expect_gt(acc, 1)
  txt <- paste(summary(fp)$text, collapse = " ")
  expect_true(grepl(sprintf(", %s times the nominal epsilon = 1.",
                            format(signif(acc, 4))), txt, fixed = TRUE))
  expect_match(privacy(fp)$accountant, "Renyi", fixed = TRUE)
  expect_true(grepl(privacy(fp)$accountant, txt, fixed = TRUE))
})

test_that("predict() works for a single new row", {
  g <- meth_gauss()
  fit <- g$fit
  newx <- g$x[1, , drop = FALSE]
  expect_equal(unname(predict(fit, newx)),
               unname(cbind(1, newx) %*% rbind(fit$a0, fit$beta)),
               tolerance = 1e-12)
})

test_that("a radius path: coef() interpolates linearly in the radius, print and summary name it", {
  set.seed(31)
  x <- matrix(runif(1200, -1, 1), 400, 3)
  y <- drop(x %*% c(2, -1, 0)) + rnorm(400)
  fit <- dpsco(x, y, method = "fw", epsilon = 2, tuning = "public",
               radius = c(0.5, 1, 2), iterations = 10)
  b <- coef(fit)
  expect_equal(unname(coef(fit, s = 1)), unname(b[, 2, drop = FALSE]))
  # a quarter of the way from radius 1 to 2
  expect_equal(unname(coef(fit, s = 1.25)),
               unname(0.75 * b[, 2, drop = FALSE] + 0.25 * b[, 3, drop = FALSE]))
  # outside the path: the nearest end
  expect_equal(unname(coef(fit, s = c(0.1, 10))), unname(b[, c(1, 3)]))
  expect_equal(unname(predict(fit, x[1:5, ], s = 2)),
               unname(cbind(1, x[1:5, ]) %*% b[, 3]))
  out <- capture.output(print(fit))
  expect_true(any(grepl("Radius", out)))
  expect_true(any(grepl("over 3 radii", out)))
  sm <- summary(fit)
  expect_equal(sm$path$Radius, c(0.5, 1, 2))
  expect_equal(sm$path$Df, unname(colSums(fit$beta != 0)))
  expect_match(sm$text[1], "3 radii (0.5 to 2)", fixed = TRUE)
  expect_match(sm$text[2], sprintf("accounted epsilon %s",
                                   format(signif(privacy(fit)$epsilon_accounted, 4))),
               fixed = TRUE)
})

test_that("the fits of the Wang et al. and one-pass methods answer coef, predict, print and summary like the others", {
  set.seed(32)
  n <- 1500
  x <- matrix(stats::rnorm(n * 3), n, 3)
  y <- drop(x %*% c(1, -1, 0.5)) + stats::rt(n, 3)
  for (m in c("bun_steinke", "sample_aggregate", "acsa", "clipped_sgd",
              "localized", "prox_clipped_sgd")) {
    fit <- dpsco(x, y, method = m, nlambda = 3,
                 epsilon = if (m == "sample_aggregate") 40 else 1)
    path <- fit$radius %||% fit$lambda
    expect_length(path, 3L)
    b <- coef(fit)
    # new data are clamped to the private bounds, row 2 of x_range the upper
    xc <- x[1:4, ]
    xc <- pmin(pmax(xc, rep(fit$x_range[1, ], each = 4)),
               rep(fit$x_range[2, ], each = 4))
    expect_equal(unname(predict(fit, x[1:4, ], s = path[2])),
                 unname(cbind(1, xc) %*% b[, 2]), info = m)
    expect_equal(unname(fit$df), unname(colSums(fit$beta != 0)), info = m)
    out <- capture.output(print(fit))
    expect_true(any(grepl(method_label(m), out, fixed = TRUE)), info = m)
    sm <- summary(fit)
    expect_equal(sm$path[[2]], path, info = m)
    expect_lte(privacy(fit)$epsilon_accounted,
               if (m == "sample_aggregate") 40 else 1 + 1e-9)
  }
})

# ---- multinomial ----------------------------------------------------------

test_that("multinomial predict(type = 'response') is the softmax on the clamped x", {
  d <- mn_data()
  set.seed(1)
  fit <- dpsco(d$x, d$y, family = "multinomial", epsilon = 2, nlambda = 5)
  expect_false(is.null(fit$x_range))
  # new records far outside the private bounds: the clamp matters
  newx <- rbind(d$x[1:20, ], 40 * d$x[21:25, ])
  expect_true(any(newx > rep(fit$x_range[2, ], each = nrow(newx))))
  pr <- predict(fit, newx, type = "response")
  expect_identical(dim(pr), c(25L, 3L, 5L))
  expect_identical(dimnames(pr)[[2]], c("u", "v", "w"))
  expect_identical(dimnames(pr)[[3]], paste0("s", 0:4))
  for (j in 1:5)
    expect_equal(unname(pr[, , j]), mn_prob(fit, newx, j), tolerance = 1e-12)
  # the link: log-probabilities up to a constant per record
  lk <- predict(fit, newx, type = "link")
  xc <- mn_clamp(newx, fit$x_range)
  expect_equal(unname(lk[, 2, 3]),
               drop(fit$a0[2, 3] + xc %*% fit$beta$v[, 3]), tolerance = 1e-12)
  # class: the first class of largest probability
  cl <- predict(fit, newx, type = "class")
  expect_identical(dim(cl), c(25L, 5L))
  for (j in 1:5)
    expect_identical(unname(cl[, j]),
                     c("u", "v", "w")[apply(mn_prob(fit, newx, j), 1, which.max)])
})

test_that("multinomial coef() interpolates each class linearly in lambda", {
  d <- mn_data()
  set.seed(2)
  fit <- dpsco(d$x, d$y, family = "multinomial", epsilon = 2, nlambda = 5)
  b <- coef(fit)
  expect_identical(names(b), c("u", "v", "w"))
  expect_identical(rownames(b$u), c("(Intercept)", paste0("V", 1:4)))
  expect_equal(unname(b$w), unname(rbind(fit$a0[3, ], fit$beta$w)))
  # the intercepts are centred over the classes
  expect_equal(unname(colSums(fit$a0)), rep(0, 5), tolerance = 1e-12)
  s <- c(sqrt(fit$lambda[2] * fit$lambda[3]), fit$lambda[4],
         0.3 * fit$lambda[4] + 0.7 * fit$lambda[5])
  bs <- coef(fit, s = s)
  for (k in 1:3) for (i in seq_along(s))
    expect_equal(unname(bs[[k]][, i]), unname(mn_interp(fit, k, s[i])),
                 tolerance = 1e-12)
  expect_identical(predict(fit, s = s, type = "coefficients"), bs)
  # predictions at s are the softmax of the interpolated coefficients
  pr <- predict(fit, d$x[1:5, ], s = s[1], type = "response")
  eta <- sapply(1:3, function(k) {
    bk <- mn_interp(fit, k, s[1])
    bk[1] + mn_clamp(d$x[1:5, ], fit$x_range) %*% bk[-1]
  })
  expect_equal(unname(pr[, , 1]), exp(eta) / rowSums(exp(eta)), tolerance = 1e-12)
  # nonzero: per class, per s, the non-zero slopes
  nz <- predict(fit, s = s, type = "nonzero")
  expect_identical(names(nz), c("u", "v", "w"))
  for (k in 1:3) for (i in seq_along(s))
    expect_equal(unname(nz[[k]][[i]]), unname(which(bs[[k]][-1, i] != 0)))
})

test_that("the non-private converged multinomial path is glmnet's", {
  skip_if_not_installed("glmnet")
  d <- mn_data()
  fit <- dpsco(d$x, d$y, family = "multinomial", method = "none",
               tuning = "public", nlambda = 5)
  g <- glmnet::glmnet(d$x, d$y, family = "multinomial", standardize = FALSE,
                      thresh = 1e-14, lambda = fit$lambda)
  # both centre the intercepts over the classes
  expect_equal(unname(colSums(g$a0)), rep(0, 5), tolerance = 1e-12)
  expect_equal(unname(fit$a0), unname(g$a0), tolerance = 1e-5)
  for (k in 1:3)
    expect_equal(unname(fit$beta[[k]]), unname(as.matrix(g$beta[[k]])),
                 tolerance = 1e-5)
  # at lambda_max every slope is 0; glmnet may keep one of the order of
  # its tolerance there (within the 1e-5 above)
  expect_identical(unname(fit$df[1]), 0)
  expect_equal(unname(fit$df)[-1], unname(g$df)[-1])
  gp <- predict(g, d$x[1:30, ], type = "response")
  expect_equal(unname(predict(fit, d$x[1:30, ], type = "response")),
               unname(gp), tolerance = 1e-5)
  expect_identical(unname(predict(fit, d$x[1:30, ], type = "class")),
                   unname(predict(g, d$x[1:30, ], type = "class")))
})

test_that("multinomial predict() checks newx and refuses an offset", {
  d <- mn_data(n = 100)
  fit <- dpsco(d$x, d$y, family = "multinomial", method = "none",
               tuning = "public", nlambda = 3)
  expect_error(predict(fit, d$x[, 1:3]), class = "dpsco_arg_error",
               regexp = "newx.*4 columns")
  expect_error(predict(fit, type = "response"), class = "dpsco_arg_error",
               regexp = "newx")
  expect_error(predict(fit, d$x, newoffset = rep(0, 100)),
               class = "dpsco_arg_error", regexp = "newoffset")
  expect_error(predict(fit, d$x, exact = TRUE), regexp = "exact")
  # one record, and a sparse newx, give the dense answer
  p1 <- predict(fit, d$x[7, , drop = FALSE], type = "response")
  expect_equal(unname(p1[1, , ]),
               sapply(1:3, function(j) mn_prob(fit, d$x[7, , drop = FALSE], j)),
               tolerance = 1e-12)
  skip_if_not_installed("Matrix")
  sx <- Matrix::Matrix(d$x[1:10, ], sparse = TRUE)
  expect_equal(predict(fit, sx, type = "link"),
               predict(fit, d$x[1:10, ], type = "link"), tolerance = 1e-12)
})

test_that("print() and summary() of a multinomial fit name the classes and Df", {
  d <- mn_data(n = 100)
  fit <- dpsco(d$x, d$y, family = "multinomial", method = "none",
               tuning = "public", nlambda = 3)
  out <- paste(utils::capture.output(print(fit)), collapse = "\n")
  expect_match(out, "multinomial (3 classes: u, v, w)", fixed = TRUE)
  expect_match(out, "non-zero coefficient in any", fixed = TRUE)
  # Df: the features non-zero in some class
  expect_equal(unname(fit$df),
               unname(colSums((abs(fit$beta$u) + abs(fit$beta$v) +
                                 abs(fit$beta$w)) > 0)))
  sm <- summary(fit)
  expect_match(sm$text[1], "multinomial logistic model", fixed = TRUE)
  expect_match(sm$text[2], "3 classes (u, v, w)", fixed = TRUE)
  expect_match(sm$text[3], "not private", fixed = TRUE)
  expect_equal(sm$path$Df, unname(fit$df))
})

test_that("print() and summary() state the privacy status of the record", {
  g <- meth_gauss()
  f <- clean_and_standardised(g$x, g$y, 6)
  clean <- f$clean
  std <- f$std
  # print(): the status lines after the privacy line
  out <- capture.output(print(clean))
  expect_identical(out[length(out)], status_covered)
  out <- capture.output(print(std))
  i <- which(out == paste0(status_not_covered, ":"))
  expect_length(i, 1L)
  expect_identical(out[i + 1L], paste("  -", std_item))
  expect_false(any(grepl("Privacy status: covered", out, fixed = TRUE)))
  # the accounted epsilon is still shown, next to the status that qualifies it
  expect_match(out[i - 1L], "^Privacy: target \\(epsilon, delta\\) = \\(1, ")
  out <- capture.output(print(g$fit))
  expect_identical(out[length(out)], paste0(status_not_private, "."))
  # summary(): the privacy paragraph ends with the status sentence
  txt <- summary(clean)$text
  expect_true(endsWith(txt[length(txt)], paste0(". ", status_covered)))
  txt <- summary(std)$text
  expect_true(endsWith(txt[length(txt)], paste0(". ", status_not_covered,
                                                ": ", std_item, ".")))
  expect_match(flat_text(capture.output(print(summary(std)))),
               paste0(status_not_covered, ": ", std_item, "."), fixed = TRUE)
  expect_identical(summary(g$fit)$text[2], paste0(status_not_private, "."))
  # a constraint-set fit: the same status in its own summary
  expect_warning(
    fw <- dpsco(g$x, g$y, method = "fw", epsilon = 1, radius = c(0.5, 1),
                standardize = TRUE),
    class = "dpsco_privacy_warning")
  txt <- summary(fw)$text
  expect_true(endsWith(txt[2], paste0(" ", status_not_covered, ": ",
                                      std_item, ".")))
  fw0 <- dpsco(g$x, g$y, method = "fw", epsilon = 1, radius = c(0.5, 1))
  expect_true(endsWith(summary(fw0)$text[2], paste0(" ", status_covered)))
  expect_identical(capture.output(print(fw0))[length(capture.output(print(fw0)))],
                   status_covered)
})

test_that("predict() is the model linear in the clamped features (clamp_x())", {
  set.seed(10)
  n <- 300
  x <- matrix(stats::rexp(n * 3), n)
  y <- x[, 1] - x[, 2] + stats::rnorm(n)
  fit <- dpsco(x, y, epsilon = 2)
  newx <- rbind(c(1e4, -5, 0.5), c(0.2, 0.3, 1e3), x[1:3, ])
  cx <- clamp_x(fit, newx)
  # by hand: each column clamped to its released [-B_j, B_j]
  B <- fit$x_range[2L, ]
  expect_equal(fit$x_range[1L, ], -B)
  expect_equal(cx, pmin(pmax(newx, rep(-B, each = 5)), rep(B, each = 5)))
  expect_equal(predict(fit, newx), cbind(1, cx) %*% coef(fit),
               ignore_attr = TRUE, tolerance = 1e-12)
  # not the raw features where the clamp binds
  expect_false(isTRUE(all.equal(predict(fit, newx)[1, ],
                                drop(cbind(1, newx) %*% coef(fit))[1])))
  fb <- dpsco(x, as.double(y > 1), family = "binomial", epsilon = 2)
  expect_equal(predict(fb, newx, type = "link"),
               cbind(1, clamp_x(fb, newx)) %*% coef(fb), ignore_attr = TRUE,
               tolerance = 1e-12)
  cvf <- cv.dpsco(x, y, epsilon = 2)
  expect_identical(clamp_x(cvf, newx), clamp_x(cvf$dpsco.fit, newx))
  expect_error(clamp_x(fit, newx[, 1:2]), class = "dpsco_arg_error")
  expect_error(clamp_x(list(), newx), class = "dpsco_arg_error")
})

test_that("coef() and predict() of a cv.dpsco object default to lambda.min, and print() says so", {
  set.seed(11)
  x <- matrix(rnorm(1500 * 4), 1500, 4)
  y <- drop(x %*% c(1, -1, 0, 0)) + rnorm(1500)
  cvf <- cv.dpsco(x, y, epsilon = 1, nlambda = 5)
  expect_identical(formals(coef.cv.dpsco)$s, "lambda.min")
  expect_identical(formals(predict.cv.dpsco)$s, "lambda.min")
  ref <- coef(cvf$dpsco.fit, s = cvf$lambda.min)
  expect_identical(coef(cvf), ref)
  expect_identical(predict(cvf, x[1:4, ]),
                   predict(cvf$dpsco.fit, x[1:4, ], s = cvf$lambda.min))
  expect_true(any(capture.output(print(cvf)) ==
    "coef()/predict(): lambda.min; lambda.1se needs unreleased statistics."))
  # a path of radii: "lambda.min", glmnet's spelling, is its radius.min
  set.seed(12)
  cvr <- cv.dpsco(x, y, method = "fw", epsilon = 1, nlambda = 4)
  expect_identical(coef(cvr), coef(cvr$dpsco.fit, s = cvr$radius.min))
  expect_identical(coef(cvr, s = "radius.min"), coef(cvr))
  expect_true(any(capture.output(print(cvr)) ==
    "coef()/predict(): radius.min; radius.1se needs unreleased statistics."))
})
