#' A privacy budget for a whole analysis of one data set
#'
#' Every fit reports its own (epsilon, delta), but an analysis is rarely one
#' fit: a Table 1, two methods, a resampling grid.  `dp_budget()` makes a
#' budget that each function reading the data debits: [dpsco()],
#' [cv.dpsco()], [dp_summary()], [dp_mean()] and the parsnip engine take
#' `budget =`, and
#' `options(dpsco.budget = b)` makes `b` the session's default, so that
#' the fits of a tidymodels resampling debit it too.
#'
#' **Admission.**  Before a function reads any record it is admitted
#' only if the budget can pay for it whatever its noise turns out to be:
#' what is spent, accounted at the budget's delta less the new fit's delta,
#' plus the new fit's epsilon, must not exceed the budget's epsilon (basic
#' composition of the new fit with the others, the bound that holds for
#' any fit with that guarantee).  A fit that does not fit is refused with
#' an error of class `dpsco_budget_error` that says what is left.  Under a
#' budget a fit's default `delta` is the smaller of `0.1 / n` and a tenth
#' of the budget's delta.
#'
#' **Debit.**  After the fit the budget composes the privacy parts its
#' record lists (each release's noise multiplier, sampling rate and step
#' count; see [privacy()]) with those of every earlier fit: the Gaussian
#' releases of full passes exactly, as one Gaussian mechanism whose
#' \eqn{\mu^2} is the sum of theirs (Gaussian differential privacy, Dong,
#' Roth and Su 2022; valid also when later fits are chosen from earlier
#' results, Smith and Thakurta 2022), subsampled and Renyi-bounded parts
#' through their Renyi curves (valid under adaptive choice too, Feldman and
#' Zrnic 2021), parts with a stated guarantee by basic composition.  So
#' two fits at epsilon 1 and 0.5 spend less than 1.5.  The spent epsilon
#' is the smaller of that composition and the admission bound (both hold).
#'
#' **One data set.**  A budget is that of one set of records: two fits
#' that read disjoint records (two hospitals' data) compose in parallel,
#' and each set gets its own budget.  The fits of one budget may read
#' subsets of its records (resampling folds): a record then pays for every
#' fit it enters, which the sequential composition above bounds.
#'
#' @param epsilon,delta the budget of the whole analysis: `epsilon > 0`
#'   finite, `0 < delta < 1`.
#' @param label a few words naming the data set, for the printout.
#' @return A budget (class `dpsco_budget`): an environment, so every fit
#'   debits the same object.  `print()` lists the fits and what is spent
#'   and left; `summary()` gives a sentence for the methods section;
#'   [dp_spent()] the numbers.
#' @seealso [dp_spent()], [privacy()]
#' @references
#' Dong, J., Roth, A. and Su, W. J. (2022). Gaussian differential privacy.
#' *JRSS B* 84(1), 3-37.
#'
#' Smith, A. and Thakurta, A. (2022). Fully adaptive composition for
#' Gaussian differential privacy. arXiv:2210.17520.
#'
#' Feldman, V. and Zrnic, T. (2021). Individual privacy accounting via a
#' Renyi filter. *NeurIPS* 34.
#' @examples
#' b <- dp_budget(epsilon = 2, delta = 1e-5, label = "simulated records")
#' set.seed(1)
#' x <- matrix(rnorm(2000 * 5), 2000, 5)
#' y <- drop(x %*% c(1, -1, 0, 0, 0)) + rnorm(2000)
#' m <- dp_mean(y, epsilon = 0.5, budget = b)
#' fit <- dpsco(x, y, epsilon = 1, nlambda = 5, budget = b)
#' b
#' summary(b)
#' @export
dp_budget <- function(epsilon, delta, label = NULL) {
  check_number(epsilon, "epsilon", 0)
  check_number(delta, "delta", 0, 1, upper_open = TRUE)
  if (!is.null(label) && !(is.character(label) && length(label) == 1L &&
                           !is.na(label)))
    arg_error("label", "must be a single string.")
  b <- new.env(parent = emptyenv())
  b$epsilon <- as.double(epsilon)
  b$delta <- as.double(delta)
  b$label <- label %||% "one data set"
  b$blocks <- list()
  b$fits <- data.frame(what = character(), epsilon = numeric(),
                       delta = numeric(), spent = numeric(),
                       stringsAsFactors = FALSE)
  b$spent <- 0
  class(b) <- "dpsco_budget"
  b
}

