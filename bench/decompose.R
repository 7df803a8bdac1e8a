# bench/decompose.R -- where each private method loses its gap to glmnet:
# clamping, optimiser, noise and the private choice of lambda (issue 36)
#
# What it measures
#   For real data sets passed as a user passes them (bench/data.R: blog,
#   Satellite binary and six-class, diamonds, spam), the gain fraction G of
#   each private method (clip, kamath, holland) at four stages between
#   glmnet and the full private fit:
#     (a)  clamped glmnet: glmnet::cv.glmnet at lambda.min on the features
#          the private fit of (c) works on, clamp((x - center) / scale, -1, 1)
#          with center = f$standardize$center, scale = f$standardize$scale of
#          f = cv$dpsco.fit (the private centre and scale of x, the released
#          bounds B_j folded into the scale); for gaussian y is clamped to
#          f$settings$y_range as well (when it is not NULL).  Scored on the
#          clamped test x and the raw test y.  Non-private, converged.
#     (a') gaussian only: the same with the raw training y.  The lambda path
#          does not clamp y itself (the engine gets the raw y; its residual
#          gradients are clipped and y_range bounds the domain and the
#          centre), so (a') is the converged fit on the private fit's own
#          inputs, and (a) - (a') is what clamping y would cost.
#     (a_b) glmnet as in (a) on the clamp of the fit of (b) (off with
#          DPSCO_BENCH_AB=0).  The private bounds, the lambda grid and the
#          clipping level are released again at epsilon 1e4, and they are
#          not those of (c): at small noise the bounds follow the largest
#          values, not the bulk, of each column (spam, holland: scales 32 to
#          256 against 1 to 4 at epsilon 1), so (b) clamps x less and scales
#          it further down.  (a) - (a_b) is that difference; a_b - b* is the
#          optimiser on (b)'s own features.
#     (b)  no noise: the call of (c) with epsilon = 1e4 (every setting still
#          released privately, at negligible noise), scored at its private
#          choice, lambda.min;
#     (b*) the same fit at the lambda best ON THE TEST SET (an oracle);
#     (c)  the full private fit at epsilon:
#            cv <- dpsco::cv.dpsco(x_train, y_train, family = fam, method = m,
#                                  epsilon = eps, delta = 0.1 / n_train)
#            predict(cv, x_test, s = "lambda.min", type = "response")
#          (binomial: class 1 when the probability is > 0.5; multinomial:
#          type = "class");
#     (c*) the path cv$dpsco.fit of (c) at the lambda best on the test set
#          (predict(cv$dpsco.fit, x_test, type = "response"), one column per
#          lambda; multinomial: an n x K x nlambda array, classified by the
#          largest probability).
#   Both cv.dpsco() paths are fitted on the fitting part of the training
#   records only (cv.dpsco() holds the rest out for its private choice),
#   while (a) uses every training record.
#   G = (RMSE_null - RMSE) / (RMSE_null - RMSE_glmnet)   (gaussian)
#   G = (acc - acc_null) / (acc_glmnet - acc_null)       (binomial, multinomial)
#   null = the training mean / the training majority class; glmnet =
#   glmnet::cv.glmnet(x, y, family) at lambda.min on the raw training x.
#   The gaps, which add up to 1 - G(c):
#     clamping  = 1 - G(a)       (the private features, and y, against raw)
#     optimiser = G(a) - G(b*)   (the private optimiser at no noise against
#                                 convergence, incl. its smaller fitting part)
#     noise     = G(b*) - G(c*)  (the noise at epsilon along the path)
#     selection = G(c*) - G(c)   (the private choice against the oracle)
#   Splits: for seed s = 1..S, set.seed(s), the training rows are
#   sample.int(n, round(0.7 n)), the test set the rest; delta = 0.1 / n_train.
#   Each fit is seeded (set.seed) from its split, method, epsilon and stage.
#   A fit that stops with an error gives NA (message printed once).
#
# Output, per data set and epsilon: the null and glmnet test metric (mean
#   (sd) over splits); the test metric of every stage and method; G of every
#   stage and the four gaps per method, each computed from the split means,
#   with the sd over splits of the per-split value in parentheses; the share
#   of training entries of x (and, gaussian, of y) that the clamp moved;
#   seconds per fit.
#
# Settings (environment variables):
#   DPSCO_BENCH_SPLITS   number of splits (default 5; seeds 1..S)
#   DPSCO_BENCH_EPS      comma list of epsilons (default 1)
#   DPSCO_BENCH_METHODS  comma list of methods (default clip,kamath,holland)
#   DPSCO_BENCH_DATA     comma list of data sets
#                        (default blog,satellite,satellite6,diamonds,spam)
#   DPSCO_BENCH_AB       0 to leave out (a_b) (default 1)
#   DPSCO_BENCH_OUT      if set, a file to saveRDS() the raw per-fit rows into
#   A data set whose package is missing (mlbench, ggplot2, kernlab) is skipped
#   with a note; without glmnet the script stops.
#
# Command (from the top of the source tree):
#   sh bench/install.sh       # once: HEAD, compiled from scratch, into /tmp/benchlib
#   R_LIBS=/tmp/benchlib Rscript bench/decompose.R
#   DPSCO_BENCH_SPLITS=1 DPSCO_BENCH_DATA=spam R_LIBS=/tmp/benchlib Rscript bench/decompose.R
# One split costs per data set 1 + 6 (gaussian: 9) cv.glmnet fits and 6
# cv.dpsco fits per epsilon (3 methods).  Measured with 1 split, epsilon 1
# (2 cores shared with other jobs): blog 210 s, satellite6 304 s (the
# multinomial cv.glmnet, about 40 s a fit), spam 39 s, satellite 22 s,
# diamonds 13 s; DPSCO_BENCH_AB=0 saves about a third of that.

