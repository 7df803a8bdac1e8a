# The private mean estimators ("oracles") and the Catoni-Giulini function,
# checked against plain-R references written here from their definitions:
#   clip    sum_i g_i min(1, C / ||g_i||) / m
#   kamath  per coordinate: clamp to [-rho/2, rho/2], sum per group, times
#           k / m, median of the k group values
#   holland sum_i s h(g_ij / s) / m,  h(a) = E psi(a + |a| Z / sqrt(nu))
#   none    colSums(g) / m
# The Catoni-Giulini expectation is computed by quadrature (integrate()),
# never by the package's closed form.

clip_ref <- function(g, m, C) {
  big <- apply(abs(g), 1, max)
  nrm <- ifelse(big > 0, big * sqrt(rowSums((g / pmax(big, 1e-300))^2)), 0)
  w <- ifelse(nrm > C, C / nrm, 1)
  colSums(g * w) / m
}

kamath_ref <- function(g, m, rho, k, labels) {
  v <- pmin(pmax(g, -rho / 2), rho / 2)
  sums <- matrix(0, k, ncol(g))
  for (i in seq_len(nrow(g)))
    sums[labels[i] + 1, ] <- sums[labels[i] + 1, ] + v[i, ]
  apply(sums * (k / m), 2, stats::median)
}

holland_ref <- function(g, m, s, nu) {
  colSums(matrix(s * h_ref(g / s, nu), nrow(g))) / m
}

none_ref <- function(g, m) colSums(g) / m

# max absolute difference relative to the size of the reference (at least 1)
expect_close <- function(got, ref, tol = 1e-10) {
  expect_length(got, length(ref))
  scale <- max(1, abs(ref))
  expect_lte(max(abs(got - ref)), tol * scale)
}

heavy_rows <- function(n, d, kind) {
  v <- switch(kind,
    t2 = stats::rt(n * d, df = 2),
    pareto = sample(c(-1, 1), n * d, replace = TRUE) * stats::runif(n * d)^(-1 / 1.5))
  matrix(v, n, d)
}

shapes <- list(
  list(n = 50, d = 1, m = 37.5, kind = "t2"),
  list(n = 120, d = 3, m = 150, kind = "pareto"),
  list(n = 300, d = 8, m = 260, kind = "t2"),
  list(n = 80, d = 5, m = 20, kind = "pareto")
)

test_that("clip oracle matches the plain-R clipped mean", {
  set.seed(101)
  for (sh in shapes) {
    g <- heavy_rows(sh$n, sh$d, sh$kind)
    g[3, ] <- 1e8                         # huge records
    g[5, 1] <- -3e8
    g[7, ] <- 0                           # a zero record contributes nothing
    for (C in c(0.5, 2, 7)) {
      ref <- clip_ref(g, sh$m, C)
      got <- oracle_mean(g, "clip", m = sh$m, clip = C)
      expect_close(got, ref)
      # the clipping is active: the unclipped mean is far away
      expect_gt(max(abs(ref - none_ref(g, sh$m))), 1e-3)
      # each clipped record has norm <= C, so |mean_j| <= n C / m
      expect_true(all(abs(got) <= sh$n * C / sh$m * (1 + 1e-12)))
    }
  }
  # a record inside the ball is kept as it is, one outside is rescaled to C
  g <- rbind(c(0.3, -0.4), c(30, 40))
  expect_equal(oracle_mean(g, "clip", m = 4, clip = 1),
               (c(0.3, -0.4) + c(0.6, 0.8)) / 4, tolerance = 1e-15)
})

