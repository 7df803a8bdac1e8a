# The solver of approximate objective perturbation (R/objective-solve.R):
# the l1-ball projection against root finding, the certified tolerance
# against closed-form ridge and Newton minimisers and a long projected-
# gradient run, and the fallback's distance to the exact minimiser.

test_that("the l1-ball projection matches a root-finding computation", {
  set.seed(3)
  for (k in 1:30) {
    d <- sample(1:12, 1)
    v <- rnorm(d, sd = runif(1, 0.1, 5))
    r <- runif(1, 0.05, 1.2) * sum(abs(v))     # some inside, most outside
    w <- obj_proj_l1(v, r)
    expect_equal(w, proj_ref(v, r), tolerance = 1e-10)
    if (sum(abs(v)) <= r) expect_identical(w, v)
    else expect_equal(sum(abs(w)), r, tolerance = 1e-12)
    # closest point: no random point of the ball is nearer to v
    u <- matrix(rnorm(200 * d), 200)
    u <- u / rowSums(abs(u)) * r * runif(200)
    expect_gte(min(sqrt(rowSums(sweep(u, 2, v)^2))),
               sqrt(sum((w - v)^2)) - 1e-12)
  }
  # ties and zeros
  expect_equal(obj_proj_l1(c(2, -2, 0), 2), c(1, -1, 0))
  expect_equal(obj_proj_l1(c(3, 0, 0, 0), 1), c(1, 0, 0, 0))
})

test_that("the solver certifies its tolerance (gaussian, ball inactive)", {
  prob <- obj_prob()
  set.seed(5)
  G <- rnorm(prob$d, 0, 5)
  lambda <- 0.02
  ref <- ridge_ref(prob, G, lambda)
  r <- 3 * sum(abs(ref))
  for (alpha in c(1e-4, 1e-9)) {
    sol <- obj_solve(prob, G, lambda, r, alpha)
    subopt <- J_ref(prob, sol$w, G, lambda) - J_ref(prob, ref, G, lambda)
    expect_true(sol$certified)
    expect_lte(sol$gap, alpha)
    expect_lte(subopt, alpha)
    # the certificate bounds the true suboptimality from above
    expect_gte(sol$gap, subopt)
    # and strong convexity (2 lambda) turns it into a distance
    expect_lte(sum((sol$w - ref)^2), sol$gap / lambda)
  }
})

test_that("the solver certifies its tolerance (binomial, ball inactive)", {
  prob <- obj_prob(family = "binomial", intercept = TRUE, offset = 0.3)
  set.seed(6)
  G <- rnorm(prob$d, 0, 3)
  lambda <- 0.01
  ref <- newton_ref(prob, G, lambda)
  expect_lt(max(abs(grad_ref(prob, ref, G, lambda))), 1e-13)
  r <- 3 * sum(abs(ref))
  sol <- obj_solve(prob, G, lambda, r, 1e-9)
  subopt <- J_ref(prob, sol$w, G, lambda) - J_ref(prob, ref, G, lambda)
  expect_lte(sol$gap, 1e-9)
  expect_lte(subopt, 1e-9)
  expect_gte(sol$gap, subopt)
  expect_lte(sum((sol$w - ref)^2), sol$gap / lambda)
})

test_that("the solver certifies its tolerance with the constraint active", {
  for (fam in c("gaussian", "binomial")) {
    prob <- obj_prob(family = fam, p = 4, intercept = FALSE)
    set.seed(7)
    G <- rnorm(prob$d, 0, 20)
    lambda <- 0.05
    r <- 0.7
    ref <- pgd_ref(prob, G, lambda, r)
    free <- if (fam == "gaussian") ridge_ref(prob, G, lambda)
            else newton_ref(prob, G, lambda)
    expect_gt(sum(abs(free)), r + 0.1)                  # the ball binds
    sol <- obj_solve(prob, G, lambda, r, 1e-10)
    expect_lte(sum(abs(sol$w)), r)
    subopt <- J_ref(prob, sol$w, G, lambda) - J_ref(prob, ref, G, lambda)
    expect_lte(sol$gap, 1e-10)
    expect_lte(subopt, 1e-10)
    expect_gte(sol$gap, subopt)
    expect_equal(sol$w, ref, tolerance = 1e-4)
    # the reported gap is the Frank-Wolfe gap of the definition (plus a
    # rounding allowance far below it)
    g <- grad_ref(prob, sol$w, G, lambda)
    fw <- max(vapply(seq_len(prob$d), function(j) max(
      sum(g * sol$w) - r * g[j], sum(g * sol$w) + r * g[j]), 0))
    expect_gte(sol$gap, fw)
    expect_lt(sol$gap - fw, 1e-12)
  }
})

