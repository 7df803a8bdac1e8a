# bench/inference_real.R -- coverage of confint() on real populations
#
# What it measures
#   Whether the private intervals of dpsco(..., inference = TRUE) cover
#   glm()'s coefficients on real data, where no mean model is right.  The
#   population protocol: a whole real data set is the population, glm() on
#   all of it is the truth; each replication draws a subsample of n
#   records without replacement (n at most a quarter of the population),
#   fits dpsco(x, y, family, epsilon, inference = TRUE) with every other
#   argument at its default, and asks whether each 95% interval covers the
#   population's coefficient.  The anchor is glm() on the same subsample
#   with the HC0 sandwich standard error (its Wald interval).  A
#   simulation, not a test: bench/ is not part of the build.
#
# Populations (x as the user passes it: raw columns, no transform)
#   diamonds   ggplot2::diamonds without the 20 stones of length, width or
#              depth 0 (recording errors of extreme leverage, with which
#              glm-HC0 itself covers 0.8), 53,920: log(price) ~ carat +
#              depth + table + x; gaussian; carat and x (length in mm)
#              correlate 0.975 (a strongly collinear pair), carat is
#              right-skewed.
#   flights    nycflights13::flights with no missing value, 327,346:
#              arr_delay ~ dep_delay + distance + hour; gaussian; the
#              delays have long tails (dep_delay up to 1,301 minutes, its
#              99% quantile 191) and the errors are heteroscedastic.
#   cps        AER::CPS1988, 28,155: log(wage) ~ education + experience +
#              experience^2; gaussian; the two experience columns
#              correlate 0.95.
#   blog_log   dpsco::blog, 52,397: log1p(comments_next24h) ~ the raw
#              counts comments_total, comments_last24h, links_total,
#              post_length and hours_since_publication; gaussian;
#              heavy-tailed columns (comments_total up to 2,044, median 3;
#              post_length up to 57,894).
#   blog_any   the same x, y = comments_next24h > 0; binomial.
#   blog_log1p, blog_any1p  blog_log and blog_any with log1p() of each
#              column of x: the transform a user makes of skewed counts,
#              after which no few records carry most of the sandwich's
#              variance (on the raw columns, 0.1% of the records carry 72%
#              of glm-HC0's variance of comments_last24h's coefficient; the
#              score clips cannot keep that and stay private).
#   late       flights: arr_delay > 15 ~ dep_delay + distance + hour;
#              binomial, with the heavy-tailed dep_delay.
#   batting    Lahman::Batting with AB >= 1, 97,871: HR ~ log(AB) + BB +
#              SO; poisson, overdispersed, walks and strikeouts long-tailed.
# (blog's raw count on blog_log's x as a poisson population was tried and
# left out: glm-HC0 itself covers only 0.60 to 0.85 of its coefficients at
# n = 5,000 and 10,000, so the sandwich is no target to hold a private
# interval to.)
# Subsample sizes: n = 5,000 everywhere, and 10,000 on the populations of
# about 50,000 records or 20,000 on those of 80,000 or more (cps, of
# 28,155, has n = 5,000 only).  Epsilon 0.5, 1 and 2; delta and every
# other setting at dpsco()'s defaults.
#
# Per replication r of a cell (set.seed(cell_id * 1e5 + r)): the
# subsample, then the private fit (its seed follows the subsample's).
# Stored per coefficient: whether the private interval was returned and
# covers, its width against glm-HC0's, the stated sampling and privacy
# s.e.; glm-HC0's coverage.
#
# Seed spread: on `spread_subs` subsamples of each cell (default 5), the
# same subsample is fitted with `spread_seeds` private seeds (default 8);
# per coefficient, the sd of the estimates across seeds (pooled over the
# subsamples) against the root mean square of the stated privacy s.e.
# Target: within [0.8, 1.25].
#
# Targets: coverage >= 0.93 on average and >= 0.90 for the worst
# coefficient of every set wherever an interval is returned; width at
# n = 20,000, epsilon 1 (or the largest n of the set): gaussian <= 1.5x
# glm-HC0, binomial and poisson <= 1.6x; refusals <= 10% at n = 20,000,
# epsilon 1, p <= 10; seed spread / stated privacy s.e. in [0.8, 1.25].
#
# Command (from the top of the source tree; R_LIBS holds the version to
# measure, bench/install.sh puts the committed one and the data packages
# there):
#   R_LIBS=/tmp/benchlib Rscript bench/inference_real.R [reps] [cores] [cells]
#     reps   replications a cell (default 200)
#     cores  parallel::mclapply workers (default 2); each fit on one thread
#     cells  a regular expression on the cell names (default: all), e.g.
#            '^flights' or 'eps1$'; "tables" prints the tables of the
#            results file and runs nothing.
# Environment:
#   DPSCO_BENCH_OUT  the results file (default
#                    bench/results/inference-real.rds); a run merges its
#                    cells into it, so the study can run in parts.
#   DPSCO_SPREAD     "subsamples,seeds" of the seed-spread check (default
#                    "5,8"; "0,0" skips it).
#   DPSCO_INFERENCE  "heavy_tails": fit with inference = "heavy_tails"
#                    (default: inference = TRUE).
#   DPSCO_OPTS       R code evaluated before the study (options() of a
#                    variant, e.g. "options(dpsco.inference_refusal = 0.5)").