test_that("kamath oracle matches clamped group sums and their median", {
  set.seed(202)
  for (sh in shapes) {
    g <- heavy_rows(sh$n, sh$d, sh$kind)
    for (k in c(1L, 2L, 7L, 8L, 64L)) {        # odd, even, more groups than rows
      labels <- sample(0:(k - 1L), sh$n, replace = TRUE)
      for (rho in c(0.8, 6)) {
        ref <- kamath_ref(g, sh$m, rho, k, labels)
        got <- oracle_mean(g, "kamath", m = sh$m, rho = rho, k = k,
                                   labels = labels)
        expect_close(got, ref)
      }
    }
  }
  # hand-made case: even k takes the mean of the two middle group values
  g <- matrix(c(1, 2, 3, 4, 10, -10), ncol = 1)
  # clamp to [-3, 3]: 1 2 3 3 3 -3; groups 0:{1,3}=4, 1:{2}=2, 2:{3}=3,
  # 3:{3,-3}=0; times k/m = 4/2 -> 8 4 6 0; median (4 + 6) / 2 = 5
  expect_equal(oracle_mean(g, "kamath", m = 2, rho = 6, k = 4,
                                   labels = c(0, 1, 2, 0, 3, 3)), 5,
               tolerance = 1e-15)
  # odd k takes the middle value: groups {1, 3} = 4, {2, -3} = -1,
  # {3, 3} = 6 (10 clamped to 3); times k/m = 1 -> median 4
  expect_equal(oracle_mean(g, "kamath", m = 3, rho = 6, k = 3,
                                   labels = c(0, 1, 2, 0, 2, 1)), 4,
               tolerance = 1e-15)
})

test_that("kamath labels drawn from R's generator are floor(runif * k)", {
  set.seed(303)
  g <- heavy_rows(60, 4, "t2")
  set.seed(9)
  got <- oracle_mean(g, "kamath", m = 50, rho = 2, k = 5)
  set.seed(9)
  labels <- floor(stats::runif(60) * 5)
  expect_close(got, kamath_ref(g, 50, 2, 5, labels))
})

test_that("holland oracle matches s h(g / s) summed and divided by m", {
  set.seed(404)
  for (sh in shapes) {
    g <- heavy_rows(sh$n, sh$d, sh$kind)
    g[2, ] <- 1e8
    g[4, 1] <- -1e8
    g[6, ] <- 0
    for (par in list(c(s = 1, nu = sqrt(log(10))), c(s = 0.3, nu = 0.5),
                     c(s = 4, nu = 10))) {
      ref <- holland_ref(g, sh$m, par[["s"]], par[["nu"]])
      got <- oracle_mean(g, "holland", m = sh$m, s = par[["s"]],
                                 nu = par[["nu"]])
      expect_close(got, ref)
      expect_true(all(abs(got) <= sh$n * psi_max * par[["s"]] / sh$m * (1 + 1e-12)))
    }
  }
})

test_that("records at the edge of the clamp-free loops get exactly the clamped values", {
  # the engine skips Kamath's clamp when |r| max_j |g_j| <= rho / 2 and
  # Holland's interpolation when |r / s| max_j |g_j| <= a_poly; rows just
  # inside and just outside those limits (r = 1 in a release) must agree
  # with the references, which clamp and evaluate every value
  h <- 1.5
  edge <- h * c(1 - 2^-52, 1, 1 + 2^-52, 1 + 1e-9, 1.5, 40)
  g <- rbind(cbind(edge, 0.5), cbind(-edge, -h / 3), cbind(0.1, edge))
  expect_close(oracle_mean(g, "kamath", m = 10, rho = 2 * h, k = 1L),
               kamath_ref(g, 10, 2 * h, 1, rep(0, nrow(g))), tol = 1e-14)
  for (nu in c(sqrt(log(10)), 4, 400)) {
    a_poly <- sqrt(2) / (1 + 10 / sqrt(nu))
    s <- 2
    edge <- s * a_poly * c(1 - 2^-52, 1, 1 + 2^-52, 1 + 1e-9, 1.5, 3, 40)
    g <- rbind(cbind(edge, 0.2), cbind(-edge, 0), cbind(-0.3, edge))
    expect_close(oracle_mean(g, "holland", m = 7, s = s, nu = nu),
                 holland_ref(g, 7, s, nu))
  }
})

test_that("none oracle is the plain sum divided by m, and ignores noise", {
  set.seed(505)
  for (sh in shapes) {
    g <- heavy_rows(sh$n, sh$d, sh$kind)
    g[1, ] <- 1e8
    expect_close(oracle_mean(g, "none", m = sh$m), none_ref(g, sh$m),
                 tol = 1e-12)
    set.seed(1)
    u <- stats::runif(1)
    set.seed(1)
    expect_close(oracle_mean(g, "none", m = sh$m, noise_sd = 5),
                 none_ref(g, sh$m), tol = 1e-12)
    expect_identical(stats::runif(1), u)   # no random numbers were used
  }
})

