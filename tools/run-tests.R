# Runs the testthat suite and the man-page examples against an installed
# dpsco, for `make sanitize` and `make valgrind`:
#
#   Rscript tools/run-tests.R [--filter=REGEX | --exclude=REGEX] [--no-examples]
#                             [--part=K/N]
#
# --part=K/N makes this process one of N started side by side (by
# tools/run-parts.sh, which gives them a shared claims directory in
# DPSCO_PART_CLAIMS): the matched test files, largest first (file size
# stands in for run time), and the examples, first of all, are taken one
# at a time by whichever process is free, each claimed by creating its
# own directory there (atomic), so the parts end within about one file's
# time of each other whatever the files' real run times.

# R CMD check cannot be used for these runs: it would start pandoc, qpdf and
# many R subprocesses under the preloaded sanitizer runtime or valgrind.  The
# package is taken from .libPaths() (R_LIBS), so it must be installed there.
# Each test file runs on its own and is followed by a line with its run time
# and counts.  Prints "<label>: N passed, M failed, K skipped" last
# (examples count as one test each) and quits with status 1 on any failure
# or when nothing passed.

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
claims <- NULL
if (!is.null(part)) {
  kn <- as.integer(strsplit(part, "/", fixed = TRUE)[[1]])
  if (length(kn) != 2L || anyNA(kn) || kn[1] < 1L || kn[1] > kn[2])
    stop("--part must be K/N with 1 <= K <= N")
  claims <- Sys.getenv("DPSCO_PART_CLAIMS")
  if (!nzchar(claims) || !dir.exists(claims))
    stop("--part needs the claims directory DPSCO_PART_CLAIMS (tools/run-parts.sh)")
}

# One process per part: testthat's own parallel workers (DESCRIPTION's
# Config/testthat/parallel, for R CMD check) would run outside valgrind.
Sys.setenv(TESTTHAT_PARALLEL = "false")

suppressPackageStartupMessages(library(dpsco))
cat("dpsco", format(utils::packageVersion("dpsco")), "from",
    dirname(find.package("dpsco")), "\n")

files <- list.files("tests/testthat", pattern = "^test-.*\\.[rR]$")
names <- sub("^test-(.*)\\.[rR]$", "\\1", files)
hit <- if (!is.null(exclude)) !grepl(exclude, names) else
       if (!is.null(filter)) grepl(filter, names) else rep(TRUE, length(names))
names <- names[hit]
# parts take the largest files first; one process runs them in name order
if (!is.null(claims))
  names <- names[order(-file.size(file.path("tests/testthat", files[hit])))]
# whether this process takes `item` (always, when it is the only one)
take <- function(item)
  is.null(claims) || dir.create(file.path(claims, item), showWarnings = FALSE)

run_files <- function(names) {
  if (!length(names)) return(data.frame(passed = 0, failed = 0, error = FALSE,
                                        skipped = 0))
  as.data.frame(testthat::test_dir(
    "tests/testthat", filter = paste0("^(", paste(names, collapse = "|"), ")$"),
    package = "dpsco", load_package = "installed", reporter = "summary",
    stop_on_failure = FALSE))
}
# Each example block runs in its own environment, as R CMD check would, with
# graphics sent to a throw-away device; \dontrun sections stay commented out.
run_example_pages <- function() {
  passed <- failed <- 0
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
  c(passed = passed, failed = failed)
}

# One test file, then a line with its time and counts as it finishes (it
# starts with "----", so it never reads as the closing line).
run_timed <- function(nm) {
  start <- proc.time()[["elapsed"]]
  r <- run_files(nm)[, c("passed", "failed", "error", "skipped")]
  cat(sprintf("---- test file %s: %.1f s, %d passed, %d failed, %d skipped\n",
              nm, proc.time()[["elapsed"]] - start, sum(r$passed),
              sum(r$failed) + sum(r$error), sum(r$skipped)))
  r
}

# the examples first: under valgrind they take as long as a large file
ex <- if (run_examples && take("_examples")) run_example_pages()
res <- NULL
took <- !is.null(ex)
for (nm in names) if (take(nm)) {
  took <- TRUE
  res <- rbind(res, run_timed(nm))
}
if (is.null(res)) res <- run_files(character())
passed <- sum(res$passed) + sum(ex[["passed"]])
failed <- sum(res$failed) + sum(res$error) + sum(ex[["failed"]])
skipped <- sum(res$skipped)

cat(sprintf("%s: %d passed, %d failed, %d skipped\n", label, passed, failed, skipped))
# (a part that found every item taken by the others has nothing to pass)
if (failed > 0 || passed == 0 && (is.null(claims) || took)) quit(status = 1)