suppressPackageStartupMessages(library(dpsco))
if (nzchar(Sys.getenv("DPSCO_OPTS"))) eval(parse(text = Sys.getenv("DPSCO_OPTS")))
options(width = 200, dpsco.threads = 1L, warn = 1)
script_start <- proc.time()[["elapsed"]]

args <- commandArgs(TRUE)
reps <- if (length(args) >= 1L) as.integer(args[1L]) else 200L
cores <- if (length(args) >= 2L) as.integer(args[2L]) else 2L
cell_re <- if (length(args) >= 3L) args[3L] else "."
out_file <- Sys.getenv("DPSCO_BENCH_OUT",
                       file.path("bench", "results", "inference-real.rds"))
spread <- as.integer(strsplit(Sys.getenv("DPSCO_SPREAD", "5,8"), ",")[[1]])
inference_arg <- if (identical(Sys.getenv("DPSCO_INFERENCE"), "heavy_tails"))
  "heavy_tails" else TRUE
z95 <- stats::qnorm(0.975)

installed_commit <- function() {
  f <- system.file("BENCH_COMMIT", package = "dpsco")
  if (nzchar(f)) readLines(f)[1L] else "unknown (not installed by bench/install.sh)"
}

# ---------------------------------------------------------------------------
# The populations

need <- function(pkg) {
  if (!requireNamespace(pkg, quietly = TRUE)) {
    message("package ", pkg, " is not installed: its populations are skipped")
    return(FALSE)
  }
  TRUE
}

as_x <- function(df) {
  x <- as.matrix(df)
  storage.mode(x) <- "double"
  x
}

blog_x <- function(b)
  as_x(b[, c("comments_total", "comments_last24h", "links_total",
             "post_length", "hours_since_publication")])