suppressPackageStartupMessages(library(dpsco))
options(width = 200)

script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
source(file.path(script_dir, "data.R"))

n_splits <- as.integer(Sys.getenv("DPSCO_BENCH_SPLITS", "5"))
eps_grid <- as.numeric(env_list("DPSCO_BENCH_EPS", "1"))
methods <- env_list("DPSCO_BENCH_METHODS", "clip,kamath,holland")
data_sets <- tolower(env_list("DPSCO_BENCH_DATA", "blog,satellite,satellite6,diamonds,spam"))
out_file <- Sys.getenv("DPSCO_BENCH_OUT", "")
eps_nonoise <- 1e4
with_ab <- Sys.getenv("DPSCO_BENCH_AB", "1") != "0"
if (is.na(n_splits) || n_splits < 1L) stop("DPSCO_BENCH_SPLITS must be a positive integer")
if (!length(eps_grid) || anyNA(eps_grid) || any(eps_grid <= 0))
  stop("DPSCO_BENCH_EPS must be a comma list of positive numbers")
unknown <- setdiff(data_sets, names(data_package))
if (length(unknown)) stop("DPSCO_BENCH_DATA: unknown data set(s) ", paste(unknown, collapse = ", "))
if (!requireNamespace("glmnet", quietly = TRUE)) stop("bench/decompose.R needs glmnet")
script_start <- proc.time()[["elapsed"]]

cat(sprintf("bench/decompose.R: dpsco %s, commit %s; glmnet %s\n",
            utils::packageVersion("dpsco"), installed_commit(),
            utils::packageVersion("glmnet")))
cat(sprintf("R %s, %s; splits 1..%d, epsilon %s (no noise: %g), delta = 0.1/n_train,\nmethods %s, data %s\n\n",
            getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M %Z"), n_splits,
            paste(eps_grid, collapse = ", "), eps_nonoise,
            paste(methods, collapse = ", "), paste(data_sets, collapse = ", ")))

# ---- scoring ------------------------------------------------------------------

# one column per candidate: numbers (gaussian: predictions; binomial:
# probabilities or 0/1) or class labels (multinomial)
score <- function(pred, y, family) {
  pred <- as.matrix(pred)
  switch(family,
    gaussian = sqrt(colMeans((pred - y)^2)),
    binomial = colMeans((pred > 0.5) == (y == 1)),
    multinomial = colMeans(pred == as.character(y)))
}
best_of <- function(s, family) if (family == "gaussian") which.min(s) else which.max(s)