test_that("a noisy release adds noise_sd * rnorm(dim) after the estimate", {
  set.seed(606)
  g <- heavy_rows(70, 3, "pareto")
  set.seed(77)
  got <- oracle_mean(g, "clip", m = 60, clip = 2, noise_sd = 0.4)
  set.seed(77)
  expect_close(got, clip_ref(g, 60, 2) + 0.4 * stats::rnorm(3))
  set.seed(78)
  got <- oracle_mean(g, "holland", m = 60, s = 2, nu = 1, noise_sd = 3)
  set.seed(78)
  expect_close(got, holland_ref(g, 60, 2, 1) + 3 * stats::rnorm(3))
  # kamath draws the labels first, then the noise
  set.seed(79)
  got <- oracle_mean(g, "kamath", m = 60, rho = 1, k = 3, noise_sd = 0.2)
  set.seed(79)
  labels <- floor(stats::runif(70) * 3)
  expect_close(got, kamath_ref(g, 60, 1, 3, labels) + 0.2 * stats::rnorm(3))
})

test_that("catoni_mean reproduces reference values and the quadrature", {
  expect_lt(abs(catoni_mean(1, 1) - 0.5640872726), 1e-9)
  expect_lt(abs(catoni_mean(-1.3, 0.7) - (-0.7812004442)), 1e-9)
  expect_lt(abs(catoni_mean(3, 3) - 0.6336655871), 1e-9)
  # the reference quadrature agrees with those printed values too
  expect_lt(abs(catoni_ref(1, 1) - 0.5640872726), 1e-9)
  expect_lt(abs(catoni_ref(-1.3, 0.7) - (-0.7812004442)), 1e-9)
  expect_lt(abs(catoni_ref(3, 3) - 0.6336655871), 1e-9)
  # off the Holland curve, on both sides of every branch of the C code
  g <- expand.grid(a = c(0, 0.01, 0.7, 1.41, 1.42, 3, 9.9, 10, 10.1, 15, 100),
                   b = c(0, 1e-6, 0.3, 1, 3, 9.9, 10, 10.1, 40, 1e4))
  g <- rbind(g, transform(g, a = -a))
  ref <- mapply(catoni_ref, g$a, g$b)
  got <- catoni_mean(g$a, g$b)
  expect_lt(max(abs(got - ref)), 1e-9)
  # b = 0 is psi itself
  expect_equal(catoni_mean(c(-3, -1, 0.5, 2), 0),
               psi_ref(c(-3, -1, 0.5, 2)), tolerance = 1e-15)
})

test_that("holland_h matches the quadrature on the algorithm's curve", {
  a <- c(0, 1e-3, 0.1, 0.5, 1, 1.4, 1.5, 2, 5, 9.99, 10, 10.01, 20, 100,
         1e3, 1e4, 1e5, 1e6)
  a <- c(a, -a)
  for (nu in c(sqrt(log(10)), 0.5, 10)) {
    got <- holland_h(a, nu)
    ref <- h_ref(a, nu)
    expect_lt(max(abs(got - ref)), 1e-9)
    # unclamped quadrature is already inside the bound
    raw <- vapply(a[a != 0], function(ai) catoni_ref(ai, abs(ai) / sqrt(nu)), 0)
    expect_true(all(abs(raw) <= psi_max))
  }
  # large-|a| limit: P(a + a Z / sqrt(nu) > sqrt(2)) -> Phi(sqrt(nu))
  nu <- 10
  expect_lt(abs(holland_h(1e12, nu) -
                  psi_max * (2 * pnorm(sqrt(nu)) - 1)), 1e-9)
})

