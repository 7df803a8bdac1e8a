#' @include design.R
NULL

# Fits over data sharded across the workers of a `parallel` cluster.
#
# Every private release of a penalised fit is a noisy function of sums over
# records.  The workers hold the rows and compute partial sums over their
# own rows with the engine's own passes; the coordinator (this R session)
# adds them and adds the noise once, exactly where the single-process fit
# adds it.  The coordinator draws every Poisson batch and every Kamath
# label from R's generator in the single-process order (the engine does the
# drawing: its records are "remote", src/shard.c) and sends each worker its
# part of the batch; so for a given seed the fit is the single-process fit
# up to the order in which the sums are added.
#
# What leaves a worker: at dpsco_shards() time its row count, column count,
# column names and the levels of a factor y (the coordinator needs the
# counts to map the sampled indices to shards; they are never printed,
# saved or released) and whether it holds weights and offsets; then only
# sums: per column octave counts (and signed octave counts of y), one
# clamped sum of y, the class counts of a multinomial y, the bin counts of
# the quantile family's histogram of y, 64-bin histogram counts (of the
# residuals, the row norms and the exposures), the d x d second-moment
# matrix of the rows and per step the oracle's d (k d for kamath; K d for
# K classes) accumulator sums.  A shard's weights and offsets stay there
# and enter these sums on the worker.  What reaches a worker: its own
# sampled indices, labels and split coins, and otherwise public or
# released values (the roxygen below lists them).
#
# Objects:
#  * dpsco_shards (the user's): the cluster, the shards' row counts (behind
#    an external pointer, shard_rows()), p, column names, the id keying the
#    worker-side store, threads per worker;
#  * dpsco_shard_x / dpsco_shard_y: the design and the response of one fit
#    as the engine and the private settings see them (class
#    "dpsco_sharded"): R/design.R, R/settings.R and R/dp-mean.R route their
#    sums here when given one.

# Worker side: one environment per shard id, holding x, y and what a fit
# keeps resident (the scaled x, the records' layout, the row norms).
shard_store <- new.env(parent = emptyenv())
# Coordinator side: a counter for ids and keys (no random draws, so a
# fit's generator stream is the single-process one).
shard_counter <- new.env(parent = emptyenv())

shard_next <- function(prefix) {
  k <- (shard_counter$k %||% 0) + 1
  shard_counter$k <- k
  paste0(prefix, Sys.getpid(), ".", k)
}


# The shards' row counts are data.  The handle holds them behind an
# external pointer to C memory (src/shard.c dpsco_shard_rows()), which
# print() does not show and serialize() does not write: a saved handle
# holds no counts, and a restored one is refused here.
shard_rows_keep <- function(rows) .Call(C_dpsco_shard_rows, as.double(rows))

shard_rows <- function(sh) {
  rows <- .Call(C_dpsco_shard_rows, sh$rows)
  if (is.null(rows))
    arg_error("x", "is a dpsco_shards object restored from a saved copy ",
              "(saveRDS(), save() or serialize()): the shards' row counts ",
              "are data and are never saved with it.  Run dpsco_shards() ",
              "again on a running cluster.")
  rows
}

