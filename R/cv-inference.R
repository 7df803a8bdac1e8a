# Inference after selection in cv.dpsco(): the model selected at
# lambda.min, fitted on an inference pool that neither the path nor the
# choice saw.  Each record falls in the training, validation or inference
# part by a coin of its own (public expected sizes, realised sizes never
# used), so the pool's fit has the whole (epsilon, delta) by parallel
# composition, and the support is independent of its records: the
# intervals are honest for the selected model's coefficients (its
# projection parameter), with no correction for selection.

# The expected share of the records in the inference pool.
cv_inference_pool <- 0.4

# The share of the pool's budget that goes to the inference stage; the
# rest fits a short path on the selected columns, the stage's start.
cv_selected_share <- 0.7

# cv.dpsco()'s `inference`: list(share (of the training fit's budget,
# NULL for none), pool (the expected share of the records in the
# inference pool, 0 for none)).
cv_inference_arg <- function(inference) {
  if (identical(inference, "selected"))
    return(list(share = NULL, pool = cv_inference_pool))
  if (identical(inference, "full")) inference <- TRUE
  share <- check_inference(inference)
  list(share = if (share > 0) share, pool = 0)
}

# The cv.dpsco object with the selected model's inference: `x`, `y` the
# pool's records, `n_pool` its public expected size (rounded), `args` the arguments
# of the fit.
cv_selected_inference <- function(out, x, y, n_pool, args) {
  fit <- out$dpsco.fit
  beta <- fit$beta[, out$index]
  keep <- which(beta != 0)
  out$n_pool <- n_pool
  if (!length(keep)) {
    out$inference <- list(
      family = fit$family, names = character(), estimate = numeric(),
      refused = paste("the model selected at lambda.min has no predictors,",
                      "so there is nothing to test"), selected = TRUE)
    return(out)
  }
  xs <- x[, keep, drop = FALSE]
  colnames(xs) <- names(beta)[keep]
  pf <- do.call(dpsco, c(list(xs, y, public_n = n_pool,
                              inference = cv_selected_share), args))
  out$inference <- c(pf$inference, list(selected = TRUE))
  out$inference_fit <- pf
  out$privacy <- cv_pool_record(out$privacy, pf$privacy)
  out
}

# The cv record with the inference pool's fit as a third part: the
# guarantee is the largest of the parts' (parallel composition).
cv_pool_record <- function(rec, pool_rec) {
  if (!isTRUE(rec$private)) return(rec)
  sh <- pool_rec$shares
  sh$pool <- "inference"
  rec$shares <- rbind(rec$shares, sh[, names(rec$shares)])
  rec$pools <- rbind(rec$pools, data.frame(
    pool = "inference", epsilon = pool_rec$epsilon_accounted,
    delta = pool_rec$delta))
  rec$epsilon_accounted <- max(rec$pools$epsilon)
  rec$epsilon_replace_one <- max(rec$epsilon_replace_one,
                                 pool_rec$epsilon_replace_one)
  rec$guarantee <- guarantee_sentence(rec$epsilon_accounted, rec$delta,
                                      rec$public_n, rec$epsilon_replace_one)
  rec$composition <- paste("parallel: each record is in the training, the",
                           "validation or the inference part, never two, by",
                           "a coin of its own; the parts' public sizes are",
                           "their expected sizes")
  rec
}

# The released inference of a cv.dpsco fit: the selected model's, or the
# training fit's (inference = TRUE), as confint.dpsco() reads it.
cv_inference_holder <- function(object)
  list(inference = object$inference %||% object$dpsco.fit$inference)

#' @rdname dpsco_inference
#' @export
vcov.cv.dpsco <- function(object, ...)
  vcov.dpsco(cv_inference_holder(object), ...)

#' @rdname dpsco_inference
#' @export
confint.cv.dpsco <- function(object, parm, level = 0.95,
                             method = c("wald", "bootstrap"), B = 1000L, ...)
  confint.dpsco(cv_inference_holder(object), parm, level, method, B, ...)

# The inference paragraph and table of summary.cv.dpsco() (NULL without
# inference).
cv_inference_summary <- function(object) {
  inf <- cv_inference_holder(object)$inference
  if (is.null(inf)) return(NULL)
  text <- if (!isTRUE(inf$selected))
    paste("On the training part:", inference_text(inf))
  else if (!length(inf$names))
    paste0("Inference after selection: ", inf$refused, ".")
  else paste0(sprintf(paste(
    "Inference after selection: the %d predictors selected at lambda.min,",
    "refitted on an inference part of the records (expected size %s,",
    "public) that neither the path nor the choice saw, so the intervals",
    "need no correction for the selection; the estimand is glm()'s",
    "coefficients of the selected model. "), length(inf$names) - 1L,
    format_count(round(object$n_pool))), inference_text(inf))
  # (a refused inference shows no table: no estimate posing as one)
  list(text = text, coefficients = if (length(inf$names) &&
                                       is.null(inf$refused))
         inference_table(inf))
}
