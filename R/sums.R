# The sums over records that the private releases read, each written once
# over one holder's own records.  data_sums() runs an entry on records in
# memory (dense, sparse or file-backed) or on every shard's workers, which
# run the same entry on their records, and adds the shards' results in
# shard order (R/shards.R): a new sum costs nothing on shards.
#
# An entry of sum_table:
#   reads  the records it reads: "x" (as loaded), "xt" (on the fit's
#          scale), "y" (net of the offsets where the fit nets them), "yf"
#          (y as coded), "offset", or "records" (x, y, weights and offsets);
#   sum    function(v, a, rows): the sum over the records v, with the
#          arguments a, over the records `rows` only when given (0-based,
#          increasing: a subsample of the private settings);
#   note   what the fit's ledger lists when the workers formed it (a
#          function of the arguments; NULL lists nothing);
#   stage  what a worker's failure message says it was doing;
#   keep   for a sum whose per-record values later sums read (the rows'
#          norms): the name of that part, kept on each worker, which
#          returns the rest.
# A per-record argument is a vector over the records, or, on shards, a
# handle (the start's residuals, the rows' scales) that each worker
# forms from its own records (shard_resolve()); `cut` names the
# arguments with one value per record of the whole data, which go to
# each worker cut at its rows.

sum_entry <- function(reads, sum, note, stage, keep = NULL, cut = NULL)
  list(reads = reads, sum = sum,
       note = if (is.character(note)) function(a) note else note,
       stage = stage, keep = keep, cut = cut)

sum_table <- list(
  # per column of x, the counts of its records in the 64 octave bins of
  # |x_ij| (log2_bin()): a 64 x p integer matrix
  octaves = sum_entry("x", function(v, a, rows) {
    counts <- settings_pass(v, 5L, rows = rows)
    colnames(counts) <- colnames(v)
    counts
  }, "octave counts of x", "counting octaves"),
  # the counts of y in its 127 signed octave bins (signed_bin())
  signed_octaves = sum_entry("y", function(v, a, rows)
    tabulate(signed_bin(as.double(record_rows(v, rows))), 127L),
    "octave counts of y", "counting octaves"),
  # per column, the sum of the values clamped to [lo, hi], centred at the
  # range's midpoint
  centre = sum_entry("y", function(v, a, rows) {
    v <- as.matrix(v)
    r <- nrow(v)
    mid <- (a$lo + a$hi) / 2
    colSums(clamp(v, rep(a$lo, each = r), rep(a$hi, each = r)) -
              rep(mid, each = r))
  }, "clamped sum of y", "summing y"),
  # the counts of the K classes of y, coded 0 to K - 1
  classes = sum_entry("yf", function(v, a, rows) tabulate(v + 1L, a$K),
                      "class counts of y", "counting the classes"),
  # the counts of clamp(y, -B, B) in nbins equal bins of [-B, B]
  y_hist = sum_entry("y", function(v, a, rows) {
    w <- 2 * a$bound / a$nbins
    tabulate(clamp(floor((v + a$bound) / w) + 1, 1, a$nbins), a$nbins)
  }, "histogram counts of y", "forming the histogram of y"),
  # the octave counts (64) of the exposures e^offset_i (exposure_bin())
  exposure = sum_entry("offset", function(v, a, rows)
    tabulate(exposure_bin(record_rows(v, rows)), 64L),
    "exposure counts", "counting exposures"),
  # per record the sum of squares `ss` and the norm ||(1, x_i)|| (or
  # ||x_i||) `norm`, and 64 x k `counts`, the log2 histograms of
  # |residual_i| c_i (when a residual is given; c_i the norm, or with
  # coordinate max(intercept, |x_i|_inf)) and, with row_hist, of the norms
  row_stats = sum_entry("xt", function(v, a, rows)
    settings_pass(v, 2L, intercept = as.integer(a$intercept),
                  coordinate = as.integer(a$coordinate),
                  residual = if (!is.null(a$residual)) as.double(a$residual),
                  row_hist = as.integer(a$row_hist), rows = rows),
    function(a) if (!is.null(a$residual) || a$row_hist) "histogram counts",
    "forming histograms", keep = "norm"),
  # crossprod(cbind(1, x) * w) (no column of ones without an intercept):
  # the rows' second-moment matrix weighted by w
  gram = sum_entry("xt", function(v, a, rows)
    settings_pass(v, 3L, intercept = as.integer(a$intercept),
                  weight = as.double(a$w), rows = rows),
    "second-moment matrix", "forming the second-moment matrix"),
  # per penalty, the clamped losses of the records with coin `val`
  cv_loss = sum_entry("records", function(v, a, rows) {
    if (!any(a$val)) return(rep(0, length(path_values(a$fit))))
    cv_loss_sums(a$fit, v$x, v$y, a$val, a$measure, a$tau, a$family,
                 a$bound, a$y_range, v$weights, v$offset)
  }, "validation loss sums", "summing validation losses", cut = "val"))

