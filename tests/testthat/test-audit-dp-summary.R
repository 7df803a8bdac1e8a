# Empirical privacy audit of dp_summary() (R/dp-summary.R): the whole
# table's releases at the worst-case neighbours of the public n, a record
# added or removed at either end of a declared range and at the other
# level of a factor, through the release code the exported function runs
# (checked identical to it).  The quick version runs in `make check`, the
# long one (both data sizes) in `make audit`.

# The audit of dp_summary()'s releases at public size n: D has `rows`
# records at -1 (of the declared range [-1, 1]) and level a; D' adds a
# record at the edge `edge` of the range with level b.  The statistic: the
# likelihood ratio of the mean's and the share's releases (their shifts
# over their stated noise variances), replayed through the release code
# with the plan fixed (checked against the exported function).
summary_audit <- function(n, rows, edge, trials) {
  ranges <- list(x = c(-1, 1))
  mk <- function(rows, edge) {
    d <- data.frame(x = rep(-1, rows), g = factor(rep("a", rows), c("a", "b")))
    if (is.null(edge)) return(d)
    rbind(d, data.frame(x = edge, g = factor("b", c("a", "b"))))
  }
  d0 <- mk(rows, NULL)
  d1 <- mk(rows, edge)
  tab <- dp_summary(d0, epsilon = 2, delta = 0.01, public_n = n, ranges = ranges)
  z1 <- calibrate_noise(list(), 1, 1, 2, 0.01)
  c0 <- summary_columns(d0, ranges, NULL)
  c1 <- summary_columns(d1, ranges, NULL)
  plan <- summary_plan(c0, z1, n)
  replay <- function(cols)
    c(summary_numeric(cols, plan, n)$mean, summary_levels(cols, plan, n)$share[2])
  same <- identical(
    withr::with_seed(5, unname(unlist(dp_summary(d1, epsilon = 2, delta = 0.01,
      public_n = n, ranges = ranges)[c(1, 3), c("mean", "share")])[c(1, 4)])),
    withr::with_seed(5, with_fit_stream(replay(c1))))
  wm <- (edge / n) / tab$noise_sd[1]^2   # the mean's shift: edge / n
  ws <- (1 / n) / tab$noise_sd[2]^2      # the share's: about 1 / n
  stat <- function(cols) with_fit_stream(vapply(seq_len(trials), function(i) {
    r <- replay(cols)
    r[1] * wm + r[2] * ws
  }, 0))
  pr <- privacy(tab)
  list(same = same, accounted = pr$epsilon_accounted,
       mean_alone = gauss_eps_ref(1 / pr$shares$noise_multiplier[1], 0.01),
       lb = audit_eps_both(stat(c0), stat(c1), 0.01))
}

test_that("quick audit: the table stays within its accounted epsilon at the edge records", {
  # its lower bound on epsilon must not exceed the record's, and the test
  # has power: above half the mean's part alone (the shares, floored at 0
  # and normalised, carry less than their counts did; that the parts
  # compose is the record's test above)
  for (edge in c(1, -1)) {
    a <- summary_audit(40, 39, edge, 4000)
    expect_true(a$same)
    expect_lte(a$lb, a$accounted)
    expect_gt(a$lb, 0.5 * a$mean_alone)
  }
})

test_that("long audit: dp_summary() at both data sizes and both edges", {
  skip_if_not(identical(Sys.getenv("DPSCO_AUDIT_LONG"), "true"))
  for (rows in c(39, 40)) for (edge in c(1, -1)) {
    a <- summary_audit(40, rows, edge, 10000)
    message(sprintf("audit dp_summary rows %d edge %+d: accounted %.3f lb %.3f (mean alone %.3f)",
                    rows, edge, a$accounted, a$lb, a$mean_alone))
    expect_lte(a$lb, a$accounted)
    expect_gt(a$lb, 0.5 * a$mean_alone)
  }
})
