# bench/data.R -- the data sets of the benches (utility.R, constrained.R,
# quantile.R, wang.R, one_pass.R) and their train/test split,
# as a user passes them (raw features, no transform).
#   blog       dpsco::blog: x = the 280 raw features, y = comments_next24h;
#              gaussian, test RMSE.
#   satellite  mlbench::Satellite: x = the 36 band values, y = 1 for
#              "cotton crop"; binomial, test accuracy.  NULL without mlbench.

load_data <- function(name) {
  e <- new.env(parent = emptyenv())
  if (name == "blog") {
    utils::data("blog", package = "dpsco", envir = e)
    x <- as.matrix(e$blog[, 1:280])
    storage.mode(x) <- "double"
    list(name = "blog", family = "gaussian", metric = "RMSE", higher_better = FALSE,
         x = x, y = as.double(e$blog[[281L]]))
  } else {
    if (!requireNamespace("mlbench", quietly = TRUE)) return(NULL)
    utils::data("Satellite", package = "mlbench", envir = e)
    x <- as.matrix(e$Satellite[, 1:36])
    storage.mode(x) <- "double"
    list(name = "satellite", family = "binomial", metric = "accuracy",
         higher_better = TRUE, x = x,
         y = as.numeric(e$Satellite$classes == "cotton crop"))
  }
}

# One random train/test split of a loaded data set (`frac` for training),
# with the bench's delta = 1 / n_train.
split_data <- function(dat, seed, frac = 0.8) {
  set.seed(seed)
  n <- nrow(dat$x)
  tr <- sample.int(n, round(frac * n))
  list(xtr = dat$x[tr, ], ytr = dat$y[tr], xte = dat$x[-tr, ],
       yte = dat$y[-tr], delta = 1 / length(tr))
}