#' What a budget has spent
#'
#' @param budget a [dp_budget()].
#' @param delta_next the delta of a next fit, for `left`; by default a
#'   tenth of the budget's delta (a budgeted fit's default).
#' @return A list: `epsilon` spent at the budget's `delta`, `left`, the
#'   largest epsilon a next fit at `delta_next` is admitted with, and
#'   `fits`, a data frame of the fits debited (what, their own epsilon and
#'   delta, the budget's spent epsilon after each).
#' @examples
#' b <- dp_budget(2, 1e-5)
#' dp_spent(b)
#' @export
dp_spent <- function(budget, delta_next = NULL) {
  if (!inherits(budget, "dpsco_budget"))
    arg_error("budget", "must come from dp_budget().")
  dn <- delta_next %||% (budget$delta / 10)
  check_number(dn, "delta_next", 0, budget$delta, upper_open = TRUE)
  list(epsilon = budget$spent, delta = budget$delta,
       left = budget_left(budget, dn), fits = budget$fits)
}

# The session's budget machinery: while a budgeted call runs, the calls it
# makes (cv.dpsco()'s training fit) are paid by it and debit nothing.
budget_state <- new.env(parent = emptyenv())
budget_state$active <- FALSE

# The budget of a call: its `budget` argument, else the session's option;
# NULL when none or when an outer budgeted call already pays.
budget_of <- function(budget) {
  if (isTRUE(budget_state$active)) return(NULL)
  budget <- budget %||% getOption("dpsco.budget")
  if (!is.null(budget) && !inherits(budget, "dpsco_budget"))
    arg_error("budget", "must come from dp_budget() (or be NULL).")
  budget
}

# A budgeted fit's default delta: the fit's own default, 0.1 / n, or a
# tenth of the budget's, whichever is smaller.
budget_fit_delta <- function(budget, delta, n) {
  if (is.null(budget) || !is.null(delta)) return(delta)
  min(0.1 / n, budget$delta / 10)
}

# epsilon of the parts `parts` composed at `delta`, as the budget composes
# fits (see ?dp_budget): Gaussian DP for full-pass Gaussian releases,
# Renyi curves otherwise, stated guarantees added.
budget_epsilon <- function(parts, delta) {
  if (!length(parts)) return(0)
  kinds <- vapply(parts, part_kind, "")
  gauss <- parts[kinds == "gaussian"]
  sampled <- any(vapply(gauss, function(p) p$sample_rate < 1, NA))
  if (any(kinds == "rdp") || sampled) rdp_epsilon_fn(parts)(delta)
  else account_parts(parts, delta)
}

# epsilon of the blocks (one per fit, each a list of pools of disjoint
# records, each pool a list of parts): a record is in one pool of each
# fit, so the worst record's loss is the largest over the choices of one
# pool per fit.  Beyond 256 choices each fit's pools are taken together
# (an upper bound).
blocks_epsilon <- function(blocks, delta) {
  if (!length(blocks)) return(0)
  sizes <- vapply(blocks, length, 1L)
  if (prod(sizes) > 256)
    return(budget_epsilon(unlist(lapply(blocks, unlist, recursive = FALSE),
                                 recursive = FALSE), delta))
  choice <- as.matrix(expand.grid(lapply(sizes, seq_len)))
  max(apply(choice, 1L, function(k)
    budget_epsilon(unlist(Map(function(b, i) b[[i]], blocks, k),
                          recursive = FALSE), delta)))
}

# The sum of the deltas of the stated-guarantee parts, as the worst pool
# choice spends them.
blocks_stated_delta <- function(blocks) {
  if (!length(blocks)) return(0)
  sum(vapply(blocks, function(b) max(vapply(b, function(pool) sum(vapply(
    pool, function(p) if (part_kind(p) == "dp") p$delta else 0, 0)), 0)), 0))
}

