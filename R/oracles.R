# The four gradient oracles: their public parameters, add/remove L2
# sensitivities and per-coordinate bounds.  The C side only sees the numbers
# computed here.

oracle_codes <- c(none = 0L, clip = 1L, kamath = 2L, holland = 3L)

#' Tuning parameters of the private oracles
#'
#' All values are treated as public: they must be chosen without looking at
#' the data.  `NULL` selects the paper's default, computed from public
#' quantities only (the batch size, the dimension and the privacy target of
#' one lambda).
#'
#' @param clip clipping level `C` of DP-SPGD (method `"clip"`, Algorithm 1):
#'   each record's gradient is scaled to L2 norm at most `C`.
#' @param rho truncation width of DP-SPGD(K) (method `"kamath"`, Algorithm 3):
#'   each gradient coordinate is clipped to `[-rho/2, rho/2]`.  Default
#'   `(epsilon m / sqrt(d log(1/delta)))^(1/kmom)`, with `d` the gradient
#'   dimension.
#' @param kmom moment order `k >= 2` assumed by the default `rho`.
#' @param zeta failure probability of the robust estimators; sets the number
#'   of groups `ceiling(3 log(2 d / zeta))` (capped at the batch size) of the
#'   Kamath estimator and the default `nu` of the Holland estimator.
#' @param s scale of DP-SPGD(H) (method `"holland"`, Algorithm 4).  Default
#'   `sqrt(m epsilon tau) / (log(1/zeta) log(1/delta)^(1/4))`.
#' @param nu variance parameter of the Holland estimator, default
#'   `sqrt(log(1/zeta))`.
#' @param tau public bound on the second moment of each gradient coordinate,
#'   used by the default `s`.
#' @param schedule step sizes: `"constant"` uses `step_size` at every step,
#'   `"sqrt"` uses `step_size / sqrt(t)` (the schedule of the paper's
#'   convergence results).
#' @param output `"average"` returns the average of the iterates of each
#'   lambda (the paper's output), `"last"` the final iterate.
#' @param std_share share of the privacy budget spent by
#'   `standardize = "private"` in [dpsco()], in (0, 1).
#' @return A list of class `dpsco_control`.
#' @seealso [dpsco()]
#' @examples
#' dpsco_control(clip = 5, schedule = "sqrt")
#' @export
dpsco_control <- function(clip = 1, rho = NULL, kmom = 2, zeta = 0.1,
                          s = NULL, nu = NULL, tau = 1,
                          schedule = c("constant", "sqrt"),
                          output = c("average", "last"), std_share = 0.1) {
  check_number(clip, "clip", 0)
  if (!is.null(rho)) check_number(rho, "rho", 0)
  check_number(kmom, "kmom", 2, lower_open = FALSE)
  check_number(zeta, "zeta", 0, 1)
  if (zeta >= 1) arg_error("zeta", "must be below 1.")
  if (!is.null(s)) check_number(s, "s", 0)
  if (!is.null(nu)) check_number(nu, "nu", 0)
  check_number(tau, "tau", 0)
  check_number(std_share, "std_share", 0, 1)
  if (std_share >= 1) arg_error("std_share", "must be below 1.")
  structure(list(clip = clip, rho = rho, kmom = kmom, zeta = zeta, s = s,
                 nu = nu, tau = tau, schedule = match_choice(schedule, "schedule"),
                 output = match_choice(output, "output"), std_share = std_share),
            class = "dpsco_control")
}

# Resolve an oracle's parameters for expected batch size m, gradient
# dimension d and the privacy target (eps, delta) of one run; returns what
# the C engine needs plus the sensitivity and the per-coordinate bound.
oracle_setup <- function(method, control, m, d, eps, delta) {
  ctl <- control
  out <- list(oracle = oracle_codes[[method]], m = m, clip = ctl$clip,
              rho = 0, k = 1L, s = 1, nu = 1)
  private <- method != "none"
  log_delta <- if (private) log(1 / delta) else NA
  switch(method,
    none = {
      out$sensitivity <- 0
      out$bound <- Inf
    },
    clip = {
      out$sensitivity <- ctl$clip / m
      out$bound <- ctl$clip
    },
    kamath = {
      out$rho <- ctl$rho %||% (eps * m / sqrt(d * log_delta))^(1 / ctl$kmom)
      out$k <- as.integer(min(ceiling(3 * log(2 * d / ctl$zeta)), max(1, floor(m))))
      out$sensitivity <- out$rho * out$k * sqrt(d) / (2 * m)
      out$bound <- out$rho / 2
    },
    holland = {
      out$nu <- ctl$nu %||% sqrt(log(1 / ctl$zeta))
      out$s <- ctl$s %||%
        (sqrt(m * eps * ctl$tau) / (log(1 / ctl$zeta) * log_delta^(1 / 4)))
      out$sensitivity <- 2 * sqrt(2) * out$s * sqrt(d) / (3 * m)
      out$bound <- 2 * sqrt(2) * out$s / 3
    }
  )
  if (private && !(is.finite(out$sensitivity) && out$sensitivity > 0))
    arg_error("control", "gives a non-finite or zero sensitivity for method '",
              method, "'; check rho, s and epsilon.")
  out
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# One noise-free (noise_sd = 0) or noisy release of an oracle on the rows of
# g, all of which are in the batch; m is the expected batch size.  `labels`
# (0-based) fixes the Kamath groups; NULL draws them from R's generator.
oracle_mean <- function(g, method, m = nrow(g), clip = 1, rho = 1, k = 1L,
                        s = 1, nu = 1, labels = NULL, noise_sd = 0) {
  g <- as.matrix(g)
  if (!is.double(g)) storage.mode(g) <- "double"  # a double g is not copied
  settings <- list(oracle = oracle_codes[[method]], m = as.double(m),
                   clip = clip, rho = rho, k = as.integer(k), s = s, nu = nu,
                   noise_sd = noise_sd)
  if (!is.null(labels)) {
    labels <- as.integer(labels)
    # the engine indexes group sums with them
    if (length(labels) != nrow(g) || anyNA(labels) || any(labels < 0L | labels >= k))
      stop("labels must give a group in 0 .. k - 1 for every row of g")
  }
  .Call(C_dpsco_oracle_mean, g, settings, labels)
}

# E psi(a + b Z) for the Catoni-Giulini psi, and the Holland contribution
# h(a) = E psi(a + |a| Z / sqrt(nu)) clamped to +-2 sqrt(2)/3.
catoni_mean <- function(a, b) {
  n <- max(length(a), length(b))
  .Call(C_dpsco_catoni_mean, rep_len(as.double(a), n), rep_len(as.double(b), n))
}

holland_h <- function(a, nu, tabulated = FALSE)
  .Call(C_dpsco_holland_h, as.double(a), as.double(nu), tabulated)
