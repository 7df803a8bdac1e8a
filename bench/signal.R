# bench/signal.R -- does the signal sentence of a private path say what the
# fit supports?  (issue 51)
#
# For each real data set, as users pass it (raw columns and responses;
# bench/data.R's panel and bench/small_data.R's small sets), and for a copy
# whose y is permuted (no signal by construction), this script fits the
# default private path, dpsco(x, y, family, epsilon), on a 70% training
# part, reads the grade of its signal check (R/signal.R: "strong",
# "borderline" or "none", from the first released gradient, net of the
# intercept's noise), and compares it with what the default workflow
# gains on the test part: cv.dpsco()'s model at lambda.min against the
# trivial model (the training mean, or the training class shares), as
#   gain = 1 - test loss / trivial test loss
# (squared error, binomial or multinomial deviance, poisson deviance) and
# glmnet's gain on the same split.  A sentence misleads when it says
# "strong" on permuted data, or "none" where the private model gains.
#
#   SIGNAL_SETS     comma list (default: every set that loads)
#   SIGNAL_SPLITS   splits per set (default 4)
#   SIGNAL_EPS      comma list of epsilons (default 1)
#   R_LIBS=/tmp/benchlib Rscript bench/signal.R      # about 15 min
suppressPackageStartupMessages(library(dpsco))
here <- local({
  a <- commandArgs(FALSE); f <- sub("^--file=", "", a[grep("^--file=", a)])
  if (length(f)) dirname(normalizePath(f)) else "bench"
})
source(file.path(here, "data.R"))
# only the small sets' loader of small_data.R (the file runs its study)
local({
  ex <- parse(file.path(here, "small_data.R"))
  keep <- vapply(ex, function(e) is.call(e) && identical(e[[1]], as.name("<-")) &&
                   as.character(e[[2]]) %in% c("num", "load_small"), TRUE)
  for (e in ex[keep]) eval(e, globalenv())
})
panel <- c("blog", "diamonds", "cps", "ames", "concrete", "satellite", "spam")
small <- c("boston", "pima", "servo", "ozone", "votes", "vehicle_van")
sets <- strsplit(Sys.getenv("SIGNAL_SETS", paste(c(panel, small), collapse = ",")), ",")[[1]]
splits <- as.integer(Sys.getenv("SIGNAL_SPLITS", "4"))
eps_grid <- as.numeric(strsplit(Sys.getenv("SIGNAL_EPS", "1"), ",")[[1]])

test_loss <- function(fam, y, p) {
  p <- as.matrix(p)
  switch(fam,
    gaussian = mean((y - p)^2),
    binomial = { p <- pmin(pmax(p[, 1], 1e-6), 1 - 1e-6); -2 * mean(y * log(p) + (1 - y) * log(1 - p)) },
    poisson = 2 * mean(ifelse(y > 0, y * log(y / pmax(p, 1e-9)), 0) - (y - p)),
    multinomial = { p <- pmax(p, 1e-6); -2 * mean(log(p[cbind(seq_along(y), as.integer(y))])) })
}
trivial_pred <- function(fam, y, m) {
  if (fam == "multinomial") matrix(tabulate(as.integer(y), nlevels(y)) / length(y),
                                   m, nlevels(y), byrow = TRUE)
  else rep(mean(y), m)
}
one <- function(d, seed, eps, permute) {
  set.seed(seed)
  n <- nrow(d$x); tr <- sample.int(n, round(0.7 * n))
  y <- d$y[tr]; if (permute) y <- y[sample.int(length(y))]
  x <- d$x[tr, , drop = FALSE]; xt <- d$x[-tr, , drop = FALSE]; yt <- d$y[-tr]
  if (permute) { yt <- yt[sample.int(length(yt))] }
  f <- suppressWarnings(dpsco(x, y, family = d$family, epsilon = eps))
  cv <- suppressWarnings(cv.dpsco(x, y, family = d$family, epsilon = eps))
  gl <- glmnet::cv.glmnet(x, y, family = d$family)
  l0 <- test_loss(d$family, yt, trivial_pred(d$family, y, nrow(xt)))
  lp <- test_loss(d$family, yt, predict(cv, xt, s = "lambda.min", type = "response"))
  lg <- test_loss(d$family, yt, predict(gl, xt, s = "lambda.min", type = "response"))
  s <- f$signal
  data.frame(set = d$name, n = length(tr), eps = eps, permuted = permute, seed = seed,
             grade = s$grade %||% if (isTRUE(s$detected)) "strong" else "none",
             excess = s$excess %||% (s$ratio - s$noise_max), kept = max(f$df),
             gain = 1 - lp / l0, gain_glmnet = 1 - lg / l0)
}
`%||%` <- function(a, b) if (is.null(a)) b else a
rows <- list()
for (nm in sets) {
  d <- if (nm %in% small) load_small(nm) else load_data(nm)
  if (is.null(d)) next
  if (d$family == "multinomial") next
  for (eps in eps_grid) for (perm in c(FALSE, TRUE)) for (s in seq_len(splits)) {
    r <- one(d, s, eps, perm); rows[[length(rows) + 1L]] <- r
    cat(sprintf("%-11s n %6d eps %-4s %-8s seed %d: %-10s excess %6.2f kept %3d  gain %6.3f (glmnet %6.3f)\n",
                r$set, r$n, format(eps), if (perm) "permuted" else "real", s, r$grade,
                r$excess, r$kept, r$gain, r$gain_glmnet))
  }
}
res <- do.call(rbind, rows)
cat("\nGrade counts by set (real y | permuted y), with the mean gain of cv.dpsco() and glmnet:\n")
for (perm in c(FALSE, TRUE)) {
  cat(if (perm) "\n-- permuted y --\n" else "\n-- real y --\n")
  sub <- res[res$permuted == perm, ]
  tab <- do.call(rbind, lapply(split(sub, list(sub$set, sub$eps), drop = TRUE), function(g)
    data.frame(set = g$set[1], n = g$n[1], eps = g$eps[1],
               strong = sum(g$grade == "strong"), borderline = sum(g$grade == "borderline"),
               none = sum(g$grade == "none"), gain = round(mean(g$gain), 3),
               gain_min = round(min(g$gain), 3), glmnet = round(mean(g$gain_glmnet), 3))))
  print(tab[order(-tab$n), ], row.names = FALSE)
}
cat(sprintf("\nMisleading: 'strong' on permuted y in %d of %d fits; 'none' where cv.dpsco() gained more than 0.05 in %d of %d fits.\n",
            sum(res$permuted & res$grade == "strong"), sum(res$permuted),
            sum(!res$permuted & res$grade == "none" & res$gain > 0.05), sum(!res$permuted)))
