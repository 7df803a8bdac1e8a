# The private curvature of a fit (step 4 of tune_private() in
# R/settings.R): the rows' second-moment matrix clipped to the row bound,
# released with symmetric Gaussian noise and made positive definite, with
# the exposures' weights for poisson offsets.

# Step 4, the curvature: the second-moment matrix of the rows clipped to
# B_H, released with Gaussian noise and made positive definite, times the
# loss's curvature per unit of second moment.
curvature_release <- function(xt, w_norm, row_bound, fam, beta0, intercept,
                              ctl, st, weights = NULL, offset = NULL,
                              exposure = 1) {
  d <- ncol(xt) + intercept
  zq <- part_noise(st, "curvature")
  # on a subsample: its own records, their norms from one more (cheap)
  # pass over them, and the second moments over its expected size m
  idx <- if (!is.null(st$sub)) settings_rows(xt, release_sub(st, "curvature"))
  if (!is.null(idx)) w_norm <- design_row_stats(xt, intercept, rows = idx)$norm
  nr <- release_n(st, "curvature")
  rh <- release_curvature(structure(list(x = xt, rows = idx),
                                    class = "design_cols"),
                          zq$z, row_bound, nr, w_norm, intercept,
                          curvature_row_weights(fam, record_rows(weights, idx),
                                                record_rows(offset, idx),
                                                exposure))
  weight <- curvature_weight(fam, beta0, d, intercept, exposure)
  curv <- curvature_matrix(rh$h, rh$sd, ctl$ridge, weight)
  list(curvature = curv$A, eigen = curv$eigen, top = curv$top,
       parts = list(settings_part(
         st, "curvature", zq$z, 1, row_bound^2 / nr,
         sub_text(st, paste("Gaussian: second-moment matrix of the rows",
                            "clipped to the row bound"), "curvature"),
         sprintf("%d x %d matrix", d, d), q = zq$q)),
       released = list(ridge = curv$ridge), weight = weight)
}

# The weights in [0, 1] of the rows of the curvature release: the records'
# own, times, for a family with offset_curvature, each record's exposure
# over the released bound E, at most 1 (the whole is then scaled by E:
# curvature_weight()).  The result is the second moments weighted by
# e^offset_i, which a constant shift of the offsets scales as it scales
# e^-b0, as the Hessian requires.
curvature_row_weights <- function(fam, weights, offset, exposure) {
  if (!fam$offset_curvature || is.null(offset)) return(weights)
  exposure_weights(offset, weights, exposure)
}

# The records' weights times their exposures over E, at most 1 (sharded
# offsets: formed on the workers, exposure_weights.dpsco_shard_offset()).
exposure_weights <- function(offset, weights, exposure)
  UseMethod("exposure_weights")

exposure_weights.default <- function(offset, weights, exposure)
  (weights %||% 1) * exp(pmin(offset - log(exposure), 0))

# The loss's curvature per unit of second moment at beta0 (the family's),
# times the released exposure bound E where the rows were weighted by
# their exposures (E = 1 otherwise).
curvature_weight <- function(fam, beta0, d, intercept, exposure = 1) {
  # (the quantile family's weight is its own field: family_with())
  fam$start_curvature(start_intercepts(beta0, fam, d, intercept), intercept,
                      fam) * if (fam$offset_curvature) exposure else 1
}

# The largest d whose d x d curvature is released: above it the matrix
# and its noise would take d^2 numbers (12.8 GB at d = 40,000), so wide
# data get no curvature release and the "spgd" step of
# row_bound_curvature() (the Newton path needs the matrix: dpsco() then
# runs "spgd").  The option exists for the tests, which try the rule on
# small data.
curvature_max_d <- function() getOption("dpsco.curvature_max_d", 4000L)

