# The privacy loss distribution accountant against the Renyi one, in one
# run: epsilons at published and package settings, and the time of
# dp_noise_multiplier() (the calibration every subsampled fit runs).
suppressPackageStartupMessages(library(dpsco))
commit <- system.file("BENCH_COMMIT", package = "dpsco")
cat("dpsco", as.character(utils::packageVersion("dpsco")),
    if (nzchar(commit)) paste("commit", readLines(commit)), "\n\n")

cases <- data.frame(
  z = c(0.7, 1, 1.5, 1.1, 30), q = c(0.01, 0.0064, 0.04, 0.01, 0.5),
  steps = c(120, 782, 2249, 1e4, 200), delta = c(1e-5, 1e-6, 1e-5, 1e-5, 2.7e-6),
  published = c(2.4612, 1.199, 6.7774, 5.193, 0.945),
  source = c("TF Privacy PLD", "TF Privacy PLD", "Opacus PRV (+-0.01)",
             "exact PLD", "exact PLD"))
med_time <- function(f, reps = 5) stats::median(vapply(seq_len(reps), function(i)
  system.time(f())[["elapsed"]], 0))
cat("epsilon at (z, q, steps, delta)\n")
for (i in seq_len(nrow(cases))) {
  cs <- cases[i, ]
  pld <- dp_epsilon(cs$z, cs$q, cs$steps, cs$delta)
  rdp <- dp_epsilon(cs$z, cs$q, cs$steps, cs$delta, accountant = "rdp")
  t_pld <- med_time(function() dp_epsilon(cs$z, cs$q, cs$steps, cs$delta))
  cat(sprintf("  z %-4g q %-6g T %-5g delta %-7g  PLD %.4f  RDP %.4f  published %.4f (%s)  PLD time %.3f s\n",
              cs$z, cs$q, cs$steps, cs$delta, pld, rdp, cs$published, cs$source, t_pld))
}

cat("\ncalibration (dp_noise_multiplier), median of 5 runs\n")
for (steps in c(1e2, 1e3, 1e4)) for (q in c(0.001, 0.01, 0.1)) {
  t_pld <- med_time(function() dp_noise_multiplier(1, 1e-5, q, steps))
  t_rdp <- med_time(function() dp_noise_multiplier(1, 1e-5, q, steps, accountant = "rdp"))
  z_pld <- dp_noise_multiplier(1, 1e-5, q, steps)
  z_rdp <- dp_noise_multiplier(1, 1e-5, q, steps, accountant = "rdp")
  cat(sprintf("  eps 1 delta 1e-5 q %-5g T %-5g  z PLD %.4f RDP %.4f (%4.1f%% less noise)  time PLD %.3f s RDP %.3f s\n",
              q, steps, z_pld, z_rdp, 100 * (1 - z_pld / z_rdp), t_pld, t_rdp))
}