population <- function(name) {
  e <- new.env()
  switch(name,
    diamonds = if (need("ggplot2")) {
      d <- ggplot2::diamonds
      # (the 20 stones with a length, width or depth of 0 are recording
      # errors, of extreme leverage: glm-HC0 itself covers 0.8 with them)
      d <- d[d$x > 0 & d$y > 0 & d$z > 0, ]
      list(family = "gaussian", x = as_x(d[, c("carat", "depth", "table", "x")]),
           y = log(d$price))
    },
    flights = , late = if (need("nycflights13")) {
      f <- as.data.frame(nycflights13::flights)
      f <- f[stats::complete.cases(f[, c("arr_delay", "dep_delay",
                                          "distance", "hour", "air_time")]), ]
      x <- as_x(f[, c("dep_delay", "distance", "hour")])
      if (name == "flights") list(family = "gaussian", x = x, y = f$arr_delay)
      else list(family = "binomial", x = x, y = as.double(f$arr_delay > 15))
    },
    cps = if (need("AER")) {
      utils::data("CPS1988", package = "AER", envir = e)
      d <- e$CPS1988
      list(family = "gaussian",
           x = cbind(education = d$education, experience = d$experience,
                     experience2 = d$experience^2),
           y = log(d$wage))
    },
    blog_log = , blog_any = , blog_log1p = , blog_any1p = {
      utils::data("blog", package = "dpsco", envir = e)
      y <- e$blog$comments_next24h
      x <- blog_x(e$blog)
      if (endsWith(name, "1p")) {
        x <- log1p(x)
        colnames(x) <- paste0("log1p_", colnames(x))
      }
      switch(sub("1p$", "", name),
             blog_log = list(family = "gaussian", x = x, y = log1p(y)),
             blog_any = list(family = "binomial", x = x, y = as.double(y > 0)))
    },
    batting = if (need("Lahman")) {
      b <- Lahman::Batting
      b <- b[b$AB >= 1 & stats::complete.cases(b[, c("HR", "AB", "BB", "SO")]), ]
      list(family = "poisson",
           x = cbind(log_AB = log(b$AB), BB = b$BB, SO = b$SO),
           y = as.double(b$HR))
    })
}

pop_names <- c("diamonds", "flights", "cps", "blog_log", "blog_any", "late",
               "batting", "blog_log1p", "blog_any1p")

glm_family <- function(f) switch(f, gaussian = stats::gaussian(),
                                 binomial = stats::binomial(),
                                 poisson = stats::poisson())

# glm on x, y: coefficients and HC0 standard errors
glm_hc0 <- function(x, y, family) {
  g <- suppressWarnings(stats::glm.fit(cbind(1, x), y, family = glm_family(family)))
  w <- cbind(1, x)
  mu <- g$fitted.values
  v <- switch(family, gaussian = rep(1, length(y)), binomial = mu * (1 - mu),
              poisson = mu)
  bread <- solve(crossprod(w * v, w))
  meat <- crossprod(w * (y - mu))
  list(coef = unname(g$coefficients),
       se = sqrt(diag(bread %*% meat %*% bread)))
}

# ---------------------------------------------------------------------------
# The cells

make_cells <- function() {
  sizes <- list(diamonds = c(5000, 10000), flights = c(5000, 20000),
                cps = 5000, blog_log = c(5000, 10000),
                blog_any = c(5000, 10000), late = c(5000, 20000),
                batting = c(5000, 20000), blog_log1p = c(5000, 10000),
                blog_any1p = c(5000, 10000))
  rows <- list()
  for (p in pop_names) for (n in sizes[[p]]) for (e in c(1, 0.5, 2))
    rows[[length(rows) + 1L]] <- data.frame(
      name = sprintf("%s_n%d_eps%s", p, n, format(e)), pop = p, n = n,
      eps = e, stringsAsFactors = FALSE)
  cells <- do.call(rbind, rows)
  cells$id <- seq_len(nrow(cells))
  cells
}

# One private fit: estimate, total, sampling and privacy s.e. (NA when
# refused).
private_fit <- function(x, y, family, eps) {
  t0 <- proc.time()[["elapsed"]]
  fit <- dpsco(x, y, family = family, epsilon = eps, inference = inference_arg)
  el <- proc.time()[["elapsed"]] - t0
  inf <- fit$inference
  d <- ncol(x) + 1L
  tab <- suppressWarnings(summary(fit)$coefficients)
  ok <- is.null(inf$refused)
  list(est = if (ok) unname(inf$estimate) else rep(NA_real_, d),
       se = if (ok) tab[, "Std. Error"] else rep(NA_real_, d),
       se_s = if (ok) tab[, "sampling"] else rep(NA_real_, d),
       se_p = if (ok) tab[, "privacy"] else rep(NA_real_, d),
       refused = !ok, reason = if (!ok) inf$refused else "", time = el)
}

