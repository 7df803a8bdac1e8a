#' dpsco: differentially private regularised regression for heavy-tailed data
#'
#' Lasso, elastic-net and l1-logistic regression paths fitted by
#' differentially private stochastic proximal gradient descent with the
#' gradient oracles of Xie et al.: clipping (DP-SPGD), the Kamath robust mean
#' estimator (DP-SPGD(K)) and the Holland / Catoni-Giulini estimator
#' (DP-SPGD(H)).  Start with [dpsco()].
#'
#' @references Xie, H., Pietrosanu, M., Liu, Y., Tu, W., Jiang, B. and
#'   Kong, L. Differentially private regularized stochastic convex
#'   optimization with heavy-tailed data. *Statistica Sinica*.
#'   \doi{10.5705/ss.202022.0282}
#' @keywords internal
#' @docType package
#' @name dpsco-package
#' @aliases dpsco-package
#' @useDynLib dpsco, .registration = TRUE, .fixes = "C_"
NULL
