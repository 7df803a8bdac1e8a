# Replication of the simulation study of Xie, Pietrosanu, Liu, Tu, Jiang and
# Kong (Statistica Sinica, doi:10.5705/ss.202022.0282), Section 6.1, with
# dpsco: the batch-size study of the supplement (Section S1), Figures 1-2
# (estimation error against the dimension p, one panel per epsilon) and
# Table 1 (running time per fit at p = 50), with the paper's two baselines of
# Hu, Ni, Xiao and Wang (2022): HTP-LASSO (lasso) and HTDP-FW (logistic).
#
# Run from the top of the source tree, with dpsco installed in LIB (compiled
# from scratch, e.g. by bench/install.sh: objects left in src/ by a debug
# build are -O0 and would slow every timing of stage c about threefold):
#   R_LIBS=LIB Rscript inst/scripts/simulation.R
# It writes inst/extdata/simulation.rds (set the environment variable
# DPSCO_SIM_OUT to write elsewhere), which vignettes/simulation.Rmd reads.
# DPSCO_SIM_QUICK=1 runs a small smoke test (2 replicates, p = 20 and 150).
# DPSCO_SIM_TIMING_ONLY=1 reruns stage c alone (Table 1, with the tuned
# constants and batch sizes stored in the existing results file) and updates
# the file: use it to time a new build of the package without the full run.
# DPSCO_SIM_BASELINES_ONLY=1 reruns stages 0b and b2 alone (the baselines'
# radius tuning and their rows of Figures 1-2, on the same replicates as the
# stored results) and updates the file, replacing any baseline rows it has.
# Both variables together run stages 0b, b2 and c.
# Measured wall time: 859 s (14.3 min) on a 2-core machine whose cores were
# shared with other jobs (load average about 4 to 6 during the run), before
# the baselines were added; stages 0b and b2 alone took 238 s (load about
# 5), stage c alone a few seconds.
#
# Stages
#   0. Tuning.  One simulated replicate per model (p = 50, epsilon = 1,
#      m = n) from its own seed, used for nothing else, picks each method's
#      penalty constant and truncation constant from a small grid (each
#      setting fitted three times with fresh privacy noise, mean error).
#   a. Batch sizes.  Error against m in {n/10, n/6, n/3, n/2, n} at p = 50,
#      epsilon = 1, 10 replicates; the batch size of each method and model is
#      the largest m whose mean error is within one standard error of the
#      smallest mean error (the one-standard-error rule, which favours the
#      cheaper, larger batches when the differences are within noise).
#   b. Figures 1-2.  p in {20, 40, 60, 80, 100, 150}, epsilon in
#      {0.5, 1, 3}, 20 replicates, the four methods, at the chosen batch
#      sizes, with both calibrations: "accountant" (the noise multiplier
#      certified by dpsco's accountant to meet (epsilon, delta)) and "paper"
#      (the noise scales printed in the paper, whose actual epsilon is
#      recorded as eps_accounted).
#  0b. Baseline radius.  On the replicates of stage 0 (regenerated from the
#      same streams), HTP-LASSO (lasso) and HTDP-FW (logistic) at epsilon = 1
#      for each radius of a small grid, three fits each; the radius with the
#      smallest mean error is the baselines' non-oracle radius, chosen as
#      c_lambda is.  The oracle radius is ||beta*||_1 = 10, the paper's "(O)".
#  b2. Baselines in Figures 1-2: the same replicates as stage b (the designs
#      regenerated from its streams, the privacy noise from streams of their
#      own), both radii, every epsilon.  The baselines have no "paper"
#      calibration: dpsco accounts their privacy to meet the target
#      (rows with calibration "accountant").
#   c. Table 1.  Seconds per fit (median of 11, one fit at a time) of each
#      method for the lasso at p = 50, epsilon = 1, at the chosen batch size,
#      and of the baselines at the oracle radius: HTP-LASSO on the lasso
#      design, HTDP-FW on the logistic design (the paper's pairing).
#
# Design (paper Section 6.1).  n = 10000; beta* = (1, -1, 1, -1, ..., 0, ...)
# with ten non-zero entries; x_ij iid N(0, 1/n), so every column has norm
# about 1 (a public, data-independent scale: rescaling by the observed
# column norms would be a statistic of the data outside the budget).
#   lasso:    y = x'beta* + e, e ~ t(2).
#   logistic: y = 1{x'beta* + e > 0} (the paper's sign(1/(1 + exp(-(x'beta*
#             + e))) - 1/2) mapped to 0/1), e = D - E(D) where log D is
#             logistic with location 1/2 and scale 1/2, i.e. D is
#             log-logistic with scale exp(1/2) and shape 2, E(D) =
#             exp(1/2) pi / 2 (the "(mu, sigma) log-logistic" of Wang et
#             al. 2020, centred at its mean; its variance is infinite).
# Both models have no intercept, so every fit uses intercept = FALSE.
# T = 5 n^2 / m^2 steps (the package default), zeta = 0.1, delta = 1/n,
# one lambda per fit, output = average of the iterates (the paper's).
#
# Public tuning rules (functions of n, p, the design scale 1/n of x and the
# noise scale only; the constants c_lambda and c_trunc come from stage 0):
#   step size   1 / curvature at full batch: n (lasso; the Hessian X'X/n is
#               about I/n) and 4 n (logistic; the logistic weight is at most
#               1/4), scaled by m / n for smaller batches (m and 4 m: the
#               linear-scaling rule, so that the sampling noise of one step
#               does not grow as the batch shrinks; with T = 5 n^2 / m^2
#               steps the iterates still travel 5 n / m times 1 / curvature);
#   lambda      c_lambda * sigma * sqrt(2 log p) / n, sigma = 1 (lasso,
#               the scale of t(2)) or 1/2 (logistic, |y - 1/2|): the
#               universal threshold of X'e / n when the columns have unit
#               norm, times c_lambda;
#   truncation  in units of the residual: a record's gradient is x_i r_i
#               with x_ij of size 1/sqrt(n), so clip = c_trunc sqrt(p/n)
#               (DP-SPGD), s = c_trunc / sqrt(n) (DP-SPGD(H)) and
#               rho = 2 c_trunc / sqrt(n) (DP-SPGD(K), coordinates clipped to
#               +-c_trunc / sqrt(n)); the Kamath groups k and the Holland nu
#               keep the paper's formulas.
# Baselines (Hu et al. 2022), with tuning = "public", i.e. their paper's
# settings, which the paper says it kept: HTP-LASSO shrinks x and y to
# [-K, K], K = (n epsilon)^(1/5), and runs T = (n epsilon)^(2/5) private
# Frank-Wolfe steps on the full data; HTDP-FW makes one pass in
# T = (n epsilon)^(1/3) chunks with Holland's public s (pure epsilon-DP).
# One radius per fit, no intercept.
#
# The paper's default s and rho (the package defaults, tau = 1) assume
# gradient coordinates of order one.  Here they are of order 1/sqrt(n) =
# 0.01: at m = n, epsilon = 1, p = 50 the defaults s = 25 and rho = 22 only
# truncate residuals beyond about 2500 and 1000, the noise scaled to them
# swamps the signal (errors in the hundreds on the tuning replicate), and
# stage 0 replaces them by constants in residual units.

