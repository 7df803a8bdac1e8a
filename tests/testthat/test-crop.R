# read_crop(), crop_path() and download_crop() on small files written in the
# layout of the UCI file WinnipegDataset.txt (header label,f1,...,f174; one
# record per line).  Expected values are computed here from the matrices
# that were written, independently of the reader.

crop_names <- c("label", paste0("f", 1:174))

# Write records (labels, 174-column matrix) in the UCI layout; `lines`
# replaces the data lines, `header` the header line.
write_crop <- function(path, label, x, header = paste(crop_names, collapse = ","),
                       lines = NULL) {
  if (is.null(lines))
    lines <- paste(label, apply(x, 1L, function(r)
      paste(format(r, digits = 15, trim = TRUE), collapse = ",")), sep = ",")
  writeLines(c(header, lines), path)
  path
}

# 21 records, three of each crop code; x[i, j] = i + j / 1000 - 0.5 * j %% 2.
crop_fixture <- function(path = tempfile(fileext = ".txt")) {
  label <- rep(1:7, 3)
  x <- outer(seq_along(label), 1:174, function(i, j) i + j / 1000 - 0.5 * (j %% 2))
  write_crop(path, label, x)
  list(path = path, label = label, x = x)
}

expect_file_error <- function(expr) {
  cnd <- tryCatch(expr, dpsco_arg_error = function(e) e)
  expect_s3_class(cnd, "dpsco_arg_error")
  expect_identical(cnd$arg, "file")
  expect_match(conditionMessage(cnd), "`file`", fixed = TRUE)
  invisible(cnd)
}

test_that("read_crop returns every record with 173 features and the cereal task", {
  fx <- crop_fixture()
  on.exit(unlink(fx$path))
  d <- read_crop(fx$path, n = Inf)
  expect_identical(dim(d$x), c(21L, 173L))
  expect_identical(colnames(d$x), paste0("f", 1:173))
  expect_identical(d$dropped, "f174")
  expect_equal(unname(d$x), fx$x[, -174], tolerance = 1e-12)
  expect_identical(d$label, fx$label)
  # cereals are corn (1), oats (5) and wheat (6)
  expect_identical(d$y, as.double(fx$label %in% c(1, 5, 6)))
  expect_identical(names(d$classes), c("0", "1"))
  expect_match(d$classes[["1"]], "cereal")
  expect_identical(d$rows, 1:21)
  expect_identical(d$n_file, 21L)
  expect_identical(d$task, "cereal")
  expect_identical(d$source, normalizePath(fx$path))
  expect_type(d$y, "double")
})

test_that("one crop against the rest, and the choice of the dropped feature", {
  fx <- crop_fixture()
  on.exit(unlink(fx$path))
  w <- read_crop(fx$path, n = Inf, task = "wheat")
  expect_identical(w$y, as.double(fx$label == 6))
  expect_identical(unname(w$classes), c("not wheat", "wheat"))
  p <- read_crop(fx$path, n = Inf, task = "peas", drop = "f10")
  expect_identical(p$y, as.double(fx$label == 2))
  expect_identical(colnames(p$x), paste0("f", setdiff(1:174, 10)))
  expect_equal(unname(p$x), fx$x[, -10], tolerance = 1e-12)
  expect_identical(p$dropped, "f10")
  all174 <- read_crop(fx$path, n = Inf, drop = NULL)
  expect_identical(ncol(all174$x), 174L)
  expect_true(is.na(all174$dropped))
  expect_equal(unname(all174$x), fx$x, tolerance = 1e-12)
})

test_that("the sample is sort(sample.int(N, n)) after set.seed(seed)", {
  fx <- crop_fixture()
  on.exit(unlink(fx$path))
  set.seed(3)
  expected <- sort(sample.int(21, 10))
  d <- read_crop(fx$path, n = 10, seed = 3)
  expect_identical(d$rows, expected)
  expect_equal(unname(d$x), fx$x[expected, -174], tolerance = 1e-12)
  expect_identical(d$label, fx$label[expected])
  expect_identical(d$y, as.double(fx$label[expected] %in% c(1, 5, 6)))
  # reproducible, and a different seed gives a different sample
  expect_identical(read_crop(fx$path, n = 10, seed = 3), d)
  expect_false(identical(read_crop(fx$path, n = 10, seed = 4)$rows, d$rows))
})

test_that("a seed leaves the caller's random numbers alone; NULL uses them", {
  fx <- crop_fixture()
  on.exit(unlink(fx$path))
  set.seed(99)
  a <- runif(3)
  set.seed(99)
  read_crop(fx$path, n = 5, seed = 1)
  expect_identical(runif(3), a)

  set.seed(5)
  expected <- sort(sample.int(21, 7))
  set.seed(5)
  expect_identical(read_crop(fx$path, n = 7)$rows, expected)
})

test_that("n at or above the number of records returns them all", {
  fx <- crop_fixture()
  on.exit(unlink(fx$path))
  expect_warning(big <- read_crop(fx$path, n = 100, seed = 1), "larger than the 21")
  expect_identical(big$rows, 1:21)
  expect_equal(unname(big$x), fx$x[, -174], tolerance = 1e-12)
  expect_silent(same <- read_crop(fx$path, n = 21, seed = 1))
  expect_identical(same$rows, 1:21)
  expect_silent(read_crop(fx$path, n = Inf))
})

