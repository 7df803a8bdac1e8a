# bench/influence.R -- could a private check see concentrated influence?
#
# What it measures
#   On blog's raw counts the intervals of dpsco(inference = TRUE) miss
#   glm's coefficient of comments_last24h (coverage 0.27 at n = 10,000,
#   epsilon 1; bench/inference_real.R), because a few records carry most
#   of the sandwich's variance and their scores are clipped.  The
#   question here: is there a released statistic, at a share the
#   inference stage could spare, that tells such data from the
#   populations where the intervals cover, so that the intervals could be
#   refused there instead of returned?
#
#   Per population of bench/inference_real.R (the same populations,
#   loaded by its code) and subsample size, on 6 subsamples, at glm's
#   root on the subsample, without noise: the records' scores in the
#   bread's whitened metric (as the stage clips them), their norms r_i,
#   and the stage's score unit u (the 0.9 quantile of r over that of a
#   chi with d degrees of freedom, as stage_levels() has it).
#     kept_c      the worst coefficient's sandwich s.e. with the scores
#                 clipped at c units, over the unclipped one (c = 8, 14:
#                 the range of the meat's clip; 20 and 40 for reference)
#     top1        the share of sum r_i^2 held by the top 1% of records
#     q99         log2 of the 0.99 quantile of r over its 0.9 quantile:
#                 what an octave histogram of r could see (the 0.99
#                 quantile, not the top 0.1%, at these n)
#     rho         the growth of the clipped second moment from 14 to 28
#                 units, sum(min(r, 28u)^2 - min(r, 14u)^2) /
#                 sum(min(r, 14u)^2): the statistic that separates best
#   and, for a release of (sum min(r, 14u)^2, sum of the growth) / n (one
#   Gaussian release of L2 sensitivity sqrt(10) (14u)^2 / n) at a fraction
#   f of the inference share, the noise sd of rho, with the stage's meat
#   multiplier read off one private fit at that n and epsilon (the
#   release's multiplier is the meat's times sqrt(0.07 / f)).
#
# Command (from the top of the source tree; R_LIBS as for
# bench/inference_real.R):
#   R_LIBS=/tmp/benchlib Rscript bench/influence.R      # about 2 minutes

suppressPackageStartupMessages(library(dpsco))
options(width = 200, dpsco.threads = 1L)

# the populations and glm_hc0()'s family map, from bench/inference_real.R
src <- readLines(file.path("bench", "inference_real.R"))
from <- grep("^need <- function", src)
to <- grep("^# The cells", src) - 2L
eval(parse(text = src[from:to]))

score_norms <- function(x, y, family) {
  w <- cbind(1, scale(x))
  g <- suppressWarnings(stats::glm.fit(w, y, family = glm_family(family)))
  mu <- g$fitted.values
  v <- switch(family, gaussian = rep(1, length(y)), binomial = mu * (1 - mu),
              poisson = mu)
  e <- eigen(crossprod(w * v, w) / length(y), symmetric = TRUE)
  hi2 <- e$vectors %*% (t(e$vectors) / sqrt(e$values))
  u <- (w %*% hi2) * (y - mu)
  r <- sqrt(rowSums(u^2))
  list(u = u, r = r, hi2 = hi2, d = ncol(w),
       unit = stats::quantile(r, 0.9, names = FALSE) /
         sqrt(stats::qchisq(0.9, ncol(w))))
}

one_subsample <- function(x, y, family) {
  s <- score_norms(x, y, family)
  n <- length(y)
  vj <- function(m) diag(s$hi2 %*% m %*% s$hi2)
  full <- vj(crossprod(s$u) / n)
  kept <- vapply(c(8, 14, 20, 40), function(k) {
    f <- pmin(1, k * s$unit / s$r)
    min(sqrt(vj(crossprod(s$u * f) / n) / full))
  }, 0)
  r2 <- sort(s$r^2, decreasing = TRUE)
  a <- sum(pmin(s$r, 14 * s$unit)^2)
  c(kept8 = kept[1], kept14 = kept[2], kept20 = kept[3], kept40 = kept[4],
    top1 = sum(r2[seq_len(n %/% 100)]) / sum(r2),
    q99 = log2(stats::quantile(s$r, 0.99, names = FALSE) /
                 stats::quantile(s$r, 0.9, names = FALSE)),
    rho = sum(pmin(s$r, 28 * s$unit)^2) / a - 1,
    a_units = a / n / s$unit^2)
}

# the meat's multiplier in a private fit at n, epsilon
meat_multiplier <- function(x, y, family, eps) {
  f <- suppressWarnings(dpsco(x, y, family = family, epsilon = eps,
                              inference = TRUE))
  inf <- f$inference
  inf$sd[["meat"]] * nrow(x) / inf$levels[["clip_meat"]]^2
}

rows <- list()
for (p in pop_names) {
  P <- population(p)
  if (is.null(P)) next
  N <- nrow(P$x)
  for (n in unique(c(5000, if (N >= 80000) 20000 else if (N >= 50000) 10000))) {
    set.seed(1)
    m <- rowMeans(replicate(6, {
      i <- sample.int(N, n)
      one_subsample(P$x[i, , drop = FALSE], P$y[i], P$family)
    }))
    set.seed(2)
    i <- sample.int(N, n)
    zm <- meat_multiplier(P$x[i, , drop = FALSE], P$y[i], P$family, 1)
    # the noise sd of rho at fractions f of the inference share
    rho_sd <- vapply(c(0.02, 0.1), function(f)
      zm * sqrt(0.07 / f) * sqrt(10) * 14^2 / (n * m[["a_units"]]) *
        sqrt(1 + (1 + m[["rho"]])^2), 0)
    rows[[length(rows) + 1L]] <- data.frame(
      population = p, n = n, kept8 = m[["kept8"]], kept14 = m[["kept14"]],
      kept40 = m[["kept40"]], top1 = m[["top1"]], q99 = m[["q99"]],
      rho = m[["rho"]], rho_sd_f0.02 = rho_sd[1], rho_sd_f0.1 = rho_sd[2])
  }
}
tab <- do.call(rbind, rows)
cat("dpsco", as.character(utils::packageVersion("dpsco")), "\n")
cat("Per population and n (6 subsamples, noise-free at glm's root); the last",
    "two columns: the privacy noise sd of rho at epsilon 1 for a release",
    "at 2% and 10% of the inference share\n\n")
print(format(tab, digits = 2), row.names = FALSE)