#' Data sharded across the workers of a cluster
#'
#' `dpsco_shards()` loads one block of rows on each worker of a cluster of
#' the `parallel` package (a socket cluster on this machine or on several
#' hosts, or an MPI cluster from `snow::makeMPIcluster()`; the tests run
#' socket clusters of `parallel` and `parallelly` and a two-worker MPI
#' cluster of `snow` and `Rmpi` on Open MPI), keeps it there, and returns a
#' handle that [dpsco()] and [cv.dpsco()] fit as they fit a matrix: the same
#' arguments, the same privacy record and, for a given seed, the same
#' coefficients up to the order in which sums are added (measured about
#' 3e-15 relative; tested below 1e-12).
#'
#' Worker `i` runs `load(i)` once; it returns `list(x = , y = )` with `x` a
#' numeric matrix, a sparse `Matrix` or a file-backed
#' `bigmemory::big.matrix` that the worker attaches itself (read in place,
#' never copied), and `y` that shard's responses; and, when the fit has
#' them, `weights =` and `offset =`, that shard's records' weights (in
#' `[0, 1]`) and offsets, which are data like `y` and stay on the worker
#' (every shard returns them, or none).  Each shard is checked
#' there: a non-numeric or non-finite `x`, a `y` of the wrong length, with
#' missing or infinite values, weights or offsets that [dpsco()] would
#' refuse (the wrong length, not finite, weights outside `[0, 1]`), or a
#' column count that differs from the
#' other shards' is a [`dpsco_arg_error`][dpsco_errors] naming the shard.
#' The workers need dpsco installed (the same version as here).
#'
#' **Socket clusters: start them with `TCP_NODELAY`.**  A step sends each
#' worker one message; with R's default socket options a message of more
#' than 4 KB (R's serialisation buffer) goes out in two writes, and the
#' second waits for the worker's delayed acknowledgement, about 40 ms per
#' step on Linux.  `options(socketOptions = "no-delay")` before
#' [parallel::makeCluster()] removes the wait (measured: 49 ms against
#' 1.2 ms per step at `d = 51`, `bench/shards.R`).
#'
#' **MPI clusters** take the same calls and give the same fits, at a
#' higher cost per message: `Rmpi::mpi.send.Robj()` runs a full [gc()]
#' after every send, at the coordinator and at each worker (measured: a
#' step took 180 ms against 6 ms on a socket cluster at `d = 51`, on a
#' loaded 2-core machine), so they pay when a step's pass is long.
#'
#' **What leaves a worker.**  Every release of a fit is a noisy function of
#' sums over records.  Each worker computes its partial sums with the
#' engine's own passes over its rows; the coordinator (this R session) adds
#' them and adds the noise once, as a single-process fit does, so the
#' sensitivity, the noise and the accounting are the single-process fit's.
#' A worker returns only sums: octave counts per column (of `|x_j|`, and
#' the signed octaves of `y`, net of the offsets), a clamped sum of `y`
#' (net of the offsets), the counts of each class of a multinomial `y`,
#' the bin counts of the quantile family's histogram of `y` (net of the
#' offsets), histogram counts (of the weighted residuals at the start, of
#' the row norms and, for poisson with offsets, of the exposures
#' `exp(offset_i)`), the second-moment matrix of the rows (weighted by
#' the records' weights and exposures) and, per step, the oracle's `d`
#' (Kamath: `k d`; a multinomial's `K d` for `K` classes) sums, with each
#' record's weight and offset applied on the worker.  It also reports its
#' row count once, and whether it holds weights and offsets, which the
#' coordinator needs to map sampled records to shards and to ask for the
#' right sums; the row counts are data: they are never printed or saved (the
#' handle keeps them in memory outside its serialisable data, so a handle
#' restored by [readRDS()] or [load()] holds none and is refused), and a
#' sharded fit needs `public_n`.
#'
#' **What a worker receives.**  Its `load` function, once.  The coordinator
#' draws every Poisson batch, every Kamath label and, in [cv.dpsco()], the
#' record split from R's generator and sends each worker the indices of its
#' own sampled rows, their labels and its own rows' split coins only.
#' Everything else a worker is sent is public or already released: the
#' family and the method's public parameters; the released values of the
#' private settings that its later sums depend on (the bounds that scale
#' `x`, the range of `y` that clamps its sum and, for the quantile
#' family, the bound on `|y|` that sets its histogram's bins, the
#' start, whose intercepts form the residuals for the clipping level, the
#' row bound of the second-moment matrix and, for poisson with offsets,
#' the released bound on the exposures that weights its rows); the
#' family's loss derivative and, with offsets, its function that nets `y`
#' of them; the oracle's parameters, among them the clipping level
#' (released, or declared), and the family's public parameters (the
#' number of classes; the quantile level, kernel and released bandwidth);
#' the iterates `beta`; and in [cv.dpsco()] the training fit (the
#' `dpsco.fit` it returns, without its call and trace), whose validation
#' losses the worker sums, and the bound they are clamped to.  Workers
#' never see the noise, a total over all shards, or other shards' indices.
#'
#' **Threat model.**  The guarantee covers what the coordinator releases.
#' The coordinator and the network between it and the workers are trusted
#' as the single-process fit's memory is: the sampled indices (which rows
#' were in a batch) and the noiseless sums are secret and pass between
#' them.  A compromised worker learns its own rows (it holds them), the
#' batches drawn from them and the released values it is sent (listed
#' above: the iterates `beta` and the settings are post-processing of
#' noisy releases, the training fit of [cv.dpsco()] is one), which tell it
#' nothing the fit's output does not.  It can make the fit wrong (by
#' returning wrong sums) but not less private for the other records.
#'
#' **Methods.**  The penalised methods whose steps are Poisson batches
#' (`"clip"`, `"kamath"`, `"holland"`; `tuning = "private"` or
#' `"public"`), with every family (`"multinomial"` on shards held in
#' memory, as for a single `x`) and with weights and offsets when `load()`
#' returns them.  The other methods are refused with an error that gives
#' the reason, which `dpsco_methods()$shard_note` lists for each: the
#' constraint-set and one-pass methods run their own loops over records,
#' and `"none"` (not private) takes its lambda grid from a data statistic.
#' `standardize` other than `FALSE` (or `"auto"`, which is `FALSE` here)
#' and declared `x_bound` are not available on shards.
#' [cv.dpsco()] takes shards in memory or file-backed, with weights and
#' offsets when `load()` returns them: the record split (each part keeps
#' its records' weights and offsets), the training fit and the validation
#' losses' sums (with the records' offsets and weights) run on the
#' workers.  A file-backed shard's parts are views of its file (the list
#' of their rows, 4 bytes each), never copies: the
#' training fit's passes and private settings read the file in place
#' through that list, and the validation records are read and predicted a
#' block of rows at a time.
#'
#' **Faults.**  A worker whose `load()` or pass raises an error, or that
#' stops answering, stops the fit with a `dpsco_shard_error` naming the
#' worker; nothing is returned.  The condition's `released` field lists
#' what the fit had already released (the private settings' releases and
#' the number of noisy gradients): that budget is spent, whatever is
#' retried.  A worker that died leaves the cluster unusable: stop it and
#' start a new one.
#'
#' @param cl a cluster from [parallel::makeCluster()] (or any object of
#'   class `cluster`), one shard per worker.
#' @param load a function of the worker number `i` that returns
#'   `list(x = , y = )` on worker `i`, with `weights = ` and `offset = `
#'   when the records have them.  It runs on the worker: data it
#'   needs must be there (files), or in its environment, which is sent
#'   along (but not the global environment: make it with [local()] or in
#'   a function).
#' @param threads chunks each worker splits its pass into (run on that many
#'   OpenMP threads where available); the fit depends on it only through
#'   the order of additions.
#' @return An object of class `dpsco_shards`: the cluster, `p`, the column
#'   names, a private id and the shards' row counts behind an external
#'   pointer (neither printed nor saved: a copy restored from a file holds
#'   no counts, and [dpsco()] refuses it).  Pass it to [dpsco()] in the
#'   session that made it.
#' @seealso [dpsco()]; the vignette section "Fitting on a cluster".
#' @examples
#' \donttest{
#' op <- options(socketOptions = "no-delay")
#' cl <- parallel::makeCluster(2)
#' options(op)
#' set.seed(1)
#' x <- matrix(rnorm(4000), 2000, 2)
#' y <- drop(x %*% c(1, -1)) + rnorm(2000)
#' # local(): the function carries x and y to the workers (a function
#' # made in the global environment would not)
#' load <- local({
#'   x <- x
#'   y <- y
#'   function(i) {
#'     rows <- if (i == 1) 1:1000 else 1001:2000
#'     list(x = x[rows, ], y = y[rows])
#'   }
#' })
#' sh <- dpsco_shards(cl, load)
#' sh
#' fit <- dpsco(sh, epsilon = 1, public_n = 2000)
#' privacy(fit)
#' parallel::stopCluster(cl)
#' }
#' @export
dpsco_shards <- function(cl, load, threads = 1L) {
  if (!inherits(cl, "cluster") || length(cl) < 1L)
    arg_error("cl", "must be a cluster of the parallel package (e.g. from ",
              "parallel::makeCluster()) with at least one worker.")
  if (!is.function(load))
    arg_error("load", "must be a function of the worker number i that ",
              "returns list(x = , y = ) on worker i.")
  threads <- check_count(threads, "threads", 1, 64)
  id <- shard_next("s")
  jobs <- lapply(seq_along(cl), function(i) list(i = i))
  info <- shard_apply(cl, id, "load", jobs, list(load = load),
                      stage = "loading the shards")
  p <- vapply(info, `[[`, 0L, "p")
  if (any(p != p[1L])) {
    i <- which(p != p[1L])[1L]
    arg_error("load", "returned ", p[i], " columns on worker ", i, " and ",
              p[1L], " on worker 1: every shard needs the same columns.")
  }
  cn <- info[[1L]]$colnames
  for (i in seq_along(info))
    if (!identical(info[[i]]$colnames, cn))
      arg_error("load", "returned other column names on worker ", i,
                " than on worker 1.")
  lev <- info[[1L]]$levels
  for (i in seq_along(info))
    if (!identical(info[[i]]$levels, lev))
      arg_error("load", "returned a y with other levels on worker ", i,
                " than on worker 1: declare the same levels on every shard.")
  # per-record data come from every shard or from none
  for (a in c("weights", "offset")) {
    has <- vapply(info, function(v) isTRUE(v[[a]]), NA)
    if (any(has != has[1L])) {
      i <- which(has != has[1L])[1L]
      arg_error("load", "returned ", a, " on worker ",
                if (has[1L]) 1L else i, " but not on worker ",
                if (has[1L]) i else 1L, ": every shard needs them, or none.")
    }
  }
  rows <- vapply(info, function(v) as.double(v$rows), 0)
  if (sum(rows) > .Machine$integer.max)
    arg_error("load", "returned more than ", .Machine$integer.max,
              " rows in all.")
  structure(list(cluster = cl, id = id, rows = shard_rows_keep(rows),
                 p = p[1L],
                 colnames = cn, threads = threads,
                 mapped = any(vapply(info, `[[`, NA, "mapped")),
                 weights = isTRUE(info[[1L]]$weights),
                 offset = isTRUE(info[[1L]]$offset)),
            class = "dpsco_shards")
}

