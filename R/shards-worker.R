# The workers' side of sharded fits (R/shards.R): the tasks a worker runs
# on the shard it holds, its store of what a fit keeps resident there, and
# the sums of R/sums.R on its records.

# Runs one task on a worker; an error is returned as a value so that the
# coordinator reads every worker's answer and names the one that failed.
shard_worker <- function(job, task, id, common) {
  tryCatch(shard_task(task, id, job, common), error = function(e)
    structure(list(message = conditionMessage(e),
                   check = inherits(e, "dpsco_arg_error")),
              class = "dpsco_shard_failure"))
}

shard_task <- function(task, id, job, common) {
  if (task == "load") return(shard_load(id, common$load, job$i))
  st <- shard_store[[id]]
  if (is.null(st))
    stop("this worker holds no shard ", id, " (was the cluster restarted?)")
  switch(task,
    y = {
      yy <- check_y(st$y, st$rows, family_object(common$family))
      st$yf <- as.double(yy$y)
      yy$classnames
    },
    sums = shard_task_sums(st, common, job),
    subset = {
      sub <- new.env(parent = emptyenv())
      sub$x <- st$x[job$keep, , drop = FALSE]
      sub$y <- st$y[job$keep]
      sub$weights <- st$weights[job$keep]
      sub$offset <- st$offset[job$keep]
      sub$rows <- sum(job$keep)
      assign(common$new_id, sub, envir = shard_store)
      NULL
    },
    pass = {
      lay <- shard_layout(st, common$key, common$bound, common$intercept)
      # the shard's own weights and offsets join the sent settings
      .Call(C_dpsco_shard_pass, lay, st$yf,
            c(common$settings, compact(list(weights = st$weights,
                                            offsets = st$offset))),
            common$beta, job$idx, job$label)
    },
    stop("internal error: unknown shard task ", task))
}

# The task "sums" on a worker: the entry of sum_table on the shard's
# records, with its arguments resolved there (shard_resolve()); a kept
# part stays in the store for the next sum (the gram reads the norms).
shard_task_sums <- function(st, common, job) {
  e <- sum_table[[common$what]]
  a <- shard_resolve(st, common$args, job)
  out <- e$sum(shard_records(st, e$reads, common), a, job$rows)
  if (is.null(e$keep)) return(out)
  st[[e$keep]] <- out[[e$keep]]
  st$norm_key <- list(common$key, job$rows)
  out$counts
}

# The records an entry reads (sum_table's `reads`), from the store.
shard_records <- function(st, reads, common)
  switch(reads, x = st$x, xt = shard_scaled(st, common$key, common$bound),
         y = shard_y(st, common$net), yf = st$yf, offset = st$offset,
         records = list(x = st$x, y = st$yf, weights = st$weights,
                        offset = st$offset))

# An entry's arguments on a worker: the per-record ones cut for it (the
# job's), and the handles formed from its records: the start's residuals
# (shard_residuals()) and the rows' scales (row_scale(), with the records'
# weights and exposures for a weighted gram).
shard_resolve <- function(st, a, job) {
  rows <- job$rows
  for (nm in setdiff(names(job), "rows")) a[[nm]] <- job[[nm]]
  if (inherits(a$residual, "dpsco_shard_resid"))
    a$residual <- start_residuals(a$residual$fam, a$residual$eta,
                                  record_rows(st$yf, rows),
                                  record_rows(st$weights, rows),
                                  record_rows(st$offset, rows))
  if (inherits(a$w, "dpsco_shard_scale")) {
    if (!identical(st$norm_key, list(a$w$key, rows)))
      stop("internal error: the row norms of another fit or subsample")
    w <- pmin(1, a$w$row_bound / st$norm)
    if (isTRUE(a$w$weighted))
      w <- w * sqrt(record_rows(shard_curvature_weights(st, a$w$exposure),
                                rows))
    a$w <- w
  }
  a
}

# load(i) on worker i, checked, kept under the shard's id.
shard_load <- function(id, load, i) {
  d <- load(i)
  if (!is.list(d) || is.null(d$x) || is.null(d$y))
    arg_error("load", "must return list(x = , y = ) (with weights = and ",
              "offset = when the records have them).")
  x <- if (is_mapped(d$x)) d$x else check_design(d$x, "x", min_rows = 0L)
  y <- d$y
  if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
  if (!is.atomic(y) || !(is.numeric(y) || is.logical(y) || is.factor(y)))
    arg_error("y", "must be a numeric, logical or factor vector.")
  if (length(y) != nrow(x))
    arg_error("y", "has length ", length(y), " but x has ", nrow(x), " rows.")
  if (anyNA(y) || (is.numeric(y) && !all(is.finite(y))))
    arg_error("y", "contains NA, NaN or infinite values.")
  st <- new.env(parent = emptyenv())
  st$x <- x
  st$y <- y
  st$rows <- nrow(x)
  # the records' weights and offsets, checked as dpsco() checks them
  st$weights <- check_weights(d$weights, nrow(x))
  st$offset <- check_offset(d$offset, nrow(x))
  assign(id, st, envir = shard_store)
  list(rows = nrow(x), p = ncol(x), colnames = colnames(x),
       levels = if (is.factor(y)) levels(y), mapped = is_mapped(x),
       weights = !is.null(st$weights), offset = !is.null(st$offset))
}

# x on the fit's scale (clamp(x_j / bound_j, -1, 1), or as loaded without
# a bound), kept for the fit whose key it is.
shard_scaled <- function(st, key, bound) {
  if (identical(st$xt_key, key)) return(st$xt)
  st$layout <- NULL
  st$xt <- NULL
  st$xt <- if (is.null(bound)) st$x else scale_clamp(st$x, bound)
  st$xt_key <- key
  st$xt
}

# The engine's records of the scaled rows, built once per fit and kept.
shard_layout <- function(st, key, bound, intercept) {
  lk <- paste(key, intercept)
  if (identical(st$layout_key, lk)) return(st$layout)
  xt <- shard_scaled(st, key, bound)
  st$layout <- NULL
  st$layout <- .Call(C_dpsco_layout, xt, as.integer(intercept), -1, 1L)
  st$layout_key <- lk
  # the steps read the layout only: an in-memory scaled copy is dropped
  # (a mapped one is the file itself)
  if (!is_mapped(xt)) {
    st$xt <- NULL
    st$xt_key <- NULL
  }
  st$layout
}
