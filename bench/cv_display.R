# bench/cv_display.R -- is the released validation curve of cv.dpsco()
# worth drawing, and is what it displays ever a negative loss?
#
# What it measures (blog, epsilon = 1, the default method and delta)
#   Data: dpsco::blog as bench/utility.R passes it (x = the 280 raw
#   features, y = comments_next24h), split as there: for split s,
#   set.seed(s) and the training rows are sample.int(n, round(0.7 * n)).
#   cv.dpsco() runs on the training rows only.
#   1. Signal against noise, splits s = 1..DPSCO_BENCH_SPLITS:
#        cvfit <- cv.dpsco(x_train, y_train, epsilon = 1, curve = 0.25)
#      after set.seed(1000 + s).  The true (non-private) validation curve
#      is recomputed here, not in the package: the coins of the split are
#      replayed from the same seed (each record in the validation part
#      with probability 0.2), every validation record's squared error is
#      clamped to cvfit$loss_bound as cv.dpsco() does, and the sums are
#      divided by the public expected size cvfit$n_hold.  Its spread is
#      max - min over the penalties.  Against it: the noise sd of the
#      curve, z * loss_bound * sqrt(K) / n_hold with z the multiplier of a
#      Gaussian release at (curve * epsilon, delta), for curve shares
#      0.25 (the former default), 0.5, 0.75, 0.9 and 0.99 (0.99 leaves the
#      choice almost nothing: the least noise any share can give).
#      The sd at 0.25 is checked against cvfit$cvsd.
#   2. The display, DPSCO_BENCH_RUNS runs (default 100) on split 1 with
#      set.seed(r), r = 1..runs, curve = 0.25: how often the raw Gaussian
#      release (cvfit$cvm_noisy) has a negative value, and how often what
#      is displayed (cvfit$cvm, cvlo, cvup, plotted by plot(cvfit); the
#      Measure column of print(cvfit), parsed from its output) does.
#      Target: never.
#
# Settings (environment variables):
#   DPSCO_BENCH_SPLITS  splits for part 1 (default 3)
#   DPSCO_BENCH_RUNS    runs for part 2 (default 100)
#   About 3 to 6 s per cv.dpsco() on 2 shared cores: 6 to 10 minutes by default.
#
# Command (from the top of the source tree):
#   sh bench/install.sh       # once: HEAD, compiled from scratch, into /tmp/benchlib
#   R_LIBS=/tmp/benchlib Rscript bench/cv_display.R

suppressPackageStartupMessages(library(dpsco))
options(width = 120)
script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
source(file.path(script_dir, "data.R"))

n_splits <- as.integer(Sys.getenv("DPSCO_BENCH_SPLITS", "3"))
n_runs <- as.integer(Sys.getenv("DPSCO_BENCH_RUNS", "100"))
eps <- 1
holdout <- 0.2
shares <- c(0.25, 0.5, 0.75, 0.9, 0.99)
start <- proc.time()[["elapsed"]]

ds <- load_data("blog")
n <- nrow(ds$x)
train_split <- function(s) {
  set.seed(s)
  tr <- sample.int(n, round(0.7 * n))
  list(x = ds$x[tr, , drop = FALSE], y = ds$y[tr])
}

# ---- 1. noise sd against the spread of the true validation losses --------
cat(sprintf("blog, epsilon = %g, holdout = %g, default method and delta\n\n",
            eps, holdout))
rows <- list()
for (s in seq_len(n_splits)) {
  d <- train_split(s)
  set.seed(1000 + s)
  cvfit <- cv.dpsco(d$x, d$y, epsilon = eps, curve = 0.25)
  set.seed(1000 + s)
  val <- stats::runif(nrow(d$x)) < holdout
  pred <- predict(cvfit$dpsco.fit, d$x[val, , drop = FALSE], type = "response")
  true <- colSums(pmin((d$y[val] - pred)^2, cvfit$loss_bound)) / cvfit$n_hold
  delta <- privacy(cvfit)$delta
  K <- length(cvfit$lambda)
  sens <- cvfit$loss_bound * sqrt(K) / cvfit$n_hold
  sd_share <- vapply(shares, function(sh)
    dp_noise_multiplier(sh * eps, delta, 1, 1) * sens, 0)
  stopifnot(isTRUE(all.equal(sd_share[1], unname(cvfit$cvsd), tolerance = 1e-6)))
  rows[[s]] <- data.frame(split = s, K = K, loss_bound = cvfit$loss_bound,
                          true_min = min(true), true_max = max(true),
                          spread = diff(range(true)),
                          t(stats::setNames(sd_share, paste0("sd_", shares))),
                          check.names = FALSE)
}
tab <- do.call(rbind, rows)
cat("True clamped validation MSE over the penalties and the curve's noise sd",
    "by curve share:\n")
print(format(tab, digits = 4), row.names = FALSE)
cat(sprintf(paste("\nRatio noise sd / spread (mean over splits): %s\n",
                  "Smallest ratio over the splits at share 0.99: %.2f\n"),
            paste(sprintf("%s: %.2f", shares,
                          colMeans(tab[, paste0("sd_", shares)] / tab$spread)),
                  collapse = ", "),
            min(tab[["sd_0.99"]] / tab$spread)))

# ---- 2. is a displayed loss ever negative? --------------------------------
d <- train_split(1)
neg_raw <- neg_shown <- neg_printed <- 0L
min_raw <- Inf
for (r in seq_len(n_runs)) {
  set.seed(r)
  cvfit <- cv.dpsco(d$x, d$y, epsilon = eps, curve = 0.25)
  min_raw <- min(min_raw, cvfit$cvm_noisy)
  neg_raw <- neg_raw + any(cvfit$cvm_noisy < 0)
  neg_shown <- neg_shown + any(c(cvfit$cvm, cvfit$cvlo, cvfit$cvup) < 0)
  out <- utils::capture.output(print(cvfit))
  row <- grep("^private choice", out, value = TRUE)
  hdr <- out[grep("^private choice", out) - 1L]
  fields <- strsplit(trimws(sub("^private choice", "", row)), " +")[[1]]
  measure <- as.numeric(fields[match("Measure", strsplit(trimws(hdr), " +")[[1]])])
  neg_printed <- neg_printed + (measure < 0)
}
cat(sprintf(paste("\n%d runs (split 1, curve = 0.25): raw Gaussian release",
                  "negative somewhere in %d runs (lowest value %.1f);",
                  "displayed curve or bars negative in %d runs; printed",
                  "Measure negative in %d runs\n"),
            n_runs, neg_raw, min_raw, neg_shown, neg_printed))
cat(sprintf("Script time %.0f s\n", proc.time()[["elapsed"]] - start))