run_cell <- function(cl, pop, truth) {
  N <- nrow(pop$x)
  one <- function(r) {
    set.seed(cl$id * 1e5 + r)
    idx <- sample.int(N, cl$n)
    x <- pop$x[idx, , drop = FALSE]
    y <- pop$y[idx]
    g <- glm_hc0(x, y, pop$family)
    pf <- private_fit(x, y, pop$family, cl$eps)
    list(r = r, pf = pf, glm = g)
  }
  res <- parallel::mclapply(seq_len(reps), one, mc.cores = cores,
                            mc.preschedule = FALSE)
  bad <- vapply(res, inherits, NA, "try-error")
  if (any(bad)) stop("cell ", cl$name, ": ", res[[which(bad)[1]]])
  spread_res <- NULL
  if (spread[1] > 0) {
    sp <- function(k) {
      set.seed(cl$id * 1e5 + 90000 + k)
      idx <- sample.int(N, cl$n)
      x <- pop$x[idx, , drop = FALSE]
      y <- pop$y[idx]
      lapply(seq_len(spread[2]), function(s) {
        set.seed(cl$id * 1e5 + 95000 + 100 * k + s)
        private_fit(x, y, pop$family, cl$eps)
      })
    }
    spread_res <- parallel::mclapply(seq_len(spread[1]), sp, mc.cores = cores,
                                     mc.preschedule = FALSE)
  }
  list(cell = cl, truth = truth, names = c("(Intercept)", colnames(pop$x)),
       res = res, spread = spread_res)
}

# ---------------------------------------------------------------------------
# Tables

summarise_cell <- function(cr) {
  tr <- cr$truth
  d <- length(tr)
  est <- t(vapply(cr$res, function(r) r$pf$est, numeric(d)))
  se <- t(vapply(cr$res, function(r) r$pf$se, numeric(d)))
  ref <- vapply(cr$res, function(r) r$pf$refused, NA)
  gest <- t(vapply(cr$res, function(r) r$glm$coef, numeric(d)))
  gse <- t(vapply(cr$res, function(r) r$glm$se, numeric(d)))
  ok <- !ref & apply(is.finite(se), 1, all)
  cov <- abs(est - rep(tr, each = nrow(est))) <= z95 * se
  gcov <- abs(gest - rep(tr, each = nrow(gest))) <= z95 * gse
  per <- data.frame(
    coef = cr$names,
    coverage = if (any(ok)) colMeans(cov[ok, , drop = FALSE]) else NA,
    width = if (any(ok)) apply((se / gse)[ok, , drop = FALSE], 2, stats::median) else NA,
    glm_hc0 = colMeans(gcov), stringsAsFactors = FALSE)
  sp <- rep(NA_real_, d)
  if (!is.null(cr$spread)) {
    # per coefficient: the sd across seeds within a subsample (pooled over
    # subsamples) against the root mean square stated privacy s.e.
    within <- lapply(cr$spread, function(runs) {
      e <- t(vapply(runs, function(r) r$est, numeric(d)))
      s <- t(vapply(runs, function(r) r$se_p, numeric(d)))
      list(var = apply(e, 2, stats::var, na.rm = TRUE),
           sp2 = colMeans(s^2, na.rm = TRUE))
    })
    v <- rowMeans(vapply(within, `[[`, numeric(d), "var"), na.rm = TRUE)
    s2 <- rowMeans(vapply(within, `[[`, numeric(d), "sp2"), na.rm = TRUE)
    sp <- sqrt(v / s2)
  }
  per$spread <- sp
  list(per = per, refused = mean(ref), returned = sum(ok),
       time = stats::median(vapply(cr$res, function(r) r$pf$time, 0)),
       reasons = table(vapply(cr$res, function(r) substr(r$pf$reason, 1, 60), "")))
}

