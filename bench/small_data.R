# bench/small_data.R -- small data: does the default private workflow do harm?
#
# What it measures
#   Whether dpsco's default private workflow, on small real data sets
#   passed as a user passes them, predicts worse on held-out data than the
#   trivial model that uses no x at all ("do no harm"), and how much of
#   the non-private lasso's improvement over that trivial model it keeps.
#   The large-n counterpart (blog, n = 52,397; Satellite) is
#   bench/utility.R; this script does not re-run it.
#
# Data (mlbench; raw numeric columns, no standardisation or transform by
# the script; n = all rows used, p = columns of x):
#   boston       BostonHousing, gaussian, n 506, p 13: y = medv, x = the
#                other 13 columns, chas (a factor) as 0/1.
#   pima         PimaIndiansDiabetes, binomial, n 768, p 8: y = 1 for
#                diabetes "pos"; x = the 8 raw columns (their zeros, which
#                stand for missing values, are kept as a user gets them).
#   servo        Servo, gaussian, n 167, p 11: y = Class; x = Motor and
#                Screw as the dummy columns of model.matrix(~ Motor + Screw
#                - 1) (5 Motor levels, 4 Screw levels against Screw A),
#                Pgain and Vgain (factors with numeric levels) as numbers.
#   ozone        Ozone, complete cases only, gaussian, n 203, p 12:
#                y = V4 (daily maximum one-hour ozone); x = V1, V2, V3
#                (month, day of month, day of week) as their numeric codes
#                (1..12, 1..31, 1..7), V5..V13 as they are.
#   votes        HouseVotes84, binomial, n 435, p 32: y = 1 for republican;
#                each vote V1..V16 as two indicator columns, <V>_y (1 for
#                "y") and <V>_na (1 when missing); "n" is 0 in both, so no
#                row is dropped.
#   vehicle_van  Vehicle, binomial, n 846, p 18: y = 1 for "van", x = the
#                18 raw shape features.
#   vehicle4     Vehicle, multinomial (bus, opel, saab, van), same x.
#
# Splits and fits, per data set: for s = 1..S (default 50),
#   set.seed(s); train <- sample.int(n, round(0.7 * n)); test = the rest.
#   trivial   fitted on the training 70%: the training mean (gaussian) or
#             the training majority class (binomial, multinomial).
#   glmnet    glmnet::cv.glmnet(x_train, y_train, family) at lambda.min
#             (non-private reference; set.seed(100000 s + 99) first).
#   private   for each epsilon (default 0.5, 1, 2), set.seed(100000 s + j)
#             (j the epsilon's position), then exactly what a user runs:
#               cvfit <- cv.dpsco(x_train, y_train, family = fam, epsilon = eps)
#               predict(cvfit, x_test, s = "lambda.min", type = "response")
#             (delta and every other argument at their defaults).
#             Binomial: class 1 when the probability is > 0.5;
#             multinomial: type = "class" (the probabilities are also
#             taken, to count non-finite values).
#   Test loss: RMSE (gaussian) or misclassification rate (classification).
#   A non-finite prediction is counted, and scored as it comes: a gaussian
#   RMSE becomes non-finite (harm Inf), a non-finite probability is a
#   misclassified record.  A fit that stops with an error gives NA (its
#   message is printed once per data set and kind of fit).
#
# Reported per data set x epsilon (over the splits that gave a number):
#   harm     = loss_private / loss_trivial on the same split; the share of
#              splits with harm <= 1.05, the median and the max.  Guard: a
#              trivial test error of 0 (classification) makes harm NA
#              ("guard" column counts such splits).
#   gain  G  = (loss_trivial - loss_private) / (loss_trivial - loss_glmnet)
#              per split, mean over the splits where glmnet beats the
#              trivial model (loss_trivial > loss_glmnet; the others give
#              NA and are counted in "G NA"); "G means" is the same ratio
#              of the split means (as bench/utility.R).
#   nonfin   splits with any non-finite test prediction / total number of
#              non-finite predictions.
#   gaussian only: "out rel" = share of all test predictions outside the
#              released response range [-B, B], B = fit$privacy$released
#              $y_bound of the fit cv.dpsco() predicts with
#              (cvfit$dpsco.fit).  R/settings.R: scale_bounds() releases B
#              as a bound on |y| on the scale of y itself (net of an offset,
#              none here; not centred), and centre_release() releases the
#              centre as the mean of y clamped to [-B, B], on the same
#              scale; so [-B, B] is the response range the fit released.
#              "out data" = share outside [min, max] of the training y (a
#              non-private reference for the range of the data).
#   A second table per data set: the private choice (median index of
#   lambda.min in the 10-lambda path, share of splits at the first,
#   largest, lambda; median non-zeros, glmnet's median non-zeros); the
#   released settings against the data: share of fits whose released row
#   bound (fit$privacy$released$row_bound, a bound on ||(1, x_i)||, which
#   is >= 1 for every row) is below 1; the released bounds on |x_j| over
#   max |x_j| of the training part (median over splits of the median over
#   columns, and the smallest..largest over all splits and columns); for
#   gaussian the median and range of B / max|y_train|, the median
#   |released centre - mean y_train| / sd(y_train), the shares of splits
#   whose released centre or intercept at lambda.min lies outside [-B, B],
#   and whose intercept lies outside the training range of y; seconds per
#   fit (cv.dpsco and cv.glmnet) and fits that warned.
#   Then a summary (share harm <= 1.05, median harm) of every set and
#   epsilon, and the pooled fits grouped by B / max|y| and by the
#   released clip level (fit$privacy$released$clip) / max|y| (gaussian),
#   and by row bound < 1 (all families), to show which released settings
#   go with the harm.
#
# Extra cases (seeds 1..K, default K = 5, SMALL_EXTRA_SEEDS):
#   tiny     BostonHousing, epsilon = 1e-4 (the split of seed s): the
#            intercept at lambda.min and every intercept of the path
#            (dpsco.fit$a0) against the released [-B, B] and the training
#            range of y; harm; share of predictions outside [-B, B].
#   wide     simulated gaussian n = 50, p = 200: x iid N(0, 1), beta = 1 on
#            the first 5 columns and 0 elsewhere, intercept 0, noise
#            N(0, 1); test set of 1000 new rows from the same model;
#            cv.dpsco() at each epsilon: are all coefficients of the path
#            finite, harm against the training mean, G against cv.glmnet.
#   ridge    cv.dpsco(..., alpha = 0) on pima and vehicle_van (the issue's
#            spam data are not installed; these are the binomial stand-ins),
#            the split of seed s, each epsilon: the path's df
#            (cvfit$dpsco.fit$df, the non-zeros at each lambda; a ridge fit
#            should have df = p at every lambda), harm, G against
#            cv.glmnet(alpha = 0).
#   poisson  simulated: n = 500 training and 500 test rows, x = 3 columns
#            iid N(0, 1), exposure e ~ U(0.5, 5), y ~ Poisson(e exp(-2 +
#            0.5 x1)) (x2, x3 inactive).  Two fits with the same seed:
#              A: dpsco(x, y, family = "poisson", offset = log(e), epsilon = 1)
#              B: the same with offset = log(e) + 2.5
#            Only the intercept should differ, by 2.5 (A - B).  Reported at
#            the last lambda of the path: both intercepts, their difference,
#            the x1 slopes; over the path: max |(a0_A - a0_B) - 2.5| and max
#            |beta_A - beta_B|; the mean test deviance of A and B (predicted
#            with newoffset = log(e_test) and log(e_test) + 2.5), of the
#            rate-only model (mu = e_test sum(y) / sum(e) of the training
#            part) and of glm(y ~ x, poisson, offset = log(e)) (non-private);
#            and B_A / B_B, the ratio of the two released bounds on y net of
#            the offset (y exp(-offset)), exp(2.5) = 12.18 if equivariant.
#   Each extra table also shows the released settings behind it (bound on
#   |y|, row bound, bounds on |x_j| over the data's max |x_j|).
#
# Settings (environment variables):
#   SMALL_SPLITS        number of splits (default 50; seeds 1..N)
#   SMALL_EPS           comma list of epsilons (default 0.5,1,2)
#   SMALL_SETS          comma list of data sets (default all seven:
#                       boston,pima,servo,ozone,votes,vehicle_van,vehicle4)
#   SMALL_EXTRAS        comma list of extra cases (default
#                       tiny,wide,ridge,poisson; "none" for none)
#   SMALL_EXTRA_SEEDS   seeds of the extra cases (default 5)
#   SMALL_OUT           if set, a file to saveRDS() the raw results into
#
# Command (from the top of the source tree; R_LIBS holds the version to
# measure, e.g. bench/install.sh's /tmp/benchlib):
#   R_LIBS=/tmp/benchlib nice -n 10 Rscript bench/small_data.R
#   SMALL_SPLITS=2 SMALL_EPS=1 SMALL_EXTRA_SEEDS=1 R_LIBS=/tmp/benchlib Rscript bench/small_data.R
# Run time: 373 s (about 6 minutes) for the default run on the 2 shared
# cores (load 2 to 3), 85% of it in cv.glmnet (vehicle4's multinomial
# cv.glmnet takes about 4 s per fit; cv.dpsco 0.02 to 0.07 s per fit); the
# quick run above takes about 15 s.

