# The random stream of a fit.  How many variates a fit draws depends on the
# data (a Poisson batch's gaps run up to the last record present, the
# cross-validation coins are one per record, ...), so running the fit on the
# user's stream would leave `.Random.seed` at a state that tells how many
# records there were.  Every exported function that draws randomness from
# data instead, once its arguments are checked (bad input draws nothing),
# takes a fixed number of draws (`fit_stream_draws`) from the user's
# stream, seeds a stream of its own with them (same RNGkind) and
# puts the user's stream back at the state just after those draws when it
# returns, by error or interrupt too: the user's stream advances by the same
# amount whatever the data, and set.seed(s) still reproduces the fit.

# The draws a fit takes from the user's stream: one uniform, which every
# generator of R answers with exactly one draw.
fit_stream_draws <- 1L

# Switch to the fit's stream until `frame` (the caller's) returns.  The
# arguments of the function running in `frame` are forced first, so that
# a promise such as y = rnorm(n) draws from the user's stream, as it would
# if the function evaluated it at once.
local_fit_stream <- function(frame = parent.frame(), fun = sys.function(-1L)) {
  force(frame)
  for (a in setdiff(names(formals(fun)), "...")) {
    if (!eval(call("missing", as.name(a)), frame)) get(a, envir = frame)
  }
  if ("..." %in% names(formals(fun))) eval(quote(list(...)), frame)
  ledger_open(frame)    # release.R: the fit's releases, for check_releases()
  enter_fit_stream(frame)
}

# Evaluate `expr` on a fit's stream: what an exported entry point does,
# for replaying its releases with internal functions (tests).
with_fit_stream <- function(expr) {
  enter_fit_stream(environment())
  expr
}

enter_fit_stream <- function(frame) {
  u <- stats::runif(fit_stream_draws)   # creates .Random.seed if absent
  genv <- globalenv()
  user <- get(".Random.seed", envir = genv, inherits = FALSE)
  do.call(base::on.exit,
          list(call("assign", ".Random.seed", user, envir = genv), add = TRUE),
          envir = frame)
  # a 32-bit seed from the uniform's bits (32 with the default generator);
  # never NA_integer_ (-2^31)
  set.seed(floor(u[1L] * 4294967295) - 2147483647)
  invisible()
}
