# Every privacy noise of the package is drawn here: release() adds Gaussian
# noise to a released value (a vector or matrix, kept in shape), from the
# operating system's generator as an exact discrete Gaussian when the fit
# asked for secure noise (secure = TRUE of dpsco(); noise_state, R/noise.R)
# and from R's generator otherwise; release_symmetric() releases a
# symmetric matrix through it.  tools/check-structure.R fails on a random
# draw anywhere else (but the listed exceptions: the split's coins, the
# fit's stream, simulations of released noise), so `grep "release("`
# lists every release.  What a release costs is the caller's privacy part
# (settings_part(), privacy_part()), from the same z and sensitivity; each
# release also lists its own part (multiplier, sensitivity, the noise sd
# it drew) in the ledger of the running fit, and every exported function
# that reads data checks before it returns that its record covers each of
# them (check_releases()): a release the record does not show is an
# error, not a quiet under-statement of the privacy loss.
#
# `value` is released with L2 sensitivity `sensitivity` and multiplier z:
# noise of sd z * sensitivity on each entry.  `scale` (per entry) says
# the value was released as value * scale and is shown divided by it
# again (the noise of entry i then has sd z * sensitivity / scale_i).
# `sd` is that noise sd, computed by the caller where its own formula
# must be kept to the last bit (the fits are reproducible exactly across
# versions).  R's generator draws one normal per entry even when z is 0
# (the stream of a noise-free fit is that of a noisy one), unless
# `skip_zero`; secure noise needs z > 0 and leaves value as it is
# otherwise (so does a sensitivity of 0).  `secure = FALSE`: a mechanism with no secure version (its
# method does not take secure = TRUE).
release <- function(value, z, sensitivity, scale = 1,
                    sd = z * sensitivity / scale, skip_zero = FALSE,
                    secure = noise_secure(), part = NULL) {
  if (secure) {
    if (!(z * sensitivity > 0)) return(value)
    v <- as.double(value) * scale
    g <- secure_gaussian(z, sensitivity, length(v))
    ledger_add(part, z, sensitivity, z, length(v))
    out <- .Call(C_dpsco_secure_noise, v, g$sd, g$grid) / scale
    dim(out) <- dim(value)
    return(out)
  }
  if (skip_zero && !(z > 0)) return(value)
  if (z * sensitivity > 0)
    ledger_add(part, z, sensitivity, min(sd * scale) / sensitivity,
               length(value))
  value + sd * stats::rnorm(length(value))
}

# ---------------------------------------------------------------------------
# The ledger of a fit's releases

# A stack of ledgers, one per exported function running (a fit inside
# another's, such as cv.dpsco()'s path, passes its releases on to the
# outer one when it returns).  Each entry: the part's name (NULL: found by
# its multiplier), the multiplier z, the L2 sensitivity, the multiplier
# the drawn noise has (its sd over the sensitivity) and the entries
# released.
release_ledger <- new.env(parent = emptyenv())
release_ledger$stack <- list()

# Open a ledger until `frame` (the caller's) returns (local_fit_stream()).
ledger_open <- function(frame) {
  depth <- length(release_ledger$stack) + 1L
  release_ledger$stack[[depth]] <- list()
  do.call(base::on.exit, list(call("ledger_close", depth), add = TRUE),
          envir = frame)
  invisible(depth)
}

ledger_close <- function(depth) {
  st <- release_ledger$stack
  if (length(st) < depth) return(invisible())
  inner <- st[[depth]]
  st <- st[seq_len(depth - 1L)]
  if (depth > 1L) st[[depth - 1L]] <- c(st[[depth - 1L]], inner)
  release_ledger$stack <- st
  invisible()
}

ledger_add <- function(part, z, sensitivity, drawn, entries) {
  depth <- length(release_ledger$stack)
  if (depth == 0L) return(invisible())
  release_ledger$stack[[depth]] <- c(release_ledger$stack[[depth]], list(
    list(part = part, z = z, sensitivity = sensitivity, drawn = drawn,
         entries = entries)))
  invisible()
}

# The releases of the innermost running fit.
ledger_entries <- function() {
  depth <- length(release_ledger$stack)
  if (depth == 0L) list() else release_ledger$stack[[depth]]
}

# Whether the privacy record `record` (its table of parts) covers every
# release in `entries`: each is matched to a part by its name or else by
# its multiplier, drew noise of at least that multiplier, has at most the
# part's sensitivity (where the part states one), and no part holds more
# releases than its steps; a release of a part whose guarantee a theorem
# states (a stated (epsilon, delta), no multiplier) needs that part.  An
# error otherwise: the record would understate what the fit spent.  (The
# releases are matched from the largest sensitivity down: a part that
# takes a release takes every smaller one of the same multiplier too, so
# the first with room will do.)
check_releases <- function(record, entries = ledger_entries()) {
  if (!length(entries) || !isTRUE(record$private)) return(invisible(TRUE))
  sh <- record$shares
  used <- numeric(nrow(sh))
  close_to <- function(a, b) is.finite(a) & abs(a - b) <= 1e-9 * abs(b)
  big <- order(-vapply(entries, `[[`, 0, "sensitivity"))
  for (e in entries[big]) {
    # a part whose guarantee a theorem states (dp_part(): no multiplier)
    # covers the draws of its mechanism, found by its name
    if (!is.null(e$part) &&
        any(sh$part == e$part & is.na(sh$noise_multiplier))) next
    hit <- if (!is.null(e$part)) sh$part == e$part
           else close_to(sh$noise_multiplier, e$z)
    hit <- hit & (is.na(sh$noise_multiplier) |
                    e$drawn >= sh$noise_multiplier * (1 - 1e-9)) &
      (is.na(sh$sensitivity) | e$sensitivity <= sh$sensitivity * (1 + 1e-9))
    room <- which(hit & used < sh$steps)
    if (!length(room))
      stop("internal error: a release (noise multiplier ",
           format(signif(e$z, 4)), ") is not in the privacy record",
           if (any(hit)) " as often as it was made", ".", call. = FALSE)
    used[room[1L]] <- used[room[1L]] + 1
  }
  invisible(TRUE)
}

# A symmetric matrix h whose records' terms have Frobenius norm at most
# `sensitivity`: the noise on its upper triangle (whose L2 norm is at most
# the Frobenius norm), mirrored.  `square`: R's generator draws a whole
# d x d matrix and mirrors its upper triangle (the curvature's order of
# draws), rather than the triangle alone.  Nothing is drawn when
# z * sensitivity is 0.
release_symmetric <- function(h, z, sensitivity, sd = z * sensitivity,
                              square = FALSE) {
  if (!(sd > 0)) return(h)
  if (square && !noise_secure()) {
    e <- release(matrix(0, nrow(h), ncol(h)), z, sensitivity, sd = sd)
    e[lower.tri(e)] <- t(e)[lower.tri(e)]
    return(h + e)
  }
  up <- upper.tri(h, diag = TRUE)
  h[up] <- release(h[up], z, sensitivity, sd = sd)
  h[lower.tri(h)] <- t(h)[lower.tri(h)]
  h
}

# The exponential mechanism's choice as report-noisy-max with Gumbel
# noise: the index of the largest score - log(-log(u)), u uniform (from
# the operating system's generator with secure noise).  Scores are the
# caller's eps * utility / sensitivity, prior included.
release_choice <- function(score) {
  u <- if (noise_secure()) .Call(C_dpsco_secure_unif, length(score))
       else stats::runif(length(score))
  which.max(score - log(-log(u)))
}
