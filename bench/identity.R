# Side-by-side identity of fits across a refactor.  For every method, family,
# tuning mode and storage of x, fit a small problem with a fixed seed and
# keep the coefficients, the privacy record's accounted epsilon and noise
# multipliers (or the error class and message when the combination is
# refused); then every family's default fit and cv.dpsco() with every
# display (print, summary, privacy, coef, predict, assess, deviance, the
# inference table) and the sharded fits on a two-worker socket cluster
# (DPSCO_IDENTITY_SHARDS=false leaves those out).  Run it under the old and the new build and compare:
#   R_LIBS=old Rscript bench/identity.R save old.rds
#   R_LIBS=new Rscript bench/identity.R save new.rds
#   Rscript bench/identity.R compare old.rds new.rds
args <- commandArgs(trailingOnly = TRUE)

snapshot <- function() {
  suppressPackageStartupMessages(library(dpsco))
  methods <- c("clip", "holland", "kamath", "none", "prox_clipped_sgd", "fw",
               "htp_lasso", "htdp_fw", "objective", "mirror",
               "mirror_shuffled", "sample_aggregate", "bun_steinke", "acsa",
               "clipped_sgd", "localized")
  families <- c("gaussian", "binomial", "quantile")
  set.seed(3)
  n <- 400; p <- 6
  x <- matrix(rnorm(n * p), n, p) * rep(c(1, 10, 0.1, 1, 5, 1), each = n)
  x[sample(length(x), 0.7 * length(x))] <- 0
  beta <- c(1, -1, 0, 0, 0.5, 0)
  ys <- list(gaussian = drop(x %*% beta) + rt(n, 3),
             binomial = rbinom(n, 1, plogis(drop(x %*% beta))),
             quantile = drop(x %*% beta) + rt(n, 2))
  out <- list()
  for (m in methods) for (f in families) for (tun in c("private", "public"))
    for (sp in c(FALSE, TRUE)) {
      xx <- if (sp) Matrix::Matrix(x, sparse = TRUE) else x
      key <- paste(m, f, tun, if (sp) "sparse" else "dense")
      set.seed(11)
      r <- tryCatch({
        fit <- suppressWarnings(dpsco(xx, ys[[f]], family = f, method = m,
                                      epsilon = 2, tuning = tun, nlambda = 3))
        pr <- privacy(fit)
        list(a0 = fit$a0, beta = as.matrix(fit$beta),
             path = fit$lambda %||% fit$radius, eps = pr$epsilon,
             z = vapply(pr$parts, function(q) q$noise_multiplier %||% NA_real_, 0),
             seed = .Random.seed)
      }, error = function(e) list(error = class(e)[1], message = conditionMessage(e)))
      out[[key]] <- r
    }
  # non-default settings and cv.dpsco()
  extra <- list(
    spgd = list(method = "clip", optimizer = "spgd", iterations = 20),
    batches = list(method = "holland", tuning = "public", batch_size = 100,
                   iterations = 5),
    std = list(method = "kamath", standardize = "private"),
    lp = list(method = "mirror", lp = 1.5),
    prox = list(method = "prox_clipped_sgd", batch_size = 50, iterations = 4),
    declared = list(method = "clip", control = dpsco_control(clip = 2, x_bound = 3)),
    paper = list(method = "kamath", calibration = "paper"))
  for (k in names(extra)) {
    set.seed(12)
    out[[paste("extra", k)]] <- tryCatch({
      fit <- suppressWarnings(do.call(dpsco, c(list(x, ys$gaussian, epsilon = 2,
                                                    nlambda = 3), extra[[k]])))
      list(beta = as.matrix(fit$beta), a0 = fit$a0, eps = privacy(fit)$epsilon,
           seed = .Random.seed)
    }, error = function(e) list(error = class(e)[1], message = conditionMessage(e)))
  }
  for (m in c("clip", "fw", "acsa")) {
    set.seed(13)
    out[[paste("cv", m)]] <- tryCatch({
      cv <- suppressWarnings(cv.dpsco(x, ys$gaussian, method = m, epsilon = 2,
                                      nlambda = 4))
      list(cvm = cv$cvm, index = cv$index, coef = as.matrix(coef(cv)),
           seed = .Random.seed)
    }, error = function(e) list(error = class(e)[1], message = conditionMessage(e)))
  }
  out <- c(out, snapshot_displays(x, ys))
  if (!identical(Sys.getenv("DPSCO_IDENTITY_SHARDS"), "false"))
    out <- c(out, snapshot_shards(x, ys))
  out
}