test_that("holland_h is bounded by 2 sqrt(2) / 3 and odd", {
  set.seed(707)
  a <- c(stats::rt(400, df = 1) * 10^stats::runif(400, -3, 6),
         1e300, -1e300, .Machine$double.xmax, -.Machine$double.xmax, 0)
  for (nu in c(sqrt(log(10)), 0.5, 10, 1e4)) {
    h <- holland_h(a, nu)
    expect_true(all(is.finite(h)))
    expect_true(all(abs(h) <= psi_max))
    expect_lt(max(abs(holland_h(-a, nu) + h)), 1e-12)
    expect_equal(h[length(h)], 0)
  }
  # very large nu: almost no multiplicative noise, h -> psi
  expect_lt(abs(holland_h(1, 1e12) - (1 - 1 / 6)), 1e-6)
})

test_that("holland_h is finite and close to a for tiny nonzero a", {
  # h(a) = a (1 - a^2 / (2 nu)) - a^3 / 6 + O(exponentially small) near 0
  a <- c(1e-100, 1e-150, 1e-160, 1e-200, 1e-300, .Machine$double.xmin, 5e-324)
  a <- c(a, -a)
  for (nu in c(sqrt(log(10)), 0.5, 10)) {
    h <- holland_h(a, nu)
    expect_true(all(is.finite(h)))
    expect_lt(max(abs(h / a - 1)), 1e-12)
  }
  # an oracle release with such a value stays finite and equals s a / m
  g <- matrix(c(1e-200, 0, 1e-200, 1), 2, 2)
  got <- oracle_mean(g, "holland", m = 2, s = 1, nu = 1)
  expect_true(all(is.finite(got)))
  expect_equal(got, c(1e-200 / 2, (1e-200 + h_ref(1, 1)) / 2),
               tolerance = 1e-12)
})

# ---- sensitivity ------------------------------------------------------------

# Extreme records; `tiny` adds records with entries 1e-300.
adversaries <- function(d, tiny = TRUE) {
  big <- .Machine$double.xmax
  alt <- rep_len(c(1, -1), d)
  out <- list(rep(1e12, d), rep(-1e12, d), alt * 1e12,
              c(1e12, rep(0, d - 1))[1:d], rep(big, d), alt * big,
              alt * 0.3, rep(3, d), alt * 1e300, c(5e11, -7, rep(2e6, d))[1:d])
  if (tiny) out <- c(out, list(c(-big, rep(1e-300, d - 1))[1:d], rep(1e-300, d)))
  out
}

change <- function(g, a, ...) {
  sqrt(sum((oracle_mean(rbind(g, a), ...) -
              oracle_mean(g, ...))^2))
}

test_that("clip: one added record moves the estimate by at most C / m", {
  set.seed(808)
  for (sh in shapes) {
    g <- heavy_rows(sh$n, sh$d, sh$kind)
    C <- 1.5
    bound <- oracle_setup("clip", dpsco_control(clip = C), sh$m, sh$d,
                                  1, 1e-5)$sensitivity
    expect_equal(bound, C / sh$m, tolerance = 1e-15)
    ch <- vapply(adversaries(sh$d), function(a)
      change(g, a, method = "clip", m = sh$m, clip = C), 0)
    expect_true(all(ch <= bound * (1 + 1e-12)))
    expect_gte(max(ch), 0.999 * bound)   # any record of norm >= C attains it
  }
})

