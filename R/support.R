# The support of a private penalised path (post-processing).
#
# A coefficient of a noisy optimiser's output is the solution's value plus
# the noise the optimiser carried into it.  Its noise sd follows from
# released or public values only: the sd `s` of the Gaussian noise added
# to every gradient coordinate at each step (z times the sensitivity), the
# step size, the released curvature A, the memory of the Newton path, the
# number of steps and the iterates averaged.  A penalised coefficient
# within `level` noise sds of 0 is set to exactly 0 (by backward
# elimination, each tested in the model the earlier drops left:
# stepwise_support()): a selected variable is then one the data moved
# beyond the noise, as a statistician reads a lasso's support.  The rule
# reads no data, so it costs no budget.
#
# The noise is propagated through the optimiser linearised about the
# path's solution, under the quadratic model the optimiser itself uses
# (the loss's Hessian is A / eta for "newton", A for "spgd"), in the
# eigenbasis of A, where the directions are independent (the gradient
# noise is isotropic).  Per direction with eigenvalue a, step t:
#   e_t = w e_(t-1) + (1 - w) n_t     the gradient error used (n_t the
#                                     fresh noise, w the Newton memory; the
#                                     path's first step has no memory)
#   x_t = rho_t x_(t-1) + kappa_t e_t  the iterate's deviation: "newton"
#                                     rho = 0, kappa = eta / a; "spgd"
#                                     rho = 1 - gamma_t a, kappa = gamma_t
#   m_t = (1 - b_t) m_(t-1) + b_t x_t  the running (tail) average,
#                                     b_t = 1 / (t - tail_from) in the tail
# with the next lambda started from its output (warm start).  Without a
# released curvature (public tuning, wide data: "spgd" only) nothing tells
# how fast a direction contracts; the rule then takes each iterate to carry
# its own step's noise alone (rho = 0, kappa = gamma_t), step size times
# the gradient noise averaged over the tail: a lower bound on the sd where
# the loss is flat, so a milder rule there.  (The random walk of a flat
# direction, rho = 1, would zero every coefficient of a long path.)

# The output's noise sd per coordinate (rows, intercept first when
# present) and lambda (columns), in the units of the coefficients the
# engine returns; with a released curvature (one class) also the
# directions' variances per lambda and A's eigenvectors, as the
# attributes "var" and "vectors", from which the noise covariance
# follows.  `curvature`: the released A or NULL; its eigen
# decomposition, when the settings formed one (curvature_matrix()), as the
# attribute "eigen" saves a second one.
support_sd <- function(noise_sd, optimizer, step_size, curvature, memory,
                       steps, nlambda, output, sqrt_schedule = FALSE, d,
                       classes = NULL) {
  flat <- is.null(curvature)
  if (flat) {
    vals <- 0
    vecs2 <- matrix(1, d, 1L)
  } else {
    ev <- attr(curvature, "eigen") %||% eigen(curvature, symmetric = TRUE)
    vals <- pmax(ev$values, 0)
    vecs2 <- ev$vectors^2
    if (!is.null(classes))
      # the eigenvalues of S (x) A, the (A, S) pairs in the order of the
      # coefficients' class blocks
      vals <- as.vector(outer(vals, pmax(classes$values, 0)))
  }
  newton <- optimizer == "newton"
  w <- if (newton) memory else 0
  # newton's steps are averaged over their tail always; spgd's by `output`
  tail_from <- if (newton || output == "tail") steps %/% 2L else 0L
  last <- output == "last"
  k <- length(vals)
  # the covariance of (e, x, m) per direction: 6 vectors
  ee <- ex <- em <- xx <- xm <- mm <- numeric(k)
  var_out <- matrix(0, k, nlambda)
  first <- TRUE
  for (l in seq_len(nlambda)) {
    for (t in seq_len(steps)) {
      g <- if (sqrt_schedule && !newton) step_size / sqrt(t) else step_size
      rho <- if (newton || flat) rep(0, k) else 1 - g * vals
      kap <- if (newton) step_size / vals else rep(g, k)
      wt <- if (first) 0 else w
      first <- FALSE
      b <- if (t > tail_from) 1 / (t - tail_from) else 0
      # (e, x, m) <- F (e, x, m) + G n, F lower triangular
      f11 <- wt
      f21 <- kap * wt; f22 <- rho
      f31 <- b * f21;  f32 <- b * rho; f33 <- 1 - b
      g1 <- 1 - wt; g2 <- kap * g1; g3 <- b * g2
      n_ee <- f11^2 * ee + g1^2
      n_ex <- f11 * (f21 * ee + f22 * ex) + g1 * g2
      n_em <- f11 * (f31 * ee + f32 * ex + f33 * em) + g1 * g3
      n_xx <- f21^2 * ee + 2 * f21 * f22 * ex + f22^2 * xx + g2^2
      n_xm <- f21 * (f31 * ee + f32 * ex + f33 * em) +
        f22 * (f31 * ex + f32 * xx + f33 * xm) + g2 * g3
      n_mm <- f31^2 * ee + f32^2 * xx + f33^2 * mm + 2 * f31 * f32 * ex +
        2 * f31 * f33 * em + 2 * f32 * f33 * xm + g3^2
      ee <- n_ee; ex <- n_ex; em <- n_em; xx <- n_xx; xm <- n_xm; mm <- n_mm
    }
    if (!last) {
      # the output, the average, is the next lambda's start
      ex <- em; xx <- mm; xm <- mm
    }
    var_out[, l] <- xx
  }
  if (flat || is.null(classes))
    return(structure(noise_sd * sqrt(vecs2 %*% var_out),
                     var = if (!flat) var_out, vectors = if (!flat) ev$vectors))
  # the squared basis of S (x) A is the product of the squared bases, so
  # its map of the variances is A's on one side and S's on the other,
  # without the (K d)^2 matrix
  # the releases' component along the sum over classes is taken out
  # (src/pass.c): a direction of S's basis keeps the share
  # 1 - (1'u)^2 / K of the noise
  K <- ncol(classes$vectors)
  keep <- pmax(1 - colSums(classes$vectors)^2 / K, 0)
  s2 <- classes$vectors^2
  noise_sd * sqrt(apply(var_out, 2L, function(v)
    as.vector(vecs2 %*% (matrix(v, nrow(vecs2)) * rep(keep, each = nrow(vecs2))) %*%
                t(s2))))
}

