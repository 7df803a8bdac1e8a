# bench/poisson.R -- the default private Poisson workflow on the blog data
#
# What it measures
#   The test-set Poisson deviance of private fits made the way a user would
#   make them, as a share of what the non-private lasso gains over the
#   intercept-only model:
#     gain(fit) = (D_null - D_fit) / (D_null - D_glmnet),
#   D the mean Poisson deviance on the test part, D_null that of the
#   training mean count, D_glmnet that of cv.glmnet(family = "poisson",
#   nfolds = 5) at lambda.min (5 folds to keep the run short).
#   1 matches glmnet, 0 is no better than the null model.
#   Data: dpsco::blog (BlogFeedback), y = comments_next24h (a heavy-tailed
#   count), x in two forms:
#     raw   the 280 raw features as they are.  glmnet's Poisson path does
#           not converge on them beyond its first lambda (its IRLS fails,
#           "Convergence for 2th lambda value not reached"), so its
#           lambda.min is the null model and the gain ratio is undefined:
#           the private fits are reported against the null model only.
#     log   sign(x) log1p(|x|) (a public transform, no data statistic),
#           where glmnet converges: the gain ratio is reported.
#   Splits: for seed s in `seeds`, set.seed(s) and the training rows are
#   sample.int(n, round(0.7 * n)); the other 30% are the test set.
#   Private rows (epsilon as given, delta the default 0.1 / n_train):
#     cv.dpsco    cv.dpsco(x, y, family = "poisson", epsilon = eps), scored
#                 at lambda.min (the default private workflow)
#     dpsco       dpsco(x, y, family = "poisson", epsilon = eps), scored
#                 at the last lambda of the path
# Usage
#   R_LIBS=.lib Rscript bench/poisson.R [seeds] [epsilons] [forms]
#   e.g. R_LIBS=.lib Rscript bench/poisson.R 1:2 1 '"log"'
args <- commandArgs(trailingOnly = TRUE)
seeds <- if (length(args) >= 1) eval(parse(text = args[1])) else 1:2
epsilons <- if (length(args) >= 2) eval(parse(text = args[2])) else 1
forms <- if (length(args) >= 3) eval(parse(text = args[3])) else c("raw", "log")
suppressPackageStartupMessages({library(dpsco); library(glmnet)})
utils::data("blog", package = "dpsco", envir = environment())
x_raw <- as.matrix(blog[, 1:280])
y <- as.double(blog[[281L]])
n <- nrow(x_raw)
dev <- function(y, mu) {
  mu <- pmax(mu, 1e-300)
  mean(2 * (ifelse(y > 0, y * log(y / mu), 0) - (y - mu)))
}
rows <- list()
for (form in forms) {
  x <- if (form == "log") sign(x_raw) * log1p(abs(x_raw)) else x_raw
  for (s in seeds) {
    set.seed(s)
    tr <- sample.int(n, round(0.7 * n))
    xtr <- x[tr, ]; ytr <- y[tr]; xte <- x[-tr, ]; yte <- y[-tr]
    d_null <- dev(yte, rep(mean(ytr), length(yte)))
    d_glm <- NA_real_
    if (form == "log") {
      set.seed(s)
      g <- cv.glmnet(xtr, ytr, family = "poisson", nfolds = 5)
      d_glm <- dev(yte, drop(predict(g, xte, s = "lambda.min",
                                     type = "response")))
    }
    for (eps in epsilons) {
      set.seed(100 + s)
      cvf <- cv.dpsco(xtr, ytr, family = "poisson", epsilon = eps)
      d_cv <- dev(yte, drop(predict(cvf, xte, type = "response")))
      set.seed(200 + s)
      f <- dpsco(xtr, ytr, family = "poisson", epsilon = eps)
      pr <- predict(f, xte, type = "response")
      d_fit <- dev(yte, pr[, ncol(pr)])
      gain <- function(d) (d_null - d) / (d_null - d_glm)
      rows[[length(rows) + 1L]] <- data.frame(
        x = form, seed = s, epsilon = eps, null = d_null, glmnet = d_glm,
        cv.dpsco = d_cv, dpsco = d_fit, gain_cv = gain(d_cv),
        gain_dpsco = gain(d_fit))
      message(form, " seed ", s, " epsilon ", eps, " done")
    }
  }
}
res <- do.call(rbind, rows)
print(format(res, digits = 4), row.names = FALSE)
cat("\nmean test deviance and gain (1 = glmnet, 0 = null; NA: raw x, where",
    "glmnet stays at the null model):\n")
print(aggregate(cbind(null, cv.dpsco, dpsco, gain_cv, gain_dpsco) ~ x + epsilon,
                res, mean, na.action = na.pass))
