# bench/utility.R -- test-set utility of dpsco's default workflow and of peers
#
# What it measures
#   The prediction quality on held-out data of private fits made the way a
#   user would make them, next to a null model, a non-private lasso and two
#   other private regression methods, and the time each fit takes.
#   Data sets (bench/data.R), passed exactly as a user would pass them (no
#   transform):
#     blog       dpsco::blog (BlogFeedback): x = the 280 raw features,
#                y = comments_next24h (a raw count), family "gaussian";
#                metric: test RMSE (lower is better).
#     satellite  mlbench::Satellite (UCI Statlog Landsat): x = the 36 raw
#                band values (0..255), y = 1 for "cotton crop" and 0
#                otherwise, family "binomial"; metric: test accuracy
#                (higher is better).
#     satellite6 the same x, y = the six-level factor `classes`, family
#                "multinomial"; metric: test accuracy.
#     diamonds   ggplot2::diamonds: y = price (raw dollars, heavy-tailed),
#                x = model.matrix(~ . - price)[, -1] (23 columns: carat,
#                depth, table, x, y, z and the contr.poly columns of the
#                ordered factors cut, color, clarity), family "gaussian";
#                metric: test RMSE.
#     spam       kernlab::spam: x = the 57 raw numeric columns, y = 1 for
#                "spam", family "binomial"; metric: test accuracy.
#   Splits: for seed s = 1..10, set.seed(s) and the training rows are
#   sample.int(n, round(0.7 * n)); the other 30% are the test set.
#   Privacy: epsilon in {0.5, 1, 2} for the whole fit (tuning included
#   where the method tunes), delta = 0.1 / n_train.
#   Rows (each fitted on the training part, scored on the test part):
#     null           blog: the training mean; satellite: the training
#                    majority class (both non-private, not depending on epsilon).
#     glmnet         glmnet::cv.glmnet(x, y, family) at lambda.min
#                    (non-private).
#     dpsco <m>      m = clip, kamath, holland: the default workflow
#                      cvfit <- dpsco::cv.dpsco(x, y, family, method = m,
#                                               epsilon, delta)
#                      predict(cvfit, x_test, s = "lambda.min", type = "response")
#                    (binomial: class 1 when the probability is > 0.5;
#                    multinomial: type = "class").
#                    An error gives NA and its message is printed once.
#     dpsco paper (holland), oracle lambda
#                    dpsco(method = "holland", calibration = "paper",
#                    nlambda = 10) (multinomial: type = "class"), scored at
#                    the lambda that is best ON THE
#                    TEST SET: not a private procedure; it shows what the
#                    paper's settings reach at their best.
#     adassp         AdaSSP (Wang 2018; bench/adassp.R) with public bounds
#                    taken from the data's schema, not from the data:
#                    blog: each row of raw x (with the intercept's 1) scaled
#                    to L2 norm <= bx = 1000, y clipped to [-200, 200];
#                    satellite: x / 255 (bands are 8-bit, so rows of
#                    (1, x/255) have norm <= sqrt(36 + 1)), y in {0, 1}
#                    (by = 1), a linear probability model classified at 0.5.
#                    diamonds, spam: public column bounds [lb, ub] from the
#                    data's documentation (peer_bounds(): diamonds carat
#                    [0, 6], depth and table [0, 100], x, y, z [0, 60] mm,
#                    contrast columns [-1, 1], price [0, 20000]; spam the 54
#                    percentages [0, 100], capitalAve [0, 100], capitalLong
#                    [0, 1000], capitalTotal [0, 10000]); each column is
#                    clipped to its bounds and divided by max(|lb|, |ub|)
#                    (rows of (1, x') then have norm <= bx = sqrt(p + 1)),
#                    y clipped to [-20000, 20000] (diamonds) or by = 1
#                    (spam, a linear probability model classified at 0.5).
#     DPpack         DPpack 0.2.x.  blog: LinearRegressionDP (objective
#                    perturbation, Kifer et al. 2012, Gaussian noise with
#                    delta = 0.1/n_train), each raw feature clipped to
#                    [-1000, 1000] (DPpack divides by 1000 itself), y
#                    clipped to [-100, 100], intercept by add.bias = TRUE.
#                    satellite: LogisticRegressionDP (objective perturbation,
#                    Chaudhuri et al. 2011; pure epsilon-DP, DPpack's
#                    logistic regression takes no delta), bounds [0, 255]
#                    per band (DPpack divides by 255 and by sqrt(37)),
#                    add.bias = TRUE (spam: LogisticRegressionDP as for
#                    satellite with the bounds of peer_bounds(); diamonds:
#                    LinearRegressionDP as for blog with the bounds of
#                    peer_bounds(), y clipped to [0, 20000]), and the l2
#                    penalty passed as a
#                    function already multiplied by gamma (DPpack 0.2.2's
#                    logistic optimiser ignores the object's gamma; see
#                    fit_dppack()).  Both are tuned privately by DPpack's
#                    tune_linear_regression_model / tune_classification_model
#                    over the l2 constants gamma in {0.1, 1, 10, 100}: the
#                    training rows are cut into 5 disjoint parts, one model
#                    per gamma on each of four parts, and the exponential
#                    mechanism picks one by its error on the fifth (parallel
#                    composition: the total is still (epsilon, delta)).
#                    Test features get the same public clipping as the fit.
#                    AdaSSP and DPpack have no multinomial model: on
#                    satellite6 they are skipped with a note.
#   Output, per data set: mean (sd) over splits of the metric for every
#   row and epsilon; the gain fraction
#     G = (RMSE_null - RMSE) / (RMSE_null - RMSE_glmnet)           (gaussian)
#     G = (acc - acc_null) / (acc_glmnet - acc_null)    (binomial, multinomial)
#   from the split means (1 = as good as glmnet, 0 = no better than the
#   null model, < 0 = worse than the null model), with the sd over splits
#   of the per-split G (the same ratio on each split) in parentheses; the
#   mean elapsed and CPU seconds per fit of every row (proc.time(),
#   prediction included).
#   Speed check (blog, split 1, epsilon = 1): elapsed and CPU seconds of
#   dpsco::cv.dpsco(x, y, epsilon = 1, delta = 0.1/n_train) with its default
#   method against cv.glmnet(x, y) on the same data in the same process,
#   medians of 3 interleaved rounds, and their ratio.
#
# Settings (environment variables):
#   DPSCO_BENCH_SPLITS  number of splits (default 10; seeds 1..N)
#   DPSCO_BENCH_EPS     comma list of epsilons (default 0.5,1,2)
#   DPSCO_BENCH_DATA    comma list of data sets
#                       (default blog,satellite,satellite6,diamonds,spam)
#   DPSCO_BENCH_OUT     if set, a file to saveRDS() the raw results into
#   A peer package that is not installed (glmnet, DPpack) is skipped with a
#   note, and so is a data set whose package (mlbench, ggplot2, kernlab;
#   bench/install.sh installs the last two) is missing.  The default run
#   should take about 20 to 40 minutes on 2 cores (estimated from one-split
#   runs), most of it in blog's fits and in the multinomial cv.glmnet of
#   satellite6 (about 40 s a split).
#
# Command (from the top of the source tree):
#   sh bench/install.sh       # once: HEAD, compiled from scratch, into /tmp/benchlib
#   R_LIBS=/tmp/benchlib Rscript bench/utility.R
#   DPSCO_BENCH_SPLITS=1 DPSCO_BENCH_EPS=1 R_LIBS=/tmp/benchlib Rscript bench/utility.R
#
# Target: cv.dpsco() on blog takes no longer than cv.glmnet() (ratio <= 1.0).

