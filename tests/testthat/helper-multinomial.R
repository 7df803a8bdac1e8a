# Multinomial data and plain-R references shared by the test files of the
# multinomial methods: softmax, clamping and lambda interpolation written
# out by hand, never through the package.

# n records of p standard normal features and K = 3 classes u, v, w drawn
# from a softmax model (Gumbel noise on the linear predictors).
mn_data <- function(n = 300, p = 4, seed = 5, signal = 1.5) {
  set.seed(seed)
  x <- matrix(stats::rnorm(n * p), n, p)
  eta <- cbind(0, signal * x[, 1], -signal * x[, 2] + 0.5)
  gumbel <- -log(-log(matrix(stats::runif(3 * n), n)))
  y <- factor(max.col(eta + gumbel), levels = 1:3, labels = c("u", "v", "w"))
  list(x = x, y = y)
}

# x clamped column by column to [range[1, j], range[2, j]] (NULL: as is)
mn_clamp <- function(x, range) {
  if (is.null(range)) return(x)
  for (j in seq_len(ncol(x)))
    x[, j] <- pmin(pmax(x[, j], range[1, j]), range[2, j])
  x
}

# class probabilities (n x K) at path column j of a multinomial fit, from
# its stored a0 and beta
mn_prob <- function(fit, x, j) {
  xc <- mn_clamp(x, fit$x_range)
  eta <- matrix(sapply(seq_along(fit$beta), function(k)
    fit$a0[k, j] + xc %*% fit$beta[[k]][, j]), nrow(x))
  e <- exp(eta)
  e / rowSums(e)
}

# the coefficients (intercept first) of class k at penalty s, linear in
# lambda between the two fitted neighbours
mn_interp <- function(fit, k, s) {
  b <- rbind(fit$a0[k, ], fit$beta[[k]])
  lam <- fit$lambda
  j <- max(which(lam >= s))
  if (lam[j] == s) return(b[, j])
  w <- (s - lam[j + 1]) / (lam[j] - lam[j + 1])
  w * b[, j] + (1 - w) * b[, j + 1]
}
