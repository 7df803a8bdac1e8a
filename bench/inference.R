# bench/inference.R -- coverage study of dpsco(..., inference = TRUE)
#
# What it measures
#   Whether the private intervals of the inference stage (the Wald
#   intervals of confint(), and on a subset the bootstrap-t of
#   confint(method = "bootstrap")) cover the coefficients of the
#   unpenalised model at their nominal 95%, how much wider they are than
#   glm()'s on the same data, whether the released standard errors match
#   the spread of the estimates, and how often the refusal rule withholds
#   them.  A simulation, not a test: bench/ is not part of the build.
#
# Data (p = 10 slopes, d = 11 coefficients with the intercept)
#   x        N(0, S) with S_jk = 0.5^|j - k| (AR(0.5)); the "heavyx" cells
#            have independent columns t3 / sqrt(3) (unit variance, heavy
#            tails: many records reach the score clip).
#   beta     gaussian (0.5, 1, -0.5, 0.25, 0 x 7), intercept first;
#            binomial the same slopes with intercept -0.5;
#            poisson  (0.5, 0.5, -0.25, 0.125, 0 x 7).
#   y        gaussian eta + e, e ~ N(0, 1), or t3 (cells "t3", raw t3,
#            variance 3), or N(0, exp(0.5 x1)^2) ("hetero": glm's
#            model-based SE is wrong there, the released sandwich should
#            not be); binomial Bernoulli(plogis(eta)); poisson
#            Poisson(exp(eta)).  The mean model is right in every cell,
#            so the truth is beta.
#   Cells    n in {2000, 20000} x epsilon in {0.5, 1, 2} per family, plus
#            t3 errors, heavy design and heteroscedastic errors at
#            n = 20000, epsilon 1.  Run order: the headline cells (each
#            family at n = 20000, epsilon 1), n = 20000 at the other
#            epsilons, the variants, then n = 2000.
#
# Per replication (set.seed(cell_id * 1e5 + r); cell_id is the cell's
# position in the full list below, whatever subset runs):
#   dpsco(x, y, family, epsilon, inference = TRUE), delta and every other
#   argument at their defaults, with options(dpsco.inference_refusal =
#   -Inf) so that every fit gives its standard errors; the refusal rule
#   (refuse when bread_min <= L noise_norm) is then applied post hoc at
#   L in {0, 1, 1.5, 2, 3} from the stored ratio bread_min / noise_norm
#   (it is post-processing, so this is exactly what a fit at level L
#   returns).  "Returned at L" = ratio > L, no other refusal reason (the
#   trust-region one) and finite standard errors.
#   Stored: estimate, SE (total, sampling, privacy), ratio, the other
#   refusal reason if any, dpsco's elapsed and CPU time; glm()'s estimate,
#   model-based SE and HC0 sandwich SE; on the first reps / 5 replications
#   (100 by default) of the headline cells the bootstrap-t interval
#   (B = 500, drawn at the level L = 2, on fits with
#   ratio > 2); for gaussian cells DPrivStats::dp_lm + dp_confint
#   ("analytical") if DPrivStats is available.
#
# Anchors
#   glm      glm()'s own Wald interval (not private).
#   naive    the private estimate with glm's SE: it leaves out the privacy
#            noise, so it should under-cover.
#   HC0      glm's estimate with its HC0 sandwich SE (the non-private
#            counterpart of the released sandwich; matters in "hetero").
#   DPrivStats  dp_lm(y ~ ., epsilon, delta = dpsco's delta, bounds = list(
#            y = c(-10, 10))) and dp_confint(method = "analytical").  NOT a
#            private procedure as used: dp_lm assumes a public design
#            (clips x to its own range, takes the row-norm bound and
#            lambda_min(X'X) from the data) and its sampling variance is
#            computed from the raw residuals; only the coefficients get
#            noise.  Reported as a reference for the width of a
#            noise-on-the-coefficients interval.
#
# Reported per cell and refusal level L (over the returned replications):
# share refused; coverage of the 95% Wald interval, mean over the 11
# coefficients and worst coefficient; median width ratio private / glm
# over the slopes (Wald widths, so the SE ratio); SE calibration, per
# coefficient mean(SE) / sd(estimate), its range; type-I error of the 5%
# z-test pooled over the 7 null slopes.  Per cell: glm, naive, HC0 and
# DPrivStats coverage, bootstrap-t coverage, fit times.  The Monte Carlo
# sd of a true 0.95 coverage over R replications is sqrt(0.95 0.05 / R).
#
# Command (from the top of the source tree; R_LIBS holds the version to
# measure):
#   R_LIBS=/tmp/benchlib Rscript bench/inference.R [reps] [cores] [cells]
#     reps   replications of a headline cell (default 500); every other
#            cell runs round(reps * 200 / 500), the bootstrap-t
#            round(reps / 5) headline replications.
#     cores  parallel::mclapply workers over replications (default 1); the
#            fits themselves run on one thread (options(dpsco.threads = 1)).
#     cells  a regular expression on the cell names (default: all), e.g.
#            'n20000_eps1$' or '^(gaussian|binomial|poisson)_n20000';
#            "tables" runs nothing and prints the tables of the results.
#   R_LIBS=/tmp/benchlib Rscript bench/inference.R 20 1 'n20000_eps1$'   # smoke run
# Environment:
#   DPSCO_BENCH_OUT     the results file (default bench/results/inference.rds).
#                       A run merges its cells into an existing file
#                       (replacing cells of the same name), and the tables
#                       cover every cell in the file, so the study can be
#                       run in parts; delete the file to start afresh.
#   DPRIVSTATS_LIB      a library holding DPrivStats (default
#                       /tmp/lib-dprivstats); if it is in neither that nor
#                       .libPaths(), the script tries to install it there
#                       from CRAN once, and skips the anchor if that fails.
#
# Targets (wherever intervals are returned): coverage of every coefficient
# in [0.93, 0.97]; width / glm at n = 20000: gaussian <= 1.25 (eps 1) and
# 1.1 (eps 2), binomial <= 1.35 / 1.15, poisson <= 1.4 / 1.2, t3 errors
# <= 1.0; no refusals at n = 20000; at n = 2000 and eps <= 1 intervals
# either refused or covering; type-I error in [0.03, 0.07]; SE / sd in
# [0.9, 1.15].