suppressPackageStartupMessages(library(dpsco))
options(width = 150)

# bench/adassp.R sits next to this script
script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
source(file.path(script_dir, "adassp.R"))
# bench/data.R: load_data(name), the data sets as a user passes them, and
# the scripts' helpers installed_commit() and env_list()
source(file.path(script_dir, "data.R"))
n_splits <- as.integer(Sys.getenv("DPSCO_BENCH_SPLITS", "10"))
eps_grid <- as.numeric(env_list("DPSCO_BENCH_EPS", "0.5,1,2"))
data_sets <- tolower(env_list("DPSCO_BENCH_DATA", "blog,satellite,satellite6,diamonds,spam"))
out_file <- Sys.getenv("DPSCO_BENCH_OUT", "")
if (is.na(n_splits) || n_splits < 1L) stop("DPSCO_BENCH_SPLITS must be a positive integer")
if (!length(eps_grid) || anyNA(eps_grid) || any(eps_grid <= 0))
  stop("DPSCO_BENCH_EPS must be a comma list of positive numbers")
unknown <- setdiff(data_sets, names(data_package))
if (length(unknown)) stop("DPSCO_BENCH_DATA: unknown data set(s) ", paste(unknown, collapse = ", "))
dppack_grid <- c(0.1, 1, 10, 100)
speed_rounds <- 3L
script_start <- proc.time()[["elapsed"]]