print_tables <- function(all) {
  cat("\nPer cell: returned / reps, refused share, coverage mean and worst",
      "coefficient, median width / glm-HC0 (max over coefficients),",
      "glm-HC0's coverage (mean, worst), seed spread / stated privacy s.e.",
      "(range over coefficients), median fit time\n\n")
  rows <- lapply(all, function(cr) {
    s <- summarise_cell(cr)
    p <- s$per
    data.frame(cell = cr$cell$name, returned = sprintf("%d/%d", s$returned, length(cr$res)),
               refused = round(s$refused, 3),
               cov_mean = round(mean(p$coverage), 3),
               cov_worst = round(min(p$coverage), 3),
               worst_coef = p$coef[which.min(p$coverage)][1],
               width_med = round(stats::median(p$width), 2),
               width_max = round(max(p$width), 2),
               hc0_mean = round(mean(p$glm_hc0), 3),
               hc0_worst = round(min(p$glm_hc0), 3),
               spread = if (all(is.na(p$spread))) "-" else
                 sprintf("%.2f-%.2f", min(p$spread), max(p$spread)),
               time = round(s$time, 2), stringsAsFactors = FALSE)
  })
  print(do.call(rbind, rows), row.names = FALSE)
  cat("\nPer coefficient\n")
  for (cr in all) {
    s <- summarise_cell(cr)
    cat("\n", cr$cell$name, " (refused ", round(s$refused, 3), ")\n", sep = "")
    p <- s$per
    p[, -1] <- round(p[, -1], 3)
    print(p, row.names = FALSE)
    if (s$refused > 0) print(s$reasons)
  }
}

# ---------------------------------------------------------------------------

all_cells <- make_cells()
results <- if (file.exists(out_file)) readRDS(out_file) else list()
if (cell_re != "tables") {
  cells <- all_cells[grepl(cell_re, all_cells$name), , drop = FALSE]
  if (!nrow(cells)) stop("no cell matches '", cell_re, "'")
  cat("dpsco", as.character(utils::packageVersion("dpsco")), "commit",
      installed_commit(), "\n")
  cat(reps, "replications a cell on", cores, "cores; seed spread",
      spread[1], "subsamples x", spread[2], "seeds\n")
  for (pn in unique(cells$pop)) {
    pop <- population(pn)
    if (is.null(pop)) next
    truth <- glm_hc0(pop$x, pop$y, pop$family)$coef
    for (i in which(cells$pop == pn)) {
      cl <- cells[i, ]
      t0 <- proc.time()[["elapsed"]]
      cr <- run_cell(cl, pop, truth)
      cr$commit <- installed_commit()
      results[[cl$name]] <- cr
      saveRDS(results, out_file)
      s <- summarise_cell(cr)
      cat(sprintf("%-26s cov %.3f (worst %.3f, %s) width %.2f refused %.2f spread %s  [%.0f s]\n",
                  cl$name, mean(s$per$coverage), min(s$per$coverage),
                  s$per$coef[which.min(s$per$coverage)][1],
                  stats::median(s$per$width), s$refused,
                  paste(round(s$per$spread, 2), collapse = " "),
                  proc.time()[["elapsed"]] - t0))
    }
  }
}
# The markdown table of bench/README.md: one row per cell.
print_markdown <- function(all) {
  cat("\n| cell | returned | coverage mean | worst (coefficient) | width median (max) | glm-HC0 mean / worst | spread / privacy s.e. |\n")
  cat("|---|---:|---:|---|---|---|---|\n")
  for (cr in all) {
    s <- summarise_cell(cr)
    p <- s$per
    w <- which.min(p$coverage)
    cat(sprintf("| %s | %d/%d | %s | %s | %s | %.3f / %.3f | %s |\n",
                cr$cell$name, s$returned, length(cr$res),
                if (s$returned) sprintf("%.3f", mean(p$coverage)) else "-",
                if (s$returned) sprintf("%.3f (%s)", p$coverage[w], p$coef[w]) else "-",
                if (s$returned) sprintf("%.2f (%.2f)", stats::median(p$width), max(p$width)) else "-",
                mean(p$glm_hc0), min(p$glm_hc0),
                if (all(is.na(p$spread))) "-" else
                  sprintf("%.2f-%.2f", min(p$spread, na.rm = TRUE),
                          max(p$spread, na.rm = TRUE))))
  }
}

sel <- results[intersect(all_cells$name, names(results))]
if (length(sel)) {
  print_tables(sel)
  print_markdown(sel)
}
cat("\ntotal", round(proc.time()[["elapsed"]] - script_start), "s\n")
