# bench/constrained.R -- held-out error of the constraint-set methods
#
# What it measures
#   The test-set error of each constraint-set method of dpsco() ("fw",
#   "htp_lasso", "htdp_fw", "objective", "mirror", "mirror_shuffled"), fitted
#   with its defaults on the data as a user passes them, next to DP-SPGD(H)
#   (method "holland"), a null model and glmnet, and the seconds per fit.
#   Data sets (the raw data, no transform), as in bench/utility.R:
#     blog       dpsco::blog, y = comments_next24h, gaussian; test RMSE.
#     satellite  mlbench::Satellite, y = 1 for "cotton crop", binomial; test
#                accuracy.
#   Splits: seeds 1..N (default 3), training rows sample.int(n, 0.7 n).
#   Privacy: epsilon in {0.5, 2} for the whole fit, delta = 1 / n_train.
#   Rows:
#     null, glmnet         the training mean / majority class; cv.glmnet at
#                          lambda.min (both non-private).
#     holland cv           cv.dpsco(method = "holland"): lambda chosen
#                          privately (the package's workflow).
#     holland path         dpsco(method = "holland"), scored at the lambda of
#                          the path that is best ON THE TEST SET.
#     <method>             dpsco(method = <method>) with its default radii,
#                          scored at the radius best ON THE TEST SET.
#     <method> cv          cv.dpsco(method = <method>): the radius chosen
#                          privately (fw, objective and mirror).
#   The "path" and method rows pick their best point on the test set, so
#   they are optimistic in the same way and comparable with each other; the
#   "cv" rows are the honest, fully private numbers.
#   Errors of a fit are caught: its row gets NA and the message is printed.
#
# Settings (environment variables): DPSCO_BENCH_SPLITS (default 3),
#   DPSCO_BENCH_EPS (default 0.5,2), DPSCO_BENCH_DATA (default
#   blog,satellite), DPSCO_BENCH_METHODS (default: all six).
#
# Command (from the top of the source tree):
#   sh bench/install.sh       # once
#   R_LIBS=/tmp/benchlib Rscript bench/constrained.R

suppressPackageStartupMessages(library(dpsco))
options(width = 150)

env_list <- function(name, default) {
  v <- trimws(strsplit(Sys.getenv(name, default), ",", fixed = TRUE)[[1L]])
  v[nzchar(v)]
}
n_splits <- as.integer(Sys.getenv("DPSCO_BENCH_SPLITS", "3"))
eps_grid <- as.numeric(env_list("DPSCO_BENCH_EPS", "0.5,2"))
data_sets <- env_list("DPSCO_BENCH_DATA", "blog,satellite")
methods <- env_list("DPSCO_BENCH_METHODS",
                    "fw,htp_lasso,htdp_fw,objective,mirror,mirror_shuffled")
# also chosen privately by cv.dpsco() along their radii
cv_methods <- c("fw", "objective", "mirror")

script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
source(file.path(script_dir, "data.R"))

score <- function(pred, y, family) {
  pred <- as.matrix(pred)
  if (family == "gaussian") sqrt(colMeans((pred - y)^2))
  else colMeans((pred > 0.5) == (y == 1))
}

rows <- list()
add_row <- function(...) rows[[length(rows) + 1L]] <<- data.frame(...)

for (ds in data_sets) {
  dat <- load_data(ds)
  fam <- dat$family
  best <- if (fam == "gaussian") min else max
  for (s in seq_len(n_splits)) {
    set.seed(s)
    n <- nrow(dat$x)
    tr <- sample.int(n, round(0.7 * n))
    xtr <- dat$x[tr, ]
    ytr <- dat$y[tr]
    xte <- dat$x[-tr, ]
    yte <- dat$y[-tr]
    delta <- 1 / length(ytr)
    m0 <- mean(ytr)
    null <- score(rep(if (fam == "gaussian") m0 else as.numeric(m0 > 0.5),
                      length(yte)), yte, fam)
    g <- glmnet::cv.glmnet(xtr, ytr, family = fam)
    gl <- score(stats::predict(g, xte, s = "lambda.min", type = "response"),
                yte, fam)
    add_row(data = ds, split = s, epsilon = NA, method = "null", value = null,
            seconds = NA)
    add_row(data = ds, split = s, epsilon = NA, method = "glmnet", value = gl,
            seconds = NA)
    for (eps in eps_grid) {
      run <- function(label, expr_fn) {
        t0 <- proc.time()[["elapsed"]]
        v <- tryCatch(expr_fn(), error = function(e) {
          cat(sprintf("  %s %s eps %s split %d: %s\n", ds, label, eps, s,
                      conditionMessage(e)))
          NA_real_
        })
        add_row(data = ds, split = s, epsilon = eps, method = label, value = v,
                seconds = proc.time()[["elapsed"]] - t0)
      }
      run("holland cv", function() {
        cv <- cv.dpsco(xtr, ytr, family = fam, method = "holland",
                       epsilon = eps, delta = delta)
        score(predict(cv, xte, s = "lambda.min", type = "response"), yte, fam)
      })
      run("holland path", function() {
        f <- dpsco(xtr, ytr, family = fam, method = "holland", epsilon = eps,
                   delta = delta)
        best(score(predict(f, xte, type = "response"), yte, fam))
      })
      for (m in methods)
        run(m, function() {
          f <- dpsco(xtr, ytr, family = fam, method = m, epsilon = eps,
                     delta = delta)
          best(score(predict(f, xte, type = "response"), yte, fam))
        })
      for (m in intersect(methods, cv_methods))
        run(paste(m, "cv"), function() {
          cv <- cv.dpsco(xtr, ytr, family = fam, method = m, epsilon = eps,
                         delta = delta)
          score(predict(cv, xte, type = "response"), yte, fam)
        })
    }
  }
}
res <- do.call(rbind, rows)
agg <- aggregate(cbind(value, seconds) ~ data + epsilon + method,
                 res[!is.na(res$epsilon), ], mean, na.action = na.pass)
base <- aggregate(value ~ data + method, res[is.na(res$epsilon), ], mean)
cat("\nNon-private references (mean over splits):\n")
print(base, row.names = FALSE)
cat("\nPrivate fits (mean over splits; RMSE for blog, accuracy for satellite):\n")
agg$value <- signif(agg$value, 4)
agg$seconds <- signif(agg$seconds, 3)
print(agg[order(agg$data, agg$epsilon, agg$method), ], row.names = FALSE)
