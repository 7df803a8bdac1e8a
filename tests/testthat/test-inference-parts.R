# The pieces of the inference stage (R/inference-parts.R): every record's
# clipped terms within the norms the sensitivities state, at records on
# the edges of the input domain; the releases' noise as stated; the
# histogram quantiles; the whitenings; the clip rules.

edge_design <- function(seed) {
  set.seed(seed)
  w <- cbind(1, matrix(rnorm(60 * 2), 60, 2))
  # a huge row, a row of the largest doubles, a zero row
  rbind(w, c(1, 1e150, -1e150), c(1, 1.7e308, 1.7e308), c(1, 0, 0))
}

test_that("every record's clipped score, bread and meat terms stay within their clips", {
  w <- edge_design(1)
  rn <- row_norms(w)
  expect_true(all(is.finite(rn$norm)))
  expect_true(all(is.finite(rn$ws)))
  # the row that overflows is set to 0: it adds nothing
  expect_identical(rn$norm[62], 0)
  ys <- list(gaussian = c(rnorm(60), -1e300, 1e300, 1e12),
             binomial = c(rbinom(60, 1, 0.5), 1, 0, 1),
             poisson = c(rpois(60, 2), 1e6, 0, 1e300))
  for (nm in names(ys)) {
    fam <- family_object(nm)
    for (b in list(c(0.2, 0.5, -0.5), c(800, 1e200, -1e200))) {
      tm <- inference_terms(fam, drop(w %*% b), ys[[nm]])
      expect_true(all(is.finite(tm$psi)) && all(is.finite(tm$d)), info = nm)
      clip <- 2.5
      psi <- clip_psi(tm$psi, rn, clip)
      expect_true(all(abs(psi) * rn$norm <= clip), info = nm)
      d <- clip_d(tm$d, rn, 7)
      expect_true(all(d * rn$norm^2 <= 7), info = nm)
      expect_true(all(is.finite(psi)) && all(is.finite(d)), info = nm)
      # the clip leaves a record inside it as it is
      inside <- abs(tm$psi) * rn$norm < clip * (1 - 1e-9)
      expect_equal(psi[inside], tm$psi[inside])
    }
  }
})

test_that("the glm terms are the score residual and the variance", {
  eta <- c(-2, 0, 1.5)
  y <- c(0, 1, 3)
  g <- inference_terms(family_object("gaussian"), eta, y)
  expect_equal(g$psi, y - eta)
  expect_equal(g$d, c(1, 1, 1))
  b <- inference_terms(family_object("binomial"), eta, c(0, 1, 1))
  expect_equal(b$psi, c(0, 1, 1) - plogis(eta))
  expect_equal(b$d, plogis(eta) * (1 - plogis(eta)))
  p <- inference_terms(family_object("poisson"), eta, y, weights = c(1, 0.5, 0))
  expect_equal(p$psi, (y - exp(eta)) * c(1, 0.5, 0))
  expect_equal(p$d, exp(eta) * c(1, 0.5, 0))
})

test_that("the releases carry the noise of their stated sensitivities", {
  set.seed(5)
  n <- 300
  rn <- row_norms(cbind(1, matrix(rnorm(n * 2), n, 2)))
  psi <- rnorm(n)
  d <- runif(n)
  z <- 3
  sc <- replicate(3000, stage_score(rn, psi, 1.5, z, n)$value)
  expect_equal(apply(sc, 1, sd), rep(z * 1.5 / n, 3), tolerance = 0.05)
  br <- replicate(3000, stage_bread(rn, d, 4, z, n)$value[2, 3])
  expect_equal(sd(br), z * 4 / n, tolerance = 0.05)
  mt <- replicate(3000, stage_meat(rn, psi, 1.5, z, n)$value[1, 1])
  expect_equal(sd(mt), z * 1.5^2 / n, tolerance = 0.05)
  # without noise the releases are the clipped sums themselves
  pc <- clip_psi(psi, rn, 1.5)
  expect_equal(stage_score(rn, psi, 1.5, 0, n)$value,
               drop(crossprod(rn$ws, pc)) / n, tolerance = 1e-14)
  expect_equal(stage_bread(rn, d, 4, 0, n)$value,
               crossprod(rn$ws * clip_d(d, rn, 4), rn$ws) / n,
               tolerance = 1e-14)
  expect_equal(stage_meat(rn, psi, 1.5, 0, n)$value,
               crossprod(rn$ws * pc) / n, tolerance = 1e-14)
  # the released matrices are symmetric
  h <- stage_bread(rn, d, 4, z, n)$value
  expect_identical(h, t(h))
})

test_that("pooled releases are weighted by their precision", {
  a <- list(value = matrix(1, 2, 2), sd = 1)
  b <- list(value = matrix(4, 2, 2), sd = 2)
  p <- pool_releases(list(a, b))
  expect_equal(p$value, matrix((1 * 1 + 4 / 4) / (1 + 1 / 4), 2, 2))
  expect_equal(p$sd, 1 / sqrt(1 + 1 / 4))
})

