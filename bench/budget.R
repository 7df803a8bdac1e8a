# bench/budget.R -- a tidymodels resampling under one privacy budget
#
# What it measures
#   The whole analysis of issue 51's target, on 10,000 records of blog
#   (log1p of the next day's comments on five log1p counts), each call
#   debiting one dp_budget(10, 1e-5) set as the session's default:
#     1. dp_summary() of the six columns at epsilon 0.5 (a Table 1);
#     2. dpsco() at epsilon 1 and at epsilon 0.5;
#     3. tune::fit_resamples() of linear_reg(penalty = 0.01) with the
#        dpsco engine at epsilon 1 over 5 folds (each record in 4 of the
#        5 analysis sets);
#     4. the budget's print(): its fits, spent and left, and its summary()
#        sentence; and the spent epsilon after each step against the sum
#        of the calls' epsilons (what adding them up would claim).
#   Then the same resampling with no budget, to show the once-per-session
#   warning.  A demonstration with measured numbers, not a test.
#
# Needs tune, rsample, workflows and yardstick (not in `make deps`):
#   Rscript -e 'install.packages("tune", lib = "/tmp/tunelib")'
# Command (from the top of the source tree):
#   R_LIBS=/tmp/benchlib:/tmp/tunelib Rscript bench/budget.R   # about 30 s

suppressPackageStartupMessages({
  library(dpsco)
  library(parsnip)
})
for (p in c("tune", "rsample", "workflows"))
  if (!requireNamespace(p, quietly = TRUE)) stop("bench/budget.R needs ", p)
options(width = 100)

utils::data("blog", package = "dpsco")
set.seed(1)
i <- sample.int(nrow(blog), 10000)
df <- as.data.frame(log1p(blog[i, c("comments_next24h", "comments_total",
                                    "comments_last24h", "links_total",
                                    "post_length", "hours_since_publication")]))
names(df)[1] <- "y"
x <- as.matrix(df[-1])

b <- dp_budget(10, 1e-5, label = "10,000 blog posts")
options(dpsco.budget = b)
steps <- data.frame(step = character(), epsilon_call = numeric(),
                    spent = numeric(), stringsAsFactors = FALSE)
note <- function(step, eps) {
  steps[nrow(steps) + 1L, ] <<- list(step, eps, dp_spent(b)$epsilon)
}

t0 <- proc.time()[["elapsed"]]
tab <- dp_summary(df, epsilon = 0.5)
note("dp_summary(), epsilon 0.5", 0.5)
f1 <- dpsco(x, df$y, epsilon = 1)
note("dpsco(), epsilon 1", 1)
f2 <- dpsco(x, df$y, epsilon = 0.5)
note("dpsco(), epsilon 0.5", 0.5)
spec <- set_engine(linear_reg(penalty = 0.01), "dpsco", epsilon = 1)
folds <- rsample::vfold_cv(df, v = 5)
res <- tune::fit_resamples(spec, y ~ ., folds)
note("fit_resamples(), 5 folds at epsilon 1", 5)
elapsed <- proc.time()[["elapsed"]] - t0

cat("dpsco", as.character(utils::packageVersion("dpsco")), "\n\n")
print(tab)
cat("\nThe resampling's metrics:\n")
print(tune::collect_metrics(res))
cat("\nSpent after each step (the budget's accountant) against the sum of",
    "the calls' epsilons:\n")
steps$sum_of_epsilons <- cumsum(steps$epsilon_call)
print(steps, row.names = FALSE, digits = 4)
cat("\n")
print(b)
cat("\n")
print(summary(b))
cat(sprintf("\n%d calls in %.1f s\n", nrow(b$fits), elapsed))

cat("\nThe same resampling without a budget:\n")
options(dpsco.budget = NULL)
withCallingHandlers(
  invisible(tune::fit_resamples(spec, y ~ ., folds)),
  warning = function(w) {
    cat("warning:", conditionMessage(w), "\n")
    invokeRestart("muffleWarning")
  })