# test predictions of a whole dpsco path, one column per lambda
path_predictions <- function(fit, x, family) {
  P <- predict(fit, x, type = "response")
  if (family != "multinomial") return(as.matrix(P))
  lev <- dimnames(P)[[2L]]
  vapply(seq_len(dim(P)[3L]),
         function(k) lev[max.col(P[, , k, drop = TRUE], ties.method = "first")],
         character(dim(P)[1L]))
}

cv_predictions <- function(cv, x, family)
  predict(cv, x, s = "lambda.min", type = if (family == "multinomial") "class" else "response")

glmnet_fit <- function(x, y, x_test, family) {
  cv <- glmnet::cv.glmnet(x, y, family = family)
  list(pred = stats::predict(cv, x_test, s = "lambda.min",
                             type = if (family == "multinomial") "class" else "response"),
       note = sprintf("lambda.min %.3g", cv$lambda.min))
}

# the features the private fit f works on: (x - center) / scale, clamped to
# [-1, 1] when the fit has private bounds (f$x_range = center -+ scale)
clamp_x <- function(x, f) {
  n <- nrow(x)
  u <- (x - rep(f$standardize$center, each = n)) / rep(f$standardize$scale, each = n)
  if (is.null(f$x_range)) u else pmin(pmax(u, -1), 1)
}

# ---- running --------------------------------------------------------------------

errors_seen <- character()
rows <- list()
add_row <- function(d, s, method, eps, stage, value, elapsed, note = "",
                    x_moved = NA_real_, y_moved = NA_real_)
  rows[[length(rows) + 1L]] <<- data.frame(
    data = d$name, split = s, method = method, epsilon = eps, stage = stage,
    value = value, elapsed = elapsed, note = note, x_moved = x_moved,
    y_moved = y_moved, stringsAsFactors = FALSE)

# evaluate f() seeded and timed; an error is reported once per key and NULL
timed <- function(key, seed, f) {
  set.seed(seed)
  t0 <- proc.time()[["elapsed"]]
  out <- tryCatch(f(), error = function(err) err)
  el <- proc.time()[["elapsed"]] - t0
  if (inherits(out, "error")) {
    if (!key %in% errors_seen) {
      errors_seen <<- c(errors_seen, key)
      cat(sprintf("  [%s] failed (NA recorded): %s\n", key, conditionMessage(out)))
    }
    out <- NULL
  }
  list(value = out, elapsed = el)
}
seed_of <- function(s, m, eps, stage)
  100000L * s + round(10 * log10(eps) + 100) * 100L + sum(utf8ToInt(paste(m, stage))) %% 100L

# glmnet on the features the private fit of cv works on (clamp_x()), with
# y clamped to its y_range (gaussian, when not NULL), scored on the clamped
# test x and the raw test y; raw_y adds the same fit with the raw y (a')
clamped_glmnet <- function(d, s, m, eps, stage, cv, raw_y) {
  fam <- d$family
  if (is.null(cv)) {
    add_row(d, s, m, eps, stage, NA_real_, 0, "no private fit")
    if (raw_y) add_row(d, s, m, eps, "a'", NA_real_, 0, "no private fit")
    return(invisible())
  }
  f <- cv$dpsco.fit
  n_train <- nrow(d$x_train)
  xc_train <- clamp_x(d$x_train, f)
  xc_test <- clamp_x(d$x_test, f)
  x_moved <- if (is.null(f$x_range)) 0 else
    mean(abs((d$x_train - rep(f$standardize$center, each = n_train)) /
               rep(f$standardize$scale, each = n_train)) > 1)
  yr <- if (fam == "gaussian") f$settings$y_range
  y_train_c <- if (is.null(yr)) d$y_train else pmin(pmax(d$y_train, yr[1L]), yr[2L])
  y_moved <- mean(y_train_c != d$y_train)
  note <- sprintf("x moved %.4f; y_range %s, y moved %.4f", x_moved,
                  if (is.null(yr)) "NULL" else paste(signif(yr, 4), collapse = " to "),
                  y_moved)
  r <- timed(sprintf("%s %s %s eps=%g", d$name, m, stage, eps), seed_of(s, m, eps, stage),
             function() glmnet_fit(xc_train, y_train_c, xc_test, fam))
  add_row(d, s, m, eps, stage,
          if (is.null(r$value)) NA_real_ else score(r$value$pred, d$y_test, fam),
          r$elapsed, note, x_moved, y_moved)
  if (raw_y) {
    r <- timed(sprintf("%s %s a' eps=%g", d$name, m, eps), seed_of(s, m, eps, "a'"),
               function() glmnet_fit(xc_train, d$y_train, xc_test, fam))
    add_row(d, s, m, eps, "a'",
            if (is.null(r$value)) NA_real_ else score(r$value$pred, d$y_test, fam),
            r$elapsed, "raw y")
  }
}

