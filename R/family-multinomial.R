# The multinomial (softmax) family and its class helpers.

# softmax of the rows of eta (a matrix, or a vector of one row), by the
# largest entry so that nothing overflows.
softmax_rows <- function(eta) {
  if (!is.matrix(eta)) eta <- matrix(eta, 1L)
  e <- exp(eta - row_max(eta))
  e / rowSums(e)
}

# The largest entry of each row (max.col() finds it in C; a row with a
# NaN gives NaN).
row_max <- function(m) m[cbind(seq_len(nrow(m)), max.col(m, "first"))]

# The n x K indicators of y's classes, coded 0 to K - 1.
class_indicators <- function(y, K) {
  out <- matrix(0, length(y), K)
  out[cbind(seq_along(y), y + 1L)] <- 1
  out
}

# The multinomial (softmax) model of K classes, glmnet's "multinomial"
# with its symmetric parametrisation: one coefficient block per class,
# each penalised.  Its per-record gradient r_i (x) (1, x_i) has
# r_i = softmax(eta_i) - e_(y_i), of norm at most sqrt(2), and its Hessian
# (diag(p) - p p') (x) (1, x)(1, x)', which at the start b0 (every record
# at the class shares p) the Newton path's model S (x) A takes whole.  Functions of eta take an n x K matrix
# (or a K vector standing for every row); y is coded 0 to K - 1.
family_multinomial <- function(nclass = NULL) {
  # the class shares at b0 (the intercepts; equal without intercept)
  shares <- function(b0, intercept)
    if (intercept) drop(softmax_rows(b0)) else rep(1 / length(b0), length(b0))
  # the Hessian's class factor at b0, diag(p) - p p', made positive
  # definite along the one direction where it is 0 (all classes moved
  # alike, on which the loss does not depend and which the engine takes
  # out of every release) by its mean eigenvalue
  class_factor <- function(b0, intercept) {
    pr <- shares(b0, intercept)
    K <- length(pr)
    s0 <- diag(pr, K) - pr %o% pr
    s0 + sum(diag(s0)) / K^2
  }
  top <- function(m) max(eigen(m, symmetric = TRUE, only.values = TRUE)$values)
  loss <- function(eta, y) {
    if (!is.matrix(eta)) eta <- matrix(eta, length(y), length(eta), byrow = TRUE)
    top <- row_max(eta)
    top + log(rowSums(exp(eta - top))) - eta[cbind(seq_along(y), y + 1L)]
  }
  new_family("multinomial", label = "multinomial",
             model = "multinomial logistic", nclass = nclass,
             settings = family_settings("multinomial", nclass = nclass %||% 2L),
             multi = TRUE,
             residual = function(eta, y) {
               pr <- softmax_rows(eta)
               ind <- class_indicators(y, ncol(pr))
               if (nrow(pr) == 1L) pr <- pr[rep(1L, length(y)), , drop = FALSE]
               pr - ind
             },
             loss = loss, eval_loss = loss,
             curvature = 1 / 2, step_curvature = 0.5,
             bounded = TRUE, slope_bound = sqrt(2),
             residual_bound = function(error_bound) sqrt(2),
             clip_bounds_error = TRUE, quadratic = FALSE,
             null_risk_bound = function(offset) log(nclass %||% 2L),
             inverse_link = softmax_rows, classes = TRUE,
             # the log shares kept off 0 by 1 / (n + 2), centred (the
             # symmetric parametrisation's intercepts sum to 0)
             start = function(centre, n) {
               b <- log(pmax(centre, 1 / (n + 2)))
               b - mean(b)
             },
             # the shares of the K classes: the sum of the indicators over
             # the public n, one record moving it by e_(y_i), of norm 1
             centre_release = function(y, z, n) {
               # K is the number of declared classes, never read from y
               est <- class_counts(y, nclass) / n
               sens <- 1 / n
               est <- release(est, z, sens)
               list(estimate = est, noise_sd = z * sens, sensitivity = sens)
             },
             measures = c("deviance", "class"),
             assess_measures = c("deviance", "class", "mse", "mae"),
             radius_top = 1000,
             null_residual = multinomial_null_residual(nclass),
             null_eta = function(y, weights, offset) {
               K <- nclass
               share <- vapply(seq_len(K), function(k) sum(weights[y == k - 1L]), 0)
               eta <- matrix(log(pmax(share / sum(weights), 1e-300)), length(y),
                             K, byrow = TRUE)
               array(eta, c(length(y), K, 1L))
             },
             link = function(mean) log(mean) - mean(log(mean)),
             centre_range = function(y_range) c(0, 1),
             start_curvature = function(b0, intercept, fam)
               top(class_factor(b0, intercept)),
             class_matrix = function(b0, intercept) {
               s <- class_factor(b0, intercept)
               s / top(s)
             },
             net_offset = function(y, offset) y,
             # no memory: the model S (x) A is the Hessian at b0 only, and
             # a gradient carried by it drifts as the probabilities move
             # (test accuracy on Satellite at epsilon 2: 0.81 against 0.80);
             # three steps per lambda: the model moves away from its start
             # along the path (Satellite, 70/30 splits, epsilon 2, 14 runs:
             # 0.796 against 0.783 at two steps)
             model_step = 1, model_memory = 0, model_steps = 3L,
             y_settings = NULL,
             y_check = NULL, trials_matrix = FALSE,
             hessian = NULL,
             measure_loss = list(deviance = multinomial_deviance,
                                 class = multinomial_misclass),
             deviance = function(eta, y)
               vapply(seq_len(dim(eta)[3L]), function(j)
                 2 * sum(loss(matrix(eta[, , j], nrow(eta)), y)), 0),
             record_deviance = function(eta, y) {
               if (length(dim(eta)) != 3L) return(2 * loss(eta, y))
               vapply(seq_len(dim(eta)[3L]), function(j)
                 2 * loss(matrix(eta[, , j], nrow(eta)), y), numeric(nrow(eta)))
             },
             # a probability of 1/1000 on the observed class
             deviance_bound = function(r_bound) 2 * log(1000),
             deviance_label = "Multinomial deviance",
             y_error_scale = FALSE, shardable = TRUE)
}