suppressPackageStartupMessages({
  library(dpsco)
  library(parallel)
})

t_start <- proc.time()[["elapsed"]]
out_file <- Sys.getenv("DPSCO_SIM_OUT",
                       file.path("inst", "extdata", "simulation.rds"))
cores <- 2L
RNGkind("L'Ecuyer-CMRG")

n <- 10000
delta <- 1 / n
zeta <- 0.1
methods <- c("clip", "kamath", "holland", "none")
models <- c("lasso", "logistic")
baseline <- c(lasso = "htp_lasso", logistic = "htdp_fw")
oracle_radius <- 10                     # ||beta*||_1, the paper's "(O)"
radius_grid <- c(0.25, 0.5, 1, 2, 4, 8, 16)
p_grid <- c(20, 40, 60, 80, 100, 150)
eps_grid <- c(0.5, 1, 3)
m_grid <- round(n / c(10, 6, 3, 2, 1))
reps_fig <- 20L
reps_batch <- 10L
p_batch <- 50
eps_batch <- 1
if (nzchar(Sys.getenv("DPSCO_SIM_QUICK"))) {   # smoke test only
  p_grid <- c(20, 150)
  reps_fig <- 2L
  reps_batch <- 2L
}

# ---- Design -----------------------------------------------------------------

beta_star <- function(p) c(rep(c(1, -1), 5), rep(0, p - 10))