test_that("kamath: one added record moves the estimate by at most rho k sqrt(d) f(k) / (2m)", {
  # f(k) = 1 for odd k, 1/2 for even k (median_factor_ref())
  set.seed(909)
  for (sh in shapes) {
    g <- heavy_rows(sh$n, sh$d, sh$kind)
    for (k in c(1L, 4L, 7L)) {
      rho <- 2
      labels <- sample(0:(k - 1L), sh$n, replace = TRUE)
      bound <- rho * k * sqrt(sh$d) * median_factor_ref(k) / (2 * sh$m)
      worst <- 0
      for (a in adversaries(sh$d)) for (lab in 0:(k - 1L)) {
        new <- oracle_mean(rbind(g, a), "kamath", m = sh$m, rho = rho,
                                   k = k, labels = c(labels, lab))
        old <- oracle_mean(g, "kamath", m = sh$m, rho = rho, k = k,
                                   labels = labels)
        worst <- max(worst, sqrt(sum((new - old)^2)))
      }
      expect_lte(worst, bound * (1 + 1e-12))
      # with one group the median is the group value: the bound is attained
      if (k == 1L) expect_gte(worst, 0.999 * bound)
    }
  }
  # a batch whose groups are spread exactly one step apart: pushing the
  # median group up moves the median by the whole per-coordinate bound
  k <- 5L; d <- 3; rho <- 1; m <- 12
  labels <- rep(0:(k - 1L), times = 1:k)            # group j has j + 1 rows
  g <- matrix(1 + stats::runif(length(labels) * d)^(-1 / 1.5), ncol = d)
  bound <- rho * k * sqrt(d) / (2 * m)
  ch <- vapply(0:(k - 1L), function(lab) {
    new <- oracle_mean(rbind(g, rep(1e12, d)), "kamath", m = m,
                               rho = rho, k = k, labels = c(labels, lab))
    old <- oracle_mean(g, "kamath", m = m, rho = rho, k = k,
                               labels = labels)
    sqrt(sum((new - old)^2))
  }, 0)
  expect_lte(max(ch), bound * (1 + 1e-12))
  expect_gte(max(ch), bound * (1 - 1e-12))
  expect_equal(ch[c(1, 2, 4, 5)], rep(0, 4))
})

test_that("kamath's reported sensitivity is rho k sqrt(d) / (2m), halved for even k", {
  o <- oracle_setup("kamath", dpsco_control(rho = 2, zeta = 0.1),
                            m = 40, d = 6, eps = 1, delta = 1e-5)
  k <- min(ceiling(3 * log(2 * 6 / 0.1)), 40)
  expect_identical(k, 15)                       # odd: the full bound
  expect_identical(o$k, as.integer(k))
  expect_equal(o$sensitivity, 2 * k * sqrt(6) / (2 * 40), tolerance = 1e-15)
  # zeta = 0.3: k = ceiling(3 log 40) = 12 groups, even: half of it
  oe <- oracle_setup("kamath", dpsco_control(rho = 2, zeta = 0.3),
                             m = 40, d = 6, eps = 1, delta = 1e-5)
  expect_identical(oe$k, 12L)
  expect_equal(oe$sensitivity, 2 * 12 * sqrt(6) / (4 * 40), tolerance = 1e-15)
  # the cap at the batch size can make k even too: m = 8 gives k = 8
  oc <- oracle_setup("kamath", dpsco_control(rho = 2, zeta = 0.1),
                             m = 8, d = 6, eps = 1, delta = 1e-5)
  expect_identical(oc$k, 8L)
  expect_equal(oc$sensitivity, 2 * 8 * sqrt(6) / (4 * 8), tolerance = 1e-15)
})

test_that("kamath_median_factor() is 1/2 for even k and 1 for odd k", {
  for (k in 1:40)
    expect_identical(kamath_median_factor(k), median_factor_ref(k),
                     label = paste("k =", k))
  expect_identical(kamath_median_factor(2L), 0.5)
  expect_identical(kamath_median_factor(14L), 0.5)
  expect_identical(kamath_median_factor(1L), 1)
  expect_identical(kamath_median_factor(13L), 1)
})

test_that("the median of k values moves by at most c f(k) when one moves by c, and attains it", {
  # plain R: every value of a random set moved up or down by c, one at a
  # time; the median never moves by more than c / 2 (even k) or c (odd k)
  skip_if(memcheck(), "plain R only: nothing for memcheck to check")
  set.seed(4242)
  for (k in 2:9) {
    worst <- 0
    for (rep in 1:200) {
      v <- stats::rnorm(k) * sample(c(0.1, 1, 10), 1)
      v[sample(k, 2)] <- v[1]             # ties, too
      cc <- stats::rexp(1)
      for (i in seq_len(k)) for (sgn in c(-1, 1)) {
        w <- v
        w[i] <- w[i] + sgn * cc
        worst <- max(worst, abs(stats::median(w) - stats::median(v)) / cc)
      }
    }
    expect_lte(worst, median_factor_ref(k) * (1 + 1e-12))
  }
  # AT the bound, even k: the lower middle value rises by c and stays at or
  # below the upper middle one, so the middle pair moves by c and 0
  v <- c(0, 1, 3, 10)
  cc <- 1.5
  w <- v
  w[2] <- v[2] + cc                       # 2.5 <= 3
  expect_identical(stats::median(w) - stats::median(v), cc / 2)
  # ... and the same with 6 values, pushing the upper middle one up
  v6 <- c(-4, -1, 0, 2, 7, 9)
  w6 <- v6
  w6[4] <- v6[4] + 5                      # 7 <= 7
  expect_identical(stats::median(w6) - stats::median(v6), 2.5)
  # odd k: the median itself moves by all of c
  v5 <- c(-2, 0, 1, 4, 8)
  w5 <- v5
  w5[3] <- v5[3] + 3
  expect_identical(stats::median(w5) - stats::median(v5), 3)
})