test_that("compressed copies and Windows line endings are read alike", {
  fx <- crop_fixture()
  on.exit(unlink(fx$path))
  gz <- tempfile(fileext = ".txt.gz")
  on.exit(unlink(gz), add = TRUE)
  con <- gzfile(gz, "w")
  writeLines(readLines(fx$path), con)
  close(con)
  expect_identical(read_crop(gz, n = 8, seed = 2)[c("x", "y", "rows")],
                   read_crop(fx$path, n = 8, seed = 2)[c("x", "y", "rows")])
  crlf <- tempfile(fileext = ".txt")
  on.exit(unlink(crlf), add = TRUE)
  writeBin(charToRaw(paste0(paste(readLines(fx$path), collapse = "\r\n"), "\r\n")),
           crlf)
  expect_identical(read_crop(crlf, n = Inf)$x, read_crop(fx$path, n = Inf)$x)
})

test_that("files that are not in the UCI layout give a dpsco_arg_error for file", {
  fx <- crop_fixture()
  on.exit(unlink(fx$path))
  lines <- readLines(fx$path)
  bad <- tempfile(fileext = ".txt")
  on.exit(unlink(bad), add = TRUE)
  rewrite <- function(l) { writeLines(l, bad); bad }

  # wrong header: a renamed column, a missing column, no header at all
  hdr <- crop_names
  hdr[5] <- "g4"
  cnd <- expect_file_error(read_crop(rewrite(c(paste(hdr, collapse = ","), lines[-1])),
                                     n = Inf))
  expect_match(conditionMessage(cnd), "g4")
  expect_file_error(read_crop(rewrite(c(paste(crop_names[-175], collapse = ","),
                                        lines[-1])), n = Inf))
  expect_file_error(read_crop(rewrite(lines[-1]), n = Inf))

  # a data line with a missing or an extra field
  short <- lines
  short[4] <- sub(",[^,]*$", "", short[4])
  cnd <- expect_file_error(read_crop(rewrite(short), n = Inf))
  expect_match(conditionMessage(cnd), "line 4")
  long <- lines
  long[7] <- paste0(long[7], ",1")
  expect_file_error(read_crop(rewrite(long), n = 5, seed = 1))

  # labels out of range or not a crop code
  for (lab in c("0", "8", "-1", "2.5", "x", "")) {
    l <- lines
    l[3] <- sub("^[^,]*", lab, l[3])
    cnd <- expect_file_error(read_crop(rewrite(l), n = Inf))
    expect_match(conditionMessage(cnd), "label")
  }

  # non-numeric, missing and infinite feature values
  for (v in c("abc", "NA", "", "Inf", "1,2")) {
    l <- lines
    f <- strsplit(l[10], ",", fixed = TRUE)[[1]]
    f[20] <- v
    l[10] <- paste(f, collapse = ",")
    cnd <- expect_file_error(read_crop(rewrite(l), n = Inf))
    if (v != "1,2") expect_match(conditionMessage(cnd), "line 10")
  }

  # header only, empty file, no file
  expect_file_error(read_crop(rewrite(lines[1]), n = Inf))
  expect_file_error(read_crop(rewrite(character(0)), n = Inf))
  expect_file_error(read_crop(tempfile(fileext = ".txt")))
  expect_file_error(read_crop(tempdir()))
  expect_file_error(read_crop(c(fx$path, fx$path)))
  expect_file_error(read_crop(NA_character_))
})

test_that("bad arguments name themselves", {
  fx <- crop_fixture()
  on.exit(unlink(fx$path))
  expect_identical(arg_of(read_crop(fx$path, n = 0)), "n")
  expect_identical(arg_of(read_crop(fx$path, n = 2.5)), "n")
  expect_identical(arg_of(read_crop(fx$path, n = "10")), "n")
  expect_identical(arg_of(read_crop(fx$path, seed = "a")), "seed")
  expect_identical(arg_of(read_crop(fx$path, seed = 1.5)), "seed")
  expect_identical(arg_of(read_crop(fx$path, task = "rice")), "task")
  expect_identical(arg_of(read_crop(fx$path, task = c("corn", "peas"))), "task")
  expect_identical(arg_of(read_crop(fx$path, drop = "f175")), "drop")
  expect_identical(arg_of(read_crop(fx$path, drop = "label")), "drop")
  expect_identical(arg_of(download_crop(dest = 1)), "dest")
  expect_identical(arg_of(download_crop(dest = tempfile(), url = NA_character_)),
                   "url")
})