simulate <- function(p, model) {
  x <- matrix(stats::rnorm(n * p, sd = 1 / sqrt(n)), n, p)
  eta <- drop(x %*% beta_star(p))
  y <- if (model == "lasso") {
    eta + stats::rt(n, df = 2)
  } else {
    e <- exp(stats::rlogis(n, location = 1 / 2, scale = 1 / 2)) -
      exp(1 / 2) * pi / 2
    as.numeric(eta + e > 0)
  }
  list(x = x, y = y, beta = beta_star(p))
}

# ---- Public settings of one fit ---------------------------------------------

noise_scale <- c(lasso = 1, logistic = 1 / 2)

fit_settings <- function(model, method, p, m, c_lambda, c_trunc) {
  g <- 1 / sqrt(n)                     # size of one x_ij
  list(
    family = if (model == "lasso") "gaussian" else "binomial",
    lambda = c_lambda * noise_scale[[model]] * sqrt(2 * log(p)) / n,
    step = (if (model == "lasso") 1 else 4) * m,
    # zeta sets the robust estimators' groups and smoothing; clipping and
    # the non-private baseline do not read it
    control = if (is.na(c_trunc)) {
      if (method %in% c("kamath", "holland")) dpsco_control(zeta = zeta)
      else dpsco_control()            # package defaults; also method "none"
    } else switch(method,
      clip = dpsco_control(clip = c_trunc * sqrt(p) * g),
      kamath = dpsco_control(rho = 2 * c_trunc * g, zeta = zeta),
      holland = dpsco_control(s = c_trunc * g, zeta = zeta)))
}

run_fit <- function(d, model, method, m, epsilon, calibration, c_lambda,
                    c_trunc) {
  st <- fit_settings(model, method, ncol(d$x), m, c_lambda, c_trunc)
  private <- method != "none"
  t0 <- proc.time()[["elapsed"]]
  fit <- dpsco(tuning = "public", d$x, d$y, family = st$family, method = method,
               epsilon = if (private) epsilon else Inf,
               delta = if (private) delta else NULL,
               lambda = st$lambda, intercept = FALSE, batch_size = m,
               step_size = st$step,
               calibration = if (private) calibration else "accountant",
               control = st$control)
  secs <- proc.time()[["elapsed"]] - t0
  b <- fit$beta[, 1]
  data.frame(error = sqrt(sum((b - d$beta)^2)), df = sum(b != 0),
             eps_accounted = if (private) privacy(fit)$epsilon_accounted
                             else NA_real_,
             seconds = secs)
}

# one fit of the model's baseline at one radius
run_baseline <- function(d, model, epsilon, radius) {
  t0 <- proc.time()[["elapsed"]]
  fit <- dpsco(d$x, d$y, family = if (model == "lasso") "gaussian" else "binomial",
               method = baseline[[model]], epsilon = epsilon, delta = delta,
               radius = radius, tuning = "public", intercept = FALSE)
  secs <- proc.time()[["elapsed"]] - t0
  b <- fit$beta[, 1]
  data.frame(error = sqrt(sum((b - d$beta)^2)), df = sum(b != 0),
             eps_accounted = privacy(fit)$epsilon_accounted, seconds = secs,
             m = fit$settings$batch_size, steps = fit$settings$steps)
}

# one independent L'Ecuyer stream per task, whatever the number of cores
task_seeds <- function(seed, k) {
  set.seed(seed)
  s <- vector("list", k)
  s[[1L]] <- .Random.seed
  for (i in seq_len(k)[-1L]) s[[i]] <- nextRNGStream(s[[i - 1L]])
  s
}

par_tasks <- function(tasks, seed, fun) {
  seeds <- task_seeds(seed, nrow(tasks))
  res <- mclapply(seq_len(nrow(tasks)), function(i) {
    assign(".Random.seed", seeds[[i]], envir = globalenv())
    fun(tasks[i, , drop = FALSE])
  }, mc.cores = cores, mc.preschedule = FALSE)
  bad <- vapply(res, inherits, NA, "try-error")
  if (any(bad)) stop("task failed: ", res[[which(bad)[1L]]])
  do.call(rbind, res)
}

