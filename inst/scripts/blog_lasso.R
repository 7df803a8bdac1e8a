# A differentially private lasso path on the BlogFeedback data, as a user
# would fit it: raw features, raw heavy-tailed response, only epsilon given.
#
# Run from the top of the source tree with `make run`, or, once dpsco is
# installed, with
#   Rscript inst/scripts/blog_lasso.R          (or source() it in R).
#
# It predicts comments_next24h (the number of comments a blog post receives
# in the next 24 hours: a count with a very heavy right tail) from the other
# 280 columns of `blog`, untransformed (counts up to about 1e5), and prints
#   * cv.dpsco(): a private lasso path (gradient clipping, epsilon = 1 for
#     everything) with lambda chosen privately on a hold-out part,
#   * its privacy record: every data-dependent choice, its mechanism, its
#     share of the budget and what it released,
#   * summary() of the private choice,
#   * the test-set RMSE of the private choice next to the intercept-only
#     model, glmnet's cv.glmnet() (non-private, if installed) and the
#     paper's public settings (DP-SPGD(H), calibration = "paper"), and
#   * where it wrote the coefficient paths with the private choice of
#     lambda marked (blog_path.png in the working directory).
#
# PRIVACY BOOK-KEEPING.  The guarantee covers the 70% training part.  Only
# epsilon, the method and the split seed are chosen here, none of them from
# the data; every setting that needs the data (bounds on the features, the
# centre of y, the clipping level, the curvature, the lambda grid and
# lambda itself) is estimated inside the budget and listed in the record.
# The held-out 30% is used only to evaluate the released models, which is
# post-processing.

suppressPackageStartupMessages(library(dpsco))

data_env <- new.env(parent = emptyenv())
utils::data("blog", package = "dpsco", envir = data_env)
blog <- data_env$blog
response <- "comments_next24h"
x <- as.matrix(blog[, setdiff(names(blog), response)])
y <- blog[[response]]

set.seed(20240501)
n_all <- nrow(x)
train <- sort(sample.int(n_all, round(0.7 * n_all)))
test <- setdiff(seq_len(n_all), train)
x_train <- x[train, , drop = FALSE]
y_train <- y[train]
x_test <- x[test, , drop = FALSE]
epsilon <- 1
delta <- 0.1 / length(train)   # the package's default, well below 1/n

cat(sprintf(paste0(
  "BlogFeedback: %d records (%d for training, %d held out), %d raw features\n",
  "Privacy target for everything below: (epsilon, delta) = (%g, 0.1/n = %.3g)\n\n"),
  n_all, length(train), length(test), ncol(x), epsilon, delta))

# ---- The private workflow: one call -----------------------------------------
set.seed(2)
elapsed <- system.time(
  cvfit <- cv.dpsco(x_train, y_train, method = "clip", epsilon = epsilon,
                    delta = delta)
)[["elapsed"]]
cat(sprintf("cv.dpsco() took %.1f s\n", elapsed))
print(cvfit)
cat("\n")
print(privacy(cvfit))
cat("\n")
print(summary(cvfit))

# ---- Held-out evaluation (post-processing) --------------------------------
rmse <- function(pred) sqrt(mean((y[test] - pred)^2))
rows <- c(
  "intercept only (training mean, not private)" = rmse(mean(y_train)),
  "dpsco: cv.dpsco(method = \"clip\"), private lambda" =
    rmse(predict(cvfit, x_test)))
if (requireNamespace("glmnet", quietly = TRUE)) {
  set.seed(1)
  g <- glmnet::cv.glmnet(x_train, y_train)
  rows["glmnet: cv.glmnet, lambda.min (not private)"] <-
    rmse(stats::predict(g, x_test, s = "lambda.min"))
}
set.seed(1)
paper <- dpsco(x_train, y_train, method = "holland", epsilon = epsilon,
               delta = delta, calibration = "paper", nlambda = 10)
rows["dpsco: the paper's settings (holland), best lambda on the TEST set"] <-
  min(sqrt(colMeans((y[test] - predict(paper, x_test))^2)))
cat(sprintf("\nTest-set RMSE (%d held-out records, raw counts):\n", length(test)))
cat(sprintf("  %-68s %7.3f\n", names(rows), rows), sep = "")
null <- rows[[1L]]
if (length(rows) >= 3L)
  cat(sprintf(paste("  share of glmnet's gain over the intercept reached by the",
                    "private choice: %.2f\n"),
              (null - rows[[2L]]) / (null - rows[[3L]])))

# ---- Plots -------------------------------------------------------------------
png_file <- "blog_path.png"
grDevices::png(png_file, width = 900, height = 600)
# cv.dpsco() releases no validation curve by default (its noise would
# hide the differences between penalties): plot(cvfit) draws the path
# with the private choice of lambda marked
plot(cvfit, main = sprintf(
  "BlogFeedback: private lasso path (clipping, epsilon = %g, raw features)",
  epsilon))
invisible(grDevices::dev.off())
cat("\nCoefficient paths written to", normalizePath(png_file), "\n")