suppressPackageStartupMessages({
  library(dpsco)
  library(glmnet)
})
options(width = 200, warn = 1)
script_start <- proc.time()[["elapsed"]]

env_list <- function(name, default) {
  v <- trimws(strsplit(Sys.getenv(name, default), ",", fixed = TRUE)[[1L]])
  v[nzchar(v)]
}
all_sets <- c("boston", "pima", "servo", "ozone", "votes", "vehicle_van", "vehicle4")
all_extras <- c("tiny", "wide", "ridge", "poisson")
n_splits <- as.integer(Sys.getenv("SMALL_SPLITS", "50"))
eps_grid <- as.numeric(env_list("SMALL_EPS", "0.5,1,2"))
sets <- tolower(env_list("SMALL_SETS", paste(all_sets, collapse = ",")))
extras <- tolower(env_list("SMALL_EXTRAS", paste(all_extras, collapse = ",")))
extras <- setdiff(extras, "none")
n_extra <- as.integer(Sys.getenv("SMALL_EXTRA_SEEDS", "5"))
out_file <- Sys.getenv("SMALL_OUT", "")
if (is.na(n_splits) || n_splits < 0L) stop("SMALL_SPLITS must be a non-negative integer")
if (is.na(n_extra) || n_extra < 1L) stop("SMALL_EXTRA_SEEDS must be a positive integer")
if (!length(eps_grid) || anyNA(eps_grid) || any(eps_grid <= 0))
  stop("SMALL_EPS must be a comma list of positive numbers")
if (length(bad <- setdiff(sets, all_sets)))
  stop("SMALL_SETS: unknown data set(s) ", paste(bad, collapse = ", "))
if (length(bad <- setdiff(extras, all_extras)))
  stop("SMALL_EXTRAS: unknown case(s) ", paste(bad, collapse = ", "))
if (!requireNamespace("mlbench", quietly = TRUE)) stop("this script needs mlbench")

installed_commit <- function() {
  f <- system.file("BENCH_COMMIT", package = "dpsco")
  if (nzchar(f)) readLines(f)[1L] else "unknown (not installed by bench/install.sh)"
}
# the install's stamp, read again at the end: a library reinstalled during
# the run would mix two versions
built_stamp <- function()
  read.dcf(file.path(find.package("dpsco"), "DESCRIPTION"), fields = "Built")[1L, 1L]
