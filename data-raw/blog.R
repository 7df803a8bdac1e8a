#!/usr/bin/env Rscript
# data-raw/blog.R -- build data/blog.rda (the BlogFeedback training data).
#
# This script is not part of the built package (data-raw/ is meant to be
# listed in .Rbuildignore). Run it from the root of the package source tree:
#
#   Rscript data-raw/blog.R [path/to/blogData_train.csv.gz]
#
# The optional argument is the gzip-compressed UCI file blogData_train.csv
# (UCI Machine Learning Repository, BlogFeedback, id 304). It defaults to
# ../shared/data/blogfeedback/blogData_train.csv.gz relative to the repo root.
#
# What the script does and checks, in order:
#   1. Decompresses the file in memory and stops unless the uncompressed bytes
#      have the expected size (65,095,322 bytes) and sha256
#      f3cc953ea9913361be6d3bae2c393eef73eab57b1cb8e5bf8a22f1e5eb5dd05f
#      (computed with the 'digest' package if installed, otherwise with the
#      sha256sum program; stops if neither is available).
#   2. Parses the bytes as headerless, comma-separated numeric data and checks
#      the shape (52,397 rows x 281 columns, no missing values). Every row is
#      kept; the first line is data, not a header.
#   3. Gives the columns syntactic snake_case names (see R/data.R).
#   4. Checks documented facts: comments_diff (col 55) equals
#      comments_last24h - comments_24h_to_48h (cols 52 - 53) in every row, and
#      likewise links_diff (60) = 57 - 58; the 200 word indicators (63-262) are
#      all 0/1; each weekday block (263-269 and 270-276) is 0/1 with exactly
#      one 1 per row; the target (281) is a whole number between 0 and 1424.
#   5. Stores every column whose values are all whole numbers as integer, and
#      checks that this conversion is lossless.
#   6. Re-reads the target column straight from the text lines of the csv
#      (independently of the parser used in step 2), checks that it agrees
#      exactly, and prints the target's summary statistics (these numbers are
#      hard-coded in tests/testthat/test-data.R).
#   7. Writes data/blog.rda with xz compression, reloads it and checks that
#      the reloaded object is identical.

args <- commandArgs(trailingOnly = TRUE)
path <- if (length(args) >= 1L) args[[1L]] else
  "../shared/data/blogfeedback/blogData_train.csv.gz"

if (!file.exists(file.path("data-raw", "blog.R"))) {
  stop("Run this script from the package root, e.g. `Rscript data-raw/blog.R`.",
       call. = FALSE)
}
if (!file.exists(path)) {
  stop("Input file not found: ", path, call. = FALSE)
}

expected_sha256 <-
  "f3cc953ea9913361be6d3bae2c393eef73eab57b1cb8e5bf8a22f1e5eb5dd05f"
expected_bytes <- 65095322
expected_rows <- 52397L
expected_cols <- 281L

# ---- 1. uncompressed bytes, size and sha256 ---------------------------------
read_gz_bytes <- function(file) {
  con <- gzfile(file, open = "rb")
  on.exit(close(con))
  chunks <- list()
  repeat {
    chunk <- readBin(con, what = "raw", n = 16L * 1024L^2)
    if (length(chunk) == 0L) break
    chunks[[length(chunks) + 1L]] <- chunk
  }
  do.call(c, chunks)
}

sha256_of_bytes <- function(bytes) {
  if (requireNamespace("digest", quietly = TRUE)) {
    return(list(hash = digest::digest(bytes, algo = "sha256",
                                      serialize = FALSE),
                tool = "digest"))
  }
  if (nzchar(Sys.which("sha256sum"))) {
    tmp <- tempfile(fileext = ".csv")
    on.exit(unlink(tmp))
    writeBin(bytes, tmp)
    out <- system2("sha256sum", shQuote(tmp), stdout = TRUE)
    return(list(hash = sub("[[:space:]].*$", "", out[[1L]]),
                tool = "sha256sum"))
  }
  stop("Cannot verify the input: neither the 'digest' package nor the ",
       "'sha256sum' program is available.", call. = FALSE)
}

bytes <- read_gz_bytes(path)
if (length(bytes) != expected_bytes) {
  stop(sprintf("Uncompressed size is %.0f bytes; expected %.0f. ",
               length(bytes), expected_bytes),
       "This is not the expected blogData_train.csv.", call. = FALSE)
}
sha <- sha256_of_bytes(bytes)
if (!identical(tolower(sha$hash), expected_sha256)) {
  stop("sha256 mismatch for the uncompressed contents of ", path, ":\n",
       "  found    ", sha$hash, "\n  expected ", expected_sha256, "\n",
       "Refusing to build data/blog.rda from an unverified file.",
       call. = FALSE)
}
message("sha256 verified (", sha$tool, "): ", sha$hash)

