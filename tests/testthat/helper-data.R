# Data generators shared by the test files.

# n records of p standard normal features, half of the entries zero, and a
# response of `family` from the linear predictor eta = x1 - x2: what the
# registry's conformance test fits with every method and family.  A family
# registered without a response here is an error, so that the test cannot
# pass it over.
family_data <- function(family, n = 2000, p = 4, seed = 1) {
  set.seed(seed)
  x <- matrix(stats::rnorm(n * p), n, p)
  x[sample(length(x), 0.5 * length(x))] <- 0
  eta <- drop(x %*% c(1, -1, rep(0, p - 2)))
  y <- switch(family,
              gaussian = , quantile = eta + stats::rt(n, 3),
              binomial = stats::rbinom(n, 1, stats::plogis(eta)),
              poisson = stats::rpois(n, exp(eta / 2)),
              multinomial = softmax_classes(cbind(0, eta, -eta)),
              stop("family_data() has no response for the family ", family))
  list(x = x, y = y)
}

# One class a row (a factor of levels a, b, c, ...) drawn from the softmax
# of the linear predictors in the columns of eta (the largest of eta plus
# Gumbel noise).
softmax_classes <- function(eta) {
  gumbel <- -log(-log(matrix(stats::runif(length(eta)), nrow(eta))))
  k <- ncol(eta)
  factor(max.col(eta + gumbel, ties.method = "first"), levels = seq_len(k),
         labels = letters[seq_len(k)])
}

# Heavy-tailed data for the cv.dpsco() tests (test-cv.R, test-cv-methods.R):
# log-normal columns, t3 errors, three signals.
cv_data <- function(n = 1200, p = 5, seed = 41) {
  set.seed(seed)
  x <- matrix(exp(stats::rnorm(n * p)), n, p)
  eta <- drop(x %*% c(1.5, -1, 0.5, rep(0, p - 3)))
  list(x = x, y = eta + stats::rt(n, df = 3),
       yb = stats::rbinom(n, 1, stats::plogis(eta - 1)), n = n, p = p)
}

# Log-normal columns with a quarter of zeros, t3 errors: the settings tests
# (test-settings*.R).
settings_data <- function(n = 1500, p = 4, seed = 12) {
  set.seed(seed)
  x <- matrix(exp(stats::rnorm(n * p)), n, p)
  x[sample(n, n / 4), 2] <- 0
  y <- drop(x %*% c(1, -1, 0, 0.5)) + stats::rt(n, df = 3)
  yb <- stats::rbinom(n, 1, stats::plogis(x[, 1] - 1))
  list(x = x, y = y, yb = yb, n = n, p = p)
}