# The largest epsilon a next fit at delta `dn` is admitted with.
budget_left <- function(budget, dn) {
  room <- budget$delta - dn - blocks_stated_delta(budget$blocks)
  if (!(room > 0)) return(0)
  max(0, budget$epsilon - blocks_epsilon(budget$blocks, room))
}

# The budget of a call opened: its budget found (budget_of()), its default
# delta, its admission (NULL when no budget pays), and budget_done()
# registered on exit of the calling function `frame`.  Returns list(adm,
# delta).
budget_open <- function(budget, epsilon, delta, n, what, frame = parent.frame()) {
  bud <- budget_of(budget)
  delta <- budget_fit_delta(bud, delta, n)
  adm <- budget_admit(bud, epsilon, delta %||% (0.1 / n), what)
  if (!is.null(adm))
    do.call(base::on.exit, list(call("budget_done", adm), add = TRUE),
            envir = frame)
  list(adm = adm, delta = delta)
}

# Admission, before the call reads any record: NULL when no budget pays.
# Otherwise the admission (to debit after the fit); the budget is marked
# active until budget_done(), so inner calls debit nothing.
budget_admit <- function(budget, epsilon, delta, what) {
  if (is.null(budget)) return(NULL)
  if (!identical(epsilon, Inf)) check_number(epsilon, "epsilon", 0)
  check_number(delta, "delta", 0, 1, upper_open = TRUE)
  if (!is.finite(epsilon))
    budget_error(budget, what, "reads the data without noise (epsilon = Inf)",
                 delta)
  room <- budget$delta - delta - blocks_stated_delta(budget$blocks)
  prev <- if (room > 0) blocks_epsilon(budget$blocks, room) else Inf
  if (!(prev + epsilon <= budget$epsilon * (1 + 1e-9)))
    budget_error(budget, what, sprintf("would spend up to epsilon %s at delta %s",
                                       num4(epsilon), num4(delta)), delta)
  budget_state$active <- TRUE
  budget$pending <- list(epsilon = epsilon, delta = delta)
  list(budget = budget, what = what, bound = prev + epsilon)
}

# The end of an admitted call (on.exit): a call that stopped after its
# admission may have read records (whether it stops can depend on them), so
# it is debited its whole stated guarantee.
budget_done <- function(adm) {
  if (is.null(adm)) return(invisible(NULL))
  budget_state$active <- FALSE
  b <- adm$budget
  pend <- b$pending
  if (is.null(pend)) return(invisible(NULL))
  part <- dp_part("stopped", pend$epsilon, pend$delta, 1, NA_real_, 1,
                  mechanism = "a call that stopped after its admission")
  budget_add(b, list(list(part)), adm$bound,
             paste(adm$what, "(stopped)"), pend$epsilon, pend$delta)
}

# The debit, from the fit's privacy record.
budget_debit <- function(adm, record) {
  if (is.null(adm)) return(invisible(NULL))
  # a use of the data outside the fit's guarantee is outside the budget's
  nc <- record$not_covered
  if (is.data.frame(nc) && nrow(nc))
    adm$budget$not_covered <- c(adm$budget$not_covered, adm$what)
  budget_add(adm$budget, record_pools(record), adm$bound, adm$what,
             record$epsilon_accounted, record$delta)
}

# A fit's block (its pools of parts) added to the budget; the spent
# epsilon is the smaller of the composition and the admission bound.
budget_add <- function(b, block, bound, what, epsilon, delta) {
  blocks <- c(b$blocks, list(block))
  b$blocks <- blocks
  b$pending <- NULL
  b$spent <- max(b$spent, min(blocks_epsilon(blocks, b$delta), bound))
  b$fits <- rbind(b$fits, data.frame(
    what = what, epsilon = epsilon, delta = delta, spent = b$spent,
    stringsAsFactors = FALSE))
  invisible(b)
}