has <- vapply(c("glmnet", "DPpack", "mlbench", "ggplot2", "kernlab"), requireNamespace, NA,
              quietly = TRUE)

cat(sprintf("dpsco %s, commit %s\n", utils::packageVersion("dpsco"), installed_commit()))
cat(sprintf("R %s, %s; splits 1..%d, epsilon %s, delta = 0.1/n_train, data: %s\n",
            getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M"), n_splits,
            paste(eps_grid, collapse = ", "), paste(data_sets, collapse = ", ")))
for (pk in names(has))
  cat(sprintf("  %-8s %s\n", pk, if (has[[pk]])
    paste("version", utils::packageVersion(pk)) else "NOT INSTALLED: its rows or data sets are skipped"))
cat("\n")

# ---- data ------------------------------------------------------------------

# score of predictions (a vector, or a matrix with one column per candidate):
# gaussian predictions, binomial probabilities or 0/1 classes, multinomial
# class labels
score <- function(pred, y, family) {
  pred <- as.matrix(pred)
  switch(family,
    gaussian = sqrt(colMeans((pred - y)^2)),
    binomial = colMeans((pred > 0.5) == (y == 1)),
    multinomial = colMeans(pred == as.character(y)))
}
class_type <- function(family) if (family == "multinomial") "class" else "response"

# Public per-column bounds [lb, ub] for the peers on diamonds and spam,
# from the documentation of the data (its schema), not from the data, and
# the public range [ylo, yhi] of y.
#   diamonds (ggplot2's ?diamonds): carat 0.2 to 5.01 -> [0, 6]; depth and
#     table are percentages -> [0, 100]; x, y, z in mm (documented up to
#     10.74, 58.9, 31.8) -> [0, 60]; the contr.poly columns of cut, color
#     and clarity lie in [-1, 1]; price $326 to $18,823 -> [0, 20000].
#   spam (kernlab's ?spam): the 48 word and 6 character frequencies are
#     percentages -> [0, 100]; the capital run lengths have no documented
#     bound: capitalAve [0, 100], capitalLong [0, 1000], capitalTotal
#     [0, 10000] (round numbers; larger values are clipped); y in {0, 1}.
peer_bounds <- function(name, cn) {
  if (name == "diamonds") {
    poly <- grepl("^(cut|color|clarity)", cn)
    ub <- ifelse(cn == "carat", 6, ifelse(cn %in% c("depth", "table"), 100,
                 ifelse(cn %in% c("x", "y", "z"), 60, 1)))
    list(lb = ifelse(poly, -1, 0), ub = ub, ylo = 0, yhi = 20000)
  } else if (name == "spam") {
    ub <- ifelse(cn == "capitalAve", 100, ifelse(cn == "capitalLong", 1000,
                 ifelse(cn == "capitalTotal", 10000, 100)))
    list(lb = rep(0, length(cn)), ub = ub, ylo = 0, yhi = 1)
  } else stop("no public bounds for ", name)
}
clip_cols <- function(x, lb, ub)
  pmin(pmax(x, rep(lb, each = nrow(x))), rep(ub, each = nrow(x)))

# ---- fitters: each returns list(pred = test predictions, note = string) -----
# (for binomial, predictions are probabilities or 0/1 classes; scored > 0.5)

