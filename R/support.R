# The support of a private penalised path (post-processing).
#
# A coefficient of a noisy optimiser's output is the solution's value plus
# the noise the optimiser carried into it.  Its noise sd follows from
# released or public values only: the sd `s` of the Gaussian noise added
# to every gradient coordinate at each step (z times the sensitivity), the
# step size, the released curvature A, the memory of the Newton path, the
# number of steps and the iterates averaged.  A penalised coefficient
# within `level` noise sds of 0 is set to exactly 0: a selected variable is
# then one the data moved beyond the noise, as a statistician reads a
# lasso's support.  The rule reads no data, so it costs no budget.
#
# The noise is propagated through the optimiser linearised about the
# path's solution, in the eigenbasis of the released curvature A, where
# the directions are independent (the gradient noise is isotropic).  A is
# the loss's curvature estimate plus a ridge r on every eigenvalue, so the
# loss's curvature in a direction of eigenvalue a is h = (a - r) / eta for
# "newton" (whose model is A / eta) and h = a - r for "spgd".  Per
# direction, step t, with n_t the fresh noise (sd s):
#   "newton"  the step's gradient error eps_t = w c_(t-1) + (1 - w) n_t
#             (w the memory, none at the path's first step; c the error of
#             the carried estimate), the iterate's deviation
#             x_t = x_(t-1) - (eta / a) (h x_(t-1) + eps_t), and the carried
#             error c_t = eps_t + (r / eta) (x_t - x_(t-1)) (the model's
#             curvature a / eta against the loss's h);
#   "spgd"    x_t = (1 - gamma_t h) x_(t-1) + gamma_t n_t;
# the running (tail) average m_t = (1 - b_t) m_(t-1) + b_t x_t with
# b_t = 1 / (t - tail_from) in the tail, and the next lambda started from
# the output (warm start; "newton" carries c to it by the model).  A
# direction the ridge alone holds (a = r, e.g. an all-zero column) does
# not contract: its deviation is the random walk of the noisy steps.
# Without a released curvature (public tuning, wide data: "spgd" only)
# nothing tells how fast a direction contracts; the rule then takes each
# iterate to carry its own step's noise alone (step size times the
# gradient noise, averaged over the tail): a lower bound on the sd where
# the loss is flat, so a milder rule there.  (The random walk of every
# direction would zero every coefficient of a long path.)

# The output's noise sd per coordinate (rows, intercept first when
# present) and lambda (columns), in the units of the coefficients the
# engine returns.  `curvature`: the released A or NULL; `ridge`: the ridge
# r in it.
support_sd <- function(noise_sd, optimizer, step_size, curvature, ridge,
                       memory, steps, nlambda, output, sqrt_schedule = FALSE,
                       d) {
  flat <- is.null(curvature)
  if (flat) {
    vals <- 0
    vecs2 <- matrix(1, d, 1L)
  } else {
    ev <- eigen(curvature, symmetric = TRUE)
    vals <- pmax(ev$values, ridge)
    vecs2 <- ev$vectors^2
  }
  newton <- optimizer == "newton"
  w <- if (newton) memory else 0
  # newton's steps are averaged over their tail always; spgd's by `output`
  tail_from <- if (newton || output == "tail") steps %/% 2L else 0L
  last <- output == "last"
  k <- length(vals)
  zero <- rep(0, k)
  # the covariance of the state (c, x, m) per direction, S[[i]][[j]]
  S <- lapply(1:3, function(i) lapply(1:3, function(j) zero))
  # S <- F S F' + G G' (F, G lists of vectors over the directions)
  propagate <- function(S, F, G) {
    FS <- lapply(1:3, function(i) lapply(1:3, function(j)
      F[[i]][[1]] * S[[1]][[j]] + F[[i]][[2]] * S[[2]][[j]] +
        F[[i]][[3]] * S[[3]][[j]]))
    lapply(1:3, function(i) lapply(1:3, function(j)
      FS[[i]][[1]] * F[[j]][[1]] + FS[[i]][[2]] * F[[j]][[2]] +
        FS[[i]][[3]] * F[[j]][[3]] + G[[i]] * G[[j]]))
  }
  if (newton) {
    u <- ridge / vals          # the share of a step a direction keeps
    kap <- step_size / vals
    q <- ridge / step_size
  }
  var_out <- matrix(0, k, nlambda)
  first <- TRUE
  for (l in seq_len(nlambda)) {
    for (t in seq_len(steps)) {
      b <- if (t > tail_from) 1 / (t - tail_from) else 0
      if (newton) {
        wt <- if (first) 0 else w
        F <- list(list(wt * (1 - u), q * (u - 1), zero),
                  list(-kap * wt, u, zero),
                  list(-b * kap * wt, b * u, zero + 1 - b))
        G <- list((1 - wt) * (1 - u), -kap * (1 - wt), -b * kap * (1 - wt))
      } else {
        g <- if (sqrt_schedule) step_size / sqrt(t) else step_size
        rho <- if (flat) zero else 1 - g * (vals - ridge)
        F <- list(list(zero, zero, zero), list(zero, rho, zero),
                  list(zero, b * rho, zero + 1 - b))
        G <- list(zero, zero + g, zero + b * g)
      }
      first <- FALSE
      S <- propagate(S, F, G)
    }
    if (!last) {
      # the output, the average, is the next lambda's start; newton's
      # carried estimate moves with it by the model
      one <- zero + 1
      qq <- if (newton) q else zero
      S <- propagate(S, list(list(one, -qq, qq), list(zero, zero, one),
                             list(zero, zero, one)), list(zero, zero, zero))
    }
    var_out[, l] <- S[[2]][[2]]
  }
  noise_sd * sqrt(vecs2 %*% var_out)
}

# Zero the penalised coefficients of `beta` (d x nlambda, the engine's
# units) within `level` times their noise sd `sd`.  Intercept and columns
# with penalty factor 0 are never zeroed: the user asked for them.
support_threshold <- function(beta, sd, level, intercept, pf) {
  rows <- which(pf > 0) + intercept
  b <- beta[rows, , drop = FALSE]
  b[abs(b) <= level * sd[rows, , drop = FALSE]] <- 0
  beta[rows, ] <- b
  beta
}

# The support rule of a fitted path: the thresholded beta and the record
# the fit keeps (fit$support), or the path unchanged for `support =
# "none"` and for noiseless fits.
apply_support <- function(beta, control, noise_sd, optimizer, step_size,
                          curvature, ridge, steps, output, intercept, pf) {
  rule <- control$support %||% "noise"
  if (rule == "none" || !(noise_sd > 0))
    return(list(beta = beta, record = NULL))
  level <- control$support_level
  memory <- if (optimizer == "newton") control$memory else 0
  ridge <- if (is.null(curvature)) 0 else ridge
  sd <- support_sd(noise_sd, optimizer, step_size, curvature, ridge, memory,
                   steps, ncol(beta), output,
                   identical(control$schedule, "sqrt"), nrow(beta))
  list(beta = support_threshold(beta, sd, level, intercept, pf),
       record = list(rule = "noise", level = level, sd = sd, raw = beta,
                     noise_sd = noise_sd, optimizer = optimizer,
                     step_size = step_size, curvature = curvature,
                     ridge = ridge,
                     memory = memory, steps = steps, output = output))
}
