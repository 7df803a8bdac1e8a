# bench/data.R -- the data sets of the benches (utility.R, decompose.R,
# constrained.R, quantile.R, wang.R, one_pass.R) and their train/test split,
# as a user passes them (raw features and response, no transform).
#   blog        dpsco::blog: x = the 280 raw features, y = comments_next24h;
#               gaussian, test RMSE.
#   satellite   mlbench::Satellite: x = the 36 band values, y = 1 for
#               "cotton crop"; binomial, test accuracy.
#   satellite6  mlbench::Satellite: the same x, y = the six-level factor
#               `classes`; multinomial, test accuracy.
#   diamonds    ggplot2::diamonds (53,940 rows): y = price in dollars (raw,
#               heavy-tailed), x = model.matrix(~ . - price, data)[, -1]:
#               carat, depth, table, x, y, z as they are, and the ordered
#               factors cut (5 levels), color (7) and clarity (8) coded by
#               R's default contrasts for ordered factors, contr.poly
#               (orthogonal polynomial columns .L, .Q, .C, ^4, ...: 4 + 6 +
#               7 = 17 columns), 23 columns in all; gaussian, test RMSE.
#   spam        kernlab::spam (4,601 e-mails): x = the 57 raw numeric columns
#               (48 word and 6 character frequencies in percent, the three
#               capital-run-length counts), y = 1 for type "spam";
#               binomial, test accuracy.
#   cps         AER::CPS1988 (28,155 men, 1988): y = wage in dollars a week
#               (raw, long-tailed: to 18,777, median 522), x = education,
#               experience and the factors ethnicity, smsa, region and
#               parttime one-hot (treatment contrasts): 8 columns, 6 of
#               them 0/1; gaussian, test RMSE.
#   ames        modeldata::ames (2,930 houses): y = Sale_Price in dollars
#               (raw), x = model.matrix(Sale_Price ~ ., data)[, -1]: every
#               other column, the factors one-hot (treatment contrasts),
#               about 300 columns, most of them 0/1; gaussian, test RMSE.
#   concrete    modeldata::concrete (1,030 mixtures): y = compressive
#               strength, x = the 8 raw ingredient amounts and age;
#               gaussian, test RMSE.
# load_data(name) returns list(name, family, metric, higher_better, x, y)
# (x a double matrix), or NULL with a message when the package holding the
# data is not installed.

data_package <- c(blog = "dpsco", satellite = "mlbench", satellite6 = "mlbench",
                  diamonds = "ggplot2", spam = "kernlab", cps = "AER",
                  ames = "modeldata", concrete = "modeldata")

load_data <- function(name) {
  if (!name %in% names(data_package))
    stop("load_data: unknown data set '", name, "'; known: ",
         paste(names(data_package), collapse = ", "))
  pkg <- data_package[[name]]
  if (!requireNamespace(pkg, quietly = TRUE)) {
    message(sprintf("load_data(\"%s\"): package %s is not installed: NULL", name, pkg))
    return(NULL)
  }
  e <- new.env(parent = emptyenv())
  dbl <- function(x) {
    x <- as.matrix(x)
    storage.mode(x) <- "double"
    x
  }
  switch(name,
    blog = {
      utils::data("blog", package = "dpsco", envir = e)
      list(name = "blog", family = "gaussian", metric = "RMSE", higher_better = FALSE,
           x = dbl(e$blog[, 1:280]), y = as.double(e$blog[[281L]]))
    },
    satellite = , satellite6 = {
      utils::data("Satellite", package = "mlbench", envir = e)
      x <- dbl(e$Satellite[, 1:36])
      if (name == "satellite")
        list(name = "satellite", family = "binomial", metric = "accuracy",
             higher_better = TRUE, x = x,
             y = as.numeric(e$Satellite$classes == "cotton crop"))
      else
        list(name = "satellite6", family = "multinomial", metric = "accuracy",
             higher_better = TRUE, x = x, y = droplevels(e$Satellite$classes))
    },
    diamonds = {
      d <- as.data.frame(ggplot2::diamonds)
      x <- stats::model.matrix(~ . - price, data = d)[, -1L, drop = FALSE]
      attr(x, "assign") <- attr(x, "contrasts") <- NULL
      list(name = "diamonds", family = "gaussian", metric = "RMSE",
           higher_better = FALSE, x = dbl(x), y = as.double(d$price))
    },
    cps = {
      utils::data("CPS1988", package = "AER", envir = e)
      one_hot_set("cps", e$CPS1988, "wage")
    },
    ames = {
      utils::data("ames", package = "modeldata", envir = e)
      one_hot_set("ames", as.data.frame(e$ames), "Sale_Price")
    },
    concrete = {
      utils::data("concrete", package = "modeldata", envir = e)
      d <- as.data.frame(e$concrete)
      list(name = "concrete", family = "gaussian", metric = "RMSE",
           higher_better = FALSE,
           x = dbl(d[, setdiff(names(d), "compressive_strength")]),
           y = as.double(d$compressive_strength))
    },
    spam = {
      utils::data("spam", package = "kernlab", envir = e)
      num <- vapply(e$spam, is.numeric, NA)
      list(name = "spam", family = "binomial", metric = "accuracy",
           higher_better = TRUE, x = dbl(e$spam[, num]),
           y = as.numeric(e$spam$type == "spam"))
    })
}

# A gaussian set from a data frame: y the column `yname` as it is, x the
# other columns through model.matrix() (factors one-hot by treatment
# contrasts, the intercept's column dropped).
one_hot_set <- function(name, d, yname) {
  x <- stats::model.matrix(stats::reformulate(".", yname), data = d)[, -1L, drop = FALSE]
  attr(x, "assign") <- attr(x, "contrasts") <- NULL
  storage.mode(x) <- "double"
  list(name = name, family = "gaussian", metric = "RMSE", higher_better = FALSE,
       x = x, y = as.double(d[[yname]]))
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

# The commit bench/install.sh installed, if it did.
installed_commit <- function() {
  f <- system.file("BENCH_COMMIT", package = "dpsco")
  if (nzchar(f)) readLines(f)[1L] else "unknown (not installed by bench/install.sh)"
}

# A comma list from an environment variable.
env_list <- function(name, default) {
  v <- trimws(strsplit(Sys.getenv(name, default), ",", fixed = TRUE)[[1L]])
  v[nzchar(v)]
}