fit_null <- function(d) {
  if (d$family == "multinomial") {
    tab <- table(d$y_train)
    m <- names(tab)[which.max(tab)]
  } else {
    m <- mean(d$y_train)
    if (d$family == "binomial") m <- as.numeric(m > 0.5)
  }
  list(pred = rep(m, nrow(d$x_test)), note = "")
}

fit_glmnet <- function(d) {
  cv <- glmnet::cv.glmnet(d$x_train, d$y_train, family = d$family)
  list(pred = drop(stats::predict(cv, d$x_test, s = "lambda.min",
                                  type = class_type(d$family))),
       note = sprintf("lambda.min %.3g", cv$lambda.min))
}

# dpsco's default workflow, written as a user writes it
fit_cv_dpsco <- function(d, m, e) {
  x_train <- d$x_train
  y_train <- d$y_train
  x_test <- d$x_test
  fam <- d$family
  n_train <- nrow(x_train)
  cvfit <- dpsco::cv.dpsco(x_train, y_train, family = fam, method = m, epsilon = e,
                           delta = 0.1/n_train)
  pred <- predict(cvfit, x_test, s = "lambda.min",
                  type = if (fam == "multinomial") "class" else "response")
  lam <- tryCatch(cvfit$lambda.min, error = function(err) NULL)
  list(pred = drop(pred),
       note = if (is.numeric(lam) && length(lam) == 1L) sprintf("lambda.min %.3g", lam) else "")
}

# the paper's settings; scored at the best lambda on the test set (oracle)
fit_dpsco_paper <- function(d, e) {
  n_train <- nrow(d$x_train)
  fit <- dpsco::dpsco(d$x_train, d$y_train, family = d$family, method = "holland",
                      epsilon = e, delta = 0.1/n_train, calibration = "paper",
                      nlambda = 10)
  list(pred = predict(fit, d$x_test, type = class_type(d$family)), oracle = TRUE,
       lambda = fit$lambda)
}

fit_adassp <- function(d, e) {
  n_train <- nrow(d$x_train)
  if (d$name == "blog") {
    # public bounds: rows of (1, raw x) scaled to L2 norm <= 1000 (adassp()
    # does the scaling, and adassp_predict() repeats it on the test rows),
    # y clipped to [-200, 200]
    b <- adassp(d$x_train, d$y_train, e, 0.1/n_train, bx = 1000, by = 200)
    pred <- adassp_predict(b, d$x_test)
  } else if (d$name %in% c("diamonds", "spam")) {
    # public column bounds (peer_bounds()): each column clipped to [lb, ub]
    # and divided by max(|lb|, |ub|), so every entry is in [-1, 1] and
    # ||(1, x')|| <= sqrt(p + 1); y clipped to [-yhi, yhi] (diamonds: a
    # price of at most 20000; spam: y in {0, 1}, a linear probability
    # model classified at 0.5)
    pb <- peer_bounds(d$name, colnames(d$x_train))
    u <- pmax(abs(pb$lb), abs(pb$ub))
    sx <- function(x) clip_cols(x, pb$lb, pb$ub) / rep(u, each = nrow(x))
    b <- adassp(sx(d$x_train), d$y_train, e, 0.1/n_train,
                bx = sqrt(ncol(d$x_train) + 1), by = pb$yhi)
    pred <- adassp_predict(b, sx(d$x_test))
  } else {
    # 8-bit bands: x / 255 is in [0, 1]^36, so ||(1, x/255)|| <= sqrt(37);
    # y in {0, 1}
    b <- adassp(d$x_train / 255, d$y_train, e, 0.1/n_train, bx = sqrt(36 + 1), by = 1)
    pred <- adassp_predict(b, d$x_test / 255)
  }
  list(pred = pred, note = sprintf("ridge %.3g", attr(b, "adassp")$lambda))
}

