# bench/ranges.R -- the private bounds on |x_j| and the range of y at small n
#
# What it measures
#   How far the released bounds of tuning = "private" are from the data
#   they bound: per column, B_j / q99(|x_j|), the released bound over the
#   training data's 99th percentile of |x_j|, and for y, y_bound /
#   q99(|y|); the share of columns whose ratio lies in [0.5, 4] (the
#   target: at least 90% at training n >= 200, epsilon 1), the share that
#   got the fallback bound 1 (no octave cleared the noise), the median
#   ratio; and the error of the released centre of y, |centre - mean(y)| /
#   sd(y) on the training data.
#   Data sets (mlbench, complete cases, numeric columns; y the data set's
#   numeric response, else its last numeric column):
#     boston   BostonHousing: 13 x (chas as 0/1), y = medv;
#     pima     PimaIndiansDiabetes: 7 x, y = age (the last column);
#     servo    Servo: Motor, Screw as dummies, Pgain, Vgain, y = Class;
#     ozone    Ozone complete cases: V1-V3, V5-V13, y = V4 (daily max ozone);
#     vehicle  Vehicle: 17 x, y = the 18th numeric column (Hollows.Ra);
#     heavy    simulated, n = 1000, p = 10: log-normal (sdlog 2), t_2,
#              Pareto (alpha 1.5), Cauchy, exponential, uniform, 90%-zero
#              log-normal, Gaussian (x 1000), two N(0, 1);
#              y = x beta + t_3 noise on the log scale of x.
#   Splits: 70% training subsets, seeds 1..20 (set.seed(seed); sample.int).
#   Privacy: epsilon 0.5, 1, 2, delta = 0.1 / n_train (the default).
#   Part 1 (rule): the scale release exactly as tune_private() forms it
#   (dpsco:::octave_release() on the counts of the package's passes, the
#   noise multiplier of the share "scale" of one release meeting
#   (epsilon, delta)), with the package's estimator under a few rules:
#   the chosen one and one change at a time (share, k, tau, f).
#   Part 2 (fits): dpsco(x, y, epsilon) with every default, the bounds,
#   range and centre read from its privacy record; run it under another
#   installed version (R_LIBS) to compare (part 1 needs 0.12.0's
#   estimator and is skipped without it).
#
# Command (from the top of the source tree):
#   R_LIBS=/tmp/lib-ranges Rscript bench/ranges.R [seeds]
#   (about 30 s alone on 2 cores, 76 s beside the test suite;
#   DPSCO_BENCH_PART=fits runs part 2 only, which 0.11.0 runs too)
#
# Results (2026-11-27, 20 seeds; share of columns within [0.5, 4] x q99,
# of splits whose y bound is within; epsilon 0.5 / 1 / 2):
#   rule k 3, tau 0.01, f 2, share 0.2 (part 1)
#     mlbench n >= 200 (boston, pima, vehicle)  x 0.79 / 0.92 / 0.96,
#                                               y 1.00 / 1.00 / 1.00
#     mlbench n < 200 (servo 117, ozone 142)    x 0.42 / 0.58 / 0.84,
#                                               y 0.72 / 1.00 / 1.00
#     heavy (700)                               x 0.44 / 0.54 / 0.72,
#                                               y 1.00 / 1.00 / 1.00
#   the default fits (part 2), x / y at epsilon 1, with 0.11.0's
#   log-moment bounds in brackets:
#     mlbench n >= 200  x 0.93 (0.20)   y 0.98 (0.50)
#     mlbench n < 200   x 0.54 (0.41)   y 1.00 (0.25)
#     heavy             x 0.56 (0.28)   y 1.00 (0.50)
#   median |centre - mean(y)| / sd(y) at epsilon 1: boston 0.20 (0.49),
#   pima 0.06 (0.49), vehicle 0.56 (5.4), servo 0.47 (2.9), ozone 0.29
#   (2.5), heavy 0.08 (0.17).

suppressPackageStartupMessages(library(dpsco))
options(width = 150)
args <- commandArgs(TRUE)
n_seeds <- if (length(args)) as.integer(args[1L]) else 20L
part <- Sys.getenv("DPSCO_BENCH_PART", "all")
eps_grid <- c(0.5, 1, 2)
t_start <- proc.time()[["elapsed"]]
cat(sprintf("dpsco %s from %s; %d seeds; %s\n", utils::packageVersion("dpsco"),
            find.package("dpsco"), n_seeds, format(Sys.time(), "%Y-%m-%d %H:%M")))

