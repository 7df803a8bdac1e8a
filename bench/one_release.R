# bench/one_release.R -- the gaussian path with one gradient release (the
# sufficient-statistics path) against fresh gradients at every step, on a
# panel of real gaussian data sets (issue 50)
#
# What it measures
#   For each data set of bench/data.R with family "gaussian" (passed as a
#   user passes them: raw x and y), each split and epsilon, the test RMSE of
#     null      the training mean (non-private);
#     glmnet    glmnet::cv.glmnet(x, y) at lambda.min (non-private);
#     steps     cv.dpsco(x, y, epsilon, delta,
#                        control = dpsco_control(one_release = FALSE))
#               fresh gradients at every step (0.19.3's default path);
#     one       the same with one_release = TRUE: one gradient, carried to
#               every penalty by the released curvature;
#     default   the same with the control's default (steps), a check;
#   predictions predict(cv, x_test, s = "lambda.min").  The three private
#   rows share each split's seed (set.seed(1000 s + 10 eps)), so they
#   differ by the path only.
#   G = (RMSE_null - RMSE) / (RMSE_null - RMSE_glmnet) from the split
#   means, with the sd over splits of the per-split G in parentheses.
#   Splits: seed s = 1..S, training rows sample.int(n, round(0.7 n)), the
#   rest the test set; delta = 0.1 / n_train.
#
# Settings (environment variables):
#   DPSCO_BENCH_SPLITS  number of splits (default 10)
#   DPSCO_BENCH_EPS     comma list of epsilons (default 0.5,1,2)
#   DPSCO_BENCH_DATA    comma list (default blog,diamonds,cps,ames,concrete)
#   DPSCO_BENCH_OUT     if set, a file to saveRDS() the per-fit rows into
#
# Command (from the top of the source tree):
#   sh bench/install.sh      # HEAD and the data packages into /tmp/benchlib
#   R_LIBS=/tmp/benchlib Rscript bench/one_release.R

suppressPackageStartupMessages(library(dpsco))
options(width = 150)
script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
source(file.path(script_dir, "data.R"))
if (!requireNamespace("glmnet", quietly = TRUE)) stop("bench/one_release.R needs glmnet")
n_splits <- as.integer(Sys.getenv("DPSCO_BENCH_SPLITS", "10"))
eps_grid <- as.numeric(env_list("DPSCO_BENCH_EPS", "0.5,1,2"))
sets <- env_list("DPSCO_BENCH_DATA", "blog,diamonds,cps,ames,concrete")
out_file <- Sys.getenv("DPSCO_BENCH_OUT", "")
cat("dpsco", format(utils::packageVersion("dpsco")), "commit", installed_commit(), "\n")
cat("splits", n_splits, "epsilons", paste(eps_grid, collapse = ", "), "\n\n")

rmse <- function(y, p) sqrt(mean((y - p)^2))
# (an install before one_release: its default only, for the comparison)
variants <- if ("one_release" %in% names(formals(dpsco_control)))
  c("steps", "one", "default") else "default"

one_split <- function(dat, s) {
  set.seed(s)
  n <- nrow(dat$x)
  tr <- sample.int(n, round(0.7 * n))
  xtr <- dat$x[tr, , drop = FALSE]; ytr <- dat$y[tr]
  xte <- dat$x[-tr, , drop = FALSE]; yte <- dat$y[-tr]
  delta <- 0.1 / length(tr)
  gl <- glmnet::cv.glmnet(xtr, ytr)
  base <- c(null = rmse(yte, mean(ytr)),
            glmnet = rmse(yte, drop(predict(gl, xte, s = "lambda.min"))))
  rows <- list()
  for (eps in eps_grid) {
    for (v in variants) {
      ctl <- switch(v, steps = dpsco_control(one_release = FALSE),
                    one = dpsco_control(one_release = TRUE),
                    default = dpsco_control())
      set.seed(1000 * s + 10 * eps)
      t0 <- proc.time()[["elapsed"]]
      r <- tryCatch({
        cv <- suppressWarnings(suppressMessages(
          cv.dpsco(xtr, ytr, epsilon = eps, delta = delta, control = ctl)))
        f <- cv$dpsco.fit
        list(rmse = rmse(yte, drop(predict(cv, xte, s = "lambda.min"))),
             one = isTRUE(f$settings$one_release))
      }, error = function(e) {
        message(dat$name, " ", v, " eps ", eps, ": ", conditionMessage(e))
        list(rmse = NA_real_, one = NA)
      })
      rows[[length(rows) + 1L]] <- data.frame(
        set = dat$name, split = s, eps = eps, variant = v, rmse = r$rmse,
        null = base[["null"]], glmnet = base[["glmnet"]], one = r$one,
        sec = proc.time()[["elapsed"]] - t0)
    }
  }
  do.call(rbind, rows)
}

`%||%` <- function(a, b) if (is.null(a)) b else a
all_rows <- list()
for (nm in sets) {
  dat <- load_data(nm)
  if (is.null(dat)) next
  if (dat$family != "gaussian") { message(nm, ": not gaussian, skipped"); next }
  cat(sprintf("%s: n = %d, p = %d\n", nm, nrow(dat$x), ncol(dat$x)))
  res <- do.call(rbind, lapply(seq_len(n_splits), function(s) one_split(dat, s)))
  all_rows[[nm]] <- res
  for (eps in eps_grid) {
    r <- res[res$eps == eps, ]
    g <- function(v) {
      q <- r[r$variant == v, ]
      G <- (mean(q$null) - mean(q$rmse, na.rm = TRUE)) /
        (mean(q$null) - mean(q$glmnet))
      Gs <- stats::sd((q$null - q$rmse) / (q$null - q$glmnet), na.rm = TRUE)
      sprintf("%5.2f (%4.2f)", G, Gs)
    }
    d <- r[r$variant == "default", ]
    gs <- vapply(variants, g, "")
    cat(sprintf("  eps %-4s  G %s  | one release in the default: %d/%d, s/fit %.2f\n",
                format(eps), paste(variants, gs, collapse = "  "),
                sum(d$one, na.rm = TRUE), nrow(d), mean(r$sec)))
  }
  cat("\n")
}
if (nzchar(out_file)) saveRDS(do.call(rbind, all_rows), out_file)
