# dp_budget(): admission before any record is read, exact composition of
# the fits' recorded parts, refusal, the session default, the displays.

budget_data <- function(n = 4000, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * 4), n, 4)
  list(x = x, y = drop(x %*% c(1, -1, 0, 0)) + rt(n, 3))
}

# Plain-R composition of full-pass Gaussian parts: one Gaussian mechanism
# whose mu^2 is the sum of steps / z^2 over the parts (Dong, Roth and Su
# 2022), its epsilon at delta in closed form (gauss_eps_ref()).
composed_eps_ref <- function(records, delta) {
  sh <- do.call(rbind, lapply(records, `[[`, "shares"))
  stopifnot(all(sh$kind == "gaussian"), all(sh$sample_rate == 1))
  gauss_eps_ref(sqrt(sum(sh$steps / sh$noise_multiplier^2)), delta)
}

# The times lambda_path() runs while `expr` is evaluated: a refused call
# must not get there (the path reads the records).
path_runs <- function(expr) {
  runs <- 0
  ns <- asNamespace("dpsco")
  suppressMessages(trace("lambda_path", where = ns, print = FALSE,
                         tracer = bquote(assign("runs", get("runs", .(environment())) + 1,
                                                envir = .(environment())))))
  on.exit(suppressMessages(untrace("lambda_path", where = ns)))
  force(expr)
  runs
}

test_that("two fits compose exactly and a third that does not fit is refused before reading data", {
  d <- budget_data()
  b <- dp_budget(2, 1e-5, label = "the test records")
  f1 <- dpsco(d$x, d$y, epsilon = 1, delta = 5e-6, nlambda = 5, budget = b)
  f2 <- dpsco(d$x, d$y, epsilon = 0.5, delta = 5e-6, nlambda = 5, budget = b)
  s <- dp_spent(b)
  ref <- composed_eps_ref(list(privacy(f1), privacy(f2)), 1e-5)
  expect_equal(s$epsilon, ref, tolerance = 1e-6)
  # composed, not added: above the larger fit, below the sum
  expect_gt(s$epsilon, 1)
  expect_lt(s$epsilon, 1.5)
  expect_identical(nrow(s$fits), 2L)
  expect_equal(s$fits$epsilon, c(privacy(f1)$epsilon_accounted,
                                 privacy(f2)$epsilon_accounted))
  # the third, at epsilon 1: what is spent at delta 1e-5 - 5e-6, plus 1,
  # exceeds 2, so it is refused before the path runs
  prev <- composed_eps_ref(list(privacy(f1), privacy(f2)), 5e-6)
  expect_gt(prev + 1, 2)
  seed <- .Random.seed
  runs <- path_runs(expect_error(
    dpsco(d$x, d$y, epsilon = 1, delta = 5e-6, nlambda = 5, budget = b),
    class = "dpsco_budget_error"))
  expect_identical(runs, 0)
  expect_identical(.Random.seed, seed)
  expect_identical(nrow(dp_spent(b)$fits), 2L)
  expect_identical(dp_spent(b)$epsilon, s$epsilon)
  # what is left is what the admission rule admits
  expect_equal(dp_spent(b, 5e-6)$left, 2 - prev, tolerance = 1e-6)
  e <- tryCatch(dpsco(d$x, d$y, epsilon = 1, delta = 5e-6, budget = b),
                dpsco_budget_error = function(e) e)
  expect_match(conditionMessage(e), "refused before reading any record")
  expect_equal(e$left, 2 - prev, tolerance = 1e-6)
  # a fit within what is left is admitted
  f3 <- dpsco(d$x, d$y, epsilon = 0.9 * (2 - prev), delta = 5e-6, nlambda = 5,
              budget = b)
  expect_identical(nrow(dp_spent(b)$fits), 3L)
  expect_equal(dp_spent(b)$epsilon,
               composed_eps_ref(list(privacy(f1), privacy(f2), privacy(f3)), 1e-5),
               tolerance = 1e-6)
  expect_lte(dp_spent(b)$epsilon, 2)
})

test_that("the session's budget pays for cv.dpsco() once, its pools in parallel", {
  d <- budget_data()
  b <- dp_budget(3, 1e-5)
  withr::local_options(dpsco.budget = b)
  set.seed(2)
  cv <- cv.dpsco(d$x, d$y, epsilon = 1, nlambda = 5)
  s <- dp_spent(b)
  # one debit, not one for the training fit inside it too
  expect_identical(nrow(s$fits), 1L)
  expect_identical(s$fits$what, "cv.dpsco()")
  # the default delta under a budget: a tenth of the budget's (below 0.1 / n)
  expect_equal(privacy(cv)$delta, 1e-6)
  # training and validation records are disjoint: the worse pool, the
  # selection's stated epsilon (1, pure) against the training parts
  sh <- privacy(cv)$shares
  train <- sh[sh$pool == "training", ]
  eps_train <- gauss_eps_ref(sqrt(sum(train$steps / train$noise_multiplier^2)), 1e-5)
  expect_equal(sh$epsilon_stated[sh$pool == "validation"], 1)
  expect_equal(s$epsilon, max(eps_train, 1), tolerance = 1e-6)
  # a dp_mean() after it: the selection adds its epsilon (basic
  # composition) to the mean's Gaussian, or the training parts and the
  # mean compose as Gaussians, whichever pool is worse
  m <- dp_mean(d$y, method = "trimmed", range = c(-20, 20), epsilon = 0.5)
  sm <- privacy(m)$shares
  mu_m2 <- 1 / sm$noise_multiplier^2
  eps_val <- 1 + gauss_eps_ref(sqrt(mu_m2), 1e-5)
  eps_tr <- gauss_eps_ref(sqrt(sum(train$steps / train$noise_multiplier^2) + mu_m2), 1e-5)
  expect_equal(dp_spent(b)$epsilon, max(eps_val, eps_tr), tolerance = 1e-6)
})

