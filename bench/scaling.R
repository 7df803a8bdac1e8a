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
#
# File-backed section (only with `--big` or `--big-only`, or the
# environment variable DPSCO_BENCH_BIG=1, and only when bigmemory is
# installed): IT WRITES AN 8 GB FILE under /tmp (stops unless 10 GB are
# free) and takes several minutes; the file is removed at the end, also
# after an error.
#   R_LIBS=/tmp/benchlib Rscript bench/scaling.R --big        # series + big
#   R_LIBS=/tmp/benchlib Rscript bench/scaling.R --big-only   # big alone
#   (DPSCO_BENCH_BIG_N=2e6 sets a smaller n, for a trial run)
#   x: a file-backed bigmemory::big.matrix of doubles, n = 2e7, p = 50
#   (8 GB), filled 1e6 rows at a time with iid U(-1, 1) entries (never whole
#   in R's memory); y = x beta + t(2) errors (beta as above), computed block
#   by block and kept as an R vector.  It reports:
#     * fill seconds, and sync seconds (the dirty pages written to disk);
#     * seconds to read the backing file once: with dd bs=16M from the page
#       cache (warm; the file is cached after the fill, which fincore
#       shows), with readBin() in 64 MB chunks into R (warm), and with dd
#       iflag=direct (from the disk, bypassing the page cache: cold);
#     * public fit: dpsco(xb, y, method = "clip", tuning = "public",
#       lambda = 0.01, batch_size = n, iterations = 5, intercept = FALSE,
#       epsilon = 1): seconds; passes = 7 (the finiteness check of the
#       mapped file when x is checked, the engine's pre-pass of row norms
#       and maxima, 5 full-batch steps); seconds per pass and its ratio to
#       the warm dd read (and to the readBin read); the check alone
#       (dpsco:::check_design(xb)) is timed too, to split R's pass from the
#       engine's six, and the same fit with iterations = 1, so that
#       (5 steps - 1 step) / 4 is one step's pass alone;
#     * private fit: dpsco(xb, y, nlambda = 2, iterations = 5) (clip, private
#       tuning, intercept): seconds (time limit 900 s); passes = R's block
#       passes of the private settings (rows read through
#       dpsco:::design_rows / n, counted with trace()) + the check + the
#       pre-pass + nlambda x iterations steps;
#     * memory of the R process from /proc/self/status: RssAnon (anonymous
#       pages, the fit's own memory) before and after (after gc()) each fit,
#       and the peak during it from a background sampler (grep of
#       /proc/PID/status every 0.05 s), with RssFile's peak (mapped file
#       pages, the page cache's; counted once per mapping, bigmemory's and
#       dpsco's); VmHWM is printed as well but includes the file's mapped
#       pages, so it bounds nothing useful here.
#   Output: the fill, sync and read lines, then one table row per fit:
#   elapsed_s, cpu_s, passes, s_per_pass, pass_over_read (s_per_pass / warm
#   dd read), pass_over_readBin, time_target, RssAnon_before, RssAnon_peak,
#   RssAnon_after, RssFile_peak, VmHWM (MB), samples (of the sampler),
#   mem_target; then the passes counted and the public fit's split (check,
#   engine per pass, one step alone).  About 3 minutes at n = 2e7.
#   Targets: time per pass <= 2 x reading the file once (warm dd);
#            RssAnon peak < 2 GB.

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
cli <- commandArgs(trailingOnly = TRUE)
big_only <- "--big-only" %in% cli
run_big <- big_only || "--big" %in% cli ||
  Sys.getenv("DPSCO_BENCH_BIG") %in% c("1", "true", "TRUE", "yes")

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
      rate = min(1, m / n),           # the Poisson rate: public m over public n
      steps = as.integer(T), step_size = 1 / p, sqrt_schedule = 0L,
      last_iterate = 0L, tail_average = 0L, alpha = 1, penalty_factor = rep(1, p), threads = 2L))
    beta0 <- rep(0, p)
    function() .Call(dpsco:::C_dpsco_fit, x, y, settings, lambda, beta0,
                     integer(0))
  }, error = function(e) NULL)
}

# ---- file-backed section ---------------------------------------------------

# Fields of /proc/<pid>/status in MB.
proc_status <- function(pid = "self",
                        fields = c("VmRSS", "RssAnon", "RssFile", "VmHWM")) {
  lines <- readLines(sprintf("/proc/%s/status", pid))
  vapply(fields, function(f) {
    l <- grep(paste0("^", f, ":"), lines, value = TRUE)
    if (length(l) == 0L) NA_real_ else as.numeric(gsub("[^0-9]", "", l)) / 1024
  }, 0)
}

