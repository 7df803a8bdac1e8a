# Problems and plain-R references of the objective perturbation tests
# (test-objective*.R).

obj_prob <- function(n = 400, p = 3, family = "gaussian", intercept = TRUE,
                     offset = 0, seed = 11, b = c(1, -0.8, 0.5)) {
  set.seed(seed)
  x <- matrix(runif(n * p, -1, 1), n, p)
  eta <- drop(x %*% rep_len(b, p)) + offset
  y <- if (family == "gaussian") pmin(pmax(eta + rnorm(n, 0, 0.3), -1), 1)
       else as.double(rbinom(n, 1, plogis(eta)))
  list(x = x, y = y, family = family_object(family),
       intercept = intercept, offset = offset,
       n = n, p = p, d = p + intercept, x_bound = 1, y_bound = 1)
}

# design with the column of ones written out
z_of <- function(prob) if (prob$intercept) cbind(1, prob$x) else prob$x

# J(w) = mean loss + <G, w> / n + lambda ||w||^2, straight from the definition
J_ref <- function(prob, w, G, lambda) {
  eta <- drop(z_of(prob) %*% w) + prob$offset
  loss <- if (prob$family$name == "gaussian") 0.5 * (prob$y - eta)^2
          else log(1 + exp(eta)) - prob$y * eta
  mean(loss) + sum(G * w) / prob$n + lambda * sum(w^2)
}

grad_ref <- function(prob, w, G, lambda) {
  Z <- z_of(prob)
  eta <- drop(Z %*% w) + prob$offset
  res <- if (prob$family$name == "gaussian") eta - prob$y
         else 1 / (1 + exp(-eta)) - prob$y
  drop(t(Z) %*% res) / prob$n + G / prob$n + 2 * lambda * w
}

# l1-ball projection by root-finding on the soft threshold
proj_ref <- function(v, r) {
  if (sum(abs(v)) <= r) return(v)
  f <- function(th) sum(pmax(abs(v) - th, 0)) - r
  th <- uniroot(f, c(0, max(abs(v))), tol = 1e-15)$root
  sign(v) * pmax(abs(v) - th, 0)
}

# unconstrained minimiser of J for the gaussian family: a linear system
ridge_ref <- function(prob, G, lambda) {
  Z <- z_of(prob)
  A <- crossprod(Z) / prob$n + 2 * lambda * diag(ncol(Z))
  solve(A, drop(crossprod(Z, prob$y - prob$offset)) / prob$n - G / prob$n)
}

# unconstrained minimiser of J for the binomial family: Newton's method
newton_ref <- function(prob, G, lambda) {
  Z <- z_of(prob)
  w <- numeric(ncol(Z))
  for (i in 1:50) {
    eta <- drop(Z %*% w) + prob$offset
    pr <- 1 / (1 + exp(-eta))
    g <- grad_ref(prob, w, G, lambda)
    Hs <- crossprod(Z * (pr * (1 - pr)), Z) / prob$n +
      2 * lambda * diag(ncol(Z))
    w <- w - solve(Hs, g)
  }
  w
}

# constrained minimiser by plain projected gradient, step from the data's
# own largest curvature (no acceleration, many steps)
pgd_ref <- function(prob, G, lambda, r, iter = 20000) {
  Z <- z_of(prob)
  h <- if (prob$family$name == "gaussian") 1 else 0.25
  Lc <- h * max(eigen(crossprod(Z) / prob$n, symmetric = TRUE)$values) +
    2 * lambda
  w <- numeric(ncol(Z))
  for (i in seq_len(iter)) {
    wn <- proj_ref(w - grad_ref(prob, w, G, lambda) / Lc, r)
    if (max(abs(wn - w)) < 1e-15) break
    w <- wn
  }
  w
}