suppressPackageStartupMessages(library(dpsco))
options(width = 250, dpsco.threads = 1L)
script_start <- proc.time()[["elapsed"]]

args <- commandArgs(TRUE)
reps <- if (length(args) >= 1L) as.integer(args[1L]) else 500L
cores <- if (length(args) >= 2L) as.integer(args[2L]) else 1L
cell_re <- if (length(args) >= 3L) args[3L] else "."
if (is.na(reps) || reps < 2L) stop("reps must be an integer >= 2")
if (is.na(cores) || cores < 1L) stop("cores must be a positive integer")
reps_other <- max(2L, round(reps * 200 / 500))
reps_boot <- max(1L, round(reps / 5))
boot_B <- 500L
levels_L <- c(0, 0.5, 1, 1.5, 2, 3)
default_L <- 1   # the package's getOption("dpsco.inference_refusal", 1)
out_file <- Sys.getenv("DPSCO_BENCH_OUT", file.path("bench", "results", "inference.rds"))
z95 <- qnorm(0.975)

installed_commit <- function() {
  f <- system.file("BENCH_COMMIT", package = "dpsco")
  if (nzchar(f)) readLines(f)[1L] else "unknown (not installed by bench/install.sh)"
}

# ---------------------------------------------------------------------------
# The cells, in run order.  `id` is fixed by this list so a cell's seeds do
# not depend on which subset runs.

p <- 10L
slopes <- c(1, -0.5, 0.25, rep(0, 7))
beta_of <- list(gaussian = c(0.5, slopes), binomial = c(-0.5, slopes),
                poisson = c(0.5, 0.5, -0.25, 0.125, rep(0, 7)))
null_idx <- 5:11   # the seven zero slopes (position 1 is the intercept)

