# glmnet's penalty arguments beyond lambda and alpha: columns excluded,
# limits on the coefficients, caps on the path's size, the multinomial
# grouping and the scale a penalty applies on.  All of them are public
# choices: an excluded column is never read, a limit is a projection of
# every iterate (post-processing of the released gradients), a cap cuts
# the released path, so none costs privacy.

# The penalty arguments checked against x (its columns, before any is
# excluded) and the family object: `keep` the columns fitted, `pf`,
# `lower`, `upper` (NULL when not given) over the kept columns.
penalty_args <- function(exclude, penalty.factor, lower.limits, upper.limits,
                         dfmax, pmax, type.multinomial, penalty.scale, x,
                         fam) {
  p <- ncol(x)
  pf <- penalty.factor
  if (!is.null(pf) && (!is.numeric(pf) || length(pf) != p || anyNA(pf) ||
                       any(pf < 0)))
    arg_error("penalty.factor", "must be ", p, " non-negative numbers (one ",
              "per column of x; Inf excludes a column).")
  drop <- sort(unique(c(exclude_columns(exclude, x), which(pf == Inf))))
  keep <- setdiff(seq_len(p), drop)
  if (!length(keep))
    arg_error("exclude", "leaves no column of x to fit.")
  if (length(drop) && (is_mapped(x) || is_sharded(x)))
    arg_error("exclude", "needs x in memory (a matrix or a dgCMatrix); ",
              "leave the columns out of the file or the shards instead.")
  grouped <- match_choice(type.multinomial, "type.multinomial",
                          c("ungrouped", "grouped")) == "grouped"
  if (grouped && !fam$multi)
    arg_error("type.multinomial", "applies to family \"multinomial\" only.")
  lower <- check_limits(lower.limits, "lower.limits", p, -1)
  upper <- check_limits(upper.limits, "upper.limits", p, 1)
  if (grouped && (!is.null(lower) || !is.null(upper)))
    arg_error("type.multinomial", "\"grouped\" does not take lower.limits ",
              "or upper.limits (a box does not combine with the group ",
              "penalty's prox).")
  list(keep = keep, drop = drop, p = p,
       names = colnames(x) %||% paste0("V", seq_len(p)), pf = pf[keep],
       lower = lower[keep], upper = upper[keep],
       dfmax = if (!is.null(dfmax)) check_count(dfmax, "dfmax", 0),
       pmax = if (!is.null(pmax)) check_count(pmax, "pmax", 0),
       grouped = grouped,
       scale = match_choice(penalty.scale, "penalty.scale",
                            c("bounded", "glmnet")))
}

# `exclude`: column indices or names of x.
exclude_columns <- function(exclude, x) {
  if (is.null(exclude) || !length(exclude)) return(integer(0))
  if (is.character(exclude)) {
    idx <- match(exclude, colnames(x))
    if (anyNA(idx))
      arg_error("exclude", "names columns x does not have: ",
                paste(exclude[is.na(idx)], collapse = ", "), ".")
    return(idx)
  }
  if (!is.numeric(exclude) || anyNA(exclude) || any(exclude != round(exclude))
      || any(exclude < 1) || any(exclude > ncol(x)))
    arg_error("exclude", "must be column numbers of x (1 to ", ncol(x),
              ") or column names.")
  as.integer(exclude)
}

# One limit per column (a single value is recycled); NULL when every limit
# is infinite.  `side` -1 (lower: in [-Inf, 0]) or 1 (upper: in [0, Inf]).
check_limits <- function(v, arg, p, side) {
  if (is.null(v)) return(NULL)
  if (!is.numeric(v) || !length(v) %in% c(1L, p) || anyNA(v) ||
      any(side * v < 0))
    arg_error(arg, "must be one value or ", p, " values, each ",
              if (side < 0) "in [-Inf, 0]" else "in [0, Inf]",
              " (as in glmnet: the trivial model must be inside the box).")
  v <- rep_len(as.double(v), p)
  if (all(is.infinite(v))) NULL else v
}

# x without the excluded columns, named as in the whole x (V1, ... for a
# column of an unnamed x), so the fit names each column as without
# `exclude`.
keep_columns <- function(x, pen) {
  if (!length(pen$drop)) return(x)
  x <- x[, pen$keep, drop = FALSE]
  colnames(x) <- pen$names[pen$keep]
  x
}

# The internal penalty settings of a path once the columns' scales are
# known (prepare_path()): coefficients on the fitted scale are the
# returned ones times `scale`, so the limits scale alike; with
# penalty.scale = "glmnet" the factors are divided by the private bounds
# `bound` (NULL: none), which puts the penalty on the coefficients of x as
# `standardize` leaves it, glmnet's scale.
internal_penalty <- function(pl, scale, bound) {
  if (identical(pl$penalty_scale, "glmnet") && !is.null(bound))
    pl$pf <- pl$pf / bound
  pl$lower_limits <- if (!is.null(pl$lower)) pl$lower * scale
  pl$upper_limits <- if (!is.null(pl$upper)) pl$upper * scale
  pl
}

# The fit after the path: cut where glmnet's dfmax / pmax would stop it,
# and the excluded columns back in as zero rows.
finish_penalty <- function(fit, pen) {
  fit <- cap_path(fit, pen$dfmax, pen$pmax)
  if (length(pen$drop)) fit <- restore_columns(fit, pen)
  fit
}

