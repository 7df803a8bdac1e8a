# The pieces of the inference stage (R/inference.R): its design and
# scaling, the records' terms with the clips that bound them, the
# releases of scores, breads and meats, the whitenings, and the rules
# that set the clips from public and released values.  Each release is
# one Gaussian mechanism over the public n; each record's term is
# clipped to the norm its sensitivity states, whatever x and y are
# (tests/testthat/test-inference-parts.R, and the audit of
# test-audit-inference.R at records on the edges of the input domain).

# ---------------------------------------------------------------------------
# The design

# The stage's design w = (1, (x - centre) / scale) with `std`'s centres
# and scales, never clamped: the estimand stays the model's coefficients
# on x.
inference_design <- function(x, std, intercept) {
  x <- as.matrix(x)
  w <- (x - rep(std$center, each = nrow(x))) / rep(std$scale, each = nrow(x))
  if (intercept) w <- cbind(1, w)
  # a row that overflows (x near the largest double) is set to 0: it then
  # adds nothing to any release (Inf * 0 would make its terms NaN)
  w[!is.finite(rowSums(w)), ] <- 0
  w
}

# The stage's own standardisation, so that every column of its design has
# a second moment near 1 before the preconditioner whitens it.  Three
# releases on the fit's design (x - centre) / scale, whose released
# bounds put most of it within [-1, 1]: the means of its columns clamped
# to [-1, 1] (sensitivity sqrt(p) / n; with an intercept only); octave
# histograms of each column's distance from that centre (sensitivity
# sqrt(p)), for its 0.99 quantile q; and the mean squares of those
# distances over q, clamped to [0, 1] (sensitivity sqrt(p) / n).  The
# scale is q times the root of the last (floored at three noise sds):
# about the column's sd, robust to a heavy tail, and right for a column
# that is mostly 0.
inference_scaling <- function(x, std, intercept, z, n) {
  w0 <- inference_design(x, std, FALSE)
  p <- ncol(w0)
  sens <- sqrt(p) / n
  m <- if (intercept)
         release(colSums(clamp(w0, -1, 1)) / n, z[["centre"]], sens, skip_zero = TRUE)
       else rep(0, p)
  dev <- abs(w0 - rep(m, each = nrow(w0)))
  q <- pmax(octave_quantiles(lapply(seq_len(p), function(j) dev[, j]), 0.01,
                             z[["design"]], n), 2^-30)
  u2 <- clamp(dev / rep(q, each = nrow(dev)), 0, 1)^2
  m2 <- release(colSums(u2) / n, z[["moment"]], sens, skip_zero = TRUE)
  s <- q * sqrt(pmax(m2, 3 * z[["moment"]] * sens, 1e-12))
  list(center = std$center + std$scale * m, scale = std$scale * s)
}

# The (1 - tau) quantiles (tau one per vector, or one for all) of the
# vectors of the list `vals`, from one release of their octave histograms
# (release_counts(): one record adds 1 to one count of each, so the L2
# sensitivity is sqrt(length(vals))).  The counts are read from the top:
# from two bins above the highest whose noisy count clears the noise
# (hist_kept()) down, the noisy counts (floored at 0) summed until they
# pass tau n, the quantile log-linear within its bin by the share of the
# bin's count it leaves above.  Summing the noisy counts as they are
# keeps the bins of a few hundred records that thresholding them drops
# (which put a 0.9 quantile 0.76 octaves low at n = 5,000 and a count sd
# of 60; this reading, 0.06 octaves); a tail too thin for the noise to
# show gives the top of what it shows.
octave_quantiles <- function(vals, tau, z, n) {
  hc <- release_counts(vals, z)
  vapply(seq_along(vals), function(j) {
    counts <- hc$counts[, j]
    tau <- rep_len(tau, length(vals))[j]
    kept <- hist_kept(counts, hc$sd)
    top <- if (any(kept > 0)) max(which(kept > 0)) else which.max(counts)
    top <- min(top + 2L, length(counts))
    cnt <- pmax(counts[seq_len(top)], 0)
    above <- rev(cumsum(rev(cnt)))          # records in bins b, b + 1, ..
    b <- max(c(which(above >= tau * n), 1L))
    beyond <- if (b < top) above[b + 1L] else 0
    frac <- if (cnt[b] > 0) clamp((tau * n - beyond) / cnt[b], 0, 1) else 0
    2^(b - 33) * 2^-frac
  }, 0)
}

# ---------------------------------------------------------------------------
# The records' terms and the releases

# glm's score residual psi = y - mu and bread weight d = dmu / deta per
# record at the linear predictors `eta` (offsets included), times the
# records' weights in [0, 1] (NULL: 1), all finite for every finite
# record (fam$inference$terms() keeps mu finite).
inference_terms <- function(fam, eta, y, weights = NULL) {
  # (a product w b that overflows: its record's terms are then clipped
  # like any other's)
  tm <- fam$inference$terms(clamp(eta, -1e300, 1e300, nan = 0), y)
  v <- weights %||% 1
  psi <- clamp(tm$psi, -1e300, 1e300) * v
  list(psi = psi, d = tm$d * v)
}

# The norms of the rows of `ws`, with the rows whose norm overflows set
# to 0 (they then add nothing to any release).
row_norms <- function(ws) {
  nr <- sqrt(rowSums(ws * ws))
  bad <- !is.finite(nr)
  if (any(bad)) {
    ws[bad, ] <- 0
    nr[bad] <- 0
  }
  list(ws = ws, norm = nr)
}

