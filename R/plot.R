#' Plot coefficient paths
#'
#' Coefficients against log(lambda), the L1 norm of the coefficient vector
#' or the fraction of deviance explained on data you pass, one line per
#' predictor, with the number of non-zero coefficients on the top axis, as
#' in glmnet.
#'
#' **The noise band.**  A private penalised path carries the record of its
#' support rule (section Support of [dpsco-methods]): each coefficient's noise sd
#' and the level `c` within which the rule takes a coefficient for noise.
#' The plot draws every part of a path that touches a value the rule found
#' within its band (within `c` sds, so set to 0) in thin grey,
#' and in colour only the segments between two values beyond it, as the
#' subtitle says ("grey: within the noise band (support rule)").  A spike
#' that leaves 0 at one lambda only and falls back is therefore grey: at its
#' neighbours the coefficient is indistinguishable from noise.  Fits without
#' the rule (`dpsco_control(support = "none")`, no noise, the
#' constraint-set methods) are drawn in colour throughout.
#'
#' **`xvar = "dev"`.**  glmnet plots against the fraction of deviance
#' explained on its training data (`dev.ratio`), a noise-free statistic of
#' the data that a private fit does not release.  Here the fraction is
#' computed on the data you pass as `newx` and `newy` (typically a test
#' set): `1 - deviance(fit, newx, newy) / D0`, `D0` the deviance of the
#' intercept-only model fitted to `newy` itself (beside `newoffset`,
#' weighted by `weights`), glmnet's null deviance on those data.  It is your
#' own computation on your data, not a private output; the axis says which
#' data ("Fraction of deviance explained (newx, newy)").  On new data it
#' need not increase along the path.
#'
#' @param x a `dpsco` fit (a multinomial fit: [plot.dpsco_multinomial()]).
#' @param xvar `"lambda"` (log penalty, increasing to the right as in
#'   glmnet and in [plot.cv.dpsco()], so the path is fitted from right to
#'   left; for the constraint-set methods the log radius), `"norm"` (L1
#'   norm) or `"dev"` (fraction of deviance explained on `newx`, `newy`).
#' @param label label the curves with their column numbers at the path end?
#' @param newx,newy (`xvar = "dev"`) predictors and response of the records
#'   to evaluate on, as in [deviance.dpsco()].
#' @param newoffset (`xvar = "dev"`) their offsets, for a fit made with an
#'   offset.
#' @param weights (`xvar = "dev"`, optional) non-negative weights of those
#'   records in the deviances.
#' @param ... passed to [graphics::matplot()]; `main` is drawn above the
#'   top axis and its "Df" label.
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' x <- matrix(runif(3000, -1, 1), 300, 10)
#' y <- drop(x %*% c(3, -2, 1, rep(0, 7))) + rt(300, df = 2)
#' fit <- dpsco(x, y, method = "none", iterations = 50, step_size = 0.3)
#' plot(fit)
#' plot(fit, xvar = "norm", label = TRUE)
#' xt <- matrix(runif(1000, -1, 1), 100, 10)
#' yt <- drop(xt %*% c(3, -2, 1, rep(0, 7))) + rt(100, df = 2)
#' plot(fit, xvar = "dev", newx = xt, newy = yt)
#' @export
plot.dpsco <- function(x, xvar = c("lambda", "norm", "dev"), label = FALSE,
                       newx = NULL, newy = NULL, newoffset = NULL,
                       weights = NULL, ...) {
  xvar <- match_choice(xvar, "xvar")
  dev <- path_dev(x, xvar, newx, newy, newoffset, weights)
  draw_path(x$beta, x$df, path_axis(x), xvar, label, "Coefficients",
            list(...), dev = dev, band = noise_band(x))
  invisible(x)
}

# xvar = "dev": the fraction of deviance explained on the user's data
# along the path (dev_fraction()); NULL for the other axes.
path_dev <- function(x, xvar, newx, newy, newoffset, weights) {
  if (xvar != "dev") return(NULL)
  if (is.null(newx) || is.null(newy))
    arg_error("xvar", "\"dev\" needs data to evaluate on: the fraction of ",
              "deviance explained on the training data is not released (a ",
              "noise-free statistic of the data, outside the privacy ",
              "budget). Pass your own evaluation data, e.g. a test set: ",
              "plot(fit, xvar = \"dev\", newx = , newy = ).")
  dev_fraction(x, newx, newy, newoffset, weights)
}

