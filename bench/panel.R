# bench/panel.R -- the default private workflow's gain on a panel of real
# data sets of different shapes, for two installs side by side (issue 50)
#
# What it measures
#   For each data set of bench/data.R (passed as a user passes them: raw x
#   and y) and each split and epsilon, the test metric of
#     null      training mean (gaussian) or majority class (non-private);
#     glmnet    glmnet::cv.glmnet(x, y, family) at lambda.min (non-private);
#     dpsco     cv.dpsco(x, y, family, epsilon, delta = 0.1 / n_train) and
#               predict(cv, x_test, s = "lambda.min", type = "response")
#               (binomial: class 1 above 0.5; multinomial: type = "class"),
#               seeded by set.seed(1000 s + 10 eps), once per library given;
#   G = (RMSE_null - RMSE) / (RMSE_null - RMSE_glmnet) or (acc - acc_null) /
#   (acc_glmnet - acc_null) from the split means, with the sd of the
#   per-split G in parentheses; the worst set's G per epsilon and library.
#   Each library is run in its own R process (Rscript), the same splits.
#   Splits: seed s = 1..S, training rows sample.int(n, round(0.7 n)).
#
# Settings (environment variables):
#   DPSCO_BENCH_SPLITS  number of splits (default 10)
#   DPSCO_BENCH_EPS     comma list of epsilons (default 0.5,1,2)
#   DPSCO_BENCH_DATA    comma list (default
#                       blog,diamonds,cps,ames,concrete,satellite,spam)
#   DPSCO_BENCH_LIBS    comma list of libraries, each with a dpsco install
#                       (default /tmp/benchlib); their first entry names the
#                       column
#
# Command (from the top of the source tree):
#   sh bench/install.sh /tmp/lib_new; git stash; sh bench/install.sh /tmp/lib_old
#   DPSCO_BENCH_LIBS=/tmp/lib_old,/tmp/lib_new R_LIBS=/tmp/benchlib Rscript bench/panel.R

args <- commandArgs(TRUE)
`%||%` <- function(a, b) if (is.null(a)) b else a
script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
source(file.path(script_dir, "data.R"))
n_splits <- as.integer(Sys.getenv("DPSCO_BENCH_SPLITS", "10"))
eps_grid <- as.numeric(env_list("DPSCO_BENCH_EPS", "0.5,1,2"))
sets <- env_list("DPSCO_BENCH_DATA", "blog,diamonds,cps,ames,concrete,satellite,spam")

# worker mode: Rscript bench/panel.R --worker OUT (its R_LIBS set by the
# driver): every set, split and epsilon with the dpsco of that library
if (length(args) >= 2L && args[1L] == "--worker") {
  suppressPackageStartupMessages(library(dpsco))
  metric <- function(dat, y, p) if (dat$higher_better) mean(y == p) else sqrt(mean((y - p)^2))
  rows <- list()
  for (nm in sets) {
    dat <- load_data(nm)
    if (is.null(dat)) next
    for (s in seq_len(n_splits)) {
      sp <- split_data(dat, s, 0.7)
      xtr <- sp$xtr; ytr <- sp$ytr; xte <- sp$xte; yte <- sp$yte
      fam <- dat$family
      for (eps in eps_grid) {
        set.seed(1000 * s + 10 * eps)
        t0 <- proc.time()[["elapsed"]]
        m <- tryCatch({
          cv <- suppressWarnings(suppressMessages(
            cv.dpsco(xtr, ytr, family = fam, epsilon = eps, delta = 0.1 / length(ytr))))
          p <- if (fam == "multinomial") as.character(predict(cv, xte, s = "lambda.min", type = "class"))
               else drop(predict(cv, xte, s = "lambda.min", type = "response"))
          if (fam == "binomial") p <- as.numeric(p > 0.5)
          metric(dat, if (fam == "multinomial") as.character(yte) else yte, p)
        }, error = function(e) {
          message(nm, " split ", s, " eps ", eps, ": ", conditionMessage(e))
          NA_real_
        })
        rows[[length(rows) + 1L]] <- data.frame(set = nm, split = s, eps = eps, dpsco = m,
                                                sec = proc.time()[["elapsed"]] - t0)
      }
    }
  }
  saveRDS(do.call(rbind, rows), args[2L])
  quit(save = "no")
}