# A background shell that appends RssAnon and RssFile of this process to
# `file` every 0.05 s until it is killed (or this process ends); returns
# its pid.
sampler_start <- function(file) {
  pid <- Sys.getpid()
  cmd <- sprintf(paste0("while kill -0 %d 2>/dev/null; do ",
                        "grep -E '^(RssAnon|RssFile):' /proc/%d/status; ",
                        "sleep 0.05; done > %s 2>/dev/null < /dev/null & echo $!"),
                 pid, pid, shQuote(file))
  as.integer(system(cmd, intern = TRUE))
}

# Stops the sampler; the peak of each field in MB and the number of samples.
sampler_stop <- function(spid, file) {
  tools::pskill(spid)
  Sys.sleep(0.1)
  l <- readLines(file, warn = FALSE)
  val <- function(f) {
    v <- as.numeric(gsub("[^0-9]", "", grep(paste0("^", f, ":"), l, value = TRUE)))
    if (length(v)) max(v) / 1024 else NA_real_
  }
  c(RssAnon = val("RssAnon"), RssFile = val("RssFile"),
    samples = length(grep("^RssAnon:", l)))
}

# Elapsed seconds of a shell command (its output discarded).
shell_seconds <- function(cmd) {
  t0 <- proc.time()[["elapsed"]]
  status <- system(paste(cmd, "> /dev/null 2>&1"))
  if (status != 0) return(NA_real_)
  proc.time()[["elapsed"]] - t0
}

# Share of the file's pages in the page cache (fincore, util-linux), NA
# without it.
cached_share <- function(file, bytes) {
  out <- suppressWarnings(tryCatch(
    system2("fincore", c("--bytes", "--noheadings", "--output", "RES",
                         shQuote(file)), stdout = TRUE, stderr = FALSE),
    error = function(e) character(0)))
  if (length(out) != 1L) return(NA_real_)
  as.numeric(trimws(out)) / bytes
}