make_cells <- function() {
  cell <- function(family, n, eps, variant = "", errors = "normal",
                   design = "ar", headline = FALSE)
    data.frame(name = sprintf("%s%s_n%d_eps%s", family,
                              if (nzchar(variant)) paste0("-", variant) else "",
                              n, format(eps)),
               family = family, n = n, eps = eps, errors = errors,
               design = design, headline = headline, stringsAsFactors = FALSE)
  fams <- c("gaussian", "binomial", "poisson")
  rows <- c(
    lapply(fams, cell, n = 20000, eps = 1, headline = TRUE),
    unlist(lapply(c(0.5, 2), function(e) lapply(fams, cell, n = 20000, eps = e)),
           recursive = FALSE),
    list(cell("gaussian", 20000, 1, "t3", errors = "t3"),
         cell("gaussian", 20000, 1, "heavyx", design = "t3"),
         cell("gaussian", 20000, 1, "hetero", errors = "hetero"),
         cell("binomial", 20000, 1, "heavyx", design = "t3"),
         cell("poisson", 20000, 1, "heavyx", design = "t3")),
    unlist(lapply(c(1, 0.5, 2), function(e) lapply(fams, cell, n = 2000, eps = e)),
           recursive = FALSE))
  cells <- do.call(rbind, rows)
  cells$id <- seq_len(nrow(cells))
  cells$reps <- ifelse(cells$headline, reps, reps_other)
  cells
}
all_cells <- make_cells()
# cells = "tables": run nothing, print the tables of the results file
cells <- all_cells[grepl(cell_re, all_cells$name) & cell_re != "tables", ,
                   drop = FALSE]
if (!nrow(cells) && cell_re != "tables") stop("no cell matches '", cell_re, "'; cells are: ",
                       paste(all_cells$name, collapse = ", "))

ar_root <- chol(0.5^abs(outer(seq_len(p), seq_len(p), "-")))

simulate <- function(cl, n) {
  x <- if (cl$design == "ar") matrix(rnorm(n * p), n, p) %*% ar_root
       else matrix(rt(n * p, 3), n, p) / sqrt(3)
  colnames(x) <- paste0("x", seq_len(p))
  eta <- drop(cbind(1, x) %*% beta_of[[cl$family]])
  y <- switch(cl$family,
    gaussian = eta + switch(cl$errors, normal = rnorm(n), t3 = rt(n, 3),
                            hetero = rnorm(n) * exp(0.5 * x[, 1])),
    binomial = rbinom(n, 1, plogis(eta)),
    poisson = rpois(n, exp(eta)))
  list(x = x, y = y)
}

# ---------------------------------------------------------------------------
# DPrivStats, the non-private-sampling anchor for gaussian cells.

dps_lib <- Sys.getenv("DPRIVSTATS_LIB", "/tmp/lib-dprivstats")
dps_note <- local({
  ok <- function() requireNamespace("DPrivStats", quietly = TRUE) ||
    (dir.exists(dps_lib) && requireNamespace("DPrivStats", lib.loc = dps_lib, quietly = TRUE))
  if (ok()) "available"
  else {
    dir.create(dps_lib, showWarnings = FALSE, recursive = TRUE)
    try(suppressWarnings(utils::install.packages(
      "DPrivStats", lib = dps_lib, repos = "https://cloud.r-project.org", quiet = TRUE)),
      silent = TRUE)
    if (ok()) "installed from CRAN by this run"
    else "NOT INSTALLABLE from CRAN: its rows are skipped"
  }
})
has_dps <- !startsWith(dps_note, "NOT")
dps_bound <- 10   # public bound on |y| for dp_lm; 7 sd of y in the normal cells

# ---------------------------------------------------------------------------
# One replication.

# glm's estimate, model-based SE and HC0 sandwich SE
glm_fit <- function(x, y, family) {
  g <- suppressWarnings(glm(y ~ x, family = family))
  X <- cbind(1, x)
  # HC0 for a canonical link: (X'WX)^-1 X' diag(r^2) X (X'WX)^-1, with
  # r the response residuals and the dispersion left out of the bread
  unscaled <- summary(g)$cov.unscaled
  r <- y - fitted(g)
  hc0 <- unscaled %*% crossprod(X * r) %*% unscaled
  list(est = unname(coef(g)), se = unname(sqrt(diag(vcov(g)))),
       se_hc0 = sqrt(diag(hc0)), converged = g$converged)
}

