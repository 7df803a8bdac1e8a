# The progress bar over a path's lambdas: the engine calls it after each
# lambda, it reaches the number of lambdas, and the fit is the same with it.

# The arguments dpsco() hands the engine, captured by a wrapper around the
# registered clip method's fit.
engine_args <- function(...) {
  reg <- method_registry
  spec <- reg$clip
  on.exit(assign("clip", spec, envir = reg))
  env <- new.env()
  wrapped <- spec
  wrapped$fit <- function(prob, path, settings) {
    env$args <- list(x = prob$x, y = prob$y, settings = settings,
                     lambda = path, beta0 = prob$beta0,
                     trace_at = prob$trace_at)
    spec$fit(prob, path, settings)
  }
  assign("clip", wrapped, envir = reg)
  dpsco(..., method = "clip")
  env$args
}

test_that("the engine calls the progress callback once per lambda, in order", {
  set.seed(3)
  n <- 400
  x <- matrix(rnorm(n * 2), n)
  y <- x[, 2] + rnorm(n)
  for (opt in c("newton", "spgd")) {
    a <- withr::with_seed(4, engine_args(x, y, nlambda = 7, optimizer = opt,
                                         iterations = 2, trace.it = FALSE))
    expect_null(a$settings$progress)
    calls <- integer()
    s <- a$settings
    s$progress <- function(done) calls <<- c(calls, done)
    run <- function(s) withr::with_seed(5, .Call(C_dpsco_fit, a$x, a$y,
                                                 s, a$lambda, a$beta0,
                                                 a$trace_at))
    with_bar <- run(s)
    expect_identical(calls, 1:7, info = opt)
    # the callback draws nothing and changes nothing
    expect_identical(with_bar, run(a$settings), info = opt)
    s$progress <- 1
    expect_error(run(s), "'progress' must be a function")
  }
})

test_that("trace.it shows a bar that ends at the number of lambdas and changes nothing", {
  set.seed(1)
  n <- 500
  x <- matrix(rnorm(n * 3), n)
  y <- x[, 1] + rt(n, 3)
  withr::local_options(cli.progress_handlers_only = "logger",
                       cli.progress_show_after = 0)
  for (opt in c("newton", "spgd")) {
    out <- capture.output(
      a <- withr::with_seed(2, dpsco(x, y, nlambda = 6, optimizer = opt,
                                     iterations = 3, trace.it = TRUE)))
    b <- withr::with_seed(2, dpsco(x, y, nlambda = 6, optimizer = opt,
                                   iterations = 3, trace.it = FALSE))
    expect_identical(a$beta, b$beta)
    expect_identical(a$a0, b$a0)
    expect_true(any(grepl("0/6 created", out)), info = opt)
    expect_true(any(grepl("6/6 terminated (done)", out, fixed = TRUE)), info = opt)
    out <- capture.output(withr::with_seed(2, dpsco(
      x, y, nlambda = 6, optimizer = opt, iterations = 3, trace.it = FALSE)))
    expect_false(any(grepl("created", out)), info = opt)
  }
  expect_error(dpsco(x, y, trace.it = "yes"), class = "dpsco_arg_error",
               regexp = "trace.it")
})