libs <- env_list("DPSCO_BENCH_LIBS", "/tmp/benchlib")
if (!requireNamespace("glmnet", quietly = TRUE)) stop("bench/panel.R needs glmnet")
cat("splits", n_splits, "epsilons", paste(eps_grid, collapse = ", "), "\n")
# the non-private rows, once
base <- list()
for (nm in sets) {
  dat <- load_data(nm)
  if (is.null(dat)) next
  metric <- function(y, p) if (dat$higher_better) mean(y == p) else sqrt(mean((y - p)^2))
  for (s in seq_len(n_splits)) {
    sp <- split_data(dat, s, 0.7)
    xtr <- sp$xtr; ytr <- sp$ytr; xte <- sp$xte; yte <- sp$yte
    if (dat$family == "gaussian") {
      nul <- metric(yte, mean(ytr))
      gl <- glmnet::cv.glmnet(xtr, ytr)
      g <- metric(yte, drop(predict(gl, xte, s = "lambda.min")))
    } else {
      maj <- names(which.max(table(ytr)))
      nul <- mean(as.character(yte) == maj)
      gl <- glmnet::cv.glmnet(xtr, ytr, family = dat$family)
      g <- mean(as.character(yte) == as.character(drop(predict(gl, xte, s = "lambda.min", type = "class"))))
    }
    base[[length(base) + 1L]] <- data.frame(set = nm, split = s, null = nul, glmnet = g,
                                            n = nrow(dat$x), p = ncol(dat$x))
  }
}
base <- do.call(rbind, base)
res <- list()
for (lib in libs) {
  out <- tempfile(fileext = ".rds")
  rc <- system2(file.path(R.home("bin"), "Rscript"), c(shQuote(file.path(script_dir, "panel.R")),
                "--worker", shQuote(out)), env = paste0("R_LIBS=", lib, ":", Sys.getenv("R_LIBS")))
  if (rc != 0 || !file.exists(out)) stop("the worker for ", lib, " failed")
  commit <- tryCatch(readLines(file.path(lib, "dpsco", "BENCH_COMMIT"))[1L], error = function(e) "?")
  cat(lib, ": dpsco", read.dcf(file.path(lib, "dpsco", "DESCRIPTION"), "Version")[1L], commit, "\n")
  res[[lib]] <- merge(readRDS(out), base)
}
gain <- function(d) {
  G <- (mean(d$dpsco, na.rm = TRUE) - mean(d$null)) / (mean(d$glmnet) - mean(d$null))
  Gs <- stats::sd((d$dpsco - d$null) / (d$glmnet - d$null), na.rm = TRUE)
  c(G = G, sd = Gs, sec = mean(d$sec))
}
cat("\n| set | n | p | epsilon |", paste(sprintf(" G %s (sd) |", basename(libs)), collapse = ""), "\n")
cat("|---|---:|---:|---:|", paste(rep("---:|", length(libs)), collapse = ""), "\n")
worst <- list()
for (nm in unique(base$set)) for (eps in eps_grid) {
  cells <- vapply(libs, function(lib) {
    d <- res[[lib]]
    g <- gain(d[d$set == nm & d$eps == eps, ])
    worst[[paste(lib, eps)]] <<- min(worst[[paste(lib, eps)]] %||% Inf, g[["G"]])
    sprintf(" %.2f (%.2f) |", g[["G"]], g[["sd"]])
  }, "")
  b <- base[base$set == nm, ][1L, ]
  cat(sprintf("| %s | %d | %d | %s |%s\n", nm, b$n, b$p, format(eps), paste(cells, collapse = "")))
}
cat("\nworst set's G:\n")
for (eps in eps_grid)
  cat(sprintf("  eps %-4s %s\n", format(eps), paste(sprintf("%s %.2f", basename(libs),
      vapply(libs, function(lib) worst[[paste(lib, eps)]], 0)), collapse = "  ")))
