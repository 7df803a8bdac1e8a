# The design matrix x in the three forms the engine reads:
#  * a dense double matrix, copied row by row into the engine;
#  * a sparse dgCMatrix (any sparse Matrix is converted to one): the
#    engine keeps only the non-zeros, row by row, and its pass skips the
#    zeros, which every oracle maps to a zero contribution, so the fit is
#    the dense fit's;
#  * a file-backed bigmemory big.matrix: its file is mapped and read in
#    place, never copied into R's memory (a "dpsco_mapped" design); x[i, ]
#    of one is a view of those rows of the file, read through their list
#    (cv.dpsco()'s parts).
# R computes only a few statistics from x (the non-private lambda_max,
# predictions); the helpers below give them for every form, reading a
# sparse or mapped x in blocks of rows.  The private settings' sums come
# from passes in C (settings_pass()).

# x for dpsco() and cv.dpsco(): check_x() for dense input, and the two
# other forms kept as they are.
# (rows on cluster workers: check_design.dpsco_sharded(), R/shards.R)
check_design <- function(x, arg = "x", min_rows = 2L)
  UseMethod("check_design")

check_design.default <- function(x, arg = "x", min_rows = 2L) {
  if (inherits(x, "big.matrix")) return(mapped_design(x, arg, min_rows))
  if (is_mapped(x)) {                  # a view: checked as its file was
    if (nrow(x) < min_rows)
      arg_error(arg, "needs at least ", min_rows, " row",
                if (min_rows > 1L) "s", ".")
    return(x)
  }
  if (inherits(x, "sparseMatrix")) {
    x <- methods::as(methods::as(methods::as(x, "CsparseMatrix"),
                                 "generalMatrix"), "dMatrix")
    if (ncol(x) < 1L) arg_error(arg, "has no columns.")
    if (nrow(x) < min_rows)
      arg_error(arg, "needs at least ", min_rows, " row",
                if (min_rows > 1L) "s", ".")
    if (!all(is.finite(x@x)))
      arg_error(arg, "contains NA, NaN or infinite values.")
    return(x)
  }
  check_x(x, arg, min_rows)
}

is_sparse <- function(x) inherits(x, "dgCMatrix")
is_mapped <- function(x) inherits(x, "dpsco_mapped")

# A big.matrix: a file-backed one of type double is mapped from its file
# (after bigmemory has flushed it); one in shared memory is copied into an
# R matrix, which is where it already lives.
mapped_design <- function(x, arg, min_rows) {
  if (!requireNamespace("bigmemory", quietly = TRUE))
    arg_error(arg, "is a big.matrix, which needs the bigmemory package.")
  if (!bigmemory::is.filebacked(x))
    return(check_x(x[, , drop = FALSE], arg, min_rows))
  if (.Platform$OS.type == "windows")
    arg_error(arg, "is a file-backed big.matrix, which dpsco reads by ",
              "memory mapping, not available on Windows; pass x[, ] if it ",
              "fits in memory.")
  d <- bigmemory::describe(x)@description
  if (d$type != "double")
    arg_error(arg, "is a big.matrix of type \"", d$type, "\"; dpsco reads ",
              "file-backed big.matrix objects of type \"double\".")
  if (isTRUE(d$separated))
    arg_error(arg, "is a separated big.matrix (one file per column); ",
              "dpsco reads one backing file.")
  if (d$nrow != d$totalRows || d$ncol != d$totalCols)
    arg_error(arg, "is a sub.big.matrix; pass the whole file-backed matrix.")
  if (d$nrow < min_rows)
    arg_error(arg, "needs at least ", min_rows, " rows.")
  if (d$nrow > .Machine$integer.max)
    arg_error(arg, "has more than ", .Machine$integer.max, " rows.")
  bigmemory::flush(x)
  file <- file.path(d$dirname, d$filename)
  ptr <- .Call(C_dpsco_map_file, file, as.integer(d$nrow), as.integer(d$ncol))
  threads <- min(as.integer(getOption("dpsco.threads", 2L)), max_threads())
  if (!.Call(C_dpsco_map_finite, ptr, max(1L, threads)))
    arg_error(arg, "contains NA, NaN or infinite values.")
  structure(list(ptr = ptr, dim = as.integer(c(d$nrow, d$ncol)),
                 colnames = d$colNames, file = file, bound = NULL,
                 index = NULL),
            class = "dpsco_mapped")
}

# x[i, ] of a mapped design: a view of those rows, the same mapping read
# through their 0-based rows of the file (`index`), 4 bytes a row where a
# copy would take 8 p.  i as R indexes rows (logical or positive).
#' @rawNamespace S3method("[", dpsco_mapped)
`[.dpsco_mapped` <- function(x, i, j, ..., drop = TRUE) {
  if (!missing(j)) stop("internal error: a mapped design takes rows only")
  rows <- if (is.logical(i) && length(i) == nrow(x)) which(i)
          else seq_len(nrow(x))[i]
  if (anyNA(rows)) stop("internal error: rows outside a mapped design")
  x$index <- if (is.null(x$index)) rows - 1L else x$index[rows]
  x$dim[1L] <- length(rows)
  x
}

#' @export
dim.dpsco_mapped <- function(x) x$dim

#' @export
dimnames.dpsco_mapped <- function(x) list(NULL, x$colnames)

