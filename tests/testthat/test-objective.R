# Approximate objective perturbation (R/objective.R), checked against
# plain-R computations written out here: a root-finding l1 projection,
# closed-form ridge and Newton minimisers, a long projected-gradient run,
# and the calibration formulas (Su, Zhao and Wang, Algorithms 1, 2,
# Theorems 2 and 4).

test_that("settings follow the formulas of Su, Zhao and Wang (Algorithm 1)", {
  for (fam in c("gaussian", "binomial")) for (icpt in c(TRUE, FALSE)) {
    prob <- obj_prob(n = 600, p = 3, family = fam, intercept = icpt,
                     offset = if (icpt) 0.2 else 0)
    prob$x_bound <- 1.5
    prob$y_bound <- 1.2
    radius <- c(0.5, 2)
    eps <- 0.8
    delta <- 1e-5
    set.seed(8)
    fit <- fit_objective(prob, radius,
                                 list(epsilon = eps, delta = delta),
                                 dpsco_control())
    s <- fit$settings
    e <- eps / 2
    dl <- delta / 2
    d <- prob$d
    X2 <- sqrt(icpt + 3 * 1.5^2)
    R <- if (fam == "gaussian") 1.2 + abs(prob$offset) + radius * 1.5
         else c(1, 1)
    L <- R * X2
    beta <- if (fam == "gaussian") X2^2 else X2^2 / 4
    rank <- min(d, 2)
    diam <- 2 * radius
    lambda <- pmax(rank * beta / (e * 600), L / (sqrt(600) * diam))
    GC <- radius * sqrt(2 * log(2 * d))
    alpha <- pmin(L * diam / 600^1.5,
                  e^2 * L * diam^3 / (GC^2 * log(1 / dl) * 600^1.5))
    expect_equal(s$L, L, tolerance = 1e-12)
    expect_equal(s$beta, beta, tolerance = 1e-12)
    expect_equal(s$rank, rank)
    expect_equal(s$epsilon, e, tolerance = 1e-12)
    expect_equal(s$delta, dl, tolerance = 1e-12)
    expect_equal(s$sigma1, sqrt(128 * L^2 * log(2.5 / dl) / e^2),
                 tolerance = 1e-12)
    expect_equal(s$lambda, lambda, tolerance = 1e-12)
    expect_equal(s$alpha_theorem, alpha, tolerance = 1e-12)
    expect_equal(s$alpha, pmax(alpha, s$alpha_floor), tolerance = 1e-12)
    expect_equal(s$sigma2,
                 sqrt(64 * s$alpha * log(2.5 / dl) / (s$lambda * e^2)),
                 tolerance = 1e-12)
    # no gap or step count of the solvers (they depend on the data)
    expect_false(any(grepl("gap|iter", names(s))))
    expect_equal(dim(fit$beta), c(d, 2L))
    expect_true(all(colSums(abs(fit$beta)) <= radius * (1 + 1e-12)))
  }
})

test_that("the release is Proj_C(theta* + H) up to the certified distance", {
  # the noise draws are replayed: G, then H, per radius
  # (n = 2000: theta* lies inside a face of the ball, not at a vertex)
  prob <- obj_prob(n = 2000, p = 3)
  budget <- list(epsilon = 0.9, delta = 1e-6)
  for (tol in list(NULL, 1e-8)) {
    set.seed(21)
    ctl <- dpsco_control()
    ctl$objective_tol <- tol
    fit <- fit_objective(prob, 1, budget, ctl)
    s <- fit$settings
    set.seed(21)
    G <- rnorm(prob$d, 0, s$sigma1)
    ref <- pgd_ref(prob, G, s$lambda, 1)
    H <- rnorm(prob$d, 0, s$sigma2)
    out <- proj_ref(ref + H, 1)
    # projection is non-expansive and ||theta2 - theta*||^2 <= alpha / lambda
    expect_lte(sqrt(sum((fit$beta[, 1] - out)^2)),
               sqrt(s$alpha / s$lambda) + 1e-9)
  }
  expect_equal(s$alpha, 1e-8, tolerance = 1e-12)
  expect_false(s$alpha_raised)
  # a path draws G and H radius by radius, each at its share of the budget
  radius <- c(0.4, 1)
  set.seed(22)
  fit <- fit_objective(prob, radius, budget, dpsco_control())
  s <- fit$settings
  set.seed(22)
  for (k in 1:2) {
    G <- rnorm(prob$d, 0, s$sigma1[k])
    ref <- pgd_ref(prob, G, s$lambda[k], radius[k])
    H <- rnorm(prob$d, 0, s$sigma2[k])
    expect_lte(sqrt(sum((fit$beta[, k] - proj_ref(ref + H, radius[k]))^2)),
               sqrt(s$alpha[k] / s$lambda[k]) + 1e-9)
  }
})

