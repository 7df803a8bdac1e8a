# bench/support.R -- does a private fit's support mean something?
#
# What it measures (blog, epsilon = 1, delta = 1 / n_train, every other
# argument at its default), for seeds s = 1..S:
#   split     set.seed(s); the training rows are sample.int(n, round(0.7 n))
#             (as bench/utility.R), the other 30% the test set.
#   selected  cv.dpsco(x, y) and cv.glmnet(x, y) on the training part:
#             non-zero coefficients at lambda.min, test RMSE, and the gain
#             fraction of bench/utility.R from the split means,
#               G = (RMSE_null - RMSE) / (RMSE_null - RMSE_glmnet),
#             null = the training mean.
#   null      x augmented with an all-zero column and ten pure-noise
#   columns   columns (row-permuted copies of ten randomly chosen real
#             columns: the heavy tails of real features, no link to y):
#             how often they are exactly 0 in the model cv.dpsco() selects
#             and at every lambda of dpsco()'s default path.
#   raw       for fits that carry fit$support: the largest ratio
#             |raw coefficient| / noise sd of the null columns over the
#             path, per fit; the smallest level c that zeroes every null
#             column at every lambda in 95% of the fits is its 95% quantile
#             (how the default level was chosen).
#
# Settings (environment variables):
#   DPSCO_BENCH_SEEDS   the last seed (default 20)
#   DPSCO_BENCH_FIRST   the first seed (default 1), to split a run in parts
#   DPSCO_SUPPORT       "noise" or "none": dpsco_control(support = ) (unset:
#                       the default; leave it unset for a version without it)
#   DPSCO_SUPPORT_LEVEL dpsco_control(support_level = ) (unset: the default)
#   DPSCO_BENCH_OUT     if set, a file to saveRDS() the raw results into
#
# Command (from the top of the source tree; R_LIBS holds the version to
# measure, e.g. .lib or bench/install.sh's /tmp/benchlib):
#   DPSCO_BENCH_SEEDS=20 R_LIBS=.lib nice Rscript bench/support.R

suppressPackageStartupMessages({
  library(dpsco)
  library(glmnet)
})
script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
source(file.path(script_dir, "data.R"))

n_seeds <- as.integer(Sys.getenv("DPSCO_BENCH_SEEDS", "20"))
first_seed <- as.integer(Sys.getenv("DPSCO_BENCH_FIRST", "1"))
sup <- Sys.getenv("DPSCO_SUPPORT", "")
levels <- as.numeric(strsplit(Sys.getenv("DPSCO_SUPPORT_LEVEL", ""), ",")[[1L]])
if (!length(levels)) levels <- NA_real_
out_file <- Sys.getenv("DPSCO_BENCH_OUT", "")
control_at <- function(level) {
  args <- c(if (nzchar(sup)) list(support = sup),
            if (!is.na(level)) list(support_level = level))
  do.call(dpsco_control, as.list(args))
}
ctl_args <- c(if (nzchar(sup)) list(support = sup),
              if (!all(is.na(levels))) list(support_level = paste(levels, collapse = ",")))

cat(sprintf("dpsco %s (%s), seeds 1..%d, epsilon 1, control: %s\n",
            utils::packageVersion("dpsco"), find.package("dpsco"), n_seeds,
            if (length(ctl_args)) paste(names(ctl_args), ctl_args, sep = " = ",
                                        collapse = ", ") else "default"))

dat <- load_data("blog")
n <- nrow(dat$x)
p <- ncol(dat$x)
rmse <- function(pred, y) sqrt(mean((pred - y)^2))
nz <- function(b) sum(b != 0)
# the largest |raw| / sd of the rows `rows` over the path (penalised rows of
# the internal scale: row 1 is the intercept)
max_ratio <- function(fit, rows) {
  s <- fit$support
  if (is.null(s)) return(NA_real_)
  r <- abs(s$raw[rows + 1L, , drop = FALSE]) / s$sd[rows + 1L, , drop = FALSE]
  max(r)
}