# The support rule of a penalised path: one block of coefficients, or
# `nclass` blocks with the class matrix of a multinomial model.  (A ridge,
# alpha = 0, has no sparsity for the rule to act on: every coefficient
# stays.)
path_support <- function(beta, control, noise_sd, optimizer, step_size,
                         curvature, steps, output, intercept, pf, alpha,
                         nclass = 1L, class_matrix = NULL) {
  if (alpha == 0) return(list(beta = beta, record = NULL))
  if (nclass > 1L)
    return(apply_support_classes(beta, control, noise_sd, optimizer,
                                 step_size, curvature, steps, output,
                                 intercept, pf, nclass, class_matrix))
  apply_support(beta, control, noise_sd, optimizer, step_size, curvature,
                steps, output, intercept, pf)
}

# The support rule of a fitted path: the thresholded beta and the record
# the fit keeps (fit$support), or the path unchanged for `support =
# "none"` and for noiseless fits.
apply_support <- function(beta, control, noise_sd, optimizer, step_size,
                          curvature, steps, output, intercept, pf) {
  rule <- control$support %||% "noise"
  if (rule == "none" || !(noise_sd > 0))
    return(list(beta = beta, record = NULL))
  level <- control$support_level
  memory <- if (optimizer == "newton") control$memory else 0
  sd <- support_sd(noise_sd, optimizer, step_size, curvature, memory, steps,
                   ncol(beta), output, identical(control$schedule, "sqrt"),
                   nrow(beta))
  rows <- which(pf > 0) + intercept
  var <- attr(sd, "var")
  stepwise <- rule == "noise" && !is.null(var)
  if (stepwise) {
    out <- stepwise_support(beta, rows, level, curvature, noise_sd, sd)
  } else {
    keep <- abs(beta[rows, , drop = FALSE]) > level * sd[rows, , drop = FALSE]
    out <- drop_features(beta, keep, rows, curvature)
  }
  attr(sd, "var") <- attr(sd, "vectors") <- NULL
  list(beta = out,
       record = list(rule = if (stepwise) "stepwise" else "marginal",
                     level = level, sd = sd, raw = beta,
                     noise_sd = noise_sd, optimizer = optimizer,
                     step_size = step_size,
                     curvature = if (!is.null(curvature))
                       structure(curvature, eigen = NULL),
                     memory = memory, steps = steps, output = output))
}

# The rule by backward elimination, per lambda: the penalised
# coefficients beyond `level` sds in the full model stay (the marginal
# rule's support); among the others, the one least beyond its noise is
# dropped while it is within `level` sds, the others take over its part
# of the linear predictor (as drop_features(): b_R + A_RR^-1 A_Rj b_j),
# and the noise covariance of those that remain is carried through the
# same map before the next is tested.  (A coefficient that passes in the
# full model can fall within the level after the others' transfers, whose
# noise the map adds to it: a true effect of 1.5 in a 300-record logistic
# fit went that way; so the elimination only adds to the marginal
# support.)  Correlated columns whose signal is in their
# combination each lie within the noise of the full model (every one of
# them could be replaced by the others); once the others are gone the one
# left carries the combination with its own, smaller noise, and stays.
# With a diagonal curvature this is the one-shot rule.  `sd`:
# support_sd()'s result, the marginal sds, whose attributes give the
# noise covariance of the coefficients, noise_sd^2 V diag(var) V' (the
# directions of A are independent).
stepwise_support <- function(beta, rows, level, curvature, noise_sd, sd) {
  vectors <- attr(sd, "vectors")
  var <- attr(sd, "var")
  pen <- seq_len(nrow(beta)) %in% rows
  for (l in seq_len(ncol(beta))) {
    s <- which(beta[, l] != 0)
    # what passes in the full model stays (the marginal rule's support);
    # the elimination decides on the rest
    keep <- abs(beta[s, l]) > level * sd[s, l] | !pen[s]
    if (all(keep)) next
    if (length(s) > stepwise_max()) {
      # O(k^3) in the k non-zeros: beyond the cap, one test each
      beta[, l] <- drop_features(beta[, l, drop = FALSE],
                                 matrix(keep[pen[s]]), s[pen[s]], curvature)
      next
    }
    w <- vectors[s, , drop = FALSE] * rep(sqrt(var[, l]), each = length(s))
    beta[s, l] <- .Call(C_dpsco_eliminate, as.double(beta[s, l]), !keep,
                        as.double(level),
                        chol2inv(chol(curvature[s, s, drop = FALSE])),
                        noise_sd^2 * tcrossprod(w))
  }
  beta
}