test_that("floor_eigen floors the spectrum and gives the inverse root", {
  set.seed(3)
  m <- crossprod(matrix(rnorm(16), 4, 4))
  f <- floor_eigen(m, 0.5)
  ev <- eigen(m, symmetric = TRUE)$values
  expect_equal(eigen(f, symmetric = TRUE)$values, pmax(ev, 0.5),
               tolerance = 1e-10)
  r <- attr(f, "isqrt")
  expect_equal(r %*% f %*% r, diag(4), tolerance = 1e-10)
  expect_equal(noise_norm(0.1, 9), 0.6)
})

test_that("octave quantiles without noise land within a quarter octave", {
  set.seed(4)
  v <- list(exp(rnorm(5000)), abs(rt(5000, 3)), rexp(5000) * 1e-3)
  for (tau in c(0.01, 0.1, 0.32, 0.5)) {
    q <- octave_quantiles(v, tau, 0, 5000)
    ref <- vapply(v, quantile, 0, 1 - tau, names = FALSE)
    expect_lt(max(abs(log2(q / ref))), 0.25)
  }
})

test_that("octave quantiles with noise keep the bins a threshold would drop", {
  # at n = 5,000 and a count sd of 60, the 0.9 quantile of a spread-out
  # tail, whose bins hold 100 to 300 records each (reading only the
  # counts that clear the noise put it 0.76 octaves low)
  set.seed(6)
  v <- list(exp(rnorm(5000, sd = 1.5)))
  ref <- quantile(v[[1]], 0.9, names = FALSE)
  q <- replicate(200, octave_quantiles(v, 0.1, 60, 5000))
  expect_lt(abs(median(log2(q / ref))), 0.15)
  expect_lt(sd(log2(q / ref)), 0.35)
})

test_that("whitenings resolve the weak direction of a collinear pair", {
  # columns correlated 0.995: a curvature of 0.005 against noise of 0.05,
  # the three whitenings bring it to about 1
  set.seed(7)
  n <- 20000
  z1 <- rnorm(n)
  w <- cbind(1, z1, 0.995 * z1 + sqrt(1 - 0.995^2) * rnorm(n))
  fam <- family_object("gaussian")
  s <- list(fam = fam, w = w, d = 3, n = n,
            z = c(rows = 40, whiten = 30),
            terms = function(b) inference_terms(fam, drop(w %*% b), rnorm(n)))
  wh <- stage_whitenings(s, c(0, 0, 0))
  h <- crossprod(w %*% wh$tw) / n
  ev <- eigen(h, symmetric = TRUE)$values
  expect_gt(min(ev), 0.4)
  expect_lt(max(ev), 2.5)
  # one whitening alone leaves it unresolved
  t0 <- stage_whiten(row_norms(w), s$terms(c(0, 0, 0)),
                     octave_quantiles(list(rowSums(w^2)), 0.02, 40, n), 30, n)
  expect_lt(min(eigen(crossprod(w %*% t0) / n, symmetric = TRUE)$values), 0.3)
})

test_that("the clip rules follow their noise budgets and bounds", {
  # the bread: the largest clip within [4 d, 30 d] whose noise norm is 0.3
  expect_equal(bread_clip(4, 20, 20000), 0.3 * 20000 / (2 * 20 * 2))
  expect_equal(bread_clip(4, 10, 100), 16)
  expect_equal(bread_clip(4, 1e-3, 20000), 120)
  # the meat: within [8, 14] units, noise norm at most 0.7 of its scale
  k <- sqrt(0.7 * 20000 / (2 * 10 * 2))
  expect_equal(meat_clip(0.5, 4, 10, 20000), 0.5 * min(14, max(8, k)))
  # inference = "heavy_tails": within [8, 28] units at four times the noise
  k4 <- sqrt(2.8 * 20000 / (2 * 10 * 2))
  heavy <- list(clip = c(8, 28), noise = 2.8)
  expect_equal(meat_clip(0.5, 4, 10, 20000, heavy), 0.5 * min(28, max(8, k4)))
  expect_equal(meat_clip(0.5, 4, 1, 20000, heavy), 0.5 * 28)
  expect_equal(meat_clip(0.5, 4, 10, 20000, heavy) / meat_clip(0.5, 4, 10, 20000), 2)
  # the final clip: sqrt(n) / z, at least 20, none without noise
  expect_equal(final_clip(5, 20000), sqrt(20000) / 5)
  expect_equal(final_clip(50, 20000), 20)
  expect_identical(final_clip(0, 20000), Inf)
})

test_that("the levels: the score unit from the 0.9 quantile, the median row", {
  set.seed(8)
  n <- 20000
  ws <- matrix(rnorm(n * 4), n, 4)
  rn <- row_norms(ws)
  psi <- rep(2, n)
  lv <- stage_levels(rn, list(psi = psi), 0, n)
  # a standard normal 4-vector times 2: a unit of 2 (within the octave
  # histogram's reading, a quarter octave)
  expect_lt(abs(log2(lv[["unit"]] / 2)), 0.3)
  expect_lt(abs(log2(lv[["rows"]] / sqrt(qchisq(0.5, 4)))), 0.3)
})