#' @rdname dpsco_shards
#' @param x a `dpsco_shards` object.
#' @param ... unused.
#' @export
print.dpsco_shards <- function(x, ...) {
  # the row counts are data: not shown
  cat(sprintf("Data sharded over %d workers: %d columns (row counts not shown: they are data)\n",
              length(x$cluster), x$p))
  invisible(x)
}

#' @rdname dpsco
#' @section Sharded data:
#' `dpsco(shards, ...)` fits data held by the workers of a cluster (see
#' [dpsco_shards()]) with the same arguments as on a matrix, except `x`,
#' `y`, `weights` and `offset`, which the workers' `load()` returns;
#' `public_n` is required (the total row count
#' is data) and the fit equals the single-process fit of the stacked shards
#' for the same seed, up to rounding.
#' @export
dpsco.dpsco_shards <- function(x, ...) {
  a <- shard_args(x, list(...))
  fit <- dpsco.default(a$x, a$y, weights = a$weights, offset = a$offset, ...)
  fit$call <- generic_call(match.call(), "dpsco")
  fit
}

#' @rdname cv.dpsco
#' @section Sharded data:
#' `cv.dpsco(shards, ...)` (see [dpsco_shards()]) splits the records held
#' by the workers with the same coins, fits the training part there and
#' sums the validation losses on the workers, with the weights and offsets
#' that `load()` returns (weighted losses of predictions with the
#' offsets, as for `weights` and `offset` here); `public_n` is required.
#' File-backed shards are split into views of their files, read in place
#' (as a single file-backed `x` is, see "Sparse and file-backed x" in
#' [dpsco-methods]).  For a given seed the result is the single-process one up
#' to rounding.
#' @export
cv.dpsco.dpsco_shards <- function(x, ...) {
  a <- shard_args(x, list(...))
  # the workers' copies of the training part go with the call
  on.exit(shard_drop_views(a$x), add = TRUE)
  cv <- cv.dpsco.default(a$x, a$y, weights = a$weights, offset = a$offset,
                         ...)
  cv$call <- generic_call(match.call(), "cv.dpsco")
  cv
}