built_at_start <- built_stamp()
cat(sprintf("dpsco %s (%s, built %s), commit %s; glmnet %s, mlbench %s\n",
            utils::packageVersion("dpsco"), find.package("dpsco"), built_at_start,
            installed_commit(),
            utils::packageVersion("glmnet"), utils::packageVersion("mlbench")))
cat(sprintf("R %s, %s; splits 1..%d, epsilon %s, data: %s; extras: %s (seeds 1..%d)\n\n",
            getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M"), n_splits,
            paste(eps_grid, collapse = ", "), paste(sets, collapse = ", "),
            if (length(extras)) paste(extras, collapse = ", ") else "none", n_extra))

# ---- data, as a user passes them ---------------------------------------------

`%||%` <- function(a, b) if (is.null(a)) b else a   # base R has it from 4.4 only
num <- function(f) as.numeric(as.character(f))     # a factor with numeric levels

load_small <- function(name) {
  e <- new.env(parent = emptyenv())
  get_data <- function(d) {
    utils::data(list = d, package = "mlbench", envir = e)
    e[[d]]
  }
  out <- switch(name,
    boston = {
      d <- get_data("BostonHousing")
      d$chas <- num(d$chas)
      list(family = "gaussian", x = as.matrix(d[, names(d) != "medv"]), y = d$medv)
    },
    pima = {
      d <- get_data("PimaIndiansDiabetes")
      list(family = "binomial", x = as.matrix(d[, names(d) != "diabetes"]),
           y = as.numeric(d$diabetes == "pos"))
    },
    servo = {
      d <- get_data("Servo")
      x <- cbind(stats::model.matrix(~ Motor + Screw - 1, d),
                 Pgain = num(d$Pgain), Vgain = num(d$Vgain))
      list(family = "gaussian", x = x, y = d$Class)
    },
    ozone = {
      d <- get_data("Ozone")
      d <- d[stats::complete.cases(d), ]
      x <- cbind(V1 = num(d$V1), V2 = num(d$V2), V3 = num(d$V3),
                 as.matrix(d[, paste0("V", 5:13)]))
      list(family = "gaussian", x = x, y = d$V4)
    },
    votes = {
      d <- get_data("HouseVotes84")
      v <- paste0("V", 1:16)
      x <- do.call(cbind, lapply(v, function(k) {
        m <- cbind(as.numeric(!is.na(d[[k]]) & d[[k]] == "y"), as.numeric(is.na(d[[k]])))
        colnames(m) <- paste0(k, c("_y", "_na"))
        m
      }))
      list(family = "binomial", x = x, y = as.numeric(d$Class == "republican"))
    },
    vehicle_van = {
      d <- get_data("Vehicle")
      list(family = "binomial", x = as.matrix(d[, names(d) != "Class"]),
           y = as.numeric(d$Class == "van"))
    },
    vehicle4 = {
      d <- get_data("Vehicle")
      list(family = "multinomial", x = as.matrix(d[, names(d) != "Class"]),
           y = factor(d$Class))
    })
  storage.mode(out$x) <- "double"
  rownames(out$x) <- NULL
  c(list(name = name), out)
}

split_of <- function(ds, s) {
  n <- nrow(ds$x)
  set.seed(s)
  train <- sample.int(n, round(0.7 * n))
  list(x_train = ds$x[train, , drop = FALSE], y_train = ds$y[train],
       x_test = ds$x[-train, , drop = FALSE], y_test = ds$y[-train])
}

# ---- losses ------------------------------------------------------------------

majority <- function(y) {
  if (is.factor(y)) {
    tb <- table(y)
    factor(names(tb)[which.max(tb)], levels = levels(y))
  } else as.numeric(mean(y) > 0.5)
}

trivial_loss <- function(d, family) {
  if (family == "gaussian") sqrt(mean((d$y_test - mean(d$y_train))^2))
  else {
    m <- majority(d$y_train)
    mean(as.character(d$y_test) != as.character(m))
  }
}

# loss of test predictions: numeric (gaussian), probabilities (binomial),
# or classes (multinomial: a character vector, NA for a record whose
# probabilities are not all finite)
pred_loss <- function(pred, y, family) {
  if (family == "gaussian") return(sqrt(mean((pred - y)^2)))
  if (family == "binomial") {
    cls <- as.numeric(pred > 0.5)
    return(mean(is.na(cls) | cls != y))
  }
  mean(is.na(pred) | pred != as.character(y))
}

# ---- error and warning bookkeeping ----------------------------------------------

errors_seen <- character()
error_log <- list()
# f() under tryCatch; an error gives NULL and is printed once per key
guarded <- function(key, f) {
  warns <- character()
  out <- tryCatch(withCallingHandlers(f(), warning = function(w) {
    warns <<- c(warns, conditionMessage(w))
    invokeRestart("muffleWarning")
  }), error = function(err) err)
  if (length(warns)) {
    k <- paste(key, "warning")
    if (!k %in% errors_seen) {
      errors_seen <<- c(errors_seen, k)
      cat(sprintf("  [%s] warning (first of this kind, later ones counted): %s\n",
                  key, warns[1L]))
    }
  }
  if (inherits(out, "error")) {
    msg <- conditionMessage(out)
    error_log[[length(error_log) + 1L]] <<- data.frame(key = key, message = msg)
    if (!key %in% errors_seen) {
      errors_seen <<- c(errors_seen, key)
      cat(sprintf("  [%s] fit failed (NA recorded): %s\n", key, msg))
    }
    return(structure(list(), error = msg, warnings = length(warns)))
  }
  attr(out, "warnings") <- length(warns)
  out
}
failed <- function(out) !is.null(attr(out, "error"))

timed <- function(f) {
  t0 <- proc.time()
  v <- f()
  dt <- proc.time() - t0
  list(value = v, elapsed = dt[["elapsed"]])
}

# ---- the fits ------------------------------------------------------------------

