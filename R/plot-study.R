# Plots for studies: held-out risk along the iterations of a fit, and error
# curves against the privacy budget or the dimension.  Base graphics only.

# The held-out risk of a family object: the mean of its evaluation loss.
loss_mean <- function(family, eta, y) mean(family$eval_loss(eta, y))

#' Held-out risk along the iterations of a fit
#'
#' `risk_path()` evaluates the empirical risk on held-out data of the
#' iterates a fit kept with `trace` (post-processing: it costs no privacy);
#' `plot_risk()` draws it for one or several fits, as in the paper's
#' Figures 3 and 4.
#'
#' The risk is the fit's own loss averaged over the held-out records: half
#' the mean squared error for `"gaussian"`, the mean logistic loss for
#' `"binomial"` (0/1 or two-level factor `newy`), the mean check loss at
#' the fit's `tau` for `"quantile"`.
#'
#' @param fit a `dpsco` fit made with `trace`.
#' @param newx,newy held-out predictors and responses.
#' @param s index of the lambda along the path (default: the last, least
#'   penalised one).
#' @return `risk_path()`: a data frame with columns `step` and `risk`.
#' @examples
#' set.seed(1)
#' n <- 2000; p <- 5
#' x <- matrix(runif(n * p, -1, 1), n, p)
#' y <- drop(x %*% c(2, -2, rep(0, 3))) + rt(n, df = 2)
#' train <- 1:1400
#' fits <- list(
#'   holland = dpsco(x[train, ], y[train], lambda = 0.01, iterations = 100,
#'                   step_size = 0.5, trace = TRUE),
#'   clip = dpsco(x[train, ], y[train], method = "clip", lambda = 0.01,
#'                iterations = 100, step_size = 0.5, trace = TRUE))
#' head(risk_path(fits$holland, x[-train, ], y[-train]))
#' plot_risk(fits, x[-train, ], y[-train])
#' @export
risk_path <- function(fit, newx, newy, s = NULL) {
  if (!inherits(fit, "dpsco")) arg_error("fit", "must be a dpsco fit.")
  if (is.null(fit$trace))
    arg_error("fit", "has no trace: refit with trace = TRUE or chosen steps.")
  nl <- length(fit$lambda)
  s <- s %||% nl
  if (!is.numeric(s) || length(s) != 1L || !(s %in% seq_len(nl)))
    arg_error("s", "must be the index of one lambda, 1 to ", nl, ".")
  newx <- check_x(newx, "newx", min_rows = 1L)
  if (ncol(newx) != fit$dim[1L])
    arg_error("newx", "must have ", fit$dim[1L], " columns.")
  fam <- fit_family(fit)
  newy <- check_y(newy, nrow(newx), fam)$y
  tr <- fit$trace
  risk <- vapply(seq_along(tr$steps), function(i) {
    eta <- drop(newx %*% tr$beta[, i, s]) + tr$a0[i, s]
    loss_mean(fam, eta, newy)
  }, 0)
  data.frame(step = tr$steps, risk = risk)
}

#' @rdname risk_path
#' @param fits a `dpsco` fit or a named list of fits (the names label the
#'   legend).
#' @param reference optional horizontal reference risk (for example a
#'   non-private glmnet fit), drawn dashed.
#' @param col,lty colours and line types, one per fit.
#' @param legend where to put the legend (see [graphics::legend()]), or
#'   `NULL` for none.
#' @param ... passed to [graphics::plot()] (e.g. `main`, `ylim`, `log`).
#' @return `plot_risk()`: the risk paths, invisibly, as a named list.
#' @export
plot_risk <- function(fits, newx, newy, s = NULL, reference = NULL,
                      col = NULL, lty = 1, legend = "topright", ...) {
  if (inherits(fits, "dpsco")) fits <- list(fit = fits)
  if (!is.list(fits) || !length(fits) ||
      !all(vapply(fits, inherits, NA, "dpsco")))
    arg_error("fits", "must be a dpsco fit or a list of them.")
  labels <- names(fits) %||% paste("fit", seq_along(fits))
  paths <- lapply(fits, risk_path, newx = newx, newy = newy, s = s)
  names(paths) <- labels
  col <- col %||% grDevices::hcl.colors(max(2L, length(paths)), "Dark 3")
  col <- rep_len(col, length(paths))
  lty <- rep_len(lty, length(paths))
  xs <- unlist(lapply(paths, `[[`, "step"))
  ys <- c(unlist(lapply(paths, `[[`, "risk")), reference)
  args <- utils::modifyList(list(x = range(xs), y = range(ys), type = "n",
                                 xlab = "Iteration t",
                                 ylab = "Held-out empirical risk"), list(...))
  do.call(graphics::plot, args)
  for (i in seq_along(paths))
    graphics::lines(paths[[i]]$step, paths[[i]]$risk, col = col[i], lty = lty[i],
                    lwd = 2)
  if (!is.null(reference))
    graphics::abline(h = reference, lty = 2, col = "grey40")
  if (!is.null(legend))
    graphics::legend(legend, legend = c(labels, if (!is.null(reference)) "reference"),
                     col = c(col, if (!is.null(reference)) "grey40"),
                     lty = c(lty, if (!is.null(reference)) 2), lwd = 2, bty = "n")
  invisible(paths)
}

