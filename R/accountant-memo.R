# What the Renyi accountant (accountant.R) and the privacy loss
# distributions (pld.R) share: which components release anything, and
# the memo of their results.

# Active components (those that release something)
acc_active <- function(cm) cm$q > 0 & is.finite(cm$z) & cm$steps > 0

# Results of the accountant memoised on their exact inputs (public
# parameters, never data), so that what a fit recomputes - its privacy
# record after the calibration, cv.dpsco()'s folds, refits at the same
# budget - is computed once.  The cache holds at most acc_cache_max
# entries and starts afresh when full.
acc_cache <- new.env(parent = emptyenv())
acc_cache_max <- 512L

acc_cache_clear <- function()
  rm(list = ls(acc_cache, all.names = TRUE), envir = acc_cache)

# sprintf("%.17g") round-trips every double, so equal keys mean equal inputs
acc_key <- function(...)
  paste(vapply(list(...), function(v) paste(sprintf("%.17g", v), collapse = ","),
               ""), collapse = "|")

acc_memo <- function(kind, key, compute) {
  k <- paste(kind, key)
  v <- acc_cache[[k]]
  if (!is.null(v)) return(v)
  v <- compute()
  if (length(acc_cache) >= acc_cache_max) acc_cache_clear()
  assign(k, v, envir = acc_cache)
  v
}

acc_cm_key <- function(cm) acc_key(cm$z, cm$q, cm$steps)