# The most non-zero coefficients of one lambda that stepwise_support()
# eliminates one by one (about 0.1 s per lambda at the cap); a lambda
# with more gets the marginal rule.
stepwise_max <- function() 500L

# Zero the penalised rows `rows` of one class's block b (d x nlambda)
# where `keep` (length(rows) x nlambda) is FALSE: the penalised
# coefficients within `level` times their noise sd (intercept and columns
# with penalty factor 0 are never zeroed: the user asked for them).  With
# a released curvature A (the second moments of the rows, the metric of
# the linear predictor's changes) the coefficients still in the model take
# over what the dropped ones predicted, as far as A tells: for the dropped
# set D and the non-zero rest R (intercept included), b_R + A_RR^-1 A_RD b_D, the
# change of b_R that brings the predictor closest to its value before the
# drop.  Correlated features' coefficients carry large noise that cancels
# in the predictions; dropping one without this would undo the
# cancellation, and x is not centred: a dropped coefficient's share of the
# mean prediction goes to the intercept (cps's raw wage, epsilon 2: the
# path's middle penalties kept no slope and predicted 1.7 times the null
# model's RMSE, their intercepts fitted next to slopes the rule then
# dropped).  Post-processing of released values.
drop_features <- function(b, keep, rows, curvature) {
  for (l in seq_len(ncol(b))) {
    drop <- rows[!keep[, l] & b[rows, l] != 0]
    if (!length(drop)) next
    rest <- setdiff(which(b[, l] != 0), drop)
    # (the released curvature is positive definite: a Cholesky solve)
    if (!is.null(curvature) && length(rest)) {
      u <- chol(curvature[rest, rest, drop = FALSE])
      b[rest, l] <- b[rest, l] +
        backsolve(u, backsolve(u, curvature[rest, drop, drop = FALSE] %*%
                                 b[drop, l], transpose = TRUE))
    }
    b[drop, l] <- 0
  }
  b
}

# The rule on a multinomial path.  With the Newton path's model
# S (x) A / eta (S the class matrix, NULL for "spgd") the noise propagates
# in the eigenbasis of S (x) A, the products of the two bases, with the
# products of their eigenvalues (support_sd()'s `classes`).  A feature is
# then kept in every class or zeroed in all: it is in the model when any
# class's coefficient stands out of its noise, as a multinomial lasso
# selects variables.
apply_support_classes <- function(beta, control, noise_sd, optimizer,
                                  step_size, curvature, steps, output,
                                  intercept, pf, nclass, class_matrix) {
  rule <- control$support %||% "noise"
  if (rule == "none" || !(noise_sd > 0))
    return(list(beta = beta, record = NULL))
  level <- control$support_level
  memory <- if (optimizer == "newton") control$memory else 0
  classes <- if (!is.null(class_matrix) && !is.null(curvature))
               eigen(class_matrix, symmetric = TRUE)
  sd <- support_sd(noise_sd, optimizer, step_size, curvature, memory, steps,
                   ncol(beta), output, identical(control$schedule, "sqrt"),
                   nrow(beta) / nclass, classes)
  if (is.null(classes)) sd <- sd[rep(seq_len(nrow(sd)), nclass), , drop = FALSE]
  d <- nrow(beta) / nclass
  rows <- which(pf > 0) + intercept
  keep <- Reduce(`|`, lapply(seq_len(nclass), function(k) {
    r <- (k - 1L) * d + rows
    abs(beta[r, , drop = FALSE]) > level * sd[r, , drop = FALSE]
  }))
  out <- beta
  for (k in seq_len(nclass)) {
    r <- (k - 1L) * d + seq_len(d)
    out[r, ] <- drop_features(beta[r, , drop = FALSE], keep, rows,
                              curvature)
  }
  list(beta = out,
       record = list(rule = "marginal", level = level, sd = sd, raw = beta,
                     noise_sd = noise_sd, optimizer = optimizer,
                     step_size = step_size,
                     curvature = if (!is.null(curvature))
                       structure(curvature, eigen = NULL),
                     class_matrix = class_matrix,
                     memory = memory, steps = steps, output = output))
}
