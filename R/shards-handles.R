# Sharded records in the settings' computations (R/shards.R): the handles
# that stand for per-record values formed on the workers (the start's
# residuals, y net of its offsets, the rows' scales and weights), and the
# methods of the settings' generics on sharded records, each returning a
# handle or the handle with what the workers need.

# The residuals at the start (start_residuals(), R/settings.R), formed on
# the workers that hold y, the weights and the offsets: a handle with the
# family's loss derivative and the start's predictors.
shard_residuals <- function(fam, eta) {
  structure(list(fam = list(multi = fam$multi, residual = fam$residual),
                 eta = eta),
            class = c("dpsco_shard_resid", "dpsco_sharded"))
}

# y net of the offsets (the family's net_offset()), formed on the workers:
# the handle carries the function, which the workers' sums of y apply.
shard_net_offset <- function(y, fam) {
  y$net <- fam$net_offset
  y
}

# A shard's y as the settings' sums read it: as loaded, or net of its
# offsets.
shard_y <- function(st, net) if (is.null(net)) st$yf else net(st$yf, st$offset)

# The rows' weights of the curvature release (curvature_row_weights(),
# R/settings.R) for sharded offsets: each worker forms its records'
# weights times their exposures over the released bound E.
shard_row_weights <- function(exposure)
  structure(list(exposure = exposure),
            class = c("dpsco_shard_row_weights", "dpsco_sharded"))

# release_curvature()'s row scales times the square roots of the rows'
# weights (the records' weights, or shard_row_weights()), on the workers.
shard_weigh_rows <- function(sc, weights) {
  sc$weighted <- TRUE
  sc$exposure <- if (inherits(weights, "dpsco_shard_row_weights"))
                   weights$exposure
  sc
}

# The weights of a shard's rows in the second-moment matrix: its records'
# weights, or with an exposure bound (poisson with offsets) those times
# their exposures over it, as curvature_row_weights() forms them.
shard_curvature_weights <- function(st, exposure) {
  if (is.null(exposure)) return(st$weights)
  curvature_row_weights(list(offset_curvature = TRUE), st$weights, st$offset,
                        exposure)
}

# The operations of the settings on sharded records, as methods of their
# generics: each returns a handle that the workers' sums resolve
# (shard_resolve()), or the handle with what the workers need.

# min(1, row_bound / ||w_i||) for every record, formed on the workers.
row_scale.dpsco_shard_norms <- function(norms, row_bound)
  structure(list(key = norms$key, row_bound = row_bound),
            class = c("dpsco_shard_scale", "dpsco_sharded"))

weigh_rows.dpsco_shard_scale <- function(sc, weights)
  shard_weigh_rows(sc, weights)

exposure_weights.dpsco_shard_offset <- function(offset, weights, exposure)
  shard_row_weights(exposure)

start_residuals.dpsco_shard_y <- function(fam, eta, y, weights = NULL,
                                          offset = NULL)
  shard_residuals(fam, eta)

net_offset.dpsco_shard_y <- function(y, fam, offset) shard_net_offset(y, fam)

# scale_clamp() of a sharded x: the bound goes with the design, and the
# workers scale their rows when they next need them (a new key).
scale_clamp.dpsco_shard_x <- function(x, bound) {
  x$bound <- as.double(bound)
  x$key <- shard_next("k")
  x
}

# A sharded design is checked on its workers (shard_load()).
check_design.dpsco_sharded <- function(x, arg = "x", min_rows = 2L) x

# A sharded per-record vector: its workers take their rows (a sharded
# offset carries the subsample to the workers' counts of its exposures).
record_rows.dpsco_sharded <- function(v, idx) {
  if (!is.null(idx) && inherits(v, "dpsco_shard_offset")) v$rows <- idx
  v
}