test_that("the privacy part records the whole budget and the mechanism", {
  prob <- obj_prob(n = 300)
  set.seed(9)
  fit <- fit_objective(prob, c(0.5, 1, 2),
                               list(epsilon = 0.9, delta = 1e-6),
                               dpsco_control())
  expect_length(fit$parts, 1L)
  part <- fit$parts[[1]]
  expect_identical(part$kind, "dp")
  expect_equal(account_parts(list(part), 1e-6), 0.9, tolerance = 1e-12)
  expect_equal(part$delta, 1e-6, tolerance = 1e-12)
  expect_equal(part$steps, 3)
  expect_match(part$mechanism, "Algorithm 1", fixed = TRUE)
  expect_match(part$mechanism, "alpha = ", fixed = TRUE)
  expect_match(part$mechanism, "output noise H", fixed = TRUE)
  expect_match(part$mechanism, "sigma2 = ", fixed = TRUE)
  expect_match(part$mechanism, "sigma1 = ", fixed = TRUE)
  expect_match(part$released, "at each of 3 radii", fixed = TRUE)
  expect_true(any(grepl("x_bound", fit$public)))
  rec <- new_privacy_record(0.9, 1e-6, fit$parts, "theorem", fit$public,
                                    public_n = 500)
  expect_equal(rec$epsilon_accounted, 0.9, tolerance = 1e-12)
})

test_that("a small tolerance is raised to the numerical floor and says so", {
  prob <- obj_prob(n = 300)
  set.seed(10)
  fit <- fit_objective(prob, 1, list(epsilon = 0.5, delta = 1e-6),
                               list(objective_tol = 1e-30))
  s <- fit$settings
  expect_true(s$alpha_raised)
  expect_gte(s$alpha, 1e-10 * s$L * 2)
  expect_equal(s$alpha, s$alpha_floor, tolerance = 1e-12)
  # the floor is 1e-10 of L ||C||_2 here (the rounding allowance is far below)
  expect_equal(s$alpha, 1e-10 * s$L * 2, tolerance = 1e-12)
  expect_equal(s$sigma2,
               sqrt(64 * s$alpha * log(2.5 / 1e-6) / (s$lambda * 0.25)),
               tolerance = 1e-12)
  expect_match(fit$parts[[1]]$mechanism, "raised to the numerical floor",
               fixed = TRUE)
})

test_that("Algorithm 2 uses the paper's lambda and sigma2 (d = 1)", {
  prob <- obj_prob(n = 500, p = 1, intercept = FALSE, b = 0.6)
  Delta <- 0.01
  set.seed(12)
  fit <- fit_objective(prob, c(0.5, 1.5),
                               list(epsilon = 0.6, delta = 1e-6),
                               list(strong_convexity = Delta))
  s <- fit$settings
  r <- c(0.5, 1.5)
  e <- 0.3
  dl <- 5e-7
  L <- (1 + r) * 1
  DC <- Delta * r^2          # l2 modulus times C_min^2, C_min = r / sqrt(d)
  expect_identical(s$algorithm, 2L)
  expect_equal(s$strong_convexity_C, DC, tolerance = 1e-12)
  # beta = X2^2 = 1 and rank r = min(d, 2) = 1 for one column
  expect_equal(s$lambda, pmax(1 * 1 / (e * 500) - pmin(Delta, DC), 0),
               tolerance = 1e-12)
  expect_gt(s$lambda[1], 0)            # subtracts Delta_C < Delta
  expect_identical(s$lambda[2], 0)     # Delta covers the whole lower bound
  GC <- r * sqrt(2 * log(2))
  expect_equal(s$alpha_theorem, pmin(L^2 * (2 * r)^2 / (DC * 500^2),
                                     L^4 * (2 * r)^6 * e^2 /
                                       (DC^3 * 500^4 * GC^2 * log(1 / dl))),
               tolerance = 1e-12)
  expect_equal(s$sigma2,
               sqrt(64 * s$alpha * log(2.5 / dl) * (2 * r)^2 / (DC * e^2)),
               tolerance = 1e-12)
  expect_match(fit$parts[[1]]$mechanism, "Algorithm 2", fixed = TRUE)
  expect_true(any(grepl("strong convexity", fit$public)))
})

