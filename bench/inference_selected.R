# bench/inference_selected.R -- coverage of cv.dpsco(..., inference = "selected")
#
# The intervals for the model selected at lambda.min, refitted on the
# inference part of the records (expected size 0.4 n) that neither the
# path nor the choice saw.  Their estimand is the selected model's
# coefficients (the projection parameter of the model on the chosen
# columns): computed per replication by glm() on those columns with
# 200,000 fresh records from the same model, so a support that misses a
# signal is judged against what it estimates, not against beta.
# Data as bench/inference.R: x ~ N(0, AR(0.5)), p = 10, beta with three
# signals and seven nulls, intercept 0.5 (binomial -0.5; poisson the
# slopes halved).
#
# Per cell: the share of replications with intervals (a support with no
# predictor, or a refused stage, has none), coverage of each returned
# coefficient's 95% Wald interval (mean and worst, by coefficient name),
# the median width against glm's on all n records restricted to the
# same columns, and the mean size of the support.
#
#   R_LIBS=<lib> Rscript bench/inference_selected.R [reps] [cores] [cells]

suppressPackageStartupMessages(library(dpsco))
options(width = 200, dpsco.threads = 1L)
args <- commandArgs(TRUE)
reps <- if (length(args) >= 1L) as.integer(args[1L]) else 200L
cores <- if (length(args) >= 2L) as.integer(args[2L]) else 1L
cell_re <- if (length(args) >= 3L) args[3L] else "."

p <- 10L
slopes <- c(1, -0.5, 0.25, rep(0, 7))
beta_of <- list(gaussian = c(0.5, slopes), binomial = c(-0.5, slopes),
                poisson = c(0.5, slopes / 2))
chol_ar <- chol(0.5^abs(outer(seq_len(p), seq_len(p), "-")))

draw <- function(family, n) {
  x <- matrix(stats::rnorm(n * p), n, p) %*% chol_ar
  colnames(x) <- paste0("x", seq_len(p))
  eta <- drop(cbind(1, x) %*% beta_of[[family]])
  y <- switch(family, gaussian = eta + stats::rnorm(n),
              binomial = stats::rbinom(n, 1, stats::plogis(eta)),
              poisson = stats::rpois(n, exp(eta)))
  list(x = x, y = y)
}

# The selected model's coefficients: glm on the chosen columns, on a large
# fresh sample.
projection <- function(family, cols) {
  big <- draw(family, 2e5)
  xs <- big$x[, cols, drop = FALSE]
  stats::coef(stats::glm(big$y ~ xs, family = family))
}

one_rep <- function(family, n, eps, seed) {
  set.seed(seed)
  d <- draw(family, n)
  cv <- suppressWarnings(cv.dpsco(d$x, d$y, family = family, epsilon = eps,
                                  inference = "selected"))
  inf <- cv$inference
  cols <- setdiff(inf$names, "(Intercept)")
  if (!length(cols) || !is.null(inf$refused))
    return(list(returned = FALSE, size = length(cols)))
  ci <- suppressWarnings(stats::confint(cv))
  truth <- projection(family, cols)
  xs <- d$x[, cols, drop = FALSE]
  g <- stats::glm(d$y ~ xs, family = family)
  gw <- 2 * stats::qnorm(0.975) * sqrt(diag(stats::vcov(g)))
  list(returned = TRUE, size = length(cols), names = inf$names,
       cover = unname(ci[, 1] <= truth & truth <= ci[, 2]),
       width = unname((ci[, 2] - ci[, 1]) / gw))
}

cells <- expand.grid(family = c("gaussian", "binomial", "poisson"),
                     n = c(2000L, 20000L), eps = c(1, 2),
                     stringsAsFactors = FALSE)
cells$name <- sprintf("%s_n%d_eps%s", cells$family, cells$n, cells$eps)
cells <- cells[grepl(cell_re, cells$name), ]

cat(sprintf("dpsco %s; %d replications per cell\n\n",
            utils::packageVersion("dpsco"), reps))
rows <- list()
for (i in seq_len(nrow(cells))) {
  cl <- cells[i, ]
  t0 <- proc.time()[["elapsed"]]
  res <- parallel::mclapply(seq_len(reps), function(r)
    one_rep(cl$family, cl$n, cl$eps, 7e5 + i * 1e4 + r), mc.cores = cores)
  ok <- Filter(function(r) r$returned, res)
  cov <- unlist(lapply(ok, `[[`, "cover"))
  nm <- unlist(lapply(ok, `[[`, "names"))
  by_coef <- tapply(cov, nm, mean)
  n_by <- tapply(cov, nm, length)
  worst <- if (length(by_coef)) {
    keep <- n_by >= 20   # coefficients returned often enough to judge
    if (any(keep)) min(by_coef[keep]) else NA
  } else NA
  widths <- unlist(lapply(ok, function(r) r$width[-1L]))
  rows[[i]] <- data.frame(
    cell = cl$name, reps = reps,
    returned = length(ok) / reps,
    support = mean(vapply(res, `[[`, 0, "size")),
    coverage = if (length(cov)) mean(cov) else NA,
    worst = worst,
    width = if (length(widths)) stats::median(widths) else NA,
    seconds = round(proc.time()[["elapsed"]] - t0))
  print(rows[[i]], row.names = FALSE)
}
tab <- do.call(rbind, rows)
cat("\n| cell | reps | returned | mean support | coverage (mean / worst) | width / glm (all n, same columns) |\n")
cat("|---|---|---|---|---|---|\n")
for (k in seq_len(nrow(tab)))
  cat(sprintf("| %s | %d | %.2f | %.1f | %.3f / %.3f | %.2f |\n",
              tab$cell[k], tab$reps[k], tab$returned[k], tab$support[k],
              tab$coverage[k], tab$worst[k], tab$width[k]))