run_data <- function(ds) {
  fam <- ds$family
  n <- nrow(ds$x)
  for (s in seq_len(n_splits)) {
    t_split <- proc.time()[["elapsed"]]
    set.seed(s)
    train <- sample.int(n, round(0.7 * n))
    d <- list(name = ds$name, family = fam,
              x_train = ds$x[train, , drop = FALSE], y_train = ds$y[train],
              x_test = ds$x[-train, , drop = FALSE], y_test = ds$y[-train])
    n_train <- length(train)
    delta <- 0.1 / n_train

    null <- if (fam == "gaussian") mean(d$y_train) else {
      tab <- table(d$y_train)
      names(tab)[which.max(tab)]
    }
    pred_null <- rep(if (fam == "binomial") as.numeric(null) else null, nrow(d$x_test))
    add_row(d, s, "-", NA_real_, "null", score(pred_null, d$y_test, fam), 0)
    g <- timed(paste(d$name, "glmnet"), s,
               function() glmnet_fit(d$x_train, d$y_train, d$x_test, fam))
    add_row(d, s, "-", NA_real_, "glmnet",
            if (is.null(g$value)) NA_real_ else score(g$value$pred, d$y_test, fam),
            g$elapsed, if (is.null(g$value)) "" else g$value$note)

    for (eps in eps_grid) for (m in methods) {
      # (c) and (c*): the full private fit
      fit_and_score <- function(e, stage) {
        r <- timed(sprintf("%s %s %s eps=%g", d$name, m, stage, e), seed_of(s, m, e, stage),
                   function() dpsco::cv.dpsco(d$x_train, d$y_train, family = fam,
                                              method = m, epsilon = e, delta = delta))
        cv <- r$value
        v <- v_or <- NA_real_
        note <- note_or <- ""
        if (!is.null(cv)) {
          p1 <- tryCatch(score(cv_predictions(cv, d$x_test, fam), d$y_test, fam),
                         error = function(err) { note <<- conditionMessage(err); NA_real_ })
          v <- p1[[1L]]
          if (!nzchar(note)) note <- sprintf("lambda.min %.3g (index %d of %d)", cv$lambda.min,
                                             which.min(abs(cv$lambda - cv$lambda.min)),
                                             length(cv$lambda))
          sp <- tryCatch(score(path_predictions(cv$dpsco.fit, d$x_test, fam), d$y_test, fam),
                         error = function(err) { note_or <<- conditionMessage(err); NA_real_ })
          if (!all(is.na(sp))) {
            k <- best_of(sp, fam)
            v_or <- sp[[k]]
            note_or <- sprintf("oracle lambda %.3g (index %d of %d)",
                               cv$dpsco.fit$lambda[k], k, length(sp))
          }
        }
        add_row(d, s, m, eps, stage, v, r$elapsed, note)
        add_row(d, s, m, eps, paste0(stage, "*"), v_or, 0, note_or)
        cv
      }
      cv <- fit_and_score(eps, "c")
      # (b) and (b*): the same call without noise (epsilon 1e4)
      cv_b <- fit_and_score(eps_nonoise, "b")
      # (a) and (a'): glmnet on the clamped features of the fit of (c);
      # (a_b): on those of the fit of (b)
      clamped_glmnet(d, s, m, eps, "a", cv, raw_y = fam == "gaussian")
      if (with_ab) clamped_glmnet(d, s, m, eps, "a_b", cv_b, raw_y = FALSE)
    }
    cat(sprintf("  %s split %d done (%.0f s)\n", ds$name, s,
                proc.time()[["elapsed"]] - t_split))
  }
}

