# bench/dp_summary.R -- accuracy of the private Table 1 on real data
#
# What it measures
#   dp_summary(data, epsilon) on two real data frames of 10,000 rows (a
#   fixed subsample of each, as a user's data set), over `seeds` private
#   seeds at each epsilon:
#     cps       AER::CPS1988: wage (heavy-tailed), education, experience;
#               factors ethnicity, smsa, region, parttime
#     diamonds  ggplot2::diamonds: price and carat (right-skewed), depth,
#               table; factors cut, color, clarity (5, 7 and 8 levels)
#   with every range private (none declared), and per numeric column:
#     cover3    the share of seeds whose mean is within 3 stated noise sds
#               (noise_sd) of the column's mean (target: 0.95)
#     mean_err  the median |mean - truth| over the column's sd
#     sd_ratio  the median private sd over the sample sd (the sd is of
#               the distances clamped at sd_clamp: below 1 on heavy tails)
#     q_oct     the share of seeds whose first and third quartiles each
#               lie within one octave of the distance from the released
#               mean of the sample quartile (same sign, ceiling(log2
#               |q - mean|) within 1; target: all)
#     q_err     the median over seeds of the larger |quartile - truth|
#               (first and third) over the column's sd
#     med_err   the same for the median (an octave of a distance near 0
#               is no unit for it: in the innermost octave the reading is
#               linear from the mean out)
#   and per factor: the largest |share - truth| (median over seeds) and
#   the shares' stated noise sd.  A simulation of the released noise, not
#   a test: bench/ is not part of the build.
#
# Command (from the top of the source tree; R_LIBS with dpsco and the
# data packages, as bench/install.sh installs them):
#   R_LIBS=/tmp/benchlib Rscript bench/dp_summary.R [seeds]   # about 1 min

suppressPackageStartupMessages(library(dpsco))
options(width = 200)
args <- commandArgs(TRUE)
seeds <- if (length(args)) as.integer(args[1L]) else 200L

frames <- list()
if (requireNamespace("AER", quietly = TRUE)) {
  e <- new.env()
  utils::data("CPS1988", package = "AER", envir = e)
  d <- e$CPS1988
  set.seed(1)
  frames$cps <- d[sample.int(nrow(d), 10000), c("wage", "education", "experience",
                                               "ethnicity", "smsa", "region",
                                               "parttime")]
}
if (requireNamespace("ggplot2", quietly = TRUE)) {
  d <- as.data.frame(ggplot2::diamonds)
  set.seed(2)
  d <- d[sample.int(nrow(d), 10000), c("price", "carat", "depth", "table",
                                      "cut", "color", "clarity")]
  # (ordered factors: their levels are the schema)
  for (v in c("cut", "color", "clarity")) d[[v]] <- factor(d[[v]], ordered = FALSE)
  frames$diamonds <- d
}
if (!length(frames)) stop("neither AER nor ggplot2 is installed")

octave_of <- function(v) sign(v) * ceiling(log2(abs(v)))

one_frame <- function(name, df, eps) {
  num <- names(df)[vapply(df, is.numeric, NA)]
  fac <- setdiff(names(df), num)
  truth <- lapply(df[num], function(v)
    c(mean = mean(v), sd = stats::sd(v),
      stats::quantile(v, c(0.25, 0.5, 0.75), names = FALSE)))
  share_truth <- lapply(df[fac], function(v) as.double(table(v)) / nrow(df))
  runs <- lapply(seq_len(seeds), function(s) {
    set.seed(1000 + s)
    dp_summary(df, epsilon = eps)
  })
  rows <- lapply(num, function(v) {
    t <- truth[[v]]
    r <- t(vapply(runs, function(tab) {
      x <- tab[tab$variable == v, ]
      q <- c(x$q25, x$median, x$q75)
      c(cover = abs(x$mean - t[1]) <= 3 * x$noise_sd,
        err = abs(x$mean - t[1]) / t[2], sd = x$sd / t[2],
        oct = all(abs(octave_of(q[-2] - x$mean) - octave_of(t[c(3, 5)] - x$mean)) <= 1),
        qerr = max(abs(q[-2] - t[c(3, 5)])) / t[2], noise = x$noise_sd / t[2],
        med = abs(q[2] - t[4]) / t[2])
    }, numeric(7)))
    data.frame(frame = name, eps = eps, column = v, cover3 = mean(r[, 1]),
               mean_err = stats::median(r[, 2]), noise_sd = stats::median(r[, 6]),
               sd_ratio = stats::median(r[, 3]), q_oct = mean(r[, 4]),
               q_err = stats::median(r[, 5]), med_err = stats::median(r[, 7]))
  })
  lev <- lapply(fac, function(v) {
    err <- vapply(runs, function(tab)
      max(abs(tab$share[tab$variable == v] - share_truth[[v]])), 0)
    data.frame(frame = name, eps = eps, factor = v,
               levels = length(share_truth[[v]]),
               share_err = stats::median(err),
               noise_sd = runs[[1L]]$noise_sd[runs[[1L]]$variable == v][1L])
  })
  list(num = do.call(rbind, rows), fac = do.call(rbind, lev))
}

cat("dpsco", as.character(utils::packageVersion("dpsco")), "-",
    seeds, "private seeds a cell, 10,000 rows, no range declared\n\n")
res <- lapply(c(0.5, 1, 2), function(eps)
  lapply(names(frames), function(nm) one_frame(nm, frames[[nm]], eps)))
res <- unlist(res, recursive = FALSE)
num <- do.call(rbind, lapply(res, `[[`, "num"))
fac <- do.call(rbind, lapply(res, `[[`, "fac"))
cat("Numeric columns (errors and noise sd in units of the column's sd)\n")
print(format(num, digits = 3), row.names = FALSE)
cat("\nFactors: the largest error of a level's share (median over seeds)\n")
print(format(fac, digits = 3), row.names = FALSE)
