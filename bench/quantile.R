# bench/quantile.R -- held-out check loss of private quantile regression
#
# What it measures
#   1. blog: dpsco::blog as a user passes it (the 280 raw features, y =
#      comments_next24h, 64% zeros and a tail to 1424), tau in {0.5, 0.9},
#      epsilon in {0.5, 2}, delta = 1 / n_train, splits 80/20 with seeds
#      1..N (default 3).  Test-set mean check loss of
#        intercept      the training tau-quantile (non-private)
#        conquer        conquer::conquer() at its default bandwidth
#                       (non-private; constant training columns dropped)
#        default        dpsco(family = "quantile") with every default: the
#                       last (least penalised) fit of the path
#        path best      the same path at the lambda best ON THE TEST SET
#                       (optimistic)
#        cv             cv.dpsco(family = "quantile"): lambda chosen
#                       privately (the package's workflow, honest)
#        objective      dpsco(method = "objective") on its default radii,
#                       the radius best on the test set (optimistic)
#        objective Inf  the poster's unconstrained objective perturbation
#                       (radius = Inf; its theorem needs epsilon < 1, so
#                       epsilon = 0.5 only)
#   2. The poster's d = 3 experiment in miniature: y = 10 + 5 x1 - 2 x2 +
#      N(0, 9), x ~ N(0, diag(2, 3)), tau = 0.7, delta = 0.01, epsilon =
#      0.8: excess check-loss risk (on 20,000 test records) of gradient
#      perturbation (dpsco, lambda = 1e-4, 8 steps) and objective
#      perturbation (radius Inf) against n, median of 5 runs.
#
# Settings (environment variables): DPSCO_BENCH_SPLITS (default 3),
#   DPSCO_BENCH_EPS (default 0.5,2), DPSCO_BENCH_TAU (default 0.5,0.9),
#   DPSCO_BENCH_CONQUER (default true; about a minute per fit).
#
# Command (from the top of the source tree):
#   sh bench/install.sh       # once
#   R_LIBS=/tmp/benchlib Rscript bench/quantile.R

suppressPackageStartupMessages(library(dpsco))
options(width = 150)

env_num <- function(name, default)
  as.numeric(strsplit(Sys.getenv(name, default), ",", fixed = TRUE)[[1L]])
n_splits <- as.integer(Sys.getenv("DPSCO_BENCH_SPLITS", "3"))
eps_grid <- env_num("DPSCO_BENCH_EPS", "0.5,2")
tau_grid <- env_num("DPSCO_BENCH_TAU", "0.5,0.9")
use_conquer <- Sys.getenv("DPSCO_BENCH_CONQUER", "true") == "true" &&
  requireNamespace("conquer", quietly = TRUE)

script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
source(file.path(script_dir, "data.R"))

check_loss <- function(pred, y, tau) {
  u <- y - as.matrix(pred)
  colMeans(u * (tau - (u < 0)))
}
try_loss <- function(expr) {
  tryCatch(expr, error = function(e) {
    message("  error: ", conditionMessage(e))
    NA_real_
  })
}

dat <- load_data("blog")
rows <- list()
add <- function(...) rows[[length(rows) + 1L]] <<- data.frame(...)
for (s in seq_len(n_splits)) {
  sp <- split_data(dat, s)
  xtr <- sp$xtr
  ytr <- sp$ytr
  xte <- sp$xte
  yte <- sp$yte
  delta <- sp$delta
  for (tau in tau_grid) {
    add(split = s, tau = tau, epsilon = NA, row = "intercept",
        loss = check_loss(rep(stats::quantile(ytr, tau, names = FALSE),
                              length(yte)), yte, tau))
    if (use_conquer) {
      keep <- apply(xtr, 2L, stats::sd) > 0
      cq <- conquer::conquer(xtr[, keep], ytr, tau = tau)
      add(split = s, tau = tau, epsilon = NA, row = "conquer",
          loss = check_loss(cbind(1, xte[, keep]) %*% cq$coeff, yte, tau))
    }
    for (eps in eps_grid) {
      set.seed(100 * s + 10 * eps)
      fit <- dpsco(xtr, ytr, family = "quantile", tau = tau, epsilon = eps,
                   delta = delta)
      l <- check_loss(predict(fit, xte), yte, tau)
      add(split = s, tau = tau, epsilon = eps, row = "default",
          loss = l[length(l)])
      add(split = s, tau = tau, epsilon = eps, row = "path best", loss = min(l))
      add(split = s, tau = tau, epsilon = eps, row = "cv", loss = try_loss({
        cv <- cv.dpsco(xtr, ytr, family = "quantile", tau = tau,
                       epsilon = eps, delta = delta)
        check_loss(predict(cv, xte), yte, tau)
      }))
      add(split = s, tau = tau, epsilon = eps, row = "objective",
          loss = try_loss(min(check_loss(predict(
            dpsco(xtr, ytr, family = "quantile", tau = tau,
                  method = "objective", epsilon = eps, delta = delta),
            xte), yte, tau))))
      if (eps < 1)
        add(split = s, tau = tau, epsilon = eps, row = "objective Inf",
            loss = try_loss(check_loss(predict(
              dpsco(xtr, ytr, family = "quantile", tau = tau,
                    method = "objective", radius = Inf, epsilon = eps,
                    delta = delta), xte), yte, tau)))
    }
  }
}
res <- do.call(rbind, rows)
res$epsilon[is.na(res$epsilon)] <- 0
tab <- stats::aggregate(loss ~ tau + epsilon + row, res, mean)
tab <- tab[order(tab$tau, tab$epsilon, tab$row), ]
tab$epsilon[tab$epsilon == 0] <- NA
cat(sprintf("blog (raw), mean test check loss over %d splits (80/20, delta = 1/n_train)\n",
            n_splits))
print(tab, row.names = FALSE, digits = 4)

# ---------------------------------------------------------------------------
# The poster's d = 3 experiment
tau <- 0.7
sim3 <- function(n) {
  x <- cbind(stats::rnorm(n, 0, sqrt(2)), stats::rnorm(n, 0, sqrt(3)))
  list(x = x, y = drop(10 + x %*% c(5, -2)) + stats::rnorm(n, 0, 3),
       truth = c(10 + 3 * stats::qnorm(tau), 5, -2))
}
set.seed(1)
test <- sim3(20000)
risk <- function(b) {
  u <- test$y - drop(cbind(1, test$x) %*% b)
  mean(u * (tau - (u < 0)))
}
excess <- function(b) risk(b) - risk(test$truth)
ns <- c(500, 1000, 2000, 4000, 8000, 16000)
set.seed(2)
sim <- sapply(ns, function(n) apply(replicate(5, {
  d <- sim3(n)
  gp <- dpsco(d$x, d$y, family = "quantile", tau = tau, epsilon = 0.8,
              delta = 0.01, lambda = 1e-4, iterations = 8)
  op <- dpsco(d$x, d$y, family = "quantile", tau = tau, method = "objective",
              radius = Inf, epsilon = 0.8, delta = 0.01)
  c(gradient = excess(coef(gp)[, 1]), objective = excess(coef(op)[, 1]),
    intercept = excess(c(stats::quantile(d$y, tau, names = FALSE), 0, 0)))
}), 1, stats::median))
colnames(sim) <- ns
cat("\nseed d = 3 design, tau = 0.7, epsilon = 0.8, delta = 0.01: median excess risk of 5 runs\n")
print(signif(sim, 3))
