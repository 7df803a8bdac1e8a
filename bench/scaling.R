# bench/scaling.R -- time and peak memory of dpsco() as n and p grow
#
# What it measures
#   dpsco() with method "holland" and "clip", calibration = "paper", one
#   lambda (0.01), no intercept, m = n/5 and T = 25 (so T m / n = 5 passes
#   over the data), default step size 1/p; data x with iid U(-1, 1) entries
#   (a public bounded scale), y = x beta + t(2) errors, beta = (1, -1, ...
#   10 coefficients, then 0).
#     n-series: n = 1e4, 1e5, 1e6 at p = 50
#     p-series: p = 50, 158, 500 at n = 1e4
#   For every size and method:
#     * elapsed seconds of dpsco(), median of 3 runs (1 run when the first
#       one takes more than 5 s, e.g. holland at n >= 1e5, to keep the
#       script near 3 minutes; the reps column says how many), and of the C
#       engine alone (.Call of the internal
#       C_dpsco_fit with the settings dpsco() would pass; NA if the
#       internals change), to separate per-call R work (checks, privacy
#       record) from the streaming;
#     * peak extra memory: gc(reset = TRUE) before the call and gc() after;
#       extra = Vcells "max used" after minus Vcells "used" before, in MB,
#       and as a multiple of the size of x (8 n p bytes); the same for the
#       engine alone (engine_extra_over_x), which shows what the C side
#       allocates (its row-major copy of x and the row norms).
#   Growth exponent: least-squares slope of log(time) on log(n p) over all
#   five sizes per method (and separately over the n-series and the
#   p-series), for dpsco() and for the engine alone.
#
# Command (from the top of the source tree):
#   sh bench/install.sh       # once: HEAD, compiled from scratch, into /tmp/benchlib
#   R_LIBS=/tmp/benchlib Rscript bench/scaling.R
#   (needs ~2 GB of memory at n = 1e6: x is 400 MB)
#
# Targets: time exponent 1 +- 0.1 (dpsco() time vs n p);
#          peak extra memory <= 1.2 x the size of x.

suppressPackageStartupMessages(library(dpsco))

# the commit bench/install.sh installed, if it did
installed_commit <- function() {
  f <- system.file("BENCH_COMMIT", package = "dpsco")
  if (nzchar(f)) readLines(f)[1L] else "unknown (not installed by bench/install.sh)"
}

methods <- c("holland", "clip")
reps_max <- 3L
slow_s <- 5           # one run only when the first takes longer than this
lambda <- 0.01
epsilon <- 1
sizes <- data.frame(series = c("n", "n", "n", "p", "p"),
                    n = c(1e4, 1e5, 1e6, 1e4, 1e4),
                    p = c(50, 50, 50, 158, 500))
script_start <- proc.time()[["elapsed"]]

timed <- function(f) {
  invisible(gc(FALSE))
  t0 <- proc.time()
  f()
  (proc.time() - t0)[["elapsed"]]
}

# One call of f(): elapsed seconds and the peak extra Vcells memory (MB)
# beyond what was in use before it.  gc(reset = TRUE) and gc() sit outside
# the timed part.
timed_peak <- function(f) {
  before <- gc(reset = TRUE)
  t0 <- proc.time()
  f()
  t <- (proc.time() - t0)[["elapsed"]]
  after <- gc()
  c(t = t, mb = (after["Vcells", "max used"] - before["Vcells", "used"]) * 8 / 2^20)
}

engine_fun <- function(x, y, method, m, T) {
  tryCatch({
    n <- nrow(x); p <- ncol(x)
    K <- 1L
    delta <- 0.1 / n
    oracle <- dpsco:::oracle_setup(method, dpsco_control(), m, p,
                                   epsilon / K, delta / K)
    z <- dpsco:::paper_multiplier(method, epsilon / K, delta / K, oracle$k)
    settings <- c(oracle, list(
      family = 0L, intercept = 0L, noise_sd = z * oracle$sensitivity,
      steps = as.integer(T), step_size = 1 / p, sqrt_schedule = 0L,
      last_iterate = 0L, tail_average = 0L, alpha = 1, penalty_factor = rep(1, p), threads = 2L))
    beta0 <- rep(0, p)
    function() .Call(dpsco:::C_dpsco_fit, x, y, settings, lambda, beta0,
                     integer(0))
  }, error = function(e) NULL)
}

# warm-up: load the package's code before the first timed call
invisible(dpsco(matrix(runif(200), 100, 2), rnorm(100), lambda = lambda,
                intercept = FALSE, batch_size = 20, iterations = 2,
                calibration = "paper"))