# The records' score residuals clipped so that each score ws_i psi_i has
# norm at most `clip` (rows `rn` from row_norms()); the limits sit a
# rounding error inside the clip, so that no product of them rounds
# beyond it.
clip_inside <- 1 - 2^-40

clip_psi <- function(psi, rn, clip) {
  if (!is.finite(clip)) return(psi)
  lim <- clip_inside * clip / rn$norm
  lim[!(rn$norm > 0)] <- Inf
  sign(psi) * pmin(abs(psi), lim)
}

# The records' bread weights clipped so that each term d_i ws_i ws_i' has
# Frobenius norm d_i ||ws_i||^2 at most `bound`.
clip_d <- function(d, rn, bound) {
  if (!is.finite(bound)) return(d)
  lim <- clip_inside * (bound / rn$norm) / rn$norm
  lim[!(rn$norm > 0)] <- Inf
  pmin(d, lim)
}

# The Gaussian release of a symmetric matrix whose records' terms have
# Frobenius norm at most `sens`: the noise on its upper triangle (whose
# L2 norm is at most the Frobenius norm), mirrored.
release_sym <- function(h, z, sens) release_symmetric((h + t(h)) / 2, z, sens)

# The stage's releases over the public n, each with its noise sd per
# entry: the mean clipped score (sensitivity clip / n), the mean bread
# (bound / n) and the mean meat of the scores clipped at `clip`
# (clip^2 / n).
stage_score <- function(rn, psi, clip, z, n) {
  v <- drop(crossprod(rn$ws, clip_psi(psi, rn, clip))) / n
  list(value = release(v, z, clip / n, skip_zero = TRUE), sd = z * clip / n)
}

stage_bread <- function(rn, d, bound, z, n) {
  h <- crossprod(rn$ws * clip_d(d, rn, bound), rn$ws) / n
  list(value = release_sym(h, z, bound / n), sd = z * bound / n)
}

stage_meat <- function(rn, psi, clip, z, n) {
  u <- rn$ws * clip_psi(psi, rn, clip)
  list(value = release_sym(crossprod(u) / n, z, clip^2 / n),
       sd = z * clip^2 / n)
}

# The precision-weighted mean of independent releases of the same value
# (list(value, sd) each), and its noise sd.
pool_releases <- function(rel) {
  prec <- vapply(rel, function(r) 1 / r$sd^2, 0)
  value <- Reduce(`+`, Map(function(r, p) r$value * p, rel, prec)) / sum(prec)
  list(value = value, sd = 1 / sqrt(sum(prec)))
}

# A symmetric matrix with its eigenvalues floored at `floor`, and at
# 1e-12 of the largest, so that it can be inverted; with its inverse
# square root (`isqrt`).
floor_eigen <- function(m, floor) {
  ev <- eigen((m + t(m)) / 2, symmetric = TRUE)
  vals <- pmax(ev$values, floor, 1e-12 * max(ev$values, 0), 1e-300)
  structure(ev$vectors %*% (vals * t(ev$vectors)),
            isqrt = ev$vectors %*% (t(ev$vectors) / sqrt(vals)))
}

# The typical spectral norm of a symmetric Gaussian d x d matrix of entry
# sd `sd`.
noise_norm <- function(sd, d) 2 * sd * sqrt(d)

# ---------------------------------------------------------------------------
# Whitenings and clips

# One whitening of the rows `rn` (row_norms() of the design in the
# current metric) at the records' terms `tm`: the bread with its row
# terms clipped at `bound`, and the new metric, the inverse root of the
# bread with its eigenvalues floored at its noise (to be applied on the
# right of the rows).
stage_whiten <- function(rn, tm, bound, z, n) {
  h <- stage_bread(rn, tm$d, bound, z, n)
  attr(floor_eigen(h$value, noise_norm(h$sd, ncol(rn$ws)) / floor_whiten),
       "isqrt")
}

# The levels in the whitened design, from one release of two octave
# histograms: the unit of the whitened scores (score_unit(), for the
# clips of the steps' and the meat's scores) and the median norm of the
# rows (for the trust region).
stage_levels <- function(rn, tm, z, n) {
  d <- ncol(rn$ws)
  vals <- list(score = rn$norm * abs(tm$psi), rows = rn$norm)
  q <- octave_quantiles(vals, c(0.1, 0.5), z, n)
  c(unit = q[[1L]] / sqrt(stats::qchisq(0.9, d)), rows = q[[2L]])
}

# The breads' clip in the whitened design (inference_bread_clip).
bread_clip <- function(d, z, n) {
  noise <- inference_bread_noise * n / (2 * z * sqrt(d))
  min(inference_bread_clip[2L] * d, max(inference_bread_clip[1L] * d, noise))
}

# The meat's clip, in the scores' units `unit`, with the clip bounds and
# noise target `set` (inference_meat_sets).
meat_clip <- function(unit, d, z, n, set = inference_meat_sets$default) {
  k <- sqrt(set$noise * n / (2 * z * sqrt(d)))
  unit * min(set$clip[2L], max(set$clip[1L], k))
}

# The final clip of the score in the meat's metric: the privacy noise as
# large as the sampling spread (sqrt(n) mu, mu = 1 / z) and never below
# inference_clip_min; none when not private.
final_clip <- function(z, n) {
  if (!(z > 0)) return(Inf)
  max(sqrt(n) / z, inference_clip_min)
}