compact <- function(df) {
  for (v in intersect(c("error", "error_sd", "eps_accounted"), names(df)))
    df[[v]] <- signif(df[[v]], 5)
  df$seconds <- round(df$seconds, 3)
  for (v in c("model", "method", "calibration"))
    if (v %in% names(df)) df[[v]] <- factor(df[[v]])
  rownames(df) <- NULL
  df
}

stamp <- function(...) message(sprintf("[%6.0f s] ", proc.time()[["elapsed"]] -
                                         t_start), ...)

# the constants and batch size of a method, from stages 0 and a
consts <- function(model, method) {
  r <- tuned[tuned$model == model & tuned$method == method, ]
  c(c_lambda = r$c_lambda, c_trunc = r$c_trunc)
}
batch_of <- function(model, method)
  batch_choice$m[batch_choice$model == model & batch_choice$method == method]

timing_only <- nzchar(Sys.getenv("DPSCO_SIM_TIMING_ONLY"))
baselines_only <- nzchar(Sys.getenv("DPSCO_SIM_BASELINES_ONLY"))
partial <- timing_only || baselines_only
if (partial) {
  results <- readRDS(out_file)
  tuned <- results$tuned
  batch_choice <- results$batch_choice
}
# the tasks of stage 0 and stage b: the baseline stages regenerate their
# replicates from the same seeds
tune_tasks <- data.frame(model = models, stringsAsFactors = FALSE)
fig_tasks <- expand.grid(rep = seq_len(reps_fig), p = p_grid, model = models,
                         stringsAsFactors = FALSE)
# expensive tasks first, for load balance
fig_tasks <- fig_tasks[order(-fig_tasks$p), ]

# ---- Stage 0: tuning on one discarded replicate ------------------------------

if (!partial) {

lambda_grid <- c(0.125, 0.25, 0.5, 1, 2)
# NA = the package defaults (clip = 1, the paper's rho and s with tau = 1),
# kept in the grid for reference
trunc_grid <- list(clip = c(NA, 0.25, 0.5, 1, 2),
                   holland = c(NA, 0.25, 0.5, 1, 2),
                   kamath = c(NA, 0.05, 0.1, 0.25, 0.5), none = NA_real_)

stamp("stage 0: tuning")
tuning <- par_tasks(tune_tasks, 101, function(tk) {
  d <- simulate(p_batch, tk$model)
  do.call(rbind, lapply(methods, function(me) {
    g <- expand.grid(c_trunc = trunc_grid[[me]], c_lambda = lambda_grid)
    do.call(rbind, lapply(seq_len(nrow(g)), function(j) {
      f <- do.call(rbind, lapply(1:3, function(k)
        run_fit(d, tk$model, me, n, eps_batch, "accountant", g$c_lambda[j],
                g$c_trunc[j])))
      data.frame(model = tk$model, method = me, c_lambda = g$c_lambda[j],
                 c_trunc = g$c_trunc[j], error = mean(f$error),
                 error_sd = stats::sd(f$error), df = mean(f$df),
                 seconds = mean(f$seconds))
    }))
  }))
})
# smallest error; ties (typically the all-zero estimate) go to the smallest
# lambda, then to the largest truncation constant (the defaults last)
tuned <- do.call(rbind, lapply(split(tuning, list(tuning$model, tuning$method)),
  function(t) {
    best <- min(t$error)
    t <- t[t$error <= best + 1e-8, ]
    t <- t[order(t$c_lambda, -ifelse(is.na(t$c_trunc), -1, t$c_trunc)), ]
    t[1L, c("model", "method", "c_lambda", "c_trunc", "error")]
  }))
rownames(tuned) <- NULL
print(tuned)

# ---- Stage a: batch-size study -----------------------------------------------

stamp("stage a: batch sizes")
batch_tasks <- expand.grid(rep = seq_len(reps_batch), model = models,
                           stringsAsFactors = FALSE)
batch <- par_tasks(batch_tasks, 202, function(tk) {
  d <- simulate(p_batch, tk$model)
  do.call(rbind, lapply(methods, function(me) {
    k <- consts(tk$model, me)
    do.call(rbind, lapply(m_grid, function(m)
      cbind(data.frame(model = tk$model, method = me,
                       calibration = if (me == "none") "none" else "accountant",
                       epsilon = if (me == "none") Inf else eps_batch,
                       p = p_batch, m = m, rep = tk$rep),
            run_fit(d, tk$model, me, m, eps_batch, "accountant",
                    k[["c_lambda"]], k[["c_trunc"]]))))
  }))
})
batch <- compact(batch)

batch_choice <- do.call(rbind, lapply(
  split(batch, list(batch$model, batch$method), drop = TRUE), function(b) {
    s <- aggregate(error ~ m, b, function(v) c(mean = mean(v),
                                               se = stats::sd(v) / sqrt(length(v))))
    s <- data.frame(m = s$m, mean = s$error[, "mean"], se = s$error[, "se"])
    i <- which.min(s$mean)
    ok <- s$mean <= s$mean[i] + s$se[i]
    data.frame(model = b$model[1], method = b$method[1], m = max(s$m[ok]),
               m_min_mean = s$m[i], steps = ceiling(5 * (n / max(s$m[ok]))^2))
  }))
rownames(batch_choice) <- NULL
print(batch_choice)
# ---- Stage b: Figures 1-2 -----------------------------------------------------

stamp("stage b: figures 1-2")
figures <- par_tasks(fig_tasks, 303, function(tk) {
  d <- simulate(tk$p, tk$model)
  rows <- list()
  for (me in methods) {
    k <- consts(tk$model, me)
    m <- batch_of(tk$model, me)
    grid <- if (me == "none") data.frame(epsilon = Inf, calibration = "none")
            else expand.grid(epsilon = eps_grid,
                             calibration = c("accountant", "paper"),
                             stringsAsFactors = FALSE)
    for (j in seq_len(nrow(grid)))
      rows[[length(rows) + 1L]] <- cbind(
        data.frame(model = tk$model, method = me,
                   calibration = grid$calibration[j],
                   epsilon = grid$epsilon[j], p = tk$p, m = m, rep = tk$rep),
        run_fit(d, tk$model, me, m, grid$epsilon[j], grid$calibration[j],
                k[["c_lambda"]], k[["c_trunc"]]))
  }
  do.call(rbind, rows)
})
figures <- compact(figures)
}