# Which coefficients the support rule found within its noise band, for
# the penalised columns, which the rule acts on: those it set to 0 (the
# stepwise rule tests each coefficient in the model left by the earlier
# drops), or for the marginal rule |raw coefficient| <= level x its noise
# sd (the record's values, in the engine's units, in which the rule
# compared them).  A p x path logical matrix, a list of them by class for
# a multinomial fit, or NULL when the fit has no record of the rule.
# (Post-processing of the record: nothing new is released.)
noise_band <- function(fit) {
  sup <- fit$support
  if (is.null(sup)) return(NULL)
  # (a fit saved by dpsco 0.23 or earlier names its one-shot rule "noise")
  if (identical(sup$rule, "noise")) sup$rule <- "marginal"
  p <- fit$dim[1L]
  d <- p + fit$intercept
  pen <- (fit$settings$penalty.factor %||% rep(1, p)) > 0
  cells <- function(k) {
    rows <- (k - 1L) * d + fit$intercept + seq_len(p)
    inside <- if (sup$rule == "stepwise") unname(as.matrix(class_beta(fit, k)) == 0)
              else abs(sup$raw[rows, , drop = FALSE]) <=
                sup$level * sup$sd[rows, , drop = FALSE]
    inside <- inside & pen
    dimnames(inside) <- list(rownames(class_beta(fit, k)), NULL)
    inside
  }
  if (!inherits(fit, "dpsco_multinomial")) return(cells(1L))
  stats::setNames(lapply(seq_along(fit$classnames), cells), fit$classnames)
}

class_beta <- function(fit, k) if (is.list(fit$beta)) fit$beta[[k]] else fit$beta

#' Plot the coefficient paths of a multinomial fit
#'
#' As glmnet's `plot()` of a multinomial fit: with `type.coef = "coef"`
#' one panel per class (laid out on one page, `par(mfrow)` restored
#' afterwards) of that class's coefficients, its own number of non-zero
#' coefficients on the top axis; with `type.coef = "2norm"` one panel of
#' each predictor's Euclidean norm over the classes, the number of
#' predictors non-zero in any class on the top axis.  `log(lambda)`
#' increases to the right, and the noise band and `xvar = "dev"` are as in
#' [plot.dpsco()] (a norm is grey where every class is within its band).
#'
#' @inheritParams plot.dpsco
#' @param x a `dpsco_multinomial` fit.
#' @param type.coef `"coef"` (a panel per class) or `"2norm"` (one panel
#'   of the norms over the classes).
#' @param newx,newy,weights (`xvar = "dev"`) as in [plot.dpsco()]
#'   (`newy` a factor with the fit's classes).
#' @param ... passed to [graphics::matplot()]; `main` (default: the class
#'   names in the panels of `"coef"`) is drawn above the top axis.
#' @return `x`, invisibly.
#' @examples
#' set.seed(2)
#' x <- matrix(rnorm(600 * 4), 600, 4)
#' eta <- cbind(0, x[, 1] * 2, -x[, 2] * 2)
#' y <- factor(apply(eta + matrix(rlogis(1800), 600), 1, which.max),
#'             labels = c("a", "b", "c"))
#' fit <- dpsco(x, y, family = "multinomial", epsilon = 2, nlambda = 5)
#' plot(fit)
#' plot(fit, type.coef = "2norm")
#' @export
plot.dpsco_multinomial <- function(x, xvar = c("lambda", "norm", "dev"),
                                   label = FALSE,
                                   type.coef = c("coef", "2norm"),
                                   newx = NULL, newy = NULL, weights = NULL,
                                   ...) {
  xvar <- match_choice(xvar, "xvar")
  type.coef <- match_choice(type.coef, "type.coef")
  dots <- list(...)
  dev <- path_dev(x, xvar, newx, newy, NULL, weights)
  band <- noise_band(x)
  if (type.coef == "2norm") {
    norm2 <- sqrt(Reduce(`+`, lapply(x$beta, function(b) b^2)))
    # a feature's norm is within the band where all its classes are
    draw_path(norm2, x$df, path_axis(x), xvar, label, "Coefficient 2-norms",
              dots, dev = dev, band = if (!is.null(band)) Reduce(`&`, band))
    return(invisible(x))
  }
  K <- length(x$classnames)
  # room above each panel for its Df axis and title
  old <- graphics::par(mfrow = grDevices::n2mfrow(K),
                       mar = c(4.1, 4.1, 5.6, 1.1))
  on.exit(graphics::par(old))
  for (k in seq_len(K)) {
    cp <- class_path(x, k)
    dk <- dots
    dk$main <- dots$main %||% x$classnames[k]
    draw_path(cp$beta, cp$df, path_axis(x), xvar, label,
              paste0("Coefficients: ", x$classnames[k]), dk, dev = dev,
              band = band[[k]])
  }
  invisible(x)
}

