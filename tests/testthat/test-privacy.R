# The privacy record of a fit, checked against the calibration formulas
# written out independently.

priv_data <- function(n = 200, p = 3) {
  set.seed(505)
  x <- matrix(runif(n * p, -1, 1), n, p)
  y <- drop(x %*% c(1, -1, rep(0, p - 2))) + rt(n, df = 3)
  list(n = n, p = p, x = x, y = y)
}

# expected noise multiplier of the paper's calibration for one lambda
hand_multiplier <- function(method, eps, delta, K) {
  base <- sqrt(log(K / delta)) / (eps / K)
  if (method == "clip") base else 2 * base
}

test_that("privacy() returns the record attached to the fit", {
  d <- priv_data()
  set.seed(1)
  fit <- dpsco(d$x, d$y, method = "clip", epsilon = 1, iterations = 2,
               nlambda = 3)
  rec <- privacy(fit)
  expect_s3_class(rec, "dpsco_privacy")
  expect_identical(rec, fit$privacy)
  expect_true(rec$private)
  expect_identical(rec$calibration, "paper")
  expect_identical(rec$epsilon_accounted, NA_real_)
  expect_identical(rec$adjacency, "add/remove one record")
})

test_that("clip: record fields equal the formulas", {
  d <- priv_data()
  eps <- 2
  del <- 1e-4
  K <- 4
  m <- 50
  C <- 1.5
  set.seed(2)
  fit <- dpsco(d$x, d$y, method = "clip", epsilon = eps, delta = del,
               nlambda = K, batch_size = m, iterations = 3,
               control = dpsco_control(clip = C))
  rec <- privacy(fit)
  expect_equal(rec$epsilon, eps)
  expect_equal(rec$delta, del)
  expect_equal(rec$epsilon_per_lambda, 0.5, tolerance = 1e-14)
  expect_equal(rec$delta_per_lambda, 2.5e-5, tolerance = 1e-14)
  expect_equal(rec$sample_rate, 0.25, tolerance = 1e-14)
  expect_equal(rec$batch_size, 50)
  expect_equal(rec$steps, 3)
  expect_equal(rec$nlambda, 4)
  expect_equal(rec$sensitivity, C / m, tolerance = 1e-14)
  z <- sqrt(log(4 / 1e-4)) / 0.5
  expect_equal(rec$noise_multiplier, z, tolerance = 1e-12)
  expect_equal(rec$noise_multiplier, hand_multiplier("clip", eps, del, K),
               tolerance = 1e-12)
  expect_equal(rec$noise_sd, z * C / m, tolerance = 1e-12)
})

test_that("kamath: sensitivity rho k sqrt(d) / (2 m), multiplier 2 sqrt(log(K/delta)) / (eps/K)", {
  d <- priv_data()
  eps <- 3
  del <- 1e-5
  K <- 3
  m <- 40
  set.seed(3)
  fit <- dpsco(d$x, d$y, method = "kamath", epsilon = eps, delta = del,
               nlambda = K, batch_size = m, iterations = 2)
  rec <- privacy(fit)
  dd <- d$p + 1
  rho <- ((eps / K) * m / sqrt(dd * log(K / del)))^(1 / 2)
  k <- min(ceiling(3 * log(2 * dd / 0.1)), m)
  expect_equal(k, 14)
  expect_equal(fit$settings$rho, rho, tolerance = 1e-12)
  expect_equal(fit$settings$k, k)
  expect_equal(rec$sensitivity, rho * k * sqrt(dd) / (2 * m), tolerance = 1e-12)
  z <- 2 * sqrt(log(K / del)) / (eps / K)
  expect_equal(rec$noise_multiplier, z, tolerance = 1e-12)
  expect_equal(rec$noise_sd, z * rho * k * sqrt(dd) / (2 * m), tolerance = 1e-12)
  expect_equal(rec$sample_rate, m / d$n, tolerance = 1e-14)
  expect_equal(rec$epsilon_per_lambda, 1, tolerance = 1e-14)
  expect_equal(rec$delta_per_lambda, del / K, tolerance = 1e-14)

  # user rho, no intercept (d = p), and k capped at the batch size
  fit2 <- dpsco(d$x, d$y, method = "kamath", epsilon = eps, delta = del,
                nlambda = K, batch_size = 5, iterations = 2, intercept = FALSE,
                control = dpsco_control(rho = 3))
  rec2 <- privacy(fit2)
  expect_equal(fit2$settings$k, 5)
  expect_equal(rec2$sensitivity, 3 * 5 * sqrt(3) / (2 * 5), tolerance = 1e-12)
  expect_equal(rec2$noise_sd, z * 3 * 5 * sqrt(3) / (2 * 5), tolerance = 1e-12)
  expect_equal(rec2$sample_rate, 5 / d$n, tolerance = 1e-14)
})