# ---- data ------------------------------------------------------------------
num <- function(d) sapply(d, function(v) as.numeric(as.character(v)))
load_sets <- function() {
  e <- new.env()
  utils::data(list = c("BostonHousing", "PimaIndiansDiabetes", "Servo",
                       "Ozone", "Vehicle"), package = "mlbench", envir = e)
  b <- e$BostonHousing
  b$chas <- as.numeric(as.character(b$chas))
  s <- e$Servo
  sx <- cbind(stats::model.matrix(~ Motor + Screw - 1, s),
              Pgain = as.numeric(s$Pgain), Vgain = as.numeric(s$Vgain))
  o <- num(e$Ozone[stats::complete.cases(e$Ozone), ])
  pm <- as.matrix(e$PimaIndiansDiabetes[, 1:8])
  vh <- as.matrix(e$Vehicle[, 1:18])
  set.seed(99)
  n <- 1000
  hx <- cbind(lognormal = exp(stats::rnorm(n, 0, 2)), t2 = stats::rt(n, 2),
              pareto = (1 - stats::runif(n))^(-1 / 1.5),
              cauchy = stats::rcauchy(n), exponential = stats::rexp(n),
              uniform = stats::runif(n, -3, 3),
              sparse = exp(stats::rnorm(n)) * (stats::runif(n) < 0.1),
              gauss1000 = 1000 * stats::rnorm(n), n1 = stats::rnorm(n),
              n2 = stats::rnorm(n))
  hy <- drop(sign(hx) * log1p(abs(hx))) %*% c(1, -1, 0.5, 0, 1, 0.3, 2, 0, 1, -1)
  hy <- drop(hy) + stats::rt(n, 3)
  list(boston = list(x = as.matrix(b[, 1:13]), y = b$medv),
       pima = list(x = pm[, 1:7], y = pm[, 8]),
       servo = list(x = sx, y = as.numeric(s$Class)),
       ozone = list(x = o[, -4], y = o[, 4]),
       vehicle = list(x = vh[, 1:17], y = vh[, 18]),
       heavy = list(x = hx, y = hy))
}
sets <- load_sets()
splits <- function(d, seed) {
  set.seed(seed)
  tr <- sample.int(nrow(d$x), round(0.7 * nrow(d$x)))
  list(x = d$x[tr, , drop = FALSE], y = d$y[tr])
}
q99 <- function(v) stats::quantile(abs(v), 0.99, names = FALSE)
cat("training n:", paste(names(sets), sapply(sets, function(d)
  round(0.7 * nrow(d$x))), collapse = ", "), "\n\n")

ok <- function(r) r >= 0.5 & r <= 4
# the target's groups: the mlbench sets at training n >= 200 and below,
# the simulated heavy-tailed design on its own
size_class <- function(rows)
  ifelse(rows$set == "heavy", "heavy (700)",
         ifelse(rows$n >= 200, "mlbench n >= 200", "mlbench n < 200"))
# per group of `by`: the share of columns within [0.5, 4] x q99, of
# columns with the fallback bound 1, and of splits whose y bound is within
# (each split's y counted once)
summarise <- function(rows, by, extra = NULL) {
  key <- interaction(rows[by], drop = TRUE, lex.order = TRUE)
  one_y <- !duplicated(rows[c(by, "seed", "set")])
  out <- do.call(rbind, lapply(split(seq_len(nrow(rows)), key), function(i) {
    r <- rows[i, ]
    o <- data.frame(r[1L, by, drop = FALSE], x_within = round(mean(r$x_ok), 2),
                    x_fallback = round(mean(r$x_one), 2))
    if (!is.null(r$x_low)) {
      o$x_below <- round(mean(r$x_low), 2)
      o$x_above <- round(mean(r$x_high), 2)
    }
    o <- data.frame(o,
                    y_within = round(mean(r$y_ok[one_y[i]]), 2))
    if (!is.null(extra)) o[[extra]] <- signif(stats::median(r[[extra]][one_y[i]]), 2)
    o
  }))
  rownames(out) <- NULL
  out
}