one_rep <- function(cl, r, boot) {
  set.seed(cl$id * 1e5 + r)
  dat <- simulate(cl, cl$n)
  d <- p + 1L
  na <- rep(NA_real_, d)
  out <- list(r = r, est = na, se = na, se_s = na, se_p = na, ratio = NA_real_,
              other_refusal = NA_character_, error = NA_character_,
              time = NA_real_, cpu = NA_real_, glm_est = na, glm_se = na,
              glm_hc0 = na, glm_conv = NA, boot_lo = na, boot_hi = na,
              dps_est = na, dps_se = na)
  t0 <- proc.time()
  fit <- tryCatch(dpsco(dat$x, dat$y, family = cl$family, epsilon = cl$eps,
                        inference = TRUE),
                  error = function(e) e)
  t1 <- proc.time() - t0
  out$time <- t1[["elapsed"]]
  out$cpu <- t1[["user.self"]] + t1[["sys.self"]]
  if (inherits(fit, "error")) {
    out$error <- conditionMessage(fit)
  } else {
    inf <- fit$inference
    out$est <- unname(inf$estimate)
    out$ratio <- inf$bread_min / inf$noise_norm
    if (is.null(inf$refused)) {
      out$se_s <- sqrt(diag(inf$vcov_sampling))
      out$se_p <- sqrt(diag(inf$vcov_privacy))
      out$se <- sqrt(diag(inf$vcov_sampling + inf$vcov_privacy))
    } else {
      # with the bread rule off only the trust-region rule can refuse
      out$other_refusal <- inf$refused
    }
    # the bootstrap-t as a user gets it: draws refused at the default L = 2
    if (boot && is.null(inf$refused) && isTRUE(out$ratio > 2)) {
      op <- options(dpsco.inference_refusal = 2)
      ci <- tryCatch(confint(fit, method = "bootstrap", B = boot_B),
                     finally = options(op))
      out$boot_lo <- unname(ci[, 1L])
      out$boot_hi <- unname(ci[, 2L])
    }
    out$delta <- fit$privacy$delta
  }
  g <- glm_fit(dat$x, dat$y, cl$family)
  out$glm_est <- g$est
  out$glm_se <- g$se
  out$glm_hc0 <- g$se_hc0
  out$glm_conv <- g$converged
  if (has_dps && cl$family == "gaussian" && !is.null(out$delta)) {
    df <- data.frame(y = dat$y, dat$x)
    dfit <- tryCatch({
      f <- DPrivStats::dp_lm(y ~ ., df, epsilon = cl$eps, delta = out$delta,
                             bounds = list(y = c(-dps_bound, dps_bound)))
      DPrivStats::dp_confint(f, method = "analytical")
    }, error = function(e) NULL)
    if (!is.null(dfit)) {
      out$dps_est <- unname(dfit[, "estimate"])
      out$dps_se <- unname((dfit[, "upper"] - dfit[, "lower"]) / (2 * z95))
    }
  }
  out
}

# All replications of a cell as a list of matrices (reps x d) and vectors.
run_cell <- function(cl) {
  t0 <- proc.time()[["elapsed"]]
  res <- parallel::mclapply(seq_len(cl$reps), function(r)
    tryCatch(one_rep(cl, r, boot = cl$headline && r <= reps_boot),
             error = function(e) list(r = r, error = paste("replication:", conditionMessage(e)))),
    mc.cores = cores, mc.preschedule = FALSE)
  field <- function(nm, len) {
    v <- lapply(res, function(o) if (is.null(o[[nm]])) rep(NA, len) else o[[nm]])
    if (len == 1L) unlist(v) else do.call(rbind, v)
  }
  d <- p + 1L
  mats <- c("est", "se", "se_s", "se_p", "glm_est", "glm_se", "glm_hc0",
            "boot_lo", "boot_hi", "dps_est", "dps_se")
  vecs <- c("r", "ratio", "other_refusal", "error", "time", "cpu", "glm_conv", "delta")
  out <- c(lapply(setNames(mats, mats), field, len = d),
           lapply(setNames(vecs, vecs), field, len = 1L))
  out$cell <- cl
  out$wall <- proc.time()[["elapsed"]] - t0
  out$date <- Sys.time()
  out$dpsco_version <- as.character(utils::packageVersion("dpsco"))
  out$commit <- installed_commit()
  out
}

# ---------------------------------------------------------------------------
# Summaries.

covered <- function(est, se, truth) abs(est - rep(truth, each = nrow(est))) <= z95 * se

# returned at level L: ratio > L, no other refusal, every SE finite
returned_at <- function(res, L)
  is.finite(res$ratio) & res$ratio > L & is.na(res$other_refusal) &
    apply(is.finite(res$se), 1L, all)