# The checks of a fit on shards that dpsco.default() cannot make (its x
# and y are handles), and the handles.
shard_args <- function(x, dots) {
  if ("y" %in% names(dots))
    arg_error("y", "is held by the workers: load() returns it with x.")
  if (is.null(dots$public_n))
    arg_error("public_n", "must be given for sharded data: the number of ",
              "rows the workers hold is data, and every divisor and noise ",
              "scale of the fit must come from a public n.")
  for (a in c("weights", "offset"))
    if (!is.null(dots[[a]]))
      arg_error(a, "is per-record data, which the workers hold for sharded ",
                "data: load() returns it with x and y (list(x = , y = , ",
                a, " = )).")
  if (!is.null(dots$standardize) && !isFALSE(dots$standardize) &&
      !identical(dots$standardize, "auto"))
    arg_error("standardize", "must be FALSE for sharded data (private ",
              "tuning puts the columns on a common scale).")
  if (!is.null(dots$control$x_bound))
    arg_error("control", "$x_bound: declared bounds on x are not available ",
              "for sharded data; leave them to private tuning.")
  # the families whose every release is a sum the workers form (their
  # `shardable`, now every family; a name outside every family is left to
  # dpsco()'s own error)
  fam <- if (!is.null(dots$family)) family_arg(dots$family)
  if (is.character(fam) && length(fam) == 1L &&
      fam %in% names(family_codes) && !family_object(fam)$shardable) {
    ok <- Filter(function(f) family_object(f)$shardable, names(family_codes))
    ok <- paste0("\"", ok, "\"")
    arg_error("family", "\"", fam, "\" is not available for sharded data ",
              "(use ", paste(ok[-length(ok)], collapse = ", "), " or ",
              ok[length(ok)], ").")
  }
  shard_handles(x)
}