# ---- part 1: the rule ------------------------------------------------------
has_rule <- exists("octave_bound", envir = asNamespace("dpsco"))
if (part != "fits" && has_rule) {
  ns <- asNamespace("dpsco")
  base <- list(share = 0.2, k = 3, tau = 0.01, f = 2, wy = 1)
  variants <- list(chosen = base,
                   `share 0.1` = utils::modifyList(base, list(share = 0.1)),
                   `share 0.3` = utils::modifyList(base, list(share = 0.3)),
                   `k 2.5` = utils::modifyList(base, list(k = 2.5)),
                   `k 3.5` = utils::modifyList(base, list(k = 3.5)),
                   `tau 0.005` = utils::modifyList(base, list(tau = 0.005)),
                   `tau 0.02` = utils::modifyList(base, list(tau = 0.02)),
                   `f 1.5` = utils::modifyList(base, list(f = 1.5)),
                   `f 3` = utils::modifyList(base, list(f = 3)),
                   `y weight sqrt(p)/2` = utils::modifyList(base, list(wy = 0.5)),
                   `k 2.5, share 0.3` = utils::modifyList(base, list(k = 2.5, share = 0.3)))
  rows <- list()
  for (nm in names(sets)) for (seed in seq_len(n_seeds)) {
    d <- splits(sets[[nm]], seed)
    n <- nrow(d$x)
    p <- ncol(d$x)
    cx <- ns$design_octaves(d$x)
    cy <- ns$signed_octave_counts(d$y)
    qx <- apply(d$x, 2, q99)
    qy <- q99(d$y)
    for (eps in eps_grid) {
      z1 <- ns$calibrate_noise(list(), 1, 1, eps, 0.1 / n)
      for (v in names(variants)) {
        r <- variants[[v]]
        set.seed(1000 * seed + round(10 * eps))
        rel <- ns$octave_release(cx, cy, ns$part_multiplier(z1, r$share),
                                 c(rep(1, p), r$wy * sqrt(p)))
        B <- vapply(seq_len(p), function(j) ns$octave_bound(rel$x[, j], rel$sd[j], r), 0)
        yr <- ns$signed_octave_range(rel$y, rel$sd[p + 1L], r)
        rows[[length(rows) + 1L]] <- data.frame(
          variant = v, set = nm, seed = seed, n = n, eps = eps, col = colnames(d$x),
          ratio = B / qx, x_ok = ok(B / qx), x_one = B == 1,
          x_low = B / qx < 0.5, x_high = B / qx > 4,
          y_ok = ok(max(abs(yr)) / qy))
      }
    }
  }
  rows <- do.call(rbind, rows)
  rows$size <- size_class(rows)
  cat("== Part 1: the rule (share of the budget, k, tau, f), columns within [0.5, 4] x q99\n")
  cat("-- every variant, by epsilon and training size (y: one per split)\n")
  print(stats::reshape(summarise(rows, c("variant", "eps", "size")),
                       idvar = c("variant", "size"), timevar = "eps",
                       direction = "wide"), row.names = FALSE)
  ch <- rows[rows$variant == "chosen", ]
  cat("\n-- the chosen rule, by data set and epsilon\n")
  print(stats::reshape(summarise(ch, c("set", "n", "eps")),
                       idvar = c("set", "n"), timevar = "eps",
                       direction = "wide"), row.names = FALSE)
  cat("\n-- the chosen rule at epsilon 1: columns outside [0.5, 4] in more than",
      "20% of the splits (share outside, median ratio)\n")
  c1 <- ch[ch$eps == 1, ]
  bad <- stats::aggregate(cbind(out = !c1$x_ok, median_ratio = c1$ratio) ~ set + col,
                          c1, function(v) if (is.logical(v)) mean(v) else stats::median(v))
  bad <- bad[bad$out > 0.2, ]
  bad$out <- round(bad$out, 2)
  bad$median_ratio <- signif(bad$median_ratio, 3)
  print(bad[order(bad$set, -bad$out), ], row.names = FALSE)
  cat("\n")
}

# ---- part 2: the fits ------------------------------------------------------
cat("== Part 2: dpsco(x, y, epsilon) with every default\n")
fits <- list()
for (nm in names(sets)) for (seed in seq_len(n_seeds)) {
  d <- splits(sets[[nm]], seed)
  qx <- apply(d$x, 2, q99)
  qy <- q99(d$y)
  for (eps in eps_grid) {
    f <- tryCatch(dpsco(d$x, d$y, epsilon = eps, nlambda = 5), error = function(e) e)
    if (inherits(f, "error")) {
      cat("  error:", nm, seed, eps, conditionMessage(f), "\n")
      next
    }
    rel <- privacy(f)$released
    yb <- rel$y_bound
    fits[[length(fits) + 1L]] <- data.frame(
      set = nm, seed = seed, n = nrow(d$x), eps = eps, col = colnames(d$x),
      x_ok = ok(rel$x_bound / qx), x_one = rel$x_bound == 1,
      y_ok = ok(yb / qy),
      centre_err = abs(rel$centre - mean(d$y)) / stats::sd(d$y))
  }
}
fits <- do.call(rbind, fits)
a <- summarise(fits, c("set", "n", "eps"), "centre_err")
print(stats::reshape(a, idvar = c("set", "n"), timevar = "eps",
                     direction = "wide"), row.names = FALSE)
fits$size <- size_class(fits)
cat("\n-- by training size (all sets):\n")
print(stats::reshape(summarise(fits, c("size", "eps")), idvar = "size",
                     timevar = "eps", direction = "wide"), row.names = FALSE)
cat(sprintf("\n(centre_err: median |centre - mean(y)| / sd(y) over splits)\nrun time %.0f s\n",
            proc.time()[["elapsed"]] - t_start))