# ---- Stage 0b: the baselines' radius, on the replicates of stage 0 -------------

if (!partial || baselines_only) {

stamp("stage 0b: baseline radius")
# the design from stage 0's stream (simulate() is the first draw of each
# task there), the privacy noise from a stream of its own
noise0 <- task_seeds(111, nrow(tune_tasks))
tuning_radius <- par_tasks(transform(tune_tasks, task = seq_len(nrow(tune_tasks))),
                           101, function(tk) {
  d <- simulate(p_batch, tk$model)
  assign(".Random.seed", noise0[[tk$task]], envir = globalenv())
  do.call(rbind, lapply(radius_grid, function(r) {
    f <- do.call(rbind, lapply(1:3, function(k)
      run_baseline(d, tk$model, eps_batch, r)))
    data.frame(model = tk$model, method = baseline[[tk$model]], radius = r,
               error = mean(f$error), error_sd = stats::sd(f$error),
               df = mean(f$df), seconds = mean(f$seconds))
  }))
})
tuning_radius <- compact(tuning_radius)
tuned_radius <- do.call(rbind, lapply(split(tuning_radius, tuning_radius$model,
                                            drop = TRUE), function(t)
  t[which.min(t$error), c("model", "method", "radius", "error")]))
rownames(tuned_radius) <- NULL
print(tuned_radius)

# ---- Stage b2: the baselines in Figures 1-2 ------------------------------------

stamp("stage b2: baselines in figures 1-2")
noise_b <- task_seeds(313, nrow(fig_tasks))
base_rows <- par_tasks(transform(fig_tasks, task = seq_len(nrow(fig_tasks))),
                       303, function(tk) {
  d <- simulate(tk$p, tk$model)
  assign(".Random.seed", noise_b[[tk$task]], envir = globalenv())
  radii <- c(oracle_radius,
             tuned_radius$radius[tuned_radius$model == tk$model])
  rows <- list()
  for (e in eps_grid) for (r in radii) {
    f <- run_baseline(d, tk$model, e, r)
    rows[[length(rows) + 1L]] <- data.frame(
      model = tk$model, method = baseline[[tk$model]],
      calibration = "accountant", epsilon = e, p = tk$p, m = f$m,
      rep = tk$rep, error = f$error, df = f$df,
      eps_accounted = f$eps_accounted, seconds = f$seconds, radius = r,
      oracle = r == oracle_radius)
  }
  do.call(rbind, rows)
})
base_rows <- compact(base_rows)
# the four methods' rows: radius and oracle do not apply
fig_old <- if (baselines_only) results$figures else figures
fig_old <- fig_old[!(fig_old$method %in% baseline), ]
fig_old$radius <- rep(NA_real_, nrow(fig_old))
fig_old$oracle <- rep(NA, nrow(fig_old))
figures <- compact(rbind(fig_old, base_rows))
}