test_that("a call that stops after its admission is debited its whole guarantee", {
  d <- budget_data(1000)
  b <- dp_budget(2, 1e-4)
  ns <- asNamespace("dpsco")
  suppressMessages(trace("lambda_path", where = ns, print = FALSE,
                         tracer = quote(stop("interrupted by the test"))))
  on.exit(suppressMessages(untrace("lambda_path", where = ns)))
  expect_error(dpsco(d$x, d$y, epsilon = 0.7, delta = 1e-5, budget = b),
               "interrupted by the test")
  s <- dp_spent(b)
  expect_identical(s$fits$what, "dpsco() (stopped)")
  expect_equal(s$epsilon, 0.7)
  expect_equal(s$fits$delta, 1e-5)
})

test_that("a non-private call and bad budgets are refused", {
  d <- budget_data(500)
  b <- dp_budget(1, 1e-5)
  expect_error(dpsco(d$x, d$y, method = "none", epsilon = Inf, budget = b),
               class = "dpsco_budget_error")
  expect_identical(nrow(dp_spent(b)$fits), 0L)
  expect_error(dpsco(d$x, d$y, budget = list(epsilon = 1)), "`budget`")
  expect_error(dp_budget(0, 1e-5), "`epsilon`")
  expect_error(dp_budget(1, 1), "`delta`")
  expect_error(dp_budget(Inf, 1e-5), "`epsilon`")
  expect_error(dp_budget(1, 1e-5, label = 3), "`label`")
  # a trimmed mean without a declared range would read the range: refused
  expect_error(dp_mean(d$y, method = "trimmed", budget = b), "`range`")
  # a fit whose own delta leaves no room
  expect_error(dpsco(d$x, d$y, delta = 1e-5, budget = b),
               class = "dpsco_budget_error")
})

test_that("print() and summary() state what is spent and left", {
  d <- budget_data(2000)
  b <- dp_budget(2, 1e-5, label = "the test records")
  expect_match(format(b)[2], "No fit yet")
  m <- dp_mean(d$y, method = "trimmed", range = c(-20, 20), epsilon = 0.5,
               budget = b)
  eps <- gauss_eps_ref(1 / privacy(m)$noise_multiplier, 1e-5)
  out <- format(b)
  expect_match(out[1], "the test records: \\(epsilon, delta\\) = \\(2, 1e-05\\)")
  expect_match(out[3], "dp_mean()", fixed = TRUE)
  expect_match(out[4], paste("Spent: epsilon", format(signif(eps, 4))), fixed = TRUE)
  left <- 2 - gauss_eps_ref(1 / privacy(m)$noise_multiplier, 1e-5 - 1e-6)
  expect_match(out[5], format(signif(left, 4)), fixed = TRUE)
  expect_output(print(b), "disjoint from these compose in parallel")
  sm <- summary(b)
  expect_match(sm$sentence, sprintf("satisfies \\(%s, 1e-05\\)-differential",
                                    format(signif(eps, 4))))
  expect_output(print(sm), "whole analysis of the test records")
})

test_that("audit: two releases under a budget stay within its spent epsilon", {
  # two trimmed means of the same records under one budget, a record added
  # and removed at the public n, at either end of the range (the edge
  # records), with n - 1 and n records present: the likelihood-ratio
  # statistic of the pair is the sum of the two means (equal noise); its
  # lower bound on epsilon must not exceed the budget's spent epsilon, and
  # must exceed one release's at the same delta (the composition is real:
  # a budget that kept only the last fit would be exceeded)
  set.seed(7)
  n <- 50
  rng <- matrix(c(-1, 1), 2, 1)
  b0 <- dp_budget(6, 0.01)
  rest <- matrix(runif(n, -1, 1), ncol = 1)
  m1 <- dp_mean(rest[-n, , drop = FALSE], method = "trimmed", range = c(-1, 1),
                epsilon = 1.5, public_n = n, budget = b0)
  m2 <- dp_mean(rest[-n, , drop = FALSE], method = "trimmed", range = c(-1, 1),
                epsilon = 1.5, public_n = n, budget = b0)
  spent <- dp_spent(b0)$epsilon
  z <- privacy(m1)$noise_multiplier
  expect_identical(privacy(m2)$noise_multiplier, z)
  expect_equal(privacy(m1)$delta, 0.001)
  expect_equal(spent, gauss_eps_ref(sqrt(2) / z, 0.01), tolerance = 1e-6)
  one <- gauss_eps_ref(1 / z, 0.01)
  # the budgeted release is the internal one (the trials use it: faster)
  expect_identical(
    withr::with_seed(3, unname(dp_mean(rest, method = "trimmed",
                                       range = c(-1, 1), epsilon = 1.5,
                                       public_n = n,
                                       budget = dp_budget(6, 0.01))$estimate)),
    withr::with_seed(3, with_fit_stream(dp_mean_release(rest, rng, z, n)$estimate)))
  trials <- 20000
  stat <- function(x) vapply(seq_len(trials), function(i)
    dp_mean_release(x, rng, z, n)$estimate + dp_mean_release(x, rng, z, n)$estimate, 0)
  for (rows in c(n - 1, n)) for (edge in c(1, -1)) {
    x0 <- rest[seq_len(rows), , drop = FALSE]
    lb <- audit_eps_both(stat(x0), stat(rbind(x0, edge)), 0.01)
    expect_lte(lb, spent)
    expect_gt(lb, one)
  }
})
