#' Plot coefficient paths
#'
#' Coefficients against log(lambda) or the L1 norm of the coefficient vector,
#' one line per predictor, with the number of non-zero coefficients on the
#' top axis, as in glmnet.
#'
#' @param x a `dpsco` fit.
#' @param xvar `"lambda"` (log penalty, decreasing to the right as the path
#'   is fitted; for the constraint-set methods the log radius, increasing)
#'   or `"norm"` (L1 norm).
#' @param label label the curves with their column numbers at the path end?
#' @param ... passed to [graphics::matplot()].
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' x <- matrix(runif(3000, -1, 1), 300, 10)
#' y <- drop(x %*% c(3, -2, 1, rep(0, 7))) + rt(300, df = 2)
#' fit <- dpsco(x, y, method = "none", iterations = 50, step_size = 0.3)
#' plot(fit)
#' plot(fit, xvar = "norm", label = TRUE)
#' @export
plot.dpsco <- function(x, xvar = c("lambda", "norm"), label = FALSE, ...) {
  xvar <- match_choice(xvar, "xvar")
  beta <- x$beta
  df <- x$df
  pa <- path_axis(x)
  if (xvar == "lambda") {
    # log(0) and log(Inf) cannot be drawn
    keep <- pa$values > 0 & is.finite(pa$values)
    beta <- beta[, keep, drop = FALSE]
    df <- df[keep]
    h <- log(pa$values[keep])
    xlab <- paste0("log(", pa$name, ")")
  } else {
    h <- colSums(abs(beta))
    xlab <- "L1 norm"
  }
  args <- list(x = h, y = t(beta), type = "l", lty = 1, xlab = xlab,
               ylab = "Coefficients", col = grDevices::hcl.colors(max(2, nrow(beta)), "Dark 3"))
  if (xvar == "lambda" && !pa$increasing) args$xlim <- rev(range(h))
  dots <- list(...)
  main <- dots$main
  dots$main <- NULL
  do.call(graphics::matplot, utils::modifyList(args, dots))
  # a title goes above the Df axis (which takes lines 0-2 of the top margin)
  if (!is.null(main)) graphics::title(main = main, line = 3)
  graphics::abline(h = 0, col = "grey70", lty = 3)
  at <- pretty(h)
  at <- at[at >= min(h) & at <= max(h)]
  df_at <- df[vapply(at, function(a) which.min(abs(h - a)), 1L)]
  graphics::axis(3, at = at, labels = df_at, tick = TRUE)
  graphics::mtext("Df", side = 3, line = 2, cex = 0.8)
  if (label) {
    end <- ncol(beta)
    graphics::text(h[end], beta[, end], labels = seq_len(nrow(beta)),
                   pos = if (xvar == "lambda") 2 else 4, cex = 0.7, xpd = TRUE)
  }
  invisible(x)
}