# ---- Stage c: Table 1 ---------------------------------------------------------

if (!partial || timing_only) {
stamp("stage c: timing")
# fits of a few milliseconds on a shared machine: a median of 11
reps_time <- 11L
set.seed(404)
d_time <- simulate(50, "lasso")
timing <- do.call(rbind, lapply(methods, function(me) {
  k <- consts("lasso", me)
  m <- batch_of("lasso", me)
  secs <- vapply(seq_len(reps_time), function(i) system.time(
    run_fit(d_time, "lasso", me, m, 1, "accountant", k[["c_lambda"]],
            k[["c_trunc"]]))[["elapsed"]], 0)
  data.frame(method = me, model = "lasso", m = m,
             steps = ceiling(5 * (n / m)^2), radius = NA_real_,
             seconds = median(secs), seconds_min = min(secs),
             seconds_max = max(secs))
}))
# the baselines at the oracle radius, each on the model the paper timed it
# on; the logistic design from a seed of its own, so d_time is unchanged
set.seed(405)
d_time_logistic <- simulate(50, "logistic")
timing <- rbind(timing, do.call(rbind, lapply(models, function(model) {
  d <- if (model == "lasso") d_time else d_time_logistic
  f <- lapply(seq_len(reps_time), function(i)
    run_baseline(d, model, 1, oracle_radius))
  secs <- vapply(f, `[[`, 0, "seconds")
  data.frame(method = baseline[[model]], model = model, m = f[[1]]$m,
             steps = f[[1]]$steps, radius = oracle_radius,
             seconds = median(secs), seconds_min = min(secs),
             seconds_max = max(secs))
})))
timing$published <- c(clip = 31.2866, kamath = 20.1467, holland = 28.8785,
                      none = NA, htp_lasso = 202.944,
                      htdp_fw = 1.5017)[timing$method]
rownames(timing) <- NULL
print(timing)
}

# ---- Save ----------------------------------------------------------------------

wall <- proc.time()[["elapsed"]] - t_start
if (partial) {
  today <- format(Sys.time(), "%Y-%m-%d")
  version <- as.character(utils::packageVersion("dpsco"))
  if (timing_only) {
    results$timing <- timing
    results$info$timing_date <- today
    results$info$timing_dpsco <- version
  }
  if (baselines_only) {
    results$design$oracle_radius <- oracle_radius
    results$design$radius_grid <- radius_grid
    results$tuning_radius <- tuning_radius
    results$tuned_radius <- tuned_radius
    results$figures <- figures
    results$info$baselines_date <- today
    results$info$baselines_dpsco <- version
    results$info$baselines_wall_seconds <- round(wall)
  }
  saveRDS(results, out_file, compress = "xz")
  stamp("updated ", out_file)
  quit(save = "no")
}
results <- list(
  design = list(n = n, delta = delta, zeta = zeta, p = p_grid,
                epsilon = eps_grid, m = m_grid, reps_figures = reps_fig,
                reps_batch = reps_batch, p_batch = p_batch,
                eps_batch = eps_batch, beta_norm = sqrt(10),
                noise_scale = noise_scale, oracle_radius = oracle_radius,
                radius_grid = radius_grid),
  tuning = compact(tuning),
  tuned = tuned,
  tuning_radius = tuning_radius,
  tuned_radius = tuned_radius,
  batch = batch,
  batch_choice = batch_choice,
  figures = figures,
  timing = timing,
  info = list(date = format(Sys.time(), "%Y-%m-%d"),
              R = R.version.string,
              dpsco = as.character(utils::packageVersion("dpsco")),
              cores = cores, wall_seconds = round(wall),
              load_average = tryCatch(readLines("/proc/loadavg", 1L),
                                      error = function(e) NA_character_)))
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
saveRDS(results, out_file, compress = "xz")
stamp(sprintf("done: %s (%.0f KB), wall time %.1f min", out_file,
              file.size(out_file) / 1024, wall / 60))