big_section <- function() {
  cat("\n==== File-backed x (bigmemory::big.matrix), read in place ====\n")
  if (!requireNamespace("bigmemory", quietly = TRUE)) {
    cat("skipped: the bigmemory package is not installed\n")
    return(invisible(NULL))
  }
  if (!file.exists("/proc/self/status")) {
    cat("skipped: needs Linux's /proc/self/status for the memory figures\n")
    return(invisible(NULL))
  }
  n <- as.integer(as.numeric(Sys.getenv("DPSCO_BENCH_BIG_N", "2e7")))
  p <- 50L
  block <- 1e6
  bytes <- 8 * as.double(n) * p
  free_gb <- tryCatch({
    df <- system2("df", c("-Pk", "/tmp"), stdout = TRUE)
    as.numeric(strsplit(trimws(df[2L]), "[[:space:]]+")[[1L]][4L]) * 1024 / 1e9
  }, error = function(e) NA_real_)
  need_gb <- max(10, 1.25 * bytes / 1e9)
  if (is.na(free_gb) || free_gb < need_gb)
    stop(sprintf(paste0("the file-backed section writes a %.1f GB file under /tmp ",
                        "and needs %.0f GB free there; %s GB are free"),
                 bytes / 1e9, need_gb,
                 if (is.na(free_gb)) "unknown" else sprintf("%.1f", free_gb)),
         call. = FALSE)
  dir <- tempfile("dpsco_big_", tmpdir = "/tmp")
  dir.create(dir)
  spid <- NA_integer_
  xb <- NULL
  on.exit({
    if (!is.na(spid)) tools::pskill(spid)
    xb <- NULL
    invisible(gc())                   # unmaps the file (bigmemory's and dpsco's)
    unlink(dir, recursive = TRUE)
    cat(sprintf("removed %s (%s)\n", dir,
                if (dir.exists(dir)) "NOT REMOVED" else "gone"))
  }, add = TRUE)
  file <- file.path(dir, "x.bin")
  cat(sprintf("n = %d, p = %d: %.2f GB in %s (%.0f GB free before)\n",
              n, p, bytes / 1e9, file, free_gb))

  # fill, block by block
  t0 <- proc.time()[["elapsed"]]
  xb <- bigmemory::filebacked.big.matrix(n, p, type = "double",
                                         backingfile = "x.bin",
                                         descriptorfile = "x.desc",
                                         backingpath = dir)
  beta <- c(rep(c(1, -1), 5), rep(0, p - 10))
  y <- numeric(n)
  set.seed(20240601)
  for (s in seq(1, n, by = block)) {
    e <- min(n, s + block - 1)
    b <- matrix(runif((e - s + 1) * p, -1, 1), ncol = p)
    xb[s:e, ] <- b
    y[s:e] <- drop(b %*% beta) + rt(e - s + 1, df = 2)
  }
  rm(b)
  bigmemory::flush(xb)
  fill_s <- proc.time()[["elapsed"]] - t0
  sync_s <- shell_seconds("sync")
  invisible(gc())
  cat(sprintf("fill %.1f s (1e6 rows a block), then sync %.1f s; page cache holds %.0f%% of the file\n",
              fill_s, sync_s, 100 * cached_share(file, bytes)))

  # reading the file once
  dd_warm <- c(shell_seconds(sprintf("dd if=%s of=/dev/null bs=16M", shQuote(file))),
               shell_seconds(sprintf("dd if=%s of=/dev/null bs=16M", shQuote(file))))
  rb <- {
    con <- file(file, "rb")
    t0 <- proc.time()[["elapsed"]]
    repeat {
      v <- readBin(con, "double", n = 2^23)
      if (length(v) < 2^23) break
    }
    close(con)
    proc.time()[["elapsed"]] - t0
  }
  dd_cold <- shell_seconds(sprintf("dd if=%s of=/dev/null bs=16M iflag=direct",
                                   shQuote(file)))
  read_s <- min(dd_warm)
  cat(sprintf(paste0("read the file once: dd bs=16M from the page cache %.2f s and %.2f s ",
                     "(%.1f GB/s, the reference); readBin 64 MB chunks into R %.2f s ",
                     "(warm);\n  dd iflag=direct (disk, page cache bypassed: cold) %s; ",
                     "page cache holds %.0f%% of the file after\n"),
              dd_warm[1], dd_warm[2], bytes / 1e9 / read_s, rb,
              if (is.na(dd_cold)) "failed" else sprintf("%.2f s (%.2f GB/s)", dd_cold, bytes / 1e9 / dd_cold),
              100 * cached_share(file, bytes)))

  # one fit with memory figures
  measure <- function(label, f) {
    invisible(gc())
    before <- proc_status()
    sfile <- file.path(dir, paste0("rss_", label, ".txt"))
    spid <<- sampler_start(sfile)
    Sys.sleep(0.2)
    t0 <- proc.time()
    out <- tryCatch(f(), error = function(e) e)
    d <- proc.time() - t0
    peak <- sampler_stop(spid, sfile)
    spid <<- NA_integer_
    invisible(gc())                   # the engine's R_alloc memory is garbage now
    after <- proc_status()
    list(fit = out, elapsed = d[["elapsed"]],
         cpu = d[["user.self"]] + d[["sys.self"]] + d[["user.child"]] + d[["sys.child"]],
         before = before, after = after, peak = peak)
  }
  check_s <- system.time(invisible(dpsco:::check_design(xb)))[["elapsed"]]
  pub <- measure("public", function() {
    set.seed(1)
    dpsco(xb, y, method = "clip", tuning = "public", lambda = 0.01,
          batch_size = n, iterations = 5, intercept = FALSE, epsilon = 1)
  })
  if (inherits(pub$fit, "error")) stop("public fit failed: ", conditionMessage(pub$fit))
  pub_passes <- 7
  # the same fit with 1 step: (t5 - t1) / 4 is one step's pass alone
  pub1_s <- system.time({
    set.seed(1)
    dpsco(xb, y, method = "clip", tuning = "public", lambda = 0.01,
          batch_size = n, iterations = 1, intercept = FALSE, epsilon = 1)
  })[["elapsed"]]
  step_s <- (pub$elapsed - pub1_s) / 4

  assign(".big_rows", 0, envir = globalenv())
  suppressMessages(trace("design_rows", where = asNamespace("dpsco"), print = FALSE,
    tracer = quote(assign(".big_rows", get(".big_rows", envir = globalenv()) +
                            (to - from + 1), envir = globalenv()))))
  nl <- 2L; it <- 5L
  pri <- measure("private", function() {
    setTimeLimit(elapsed = 900, transient = TRUE)
    on.exit(setTimeLimit(elapsed = Inf))
    set.seed(1)
    dpsco(xb, y, nlambda = nl, iterations = it)
  })
  suppressMessages(untrace("design_rows", where = asNamespace("dpsco")))
  r_passes <- get(".big_rows", envir = globalenv()) / n
  pri_ok <- !inherits(pri$fit, "error")
  pri_passes <- r_passes + 2 + nl * it

  cat(sprintf("dpsco %s, commit %s; R %s, %s; %d threads\n",
              utils::packageVersion("dpsco"), installed_commit(), getRversion(),
              format(Sys.time(), "%Y-%m-%d %H:%M"), dpsco:::max_threads()))
  row <- function(label, r, passes) {
    per <- r$elapsed / passes
    data.frame(fit = label, elapsed_s = sprintf("%.2f", r$elapsed),
               cpu_s = sprintf("%.2f", r$cpu), passes = sprintf("%g", passes),
               s_per_pass = sprintf("%.2f", per),
               pass_over_read = sprintf("%.2f", per / read_s),
               pass_over_readBin = sprintf("%.2f", per / rb),
               time_target = if (per / read_s <= 2) "MET" else "NOT MET",
               RssAnon_before = sprintf("%.0f", r$before[["RssAnon"]]),
               RssAnon_peak = sprintf("%.0f", r$peak[["RssAnon"]]),
               RssAnon_after = sprintf("%.0f", r$after[["RssAnon"]]),
               RssFile_peak = sprintf("%.0f", r$peak[["RssFile"]]),
               VmHWM = sprintf("%.0f", r$after[["VmHWM"]]),
               samples = sprintf("%d", as.integer(r$peak[["samples"]])),
               mem_target = if (r$peak[["RssAnon"]] < 2048) "MET" else "NOT MET",
               stringsAsFactors = FALSE)
  }
  tab <- row("public clip", pub, pub_passes)
  if (pri_ok) tab <- rbind(tab, row("private clip", pri, pri_passes))
  cat(sprintf(paste0("\nFit on the file-backed x (n = %d, p = %d, %.1f GB); reference: ",
                     "reading the file once with dd from the page cache, %.2f s\n"),
              n, p, bytes / 1e9, read_s))
  print(tab, row.names = FALSE, right = TRUE)
  cat(paste0("(pass_over_read = s_per_pass / the warm dd read (the target's reference), ",
             "pass_over_readBin = / the warm readBin read;\n memory in MB from ",
             "/proc/self/status; RssAnon_peak = largest of the samples taken every ",
             "0.05 s during the fit, _after = after gc();\n RssFile counts the file's ",
             "pages once per mapping (bigmemory's and dpsco's: up to twice the file); ",
             "VmHWM = peak VmRSS of\n the process so far, file pages included, not a ",
             "bound on anonymous memory)\n"))
  cat(sprintf(paste0("public: passes = 1 finiteness check of the mapped file (",
                     "check_design alone %.2f s) + 1 engine pre-pass (row norms, maxima)",
                     " + 5 steps;\n  engine part ~ (%.2f - %.2f) / 6 = %.2f s per pass",
                     " (%.2f x the read); one step alone (5 steps - 1 step, %.2f s) / 4",
                     " = %.2f s (%.2f x the read)\n"),
              check_s, pub$elapsed, check_s, (pub$elapsed - check_s) / 6,
              (pub$elapsed - check_s) / 6 / read_s, pub1_s, step_s, step_s / read_s))
  if (pri_ok) {
    cat(sprintf(paste0("private: passes = %.2f block passes in R (private settings, ",
                       "rows read / n) + 1 check + 1 pre-pass + %d x %d steps\n"),
                r_passes, nl, it))
  } else {
    cat("private fit: did not complete:", conditionMessage(pri$fit), "\n")
  }
  cat(sprintf("Targets: time per pass <= 2 x the read: %s;  RssAnon peak < 2 GB: %s\n",
              paste(sprintf("%s %s", tab$fit, tab$time_target), collapse = ", "),
              paste(sprintf("%s %s (%s MB)", tab$fit, tab$mem_target, tab$RssAnon_peak),
                    collapse = ", ")))
  invisible(tab)
}

if (big_only) {
  big_section()
  cat(sprintf("Script time %.0f s\n", proc.time()[["elapsed"]] - script_start))
  quit(save = "no")
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
if (run_big) big_section() else
  cat("\n(file-backed section not run: it writes an 8 GB file; Rscript bench/scaling.R --big)\n")
cat(sprintf("Script time %.0f s\n", proc.time()[["elapsed"]] - script_start))