# ---- reporting --------------------------------------------------------------------

fmt_metric <- function(v, metric) if (metric == "RMSE") sprintf("%.2f", v) else sprintf("%.4f", v)
cell <- function(m, sd, fmt = function(v) sprintf("%.3f", v))
  ifelse(is.na(m), "NA", paste0(fmt(m), ifelse(is.na(sd), "", paste0(" (", fmt(sd), ")"))))
sd_or_na <- function(v) if (sum(!is.na(v)) > 1L) stats::sd(v, na.rm = TRUE) else NA_real_

report <- function(ds, res) {
  fam <- ds$family
  n_train <- round(0.7 * nrow(ds$x))
  cat(sprintf("\n==== %s: n = %d (train %d, test %d), p = %d, family %s; test %s (%s is better); %d split%s ====\n",
              ds$name, nrow(ds$x), n_train, nrow(ds$x) - n_train, ncol(ds$x), fam,
              ds$metric, if (ds$higher_better) "higher" else "lower",
              n_splits, if (n_splits == 1L) "" else "s"))
  by_split <- function(stage, m = "-", eps = NA_real_) {
    k <- res$stage == stage & res$method == m &
      (if (is.na(eps)) is.na(res$epsilon) else (!is.na(res$epsilon) & res$epsilon == eps))
    v <- rep(NA_real_, n_splits)
    v[res$split[k]] <- res$value[k]
    v
  }
  v_null <- by_split("null")
  v_glm <- by_split("glmnet")
  cat(sprintf("null   %s: %s\nglmnet %s: %s   (mean (sd) over splits)\n",
              ds$metric, cell(mean(v_null), sd_or_na(v_null), function(v) fmt_metric(v, ds$metric)),
              ds$metric, cell(mean(v_glm), sd_or_na(v_glm), function(v) fmt_metric(v, ds$metric))))
  stages <- c("a", if (fam == "gaussian") "a'", if (with_ab) "a_b", "b", "b*", "c", "c*")
  labels <- c(a = "(a) clamped glmnet", "a'" = "(a') clamped x, raw y",
              a_b = "(a_b) glmnet, clamp of (b)",
              b = "(b) no noise", "b*" = "(b*) no noise, oracle",
              c = "(c) private", "c*" = "(c*) oracle lambda")
  Gof <- function(v, nu, gl) (v - nu) / (gl - nu)
  for (eps in eps_grid) {
    ms <- intersect(methods, unique(res$method))
    metric_tab <- G_tab <- gap_tab <- matrix("", length(ms), 0L, dimnames = list(ms, NULL))
    moved <- character(length(ms))
    Gm <- Gs <- list()
    for (st in stages) {
      vm <- Gmean <- Gsd <- vsd <- numeric(length(ms))
      Gsplit <- matrix(NA_real_, n_splits, length(ms))
      for (i in seq_along(ms)) {
        v <- by_split(st, ms[i], eps)
        vm[i] <- mean(v)
        vsd[i] <- sd_or_na(v)
        Gmean[i] <- Gof(mean(v), mean(v_null), mean(v_glm))
        Gsplit[, i] <- Gof(v, v_null, v_glm)
        Gsd[i] <- sd_or_na(Gsplit[, i])
      }
      Gm[[st]] <- Gmean
      Gs[[st]] <- Gsplit
      metric_tab <- cbind(metric_tab, cell(vm, vsd, function(v) fmt_metric(v, ds$metric)))
      G_tab <- cbind(G_tab, cell(Gmean, Gsd))
    }
    colnames(metric_tab) <- colnames(G_tab) <- labels[stages]
    gaps <- list(
      "clamping 1 - a" = list(1 - Gm[["a"]], 1 - Gs[["a"]]),
      "optimiser a - b*" = list(Gm[["a"]] - Gm[["b*"]], Gs[["a"]] - Gs[["b*"]]),
      "noise b* - c*" = list(Gm[["b*"]] - Gm[["c*"]], Gs[["b*"]] - Gs[["c*"]]),
      "selection c* - c" = list(Gm[["c*"]] - Gm[["c"]], Gs[["c*"]] - Gs[["c"]]))
    for (nm in names(gaps))
      gap_tab <- cbind(gap_tab, cell(gaps[[nm]][[1L]], apply(gaps[[nm]][[2L]], 2L, sd_or_na)))
    colnames(gap_tab) <- names(gaps)
    # share of training entries the clamp moved (of the fits of (c), (b))
    moved_share <- function(stage) vapply(ms, function(m) {
      k <- res$stage == stage & !is.na(res$epsilon) & res$epsilon == eps & res$method == m
      if (!any(k) || all(is.na(res$x_moved[k]))) return("NA")
      sprintf("x %.3f%s", mean(res$x_moved[k], na.rm = TRUE),
              if (fam == "gaussian") sprintf(", y %.3f", mean(res$y_moved[k], na.rm = TRUE)) else "")
    }, "")
    gap_tab <- cbind(gap_tab, "clamped share (train), (c)" = moved_share("a"))
    if (with_ab) gap_tab <- cbind(gap_tab, "(b)" = moved_share("a_b"))
    cat(sprintf("\n-- epsilon %g --\nTest %s, mean (sd) over splits:\n", eps, ds$metric))
    print(metric_tab, quote = FALSE, right = TRUE)
    cat("G from the split means (sd over splits of the per-split G):\n")
    print(G_tab, quote = FALSE, right = TRUE)
    cat("Gaps in G (they add up to 1 - G(c)), from the split means (sd over splits):\n")
    print(gap_tab, quote = FALSE, right = TRUE)
  }
  cat("\nSeconds per fit (mean over splits; fit + prediction; * stages reuse the fit):\n")
  kinds <- list("cv.glmnet raw" = res$stage == "glmnet",
                "cv.glmnet clamped (a)" = res$stage == "a",
                "cv.glmnet clamped, raw y (a')" = res$stage == "a'",
                "cv.glmnet clamp of (b) (a_b)" = res$stage == "a_b",
                "cv.dpsco no noise (b)" = res$stage == "b",
                "cv.dpsco private (c)" = res$stage == "c")
  for (k in names(kinds)) if (any(kinds[[k]]))
    cat(sprintf("  %-30s %7.2f   (%d fits)\n", k, mean(res$elapsed[kinds[[k]]]), sum(kinds[[k]])))
  notes <- res[res$split == 1L & nzchar(res$note) & res$stage != "null", c("method", "epsilon", "stage", "note")]
  if (nrow(notes)) {
    cat("Split 1 notes:\n")
    notes$epsilon <- ifelse(is.na(notes$epsilon), "-", format(notes$epsilon))
    print(notes, row.names = FALSE, right = FALSE)
  }
}

all_res <- list()
for (nm in data_sets) {
  ds <- load_data(nm)
  if (is.null(ds)) {
    cat(sprintf("Skipping %s: package %s is not installed.\n", nm, data_package[[nm]]))
    next
  }
  t_ds <- proc.time()[["elapsed"]]
  cat(sprintf("Running %s (%d x %d, %s) ...\n", nm, nrow(ds$x), ncol(ds$x), ds$family))
  rows <- list()
  run_data(ds)
  res <- do.call(rbind, rows)
  all_res[[nm]] <- res
  report(ds, res)
  cat(sprintf("%s took %.0f s\n", nm, proc.time()[["elapsed"]] - t_ds))
}

if (nzchar(out_file) && length(all_res)) {
  results <- do.call(rbind, all_res)
  rownames(results) <- NULL
  saveRDS(list(results = results, commit = installed_commit(),
               dpsco_version = as.character(utils::packageVersion("dpsco")),
               splits = n_splits, epsilon = eps_grid, eps_nonoise = eps_nonoise,
               methods = methods, data = data_sets, date = Sys.time()), out_file)
  cat(sprintf("Raw results saved to %s\n", out_file))
}
cat(sprintf("\nScript time %.0f s\n", proc.time()[["elapsed"]] - script_start))