summary_at <- function(res, L) {
  truth <- beta_of[[res$cell$family]]
  R <- length(res$ratio)
  ok <- returned_at(res, L)
  k <- sum(ok)
  base <- data.frame(cell = res$cell$name, L = L, R = R, returned = k,
                     refused = 1 - k / R)
  if (k < 2L)
    return(cbind(base, cov_mean = NA, cov_worst = NA, worst_coef = NA,
                 cov_max = NA, width = NA, secal_lo = NA, secal_hi = NA, type1 = NA,
                 mc_sd = NA))
  est <- res$est[ok, , drop = FALSE]
  se <- res$se[ok, , drop = FALSE]
  cov <- colMeans(covered(est, se, truth))
  secal <- colMeans(se) / apply(est, 2L, sd)
  z <- abs(est[, null_idx, drop = FALSE] / se[, null_idx, drop = FALSE])
  cbind(base,
        cov_mean = mean(cov), cov_worst = min(cov),
        worst_coef = c("(Intercept)", paste0("x", seq_len(p)))[which.min(cov)],
        cov_max = max(cov),
        width = median(se[, -1L] / res$glm_se[ok, -1L]),
        secal_lo = min(secal), secal_hi = max(secal),
        type1 = mean(z > z95),
        mc_sd = sqrt(0.95 * 0.05 / k))
}

# the per-cell anchors (independent of L)
anchors <- function(res) {
  truth <- beta_of[[res$cell$family]]
  fin <- function(m) apply(is.finite(m), 1L, all)
  cov_of <- function(est, se) {
    ok <- fin(est) & fin(se)
    if (!any(ok)) return(c(NA, NA))
    cv <- colMeans(covered(est[ok, , drop = FALSE], se[ok, , drop = FALSE], truth))
    c(mean(cv), min(cv))
  }
  glm_c <- cov_of(res$glm_est, res$glm_se)
  naive <- cov_of(res$est, res$glm_se)
  hc0 <- cov_of(res$glm_est, res$glm_hc0)
  dps <- cov_of(res$dps_est, res$dps_se)
  dps_ok <- fin(res$dps_se)
  dps_w <- if (any(dps_ok)) median(res$dps_se[dps_ok, -1L] / res$glm_se[dps_ok, -1L]) else NA
  # bootstrap-t: replications where it was computed
  bo <- fin(res$boot_lo) & fin(res$boot_hi)
  boot_cov <- if (any(bo)) {
    lo <- res$boot_lo[bo, , drop = FALSE]; hi <- res$boot_hi[bo, , drop = FALSE]
    tr <- matrix(truth, sum(bo), length(truth), byrow = TRUE)
    cv <- colMeans(lo <= tr & tr <= hi)
    c(mean(cv), min(cv),
      median((hi - lo)[, -1L] / (2 * z95 * res$se[bo, -1L, drop = FALSE])))
  } else c(NA, NA, NA)
  data.frame(cell = res$cell$name, R = length(res$ratio),
             errors = sum(!is.na(res$error)),
             other_refused = sum(!is.na(res$other_refusal)),
             ratio_min = suppressWarnings(min(res$ratio, na.rm = TRUE)),
             ratio_med = median(res$ratio, na.rm = TRUE),
             glm_cov = glm_c[1], glm_worst = glm_c[2],
             naive_cov = naive[1], naive_worst = naive[2],
             hc0_cov = hc0[1], hc0_worst = hc0[2],
             boot_R = sum(bo), boot_cov = boot_cov[1], boot_worst = boot_cov[2],
             boot_wald = boot_cov[3],
             dps_R = sum(dps_ok), dps_cov = dps[1], dps_worst = dps[2], dps_width = dps_w,
             time_med = median(res$time, na.rm = TRUE),
             cpu_med = median(res$cpu, na.rm = TRUE), wall = res$wall)
}

# width targets at n = 20000 (NA: none)
width_target <- function(cl) {
  if (cl$n != 20000) return(NA)
  if (grepl("-t3", cl$name)) return(1.0)
  if (grepl("-", cl$name)) return(NA)
  tg <- list(gaussian = c(`1` = 1.25, `2` = 1.1), binomial = c(`1` = 1.35, `2` = 1.15),
             poisson = c(`1` = 1.4, `2` = 1.2))[[cl$family]]
  if (format(cl$eps) %in% names(tg)) tg[[format(cl$eps)]] else NA
}

