# bench/wang.R -- the methods of Wang, Xiao, Devadas and Xu (2020):
# "bun_steinke" (Algorithms 2-3) and "sample_aggregate" (Algorithm 1), on
# the raw blog data (test RMSE) and Satellite (test accuracy), 3 random
# 80/20 splits, delta = 1 / n_train, epsilon 0.5 and 2, private tuning and
# one radius (the default); against the intercept-only model and glmnet
# (cv.glmnet, lambda.min).  Then Wang et al.'s synthetic experiment in
# miniature (d = 10, log-normal noise, ridge; parameter error), with
# Algorithm 4 (method "holland", full batch) and the non-private RGD.
# Run from the package root: Rscript bench/wang.R

suppressPackageStartupMessages(library(dpsco))
source("bench/data.R")

score <- function(dat, pred, y) {
  if (dat$family == "gaussian") sqrt(mean((y - pred)^2))
  else mean((pred > 0.5) == (y == 1))
}

try_fit <- function(expr) tryCatch(expr, dpsco_arg_error = function(e) e)

bench_real <- function(dat) {
  rows <- list()
  for (split in 1:3) {
    sp <- split_data(dat, 100 + split)
    xtr <- sp$xtr
    ytr <- sp$ytr
    xte <- sp$xte
    yte <- sp$yte
    delta <- sp$delta
    base <- if (dat$family == "gaussian") mean(ytr) else as.numeric(mean(ytr) > 0.5)
    rows[[length(rows) + 1]] <- data.frame(split = split, method = "intercept only",
                                           epsilon = NA, value = score(dat, rep(base, length(yte)), yte),
                                           note = "")
    if (requireNamespace("glmnet", quietly = TRUE)) {
      cv <- glmnet::cv.glmnet(xtr, ytr, family = dat$family)
      pr <- drop(predict(cv, xte, s = "lambda.min", type = "response"))
      rows[[length(rows) + 1]] <- data.frame(split = split, method = "glmnet (non-private)",
                                             epsilon = NA, value = score(dat, pr, yte), note = "")
    }
    for (eps in c(0.5, 2)) for (method in c("bun_steinke", "sample_aggregate")) {
      t0 <- proc.time()[["elapsed"]]
      fit <- try_fit(dpsco(xtr, ytr, family = dat$family, method = method,
                           epsilon = eps, delta = delta, nlambda = 1))
      el <- proc.time()[["elapsed"]] - t0
      if (inherits(fit, "error")) {
        rows[[length(rows) + 1]] <- data.frame(split = split, method = method, epsilon = eps,
                                               value = NA, note = substr(conditionMessage(fit), 1, 110))
      } else {
        pr <- drop(predict(fit, xte, type = "response"))
        rows[[length(rows) + 1]] <- data.frame(
          split = split, method = method, epsilon = eps, value = score(dat, pr, yte),
          note = sprintf("%.1f s, accounted eps %.3f", el, fit$privacy$epsilon_accounted))
      }
    }
  }
  do.call(rbind, rows)
}

summarise <- function(tab, metric) {
  agg <- aggregate(value ~ method + epsilon, data = transform(tab, epsilon = ifelse(is.na(epsilon), -1, epsilon)),
                   FUN = function(v) c(mean = mean(v), sd = sd(v)), na.action = na.pass)
  agg$epsilon[agg$epsilon < 0] <- NA
  out <- data.frame(method = agg$method, epsilon = agg$epsilon,
                    mean = signif(agg$value[, "mean"], 4), sd = signif(agg$value[, "sd"], 3))
  names(out)[3] <- paste("mean", metric)
  out
}

for (name in c("blog", "satellite")) {
  dat <- load_data(name)
  if (is.null(dat)) { cat("skipping", name, "(mlbench missing)\n"); next }
  cat(sprintf("\n== %s (n = %d, p = %d): test %s over 3 splits ==\n", name,
              nrow(dat$x), ncol(dat$x), dat$metric))
  tab <- bench_real(dat)
  print(summarise(tab, dat$metric), row.names = FALSE)
  notes <- unique(tab[nzchar(tab$note), c("method", "epsilon", "note")])
  cat("notes (first split):\n")
  print(notes[!duplicated(notes[, 1:2]), ], row.names = FALSE, right = FALSE)
}

# ---------------------------------------------------------------------------
# Wang et al.'s synthetic ridge experiment in miniature: n = 1e5, d = 10,
# centred log-normal noise; error ||w - w*|| of the last iterate after 30
# full-batch steps of size 1, no intercept; 3 repetitions.
cat("\n== synthetic (seed Section 6): n = 1e5, d = 10, log-normal noise; ||w - w*|| ==\n")
syn <- list()
for (rep in 1:3) {
  set.seed(500 + rep)
  n <- 1e5
  d <- 10
  w_star <- rep(c(1, -1), 5) / sqrt(d)
  x <- matrix(runif(n * d, -1, 1), n, d)
  y <- drop(x %*% w_star) + rlnorm(n) - exp(0.5)
  s <- sqrt(n / (2 * log(1 / 0.05)))
  err <- function(w) sqrt(sum((w - w_star)^2))
  hol <- function(eps) {
    f <- dpsco(x, y, method = "holland", tuning = "public", batch_size = n,
               lambda = 0, iterations = 30, step_size = 1, intercept = FALSE,
               epsilon = eps, delta = 1 / n,
               control = dpsco_control(s = s, nu = log(1 / 0.05), output = "last"))
    err(as.numeric(f$beta[, 1]))
  }
  syn[[length(syn) + 1]] <- data.frame(method = "RGD (non-private)", epsilon = NA, error = hol(1e9))
  for (eps in c(0.5, 1)) {
    syn[[length(syn) + 1]] <- data.frame(method = "Algorithm 4 (holland, full batch)",
                                         epsilon = eps, error = hol(eps))
    f3 <- dpsco(x, y, method = "bun_steinke", tuning = "public", radius = 3,
                iterations = 30, intercept = FALSE, epsilon = eps, delta = 1 / n,
                control = dpsco_control(mean_range = c(-1, 1), gd_step = 1))
    syn[[length(syn) + 1]] <- data.frame(method = "Algorithm 3 (bun_steinke, kappa = 2)",
                                         epsilon = eps, error = err(f3$beta[, 1]))
    fa <- try_fit(dpsco(x, y, method = "sample_aggregate", tuning = "public",
                        radius = 3, intercept = FALSE, epsilon = eps, delta = 1 / n))
    syn[[length(syn) + 1]] <- data.frame(
      method = "Algorithm 1 (sample_aggregate)", epsilon = eps,
      error = if (inherits(fa, "error")) NA else err(fa$beta[, 1]))
  }
}
syn <- do.call(rbind, syn)
syn$epsilon[is.na(syn$epsilon)] <- -1
agg <- aggregate(error ~ method + epsilon, data = syn, FUN = function(v) signif(mean(v), 3))
agg$epsilon[agg$epsilon < 0] <- NA
print(agg, row.names = FALSE)