test_that("holland: sensitivity 2 sqrt(2) s sqrt(d) / (3 m), multiplier 2 sqrt(log(K/delta)) / (eps/K)", {
  d <- priv_data()
  eps <- 1
  del <- 1e-4
  K <- 5
  set.seed(4)
  fit <- dpsco(d$x, d$y, method = "holland", epsilon = eps, delta = del,
               nlambda = K, iterations = 2)
  rec <- privacy(fit)
  m <- d$n
  dd <- d$p + 1
  s <- sqrt(m * (eps / K) * 1) / (log(1 / 0.1) * log(K / del)^(1 / 4))
  expect_equal(fit$settings$s, s, tolerance = 1e-12)
  expect_equal(fit$settings$nu, sqrt(log(10)), tolerance = 1e-12)
  expect_equal(rec$sensitivity, 2 * sqrt(2) * s * sqrt(dd) / (3 * m),
               tolerance = 1e-12)
  z <- 2 * sqrt(log(K / del)) / (eps / K)
  expect_equal(rec$noise_multiplier, z, tolerance = 1e-12)
  expect_equal(rec$noise_sd, z * 2 * sqrt(2) * s * sqrt(dd) / (3 * m),
               tolerance = 1e-12)
  expect_equal(rec$sample_rate, 1)
  # default iterations: ceiling(5 (n/m)^2) with m = n is 5
  fd <- dpsco(d$x, d$y, method = "holland", epsilon = eps, delta = del,
              nlambda = 2)
  expect_equal(privacy(fd)$steps, 5)
  # user s and batch size: default iterations 5 * (200/80)^2 = 31.25 -> 32
  fs <- dpsco(d$x, d$y, method = "holland", epsilon = eps, delta = del,
              nlambda = 2, batch_size = 80, control = dpsco_control(s = 0.7))
  rs <- privacy(fs)
  expect_equal(rs$steps, 32)
  expect_equal(rs$sensitivity, 2 * sqrt(2) * 0.7 * sqrt(dd) / (3 * 80),
               tolerance = 1e-12)
  expect_equal(rs$noise_multiplier, 2 * sqrt(log(2 / del)) / (eps / 2),
               tolerance = 1e-12)
})

test_that("method 'none' is recorded as not private", {
  d <- priv_data()
  fit <- dpsco(d$x, d$y, method = "none", iterations = 2, nlambda = 3,
               step_size = 0.2)
  rec <- privacy(fit)
  expect_false(rec$private)
  expect_identical(rec$epsilon, Inf)
  expect_identical(rec$delta, 0)
  expect_identical(rec$noise_sd, 0)
  expect_identical(rec$noise_multiplier, 0)
  expect_identical(rec$sensitivity, 0)
  expect_identical(rec$calibration, "none")
  expect_identical(rec$epsilon_per_lambda, Inf)
  out <- format(rec)
  expect_true(any(grepl("Not private", out, fixed = TRUE)))
  expect_true(any(grepl("epsilon = Inf", out, fixed = TRUE)))
})

test_that("the default delta is 0.1 / n", {
  for (n in c(50, 200)) {
    d <- priv_data(n = n)
    fit <- dpsco(d$x, d$y, method = "clip", epsilon = 1, iterations = 2,
                 nlambda = 2)
    expect_equal(privacy(fit)$delta, 0.1 / n, tolerance = 1e-14)
    expect_equal(privacy(fit)$delta_per_lambda, 0.05 / n, tolerance = 1e-14)
    expect_equal(privacy(fit)$noise_multiplier,
                 sqrt(log(2 / (0.1 / n))) / 0.5, tolerance = 1e-12)
  }
})