# The path cut before the first penalty at which more than dfmax
# variables are non-zero, or more than pmax have ever been (glmnet keeps
# the path up to there).  The first penalty always stays.
cap_path <- function(fit, dfmax, pmax) {
  if (is.null(dfmax) && is.null(pmax)) return(fit)
  nz <- path_nonzero(fit)
  first <- apply(nz, 1L, function(r) if (any(r)) which(r)[1L] else Inf)
  ever <- vapply(seq_len(ncol(nz)), function(j) sum(first <= j), 0)
  over <- (!is.null(dfmax) & colSums(nz) > (dfmax %||% Inf)) |
          (!is.null(pmax) & ever > (pmax %||% Inf))
  stop_at <- which(over)[1L]
  if (is.na(stop_at)) return(fit)
  subset_path(fit, seq_len(max(1L, stop_at - 1L)))
}

# Which variables are non-zero at each penalty (p x nlambda; a
# multinomial's in any class), by Df's rule (nonzero_tol()).
path_nonzero <- function(fit) {
  tol <- nonzero_tol(fit$beta)
  if (is.list(fit$beta))
    return(Reduce(`|`, lapply(fit$beta, function(b)
      is_nonzero(as.matrix(b), tol))))
  is_nonzero(as.matrix(fit$beta), tol)
}

# The fit restricted to the penalties `i` of its path.
subset_path <- function(fit, i) {
  cols <- function(m) m[, i, drop = FALSE]
  fit$beta <- if (is.list(fit$beta)) lapply(fit$beta, cols) else cols(fit$beta)
  fit$a0 <- if (is.matrix(fit$a0)) cols(fit$a0) else fit$a0[i]
  axis <- path_axis(fit)$name
  fit[[axis]] <- fit[[axis]][i]
  fit$df <- fit$df[i]
  if (!is.null(fit$dfmat)) fit$dfmat <- cols(fit$dfmat)
  fit$dim[2L] <- length(i)
  sup <- fit$support
  for (f in intersect(c("beta_raw", "raw", "sd"), names(sup)))
    sup[[f]] <- if (is.list(sup[[f]])) lapply(sup[[f]], cols) else cols(sup[[f]])
  fit$support <- sup
  if (!is.null(fit$trace))
    fit$trace$beta <- fit$trace$beta[, , i, drop = FALSE]
  if (!is.null(fit$trace)) fit$trace$a0 <- fit$trace$a0[, i, drop = FALSE]
  fit
}

# The excluded columns back into a fit as rows of zeros (and neutral
# centres, scales and ranges), so that coef() and predict() take the
# whole x.
restore_columns <- function(fit, pen) {
  p <- pen$p
  widen <- function(m, fill = 0) {
    out <- matrix(fill, p, ncol(m), dimnames = list(NULL, colnames(m)))
    out[pen$keep, ] <- as.matrix(m)
    out
  }
  names_all <- pen$names
  named <- function(m) {
    m <- widen(m)
    rownames(m) <- names_all
    m
  }
  fit$beta <- if (is.list(fit$beta)) lapply(fit$beta, named)
              else named(fit$beta)
  nclass <- if (inherits(fit, "dpsco_multinomial")) length(fit$classnames)
            else 1L
  fit$support <- restore_support(fit$support, pen, fit$intercept, nclass,
                                 named)
  # an excluded column's factor is glmnet's Inf
  if (!is.null(fit$settings$penalty.factor))
    fit$settings$penalty.factor <- replace(rep(Inf, p), pen$keep,
                                           fit$settings$penalty.factor)
  if (!is.null(fit$trace)) {
    tb <- fit$trace$beta
    out <- array(0, c(p, dim(tb)[2:3]),
                 list(names_all, dimnames(tb)[[2]], dimnames(tb)[[3]]))
    out[pen$keep, , ] <- tb
    fit$trace$beta <- out
  }
  st <- fit$standardize
  st$center <- replace(rep(0, p), pen$keep, st$center)
  st$scale <- replace(rep(1, p), pen$keep, st$scale)
  fit$standardize <- st
  if (!is.null(fit$x_range)) {
    r <- matrix(c(-Inf, Inf), 2L, p)
    r[, pen$keep] <- fit$x_range
    fit$x_range <- r
  }
  fit$dim[1L] <- p
  fit$exclude <- pen$drop
  fit
}

# The support rule's record (R/support.R) over all of x's columns: the
# returned-scale coefficients as beta, and the engine-scale rows (`raw`,
# `sd`: per class, the intercept then the columns) with 0 for an
# excluded column, which is exactly 0 and within any band.
restore_support <- function(sup, pen, intercept, nclass, named) {
  if (is.null(sup)) return(NULL)
  raw <- sup$beta_raw
  if (!is.null(raw))
    sup$beta_raw <- if (is.list(raw)) lapply(raw, named) else named(raw)
  rows <- function(m) {
    if (is.null(m)) return(NULL)
    d <- length(pen$keep) + intercept
    dn <- pen$p + intercept
    out <- matrix(0, dn * nclass, ncol(m))
    for (k in seq_len(nclass)) {
      from <- (k - 1L) * d + seq_len(d)
      to <- (k - 1L) * dn + c(if (intercept) 1L, intercept + pen$keep)
      out[to, ] <- m[from, ]
    }
    out
  }
  sup$raw <- rows(sup$raw)
  sup$sd <- rows(sup$sd)
  sup
}