# A record's parts as pools of disjoint records: its shares table read
# back into parts, one pool per value of its `pool` column (one pool when
# it has none).
record_pools <- function(record) {
  sh <- record$shares
  col <- function(name) if (is.null(sh[[name]])) rep(NA, nrow(sh)) else sh[[name]]
  kind <- ifelse(is.na(col("kind")), "gaussian", col("kind"))
  eps <- col("epsilon_stated")
  dlt <- col("delta_stated")
  parts <- lapply(seq_len(nrow(sh)), function(i) {
    p <- privacy_part(sh$part[i], sh$noise_multiplier[i], sh$sample_rate[i],
                      sh$steps[i], sh$sensitivity[i], sh$share[i],
                      kind = kind[i])
    if (kind[i] == "dp") {
      p$epsilon <- eps[i]
      p$delta <- dlt[i]
    }
    p
  })
  pool <- col("pool")
  pool[is.na(pool)] <- "all"
  unname(split(parts, factor(pool, unique(pool))))
}

num4 <- function(v) format(signif(v, 4))

# The refusal: what the call would spend and what is left.
budget_error <- function(budget, what, why, delta) {
  left <- budget_left(budget, min(delta, budget$delta / 2))
  msg <- sprintf(paste0(
    "%s is refused before reading any record: it %s, and the budget (%s, %s) ",
    "of %s has spent epsilon %s in %d fit(s); a next fit at delta %s is ",
    "admitted with epsilon up to %s."), what, why, num4(budget$epsilon),
    num4(budget$delta), budget$label, num4(budget$spent), nrow(budget$fits),
    num4(min(delta, budget$delta / 2)), num4(left))
  stop(structure(class = c("dpsco_budget_error", "dpsco_error", "error",
                           "condition"),
                 list(message = msg, call = user_call(), left = left)))
}

#' @export
format.dpsco_budget <- function(x, ...) {
  f <- x$fits
  head <- sprintf("Privacy budget for %s: (epsilon, delta) = (%s, %s)",
                  x$label, num4(x$epsilon), num4(x$delta))
  rows <- if (nrow(f)) sprintf("  %-3d %-28s epsilon %-8s delta %-9s spent after %s",
                               seq_len(nrow(f)), f$what, num4(f$epsilon),
                               num4(f$delta), num4(f$spent))
  c(head,
    if (nrow(f)) c(sprintf("Fits (%d):", nrow(f)), rows) else "No fit yet.",
    sprintf("Spent: epsilon %s at delta %s (fits composed, not added)",
            num4(x$spent), num4(x$delta)),
    sprintf("Left: a next fit at delta %s is admitted with epsilon up to %s",
            num4(x$delta / 10), num4(budget_left(x, x$delta / 10))),
    if (length(x$not_covered))
      sprintf(paste("NOT covered: %s read the data outside its guarantee",
                    "(privacy() of the fit says what)"),
              paste(unique(x$not_covered), collapse = ", ")),
    paste("Fits on records disjoint from these compose in parallel: give",
          "them a budget of their own."))
}

#' @export
print.dpsco_budget <- function(x, ...) {
  writeLines(format(x))
  invisible(x)
}

#' @export
summary.dpsco_budget <- function(object, ...) {
  f <- object$fits
  sentence <- if (!nrow(f))
    sprintf("No analysis of %s has been made under this budget yet.",
            object$label)
  else sprintf(paste(
    "The whole analysis of %s (%d differentially private fit%s: %s)",
    "satisfies (%s, %s)-differential privacy under the addition or removal",
    "of one record, within a budget of (%s, %s): the fits' releases were",
    "composed by the dpsco accountant (Gaussian differential privacy for",
    "full-pass Gaussian releases, Renyi differential privacy otherwise)."),
    object$label, nrow(f), if (nrow(f) > 1L) "s" else "",
    paste(f$what, collapse = "; "), num4(object$spent), num4(object$delta),
    num4(object$epsilon), num4(object$delta))
  structure(list(sentence = sentence, spent = object$spent,
                 delta = object$delta, fits = f),
            class = "summary.dpsco_budget")
}

#' @export
print.summary.dpsco_budget <- function(x, ...) {
  writeLines(strwrap(x$sentence))
  invisible(x)
}