# Step 4 for wide data: the top eigenvalue of the second-moment matrix of
# rows clipped to the row bound B_H is at most its trace, the mean squared
# row norm, so at most B_H^2; times the loss's curvature at beta0 it bounds
# the curvature the step needs, at no cost in privacy.
row_bound_curvature <- function(row_bound, fam, beta0, intercept, d,
                                exposure = 1) {
  weight <- curvature_weight(fam, beta0, d, intercept, exposure)
  list(curvature = NULL, top = weight * row_bound^2, weight = weight,
       public = sprintf(paste("no curvature released (d above %d): the step",
                              "from the row bound"), curvature_max_d()))
}

# The Gaussian release of the histograms: one column of the matrix `vals`
# (or one vector of the list) per histogram, each value in its
# log2_bin(), or their 64 x k `counts` as a pass formed them
# (design_row_stats()); one record adds 1 to one count of each histogram,
# so the L2 sensitivity is the square root of the number of histograms.
release_counts <- function(vals, z, counts = NULL) {
  if (is.null(counts)) {
    cols <- if (is.list(vals)) vals
            else lapply(seq_len(ncol(vals)), function(j) vals[, j])
    counts <- vapply(cols, function(v) tabulate(log2_bin(v), 64L), integer(64))
  }
  k <- ncol(counts)
  sd <- z * sqrt(k)
  list(counts = release(counts, z, sqrt(k), sd = sd), sd = sd)
}

# The Gaussian release of the second-moment matrix crossprod(w) / n of the
# rows w_i scaled to L2 norm at most row_bound (`norms`: their norms), n the
# public number of records: one record adds or removes w_i w_i' / n, of
# Frobenius norm at most row_bound^2 / n.  The noise is symmetric (one draw
# per entry of the upper triangle).
# w may also be a design (design.R) in list(x = , rows = ), without the
# column of ones, which `intercept` adds; `rows` (0-based, NULL: all) the
# records of a subsample, n then its expected size, `norms` and `weights`
# one per listed record.
release_curvature <- function(w, z, row_bound, n, norms = sqrt(rowSums(w * w)),
                              intercept = FALSE, weights = NULL) {
  # a record's weight in [0, 1] enters as the square root on its row, so
  # its term stays within the row bound
  sc <- row_scale(norms, row_bound)
  if (!is.null(weights)) sc <- weigh_rows(sc, weights)
  h <- if (inherits(w, "design_cols"))
         design_gram(w$x, sc, intercept, w$rows) / n
       else crossprod(w * sc) / n
  d <- ncol(h)
  sd <- z * row_bound^2 / n
  list(h = release_symmetric(h, z, row_bound^2 / n, sd = sd, square = TRUE),
       sd = sd)
}

# The released curvature made positive definite (post-processing): its
# eigenvalues floored at 0 plus a ridge of `ridge` times the typical
# spectral norm of the noise matrix, sd_h sqrt(d), times the loss's
# curvature `weight` per unit of second moment.  Without noise a ridge of
# 1e-9 times the trace keeps it invertible.
curvature_matrix <- function(h, sd_h, ridge, weight) {
  d <- nrow(h)
  ev <- eigen(h, symmetric = TRUE)
  mu <- if (sd_h > 0) ridge * sd_h * sqrt(d)
        else 1e-9 * max(sum(pmax(ev$values, 0)), 1e-300)
  vals <- pmax(ev$values, 0) + mu
  a <- ev$vectors %*% (vals * t(ev$vectors))
  a <- (a + t(a)) / 2
  list(A = weight * a, top = weight * max(vals), ridge = weight * mu,
       eigen = list(values = weight * vals, vectors = ev$vectors))
}

# min(1, row_bound / ||w_i||) for every record (norms kept on cluster
# workers: row_scale.dpsco_shard_norms(), R/shards.R).
row_scale <- function(norms, row_bound) UseMethod("row_scale")

row_scale.default <- function(norms, row_bound) pmin(1, row_bound / norms)

# The rows' scales times the square roots of the records' weights in
# [0, 1] (on the workers for sharded data: weigh_rows.dpsco_shard_scale()).
weigh_rows <- function(sc, weights) UseMethod("weigh_rows")

weigh_rows.default <- function(sc, weights) sc * sqrt(weights)
