# The constraint-set methods: the Frank-Wolfe engine, the dispatch from
# dpsco(), the private settings, the privacy record and bad inputs.
# (objective.R and mirror.R have their own files.)

fw_problem <- function(x, y, intercept = FALSE, family = "gaussian") {
  list(x = x, y = y, family = family_object(family),
       intercept = intercept, offset = 0, n = nrow(x), p = ncol(x),
       d = ncol(x) + intercept)
}
exact_oracle <- function(n)
  list(oracle = 0L, m = n, clip = 1, rho = 0, k = 1L, s = 1, nu = 1)

test_that("noise-free Frank-Wolfe reaches the constrained lasso solution of glmnet", {
  skip_if_not_installed("glmnet")
  set.seed(1)
  n <- 400
  p <- 8
  x <- matrix(rnorm(n * p), n, p)
  y <- drop(x %*% c(2, -1, 0.5, rep(0, 5))) + rnorm(n)
  g <- glmnet::glmnet(x, y, intercept = FALSE, standardize = FALSE,
                      lambda = 0.1, thresh = 1e-16)
  b <- as.numeric(g$beta)
  r <- sum(abs(b))             # the l1 ball on which glmnet's b is optimal
  obj <- function(w) 0.5 * mean((y - x %*% w)^2)
  w <- fw_engine(fw_problem(x, y), r, exact_oracle(n), 20000, 0, 1)
  expect_lt((obj(w) - obj(b)) / obj(b), 1e-3)
  expect_lte(sum(abs(w)), r * (1 + 1e-12))
  expect_equal(drop(w), b, tolerance = 0.05)
})

test_that("each Frank-Wolfe step draws its vertex from the exponential mechanism", {
  # one step from w = 0 moves to (2/3) v: the chosen vertex is visible.  At
  # w = 0 the gradient is -mean(y x) exactly, so the mechanism's
  # probabilities are known in closed form.
  set.seed(2)
  n <- 50
  x <- cbind(rep(1, n), rep(-1, n), rep(0.5, n))
  y <- rep(1, n)
  g <- -colMeans(y * x)                      # (-1, 1, -0.5)
  eps0 <- 2
  sens <- 1
  u <- c(rbind(-g, g))                       # vertices +e1, -e1, +e2, ...
  prob <- exp(eps0 * u / (2 * sens))
  prob <- prob / sum(prob)
  draws <- 3000
  pick <- integer(draws)
  for (i in seq_len(draws)) {
    w <- fw_engine(fw_problem(x, y), 1, exact_oracle(n), 1, eps0, sens)
    j <- which(w != 0)
    pick[i] <- 2L * j - (w[j] > 0)
  }
  counts <- tabulate(pick, 6L)
  chi <- suppressWarnings(stats::chisq.test(counts, p = prob))
  expect_gt(chi$p.value, 1e-3)
  expect_equal(counts[2] / draws, prob[2], tolerance = 0.1)
})

test_that("HTP-LASSO's sensitivity bounds every record's gradient in the ball", {
  set.seed(3)
  n <- 300
  p <- 5
  x <- matrix(rt(n * p, df = 2), n, p)
  y <- drop(x %*% c(1, -1, 0, 0, 0)) + rt(n, df = 2)
  eps <- 0.8
  fit <- dpsco(x, y, method = "htp_lasso", epsilon = eps, tuning = "public",
               radius = c(0.5, 2), iterations = 5)
  k <- (n * eps)^(1 / 5)
  st <- fit$settings
  expect_equal(st$x_bound, k)
  # |resid| <= K + r K and each coordinate of (1, x) is at most K
  expect_equal(st$coordinate_bound, k * (k + 2 * k))
  expect_equal(st$sensitivity, st$coordinate_bound / n)
  # random points of the ball's boundary never exceed the bound
  xs <- pmin(pmax(x, -k), k)
  ys <- pmin(pmax(y, -k), k)
  worst <- 0
  for (i in 1:200) {
    w <- stats::rnorm(p + 1)
    w <- 2 * w / sum(abs(w))
    r <- w[1] + drop(xs %*% w[-1]) - ys
    worst <- max(worst, abs(r * cbind(1, xs)))
  }
  expect_lte(worst, st$coordinate_bound)
})

