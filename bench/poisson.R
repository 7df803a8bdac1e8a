# bench/poisson.R -- the default private Poisson workflow on the blog data
#
# What it measures
#   The test-set Poisson deviance of private fits made the way a user would
#   make them, as a share of what the non-private lasso gains over the
#   intercept-only model:
#     gain(fit) = (D_null - D_fit) / (D_null - D_glmnet),
#   D the mean Poisson deviance on the test part, D_null that of the
#   training mean count, D_glmnet that of cv.glmnet(family = "poisson") at
#   lambda.min.  1 matches glmnet, 0 is no better than the null model.
#   Data: dpsco::blog (BlogFeedback), x = the 280 raw features, y =
#   comments_next24h (a heavy-tailed count), passed as they are.
#   Splits: for seed s in `seeds`, set.seed(s) and the training rows are
#   sample.int(n, round(0.7 * n)); the other 30% are the test set.
#   Rows:
#     cv.dpsco    cv.dpsco(x, y, family = "poisson", epsilon = eps), scored
#                 at lambda.min (the default private workflow)
#     dpsco       dpsco(x, y, family = "poisson", epsilon = eps), scored
#                 at the last lambda of the path
#   delta is the default (0.1 / n_train).
# Usage
#   R_LIBS=.lib Rscript bench/poisson.R [seeds] [epsilons]
#   e.g. R_LIBS=.lib Rscript bench/poisson.R 1:3 1
args <- commandArgs(trailingOnly = TRUE)
seeds <- if (length(args) >= 1) eval(parse(text = args[1])) else 1:3
epsilons <- if (length(args) >= 2) eval(parse(text = args[2])) else 1
suppressPackageStartupMessages({library(dpsco); library(glmnet)})
utils::data("blog", package = "dpsco", envir = environment())
x <- as.matrix(blog[, 1:280])
y <- as.double(blog[[281L]])
n <- nrow(x)
dev <- function(y, mu) {
  mu <- pmax(mu, 1e-300)
  mean(2 * (ifelse(y > 0, y * log(y / mu), 0) - (y - mu)))
}
rows <- list()
for (s in seeds) {
  set.seed(s)
  tr <- sample.int(n, round(0.7 * n))
  xtr <- x[tr, ]; ytr <- y[tr]; xte <- x[-tr, ]; yte <- y[-tr]
  d_null <- dev(yte, rep(mean(ytr), length(yte)))
  t0 <- proc.time()[[3]]
  g <- cv.glmnet(xtr, ytr, family = "poisson")
  message("seed ", s, ": cv.glmnet ", round(proc.time()[[3]] - t0), " s")
  d_glm <- dev(yte, drop(predict(g, xte, s = "lambda.min", type = "response")))
  for (eps in epsilons) {
    set.seed(100 + s)
    t0 <- proc.time()[[3]]
    cvf <- cv.dpsco(xtr, ytr, family = "poisson", epsilon = eps)
    message("seed ", s, ", epsilon ", eps, ": cv.dpsco ",
            round(proc.time()[[3]] - t0), " s")
    d_cv <- dev(yte, drop(predict(cvf, xte, s = "lambda.min", type = "response")))
    set.seed(200 + s)
    f <- dpsco(xtr, ytr, family = "poisson", epsilon = eps)
    pr <- predict(f, xte, type = "response")
    d_fit <- dev(yte, pr[, ncol(pr)])
    gain <- function(d) (d_null - d) / (d_null - d_glm)
    rows[[length(rows) + 1L]] <- data.frame(
      seed = s, epsilon = eps, null = d_null, glmnet = d_glm,
      cv.dpsco = d_cv, dpsco = d_fit, gain_cv = gain(d_cv),
      gain_dpsco = gain(d_fit))
  }
}
res <- do.call(rbind, rows)
print(format(res, digits = 4), row.names = FALSE)
cat("\nmean gain over glmnet's (1 = glmnet, 0 = null):\n")
print(aggregate(cbind(gain_cv, gain_dpsco) ~ epsilon, res, mean))