# The design and response handles of a dpsco_shards object.  They share
# the record of releases (`ledger`) and the row subsets made of them
# (`views`).
shard_handles <- function(sh, ledger = NULL, views = NULL) {
  if (is.null(ledger)) {
    ledger <- new.env(parent = emptyenv())
    ledger$releases <- character()
    ledger$gradients <- 0
  }
  if (is.null(views)) views <- new.env(parent = emptyenv())
  list(x = structure(list(shards = sh, rows = as.integer(sum(shard_rows(sh))),
                          p = sh$p, colnames = sh$colnames, bound = NULL,
                          key = "raw", pass = shard_remote_pass,
                          ledger = ledger, views = views),
                     class = c("dpsco_shard_x", "dpsco_sharded")),
       y = structure(list(shards = sh, ledger = ledger, views = views),
                     class = c("dpsco_shard_y", "dpsco_sharded")),
       # the records' weights and offsets, held by the workers
       weights = if (isTRUE(sh$weights))
         structure(list(shards = sh, ledger = ledger, views = views),
                   class = c("dpsco_shard_weights", "dpsco_sharded")),
       offset = if (isTRUE(sh$offset))
         structure(list(shards = sh, ledger = ledger, views = views),
                   class = c("dpsco_shard_offset", "dpsco_sharded")))
}