test_that("the exponential-mechanism steps are accounted through their Renyi curve", {
  set.seed(4)
  n <- 500
  x <- matrix(runif(n * 4, -1, 1), n, 4)
  y <- drop(x %*% c(1, -1, 0, 0)) + rnorm(n)
  delta <- 1e-5
  fit <- dpsco(x, y, method = "fw", epsilon = 1, delta = delta,
               tuning = "public", radius = c(0.5, 1, 2), iterations = 7)
  eps0 <- fit$settings$eps0
  # 21 selections, each eps0^2 / 8-zCDP: RDP 21 a eps0^2 / 8 at order a
  a <- dp_orders()
  rho <- 21 * eps0^2 / 8
  eps_ref <- min(a * rho + log1p(-1 / a) - (log(delta) + log(a)) / (a - 1))
  expect_equal(eps_ref, 1, tolerance = 1e-5)
  expect_lte(eps_ref, 1 + 1e-12)
  pr <- privacy(fit)
  expect_equal(pr$epsilon_accounted, eps_ref, tolerance = 1e-12)
  expect_match(pr$shares$mechanism, "exponential mechanism over the 10 vertices")
})

test_that("public HTDP-FW is pure epsilon-DP: one pass of chunks per radius", {
  set.seed(5)
  n <- 1000
  x <- matrix(rnorm(n * 3), n, 3)
  y <- rbinom(n, 1, plogis(x[, 1]))
  fit <- dpsco(x, y, family = "binomial", method = "htdp_fw", epsilon = 2,
               tuning = "public", radius = c(1, 3))
  st <- fit$settings
  expect_equal(st$steps, ceiling((n * 2)^(1 / 3)))
  expect_equal(st$eps0, 1)
  expect_equal(st$batch_size, n / st$steps)
  expect_equal(st$sensitivity, 2 * sqrt(2) * st$s / 3 / st$batch_size)
  pr <- privacy(fit)
  expect_equal(pr$pure_epsilon, 2)
  expect_equal(pr$epsilon_accounted, 2)
  expect_match(format(pr), "Pure differential privacy: epsilon = 2, delta = 0",
               fixed = TRUE, all = FALSE)
})

test_that("private tuning maps the unit-scale fit back to the data's scale", {
  set.seed(6)
  n <- 2000
  x <- cbind(rexp(n, 0.01), rnorm(n, 0, 50))
  y <- 3 + 0.02 * x[, 1] - 0.05 * x[, 2] + rt(n, df = 3)
  fit <- dpsco(x, y, method = "fw", epsilon = 2, radius = c(0.5, 2))
  st <- fit$settings
  rng <- fit$x_range
  b <- fit$beta
  # on the unit scale the fit saw clamp(x / B) and y / B_y; its intercept
  # is the released centre (the offset) plus the fitted b0
  bound <- rng[2L, ]
  bu <- b * bound / st$y_scale
  a0u <- fit$a0 / st$y_scale - st$offset
  expect_lte(max(abs(a0u) + colSums(abs(bu))), max(fit$radius) * (1 + 1e-9))
  newx <- rbind(c(1e6, -1e6), c(10, 5))
  pred <- predict(fit, newx)
  clamped <- pmin(pmax(newx, rep(-bound, each = 2)), rep(bound, each = 2))
  expect_equal(pred, sweep(clamped %*% b, 2, fit$a0, `+`),
               ignore_attr = TRUE)
  # the record lists the private settings and the method's part
  expect_equal(privacy(fit)$shares$part,
               c("scale", "centre", "quantiles", "optimizer"))
  expect_equal(privacy(fit)$epsilon_accounted, 2, tolerance = 1e-5)
})

test_that("a constraint-set fit is reproducible with set.seed()", {
  x <- matrix(runif(600, -1, 1), 200, 3)
  y <- x[, 1] + rnorm(200)
  fits <- lapply(1:2, function(i) {
    set.seed(7)
    dpsco(x, y, method = "htdp_fw", epsilon = 1, radius = c(0.5, 1))
  })
  expect_identical(fits[[1]]$beta, fits[[2]]$beta)
  expect_identical(fits[[1]]$a0, fits[[2]]$a0)
})