# One panel of coefficient paths: the rows of beta (p x path) against
# log(lambda) (`axis`, from path_axis()), their L1 norm or `dev` (the
# fraction of deviance explained, path_dev()), df on the top axis; dots for
# matplot(), their `main` drawn above the top axis.  `band` (noise_band()):
# the cells within the support rule's noise band, whose segments are grey.
draw_path <- function(beta, df, axis, xvar, label, ylab, dots, dev = NULL,
                      band = NULL) {
  h <- switch(xvar, lambda = log(axis$values), norm = colSums(abs(beta)),
              dev = unname(dev))
  xlab <- switch(xvar, lambda = paste0("log(", axis$name, ")"),
                 norm = "L1 norm",
                 dev = "Fraction of deviance explained (newx, newy)")
  # log(0) and log(Inf) cannot be drawn
  keep <- is.finite(h)
  beta <- beta[, keep, drop = FALSE]
  if (!is.null(band)) band <- band[, keep, drop = FALSE]
  df <- df[keep]
  h <- h[keep]
  grey <- !is.null(band) && any(band)
  col <- grDevices::hcl.colors(max(2, nrow(beta)), "Dark 3")
  args <- list(x = h, y = t(beta), type = "l", lty = 1, xlab = xlab,
               ylab = ylab, col = if (grey) "grey75" else col,
               lwd = if (grey) 0.7 else 1)
  main <- dots$main
  dots$main <- NULL
  # with a band, a colour given in ... is the colour beyond it
  if (grey && !is.null(dots$col)) {
    col <- dots$col
    dots$col <- NULL
  }
  do.call(graphics::matplot, utils::modifyList(args, dots))
  if (grey) {
    # the colour only between two values beyond the band
    bright <- beta
    bright[band] <- NA
    if (!all(is.na(bright)))
      graphics::matlines(h, t(bright), lty = 1, col = col)
    graphics::title(sub = "grey: within the noise band (support rule)",
                    cex.sub = 0.8)
  }
  graphics::abline(h = 0, col = "grey70", lty = 3)
  at <- pretty(h)
  at <- at[at >= min(h) & at <= max(h)]
  df_at <- df[vapply(at, function(a) which.min(abs(h - a)), 1L)]
  top_axis(at, df_at, main, tick = TRUE)
  if (label) {
    # the end of the path: on the left for penalties, on the right for
    # radii and L1 norms; the labels go outside it
    end <- ncol(beta)
    graphics::text(h[end], beta[, end], labels = seq_len(nrow(beta)),
                   pos = if (h[end] <= min(h)) 2 else 4, cex = 0.7, xpd = TRUE)
  }
}

# The subtitle of a released curve: what it is and, when a point sits at
# 0, what its zeros are.
curve_caption <- function(x) {
  sh <- x$privacy$shares
  paste0(sprintf("noisy validation curve, released with share %s of the budget",
                 format(signif(sh$share[sh$part == "curve"], 3))),
         if (any(x$cvm <= 0)) ": points at 0 are clamped noise" else "")
}

# The top axis of both path plots: the number of non-zero coefficients at
# `at`, "Df" to the left of its labels (above them it touched a title),
# and the title above both (the axis takes lines 0-2 of the top margin; a
# title at R's default line would sit on it).
top_axis <- function(at, labels, main = NULL, tick = TRUE) {
  graphics::axis(3, at = at, labels = labels, tick = tick)
  usr <- graphics::par("usr")
  graphics::mtext("Df", side = 3, line = 1, at = usr[1L] - 0.02 * diff(usr[1:2]),
                  adj = 1, cex = 0.8)
  if (!is.null(main)) graphics::title(main = main, line = 3)
}