#' Error curves of a study
#'
#' Mean error with +-1 standard deviation bars across replicates, one curve
#' per group (method), against a numeric setting such as the privacy budget
#' epsilon (a privacy-utility curve) or the dimension p, optionally one
#' panel per value of a third variable.
#'
#' @param data a data frame with one row per replicate.
#' @param x,y,group names of the columns holding the setting, the error and
#'   the curve label.
#' @param panel optional column name: one panel per value.
#' @param xlab,ylab axis labels.
#' @param log passed to [graphics::plot()] (e.g. `"x"` or `"y"`).
#' @param col colours, one per group.
#' @param legend legend position, or `NULL`.
#' @param ... passed to [graphics::plot()].
#' @return The summary (mean, sd and count per setting and group),
#'   invisibly.
#' @examples
#' set.seed(1)
#' d <- expand.grid(epsilon = c(0.5, 1, 3), method = c("a", "b"), rep = 1:5)
#' d$error <- 1 / d$epsilon + (d$method == "b") + rnorm(nrow(d), sd = 0.1)
#' plot_utility(d, x = "epsilon", y = "error", group = "method")
#' @export
plot_utility <- function(data, x, y, group, panel = NULL, xlab = x, ylab = y,
                         log = "", col = NULL, legend = "topright", ...) {
  if (!is.data.frame(data)) arg_error("data", "must be a data frame.")
  for (v in c(x, y, group, panel))
    if (!v %in% names(data)) arg_error("data", "has no column '", v, "'.")
  keys <- c(panel, group, x)
  agg <- stats::aggregate(data[[y]], data[keys], function(v)
    c(mean = mean(v), sd = if (length(v) > 1L) stats::sd(v) else 0, n = length(v)))
  agg <- cbind(agg[keys], as.data.frame(agg$x))
  groups <- unique(as.character(data[[group]]))
  col <- rep_len(col %||% grDevices::hcl.colors(max(2L, length(groups)), "Dark 3"),
                 length(groups))
  panels <- if (is.null(panel)) list(NULL) else as.list(unique(data[[panel]]))
  if (length(panels) > 1L) {
    old <- graphics::par(mfrow = c(1L, length(panels)))
    on.exit(graphics::par(old))
  }
  for (pv in panels) {
    sub <- if (is.null(pv)) agg else agg[agg[[panel]] == pv, , drop = FALSE]
    yr <- range(c(sub$mean - sub$sd, sub$mean + sub$sd), finite = TRUE)
    if (grepl("y", log)) yr[1L] <- max(yr[1L], min(sub$mean[sub$mean > 0]) / 2)
    args <- utils::modifyList(list(x = range(sub[[x]]), y = yr, type = "n",
                                   xlab = xlab, ylab = ylab, log = log,
                                   main = if (!is.null(pv)) paste(panel, "=", pv)),
                              list(...))
    do.call(graphics::plot, args)
    for (g in seq_along(groups)) {
      r <- sub[as.character(sub[[group]]) == groups[g], , drop = FALSE]
      r <- r[order(r[[x]]), , drop = FALSE]
      if (!nrow(r)) next
      graphics::lines(r[[x]], r$mean, col = col[g], lwd = 2, type = "b", pch = 19)
      lo <- r$mean - r$sd
      if (grepl("y", log)) lo <- pmax(lo, yr[1L])
      hi <- r$mean + r$sd
      # bars shorter than the device can draw would only raise warnings
      usr <- graphics::par("usr")[3:4]
      span <- if (grepl("y", log)) log10(hi / lo) / diff(usr)
              else (hi - lo) / diff(usr)
      ok <- is.finite(span) & span > 1e-3
      if (any(ok))
        graphics::arrows(r[[x]][ok], lo[ok], r[[x]][ok], hi[ok],
                         angle = 90, code = 3, length = 0.03, col = col[g])
    }
    if (!is.null(legend))
      graphics::legend(legend, legend = groups, col = col, lwd = 2, pch = 19,
                       bty = "n")
  }
  invisible(agg)
}