test_that("format() and print() show the target and the noise multiplier", {
  d <- priv_data()
  eps <- 2.5
  del <- 3e-4
  K <- 4
  fit <- dpsco(d$x, d$y, method = "kamath", epsilon = eps, delta = del,
               nlambda = K, iterations = 2, control = dpsco_control(rho = 2))
  rec <- privacy(fit)
  z <- 2 * sqrt(log(K / del)) / (eps / K)
  txt <- format(rec)
  expect_type(txt, "character")
  expect_true(any(grepl("(epsilon, delta) = (2.5, 3e-04) for the whole path",
                        txt, fixed = TRUE)))
  expect_true(any(grepl(paste0("Noise multiplier z = ", format(signif(z, 4))),
                        txt, fixed = TRUE)))
  expect_true(any(grepl(sprintf("%d lambdas x %d steps", K, 2L), txt,
                        fixed = TRUE)))
  res <- NULL
  out <- capture.output(res <- withVisible(print(rec)))
  expect_false(res$visible)
  expect_identical(res$value, rec)
  expect_identical(out[1], "Differential privacy record")
  expect_true(any(grepl("(2.5, 3e-04)", out, fixed = TRUE)))
  expect_true(any(grepl(format(signif(z, 4)), out, fixed = TRUE)))
  expect_true(any(grepl("not available", out, fixed = TRUE)))
})

test_that("privacy() on a non-fit raises a dpsco_arg_error for 'fit'", {
  d <- priv_data()
  fit <- dpsco(d$x, d$y, method = "clip", iterations = 2, nlambda = 2)
  for (bad in list(list(), fit$privacy, unclass(fit), 1)) {
    expect_error(privacy(bad), class = "dpsco_arg_error")
    cnd <- tryCatch(privacy(bad), dpsco_arg_error = function(e) e)
    expect_identical(cnd$arg, "fit")
    expect_match(conditionMessage(cnd), "`fit`", fixed = TRUE)
  }
})

test_that("the noise actually added has the recorded standard deviation", {
  # Two all-zero columns: their gradient is exactly 0 under every oracle, so
  # with lambda = 0, one step of size 1 from 0 and the last iterate as output
  # each coefficient is minus one draw of the Gaussian noise.
  n <- 20
  x <- matrix(0, n, 2)
  y <- rep(5, n)
  for (m in c("clip", "kamath", "holland")) {
    set.seed(99)
    ctl <- dpsco_control(output = "last", clip = 1, rho = 2, s = 1)
    draws <- unlist(lapply(1:250, function(i) {
      f <- dpsco(x, y, method = m, epsilon = 40, delta = 1e-3, lambda = 0,
                 iterations = 1, step_size = 1, control = ctl)
      -unname(f$beta[, 1])
    }))
    dd <- 3
    sens <- switch(m, clip = 1 / n, kamath = 2 * min(ceiling(3 * log(2 * dd / 0.1)), n) *
                     sqrt(dd) / (2 * n),
                   holland = 2 * sqrt(2) * sqrt(dd) / (3 * n))
    sd_hand <- hand_multiplier(m, 40, 1e-3, 1) * sens
    f <- dpsco(x, y, method = m, epsilon = 40, delta = 1e-3, lambda = 0,
               iterations = 1, step_size = 1, control = ctl)
    expect_equal(privacy(f)$noise_sd, sd_hand, tolerance = 1e-12)
    # 500 draws: the sample sd is within ~3% (1 se) of the truth
    expect_equal(sd(draws), sd_hand, tolerance = 0.12, label = paste(m, "noise sd"))
    expect_lt(abs(mean(draws)), 4 * sd_hand / sqrt(length(draws)))
  }
  # method "none" adds nothing
  f <- dpsco(x, y, method = "none", lambda = 0, iterations = 1, step_size = 1,
             control = dpsco_control(output = "last"))
  expect_identical(unname(f$beta[, 1]), c(0, 0))
})
