# Subsampled private settings (R/settings.R settings_subsample()): what
# they cost in utility and what they save in time.
#
#   R_LIBS=/tmp/benchlib Rscript bench/subsample.R [sections]
#
# sections (default "sim,blog,big"):
#   sim   a simulated heavy-tailed set in memory: n = DPSCO_SUB_N (default
#         2e6) training records, p = 50, x ~ t(3), y = x beta + t(2)
#         noise, beta = (1, -1, ...) on 10 columns; 1e5 test records.
#         Default dpsco(x, y, epsilon = 1) with the settings subsampled
#         (options(dpsco.settings_subsample = TRUE): m = 2^18, forced below
#         the rule's threshold 2^20; or DPSCO_SUB_M records) against the
#         full passes (FALSE), the
#         same seed for both, over DPSCO_SUB_SEEDS (default 3) seeds: test
#         RMSE at the path's last lambda and at the best one, the
#         difference per seed against the spread over seeds.
#   blog  raw BlogFeedback (dpsco::blog, the 280 raw features, 70% split as
#         bench/utility.R), epsilon = 1, forced subsample (m = n / 4, as
#         TRUE gives below 4 m) against full passes, DPSCO_SUB_SEEDS splits.
#   big   a file-backed bigmemory x (n = DPSCO_BENCH_BIG_N, default 2e6,
#         p = 50, uniform x as bench/scaling.R --big), elapsed seconds of
#         the default private fit dpsco(xb, y, nlambda = 2, iterations =
#         5) with the rule (at n >= 2^20: subsampled), forced on, and
#         forced off, against the public fit with the same steps (clip,
#         2 lambdas x 5 full-batch steps), in one process, and the peak
#         RssAnon of each (MB, /proc/self/status sampled every 0.05 s by a
#         background shell); the fastest of DPSCO_SUB_ROUNDS (default 2)
#         interleaved rounds.  Then a profile of the subsampled private fit
#         (Rprof, by function).  DPSCO_BENCH_BIG_N=2e7 is the issue's case
#         (a 8 GB file under /tmp).
script_start <- proc.time()[["elapsed"]]
suppressMessages(library(dpsco))
`%||%` <- function(a, b) if (is.null(a)) b else a
cli <- commandArgs(TRUE)
sections <- if (length(cli)) strsplit(cli[1L], ",")[[1L]] else c("sim", "blog", "big")
seeds <- as.integer(Sys.getenv("DPSCO_SUB_SEEDS", "3"))
# the forced subsample of sections sim and blog: TRUE (m = 2^18, at most
# n / 4) or DPSCO_SUB_M records (e.g. 2^15 at n = 2e6 puts q where the
# rule puts it at n = 2e7, 2^18 / 2e7, with 8 times fewer records)
sub_m <- if (nzchar(Sys.getenv("DPSCO_SUB_M"))) as.numeric(Sys.getenv("DPSCO_SUB_M")) else TRUE
cat(sprintf("dpsco %s; R %s; %s; %d threads\n", utils::packageVersion("dpsco"),
            getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M"),
            dpsco:::max_threads()))

# test RMSE at the path's last lambda and at its best one (against y, and
# against the noise-free mean where it is known: t(2) test noise has no
# variance, and its few huge errors dominate the RMSE against y)
rmse <- function(fit, x, y) {
  pred <- predict(fit, x)
  e <- unname(sqrt(colMeans((pred - y)^2)))
  c(last = e[length(e)], best = min(e))
}

with_sub <- function(value, expr) {
  old <- options(dpsco.settings_subsample = value)
  on.exit(options(old))
  expr
}

compare <- function(label, make) {
  rows <- lapply(seq_len(seeds), function(s) {
    d <- make(s)
    set.seed(100 + s)
    t_sub <- system.time(f_sub <- with_sub(sub_m, dpsco(d$x, d$y, epsilon = 1)))
    set.seed(100 + s)
    t_full <- system.time(f_full <- with_sub(FALSE, dpsco(d$x, d$y, epsilon = 1)))
    target <- d$mt %||% d$yt
    r_sub <- rmse(f_sub, d$xt, target)
    r_full <- rmse(f_full, d$xt, target)
    data.frame(data = label, seed = s, n = nrow(d$x),
               q = privacy(f_sub)$shares$sample_rate[1],
               rmse_sub_last = r_sub[["last"]], rmse_full_last = r_full[["last"]],
               rmse_sub_best = r_sub[["best"]], rmse_full_best = r_full[["best"]],
               s_sub = t_sub[["elapsed"]], s_full = t_full[["elapsed"]])
  })
  tab <- do.call(rbind, rows)
  print(format(tab, digits = 4), row.names = FALSE)
  dl <- tab$rmse_sub_last - tab$rmse_full_last
  db <- tab$rmse_sub_best - tab$rmse_full_best
  cat(sprintf(paste0("%s: RMSE subsampled - full: last lambda mean %.4g (sd %.3g); ",
                     "best lambda mean %.4g (sd %.3g); spread over seeds of the full ",
                     "fits' RMSE (sd): last %.3g, best %.3g\n"),
              label, mean(dl), stats::sd(dl), mean(db), stats::sd(db),
              stats::sd(tab$rmse_full_last), stats::sd(tab$rmse_full_best)))
  invisible(tab)
}