test_that("with little noise the output nears constrained least squares", {
  set.seed(13)
  n <- 1e5
  p <- 3
  x <- matrix(runif(n * p, -1, 1), n, p)
  y <- pmin(pmax(drop(x %*% c(0.9, -0.6, 0.3)) + rnorm(n, 0, 0.2), -1), 1)
  prob <- list(x = x, y = y, family = family_object("gaussian"),
               intercept = FALSE, offset = 0,
               n = n, p = p, d = p, x_bound = 1, y_bound = 1)
  # at the theorem's tolerance the output noise H dominates (sigma2 = 0.055
  # per coordinate here); at the numerical floor (sigma2 = 0.0125) the
  # ridge term and G are what remain
  set.seed(14)
  fit <- fit_objective(prob, 1, list(epsilon = 0.99, delta = 1e-6),
                               list())
  set.seed(14)
  fit0 <- fit_objective(prob, 1, list(epsilon = 0.99, delta = 1e-6),
                                list(objective_tol = 1e-13))
  expect_true(fit0$settings$alpha_raised)
  expect_lt(fit0$settings$sigma2, 0.25 * fit$settings$sigma2)
  # constrained least squares on the l1 ball of radius 1 (binding: the
  # coefficients' l1 norm is 1.8), by plain projected gradient on the
  # 3 x 3 normal equations
  S <- crossprod(x) / n
  b <- drop(crossprod(x, y)) / n
  w <- numeric(p)
  for (i in 1:5000) w <- proj_ref(w - (drop(S %*% w) - b) / 0.5, 1)
  expect_equal(sum(abs(w)), 1, tolerance = 1e-10)
  expect_lt(sqrt(sum((fit$beta[, 1] - w)^2)), 0.15)
  expect_lt(sqrt(sum((fit0$beta[, 1] - w)^2)), 0.04)
})

test_that("bad inputs give dpsco_arg_error", {
  prob <- obj_prob(n = 100)
  bud <- list(epsilon = 0.5, delta = 1e-6)
  fo <- function(prob = obj_prob(n = 100), radius = 1, budget = bud,
                 control = list())
    fit_objective(prob, radius, budget, control)
  err <- function(...) expect_error(fo(...), class = "dpsco_arg_error")
  err(budget = list(epsilon = 1.5, delta = 1e-6))          # eps >= 1 per radius
  err(budget = list(epsilon = 2, delta = 1e-6), radius = c(1, 2))
  err(budget = list(epsilon = -1, delta = 1e-6))
  err(budget = list(epsilon = 0.5, delta = 1))
  err(radius = c(2, 1))
  err(radius = c(0, 1))
  err(radius = Inf)
  err(control = list(objective_tol = 0))
  err(control = list(objective_tol = 2))
  err(control = list(strong_convexity = -1))
  err(control = list(strong_convexity = 0.1))              # d > 1: no modulus
  bx <- prob
  bx$x[1, 1] <- 1.5
  err(prob = bx)
  by <- prob
  by$y[1] <- 2
  err(prob = by)
  bb <- obj_prob(n = 100, family = "binomial")
  bb$y[1] <- 0.5
  err(prob = bb)
  e <- tryCatch(fo(budget = list(epsilon = 1.5, delta = 1e-6)),
                dpsco_arg_error = function(e) e)
  expect_identical(e$arg, "epsilon")
  expect_match(conditionMessage(e), "0 < epsilon < 1", fixed = TRUE)
})

test_that("an uncertified solve releases, and only the coefficients differ", {
  # the finding against 0.7.0: with one solver step the fit stopped with an
  # error printing the certified gap, which moved with one record's y
  set.seed(11)
  n <- 500
  p <- 3
  x <- matrix(runif(n * p, -1, 1), n, p)
  y0 <- pmin(pmax(drop(x %*% c(1, -0.8, 0.5)) + rnorm(n, 0, 0.3), -1), 1)
  y1 <- y0
  y1[17] <- -y0[17]                                  # a neighbouring data set
  ctl <- dpsco_control(objective_maxit = 1, objective_tol = 1e-9, shrink = 1)
  run <- function(y)
    withr::with_seed(5, dpsco(x, y, method = "objective", tuning = "public",
                              radius = 1, epsilon = 0.9, delta = 1e-6,
                              standardize = FALSE, control = ctl))
  f0 <- run(y0)
  f1 <- run(y1)
  # every field but the coefficients (and their count of non-zeros) is the
  # same, each field of the settings and of the privacy record included
  expect_setequal(names(f0), names(f1))
  for (nm in setdiff(names(f0), c("a0", "beta", "df")))
    expect_identical(f0[[nm]], f1[[nm]], label = nm)
  expect_setequal(names(f0$settings), names(f1$settings))
  for (nm in names(f0$settings))
    expect_identical(f0$settings[[nm]], f1$settings[[nm]], label = nm)
  expect_setequal(names(f0$privacy), names(f1$privacy))
  for (nm in names(f0$privacy))
    expect_identical(f0$privacy[[nm]], f1$privacy[[nm]], label = nm)
  expect_false(any(grepl("gap|iter|certif|fallback",
                         c(names(f0$settings), names(f0$privacy)))))
  # each release is Proj_C(theta2 + H) with theta2 within sqrt(alpha / lambda)
  # of the exact minimiser: replay the draws (G, then H) and solve J to
  # machine precision by plain projected gradient
  s <- f0$settings
  expect_equal(s$alpha, 1e-9)
  # lambda = max(r_H beta / (eps n), L / (sqrt(n) ||C||_2)), L = 2 * 2
  expect_equal(s$lambda, max(2 * 4 / (0.9 * n), 4 / (sqrt(n) * 2)))
  for (f in list(list(f0, y0), list(f1, y1))) {
    prob <- list(x = x, y = f[[2]], family = family_object("gaussian"),
                 intercept = TRUE,
                 offset = 0, n = n, p = p, d = p + 1, x_bound = 1, y_bound = 1)
    set_fit_seed(5)
    G <- rnorm(prob$d, 0, s$sigma1)
    # the certified solver alone does not reach alpha in one step
    expect_false(obj_solve(prob, G, s$lambda, 1, s$alpha,
                                   maxit = 1)$certified)
    ref <- pgd_ref(prob, G, s$lambda, 1, iter = 1e5)
    H <- rnorm(prob$d, 0, s$sigma2)
    b <- as.numeric(coef(f[[1]]))
    expect_lte(sqrt(sum((b - proj_ref(ref + H, 1))^2)),
               sqrt(s$alpha / s$lambda))
  }
})