# x[i, ], y[i], weights[i] and offset[i] of the handles, i a logical over
# the stacked rows (the record split of cv.dpsco()): each worker keeps its
# rows of the part, with their weights and offsets, under a new id.  The
# same i gives the same part.
#' @rawNamespace S3method("[", dpsco_shard_x)
`[.dpsco_shard_x` <- function(x, i, j, ..., drop = TRUE) {
  if (!missing(j)) stop("internal error: sharded x takes rows only")
  shard_view(x, i)$x
}

#' @rawNamespace S3method("[", dpsco_shard_y)
`[.dpsco_shard_y` <- function(x, i) shard_view(x, i)$y

#' @rawNamespace S3method("[", dpsco_shard_weights)
`[.dpsco_shard_weights` <- function(x, i) shard_view(x, i)$weights

#' @rawNamespace S3method("[", dpsco_shard_offset)
`[.dpsco_shard_offset` <- function(x, i) shard_view(x, i)$offset

shard_view <- function(h, keep) {
  sh <- h$shards
  rows <- shard_rows(sh)
  if (!is.logical(keep) || length(keep) != sum(rows) || anyNA(keep))
    stop("internal error: a part of sharded data needs one coin per row")
  for (v in h$views$list)
    if (identical(v$keep, keep)) return(v$handles)
  ends <- cumsum(rows)
  parts <- lapply(seq_along(rows), function(s)
    keep[seq_len(rows[s]) + (ends[s] - rows[s])])
  id <- shard_next("v")
  shard_apply(sh$cluster, sh$id, "subset",
              lapply(parts, function(k) list(keep = k)), list(new_id = id),
              stage = "splitting the records")
  sub <- sh
  sub$id <- id
  sub$rows <- shard_rows_keep(vapply(parts, function(k) as.double(sum(k)), 0))
  handles <- shard_handles(sub, h$ledger)
  h$views$list <- c(h$views$list, list(list(keep = keep, handles = handles)))
  handles
}

shard_drop_views <- function(h) {
  ids <- vapply(h$views$list, function(v) v$handles$x$shards$id, "")
  if (length(ids))
    try(parallel::clusterCall(h$shards$cluster, shard_drop, ids),
        silent = TRUE)
}

shard_drop <- function(ids) {
  rm(list = intersect(ids, ls(shard_store)), envir = shard_store)
  NULL
}

#' @export
dim.dpsco_shard_x <- function(x) c(x$rows, x$p)

#' @export
dimnames.dpsco_shard_x <- function(x) list(NULL, x$colnames)

# ---------------------------------------------------------------------------
# The coordinator's calls

# The methods whose every release is a sum over records the workers can
# form, as each method declares (its trait `shardable`: TRUE, or why not).
shard_check_method <- function(spec) {
  if (!isTRUE(spec$shardable)) {
    ok <- paste0("\"", Filter(function(m) isTRUE(method_spec(m)$shardable),
                              method_names()), "\"")
    arg_error("method", "\"", spec$name, "\" cannot be fitted on sharded ",
              "data: ", spec$shardable, "; use ",
              paste(utils::head(ok, -1L), collapse = ", "), " or ",
              utils::tail(ok, 1L), ".")
  }
  invisible(spec)
}

# y as each worker checks it for `family` (check_y()); returns what
# dpsco.default() takes from check_y(): the class names (declared levels)
# and y, here the sharded response.
shard_check_y <- function(y, family) {
  sh <- y$shards
  res <- shard_apply(sh$cluster, sh$id, "y", NULL, list(family = family),
                     stage = "checking y", arg = "y")
  list(y = y, classnames = res[[1L]])
}