# Rows a block holds: about 2^21 values (an option for the tests' small
# blocks).
block_rows <- function(x)
  max(1L, getOption("dpsco.block_values", 2^21) %/% ncol(x))

# Rows from .. to (1-based) of a design as a dense matrix; a mapped
# design's bound is applied as the engine applies it.
design_rows <- function(x, from, to) {
  if (is.matrix(x)) return(x[from:to, , drop = FALSE])
  if (is_sparse(x)) return(as.matrix(x[from:to, , drop = FALSE]))
  v <- .Call(C_dpsco_map_rows, x, from - 1L, to)
  if (!is.null(x$colnames)) colnames(v) <- x$colnames
  if (is.null(x$bound)) v else scale_clamp(v, x$bound)
}

# f applied to each block of rows; the results added (`combine = "+"`),
# joined (`"c"`) or stacked (`"rbind"`).  The blocks depend on the shape
# of x alone and hold the same values in every form, so dense, sparse and
# mapped x give the same statistics bit for bit.
design_apply <- function(x, f, combine = c("+", "c", "rbind")) {
  combine <- match.arg(combine)
  n <- nrow(x)
  # no rows (a part of the data may be empty): one empty block
  if (n == 0L)
    return(f(matrix(0, 0L, ncol(x), dimnames = list(NULL, colnames(x))),
             integer(0)))
  size <- block_rows(x)
  starts <- seq(1L, n, by = size)
  out <- if (combine == "+") NULL else vector("list", length(starts))
  for (b in seq_along(starts)) {
    rows <- starts[b]:min(n, starts[b] + size - 1L)
    v <- f(design_rows(x, starts[b], max(rows)), rows)
    if (combine != "+") out[[b]] <- v
    else out <- if (is.null(out)) v else out + v
  }
  switch(combine, "+" = out, c = unlist(out, use.names = FALSE),
         do.call(rbind, out))
}

# clamp(x_j / bound_j, -1, 1): for a dense x as for a block of rows, for a
# sparse x on its non-zeros, for a mapped x recorded for the engine (a
# sharded x: scale_clamp.dpsco_shard_x(), R/shards.R).
scale_clamp <- function(x, bound) UseMethod("scale_clamp")

scale_clamp.default <- function(x, bound) {
  if (is_mapped(x)) {
    x$bound <- as.double(bound)
    return(x)
  }
  if (is_sparse(x)) {
    x@x <- pmin(pmax(x@x / rep(bound, diff(x@p)), -1), 1)
    return(x)
  }
  # a dense x in one pass in C: the same values without R's temporaries
  # of x's size
  if (is.matrix(x) && is.double(x) && length(x) > 0L)
    return(settings_pass(x, 4L, bound = as.double(rep_len(bound, ncol(x)))))
  pmin(pmax(x / rep(bound, each = nrow(x)), -1), 1)
}

# The private settings' passes over x (src/settings.c), for every form of
# x, read in place: the sums of R's block statistics in the order R forms
# them (rowSums(), crossprod() per block of block_rows(x) rows; the octave
# counts are integers), so dense, sparse and mapped x give the same sums bit for
# bit and the same as the R computations they replace.  Threads take whole
# columns, rows or blocks: the sums do not depend on how many ran.
settings_pass <- function(x, task, ...) {
  threads <- min(as.integer(getOption("dpsco.threads", 2L)), max_threads())
  .Call(C_dpsco_settings_pass, x,
        list(task = task, threads = max(1L, threads),
             block_rows = as.integer(block_rows(x)), ...))
}

# crossprod(x, r) as a vector.
design_crossprod <- function(x, r)
  design_apply(x, function(b, rows) drop(crossprod(b, r[rows])))

# Columns j of x as a dense matrix.
design_columns <- function(x, j) {
  if (is.matrix(x)) return(x[, j, drop = FALSE])
  design_apply(x, function(b, rows) b[, j, drop = FALSE], "rbind")
}

# The octave bins of magnitudes: 1 holds values <= 2^-32 (zero included),
# bin b = 2..64 holds (2^(b - 34), 2^(b - 33)], and values above 2^31 fall
# in bin 64.
log2_bin <- function(v) {
  b <- ceiling(log2(v))
  # exact: log2() rounds to an integer b just above a power of two 2^b
  b <- b + (2^b < v) + 33
  b[!(v > 2^-32)] <- 1
  pmin(pmax(b, 1), 64)
}

# The signed octave bins of y (1 .. 127): 65 - log2_bin(|v|) for a
# negative v beyond 2^-32 (bin 1 the most negative), 64 for |v| <= 2^-32,
# 63 + log2_bin(v) for a positive v.
signed_bin <- function(v) {
  b <- log2_bin(abs(v))
  as.integer(ifelse(v < 0 & b > 1L, 65L - b, 63L + b))
}

# The records idx (0-based) of a per-record vector or matrix (NULL: NULL;
# a sharded y or residual handle: itself, its workers take their rows; a
# sharded offset carries idx to the workers' counts of its exposures).
record_rows <- function(v, idx) UseMethod("record_rows")

record_rows.default <- function(v, idx) {
  if (is.null(v) || is.null(idx)) return(v)
  if (is.matrix(v)) v[idx + 1L, , drop = FALSE] else v[idx + 1L]
}