fit_glmnet <- function(d, family, alpha = 1) {
  cv <- glmnet::cv.glmnet(d$x_train, d$y_train, family = family, alpha = alpha)
  type <- if (family == "multinomial") "class" else "response"
  pred <- stats::predict(cv, d$x_test, s = "lambda.min", type = type)
  nz <- if (family == "multinomial") {
    b <- stats::coef(cv, s = "lambda.min")
    sum(Reduce(`|`, lapply(b, function(bk) as.vector(bk[-1L, 1L]) != 0)))
  } else sum(as.vector(stats::coef(cv, s = "lambda.min"))[-1L] != 0)
  list(pred = if (family == "multinomial") as.vector(pred) else drop(pred), nzero = nz)
}

# the user's workflow; returns the predictions and what the table reads
fit_private <- function(d, family, eps, ...) {
  cvfit <- cv.dpsco(d$x_train, d$y_train, family = family, epsilon = eps, ...)
  resp <- predict(cvfit, d$x_test, s = "lambda.min", type = "response")
  if (family == "multinomial") {
    cls <- as.vector(predict(cvfit, d$x_test, s = "lambda.min", type = "class"))
    resp <- matrix(resp, nrow(d$x_test))
    ok_row <- rowSums(!is.finite(resp)) == 0
    cls[!ok_row] <- NA
    pred <- cls
    nonfin <- sum(!is.finite(resp))
  } else {
    pred <- drop(resp)
    nonfin <- sum(!is.finite(pred))
  }
  fit <- cvfit$dpsco.fit
  rel <- fit$privacy$released %||% cvfit$privacy$released
  b <- stats::coef(cvfit, s = "lambda.min")
  if (is.list(b)) {
    icpt <- NA_real_
    nz <- sum(Reduce(`|`, lapply(b, function(bk) as.vector(bk[-1L, 1L]) != 0)))
  } else {
    b <- as.vector(b)
    icpt <- b[1L]
    nz <- sum(b[-1L] != 0)
  }
  # released bound on |x_j| / the largest |x_j| of the training part
  xr <- if (!is.null(rel$x_bound)) {
    mx <- apply(abs(d$x_train), 2L, max)
    r <- unname(rel$x_bound) / mx
    r[mx > 0]
  } else NA_real_
  list(pred = pred, nonfin = nonfin, cvfit = cvfit, fit = fit, x_ratio = xr,
       y_bound = if (!is.null(rel$y_bound)) unname(rel$y_bound[1L]) else NA_real_,
       centre = if (!is.null(rel$centre) && length(rel$centre) == 1L)
         unname(rel$centre) else NA_real_,
       row_bound = if (!is.null(rel$row_bound)) unname(rel$row_bound[1L]) else NA_real_,
       clip = if (!is.null(rel$clip)) unname(rel$clip[1L]) else NA_real_,
       intercept = icpt, nzero = nz,
       index = if (length(cvfit$index)) cvfit$index[1L] else NA_integer_,
       nlambda = length(cvfit$lambda))
}

# ---- main benchmark -------------------------------------------------------------------

run_set <- function(ds) {
  fam <- ds$family
  rows <- list()
  for (s in seq_len(n_splits)) {
    d <- split_of(ds, s)
    lt <- trivial_loss(d, fam)
    set.seed(100000L * s + 99L)
    g <- timed(function() guarded(paste(ds$name, "cv.glmnet"), function() fit_glmnet(d, fam)))
    lg <- if (failed(g$value)) NA_real_ else pred_loss(g$value$pred, d$y_test, fam)
    for (j in seq_along(eps_grid)) {
      e <- eps_grid[j]
      set.seed(100000L * s + j)
      pr <- timed(function() guarded(paste(ds$name, "cv.dpsco"), function() fit_private(d, fam, e)))
      p <- pr$value
      ok <- !failed(p)
      lp <- if (ok) pred_loss(p$pred, d$y_test, fam) else NA_real_
      out_rel <- out_dat <- NA_real_
      if (ok && fam == "gaussian") {
        out_rel <- if (is.na(p$y_bound)) NA_real_ else sum(!(abs(p$pred) <= p$y_bound))
        out_dat <- sum(!(p$pred >= min(d$y_train) & p$pred <= max(d$y_train)))
      }
      rows[[length(rows) + 1L]] <- data.frame(
        data = ds$name, family = fam, split = s, epsilon = e,
        loss_trivial = lt, loss_glmnet = lg, loss_private = lp,
        n_test = nrow(d$x_test), nonfin = if (ok) p$nonfin else NA_integer_,
        out_rel = out_rel, out_data = out_dat,
        y_bound = if (ok) p$y_bound else NA_real_,
        centre = if (ok) p$centre else NA_real_,
        intercept = if (ok) p$intercept else NA_real_,
        row_bound = if (ok) p$row_bound else NA_real_,
        clip = if (ok) p$clip else NA_real_,
        xr_med = if (ok) stats::median(p$x_ratio) else NA_real_,
        xr_min = if (ok) min(p$x_ratio) else NA_real_,
        xr_max = if (ok) max(p$x_ratio) else NA_real_,
        y_max_abs = if (fam == "gaussian") max(abs(d$y_train)) else NA_real_,
        y_min = if (fam == "gaussian") min(d$y_train) else NA_real_,
        y_max = if (fam == "gaussian") max(d$y_train) else NA_real_,
        y_mean = if (fam == "gaussian") mean(d$y_train) else NA_real_,
        y_sd = if (fam == "gaussian") stats::sd(d$y_train) else NA_real_,
        index = if (ok) p$index else NA_integer_,
        nlambda = if (ok) p$nlambda else NA_integer_,
        nzero = if (ok) p$nzero else NA_integer_,
        nzero_glmnet = if (failed(g$value)) NA_integer_ else g$value$nzero,
        sec_private = pr$elapsed, sec_glmnet = g$elapsed,
        warn_private = attr(p, "warnings") %||% 0L,
        error = if (ok) "" else attr(p, "error"), stringsAsFactors = FALSE)
    }
    if (s %% 10L == 0L || s == n_splits)
      cat(sprintf("  %s: split %d of %d done (%.0f s since start)\n", ds$name, s, n_splits,
                  proc.time()[["elapsed"]] - script_start))
  }
  res <- do.call(rbind, rows)
  res$harm <- ifelse(res$loss_trivial > 0, res$loss_private / res$loss_trivial, NA_real_)
  res$harm[res$loss_trivial > 0 & is.nan(res$harm)] <- Inf
  res$harm_glmnet <- ifelse(res$loss_trivial > 0, res$loss_glmnet / res$loss_trivial, NA_real_)
  den <- res$loss_trivial - res$loss_glmnet
  res$gain <- ifelse(is.finite(den) & den > 0,
                     (res$loss_trivial - res$loss_private) / den, NA_real_)
  res
}