fit_dppack <- function(d, e) {
  n_train <- nrow(d$x_train)
  p <- ncol(d$x_train)
  x_train <- as.data.frame(d$x_train)     # DPpack wants data frames
  if (d$name == "blog") {
    # public bounds: each raw feature in [-1000, 1000], y in [-100, 100]
    ub <- c(rep(1000, p), 100)
    lb <- c(rep(-1000, p), -100)
    # y is clipped here as well as inside DPpack: the tuning function scores
    # the validation part with unclipped y, and its exponential mechanism
    # assumes squared errors of at most (100 - (-100))^2
    y_train <- pmin(pmax(d$y_train, -100), 100)
    models <- lapply(dppack_grid, function(g)
      DPpack::LinearRegressionDP$new("l2", eps = e, delta = 0.1/n_train, gamma = g))
    tuned <- DPpack::tune_linear_regression_model(models, x_train, y_train, ub, lb,
                                                  add.bias = TRUE)
    x_test <- as.data.frame(pmin(pmax(d$x_test, -1000), 1000))
    pred <- drop(tuned$predict(x_test, add.bias = TRUE))
  } else if (d$name == "diamonds") {
    # public bounds of peer_bounds(); y clipped here as for blog
    pb <- peer_bounds(d$name, colnames(d$x_train))
    y_train <- pmin(pmax(d$y_train, pb$ylo), pb$yhi)
    models <- lapply(dppack_grid, function(g)
      DPpack::LinearRegressionDP$new("l2", eps = e, delta = 0.1/n_train, gamma = g))
    tuned <- DPpack::tune_linear_regression_model(models, x_train, y_train,
                                                  c(pb$ub, pb$yhi), c(pb$lb, pb$ylo),
                                                  add.bias = TRUE)
    x_test <- as.data.frame(clip_cols(d$x_test, pb$lb, pb$ub))
    pred <- drop(tuned$predict(x_test, add.bias = TRUE))
  } else {
    # public bounds: satellite, bands in [0, 255]; spam, peer_bounds().
    # Work-around for DPpack 0.2.2: LogisticRegressionDP's optimiser reads
    # `gamma` from DPpack's namespace (which holds a stray gamma = 1), not
    # the object's gamma, so with regularizer "l2" every model is fitted
    # with gamma = 1 whatever gamma says, while the noise is calibrated for
    # the object's gamma (for gamma > 1 that is less noise than the fit
    # needs).  Passing the l2 penalty already multiplied by g, with gamma =
    # g, makes the optimised objective loss + g ||b||^2 / (2 n): the one the
    # noise calibration assumes.
    models <- lapply(dppack_grid, function(g)
      DPpack::LogisticRegressionDP$new(function(coeff) g * sum(coeff^2) / 2,
                                       eps = e, gamma = g,
                                       regularizer.gr = function(coeff) g * coeff))
    pb <- if (d$name == "spam") peer_bounds(d$name, colnames(d$x_train))
          else list(lb = rep(0, p), ub = rep(255, p))
    tuned <- DPpack::tune_classification_model(models, x_train, d$y_train,
                                               pb$ub, pb$lb, add.bias = TRUE)
    x_test <- as.data.frame(clip_cols(d$x_test, pb$lb, pb$ub))
    pred <- drop(tuned$predict(x_test, add.bias = TRUE, raw.value = FALSE))
  }
  list(pred = pred, note = sprintf("gamma %g", tuned$gamma))
}

# ---- running ----------------------------------------------------------------

private_rows <- c(paste("dpsco", c("clip", "kamath", "holland")),
                  "dpsco paper (holland), oracle lambda", "adassp", "DPpack")
row_order <- c("null", "glmnet", private_rows)
errors_seen <- character()

# one timed fit; returns a one-row data frame
run_fit <- function(d, split, e, row, f) {
  set.seed(100000L * split + round(100 * ifelse(is.na(e), 0, e)) +
             sum(utf8ToInt(row)) %% 1000L)
  invisible(gc(FALSE))
  t0 <- proc.time()
  out <- tryCatch(f(), error = function(err) err)
  dt <- proc.time() - t0
  value <- NA_real_
  note <- ""
  if (inherits(out, "error")) {
    msg <- conditionMessage(out)
    note <- paste("error:", msg)
    key <- paste(d$name, row)
    if (!key %in% errors_seen) {
      errors_seen <<- c(errors_seen, key)
      cat(sprintf("  [%s, %s] fit failed (NA recorded): %s\n", d$name, row, msg))
    }
  } else {
    s <- score(out$pred, d$y_test, d$family)
    if (isTRUE(out$oracle)) {
      k <- if (d$family == "gaussian") which.min(s) else which.max(s)
      value <- s[[k]]
      note <- sprintf("oracle lambda %.3g (%d of %d)", out$lambda[k], k, length(s))
    } else {
      value <- s[[1L]]
      note <- out$note %||% ""
    }
  }
  data.frame(data = d$name, split = split, epsilon = e, fit = row, value = value,
             elapsed = dt[["elapsed"]], cpu = dt[["user.self"]] + dt[["sys.self"]],
             note = note, stringsAsFactors = FALSE)
}