test_that("bad inputs to the constraint-set methods are argument errors", {
  # (the arguments of the other path: test-path-args.R)
  x <- matrix(runif(300, -1, 1), 100, 3)
  y <- x[, 1] + rnorm(100)
  bad <- list(
    list(args = list(method = "fw", radius = 0), arg = "radius"),
    list(args = list(method = "fw", radius = -1), arg = "radius"),
    list(args = list(method = "fw", radius = c(2, 1)), arg = "radius"),
    list(args = list(method = "fw", radius = Inf), arg = "radius"),
    list(args = list(method = "fw", radius = NA_real_), arg = "radius"),
    list(args = list(method = "mirror", lp = 2.5), arg = "lp"),
    list(args = list(method = "mirror", lp = 1), arg = "lp"),
    list(args = list(method = "mirror_shuffled", lp = 0.5), arg = "lp"),
    list(args = list(method = "mirror_shuffled", radius = Inf), arg = "radius"),
    list(args = list(method = "fw", iterations = 0), arg = "iterations"),
    list(args = list(method = "fw", epsilon = Inf), arg = "epsilon"),
    list(args = list(method = "fw", control = dpsco_control(shrink = 2)),
         arg = "control"))
  for (b in bad) {
    err <- expect_error(do.call(dpsco, c(list(x, y), b$args)),
                        class = "dpsco_arg_error")
    expect_equal(err$arg, b$arg, info = b$arg)
  }
  err <- expect_error(dpsco_control(shrink = 0), class = "dpsco_arg_error")
  expect_equal(err$arg, "shrink")
  err <- expect_error(dpsco_control(shrink = -1), class = "dpsco_arg_error")
  expect_equal(err$arg, "shrink")
})

test_that("objective and mirror fits compose with the private settings to the target", {
  set.seed(8)
  n <- 3000
  x <- cbind(rexp(n), rnorm(n, 0, 10), runif(n))
  y <- 1 + x[, 1] - 0.1 * x[, 2] + rt(n, df = 3)
  delta <- 1e-5
  fo <- dpsco(x, y, method = "objective", epsilon = 0.8, delta = delta,
              radius = c(0.5, 1))
  po <- privacy(fo)
  expect_equal(po$shares$part, c("scale", "centre", "optimizer"))
  expect_identical(po$calibration, "theorem")
  expect_equal(po$epsilon_accounted, 0.8, tolerance = 1e-9)
  # the stated part took what the Gaussian settings left at delta / 4
  sh <- po$shares
  fixed <- lapply(1:2, function(i)
    privacy_part(sh$part[i], sh$noise_multiplier[i], 1, sh$steps[i],
                         sh$sensitivity[i], sh$share[i]))
  fixed_eps <- account_parts(fixed, delta / 4)
  expect_equal(fo$settings$epsilon * 2, 0.8 - fixed_eps, tolerance = 1e-9)
  fm <- dpsco(x, y, method = "mirror", epsilon = 0.8, delta = delta,
              radius = c(0.5, 1))
  pm <- privacy(fm)
  expect_identical(pm$calibration, "accountant")
  expect_equal(pm$epsilon_accounted, 0.8, tolerance = 1e-5)
  expect_lte(pm$epsilon_accounted, 0.8 * (1 + 1e-9))
})

# The privacy parts a call hands to the record, with the fields the record
# does not tabulate (the relation of a part among them).
capture_parts <- function(expr) {
  env <- new.env()
  suppressMessages(trace("new_privacy_record",
                         bquote(assign("parts", parts, envir = .(env))),
                         where = asNamespace("dpsco"), print = FALSE))
  on.exit(suppressMessages(untrace("new_privacy_record",
                                   where = asNamespace("dpsco"))))
  value <- expr
  list(value = value, parts = env$parts)
}