# fixed decimals, or 3 significant digits for the very large values
f3 <- function(v, d = 3)
  ifelse(is.na(v), "NA", ifelse(is.finite(v) & abs(v) >= 1e4,
                                formatC(v, format = "g", digits = 3),
                                formatC(v, format = "f", digits = d)))
sig <- function(v) ifelse(is.na(v), "NA", formatC(v, format = "g", digits = 3))
med <- function(v) if (all(is.na(v))) NA_real_ else stats::median(v, na.rm = TRUE)

report_set <- function(ds, res) {
  fam <- ds$family
  cat(sprintf(paste0("\n==== %s: %s, n = %d (train %d, test %d), p = %d; loss: test %s; ",
                     "%d splits ====\n"),
              ds$name, fam, nrow(ds$x), round(0.7 * nrow(ds$x)),
              nrow(ds$x) - round(0.7 * nrow(ds$x)), ncol(ds$x),
              if (fam == "gaussian") "RMSE" else "misclassification rate", n_splits))
  one <- res[res$epsilon == eps_grid[1L], ]
  cat(sprintf(paste0("trivial loss mean %s; cv.glmnet loss mean %s, its harm: median %s, ",
                     "max %s, share <= 1.05 %s; splits where glmnet does not beat the ",
                     "trivial model: %d\n"),
              f3(mean(one$loss_trivial)), f3(mean(one$loss_glmnet, na.rm = TRUE)),
              f3(med(one$harm_glmnet)), f3(suppressWarnings(max(one$harm_glmnet, na.rm = TRUE))),
              f3(mean(one$harm_glmnet <= 1.05, na.rm = TRUE), 2),
              sum(!(one$loss_trivial > one$loss_glmnet), na.rm = TRUE)))
  tab <- do.call(rbind, lapply(eps_grid, function(e) {
    r <- res[res$epsilon == e, ]
    h <- r$harm
    ok <- !is.na(h)
    data.frame(
      eps = format(e), ok = sum(!is.na(r$loss_private)), err = sum(nzchar(r$error)),
      guard = sum(!(r$loss_trivial > 0)),
      `harm<=1.05` = if (any(ok)) f3(mean(h[ok] <= 1.05), 2) else "NA",
      `med harm` = f3(med(h)),
      `max harm` = f3(if (any(ok)) max(h[ok]) else NA_real_),
      `mean G` = f3(if (any(!is.na(r$gain))) mean(r$gain, na.rm = TRUE) else NA_real_),
      `G NA` = sum(is.na(r$gain) & !is.na(r$loss_private)),
      `G means` = f3((mean(r$loss_trivial) - mean(r$loss_private, na.rm = TRUE)) /
                       (mean(r$loss_trivial) - mean(r$loss_glmnet, na.rm = TRUE))),
      `mean loss` = f3(mean(r$loss_private, na.rm = TRUE)),
      nonfin = sprintf("%d/%d", sum(r$nonfin > 0, na.rm = TRUE), sum(r$nonfin, na.rm = TRUE)),
      `out rel` = if (fam == "gaussian")
        f3(sum(r$out_rel, na.rm = TRUE) / sum(r$n_test[!is.na(r$out_rel)])) else "-",
      `out data` = if (fam == "gaussian")
        f3(sum(r$out_data, na.rm = TRUE) / sum(r$n_test[!is.na(r$out_data)])) else "-",
      check.names = FALSE, stringsAsFactors = FALSE)
  }))
  cat("\nHarm against the trivial model (cv.dpsco at lambda.min):\n")
  print(tab, row.names = FALSE, right = TRUE)
  tab2 <- do.call(rbind, lapply(eps_grid, function(e) {
    r <- res[res$epsilon == e, ]
    base <- data.frame(
      eps = format(e), `med index` = f3(med(r$index), 1),
      `at lambda 1` = f3(mean(r$index == 1L, na.rm = TRUE), 2),
      `med nzero` = f3(med(r$nzero), 1), `glmnet nzero` = f3(med(r$nzero_glmnet), 1),
      `rowB<1` = f3(mean(r$row_bound < 1, na.rm = TRUE), 2),
      `xB/max|x| med` = sig(med(r$xr_med)),
      `xB/max|x| range` = sprintf("%s..%s", sig(suppressWarnings(min(r$xr_min, na.rm = TRUE))),
                                  sig(suppressWarnings(max(r$xr_max, na.rm = TRUE)))),
      check.names = FALSE, stringsAsFactors = FALSE)
    if (fam == "gaussian") {
      base <- cbind(base, data.frame(
        `med B/max|y|` = sig(med(r$y_bound / r$y_max_abs)),
        `B/max|y| range` = sprintf("%s..%s", sig(min(r$y_bound / r$y_max_abs, na.rm = TRUE)),
                                   sig(max(r$y_bound / r$y_max_abs, na.rm = TRUE))),
        `med |centre-mean|/sd` = f3(med(abs(r$centre - r$y_mean) / r$y_sd), 2),
        `centre out [-B,B]` = f3(mean(!(abs(r$centre) <= r$y_bound), na.rm = TRUE), 2),
        `icpt out [-B,B]` = f3(mean(!(abs(r$intercept) <= r$y_bound), na.rm = TRUE), 2),
        `icpt out data` = f3(mean(!(r$intercept >= r$y_min & r$intercept <= r$y_max),
                                  na.rm = TRUE), 2),
        check.names = FALSE, stringsAsFactors = FALSE))
    }
    cbind(base, data.frame(`s/fit` = f3(mean(r$sec_private), 2),
                           `glmnet s/fit` = f3(mean(r$sec_glmnet[r$epsilon == e]), 2),
                           warn = sum(r$warn_private > 0),
                           check.names = FALSE, stringsAsFactors = FALSE))
  }))
  cat("\nThe private choice and, for gaussian, the released settings against the data:\n")
  print(tab2, row.names = FALSE, right = TRUE)
  if (fam == "gaussian")
    cat(sprintf("(data: y in [%s, %s], mean %s, sd %s over all %d rows)\n",
                format(min(ds$y)), format(max(ds$y)), f3(mean(ds$y), 2),
                f3(stats::sd(ds$y), 2), length(ds$y)))
}