run_data <- function(ds) {
  res <- list()
  n <- nrow(ds$x)
  if (ds$family == "multinomial")
    cat(sprintf("  %s: AdaSSP and DPpack skipped (no multinomial model: AdaSSP is a linear\n", ds$name),
        "   regression, DPpack's LogisticRegressionDP is binary)\n")
  for (s in seq_len(n_splits)) {
    set.seed(s)
    train <- sample.int(n, round(0.7 * n))
    d <- list(name = ds$name, family = ds$family,
              x_train = ds$x[train, , drop = FALSE], y_train = ds$y[train],
              x_test = ds$x[-train, , drop = FALSE], y_test = ds$y[-train])
    t_split <- proc.time()[["elapsed"]]
    res[[length(res) + 1L]] <- run_fit(d, s, NA_real_, "null", function() fit_null(d))
    if (has[["glmnet"]])
      res[[length(res) + 1L]] <- run_fit(d, s, NA_real_, "glmnet", function() fit_glmnet(d))
    for (e in eps_grid) {
      for (m in c("clip", "kamath", "holland"))
        res[[length(res) + 1L]] <- run_fit(d, s, e, paste("dpsco", m),
                                           function() fit_cv_dpsco(d, m, e))
      res[[length(res) + 1L]] <- run_fit(d, s, e, private_rows[4L],
                                         function() fit_dpsco_paper(d, e))
      if (ds$family == "multinomial") next   # no multinomial AdaSSP or DPpack
      res[[length(res) + 1L]] <- run_fit(d, s, e, "adassp", function() fit_adassp(d, e))
      if (has[["DPpack"]])
        res[[length(res) + 1L]] <- run_fit(d, s, e, "DPpack", function() fit_dppack(d, e))
    }
    cat(sprintf("  %s split %d done (%.0f s; %.0f s since start)\n", ds$name, s,
                proc.time()[["elapsed"]] - t_split,
                proc.time()[["elapsed"]] - script_start))
  }
  do.call(rbind, res)
}

# cv.dpsco (default method) against cv.glmnet on blog, split 1, epsilon 1
speed_check <- function(ds) {
  set.seed(1)
  train <- sample.int(nrow(ds$x), round(0.7 * nrow(ds$x)))
  x_train <- ds$x[train, , drop = FALSE]
  y_train <- ds$y[train]
  n_train <- nrow(x_train)
  runners <- list(
    cv.glmnet = function() glmnet::cv.glmnet(x_train, y_train),
    cv.dpsco = function() dpsco::cv.dpsco(x_train, y_train, family = "gaussian",
                                          epsilon = 1, delta = 0.1/n_train))
  el <- cpu <- matrix(NA_real_, speed_rounds, 2L, dimnames = list(NULL, names(runners)))
  for (r in seq_len(speed_rounds)) {
    for (k in names(runners)) {
      set.seed(r)
      invisible(gc(FALSE))
      t0 <- proc.time()
      ok <- tryCatch({ runners[[k]](); TRUE }, error = function(err) {
        if (r == 1L) cat(sprintf("  speed check: %s failed: %s\n", k, conditionMessage(err)))
        FALSE
      })
      dt <- proc.time() - t0
      if (ok) {
        el[r, k] <- dt[["elapsed"]]
        cpu[r, k] <- dt[["user.self"]] + dt[["sys.self"]]
      }
    }
    if (r == 1L && anyNA(el[1L, ])) break
  }
  list(elapsed = el, cpu = cpu, n_train = n_train)
}

# ---- reporting ----------------------------------------------------------------