# ---- 2. parse ----------------------------------------------------------------
# Parse exactly the bytes that were hashed (via a temporary plain-text copy).
verified_csv <- tempfile(fileext = ".csv")
writeBin(bytes, verified_csv)
blog <- utils::read.csv(verified_csv, header = FALSE, colClasses = "numeric",
                        comment.char = "", quote = "",
                        stringsAsFactors = FALSE)
unlink(verified_csv)
rm(bytes)
stopifnot(
  is.data.frame(blog),
  nrow(blog) == expected_rows,
  ncol(blog) == expected_cols,
  !anyNA(blog),
  all(vapply(blog, function(v) all(is.finite(v)), logical(1)))
)

# ---- 3. names ----------------------------------------------------------------
base <- c("comments_total", "comments_last24h", "comments_24h_to_48h",
          "comments_first24h", "comments_diff",
          "links_total", "links_last24h", "links_24h_to_48h",
          "links_first24h", "links_diff")
stats <- c("mean", "sd", "min", "max", "median")
days <- c("mon", "tue", "wed", "thu", "fri", "sat", "sun")
col_names <- c(
  paste0("src_", rep(base, each = length(stats)), "_",
         rep(stats, times = length(base))),               #   1-50
  base,                                                   #  51-60
  "hours_since_publication", "post_length",               #  61-62
  sprintf("word_%03d", 1:200),                            #  63-262
  paste0("basetime_", days),                              # 263-269
  paste0("published_", days),                             # 270-276
  "parents", "parent_comments_min", "parent_comments_max",
  "parent_comments_mean",                                 # 277-280
  "comments_next24h"                                      # 281
)
stopifnot(length(col_names) == expected_cols,
          !anyDuplicated(col_names),
          identical(make.names(col_names), col_names))
names(blog) <- col_names

# ---- 4. documented facts -----------------------------------------------------
is01 <- function(v) all(v == 0 | v == 1)
stopifnot(
  "column 55 must equal column 52 minus column 53 in every row" =
    all(blog$comments_diff == blog$comments_last24h - blog$comments_24h_to_48h),
  "column 60 must equal column 57 minus column 58 in every row" =
    all(blog$links_diff == blog$links_last24h - blog$links_24h_to_48h),
  "the 200 word columns (63-262) must be 0/1" =
    all(vapply(blog[63:262], is01, logical(1))),
  "weekday columns (263-276) must be 0/1" =
    all(vapply(blog[263:276], is01, logical(1))),
  "each basetime weekday block (263-269) must have exactly one 1 per row" =
    all(rowSums(blog[263:269]) == 1),
  "each publication weekday block (270-276) must have exactly one 1 per row" =
    all(rowSums(blog[270:276]) == 1),
  "the target must be whole numbers in 0..1424" =
    all(blog$comments_next24h == round(blog$comments_next24h)) &&
    min(blog$comments_next24h) == 0 && max(blog$comments_next24h) == 1424
)

# ---- 5. whole-number columns as integer --------------------------------------
whole <- vapply(blog, function(v) {
  all(v == round(v)) && max(abs(v)) <= .Machine$integer.max
}, logical(1))
for (j in which(whole)) {
  iv <- as.integer(blog[[j]])
  stopifnot(identical(as.numeric(iv), blog[[j]]))
  blog[[j]] <- iv
}
message(sum(whole), " of ", ncol(blog), " columns stored as integer; ",
        "double columns: ", paste(which(!whole), collapse = " "))

# ---- 6. independent re-read of the target and its statistics ----------------
con <- gzfile(path, open = "rt")
lines <- readLines(con)
close(con)
stopifnot(length(lines) == expected_rows)
target_direct <- as.numeric(sub("^.*,", "", lines))
stopifnot(!anyNA(target_direct),
          identical(target_direct, as.numeric(blog$comments_next24h)))
rm(lines)

y <- target_direct
target_stats <- c(
  n = length(y), min = min(y), max = max(y), sum = sum(y),
  mean = mean(y), sd = stats::sd(y), median = stats::median(y),
  q75 = unname(stats::quantile(y, 0.75)),
  q90 = unname(stats::quantile(y, 0.90)),
  q99 = unname(stats::quantile(y, 0.99)),
  zeros = sum(y == 0), prop_zero = mean(y == 0)
)
message("Target comments_next24h (read directly from the csv text):")
message(paste(sprintf("  %-9s %.10g", names(target_stats), target_stats),
              collapse = "\n"))

constant <- names(blog)[vapply(blog, function(v) length(unique(v)) == 1L,
                               logical(1))]
message("Constant columns: ", paste(constant, collapse = ", "))
message("Exact duplicate rows: ", sum(duplicated(blog)))

# ---- 7. write ----------------------------------------------------------------
dir.create("data", showWarnings = FALSE)
save(blog, file = "data/blog.rda", compress = "xz")
saved <- blog
rm(blog)
load("data/blog.rda")
stopifnot(identical(blog, saved))
message("Wrote data/blog.rda (", file.size("data/blog.rda"), " bytes)")
