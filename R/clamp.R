# The NaN rule: numerics never weaken a sensitivity bound.  Every
# per-record quantity that enters a release, a selection score or a
# stopping rule is clamped to the range its sensitivity proof uses.  A clamp
# written as pmin(pmax(v, lo), hi) keeps NaN (and NA), so one finite record
# whose arithmetic overflows (0 * Inf, Inf - Inf) would otherwise carry NaN
# into a sum and from there into every released value.  clamp() maps +Inf
# to hi, -Inf to lo and NaN to the fixed value `nan` (lo unless the caller
# says otherwise): the proof needs only that the value is inside the
# range, not which one it is.  `lo`, `hi` and `nan` recycle against v, and
# v's attributes (dim) are kept.
clamp <- function(v, lo, hi, nan = lo) {
  out <- pmin(pmax(v, lo), hi)
  bad <- is.na(out)
  if (any(bad)) out[bad] <- rep_len(nan, length(out))[bad]
  out
}