res <- list()
ratios <- list()
for (s in seq(first_seed, n_seeds)) {
  set.seed(s)
  tr <- sample.int(n, round(0.7 * n))
  xtr <- dat$x[tr, ]
  ytr <- dat$y[tr]
  xte <- dat$x[-tr, ]
  yte <- dat$y[-tr]
  delta <- 1 / length(tr)
  cvg <- cv.glmnet(xtr, ytr)
  bg <- coef(cvg, s = "lambda.min")[-1L]
  # every level draws the same random numbers (the rule draws none)
  state <- .Random.seed
  for (lv in levels) {
    ctl <- control_at(lv)
    assign(".Random.seed", state, envir = globalenv())
    cvd <- cv.dpsco(xtr, ytr, epsilon = 1, delta = delta, control = ctl)
    bd <- coef(cvd, s = "lambda.min")[-1L]
    # the null columns: an all-zero one, then ten permuted real columns
    cols <- sample.int(p, 10L)
    noise <- apply(xtr[, cols], 2L, sample)
    xa <- cbind(xtr, 0, noise)
    null_rows <- p + 1:11
    cva <- cv.dpsco(xa, ytr, epsilon = 1, delta = delta, control = ctl)
    ba <- coef(cva, s = "lambda.min")[-1L]
    # the path's raw coefficients do not depend on the level: fitted once
    if (identical(lv, levels[1L])) {
      fa <- dpsco(xa, ytr, epsilon = 1, delta = delta, control = ctl)
      if (!is.null(fa$support))
        ratios[[s]] <- abs(fa$support$raw[null_rows + 1L, ]) /
          fa$support$sd[null_rows + 1L, ]
    }
    if (!is.na(lv) && !is.null(fa$support)) {
      # the path at this level: its raw coefficients thresholded at lv
      fa$beta <- fa$support$beta_raw
      fa$beta[abs(fa$support$raw[-1L, ]) <= lv * fa$support$sd[-1L, ]] <- 0
    }
    res[[length(res) + 1L]] <- data.frame(
      seed = s, level = lv,
      nz_glmnet = nz(bg), nz_dpsco = nz(bd),
      rmse_null = rmse(mean(ytr), yte),
      rmse_glmnet = rmse(drop(predict(cvg, xte, s = "lambda.min")), yte),
      rmse_dpsco = rmse(drop(predict(cvd, xte, s = "lambda.min")), yte),
      cv_zero_col = ba[p + 1L] == 0, cv_noise_nz = nz(ba[p + 2:11]),
      cv_nz = nz(ba),
      path_zero_col = all(fa$beta[p + 1L, ] == 0),
      path_noise_all_zero = all(fa$beta[p + 2:11, ] == 0),
      path_null_all_zero = all(fa$beta[null_rows, ] == 0),
      path_zero_col_max = max(abs(fa$beta[p + 1L, ])),
      ratio_path = max_ratio(fa, null_rows),
      ratio_cv = max_ratio(cva$dpsco.fit, null_rows))
    r <- res[[length(res)]]
    cat(sprintf(paste("level %s seed %2d: nz glmnet %3d dpsco %3d | RMSE null %.2f glmnet %.2f",
                      "dpsco %.2f | aug cv: zero col %s, noise nz %d | path:",
                      "zero col %s (max |b| %.3g), noise all 0 %s | ratio %.2f %.2f\n"),
                lv, s, r$nz_glmnet, r$nz_dpsco, r$rmse_null, r$rmse_glmnet, r$rmse_dpsco,
                if (r$cv_zero_col) "0" else "NZ", r$cv_noise_nz,
                if (r$path_zero_col) "0" else "NZ", r$path_zero_col_max,
                r$path_noise_all_zero, r$ratio_path, r$ratio_cv))
  }
}
res <- do.call(rbind, res)
if (nzchar(out_file)) saveRDS(list(res = res, ratios = ratios), out_file)
all_res <- res
for (lv in levels) {
  res <- all_res[if (is.na(lv)) TRUE else all_res$level %in% lv, ]
  m <- colMeans(res[, c("rmse_null", "rmse_glmnet", "rmse_dpsco")])
  gain <- (m[["rmse_null"]] - m[["rmse_dpsco"]]) / (m[["rmse_null"]] - m[["rmse_glmnet"]])
  cat(sprintf("\n== level %s, %d seeds ==\n", lv, nrow(res)))
  cat(sprintf("non-zeros at lambda.min: glmnet mean %.1f (range %d-%d), dpsco mean %.1f (range %d-%d); dpsco <= glmnet in %d of %d\n",
              mean(res$nz_glmnet), min(res$nz_glmnet), max(res$nz_glmnet),
              mean(res$nz_dpsco), min(res$nz_dpsco), max(res$nz_dpsco),
              sum(res$nz_dpsco <= res$nz_glmnet), nrow(res)))
  cat(sprintf("test RMSE means: null %.4f glmnet %.4f dpsco %.4f; gain G = %.3f\n",
              m[["rmse_null"]], m[["rmse_glmnet"]], m[["rmse_dpsco"]], gain))
  cat(sprintf("cv.dpsco on augmented x: all-zero column exactly 0 in %.0f%%; ten noise columns all 0 in %.0f%% (mean non-zero %.2f)\n",
              100 * mean(res$cv_zero_col), 100 * mean(res$cv_noise_nz == 0),
              mean(res$cv_noise_nz)))
  cat(sprintf("dpsco() path on augmented x: all-zero column 0 at every lambda in %.0f%%; noise columns 0 at every lambda in %.0f%%; all 11 in %.0f%%\n",
              100 * mean(res$path_zero_col), 100 * mean(res$path_noise_all_zero),
              100 * mean(res$path_null_all_zero)))
  if (!all(is.na(res$ratio_path)))
    cat(sprintf("largest |raw| / sd of the null columns per path: quantiles 50%% %.2f, 90%% %.2f, 95%% %.2f, max %.2f (dpsco() and cv.dpsco() fits pooled)\n",
                stats::quantile(c(res$ratio_path, res$ratio_cv), 0.5),
                stats::quantile(c(res$ratio_path, res$ratio_cv), 0.9),
                stats::quantile(c(res$ratio_path, res$ratio_cv), 0.95),
                max(c(res$ratio_path, res$ratio_cv))))
}
if (length(ratios)) {
  # per fit, per null column: the largest ratio over the path
  col_max <- sapply(Filter(Negate(is.null), ratios),
                    function(r) apply(r, 1L, max))
  fit_max <- apply(col_max, 2L, max)
  cat("\nSupport level c against the null columns of dpsco()'s path (every lambda):\n")
  for (cc in c(2, 2.5, 3, 3.5, 4, 4.5, 5, 6))
    cat(sprintf("  c = %.1f: all-zero column 0 in %.0f%% of fits; each noise column in %.1f%%; all 11 in %.0f%%\n",
                cc, 100 * mean(col_max[1L, ] <= cc), 100 * mean(col_max[-1L, ] <= cc),
                100 * mean(fit_max <= cc)))
}
