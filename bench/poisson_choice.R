# bench/poisson_choice.R -- does cv.dpsco()'s private choice see a clear
# Poisson signal?  (issue 50)
#
# A two-slope Poisson model, y ~ Poisson(exp(0.5 + a - 0.7 b)) with a, b
# uniform on [-1, 1], n = 4000 training records and as many test records,
# epsilon 1, 12 seeds; and the same with no slope (no signal).  For each
# clamp of the per-record deviance (`loss_bound`; NA: the package's
# default, 2 (log 4 - 3/4) B for a released bound B on y, since 0.23.0,
# about 30 here; 0.22.0's was 2 log(1000) B, about 330, and gave the
# trivial model in 5 of 12 seeds, test gain 0.24), it
# counts how often the choice is the intercept-only model and the test
# gain 1 - deviance / deviance of the training mean.
#   R_LIBS=/tmp/benchlib Rscript bench/poisson_choice.R     # about 4 min
suppressPackageStartupMessages(library(dpsco))
n <- 4000
dev <- function(y, mu) 2 * mean(ifelse(y > 0, y * log(y / mu), 0) - (y - mu))
make <- function(s, slope) {
  set.seed(100 + s)
  d <- data.frame(a = runif(2 * n, -1, 1), b = runif(2 * n, -1, 1))
  d$y <- rpois(2 * n, exp(0.5 + slope * (d$a - 0.7 * d$b)))
  d
}
for (slope in c(1, 0)) for (lb in c(NA, 442, 100, 30)) {
  res <- t(sapply(1:12, function(s) {
    d <- make(s, slope)
    x <- as.matrix(d[1:n, 1:2]); y <- d$y[1:n]
    xt <- as.matrix(d[-(1:n), 1:2]); yt <- d$y[-(1:n)]
    f <- if (is.na(lb)) cv.dpsco(x, y, family = "poisson", epsilon = 1)
         else cv.dpsco(x, y, family = "poisson", epsilon = 1, loss_bound = lb)
    mu <- predict(f, xt, s = "lambda.min", type = "response")
    c(trivial = f$index == 1, gain = 1 - dev(yt, mu) / dev(yt, mean(y)),
      bound = f$loss_bound)
  }))
  cat(sprintf("%-9s loss_bound %-8s (mean %6.1f): trivial chosen %2d / 12, test gain mean %.3f (min %.3f)\n",
              if (slope) "signal" else "no signal", if (is.na(lb)) "default" else format(lb),
              mean(res[, 3]), sum(res[, 1]), mean(res[, 2]), min(res[, 2])))
}
