# bench/multinomial.R -- the default private multinomial workflow on the
# six classes of the Landsat Satellite data (mlbench::Satellite)
#
# What it measures
#   Test-set accuracy of private fits made the way a user would make them,
#   next to cv.glmnet(family = "multinomial") at lambda.min and the
#   majority class of the training part.
#   Data: x = the 36 raw band values (0 to 255), y = the six land-cover
#   classes (a factor: its levels declare the classes).
#   Splits: for seed s in `seeds`, set.seed(s) and the training rows are
#   sample.int(n, round(0.8 * n)); the other 20% are the test set.
#   Rows (epsilon as given, delta the default 0.1 / n_train):
#     cv.dpsco   cv.dpsco(x, y, family = "multinomial", epsilon = eps),
#                scored at its private choice lambda.min (the default
#                private workflow)
#     dpsco      dpsco(x, y, family = "multinomial", epsilon = eps), scored
#                at the last lambda of its path
#     none       the non-private converged path (method = "none",
#                tuning = "private": the private workflow's settings
#                computed without noise), at its last lambda
# Usage
#   R_LIBS=.lib Rscript bench/multinomial.R [seeds] [epsilons]
#   e.g. R_LIBS=.lib Rscript bench/multinomial.R 1:5 'c(1, 2, 8)'
args <- commandArgs(trailingOnly = TRUE)
seeds <- if (length(args) >= 1) eval(parse(text = args[1])) else 1:5
epsilons <- if (length(args) >= 2) eval(parse(text = args[2])) else 2
suppressPackageStartupMessages({library(dpsco); library(glmnet)})
utils::data("Satellite", package = "mlbench", envir = e <- new.env())
x <- as.matrix(e$Satellite[, 1:36])
y <- e$Satellite$classes
n <- nrow(x)
accuracy <- function(pred, truth) mean(as.character(pred) == as.character(truth))
last <- function(m) m[, ncol(m)]
rows <- list()
for (s in seeds) {
  set.seed(s)
  tr <- sample.int(n, round(0.8 * n))
  xt <- x[tr, ]
  yt <- y[tr]
  xv <- x[-tr, ]
  yv <- y[-tr]
  majority <- names(which.max(table(yt)))
  g <- cv.glmnet(xt, yt, family = "multinomial", nfolds = 5)
  base <- c(majority = accuracy(rep(majority, length(yv)), yv),
            glmnet = accuracy(predict(g, xv, s = "lambda.min", type = "class"), yv))
  none <- dpsco(xt, yt, family = "multinomial", method = "none",
                tuning = "private")
  base["none"] <- accuracy(last(predict(none, xv, type = "class")), yv)
  for (eps in epsilons) {
    set.seed(100 + s)
    t0 <- proc.time()[["elapsed"]]
    cvf <- cv.dpsco(xt, yt, family = "multinomial", epsilon = eps)
    t_cv <- proc.time()[["elapsed"]] - t0
    set.seed(200 + s)
    fit <- dpsco(xt, yt, family = "multinomial", epsilon = eps)
    rows[[length(rows) + 1L]] <- data.frame(
      seed = s, epsilon = eps, majority = base[["majority"]],
      glmnet = base[["glmnet"]], none = base[["none"]],
      cv.dpsco = accuracy(predict(cvf, xv, type = "class"), yv),
      dpsco = accuracy(last(predict(fit, xv, type = "class")), yv),
      df_cv = cvf$nzero[cvf$index], seconds_cv = t_cv)
  }
}
res <- do.call(rbind, rows)
print(res, digits = 3)
cat("\nMeans by epsilon:\n")
print(aggregate(res[, c("majority", "glmnet", "none", "cv.dpsco", "dpsco",
                        "df_cv", "seconds_cv")],
                list(epsilon = res$epsilon), mean), digits = 3)