# Calls task on every worker (job `jobs[[i]]` on worker i, `common` on
# all) and returns the list of results.  A worker's error comes back as a
# value (shard_worker()), so the other workers' answers are read and the
# cluster stays usable; it is raised here naming the worker: a check of
# the data (dpsco_arg_error on the worker) as a dpsco_arg_error of `arg`,
# anything else as a dpsco_shard_error.  A worker that does not answer
# (dead, connection lost) is a dpsco_shard_error too.  `ledger`: the
# fit's record of what it released, kept in the condition.
shard_apply <- function(cl, id, task, jobs, common, stage, arg = "load",
                        ledger = NULL) {
  if (is.null(jobs)) jobs <- rep(list(list()), length(cl))
  out <- tryCatch(parallel::clusterApply(cl, jobs, shard_worker, task = task,
                                         id = id, common = common),
                  error = function(e) shard_lost(cl, e, stage, ledger))
  for (i in seq_along(out)) {
    r <- out[[i]]
    if (!inherits(r, "dpsco_shard_failure")) next
    if (r$check && is.null(ledger))
      arg_error(arg, "on worker ", i, ": ", r$message)
    shard_error(i, paste0("worker ", i, " failed while ", stage, ": ",
                          r$message), ledger)
  }
  out
}

shard_error <- function(worker, msg, ledger) {
  released <- if (!is.null(ledger))
    list(settings = ledger$releases, gradients = ledger$gradients)
  if (!is.null(ledger))
    msg <- paste0(msg, "\nThe fit returns nothing; before the failure it ",
                  "had released ", length(released$settings),
                  " private setting(s) and ", released$gradients,
                  " noisy gradient(s) (see the condition's `released`).")
  stop(structure(class = c("dpsco_shard_error", "dpsco_error", "error",
                           "condition"),
                 list(message = msg, call = NULL, worker = worker,
                      released = released)))
}

# A cluster call that failed as a whole: find a worker that does not
# answer (a dead one fails at once).
shard_lost <- function(cl, e, stage, ledger) {
  dead <- NA_integer_
  for (i in seq_along(cl)) {
    ok <- tryCatch({
      parallel::clusterCall(cl[i], shard_ping)
      TRUE
    }, error = function(e) FALSE)
    if (!ok) {
      dead <- i
      break
    }
  }
  shard_error(dead, paste0(if (is.na(dead)) "a worker" else
                             paste("worker", dead),
                           " stopped answering while ", stage, " (",
                           conditionMessage(e), "); stop the cluster and ",
                           "start a new one."), ledger)
}

shard_ping <- function() TRUE

# The sums of one release over all shards, added in shard order.
shard_sum <- function(res) Reduce(`+`, res)

shard_note <- function(ledger, what) {
  if (!is.null(ledger)) ledger$releases <- c(ledger$releases, what)
}

# data_sums() (R/sums.R) over the shards of `data` (a handle of x, y or
# the offsets): every worker runs the entry `e` on its records, of the
# subsample `rows` when given (a sharded offset carries its own), and the
# results are added in shard order.  A sum with a kept part (the rows'
# norms) leaves it on the workers, and a handle stands in for it.
shard_sums <- function(data, e, what, args, rows) {
  sh <- data$shards
  if (inherits(data, "dpsco_shard_offset")) rows <- rows %||% data$rows
  jobs <- shard_cut(sh, shard_row_jobs(sh, rows), args[e$cut])
  args[e$cut] <- NULL
  res <- shard_apply(sh$cluster, sh$id, "sums", jobs,
                     list(what = what, args = args, key = data$key,
                          bound = data$bound, net = data$net),
                     stage = e$stage, ledger = data$ledger)
  shard_note(data$ledger, e$note(args))
  total <- shard_sum(res)
  if (is.null(e$keep)) return(total)
  out <- list(counts = total)
  out[[e$keep]] <- structure(list(key = data$key),
                             class = c("dpsco_shard_norms", "dpsco_sharded"))
  out
}