#' Plot the private choice of lambda
#'
#' With a released validation curve (`curve > 0` in [cv.dpsco()]): the
#' noisy private release of the mean validation loss against
#' `log(lambda)`, clamped to `[0, loss_bound]` (post-processing: a mean
#' of clamped losses cannot lie outside), with bars of one noise sd; the
#' title and the legend say that the points are a noisy release and give
#' the noise sd, and the subtitle gives the share of the budget spent on
#' it and, when a point sits at 0, that such points are clamped noise (a
#' release below 0 projected on the range), not a loss of 0.  Without a curve (the default `curve = 0`): the
#' coefficient path of the fit on the training part ([plot.dpsco()]).
#' Either way a dotted line marks the private choice `lambda.min`, drawn
#' by the exponential mechanism: it need not sit at the lowest point of
#' the noisy curve.  The number of non-zero coefficients is shown along
#' the top and `log(lambda)` increases to the right, as in glmnet and in
#' [plot.dpsco()].  For the constraint-set methods the x axis is
#' `log(radius)`.
#'
#' @param x a `cv.dpsco` object.
#' @param ... passed to [graphics::plot()] (or to [plot.dpsco()] without
#'   a curve); `main` replaces the default title, drawn above the top
#'   axis.
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' x <- matrix(rexp(2000 * 5), 2000, 5)
#' y <- drop(x %*% c(2, -1, 0, 0, 0)) + rt(2000, df = 3)
#' cvfit <- cv.dpsco(x, y, epsilon = 1, nlambda = 5)
#' plot(cvfit)                      # the path, the private choice marked
#' cvcurve <- cv.dpsco(x, y, epsilon = 1, nlambda = 5, curve = 0.5)
#' plot(cvcurve)                    # the noisy validation curve
#' @export
plot.cv.dpsco <- function(x, ...) {
  path <- cv_path(x)
  private <- x$privacy$private
  dots <- list(...)
  main <- if ("main" %in% names(dots)) dots$main
  dots$main <- NULL
  choice <- if (private)
    sprintf("private choice, %s = %s (exponential mechanism)", path$name,
            format(signif(path$min, 3)))
    else sprintf("minimum, %s = %s", path$name, format(signif(path$min, 3)))
  if (is.null(x$cvm)) {
    # a multinomial path in one panel: its norms over the classes
    do.call(graphics::plot, c(list(x$dpsco.fit, xvar = "lambda", main = main %||%
      "Coefficient path (no validation curve released: curve = 0)"),
      if (inherits(x$dpsco.fit, "dpsco_multinomial"))
        list(type.coef = "2norm"), dots))
    graphics::abline(v = log(path$min), lty = 3)
    graphics::legend("topright", legend = choice, lty = 3, bty = "n",
                     cex = 0.8)
    return(invisible(x))
  }
  ll <- log(path$values)
  sd <- format(signif(x$cvsd, 3))
  lim <- range(x$cvlo, x$cvup)
  # headroom for the legend
  lim[2] <- lim[2] + 0.25 * diff(lim)
  args <- list(x = ll, y = x$cvm, ylim = lim, type = "n",
               xlab = paste0("log(", path$name, ")"), ylab = x$name)
  do.call(graphics::plot, utils::modifyList(args, dots))
  graphics::segments(ll, x$cvlo, ll, x$cvup, col = "grey50")
  graphics::points(ll, x$cvm, pch = 20, col = "red")
  graphics::abline(v = log(path$min), lty = 3)
  top_axis(ll, x$nzero, main %||% if (private)
    paste0("Noisy private release of the validation curve (noise sd ", sd, ")")
    else "Validation curve (exact, not private)", tick = FALSE)
  graphics::legend("topright", bty = "n", cex = 0.8,
                   legend = c(if (private)
                     paste0("noisy release, clamped at 0; bars +-1 noise sd = ", sd)
                     else "exact validation loss", choice),
                   pch = c(20, NA), lty = c(NA, 3), col = c("red", "black"))
  if (private) graphics::title(sub = curve_caption(x), cex.sub = 0.8)
  invisible(x)
}