# ---- extra cases ---------------------------------------------------------------

extra_tiny <- function() {
  ds <- load_small("boston")
  e <- 1e-4
  rows <- lapply(seq_len(n_extra), function(s) {
    d <- split_of(ds, s)
    set.seed(100000L * s + 77L)
    p <- guarded("tiny boston cv.dpsco", function() fit_private(d, "gaussian", e))
    if (failed(p))
      return(data.frame(seed = s, B = NA, centre = NA, `centre in [-B,B]` = NA, `row bound` = NA,
                        intercept = NA, `in [-B,B]` = NA,
                        `in data` = NA, `path a0 in [-B,B]` = NA, `path a0 min..max` = NA,
                        harm = NA, `out rel` = NA, nonfin = NA, check.names = FALSE))
    a0 <- as.vector(p$fit$a0)
    lt <- trivial_loss(d, "gaussian")
    data.frame(seed = s, B = f3(p$y_bound, 1), centre = f3(p$centre, 1),
               `centre in [-B,B]` = abs(p$centre) <= p$y_bound,
               `row bound` = sig(p$row_bound),
               intercept = f3(p$intercept, 1),
               `in [-B,B]` = abs(p$intercept) <= p$y_bound,
               `in data` = p$intercept >= min(d$y_train) & p$intercept <= max(d$y_train),
               `path a0 in [-B,B]` = sprintf("%d/%d", sum(abs(a0) <= p$y_bound), length(a0)),
               `path a0 min..max` = sprintf("%s..%s", f3(min(a0), 1), f3(max(a0), 1)),
               harm = f3(pred_loss(p$pred, d$y_test, "gaussian") / lt),
               `out rel` = f3(mean(!(abs(p$pred) <= p$y_bound)), 2),
               nonfin = p$nonfin, check.names = FALSE)
  })
  cat(sprintf(paste0("\n==== Extra: BostonHousing at epsilon = 1e-4 (cv.dpsco defaults; ",
                     "training y in about [5, 50]) ====\n")))
  print(do.call(rbind, rows), row.names = FALSE, right = TRUE)
  invisible(do.call(rbind, rows))
}

extra_wide <- function() {
  n <- 50L; p <- 200L; n_test <- 1000L
  beta <- c(rep(1, 5), rep(0, p - 5))
  rows <- list()
  for (s in seq_len(n_extra)) {
    set.seed(s)
    x <- matrix(stats::rnorm((n + n_test) * p), n + n_test, p)
    y <- drop(x %*% beta) + stats::rnorm(n + n_test)
    d <- list(x_train = x[1:n, ], y_train = y[1:n], x_test = x[-(1:n), ], y_test = y[-(1:n)])
    lt <- trivial_loss(d, "gaussian")
    set.seed(100000L * s + 99L)
    g <- guarded("wide cv.glmnet", function() fit_glmnet(d, "gaussian"))
    lg <- if (failed(g)) NA_real_ else pred_loss(g$pred, d$y_test, "gaussian")
    for (j in seq_along(eps_grid)) {
      set.seed(100000L * s + j)
      pr <- guarded("wide cv.dpsco", function() fit_private(d, "gaussian", eps_grid[j]))
      ok <- !failed(pr)
      lp <- if (ok) pred_loss(pr$pred, d$y_test, "gaussian") else NA_real_
      fin <- if (ok) all(is.finite(pr$fit$a0)) && all(is.finite(as.matrix(pr$fit$beta))) else NA
      bmax <- if (ok) max(abs(as.matrix(pr$fit$beta))) else NA_real_
      rows[[length(rows) + 1L]] <- data.frame(
        seed = s, eps = eps_grid[j], `coef finite` = fin, `path max|beta|` = sig(bmax),
        `B/max|y|` = if (ok) sig(pr$y_bound / max(abs(d$y_train))) else "NA",
        `x bounds` = if (ok) sprintf("%s..%s", sig(min(pr$x_ratio)), sig(max(pr$x_ratio))) else "NA",
        `trivial RMSE` = f3(lt, 2), `glmnet RMSE` = f3(lg, 2), `private RMSE` = f3(lp, 2),
        harm = f3(lp / lt), G = f3((lt - lp) / (lt - lg)),
        icpt = if (ok) f3(pr$intercept, 2) else "NA",
        `row bound` = if (ok) sig(pr$row_bound) else "NA",
        nzero = if (ok) pr$nzero else NA, `glmnet nzero` = if (failed(g)) NA else g$nzero,
        nonfin = if (ok) pr$nonfin else NA, error = if (ok) "" else attr(pr, "error"),
        check.names = FALSE, stringsAsFactors = FALSE)
    }
  }
  res <- do.call(rbind, rows)
  cat(sprintf(paste0("\n==== Extra: simulated n = %d, p = %d (x iid N(0,1), beta = 1 on 5 ",
                     "columns, noise sd 1, %d test rows), cv.dpsco defaults ====\n"),
              n, p, n_test))
  if (!any(nzchar(res$error))) res$error <- NULL
  print(res, row.names = FALSE, right = TRUE)
  invisible(res)
}