fmt_num <- function(v, metric) if (metric == "RMSE") sprintf("%.2f", v) else sprintf("%.4f", v)

report <- function(ds, res) {
  cat(sprintf("\n==== %s: n = %d (train %d, test %d), p = %d, family %s; metric: test %s (%s is better) ====\n",
              ds$name, nrow(ds$x), round(0.7 * nrow(ds$x)),
              nrow(ds$x) - round(0.7 * nrow(ds$x)), ncol(ds$x), ds$family,
              ds$metric, if (ds$higher_better) "higher" else "lower"))
  rows <- intersect(row_order, unique(res$fit))
  cols <- paste0("eps=", eps_grid)
  # mean and sd over splits; the non-private rows repeat under every epsilon
  cell <- function(r, e) {
    v <- res$value[res$fit == r & (is.na(res$epsilon) | res$epsilon == e)]
    c(mean = if (all(is.na(v))) NA_real_ else mean(v, na.rm = TRUE),
      sd = if (sum(!is.na(v)) > 1L) stats::sd(v, na.rm = TRUE) else NA_real_,
      n = sum(!is.na(v)))
  }
  means <- matrix(NA_real_, length(rows), length(eps_grid), dimnames = list(rows, cols))
  txt <- matrix("", length(rows), length(eps_grid), dimnames = list(rows, cols))
  for (i in seq_along(rows)) for (j in seq_along(eps_grid)) {
    cl <- cell(rows[i], eps_grid[j])
    means[i, j] <- cl[["mean"]]
    txt[i, j] <- if (is.na(cl[["mean"]])) "NA" else
      sprintf("%s (%s)%s", fmt_num(cl[["mean"]], ds$metric),
              if (is.na(cl[["sd"]])) "-" else fmt_num(cl[["sd"]], ds$metric),
              if (cl[["n"]] < n_splits) sprintf(" [%d]", cl[["n"]]) else "")
  }
  cat(sprintf("\nTest %s, mean (sd) over %d split%s ([k]: only k splits gave a number;",
              ds$metric, n_splits, if (n_splits == 1L) "" else "s"),
      "null and glmnet do not depend on epsilon):\n")
  print(txt, quote = FALSE, right = TRUE)

  cat("\nGain fraction G from the split means:",
      if (ds$higher_better) "(acc - acc_null) / (acc_glmnet - acc_null)"
      else "(RMSE_null - RMSE) / (RMSE_null - RMSE_glmnet)",
      "\n(1 = as good as glmnet, 0 = as good as the null model, < 0 = worse than it;",
      "\nin parentheses the sd over splits of the per-split G, the same ratio on each split)\n")
  if (!"glmnet" %in% rows) {
    cat("  (glmnet is not installed: no gain fraction)\n")
  } else {
    dp <- intersect(private_rows, rows)
    g <- if (ds$higher_better)
      (means[dp, , drop = FALSE] - rep(means["null", ], each = length(dp))) /
        rep(means["glmnet", ] - means["null", ], each = length(dp))
    else
      (rep(means["null", ], each = length(dp)) - means[dp, , drop = FALSE]) /
        rep(means["null", ] - means["glmnet", ], each = length(dp))
    # per-split G: (v - null) / (glmnet - null) on each split (the same
    # ratio for RMSE and accuracy), then its sd over the splits
    by_split <- function(r, e) {
      k <- res$fit == r & (is.na(res$epsilon) | res$epsilon == e)
      v <- rep(NA_real_, n_splits)
      v[res$split[k]] <- res$value[k]
      v
    }
    g_sd <- g
    for (r in dp) for (j in seq_along(eps_grid)) {
      nu <- by_split("null", eps_grid[j])
      gs <- (by_split(r, eps_grid[j]) - nu) / (by_split("glmnet", eps_grid[j]) - nu)
      g_sd[r, j] <- if (sum(is.finite(gs)) > 1L) stats::sd(gs[is.finite(gs)]) else NA_real_
    }
    gt <- matrix(ifelse(is.na(g), "NA",
                        paste0(sprintf("%.3f", g),
                               ifelse(is.na(g_sd), " (-)", sprintf(" (%.3f)", g_sd)))),
                 nrow(g), dimnames = dimnames(g))
    print(gt, quote = FALSE, right = TRUE)
  }

  cat("\nSeconds per fit (mean over splits and epsilons; fit + prediction):\n")
  tt <- do.call(rbind, lapply(rows, function(r) {
    k <- res$fit == r
    data.frame(fit = r, fits = sum(k), failed = sum(is.na(res$value[k])),
               elapsed_s = sprintf("%.3f", mean(res$elapsed[k])),
               cpu_s = sprintf("%.3f", mean(res$cpu[k])),
               total_elapsed_s = sprintf("%.1f", sum(res$elapsed[k])),
               stringsAsFactors = FALSE)
  }))
  print(tt, row.names = FALSE, right = TRUE)

  notes <- res[nzchar(res$note) & !startsWith(res$note, "error:") &
                 res$split == 1L, c("fit", "epsilon", "note")]
  if (nrow(notes)) {
    cat("\nTuning chosen on split 1 (glmnet/cv.dpsco lambda.min, AdaSSP ridge,",
        "DPpack gamma, oracle lambda):\n")
    notes$epsilon <- ifelse(is.na(notes$epsilon), "-", format(notes$epsilon))
    print(notes, row.names = FALSE, right = FALSE)
  }
  invisible(means)
}