rows <- list()
for (i in seq_len(nrow(sizes))) {
  n <- as.integer(sizes$n[i]); p <- as.integer(sizes$p[i])
  if (i == 4L) {   # the p-series starts from the n = 1e4, p = 50 point
    base <- rows[vapply(rows, function(r) r$n == 1e4 && r$p == 50, NA)]
    for (b in base) { b$series <- "p"; rows[[length(rows) + 1L]] <- b }
  }
  set.seed(20240501 + i)
  x <- matrix(runif(as.double(n) * p, -1, 1), n, p)
  beta <- c(rep(c(1, -1), 5), rep(0, p - 10))
  y <- drop(x %*% beta) + rt(n, df = 2)
  m <- n / 5
  T <- 25L
  for (method in methods) {
    fit_fun <- function() dpsco(x, y, method = method, epsilon = epsilon,
                                lambda = lambda, intercept = FALSE,
                                batch_size = m, iterations = T,
                                calibration = "paper")
    a <- timed_peak(fit_fun)             # first run: time and memory
    reps <- if (a[["t"]] > slow_s) 1L else reps_max
    tt <- c(a[["t"]], vapply(seq_len(reps - 1L), function(r) timed(fit_fun), 0))
    eng <- engine_fun(x, y, method, m, T)
    e <- if (is.null(eng)) NULL
         else tryCatch(timed_peak(eng), error = function(err) NULL)
    if (is.null(e)) {
      te <- NA_real_
      emem <- NA_real_
    } else {
      te <- median(c(e[["t"]], vapply(seq_len(reps - 1L), function(r) timed(eng), 0)))
      emem <- e[["mb"]]
    }
    rows[[length(rows) + 1L]] <- list(
      series = sizes$series[i], method = method, n = n, p = p,
      reps = reps, dpsco_s = median(tt), engine_s = te,
      x_mb = 8 * as.double(n) * p / 2^20, peak_extra_mb = a[["mb"]],
      engine_peak_mb = emem)
    cat(sprintf("  done %s n = %g p = %d: %.3f s (%.0f s into the script)\n",
                method, n, p, median(tt),
                proc.time()[["elapsed"]] - script_start))
  }
  rm(x, y)
  invisible(gc())
}
res <- do.call(rbind, lapply(rows, as.data.frame, stringsAsFactors = FALSE))
res$ns_per_elem_pass <- 1e9 * res$dpsco_s / (res$n * res$p * 5)
res$engine_ns_per_elem_pass <- 1e9 * res$engine_s / (res$n * res$p * 5)
res$mem_ratio <- res$peak_extra_mb / res$x_mb

cat(sprintf("dpsco %s, commit %s\n", utils::packageVersion("dpsco"), installed_commit()))
cat(sprintf(paste0("\ndpsco() scaling: calibration = \"paper\", one lambda, m = n/5, T = 25 ",
                   "(5 passes), no intercept; elapsed seconds (R %s, %s)\n"),
            getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M")))
fmt <- data.frame(
  series = res$series, method = res$method, n = format(res$n, scientific = TRUE),
  p = res$p, reps = res$reps,
  dpsco_s = sprintf("%.3f", res$dpsco_s), engine_s = sprintf("%.3f", res$engine_s),
  ns_elem_pass = sprintf("%.2f", res$ns_per_elem_pass),
  engine_ns = sprintf("%.2f", res$engine_ns_per_elem_pass),
  x_MB = sprintf("%.1f", res$x_mb), peak_extra_MB = sprintf("%.1f", res$peak_extra_mb),
  extra_over_x = sprintf("%.2f", res$mem_ratio),
  engine_extra_over_x = sprintf("%.2f", res$engine_peak_mb / res$x_mb),
  mem_target = ifelse(res$mem_ratio <= 1.2, "MET", "NOT MET"))
print(fmt, row.names = FALSE, right = TRUE)
cat("(ns_elem_pass = seconds / (n p x 5 passes); peak_extra_MB = Vcells max used after",
    "minus used before, dpsco(); extra_over_x = peak_extra_MB / x_MB;",
    "engine_extra_over_x: the same for the C engine alone)\n")

slope <- function(t, np) unname(coef(lm(log(t) ~ log(np)))[2])
cat("\nGrowth exponent of time vs n p (least squares on log-log)\n")
ex <- list()
for (method in methods) {
  r <- res[res$method == method, ]
  all <- r[!duplicated(paste(r$n, r$p)), ]
  for (what in c("dpsco_s", "engine_s")) {
    ex[[length(ex) + 1L]] <- data.frame(
      method = method, time = if (what == "dpsco_s") "dpsco()" else "engine",
      all_5_sizes = slope(all[[what]], all$n * all$p),
      n_series = slope(r[[what]][r$series == "n"], (r$n * r$p)[r$series == "n"]),
      p_series = slope(r[[what]][r$series == "p"], (r$n * r$p)[r$series == "p"]),
      stringsAsFactors = FALSE)
  }
}
ex <- do.call(rbind, ex)
ex$target <- ifelse(ex$time == "dpsco()",
                    ifelse(abs(ex$all_5_sizes - 1) <= 0.1, "MET", "NOT MET"), "-")
num <- c("all_5_sizes", "n_series", "p_series")
ex[num] <- lapply(ex[num], function(v) sprintf("%.3f", v))
print(ex, row.names = FALSE, right = TRUE)

cat("\nTargets: exponent 1 +- 0.1 (dpsco() time, all sizes):",
    paste(sprintf("%s %s", ex$method[ex$time == "dpsco()"],
                  ex$target[ex$time == "dpsco()"]), collapse = ", "), "\n")
cat("         peak extra memory <= 1.2 x size of x:",
    sprintf("%d of %d rows met; worst %.2fx", sum(res$mem_ratio <= 1.2),
            nrow(res), max(res$mem_ratio)), "\n")
cat(sprintf("Script time %.0f s\n", proc.time()[["elapsed"]] - script_start))
