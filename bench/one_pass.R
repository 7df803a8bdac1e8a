# bench/one_pass.R -- the one-pass clipped methods of Lowy and Razaviyayn
# (dpsco(method = "acsa" | "clipped_sgd" | "localized" |
# "prox_clipped_sgd")) on real data, as users pass it, and Lowy and Razaviyayn's
# setting in miniature.
#
#   Rscript bench/one_pass.R            (from the package root, dpsco installed)
#
# Real data (bench/data.R): the raw blog data (gaussian, held-out RMSE) and
# Satellite (binomial, held-out accuracy), 3 random 80/20 splits,
# delta = 1 / n_train, epsilon 0.5 and 2, default settings (private tuning,
# 10 radii or lambdas).  Each private fit is scored at the best radius or
# lambda of its path on the held-out part (an oracle choice, the same for
# every method; cv.dpsco() makes it privately), against the intercept-only
# model, glmnet at cv.glmnet's lambda.min (not private) and dpsco()'s
# default fit ("clip" oracle, Newton steps), scored the same way.
#
# Miniature (the paper has no experiments): excess risk of each method
# against n on a heavy-tailed design (log-normal features with random
# signs, t(2.5) noise), epsilon = 1, mean over 3 data sets.

suppressPackageStartupMessages(library(dpsco))
source("bench/data.R")

methods <- c("acsa", "clipped_sgd", "localized", "prox_clipped_sgd")

score <- function(fit, x, y, family) {
  vals <- if (!is.null(fit$radius)) fit$radius else fit$lambda
  s <- vapply(vals, function(v) {
    if (family == "gaussian") sqrt(mean((y - predict(fit, x, s = v))^2))
    else mean((predict(fit, x, s = v, type = "response") > 0.5) == y)
  }, 0)
  if (family == "gaussian") min(s) else max(s)
}

real_data <- function(d, eps_grid = c(0.5, 2), splits = 3) {
  rows <- list()
  for (k in seq_len(splits)) {
    sp <- split_data(d, 1000 + k)
    x <- sp$xtr
    y <- sp$ytr
    xt <- sp$xte
    yt <- sp$yte
    base <- if (d$family == "gaussian") sqrt(mean((yt - mean(y))^2))
            else mean((mean(y) > 0.5) == yt)
    cvg <- glmnet::cv.glmnet(x, y, family = d$family)
    pg <- predict(cvg, xt, s = "lambda.min", type = "response")
    glm_score <- if (d$family == "gaussian") sqrt(mean((yt - pg)^2))
                 else mean((pg > 0.5) == yt)
    for (eps in eps_grid) {
      delta <- 1 / length(y)
      row <- c(split = k, epsilon = eps, intercept_only = base,
               glmnet = glm_score)
      fit <- dpsco(x, y, family = d$family, epsilon = eps, delta = delta)
      row["default_clip"] <- score(fit, xt, yt, d$family)
      for (m in methods) {
        t0 <- proc.time()[["elapsed"]]
        fit <- dpsco(x, y, family = d$family, method = m, epsilon = eps,
                     delta = delta)
        row[m] <- score(fit, xt, yt, d$family)
        row[paste0(m, "_s")] <- proc.time()[["elapsed"]] - t0
      }
      rows[[length(rows) + 1L]] <- row
    }
  }
  tab <- as.data.frame(do.call(rbind, rows))
  agg <- stats::aggregate(. ~ epsilon, data = tab[, -1], FUN = mean)
  cat(sprintf("\n== %s: held-out %s, mean of %d splits (seconds per fit in *_s) ==\n",
              d$name, d$metric, splits))
  print(format(agg, digits = 4), row.names = FALSE)
}

miniature <- function(ns = c(2000, 8000, 32000), reps = 3, p = 5) {
  b <- c(1, -1, 0.5, rep(0, p - 2))  # intercept first
  gen <- function(n) {
    x <- matrix(exp(stats::rnorm(n * p, 0, 0.75)) *
                  sample(c(-1, 1), n * p, TRUE), n, p)
    list(x = x, y = drop(cbind(1, x) %*% b) + stats::rt(n, 2.5))
  }
  set.seed(7)
  test <- gen(2e5)
  risk <- function(coef) mean((test$y - cbind(1, test$x) %*% coef)^2) / 2
  rstar <- risk(b)
  out <- NULL
  for (n in ns) for (r in seq_len(reps)) {
    set.seed(100 * r + n)
    dat <- gen(n)
    best <- function(fit) {
      vals <- if (!is.null(fit$radius)) fit$radius else fit$lambda
      min(vapply(vals, function(v) risk(as.numeric(coef(fit, s = v))), 0)) - rstar
    }
    row <- c(n = n, nonprivate = risk(stats::coef(stats::lm(dat$y ~ dat$x))) - rstar,
             default_clip = best(dpsco(dat$x, dat$y, epsilon = 1)))
    for (m in methods) row[m] <- best(dpsco(dat$x, dat$y, method = m, epsilon = 1))
    out <- rbind(out, row)
  }
  agg <- stats::aggregate(. ~ n, data = as.data.frame(out), FUN = mean)
  cat("\n== miniature: excess risk (half squared error) vs n, epsilon = 1,",
      "log-normal features, t(2.5) noise, mean of", reps, "data sets ==\n")
  print(format(agg, digits = 3), row.names = FALSE)
}

real_data(load_data("blog"))
sat <- load_data("satellite")
if (!is.null(sat)) real_data(sat)
miniature()