test_that("the methods stated for replace-one neighbours run on the records resized to the public n", {
  # with public tuning nothing is drawn before the resizing, so the fit at
  # a public n other than the rows is the fit, from the same seed, on the
  # records padded with x = 0, y = 0 (more records declared) or on a
  # uniform subset of n of them (fewer)
  set.seed(3)
  rows <- 300
  x <- cbind(rexp(rows), rnorm(rows), runif(rows, -1, 1))
  y <- 0.5 + x[, 1] - x[, 2] + rt(rows, df = 3)
  cases <- list(list(method = "objective"), list(method = "mirror", lp = 1.5),
                list(method = "mirror_shuffled"),
                list(method = "bun_steinke", iterations = 3,
                     control = dpsco_control(mean_range = c(-3, 3))),
                list(method = "sample_aggregate"))
  fit_on <- function(xx, yy, cs, ...)
    do.call(dpsco, c(list(xx, yy, epsilon = 1.5, delta = 1e-5,
                          radius = c(0.5, 2), tuning = "public", ...), cs))
  for (cs in cases) for (N in c(400, 250)) {
    info <- paste(cs$method, cs$lp, N)
    set.seed(5)
    cap <- capture_parts(fit_on(x, y, cs, public_n = N))
    fit <- cap$value
    if (N > rows) {
      set.seed(5)
      ref <- fit_on(rbind(x, matrix(0, N - rows, 3)), c(y, rep(0, N - rows)), cs)
    } else {
      # the subset is drawn on the fit's own stream (R/rng.R), which the
      # fit then goes on drawing from
      set_fit_seed(5)
      keep <- sort(sample.int(rows, N))
      ref <- without_fit_stream(fit_on(x[keep, ], y[keep], cs))
    }
    expect_identical(fit$beta, ref$beta, label = info)
    expect_identical(fit$a0, ref$a0, label = info)
    # resize_records() is that resizing
    set_fit_seed(5)
    rs <- resize_records(x, y, N)
    if (N > rows) expect_identical(rs, list(x = rbind(x, matrix(0, N - rows, 3)),
                                            y = c(y, rep(0, N - rows))))
    else expect_identical(rs, list(x = x[keep, ], y = y[keep]))
    expect_identical(fit$nobs, N)
    pr <- privacy(fit)
    expect_identical(pr$public_n, N)
    expect_identical(pr$adjacency, paste("add/remove one record at the public size n =", N))
    expect_match(pr$resized, "resized to the public n", fixed = TRUE)
    expect_true(any(grepl("^Records: the records are resized", format(pr))), label = info)
    # the method's parts carry the theorem's replace-one relation; with
    # public tuning they are all the parts, so the replace-one epsilon is
    # the accounted one
    rel <- vapply(cap$parts, function(p) p$relation %||% "add_remove", "")
    expect_true(all(rel == "replace"), label = info)
    expect_equal(pr$epsilon_replace_one, pr$epsilon_accounted, tolerance = 1e-12,
                 label = info)
  }
  # the methods accounted for add/remove directly are not resized: their
  # divisors are the public n and their parts keep that relation
  for (cs in list(list(method = "fw"), list(method = "mirror", lp = 2))) {
    set.seed(5)
    cap <- capture_parts(fit_on(x, y, cs, public_n = 400))
    set.seed(5)
    ref <- fit_on(rbind(x, matrix(0, 100, 3)), c(y, rep(0, 100)), cs)
    expect_false(identical(cap$value$beta, ref$beta))
    expect_null(privacy(cap$value)$resized)
    expect_true(all(vapply(cap$parts, function(p) is.null(p$relation), NA)))
    expect_gt(privacy(cap$value)$epsilon_replace_one,
              privacy(cap$value)$epsilon_accounted)
  }
})

test_that("replace_one_epsilon(): Gaussian parts at half their multiplier, a stated part by group privacy, a replace-one part kept", {
  parts <- list(privacy_part("scale", 6, 1, 2, 1.5, 0.05),
                privacy_part("centre", 9, 1, 1, 0.01, 0.03))
  # full-batch Gaussian releases compose to one of mu^2 = sum(steps / z^2);
  # a record replaced moves each by twice its sensitivity: mu doubles
  mu_add <- sqrt(2 / 36 + 1 / 81)
  expect_equal(account_parts(parts, 1e-6), gauss_eps_ref(mu_add, 1e-6),
               tolerance = 1e-8)
  expect_equal(replace_one_epsilon(parts, 1e-6),
               gauss_eps_ref(2 * mu_add, 1e-6), tolerance = 1e-8)
  # a stated (eps, delta) part for add/remove: (2 eps, (1 + e^eps) delta),
  # the Gaussian parts at what delta is left
  st <- dp_part("optimizer", 0.3, 1e-8, 1, NA_real_, 0.9, "stated")
  expect_equal(replace_one_epsilon(c(parts, list(st)), 1e-6),
               0.6 + gauss_eps_ref(2 * mu_add, 1e-6 - (1 + exp(0.3)) * 1e-8),
               tolerance = 1e-8)
  # the same part stated for replace-one (a theorem on resized records) is kept
  st$relation <- "replace"
  expect_equal(replace_one_epsilon(c(parts, list(st)), 1e-6),
               0.3 + gauss_eps_ref(2 * mu_add, 1e-6 - 1e-8), tolerance = 1e-8)
})

