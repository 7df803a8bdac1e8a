# Runs the testthat suite and the man-page examples against an installed
# dpsco, for `make sanitize` and `make valgrind`:
#
#   Rscript tools/run-tests.R [--filter=REGEX | --exclude=REGEX] [--no-examples]
#                             [--part=K/N]
#
# --part=K/N runs the K-th of N parts of the matched test files, so that N
# processes started side by side share the cores: the files, largest
# first, go each to the part with the fewest bytes so far (file size
# stands in for run time); the examples run in part 1 only.
#
# R CMD check cannot be used for these runs: it would start pandoc, qpdf and
# many R subprocesses under the preloaded sanitizer runtime or valgrind.  The
# package is taken from .libPaths() (R_LIBS), so it must be installed there.
# Prints "<label>: N passed, M failed, K skipped" last (examples count as one
# test each) and quits with status 1 on any failure or when nothing passed.

args <- commandArgs(trailingOnly = TRUE)
opt <- function(name) {
  hit <- sub(paste0("^--", name, "="), "", grep(paste0("^--", name, "="), args, value = TRUE))
  if (length(hit)) hit[[1]] else NULL
}
filter <- opt("filter")
# --exclude: every test file but those matching
exclude <- opt("exclude")
label <- if (is.null(opt("label"))) "tests" else opt("label")
run_examples <- !("--no-examples" %in% args)

part <- opt("part")
if (!is.null(part)) {
  kn <- as.integer(strsplit(part, "/", fixed = TRUE)[[1]])
  if (length(kn) != 2L || anyNA(kn) || kn[1] < 1L || kn[1] > kn[2])
    stop("--part must be K/N with 1 <= K <= N")
  files <- list.files("tests/testthat", pattern = "^test-.*\\.[rR]$")
  names <- sub("^test-(.*)\\.[rR]$", "\\1", files)
  hit <- if (!is.null(exclude)) !grepl(exclude, names)
         else if (!is.null(filter)) grepl(filter, names) else rep(TRUE, length(names))
  size <- file.size(file.path("tests/testthat", files))[hit]
  names <- names[hit]
  load <- numeric(kn[2])
  mine <- character()
  for (i in order(-size)) {
    k <- which.min(load)
    load[k] <- load[k] + size[i]
    if (k == kn[1]) mine <- c(mine, names[i])
  }
  run_examples <- run_examples && kn[1] == 1L
  if (!length(mine)) {                 # more parts than files
    cat(sprintf("%s: 0 passed, 0 failed, 0 skipped\n", label))
    quit(status = 0)
  }
  filter <- paste0("^(", paste(mine, collapse = "|"), ")$")
  exclude <- NULL
}

suppressPackageStartupMessages(library(dpsco))
cat("dpsco", format(utils::packageVersion("dpsco")), "from",
    dirname(find.package("dpsco")), "\n")

res <- as.data.frame(testthat::test_dir(
  "tests/testthat", filter = if (is.null(exclude)) filter else exclude,
  invert = !is.null(exclude), package = "dpsco",
  load_package = "installed", reporter = "summary", stop_on_failure = FALSE
))
passed <- sum(res$passed)
failed <- sum(res$failed) + sum(res$error)
skipped <- sum(res$skipped)

# Each example block runs in its own environment, as R CMD check would, with
# graphics sent to a throw-away device; \dontrun sections stay commented out.
if (run_examples) {
  grDevices::pdf(NULL)
  out <- tempfile(fileext = ".R")
  for (rd in sort(list.files("man", pattern = "\\.Rd$", full.names = TRUE))) {
    tools::Rd2ex(rd, out, commentDontrun = TRUE, commentDonttest = FALSE)
    if (!file.exists(out)) next
    ok <- tryCatch({
      set.seed(1)
      sys.source(out, envir = new.env(parent = globalenv()))
      TRUE
    }, error = function(e) {
      cat("example", basename(rd), "FAILED:", conditionMessage(e), "\n")
      FALSE
    })
    unlink(out)
    if (ok) passed <- passed + 1 else failed <- failed + 1
    cat("example", basename(rd), if (ok) "ok" else "FAILED", "\n")
  }
  invisible(grDevices::dev.off())
}

cat(sprintf("%s: %d passed, %d failed, %d skipped\n", label, passed, failed, skipped))
if (failed > 0 || passed == 0) quit(status = 1)
