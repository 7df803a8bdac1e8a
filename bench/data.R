# bench/data.R -- the data sets of bench/utility.R and bench/constrained.R,
# as a user passes them (raw features, no transform).  Sourced by both.
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
