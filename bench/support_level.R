# bench/support_level.R -- probe (issue 50): G of the default cv.dpsco() on
# the panel's sets (bench/data.R, 70% splits as bench/panel.R) with the
# support rule's level c at 5 (default), 3, 2 and the rule off, same seeds
# (set.seed(1000 s + 10 eps + seed)), so the fits' releases are the same
# and only the post-processing differs.  Settings: SETS, EPS, SPLITS (3),
# SEEDS (3), CFGS (an R list of extra arguments per column), OUT (an rds).
# Command: SETS=satellite,spam,cps R_LIBS=/tmp/benchlib Rscript bench/support_level.R
script_dir <- local({
  a <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(a)) dirname(normalizePath(sub("^--file=", "", a[1L]))) else "bench"
})
source(file.path(script_dir, "data.R"))
suppressPackageStartupMessages(library(dpsco))
sets <- strsplit(Sys.getenv("SETS", "satellite,spam"), ",")[[1]]
eps_grid <- as.numeric(strsplit(Sys.getenv("EPS", "1"), ",")[[1]])
n_splits <- as.integer(Sys.getenv("SPLITS", "3")); n_seeds <- as.integer(Sys.getenv("SEEDS", "3"))
cfgs <- eval(parse(text = Sys.getenv("CFGS", "list(default = list(), lvl3 = list(control = dpsco_control(support_level = 3)), lvl2 = list(control = dpsco_control(support_level = 2)), none = list(control = dpsco_control(support = 'none')))")))
all <- NULL
for (nm in sets) {
dat <- load_data(nm); fam <- dat$family
for (s in seq_len(n_splits)) {
sp <- split_data(dat, s, 0.7)
gl <- glmnet::cv.glmnet(sp$xtr, sp$ytr, family = fam)
if (fam == "gaussian") {
  met <- function(p) -sqrt(mean((sp$yte - p)^2)); base <- met(mean(sp$ytr))
  ga <- met(drop(predict(gl, sp$xte, s = "lambda.min")))
} else {
  met <- function(p) mean((p > .5) == sp$yte)
  base <- mean(sp$yte == as.numeric(names(which.max(table(sp$ytr)))))
  ga <- met(predict(gl, sp$xte, s = "lambda.min", type = "response"))
}
for (eps in eps_grid) for (seed in seq_len(n_seeds) - 1L) {
  g <- sapply(cfgs, function(cf) {
  set.seed(1000 * s + 10*eps + seed)
  cv <- suppressWarnings(suppressMessages(do.call(cv.dpsco, c(list(sp$xtr, sp$ytr, family = fam, epsilon = eps, delta = 0.1/length(sp$ytr)), cf))))
  (met(drop(predict(cv, sp$xte, s = "lambda.min", type = "response"))) - base) / (ga - base) })
  all <- rbind(all, data.frame(set = nm, eps = eps, split = s, seed = seed, t(g)))
  cat(nm, eps, s, seed, round(g, 3), "\n"); flush.console()
}}}
saveRDS(all, Sys.getenv("OUT", "/tmp/q/gen.rds"))
print(aggregate(all[names(cfgs)], all[c("set", "eps")], mean), digits = 3)
print(aggregate(all[names(cfgs)], all[c("set", "eps")], sd), digits = 3)