# a returned cell meets the coverage target at L: strict, every
# coefficient's coverage in [0.93, 0.97]; loose, none below 0.95 - 3 Monte
# Carlo sd (the worst of 11 coefficients over few replications falls
# below 0.93 by chance; refusal can only cure under-coverage, so the
# loose check, which picks the recommended L, looks at the lower end only)
covers <- function(s, strict = TRUE) {
  if (is.na(s$cov_worst)) return(TRUE)          # nothing returned
  if (strict) s$cov_worst >= 0.93 && s$cov_max <= 0.97
  else s$cov_worst >= 0.95 - 3 * s$mc_sd
}

fmt <- function(v, d = 3) ifelse(is.na(v), "-", formatC(v, format = "f", digits = d))

markdown_table <- function(summ, anc, L) {
  s <- summ[summ$L == L, ]
  a <- anc[match(s$cell, anc$cell), ]
  lines <- c(sprintf("| cell | R | refused | cov mean | cov worst | width / glm | SE / sd | type-I | naive | glm |"),
             "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|")
  for (i in seq_len(nrow(s)))
    lines <- c(lines, sprintf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |",
      s$cell[i], s$R[i], fmt(s$refused[i], 2), fmt(s$cov_mean[i]),
      if (is.na(s$cov_worst[i])) "-" else sprintf("%s (%s)", fmt(s$cov_worst[i]), s$worst_coef[i]),
      fmt(s$width[i], 2),
      if (is.na(s$secal_lo[i])) "-" else sprintf("%s-%s", fmt(s$secal_lo[i], 2), fmt(s$secal_hi[i], 2)),
      fmt(s$type1[i]),
      fmt(a$naive_cov[i]), fmt(a$glm_cov[i])))
  paste(lines, collapse = "\n")
}

# ---------------------------------------------------------------------------
# Run.

cat(sprintf("dpsco %s (%s), commit %s\n", utils::packageVersion("dpsco"),
            find.package("dpsco"), installed_commit()))
cat(sprintf("R %s, %s; reps %d (headline) / %d (other), bootstrap-t on %d headline reps (B = %d), cores %d, cells '%s'\n",
            getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M"), reps, reps_other,
            reps_boot, boot_B, cores, cell_re))
cat(sprintf("DPrivStats: %s%s\n", dps_note,
            if (has_dps) paste0(" (version ", utils::packageVersion("DPrivStats",
              lib.loc = c(.libPaths(), dps_lib)), ")") else ""))
cat("Cells to run:", paste(sprintf("%s [%d]", cells$name, cells$reps), collapse = ", "), "\n\n")

# the refusal rule is applied post hoc: every fit gives its SEs
options(dpsco.inference_refusal = -Inf)

dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
stored <- if (file.exists(out_file)) readRDS(out_file)$cells else list()
for (i in seq_len(nrow(cells))) {
  cl <- cells[i, ]
  res <- run_cell(cl)
  stored[[cl$name]] <- res
  # save after every cell, so an interrupted run keeps what it finished
  saveRDS(list(cells = stored, levels = levels_L, beta = beta_of,
               updated = Sys.time()), out_file)
  a <- anchors(res)
  s2 <- summary_at(res, default_L)
  cat(sprintf("%-28s R %3d  %6.0f s  median fit %.2f s  ratio median %.1f (min %.1f)  L=2: returned %d, cov %.3f (worst %.3f), width %.2f%s%s\n",
              cl$name, a$R, res$wall, a$time_med, a$ratio_med, a$ratio_min,
              s2$returned, s2$cov_mean, s2$cov_worst, s2$width,
              if (a$errors) sprintf("  ERRORS %d: %s", a$errors, res$error[!is.na(res$error)][1]) else "",
              if (a$other_refused) sprintf("  trust-region refusals %d", a$other_refused) else ""))
}
cat(sprintf("\nRaw results saved to %s\n", out_file))

# ---------------------------------------------------------------------------
# Tables over every cell in the results file, in the run order.

stored <- stored[intersect(all_cells$name, names(stored))]
earlier <- setdiff(names(stored), cells$name)
if (length(earlier))
  cat(sprintf("The tables include %d cell(s) from earlier runs in the file: %s\n",
              length(earlier), paste(earlier, collapse = ", ")))
summ <- do.call(rbind, lapply(stored, function(res)
  do.call(rbind, lapply(levels_L, summary_at, res = res))))