# Every family's default fit and cv.dpsco() as a user sees them: print(),
# summary(), privacy(), coef(), predict(), assess(), deviance(), and the
# inference table; each with the generator's state after it.
snapshot_displays <- function(x, ys) {
  n <- nrow(x)
  set.seed(21)
  ys$poisson <- rpois(n, exp(0.3 * x[, 1]))
  ys$multinomial <- factor(sample(c("a", "b", "c"), n, TRUE), levels = c("a", "b", "c"))
  out <- list()
  shown <- function(obj) capture.output(print(obj))
  for (f in names(ys)) {
    set.seed(22)
    out[[paste("display fit", f)]] <- tryCatch({
      fit <- suppressWarnings(dpsco(x, ys[[f]], family = f, epsilon = 2,
                                    nlambda = 5))
      list(print = shown(fit), summary = shown(summary(fit)),
           privacy = shown(privacy(fit)),
           assess = suppressWarnings(assess.dpsco(fit, newx = x, newy = ys[[f]])),
           deviance = deviance(fit, newx = x, newy = ys[[f]]),
           seed = .Random.seed)
    }, error = function(e) list(error = class(e)[1], message = conditionMessage(e)))
    set.seed(23)
    out[[paste("display cv", f)]] <- tryCatch({
      cv <- suppressWarnings(cv.dpsco(x, ys[[f]], family = f, epsilon = 2,
                                      nlambda = 5))
      list(print = shown(cv), summary = shown(summary(cv)),
           coef = capture.output(print(coef(cv))),
           predict = predict(cv, newx = x[1:5, ]),
           assess = suppressWarnings(assess.dpsco(cv, newx = x, newy = ys[[f]])),
           seed = .Random.seed)
    }, error = function(e) list(error = class(e)[1], message = conditionMessage(e)))
  }
  for (f in c("gaussian", "binomial", "poisson")) {
    set.seed(24)
    out[[paste("display inference", f)]] <- tryCatch({
      big <- x[rep(seq_len(n), 10), 1:3] + rnorm(30 * n, 0, 0.1)
      y <- switch(f, gaussian = big[, 1] + rnorm(10 * n),
                  binomial = rbinom(10 * n, 1, plogis(big[, 1])),
                  poisson = rpois(10 * n, exp(0.3 * big[, 1])))
      fit <- suppressWarnings(dpsco(big, y, family = f, epsilon = 2,
                                    inference = TRUE))
      list(summary = shown(summary(fit)),
           confint = suppressWarnings(confint(fit)), seed = .Random.seed)
    }, error = function(e) list(error = class(e)[1], message = conditionMessage(e)))
  }
  out
}

# Sharded fits on a two-worker socket cluster (the same library as this
# process): dpsco() and cv.dpsco() per family, coefficients and displays.
snapshot_shards <- function(x, ys) {
  cl <- parallel::makeCluster(2L)
  on.exit(parallel::stopCluster(cl))
  n <- nrow(x)
  set.seed(25)
  ys$poisson <- rpois(n, exp(0.3 * x[, 1]))
  ys$multinomial <- factor(sample(c("a", "b", "c"), n, TRUE), levels = c("a", "b", "c"))
  out <- list()
  for (f in c("gaussian", "binomial", "poisson", "multinomial")) {
    y <- ys[[f]]
    parts <- list(seq_len(150), 151:n)
    loader <- local({
      xx <- x; yy <- y; pp <- parts
      function(i) list(x = xx[pp[[i]], , drop = FALSE], y = yy[pp[[i]]])
    })
    set.seed(26)
    out[[paste("shards", f)]] <- tryCatch({
      sh <- dpsco_shards(cl, loader)
      fit <- suppressWarnings(dpsco(sh, family = f, epsilon = 2, nlambda = 4,
                                    public_n = n))
      set.seed(27)
      cv <- suppressWarnings(cv.dpsco(sh, family = f, epsilon = 2, nlambda = 4,
                                      public_n = n))
      list(a0 = fit$a0, beta = if (is.list(fit$beta)) lapply(fit$beta, as.matrix)
                              else as.matrix(fit$beta),
           print = capture.output(print(fit)), cv = capture.output(print(cv)),
           cv_coef = capture.output(print(coef(cv))), seed = .Random.seed)
    }, error = function(e) list(error = class(e)[1], message = conditionMessage(e)))
  }
  out
}
`%||%` <- function(a, b) if (is.null(a)) b else a

if (length(args) >= 2 && args[1] == "save") {
  saveRDS(snapshot(), args[2])
} else if (length(args) == 3 && args[1] == "compare") {
  a <- readRDS(args[2]); b <- readRDS(args[3])
  keys <- union(names(a), names(b))
  same <- vapply(keys, function(k) identical(a[[k]], b[[k]]), TRUE)
  fitted <- vapply(keys, function(k) is.null(a[[k]]$error), TRUE)
  cat(sprintf("%d configurations (%d fitted, %d refused): %d identical\n",
              length(keys), sum(fitted), sum(!fitted), sum(same)))
  for (k in keys[!same]) {
    cat("differs:", k, "\n")
    if (!is.null(a[[k]]$error) || !is.null(b[[k]]$error))
      cat("   old:", a[[k]]$message %||% "fit", "\n   new:",
          b[[k]]$message %||% "fit", "\n")
  }
  if (!all(same)) quit(status = 1)
} else {
  stop("usage: identity.R save FILE | compare OLD NEW")
}