test_that("the fallback puts theta2 within sqrt(alpha / lambda) of theta*", {
  # theta2 before the output noise, for a given G, against theta* computed
  # here: plain projected gradient (finite radius) or Newton (radius Inf)
  cases <- list(list(family = "gaussian", r = 0.7),
                list(family = "binomial", r = 0.7),
                list(family = "binomial", r = Inf))
  for (cs in cases) {
    prob <- obj_prob(family = cs$family, p = 4, intercept = FALSE)
    cal <- obj_calibrate(prob, cs$r, 0.9, 1e-6, 0)
    lambda <- cal$lambda
    expect_equal(cal$modulus, 2 * lambda)
    set.seed(17)
    G <- rnorm(prob$d, 0, cal$sigma1)
    ref <- if (is.finite(cs$r)) pgd_ref(prob, G, lambda, cs$r, iter = 1e5)
           else newton_ref(prob, G, lambda)
    if (is.finite(cs$r)) {
      free <- if (cs$family == "gaussian") ridge_ref(prob, G, lambda)
              else newton_ref(prob, G, lambda)
      expect_gt(sum(abs(free)), cs$r + 0.1)             # the ball binds
    } else {
      expect_lt(max(abs(grad_ref(prob, ref, G, lambda))), 1e-13)
    }
    # the calibrated alpha, and (finite radius) one below the certificate's
    # rounding allowance, so that only the fallback's step count ends it
    alphas <- c(cal$alpha, if (is.finite(cs$r)) 1e-15)
    for (alpha in alphas) {
      expect_false(obj_solve(prob, G, lambda, cs$r, alpha,
                                     maxit = 1)$certified)
      th <- obj_theta2(prob, G, lambda, cs$r, alpha, 2 * lambda,
                               maxit = 1)
      expect_lte(sqrt(sum((th - ref)^2)), sqrt(alpha / lambda))
      if (is.finite(cs$r)) expect_lte(sum(abs(th)), cs$r)
    }
  }
})

test_that("Algorithm 2's fallback reaches sqrt(2 alpha / (2 lambda + Delta))", {
  prob <- obj_prob(n = 500, p = 1, intercept = FALSE, b = 0.6)
  Delta <- 0.01
  for (r in c(0.2, 1.5)) {
    cal <- obj_calibrate(prob, r, 0.3, 5e-7, Delta)
    mu <- 2 * cal$lambda + Delta
    expect_equal(cal$modulus, mu)
    set.seed(23)
    G <- rnorm(1, 0, cal$sigma1)
    # one coordinate: the constrained minimiser is the clamped ridge solution
    x <- prob$x[, 1]
    ref <- (mean(x * prob$y) - G / 500) / (mean(x^2) + 2 * cal$lambda)
    ref <- max(min(ref, r), -r)
    for (alpha in c(cal$alpha, 1e-14)) {
      expect_false(obj_solve(prob, G, cal$lambda, r, alpha,
                                     maxit = 1)$certified)
      th <- obj_theta2(prob, G, cal$lambda, r, alpha, mu, maxit = 1)
      expect_lte(abs(th - ref), sqrt(2 * alpha / mu))
    }
  }
  # at r = 1.5 Delta covers the whole lower bound: lambda = 0 and mu = Delta
  expect_identical(cal$lambda, 0)
})