extra_ridge <- function() {
  rows <- list()
  for (nm in c("pima", "vehicle_van")) {
    ds <- load_small(nm)
    pp <- ncol(ds$x)
    for (s in seq_len(n_extra)) {
      d <- split_of(ds, s)
      lt <- trivial_loss(d, "binomial")
      set.seed(100000L * s + 99L)
      g <- guarded(paste("ridge", nm, "cv.glmnet"),
                   function() fit_glmnet(d, "binomial", alpha = 0))
      lg <- if (failed(g)) NA_real_ else pred_loss(g$pred, d$y_test, "binomial")
      for (j in seq_along(eps_grid)) {
        set.seed(100000L * s + j)
        pr <- guarded(paste("ridge", nm, "cv.dpsco"),
                      function() fit_private(d, "binomial", eps_grid[j], alpha = 0))
        ok <- !failed(pr)
        lp <- if (ok) pred_loss(pr$pred, d$y_test, "binomial") else NA_real_
        df <- if (ok) as.vector(pr$fit$df) else NA
        raw <- if (ok && !is.null(pr$fit$support$beta_raw))
          colSums(as.matrix(pr$fit$support$beta_raw) != 0) else NA
        rows[[length(rows) + 1L]] <- data.frame(
          data = nm, p = pp, seed = s, eps = eps_grid[j],
          `df over the path` = if (ok) paste(df, collapse = " ") else "NA",
          `all df = p` = if (ok) all(df == pp) else NA,
          `raw df (no support rule)` = if (ok) paste(range(raw), collapse = "..") else "NA",
          `xB/max|x|` = if (ok) sprintf("%s..%s", sig(min(pr$x_ratio)), sig(max(pr$x_ratio))) else "NA",
          `nzero at min` = if (ok) pr$nzero else NA,
          `row bound` = if (ok) sig(pr$row_bound) else "NA",
          harm = if (lt > 0) f3(lp / lt) else "NA (guard)",
          G = f3(if (is.finite(lt - lg) && lt > lg) (lt - lp) / (lt - lg) else NA_real_),
          error = if (ok) "" else attr(pr, "error"),
          check.names = FALSE, stringsAsFactors = FALSE)
      }
    }
  }
  res <- do.call(rbind, rows)
  cat("\n==== Extra: ridge, cv.dpsco(x, y, family = \"binomial\", alpha = 0, epsilon) ====\n")
  cat("(df: cvfit$dpsco.fit$df, the non-zero slopes at each lambda, largest lambda first;",
      "raw df: non-zeros of fit$support$beta_raw, the iterates before the support rule;",
      "\nxB/max|x|: released bounds on |x_j| over the training max |x_j|;",
      "G against cv.glmnet(alpha = 0))\n")
  if (!any(nzchar(res$error))) res$error <- NULL
  print(res, row.names = FALSE, right = TRUE)
  invisible(res)
}

pois_dev <- function(y, mu) {
  mean(2 * (ifelse(y > 0, y * log(y / mu), 0) - (y - mu)))
}

extra_poisson <- function() {
  n <- 500L
  rows <- list()
  for (s in seq_len(n_extra)) {
    set.seed(s)
    m <- 2L * n
    x <- matrix(stats::rnorm(m * 3L), m, 3L, dimnames = list(NULL, paste0("x", 1:3)))
    e <- stats::runif(m, 0.5, 5)
    y <- stats::rpois(m, e * exp(-2 + 0.5 * x[, 1L]))
    tr <- seq_len(n)
    fits <- lapply(c(A = 0, B = 2.5), function(sh) {
      set.seed(100000L * s + 55L)
      guarded("poisson dpsco", function()
        dpsco(x[tr, ], y[tr], family = "poisson", offset = log(e[tr]) + sh, epsilon = 1))
    })
    rate <- sum(y[tr]) / sum(e[tr])
    gl <- stats::glm(y[tr] ~ x[tr, ], family = stats::poisson(), offset = log(e[tr]))
    mu_glm <- e[-tr] * exp(drop(cbind(1, x[-tr, ]) %*% stats::coef(gl)))
    dev <- function(fit, sh) {
      mu <- predict(fit, x[-tr, ], s = min(fit$lambda), type = "response",
                    newoffset = log(e[-tr]) + sh)
      pois_dev(y[-tr], drop(mu))
    }
    if (failed(fits$A) || failed(fits$B)) {
      rows[[length(rows) + 1L]] <- data.frame(seed = s, error = "fit failed")
      next
    }
    A <- fits$A; B <- fits$B
    k <- length(A$lambda)
    bA <- as.matrix(A$beta); bB <- as.matrix(B$beta)
    rows[[length(rows) + 1L]] <- data.frame(
      seed = s, `a0 A` = f3(A$a0[k]), `a0 B` = f3(B$a0[k]), `A-B` = f3(A$a0[k] - B$a0[k]),
      `x1 A` = f3(bA[1L, k]), `x1 B` = f3(bB[1L, k]),
      `x2,x3 A` = paste(f3(bA[2:3, k], 2), collapse = ","),
      `path max|dA0-2.5|` = formatC(max(abs(A$a0 - B$a0 - 2.5)), format = "g", digits = 3),
      `path max|dbeta|` = formatC(max(abs(bA - bB)), format = "g", digits = 3),
      `same lambdas` = isTRUE(all.equal(A$lambda, B$lambda)),
      `B_A/B_B` = f3(A$privacy$released$y_bound[1L] / B$privacy$released$y_bound[1L], 2),
      `rowB A,B` = paste(sig(c(A$privacy$released$row_bound[1L],
                               B$privacy$released$row_bound[1L])), collapse = ","),
      `dev rate-only` = f3(pois_dev(y[-tr], e[-tr] * rate)),
      `dev glm` = f3(pois_dev(y[-tr], mu_glm)),
      `dev A` = f3(dev(A, 0)), `dev B` = f3(dev(B, 2.5)),
      check.names = FALSE, stringsAsFactors = FALSE)
  }
  cat(paste0("\n==== Extra: poisson with an offset, n = 500 (+500 test), y ~ Poisson(e exp(-2 + ",
             "0.5 x1)), e ~ U(0.5, 5), epsilon = 1 ====\n"))
  cat("B_A/B_B: the released bounds on y net of the offset (y exp(-offset)) of A over B,",
      sprintf("%.2f = exp(2.5) if equivariant;\n", exp(2.5)))
  cat("A: offset = log(e); B: offset = log(e) + 2.5 (same seed); coefficients at the last",
      "lambda; truth: a0 -2 (A), -4.5 (B), x1 0.5;\nmean test deviance (predicted with",
      "newoffset = log(e_test) (+ 2.5)); glm: non-private, same offset\n")
  print(do.call(rbind, rows), row.names = FALSE, right = TRUE)
  invisible(do.call(rbind, rows))
}