test_that("kamath oracle AT the even-k bound: a record moves the estimate by rho k sqrt(d) / (4m)", {
  # k = 4 groups of one row each (m = 4 caps k = ceiling(3 log 60) = 13 at
  # 4), every coordinate inside [-rho/2, rho/2]: group means (per
  # coordinate) -1, -1/2, 1/2, 1 times h = rho/2.  A record at +rho/2 in
  # every coordinate, added to the lower middle group (label 1), lifts that
  # group mean by c = h k / m = h up to the upper middle one: the median
  # moves by c / 2 in every coordinate
  d <- 3; rho <- 2; m <- 4
  o <- oracle_setup("kamath", dpsco_control(rho = rho, zeta = 0.1),
                            m = m, d = d, eps = 1, delta = 1e-5)
  k <- o$k
  expect_identical(k, 4L)
  h <- rho / 2
  vals <- c(-1, -0.5, 0.5, 1) * h
  g <- matrix(rep(vals, d), k, d)
  labels <- 0:3
  cc <- h * k / m
  old <- oracle_mean(g, "kamath", m = m, rho = rho, k = k,
                             labels = labels)
  # plain R: the median of the group means (sums of clamped values * k / m)
  expect_equal(old, rep(stats::median(vals * k / m), d), tolerance = 1e-15)
  new <- oracle_mean(rbind(g, rep(1e6, d)), "kamath", m = m,
                             rho = rho, k = k, labels = c(labels, 1L))
  expect_equal(new, rep(stats::median(c(-1, 0.5, 0.5, 1) * h * k / m), d),
               tolerance = 1e-15)
  expect_equal(new - old, rep(cc / 2, d), tolerance = 1e-12)
  # the change is exactly the reported sensitivity rho k sqrt(d) / (4 m) ...
  expect_equal(sqrt(sum((new - old)^2)), rho * k * sqrt(d) / (4 * m),
               tolerance = 1e-12)
  expect_equal(sqrt(sum((new - old)^2)), o$sensitivity, tolerance = 1e-12)
  # ... half of the odd-k formula's
  expect_equal(2 * o$sensitivity, rho * k * sqrt(d) / (2 * m), tolerance = 1e-12)
})

test_that("holland: one added record moves the estimate by at most 2 sqrt(2) s sqrt(d) / (3m)", {
  set.seed(1010)
  for (sh in shapes) {
    g <- heavy_rows(sh$n, sh$d, sh$kind)
    for (nu in c(sqrt(log(10)), 10)) {
      s <- 0.7
      o <- oracle_setup("holland", dpsco_control(s = s, nu = nu),
                                sh$m, sh$d, 1, 1e-5)
      bound <- 2 * sqrt(2) * s * sqrt(sh$d) / (3 * sh$m)
      expect_equal(o$sensitivity, bound, tolerance = 1e-15)
      ch <- vapply(adversaries(sh$d, tiny = FALSE), function(a)
        change(g, a, method = "holland", m = sh$m, s = s, nu = nu), 0)
      expect_true(all(ch <= bound * (1 + 1e-12)))
      # a huge record reaches (2 Phi(sqrt(nu)) - 1) of the bound: 0.78 / 0.998
      expect_gte(max(ch), if (nu == 10) 0.99 * bound else 0.75 * bound)
    }
  }
})