test_that("the shuffled mirror descent's record: its theorem on the records resized to n, the settings released as for any method", {
  set.seed(9)
  n <- 20000
  x <- matrix(runif(n * 2, -1, 1), n, 2)
  y <- x[, 1] + rnorm(n)
  f <- dpsco(x, y, method = "mirror_shuffled", epsilon = 0.5, radius = 1)
  pr <- privacy(f)
  expect_identical(pr$adjacency, "add/remove one record at the public size n = 20,000")
  expect_match(pr$resized, "replace-one neighbours of n records", fixed = TRUE)
  expect_false(any(grepl("replace-one", pr$shares$mechanism[pr$shares$part != "optimizer"],
                         fixed = TRUE)))
  # the settings' multipliers are their shares of one release at the
  # target (not halved for replace-one any more)
  sh <- pr$shares
  z1 <- dp_noise_multiplier(0.5, 0.1 / n, 1, 1)
  expect_equal(sh$noise_multiplier[sh$part == "scale"],
               z1 * sqrt(1 / scale_share_ref(z1, 2, n)), tolerance = 1e-6)
  expect_lte(pr$epsilon_accounted, 0.5 * (1 + 1e-9))
  expect_gt(pr$epsilon_replace_one, pr$epsilon_accounted)
  expect_match(pr$guarantee, "n = 20,000 treated as public", fixed = TRUE)
})

test_that("HTDP-FW after a private standardisation composes instead of claiming pure DP", {
  set.seed(10)
  n <- 800
  x <- matrix(rnorm(n * 3, 5, 3), n, 3)
  y <- x[, 1] + rnorm(n)
  fit <- dpsco(x, y, method = "htdp_fw", epsilon = 2, delta = 1e-5,
               tuning = "public", standardize = "private", radius = c(1, 2))
  pr <- privacy(fit)
  expect_null(pr$pure_epsilon)
  expect_equal(pr$shares$part, c("standardize", "optimizer"))
  expect_identical(pr$shares$kind, c("gaussian", "rdp"))
  expect_lte(pr$epsilon_accounted, 2 * (1 + 1e-9))
  expect_equal(pr$epsilon_accounted, 2, tolerance = 1e-5)
})

test_that("the Frank-Wolfe engine refuses unknown and missing settings fields", {
  x <- matrix(c(0.5, -1, 0.25, 1, 0, -0.5), 3)
  y <- c(1, -1, 0.5)
  s <- c(exact_oracle(3), family_settings("gaussian"), list(
    intercept = 0L, noise_sd = 0, rate = 1, threads = 1L, offset = 0,
    steps = 3L, eps0 = 0, score_sensitivity = 1, chunked = 0L))
  fw <- function(s) .Call(C_dpsco_fw, x, y, s, 1, c(0, 0))
  expect_equal(dim(fw(s)), c(2L, 1L))
  expect_error(fw(c(s, chunks = 1L)),
               "dpsco_fw: unknown settings field 'chunks'", fixed = TRUE)
  s$eps0 <- NULL
  expect_error(fw(s), "dpsco_fw: settings field 'eps0' is missing", fixed = TRUE)
})

test_that("a Frank-Wolfe path's Df leaves out the coordinates it shrank to 1e-15", {
  set.seed(21)
  n <- 2000
  x <- matrix(rnorm(n * 30), n)
  y <- drop(x[, 1:3] %*% c(1, -1, 0.5)) + rnorm(n)
  fit <- dpsco(x, y, method = "fw", epsilon = 1)
  b <- fit$beta
  tol <- 1e-10 * max(abs(b))
  # the path does leave tiny coordinates behind, which the count drops
  expect_true(any(b != 0 & abs(b) <= tol))
  expect_identical(unname(fit$df), unname(colSums(abs(b) > tol)))
  expect_true(any(fit$df < colSums(b != 0)))
  # print() shows the same Df
  out <- capture.output(print(fit))
  rows <- out[grep("^[0-9]+ +[0-9]+ ", out)]
  expect_identical(as.numeric(sub("^[0-9]+ +([0-9]+) .*", "\\1", rows)),
                   unname(as.numeric(colSums(abs(b) > tol))))
})