test_that("crop_path() is in the user cache directory and reports existence", {
  path <- crop_path()
  expect_type(path, "character")
  expect_identical(as.character(path),
                   file.path(tools::R_user_dir("dpsco", "cache"),
                             "WinnipegDataset.txt"))
  expect_identical(attr(path, "exists"), file.exists(path))

  cache <- tempfile("cache")
  withr::local_envvar(R_USER_CACHE_DIR = cache)
  path <- crop_path()
  expect_true(startsWith(as.character(path), tools::R_user_dir("dpsco", "cache")))
  expect_true(startsWith(normalizePath(dirname(path), mustWork = FALSE),
                         normalizePath(cache, mustWork = FALSE)))
  expect_false(attr(path, "exists"))
  cnd <- expect_file_error(read_crop())
  expect_match(conditionMessage(cnd), "download_crop", fixed = TRUE)

  dir.create(dirname(path), recursive = TRUE)
  on.exit(unlink(cache, recursive = TRUE))
  fx <- crop_fixture(as.character(path))
  expect_true(attr(crop_path(), "exists"))
  expect_identical(read_crop(n = Inf)$x, read_crop(fx$path, n = Inf)$x)
})

test_that("download_crop() fetches a zip archive and extracts the file", {
  skip_if(!nzchar(Sys.which("zip")), "no zip program")
  fx <- crop_fixture()
  work <- tempfile("dl")
  dir.create(file.path(work, "inner"), recursive = TRUE)
  on.exit(unlink(c(fx$path, work), recursive = TRUE))
  file.copy(fx$path, file.path(work, "inner", "WinnipegDataset.txt"))
  zipfile <- file.path(work, "crop.zip")
  old <- setwd(work)
  utils::zip(zipfile, file.path("inner", "WinnipegDataset.txt"), flags = "-q")
  setwd(old)
  dest <- file.path(work, "cache", "WinnipegDataset.txt")
  url <- paste0("file://", normalizePath(zipfile))
  # a small file fails the size (and SHA-256) check against the original
  res <- suppressWarnings(suppressMessages(
    download_crop(dest = dest, url = url, quiet = TRUE)))
  expect_identical(as.character(res), dest)
  expect_false(attr(res, "size_ok"))
  expect_identical(readLines(dest), readLines(fx$path))
  warned <- character()
  withCallingHandlers(
    suppressMessages(download_crop(dest = dest, url = url, quiet = TRUE)),
    warning = function(w) {
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  expect_true(any(grepl("bytes", warned)))
  if (!is.null(crop_file_sha256(dest)))
    expect_true(any(grepl("SHA-256", warned)))
  # an existing file is kept unless overwrite = TRUE
  expect_message(suppressWarnings(download_crop(dest = dest, url = "file:///nowhere")),
                 "Already present")
})

test_that("the SHA-256 of a file is computed when a tool is available", {
  f <- tempfile()
  on.exit(unlink(f))
  writeBin(charToRaw("abc"), f)
  h <- crop_file_sha256(f)
  expect_true(is.null(h) || identical(
    h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
  expect_false(is.null(h) && nzchar(Sys.which("sha256sum")))
})

test_that("read_crop() hardening table: bad n, seed, task, drop and damaged files", {
  fx <- crop_fixture()
  lines <- readLines(fx$path)
  cut <- tempfile(fileext = ".txt")
  bin <- tempfile(fileext = ".txt")
  blank <- tempfile(fileext = ".txt")
  on.exit(unlink(c(fx$path, cut, bin, blank)))
  # a copy cut off in the middle of its last record, with no final newline
  cat(lines[1:5], substr(lines[6], 1, 60), file = cut, sep = "\n")
  writeBin(as.raw(c(0:255, 0:255)), bin)
  writeLines(c("", "", ""), blank)
  f <- fx$path
  table <- list(
    list(quote(read_crop(f, n = -1)), "n", "\\[1, Inf\\]"),
    list(quote(read_crop(f, n = 0.5)), "n", "\\[1, Inf\\]"),
    list(quote(read_crop(f, n = NA)), "n", "single number"),
    list(quote(read_crop(f, n = NaN)), "n", "single number"),
    list(quote(read_crop(f, n = c(5, 6))), "n", "single number"),
    list(quote(read_crop(f, seed = NA)), "seed", "single number"),
    list(quote(read_crop(f, task = NA)), "task", "one of"),
    list(quote(read_crop(f, drop = NA)), "drop", "feature name"),
    list(quote(read_crop(cut, n = Inf)), "file", "line 6 .* fields"),
    list(quote(read_crop(bin, n = Inf)), "file", "175"),
    list(quote(read_crop(blank, n = Inf)), "file", "header of 0 fields"),
    list(quote(read_crop(1, n = 5)), "file", "path")
  )
  for (case in table) {
    cnd <- tryCatch(eval(case[[1]]), dpsco_arg_error = function(e) e)
    lab <- deparse(case[[1]])
    expect_s3_class(cnd, "dpsco_arg_error")
    expect_identical(cnd$arg, case[[2]], label = lab)
    expect_match(conditionMessage(cnd), paste0("`", case[[2]], "`"), fixed = TRUE)
    expect_match(conditionMessage(cnd), case[[3]], label = lab)
  }
  # n far above the number of records: a warning and every record
  expect_warning(d <- read_crop(f, n = 1e300), "larger than the 21 records")
  expect_identical(d$rows, 1:21)
})