test_that("holland: a record with tiny entries keeps the release finite and within the bound", {
  # |a| < ~1e-154 overflows u * u in the closed form of E psi(a + bZ)
  set.seed(1111)
  g <- heavy_rows(60, 3, "t2")
  s <- 0.7
  nu <- sqrt(log(10))
  bound <- 2 * sqrt(2) * s * sqrt(3) / (3 * 50)
  ch <- vapply(list(rep(1e-300, 3), c(-1e12, 1e-300, 2e-200)), function(a)
    change(g, a, method = "holland", m = 50, s = s, nu = nu), 0)
  expect_true(all(is.finite(ch)))
  expect_true(all(ch <= bound * (1 + 1e-12)))
})

test_that("the tabulated Holland contribution matches the exact one to 1e-10", {
  set.seed(12)
  a <- c(0, 1e-300, 1e-8, 0.01, 0.05, seq(0.003, 9.997, length.out = 4001),
         10^stats::runif(2000, -4, 300), 1e300, Inf)
  a <- c(a, -a)
  for (nu in c(sqrt(log(10)), 0.01, 0.5, 3, 100, 1e6)) {
    exact <- holland_h(a, nu)
    table <- holland_h(a, nu, tabulated = TRUE)
    ok <- is.finite(a)
    expect_lte(max(abs(table - exact)[ok] / pmax(abs(exact[ok]), 1e-300)), 1e-10)
    expect_equal(table[!ok], exact[!ok], tolerance = 1e-10)
    # never outside the bound the sensitivity uses; odd
    expect_lte(max(abs(table)), psi_max)
    expect_identical(table[seq_len(length(a) / 2)], -table[-seq_len(length(a) / 2)])
  }
  # the limit a -> Inf: only the tails of psi remain
  nu <- 2
  expect_equal(holland_h(1e300, nu, tabulated = TRUE),
               psi_max * (1 - 2 * stats::pnorm(sqrt(nu), lower.tail = FALSE)),
               tolerance = 1e-12)
})

test_that("wide records: every value beyond the cubic region gets the exact h to 1e-12", {
  # The oracle adds the exact cubic of the values up to a_poly in one loop
  # and looks the others up afterwards (|a| up to 8 on the grid in a, beyond
  # on the grid in 8 / |a|).  One record per call (m = 1, s = 1) makes each
  # output coordinate h(a_j) itself; a width of 531 (not a multiple of the
  # blocks the second pass scans) with zeros and values around every regime
  # boundary in random places covers that pass.
  set.seed(77)
  for (nu in c(sqrt(log(10)), 0.5, 1.52, 10, 400)) {
    a_poly <- sqrt(2) / (1 + 10 / sqrt(nu))
    special <- c(a_poly * c(1 - 1e-12, 1 + 1e-12, 1.01), 8 * (1 + c(-1, 1) * 1e-12),
                 7.999, 8.001, 8 * 4096 * c(0.999, 1, 1.001), 1e5, 1e8, 1e300,
                 10^stats::runif(60, -1, 7))
    for (rep in 1:3) {
      a <- numeric(531)
      a[sample.int(531, 2 * length(special))] <- c(special, -special)
      # a record whose flagged values all sit in the last, partial word
      if (rep == 3) a <- c(numeric(528), special[c(4, 8, 12)])
      got <- oracle_mean(matrix(a, 1), "holland", m = 1, s = 1, nu = nu)
      exact <- holland_h(a, nu)
      expect_lte(max(abs(got - exact)), 1e-12)
      expect_lte(max(abs(got)), psi_max)
    }
  }
})

test_that("the oracle release refuses unknown and missing settings fields", {
  g <- matrix(c(1, -2, 0.5, 3, 0, 1), 3)
  s <- list(oracle = 1L, m = 3, clip = 1, rho = 0, k = 1L, s = 1, nu = 1,
            noise_sd = 0, noise_grid = 0)
  mean_of <- function(s) .Call(C_dpsco_oracle_mean, g, s, NULL)
  expect_equal(mean_of(s), oracle_mean(g, "clip", m = 3, clip = 1))
  expect_error(mean_of(c(s, clp = 2)),
               "dpsco_oracle_mean: unknown settings field 'clp'", fixed = TRUE)
  s$clip <- NULL
  expect_error(mean_of(s), "dpsco_oracle_mean: settings field 'clip' is missing",
               fixed = TRUE)
})