# ---- running ---------------------------------------------------------------------

all_res <- list()
if (n_splits > 0L) for (nm in sets) {
  ds <- load_small(nm)
  cat(sprintf("Running %s (%d x %d, %s) ...\n", nm, nrow(ds$x), ncol(ds$x), ds$family))
  res <- run_set(ds)
  all_res[[nm]] <- res
  report_set(ds, res)
  cat("\n")
}
extra_res <- list()
for (ex in extras) {
  t0 <- proc.time()[["elapsed"]]
  extra_res[[ex]] <- switch(ex, tiny = extra_tiny(), wide = extra_wide(),
                            ridge = extra_ridge(), poisson = extra_poisson())
  cat(sprintf("(%s: %.0f s)\n", ex, proc.time()[["elapsed"]] - t0))
}

if (length(all_res)) {
  cat("\n==== Summary: share of splits with harm <= 1.05 (median harm) ====\n")
  summ <- do.call(rbind, lapply(names(all_res), function(nm) {
    r <- all_res[[nm]]
    v <- vapply(eps_grid, function(e) {
      h <- r$harm[r$epsilon == e]
      sprintf("%s (%s)", f3(mean(h <= 1.05, na.rm = TRUE), 2), f3(med(h), 2))
    }, "")
    data.frame(data = nm, family = r$family[1L], t(stats::setNames(v, paste0("eps=", eps_grid))),
               check.names = FALSE, stringsAsFactors = FALSE)
  }))
  print(summ, row.names = FALSE, right = TRUE)
}
if (length(all_res)) {
  pooled <- do.call(rbind, all_res)
  pattern <- function(r, by, label) {
    tb <- do.call(rbind, lapply(split(r, by, drop = TRUE), function(d)
      data.frame(fits = nrow(d), `harm<=1.05` = f3(mean(d$harm <= 1.05, na.rm = TRUE), 2),
                 `med harm` = f3(med(d$harm)),
                 `max harm` = f3(suppressWarnings(max(d$harm, na.rm = TRUE))),
                 `med |icpt|` = sig(med(abs(d$intercept))),
                 check.names = FALSE)))
    cat(sprintf("\n%s:\n", label))
    print(cbind(group = rownames(tb), tb), row.names = FALSE, right = TRUE)
  }
  gs <- pooled[pooled$family == "gaussian", ]
  if (nrow(gs)) {
    cat("\n==== Pattern: gaussian fits of all sets and epsilons pooled ====\n")
    pattern(gs, cut(gs$y_bound / gs$y_max_abs, c(0, 0.5, 2, 10, 100, Inf)),
            "by the released bound on |y| over max |y_train| (B/max|y|)")
    pattern(gs, cut(gs$clip / gs$y_max_abs, c(0, 0.1, 1, 10, 100, 1e4, Inf)),
            paste("by the released clip level (on |r_i| ||(1, x_i)||) over max |y_train|",
                  sprintf("(clip levels seen: 2^%d to 2^%d)", round(min(log2(gs$clip), na.rm = TRUE)),
                          round(max(log2(gs$clip), na.rm = TRUE)))))
    pattern(gs, ifelse(gs$row_bound < 1, "row bound < 1", "row bound >= 1"),
            "by the released row bound (||(1, x_i)|| >= 1 for every row)")
  }
  cat("\n==== Pattern: all fits by the released row bound ====\n")
  pattern(pooled, paste(pooled$family, ifelse(pooled$row_bound < 1, "row bound < 1",
                                              "row bound >= 1")), "family x row bound")
}
if (length(error_log)) {
  el <- do.call(rbind, error_log)
  cat("\nErrors (count by fit and message):\n")
  print(stats::aggregate(list(count = rep(1L, nrow(el))), el[c("key", "message")], sum),
        row.names = FALSE, right = FALSE)
} else cat("\nNo fit stopped with an error.\n")

if (nzchar(out_file)) {
  saveRDS(list(results = if (length(all_res)) do.call(rbind, all_res), extras = extra_res,
               errors = error_log, commit = installed_commit(),
               dpsco_version = as.character(utils::packageVersion("dpsco")),
               splits = n_splits, epsilon = eps_grid, sets = sets, date = Sys.time()),
          out_file)
  cat(sprintf("Raw results saved to %s\n", out_file))
}
if (!identical(built_stamp(), built_at_start))
  cat("WARNING: dpsco was reinstalled during the run (now built", built_stamp(),
      "): the results may mix two versions.\n")
cat(sprintf("Total wall time %.0f s\n", proc.time()[["elapsed"]] - script_start))
