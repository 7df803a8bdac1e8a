# The fit's own random stream (R/rng.R): the state in which a call leaves
# R's generator does not depend on the data, and set.seed() still
# reproduces the call.

rng_data <- function(n = 300) {
  set.seed(61)
  x <- matrix(stats::rt(n * 3, df = 3), n, 3)
  y <- drop(x %*% c(1, -1, 0)) + stats::rt(n, df = 3)
  # D and D' = D plus one record, at the same public n
  list(x = x, y = y, x1 = rbind(x, c(2.5, -1, 0.3)), y1 = c(y, 4.2), n = n)
}

# .Random.seed after `f()` started from set.seed(seed).
state_after <- function(f, seed = 42) {
  set.seed(seed)
  f()
  get(".Random.seed", envir = globalenv())
}

# The entry points and methods whose number of draws depends on the rows:
# Poisson batches (a geometric gap per sampled record, so a record added
# at the end changes the count when a step's last gap lands on it: 40
# steps make that all but sure), the one-pass blocks,
# cross-validation's coins, the resizing to public_n (a subset of the
# rows) and Kamath's groups (one label per record).
rng_cases <- function(n) list(
  clip_poisson = function(x, y)
    dpsco(x, y, method = "clip", batch_size = 50, nlambda = 2, public_n = n,
          optimizer = "spgd", iterations = 20),
  prox_clipped_sgd = function(x, y)
    dpsco(x, y, method = "prox_clipped_sgd", batch_size = 40, nlambda = 2,
          public_n = n),
  cv = function(x, y) cv.dpsco(x, y, nlambda = 2, public_n = n),
  resized = function(x, y)
    dpsco(x, y, method = "mirror_shuffled", radius = c(1, 2), public_n = n),
  dp_mean = function(x, y) dp_mean(y, method = "kamath", public_n = n))

test_that(".Random.seed after a call is the same for D and D plus one record", {
  d <- rng_data()
  set.seed(42)
  start <- get(".Random.seed", envir = globalenv())
  # the fixed draw that seeds the call's own stream, and nothing else
  stats::runif(1)
  expected <- get(".Random.seed", envir = globalenv())
  for (nm in names(rng_cases(d$n))) {
    f <- rng_cases(d$n)[[nm]]
    a <- state_after(function() f(d$x, d$y))
    b <- state_after(function() f(d$x1, d$y1))
    expect_identical(a, b, label = nm)
    expect_identical(a, expected, label = nm)
    expect_false(identical(a, start), label = nm)
    # on the user's stream the draws would tell the two apart
    bare_a <- state_after(function() without_fit_stream(f(d$x, d$y)))
    bare_b <- state_after(function() without_fit_stream(f(d$x1, d$y1)))
    expect_false(identical(bare_a, bare_b), label = nm)
  }
})

test_that("set.seed() reproduces a fit on its own stream; another seed does not", {
  d <- rng_data()
  run <- function(seed) {
    set.seed(seed)
    f <- dpsco(d$x, d$y, method = "clip", batch_size = 50, nlambda = 2)
    c(f$a0, f$beta)
  }
  expect_identical(run(3), run(3))
  expect_false(identical(run(3), run(4)))
  # the stream is R's generator seeded from the fixed draw, of the same
  # kind: a fit under L'Ecuyer-CMRG stays reproducible and keeps the kind
  old <- RNGkind()
  on.exit(RNGkind(old[1], old[2], old[3]))
  RNGkind("L'Ecuyer-CMRG")
  a <- run(3)
  expect_identical(RNGkind()[1], "L'Ecuyer-CMRG")
  expect_identical(run(3), a)
})

test_that("a call creates .Random.seed if absent, restores it on error, and nests", {
  d <- rng_data(120)
  genv <- globalenv()
  old <- get(".Random.seed", envir = genv)
  on.exit(assign(".Random.seed", old, envir = genv))
  rm(".Random.seed", envir = genv)
  dp_mean(d$y, method = "clip")
  expect_true(exists(".Random.seed", envir = genv, inherits = FALSE))
  # an error raised once the fit's stream is entered (the path's checks)
  # leaves the caller's stream one draw on, as a completed fit does
  set.seed(5)
  expect_error(dpsco(d$x, d$y, batch_size = 1e6), class = "dpsco_arg_error")
  err_state <- get(".Random.seed", envir = genv)
  set.seed(5)
  stats::runif(1)
  expect_identical(err_state, get(".Random.seed", envir = genv))
  # nested: a call inside the replay helper draws one value from the
  # outer stream and gives it back one draw on
  set.seed(9)
  inner <- with_fit_stream({
    dp_mean(d$y, method = "clip")
    stats::runif(1)
  })
  set.seed(9)
  ref <- with_fit_stream({
    stats::runif(1)
    stats::runif(1)
  })
  expect_identical(inner, ref)
})

test_that("a promise argument draws from the caller's stream, before the fit's", {
  # dpsco() reads `lambda` only after entering its stream: the promise is
  # forced first, so the call is the one with lambda drawn beforehand
  d <- rng_data(120)
  set.seed(7)
  f1 <- dpsco(d$x, d$y, lambda = sort(stats::runif(2), decreasing = TRUE))
  after1 <- get(".Random.seed", envir = globalenv())
  set.seed(7)
  lam <- sort(stats::runif(2), decreasing = TRUE)
  f2 <- dpsco(d$x, d$y, lambda = lam)
  expect_identical(f1$lambda, lam)
  expect_identical(f1$beta, f2$beta)
  expect_identical(get(".Random.seed", envir = globalenv()), after1)
})
