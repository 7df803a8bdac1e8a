# Progress of a long fit: a cli progress bar over the lambdas of a path,
# shown after cli's delay (two seconds by default), so short fits show
# nothing.  The engine calls the update between lambdas (src/spgd.c,
# path_progress()); the bar draws no random numbers, so a fit is the same
# with or without it.

# `on`: dpsco(trace.it = ); `total`: the number of lambdas; `envir`: the
# frame whose exit closes the bar.  Returns the engine's callback, or NULL.
path_progress <- function(on, total, envir) {
  if (!on) return(NULL)
  id <- cli::cli_progress_bar("Fitting the path", total = total,
                              .envir = envir)
  function(done) {
    cli::cli_progress_update(set = done, id = id, .envir = envir)
    invisible(NULL)
  }
}

# dpsco(trace.it = ): TRUE or 1 shows the bar, FALSE or 0 does not.
check_trace_it <- function(trace.it) {
  if (length(trace.it) != 1L || is.na(trace.it) ||
      !(is.logical(trace.it) || trace.it %in% c(0, 1)))
    arg_error("trace.it", "must be TRUE or FALSE (or 1 or 0).")
  as.logical(trace.it)
}