if ("sim" %in% sections) {
  n <- as.integer(as.numeric(Sys.getenv("DPSCO_SUB_N", "2e6")))
  p <- 50L
  cat(sprintf("\n==== Simulated: n = %d, p = %d, t(3) x, t(2) noise ====\n", n, p))
  beta <- c(rep(c(1, -1), 5), rep(0, p - 10))
  compare("sim", function(s) {
    set.seed(20261200 + s)
    x <- matrix(stats::rt(as.double(n) * p, df = 3), n, p)
    xt <- matrix(stats::rt(1e5 * p, df = 3), 1e5, p)
    # (RMSE against the test set's noise-free mean x beta)
    list(x = x, y = drop(x %*% beta) + stats::rt(n, df = 2),
         xt = xt, mt = drop(xt %*% beta))
  })
}

if ("blog" %in% sections) {
  cat("\n==== Raw BlogFeedback (280 raw features), epsilon = 1, 70% splits ====\n")
  b <- dpsco::blog
  yb <- b$comments_next24h
  xb <- as.matrix(b[, setdiff(names(b), "comments_next24h")])
  compare("blog", function(s) {
    set.seed(s)
    tr <- sample(nrow(xb), round(0.7 * nrow(xb)))
    list(x = xb[tr, ], y = yb[tr], xt = xb[-tr, ], yt = yb[-tr])
  })
}

# peak RssAnon (MB) of this process while f() runs, and f's elapsed seconds
peak_rss <- function(f) {
  file <- tempfile("rss")
  cmd <- sprintf("while :; do grep '^RssAnon:' /proc/%d/status >> %s; sleep 0.05; done",
                 Sys.getpid(), file)
  pid <- as.integer(system(sprintf("sh -c %s > /dev/null 2>&1 & echo $!",
                                   shQuote(cmd)), intern = TRUE))
  on.exit(tools::pskill(pid))
  invisible(gc())
  t <- system.time(out <- f())[["elapsed"]]
  tools::pskill(pid)
  v <- as.numeric(sub("^RssAnon:[[:space:]]+([0-9]+).*", "\\1", readLines(file)))
  unlink(file)
  list(fit = out, elapsed = t, rss = max(v, 0) / 1024)
}

if ("big" %in% sections) {
  n <- as.integer(as.numeric(Sys.getenv("DPSCO_BENCH_BIG_N", "2e6")))
  p <- 50L
  cat(sprintf("\n==== File-backed x: n = %d, p = %d (%.1f GB) ====\n", n, p, 8 * n * p / 1e9))
  dir <- tempfile("dpsco_sub_", tmpdir = "/tmp")
  dir.create(dir)
  xb <- bigmemory::filebacked.big.matrix(n, p, type = "double",
                                         backingfile = "x.bin",
                                         descriptorfile = "x.desc",
                                         backingpath = dir)
  on.exit({ rm(xb); invisible(gc()); unlink(dir, recursive = TRUE) }, add = TRUE)
  beta <- c(rep(c(1, -1), 5), rep(0, p - 10))
  y <- numeric(n)
  set.seed(20240601)
  for (s in seq(1, n, by = 1e6)) {
    e <- min(n, s + 1e6 - 1)
    b <- matrix(stats::runif((e - s + 1) * p, -1, 1), ncol = p)
    xb[s:e, ] <- b
    y[s:e] <- drop(b %*% beta) + stats::rt(e - s + 1, df = 2)
  }
  rm(b)
  bigmemory::flush(xb)
  private <- function(value) function() with_sub(value, {
    set.seed(1)
    dpsco(xb, y, nlambda = 2, iterations = 5)
  })
  fits <- list(
    public = function() {
      set.seed(1)
      dpsco(xb, y, method = "clip", tuning = "public", lambda = c(0.02, 0.01),
            batch_size = n, iterations = 5, epsilon = 1)
    },
    private_rule = private(NULL), private_subsampled = private(TRUE),
    private_full = private(FALSE))
  # interleaved rounds (the first warms the page cache and the mapping);
  # each fit's fastest round, with the peak memory of that round
  rounds <- as.integer(Sys.getenv("DPSCO_SUB_ROUNDS", "2"))
  runs <- list()
  for (k in seq_len(rounds)) for (nm in names(fits)) {
    r <- peak_rss(fits[[nm]])
    if (is.null(runs[[nm]]) || r$elapsed < runs[[nm]]$elapsed) runs[[nm]] <- r
  }
  tab <- data.frame(fit = names(runs),
                    elapsed_s = vapply(runs, `[[`, 0, "elapsed"),
                    over_public = vapply(runs, `[[`, 0, "elapsed") / runs$public$elapsed,
                    RssAnon_peak_MB = vapply(runs, `[[`, 0, "rss"),
                    settings_q = vapply(runs, function(r)
                      privacy(r$fit)$shares$sample_rate[1], 0))
  print(format(tab, digits = 3), row.names = FALSE)
  # where the subsampled private fit's time goes
  prof <- tempfile("prof")
  utils::Rprof(prof, interval = 0.01)
  invisible(private(TRUE)())
  utils::Rprof(NULL)
  top <- utils::summaryRprof(prof)$by.total
  top <- top[grepl("dpsco|check_design|mapped_design|tune_private|scale_bounds|truncation_levels|curvature_release|settings_pass|calibrate|path|engine|fit", rownames(top)), ]
  cat("\nProfile of the subsampled private fit (by total, s):\n")
  print(utils::head(top[, c("total.time", "total.pct")], 25))
}
cat(sprintf("\nScript time %.0f s\n", proc.time()[["elapsed"]] - script_start))