# ---- kamath and holland with the L2 clip first ------------------------------
# (their equal-noise settings with private tuning: R/oracle-kamath.R,
# R/oracle-holland.R)

test_that("kamath and holland clip each record to L2 norm C before they truncate", {
  set.seed(1212)
  for (sh in shapes) {
    g <- heavy_rows(sh$n, sh$d, sh$kind)
    g[3, ] <- 1e8
    for (C in c(0.5, 4)) {
      nrm <- sqrt(rowSums(g^2))
      gc <- g * ifelse(nrm > C, C / nrm, 1)
      labels <- sample(0:6, sh$n, replace = TRUE)
      expect_close(oracle_mean(g, "kamath", m = sh$m, clip = C, rho = 2 * C,
                               k = 7L, labels = labels),
                   kamath_ref(gc, sh$m, 2 * C, 7L, labels))
      s <- 3 * C / (2 * sqrt(2))
      expect_close(oracle_mean(g, "holland", m = sh$m, clip = C, s = s, nu = 10),
                   holland_ref(gc, sh$m, s, 10))
      # the clip is active: without it both estimates differ
      expect_gt(max(abs(oracle_mean(g, "holland", m = sh$m, s = s, nu = 10) -
                          holland_ref(gc, sh$m, s, 10))), 1e-6)
    }
  }
})

test_that("holland's s h(a / s) never exceeds |a|, so a clipped record's contributions keep its norm", {
  a <- c(10^seq(-300, 300, by = 0.5), seq(0.01, 5, by = 0.01))
  for (nu in c(sqrt(log(10)), 10, 1e4)) {
    for (tab in c(FALSE, TRUE)) {
      h <- holland_h(c(a, -a), nu, tabulated = tab)
      expect_true(all(abs(h) <= c(a, a)))
    }
  }
})

test_that("kamath and holland with the clip first: one added record moves the estimate by at most C f / m", {
  set.seed(1313)
  for (sh in shapes) {
    g <- heavy_rows(sh$n, sh$d, sh$kind)
    C <- 1.5
    # holland at the equal-noise scale: min(C, 2 sqrt(2) s sqrt(d) / 3) = C
    o <- oracle_setup("holland", list(l2_clip = C, s = 3 * C / (2 * sqrt(2)),
                                      nu = 10), sh$m, sh$d, 1, 1e-5)
    expect_equal(o$sensitivity, C / sh$m, tolerance = 1e-15)
    ch <- vapply(adversaries(sh$d), function(a)
      change(g, a, method = "holland", m = sh$m, clip = C, s = o$s, nu = 10), 0)
    expect_true(all(ch <= o$sensitivity * (1 + 1e-12)))
    expect_gte(max(ch), 0.5 * o$sensitivity)
    # kamath: min(C, rho sqrt(d) / 2) k f(k) / m
    for (k in c(1L, 4L, 7L)) {
      labels <- sample(0:(k - 1L), sh$n, replace = TRUE)
      o <- oracle_setup("kamath", list(l2_clip = C, rho = 2 * C, kmom = 2,
                                       zeta = 0.1), sh$m, sh$d, 1, 1e-5)
      expect_equal(o$sensitivity, C * o$k * median_factor_ref(o$k) / sh$m,
                   tolerance = 1e-15)
      bound <- C * k * median_factor_ref(k) / sh$m
      worst <- 0
      for (a in adversaries(sh$d)) for (lab in 0:(k - 1L)) {
        new <- oracle_mean(rbind(g, a), "kamath", m = sh$m, clip = C,
                           rho = 2 * C, k = k, labels = c(labels, lab))
        old <- oracle_mean(g, "kamath", m = sh$m, clip = C, rho = 2 * C,
                           k = k, labels = labels)
        worst <- max(worst, sqrt(sum((new - old)^2)))
      }
      expect_lte(worst, bound * (1 + 1e-12))
      if (k == 1L) expect_gte(worst, 0.999 * bound)
    }
  }
})