report_speed <- function(sp) {
  cat(sprintf(paste0("\n==== Speed check: blog split 1 (n_train = %d, p = 280), epsilon = 1, ",
                     "delta = 0.1/n_train; medians of %d interleaved round%s ====\n"),
              sp$n_train, nrow(sp$elapsed), if (nrow(sp$elapsed) == 1L) "" else "s"))
  cat("cv.dpsco(x, y, family = \"gaussian\", epsilon = 1, delta = 0.1/n_train) (default method)",
      "against cv.glmnet(x, y)\n")
  med <- function(v) if (all(is.na(v))) NA_real_ else stats::median(v, na.rm = TRUE)
  el <- apply(sp$elapsed, 2L, med)
  cpu <- apply(sp$cpu, 2L, med)
  tab <- data.frame(
    fit = c("cv.glmnet", "cv.dpsco", "ratio dpsco/glmnet"),
    elapsed_s = sprintf("%.2f", c(el, el[["cv.dpsco"]] / el[["cv.glmnet"]])),
    cpu_s = sprintf("%.2f", c(cpu, cpu[["cv.dpsco"]] / cpu[["cv.glmnet"]])),
    stringsAsFactors = FALSE)
  print(tab, row.names = FALSE, right = TRUE)
  r <- el[["cv.dpsco"]] / el[["cv.glmnet"]]
  cat(sprintf("Target cv.dpsco / cv.glmnet <= 1.0 (elapsed): %s\n",
              if (is.na(r)) "NOT MEASURED" else if (r <= 1) "MET" else "NOT MET"))
}

all_res <- list()
speed <- NULL
for (nm in data_sets) {
  ds <- load_data(nm)
  if (is.null(ds)) {
    cat(sprintf("Skipping %s: package %s is not installed.\n", nm, data_package[[nm]]))
    next
  }
  cat(sprintf("Running %s (%d x %d) ...\n", nm, nrow(ds$x), ncol(ds$x)))
  res <- run_data(ds)
  all_res[[nm]] <- res
  report(ds, res)
  if (nm == "blog") {
    if (has[["glmnet"]]) {
      speed <- speed_check(ds)
      report_speed(speed)
    } else {
      cat("\nSpeed check skipped: glmnet is not installed.\n")
    }
  }
  cat("\n")
}

results <- do.call(rbind, all_res)
rownames(results) <- NULL
if (nzchar(out_file)) {
  saveRDS(list(results = results, speed = speed, commit = installed_commit(),
               dpsco_version = as.character(utils::packageVersion("dpsco")),
               splits = n_splits, epsilon = eps_grid, data = data_sets,
               dppack_gamma_grid = dppack_grid, date = Sys.time()),
          out_file)
  cat(sprintf("Raw results saved to %s\n", out_file))
}
cat(sprintf("Script time %.0f s\n", proc.time()[["elapsed"]] - script_start))