# Whether the records live on cluster workers (R/shards.R).
is_sharded <- function(x) inherits(x, "dpsco_sharded")

# The sum `what` of sum_table over the records of `data` (for "records",
# a list of x, y, weights and offset), with the arguments `args`, over
# the records `rows` only when given.
data_sums <- function(data, what, args = list(), rows = NULL) {
  e <- sum_table[[what]]
  if (is.null(e)) stop("internal error: no sum ", what)
  holder <- if (e$reads == "records") data$x else data
  if (is_sharded(holder)) return(shard_sums(holder, e, what, args, rows))
  e$sum(data, args, rows)
}

# ---------------------------------------------------------------------------
# The sums by name, as the releases call them

# Those that take `rows` read the records `rows` only when given (0-based,
# increasing: a subsample of the private settings, settings_rows()), in
# place, as if x were x[rows + 1, ]; a per-record argument (residual, w)
# then has one value per listed record.

# Per column of x: the counts of records in the 64 octave bins of |x_ij|
# (log2_bin()), a 64 x p integer matrix.
design_octaves <- function(x, rows = NULL)
  data_sums(x, "octaves", rows = rows)

# Per record: the sum of squares `ss`, the norm ||(1, x_i)|| (or ||x_i||)
# `norm`, and 64 x k `counts`, the log2 histograms (log2_bin()) of
# |residual_i| c_i (when residual is given; c_i the norm, or with
# coordinate = TRUE max(intercept, |x_i|_inf)) and, with row_hist, of the
# norms.
design_row_stats <- function(x, intercept, residual = NULL,
                             coordinate = FALSE, row_hist = FALSE,
                             rows = NULL)
  data_sums(x, "row_stats", list(intercept = intercept, residual = residual,
                                 coordinate = coordinate,
                                 row_hist = row_hist), rows)

# Row sums of squares.
design_row_ss <- function(x) design_row_stats(x, FALSE)$ss

# crossprod(cbind(1, x) * w) (without the 1 for intercept = FALSE): the
# second-moment matrix of the rows weighted by w.
design_gram <- function(x, w, intercept, rows = NULL)
  data_sums(x, "gram", list(w = w, intercept = intercept), rows)

# The counts of y in its 127 signed octave bins (signed_bin()).
signed_octave_counts <- function(y, rows = NULL)
  data_sums(y, "signed_octaves", rows = rows)

# The counts of the K classes of y, coded 0 to K - 1 (sharded: summed over
# the workers, shards.R).
class_counts <- function(y, K) data_sums(y, "classes", list(K = K))

# The counts of clamp(y, -B, B) in nbins equal bins of [-B, B] (sharded:
# summed over the workers, shards.R).
y_bin_counts <- function(y, bound, nbins)
  data_sums(y, "y_hist", list(bound = bound, nbins = nbins))

# The octave counts (64) of the exposures e^offset_i (sharded: summed over
# the workers).
exposure_counts <- function(offset) data_sums(offset, "exposure")

# The octave bin (log2_bin()) of the exposure e^offset, from the offset
# itself so that no offset overflows.
exposure_bin <- function(offset)
  pmin(pmax(ceiling(offset / log(2)) + 33, 1), 64)

# The clamped losses of the records `val` of x (with their y, weights
# and offsets) summed per penalty.  A file-backed x is read and predicted
# a block of rows at a time: its part's predictions (records x
# penalties) are never held at once.
cv_loss_sums <- function(fit, x, y, val, measure, tau, fam, bound, y_range,
                         weights = NULL, offset = NULL) {
  sums <- function(b, rows) {
    pred <- stats::predict(fit, b, type = "response",
                           newoffset = offset[rows])
    # a weight in [0, 1] scales its record's clamped loss, which stays in
    # [0, bound]: the sensitivities of cv_choice() hold as they are
    loss <- clamped_loss(measure, y[rows], pred, tau, fam, bound, y_range)
    if (is.null(weights)) colSums(loss) else colSums(weights[rows] * loss)
  }
  rows <- which(val)
  if (!is_mapped(x)) return(sums(x[rows, , drop = FALSE], rows))
  design_apply(x[rows, , drop = FALSE], function(b, r) sums(b, rows[r]))
}