# The jobs with each per-record argument of `vals` (one value per record
# of the whole data) cut at each shard's rows.
shard_cut <- function(sh, jobs, vals) {
  if (!length(vals)) return(jobs)
  n_s <- shard_rows(sh)
  ends <- cumsum(n_s)
  if (is.null(jobs)) jobs <- rep(list(list()), length(n_s))
  for (s in seq_along(n_s))
    for (nm in names(vals))
      jobs[[s]][[nm]] <- vals[[nm]][seq_len(n_s[s]) + (ends[s] - n_s[s])]
  jobs
}

# A subsample of the private settings (settings_rows(): 0-based indices
# into the stacked rows, increasing) as each shard's jobs: its own rows'
# local indices, as shard_remote_pass() cuts a batch.  rows NULL: no jobs
# (every worker reads all its rows).
shard_row_jobs <- function(sh, rows) {
  if (is.null(rows)) return(NULL)
  n_s <- shard_rows(sh)
  ends <- cumsum(n_s)
  cut <- c(0L, findInterval(ends - 0.5, rows))
  lapply(seq_along(n_s), function(s)
    list(rows = rows[seq_len(cut[s + 1L] - cut[s]) + cut[s]] -
           as.integer(ends[s] - n_s[s])))
}

# The settings of the workers' pass: exactly the fields of its table in
# src/entry.c (shard_pass_fields), taken by name from the fit's settings
# (never its other fields, which may hold R closures and their
# environments) plus the chunks per worker.  A field the fit's settings
# lack goes as NULL rather than being dropped: the worker refuses a
# required one by name (a renamed "clip" must not become "no clipping"),
# and takes an optional one's stated default.
shard_pass_fields <- c("oracle", "m", "clip", "rho", "k", "s", "nu", "exact",
                       "family", "tau", "bandwidth", "kernel", "nclass")

shard_pass_settings <- function(settings, threads) {
  st <- lapply(stats::setNames(nm = shard_pass_fields),
               function(f) settings[[f]])
  st$threads <- threads
  st
}

# One step's pass, called by the engine (src/shard.c remote_pass()) with
# the batch it drew: the 0-based indices `idx` into the stacked rows and
# the Kamath labels (idx NULL: every record, in order).  Each worker gets
# its own rows' local indices (NULL: all its rows, in order) and labels;
# returns a (k d) x shards matrix.
shard_remote_pass <- function(x, settings, beta, idx, label) {
  sh <- x$shards
  rows <- shard_rows(sh)
  ends <- cumsum(rows)
  starts <- ends - rows
  k <- length(rows)
  full <- is.null(idx)
  sorted <- full || !is.unsorted(idx)
  # a sorted batch (Poisson) is cut at the shard boundaries
  cut <- if (!full && sorted) c(0L, findInterval(ends - 0.5, idx))
  owner <- if (!sorted) findInterval(idx, ends) + 1L
  jobs <- lapply(seq_len(k), function(s) {
    if (full)
      return(list(idx = NULL, label = if (!is.null(label))
                                        label[starts[s] + seq_len(rows[s])]))
    pos <- if (!sorted) which(owner == s)
           else if (cut[s + 1L] > cut[s]) (cut[s] + 1L):cut[s + 1L]
           else integer()
    all <- sorted && length(pos) == rows[s]
    list(idx = if (!all) idx[pos] - as.integer(starts[s]),
         label = if (!is.null(label)) label[pos])
  })
  res <- shard_apply(sh$cluster, sh$id, "pass", jobs,
                     list(key = x$key, bound = x$bound,
                          intercept = as.integer(settings$intercept),
                          settings = shard_pass_settings(settings,
                                                         sh$threads),
                          beta = beta),
                     stage = "computing a gradient step", ledger = x$ledger)
  x$ledger$gradients <- x$ledger$gradients + 1
  matrix(unlist(res, use.names = FALSE), ncol = k)
}