test_that("a G beyond 40 sigma1 gives theta2 = 0 whatever the data", {
  prob <- obj_prob()
  cal <- obj_calibrate(prob, 1, 0.9, 1e-6, 0)
  G <- c(0, 41 * cal$sigma1, 0, 0)
  other <- prob
  other$y <- -prob$y
  for (pb in list(prob, other))
    expect_identical(obj_theta2(pb, G, cal$lambda, 1, cal$alpha,
                                        cal$modulus, g_bound = 40 * cal$sigma1),
                     numeric(4))
  # just inside the bound the solver runs
  G[2] <- 39 * cal$sigma1
  expect_gt(sum(abs(obj_theta2(prob, G, cal$lambda, 1, cal$alpha,
                                       cal$modulus,
                                       g_bound = 40 * cal$sigma1))), 0)
})

test_that("the floor on alpha leaves room for the fallback's rounding", {
  # public settings only (no data): the fallback's accumulated rounding
  # e / (1 - c), with 1 - c >= step mu / (1 + step mu), must be at most half
  # the distance sqrt(2 alpha / mu), for every G within 40 sigma1
  cal_of <- function(family, r, n) {
    prob <- list(family = family_object(family), intercept = TRUE,
                 offset = 0, n = n, p = 3, d = 4, x_bound = 2, y_bound = 2)
    cal <- obj_calibrate(prob, r, 0.45, 5e-5, 0)
    X2 <- sqrt(1 + 3 * 4)
    beta <- if (family == "binomial") X2^2 / 4 else X2^2
    mu <- 2 * cal$lambda
    step <- 1 / (beta + mu)
    R <- if (family == "binomial") 1 else 2 + 2 * r
    g <- 2 * 40 * cal$sigma1 / n                 # ||G||_2 / n, |G_j| <= 40 sd
    # ||theta*||: 2 lambda ||theta*||^2 <= log 2 + g ||theta*|| (logistic)
    rho <- (g + sqrt(g^2 + 4 * mu * log(2))) / (2 * mu)
    rw <- if (is.finite(r)) r else 2 * (2 * rho + sqrt(2 / mu))
    e <- obj_step_error(prob, r, rw, R, 2, 40 * cal$sigma1 / n,
                                cal$lambda, step)
    expect_lte(e / (step * mu / (1 + step * mu)),
               sqrt(2 * cal$alpha_floor / mu) / 2)
    expect_lte(cal$alpha_floor, cal$alpha)
    cal
  }
  cal_of("gaussian", 1, 1e4)
  cal_of("binomial", Inf, 500)
  # at radius Inf and n = 5e6 the fallback's rounding sets the floor, above
  # the former rule 1e-24 L^2 d / lambda and above the theorem's alpha
  cal <- cal_of("binomial", Inf, 5e6)
  expect_gt(cal$alpha_floor, 1e4 * 1e-24 * cal$L^2 * 4 / cal$lambda)
  expect_gt(cal$alpha_floor, cal$alpha_theorem)
  expect_equal(cal$alpha, cal$alpha_floor)
  expect_true(cal$alpha_raised)
  expect_equal(cal$sigma2, sqrt(64 * cal$alpha * log(2.5 / 5e-5) /
                                  (cal$lambda * 0.45^2)))
})