# The residual at the fit of the intercepts alone (the class shares,
# weighted when weights are given; equal without intercept).  Unpenalised
# columns would need a multinomial glm, which base R does not have; the
# family takes no offsets.
multinomial_null_residual <- function(nclass) {
  function(x, y, intercept, unpenalised, weights = NULL, offset = NULL) {
    if (any(unpenalised))
      arg_error("penalty.factor", "of 0 (an unpenalised column) is not ",
                "available for a multinomial fit whose lambda grid is ",
                "taken from the data; give lambda.")
    ind <- class_indicators(y, nclass)
    if (is.null(weights)) {
      if (!intercept) return(ind - 1 / ncol(ind))
      return(ind - rep(colMeans(ind), each = nrow(ind)))
    }
    shares <- if (intercept) colSums(weights * ind) / sum(weights)
              else rep(1 / nclass, nclass)
    weights * (ind - rep(shares, each = length(y)))
  }
}

# Each record's own class in every penalty's slice of the n x classes x K
# probabilities pred: the n x K index of pred.
own_class_index <- function(y, pred) {
  n <- length(y)
  k <- dim(pred)[3L]
  cbind(rep(seq_len(n), k), rep(y + 1L, k), rep(seq_len(k), each = n))
}

# -2 log p_y per record and penalty (y coded 0 to classes - 1).
multinomial_deviance <- function(y, pred)
  matrix(-2 * log(pmax(pred[own_class_index(y, pred)], 1e-300)), length(y),
         dim(pred)[3L])

# A record misclassified by the first class of largest probability, per
# penalty.
multinomial_misclass <- function(y, pred) {
  n <- length(y)
  k <- dim(pred)[3L]
  best <- vapply(seq_len(k), function(j)
    max.col(matrix(pred[, , j], n), ties.method = "first"), integer(n))
  1 * (matrix(best, n, k) != y + 1L)
}