anc <- do.call(rbind, lapply(stored, anchors))
rownames(summ) <- rownames(anc) <- NULL

# A table under its heading and legend, numbers to 3 decimals.
print_rounded <- function(heading, legend, tab) {
  cat("\n== ", heading, " ==\n", paste(legend, collapse = "\n"), "\n", sep = "")
  num <- vapply(tab, is.numeric, NA)
  tab[num] <- lapply(tab[num], round, 3)
  print(tab, row.names = FALSE)
}
print_rounded("Per cell and refusal level L (over the returned replications)", c(
  "cov = coverage of the 95% Wald interval (mean over 11 coefficients, worst one);",
  "width = median private / glm SE over slopes; secal = mean SE / sd(estimate) per",
  "coefficient (range); type1 = 5% z-test over the 7 null slopes; mc_sd = sqrt(.95 .05 / returned)"),
  summ)
print_rounded("Per cell: anchors, bootstrap-t, times", c(
  "glm / naive (private estimate, glm SE) / hc0 (glm estimate, HC0 SE) / dps (DPrivStats,",
  "NOT private as used: its sampling variance comes from the raw data) coverage: mean, worst;",
  "boot = bootstrap-t (draws at L = 2) coverage and median width / Wald width; times in s"),
  anc)

# checks against the targets, per L
cat("\n== Targets ==\n")
cell_of <- function(nm) all_cells[all_cells$name == nm, ]
for (L in levels_L) {
  s <- summ[summ$L == L, ]
  strict <- vapply(seq_len(nrow(s)), function(i) covers(s[i, ]), NA)
  loose <- vapply(seq_len(nrow(s)), function(i) covers(s[i, ], strict = FALSE), NA)
  cat(sprintf("L = %-4s every returned cell covers: strict [0.93, 0.97] %s (fails: %s); not below 0.95 - 3 MC sd %s (fails: %s)\n",
              format(L), all(strict), paste(s$cell[!strict], collapse = ", "),
              all(loose), paste(s$cell[!loose], collapse = ", ")))
}
s2 <- summ[summ$L == default_L, ]
tw <- vapply(s2$cell, function(nm) width_target(cell_of(nm)), 0)
wt <- !is.na(tw)
if (any(wt))
  cat(sprintf("Width targets at L = %s:\n", default_L), paste(sprintf("  %-28s %s (target <= %.2f) %s", s2$cell[wt],
      fmt(s2$width[wt], 2), tw[wt], ifelse(!is.na(s2$width[wt]) & s2$width[wt] <= tw[wt], "met", "NOT met")),
      collapse = "\n"), "\n", sep = "")
big <- vapply(s2$cell, function(nm) cell_of(nm)$n == 20000, NA)
cat(sprintf("Refusals at n = 20000, L = %s: %s\n", default_L, paste(sprintf("%s %.3f", s2$cell[big], s2$refused[big]), collapse = ", ")))
cat(sprintf("Type-I in [0.03, 0.07] at L = %s: %s\n", default_L, paste(sprintf("%s %s", s2$cell, fmt(s2$type1)), collapse = ", ")))
cat(sprintf("SE / sd in [0.9, 1.15] at L = %s: %s\n", default_L, paste(sprintf("%s %s-%s", s2$cell, fmt(s2$secal_lo, 2), fmt(s2$secal_hi, 2)), collapse = ", ")))

ok_L <- levels_L[vapply(levels_L, function(L) {
  s <- summ[summ$L == L, ]
  all(vapply(seq_len(nrow(s)), function(i) covers(s[i, ], strict = FALSE), NA))
}, NA)]
rec <- if (length(ok_L)) min(ok_L) else NA
cat(sprintf("Smallest L at which every returned cell covers (within 3 MC sd): %s\n",
            if (is.na(rec)) "none of the levels" else format(rec)))

cat(sprintf("\n== Markdown, L = %s (the default) ==\n\n", default_L))
cat(markdown_table(summ, anc, default_L), "\n")
if (!is.na(rec) && rec != default_L) {
  cat(sprintf("\n== Markdown, L = %s (the smallest level at which every returned cell covers) ==\n\n", format(rec)))
  cat(markdown_table(summ, anc, rec), "\n")
}
cat(sprintf("\nScript time %.0f s\n", proc.time()[["elapsed"]] - script_start))
