#' A private Table 1: descriptive statistics of a data frame
#'
#' Private mean, standard deviation, median and quartiles of each numeric
#' column, and the share of each declared level of each factor or
#' character column, from one run of Gaussian releases over the public
#' number of records, composed exactly by the package's accountant (one
#' [privacy()] record, and one debit of a [dp_budget()]).
#'
#' The releases, in order (each one Gaussian mechanism; a record adds or
#' removes one count of each column's histogram, or one term in `[0, 1]`
#' of each column's mean):
#' \enumerate{
#'   \item for the numeric columns without a declared range: counts of the
#'     signed octaves of each column (the bins `(2^(k-1), 2^k]` of either
#'     sign and a bin at 0), from which the range is twice the edge of the
#'     outermost octave that the noise lets one tell from empty, on each
#'     side (it always holds 0), as the fits' private ranges;
#'   \item the mean of each column clamped to its range, scaled to
#'     `[-1, 1]`: noise of sd `z sqrt(p) / n` times the half-range;
#'   \item counts of the signed octaves of each column's distance from its
#'     released mean, which give the quartiles (read within their octave,
#'     log-linearly) and a bound `B` on the distances (the edge of the
#'     outermost octave told from empty);
#'   \item the mean square of each column's distance from its mean over
#'     `B`, clamped to 1, which gives the standard deviation: a tail too
#'     thin for the noise to show is clamped at `B`, so the `sd` of a
#'     heavy-tailed column is that of its values clamped to within `B` of
#'     the mean (shown as `sd_clamp`), smaller than its sample sd;
#'   \item counts of each declared level (and of values outside them) of
#'     each factor column.
#' }
#' The budget is split between them in fixed shares of the Gaussian
#' accountant's mu^2 (mean 2, spread 1, second moment 1.5, ranges 1 and
#' levels 1.5, in parts of their sum; a release that has nothing to do
#' gives its share to the others), so the whole is one
#' `(epsilon, delta)` guarantee for adding or removing one record at the
#' public `n`.
#'
#' A range read privately always holds 0 and is generous (twice the
#' outermost octave seen): a column far from 0 with a narrow spread (a
#' year, a blood pressure) gets a much less noisy mean from a declared
#' `ranges`.  Values outside a declared range are clamped to it.  Quartiles
#' are resolved to about an octave of the distance from the mean, so a
#' quartile far from the mean is relatively exact and the median of a
#' symmetric column is near the mean.  The levels of a factor are taken
#' as public (the schema, not the data): build factors with
#' `factor(v, levels = ...)` from the known categories, or give `levels`;
#' a level absent from the data gets a share near 0.  Values of a
#' character column (or of a factor given `levels`) outside the declared
#' levels are counted as a level `"(other)"`.
#'
#' @param data a data frame (or a matrix) of numeric, logical, factor or
#'   character columns, one row per record, without missing values.
#' @param epsilon,delta the privacy target of the whole table; `delta`
#'   defaults to `0.1 / n` (under a budget, the smaller of that and a tenth
#'   of the budget's).
#' @param public_n the number of records, treated as public: it divides
#'   every mean and share and scales the noise.  Default `NULL`: the number
#'   of rows, which the guarantee then does not protect.
#' @param ranges declared ranges of numeric columns: a named list of
#'   `c(lo, hi)` (a column not named gets a private range).
#' @param levels declared levels of factor or character columns: a named
#'   list of character vectors (a factor not named uses its own levels; a
#'   character column must be named).
#' @param budget a [dp_budget()] that pays for the table, as in [dpsco()].
#' @return A data frame of class `dp_summary`, one row per numeric column
#'   and per level of each factor: `variable`, `level` (`NA` for numeric
#'   columns), `mean`, `sd`, `q25`, `median`, `q75`, `lo` and `hi` (the
#'   range the column was clamped to for its mean), `sd_clamp` (the bound
#'   on the distances from the mean in its `sd`), `share` (of a level)
#'   and `noise_sd` (of the mean, or of the share).  `privacy()` gives its record and
#'   `summary()` the sentence for a methods section.
#' @seealso [dp_mean()] for one robust mean; [dp_budget()].
#' @examples
#' set.seed(1)
#' df <- data.frame(age = round(runif(4000, 20, 80)),
#'                  income = rlnorm(4000, 10, 1),
#'                  smoker = factor(sample(c("no", "yes"), 4000, TRUE,
#'                                         c(0.8, 0.2)), levels = c("no", "yes")))
#' tab <- dp_summary(df, epsilon = 1, ranges = list(age = c(18, 90)))
#' tab
#' summary(tab)
#' @export
dp_summary <- function(data, epsilon = 1, delta = NULL, public_n = NULL,
                       ranges = NULL, levels = NULL,
                       budget = getOption("dpsco.budget")) {
  cols <- summary_columns(data, ranges, levels)
  n <- check_public_n(public_n, cols$rows)
  bud <- budget_of(budget)      # budget.R: admitted before a record is read
  delta <- check_target(epsilon, budget_fit_delta(bud, delta, n), n)
  plan <- summary_plan(cols, calibrate_noise(list(), 1, 1, epsilon, delta), n)
  bo <- budget_open(bud, epsilon, delta, n, "dp_summary()")
  local_fit_stream()  # rng.R: .Random.seed afterwards is free of the data
  num <- if (length(cols$num_names)) summary_numeric(cols, plan, n)
  fac <- if (length(cols$fac)) summary_levels(cols, plan, n)
  public <- c(public_n_note(n), "the columns' names and types",
              if (length(cols$declared)) "the declared ranges",
              if (length(cols$fac)) "the levels of each factor")
  record <- new_privacy_record(epsilon, delta, plan$parts, "accountant",
                               public, public_n = n)
  check_releases(record)   # release.R: the record shows every release
  budget_debit(bo$adm, record)
  out <- rbind(num, fac)
  rownames(out) <- NULL
  structure(out, class = c("dp_summary", "data.frame"), privacy = record)
}

# The columns of `data`, sorted into a numeric matrix (with the declared
# ranges) and a list of factor codes (with their levels), every check
# made before any record is read.  Messages name the column, never a value.
summary_columns <- function(data, ranges, levels) {
  if (is.matrix(data)) data <- as.data.frame(data)
  if (!is.data.frame(data) || !ncol(data) || !nrow(data))
    arg_error("data", "must be a data frame with at least one column and row.")
  nm <- names(data)
  if (is.null(nm) || anyNA(nm) || any(!nzchar(nm)) || anyDuplicated(nm))
    arg_error("data", "needs distinct column names.")
  is_num <- vapply(data, function(v) is.numeric(v) || is.logical(v), NA)
  is_fac <- vapply(data, function(v) is.factor(v) || is.character(v), NA)
  bad <- nm[!is_num & !is_fac]
  if (length(bad))
    arg_error("data", "has columns that are neither numeric nor factor: ",
              paste(bad, collapse = ", "), ".")
  for (j in seq_along(data)) {
    v <- data[[j]]
    if (anyNA(v) || (is_num[j] && !all(is.finite(as.double(v)))))
      arg_error("data", "column ", nm[j], " has missing or infinite values; ",
                "remove or impute them first (a count of them would be a ",
                "statistic of the data).")
  }
  check_named_list(ranges, "ranges", nm[is_num])
  check_named_list(levels, "levels", nm[is_fac])
  num <- if (any(is_num)) {
    x <- as.matrix(data[is_num])
    storage.mode(x) <- "double"
    x
  }
  rng <- lapply(nm[is_num], function(v)
    if (!is.null(ranges[[v]])) check_range(ranges[[v]], 1L)[, 1L])
  fac <- lapply(nm[is_fac], function(v) {
    lv <- levels[[v]] %||% base::levels(data[[v]])
    if (is.null(lv))
      arg_error("levels", "must name the levels of the character column ", v,
                ": they are public, and reading them off the data is not.")
    lv <- as.character(lv)
    if (!length(lv) || anyNA(lv) || anyDuplicated(lv))
      arg_error("levels", "of column ", v, " must be distinct strings.")
    # (a factor's values are all among its own levels; declared levels of
    # a character column or a factor may miss some: those are counted as
    # "(other)")
    list(code = match(as.character(data[[v]]), lv, nomatch = length(lv) + 1L),
         levels = lv, other = !is.null(levels[[v]]) || !is.factor(data[[v]]))
  })
  names(fac) <- nm[is_fac]
  list(rows = nrow(data), num = num, num_names = nm[is_num], ranges = rng,
       declared = nm[is_num][!vapply(rng, is.null, NA)], fac = fac)
}

check_named_list <- function(v, arg, allowed) {
  if (is.null(v)) return(invisible())
  if (!is.list(v) || is.null(names(v)) || any(!nzchar(names(v))))
    arg_error(arg, "must be a named list, one entry per column.")
  extra <- setdiff(names(v), allowed)
  if (length(extra))
    arg_error(arg, "names columns that are not of its kind in `data`: ",
              paste(extra, collapse = ", "), ".")
}

# The shares of the budget (units of mu^2) of the releases, from public
# values only (which columns need a range, whether there are factors),
# and their multipliers and record parts.
summary_weights <- c(ranges = 1, mean = 2, spread = 1, moment = 1.5,
                     levels = 1.5)

summary_released <- c(
  ranges = "signed octave counts of each numeric column without a declared range",
  mean = "means of the numeric columns clamped to their ranges, scaled to [-1, 1]",
  spread = "signed octave counts of each numeric column's distance from its mean",
  moment = "mean squares of those distances over their bound, clamped to 1",
  levels = "counts of each declared level of each factor (and of other values)")

summary_plan <- function(cols, z1, n) {
  p <- length(cols$num_names)
  # (the L2 sensitivities, on the scale each is released at: counts, and
  # means of terms in [0, 1] or [-1, 1] over the public n)
  sens <- c(ranges = sqrt(p - length(cols$declared)), mean = sqrt(p) / n,
            spread = sqrt(p), moment = sqrt(p) / n,
            levels = sqrt(length(cols$fac)))
  w <- summary_weights * (sens > 0)
  share <- w / sum(w)
  z <- ifelse(share > 0, part_multiplier(z1, pmax(share, 1e-300)), 0)
  keep <- names(share)[share > 0]
  parts <- lapply(keep, function(nm)
    privacy_part(paste0("summary_", nm), z[[nm]], 1, 1, sens[[nm]],
                 share[[nm]], mechanism = "Gaussian: descriptive statistics",
                 released = summary_released[[nm]]))
  list(z = z, sens = sens, parts = parts)
}

# The numeric columns' rows of the table.
summary_numeric <- function(cols, plan, n) {
  x <- cols$num
  p <- ncol(x)
  z <- plan$z
  rng <- summary_ranges(x, cols$ranges, z[["ranges"]], n)
  mid <- (rng[1L, ] + rng[2L, ]) / 2
  half <- (rng[2L, ] - rng[1L, ]) / 2
  # (the clamped sums centred at the midpoints, in units of the half-ranges)
  u <- data_sums(x, "centre", list(lo = rng[1L, ], hi = rng[2L, ])) / half
  v <- release(u / n, z[["mean"]], sqrt(p) / n, part = "summary_mean")
  m <- mid + half * clamp(v, -1, 1)
  dev <- x - rep(m, each = nrow(x))
  counts <- vapply(seq_len(p), function(j) signed_octave_counts(dev[, j]),
                   integer(127))
  sd_c <- z[["spread"]] * sqrt(p)
  hc <- matrix(release(counts, z[["spread"]], sqrt(p), sd = sd_c,
                      part = "summary_spread"), 127L)
  qs <- vapply(seq_len(p), function(j) spread_reading(hc[, j], sd_c, n), numeric(4))
  b <- pmax(qs[4L, ], 2^-32)
  u2 <- clamp((dev / rep(b, each = nrow(x)))^2, 0, 1)
  m2 <- release(colSums(u2) / n, z[["moment"]], sqrt(p) / n,
                part = "summary_moment")
  s <- b * sqrt(pmax(m2, 0) * n / max(n - 1, 1))
  data.frame(variable = cols$num_names, level = NA_character_, mean = m,
             sd = s, q25 = m + qs[1L, ], median = m + qs[2L, ],
             q75 = m + qs[3L, ], lo = rng[1L, ], hi = rng[2L, ],
             sd_clamp = b, share = NA_real_,
             noise_sd = z[["mean"]] * sqrt(p) / n * half,
             stringsAsFactors = FALSE)
}

# The ranges of the numeric columns (2 x p): the declared ones, and from
# one release of signed octave counts for the others (the outermost
# octave told from empty on each side, times 2, as signed_octave_range()
# reads it with the level at the last kept count).
summary_ranges <- function(x, declared, z, n) {
  out <- vapply(declared, function(r) if (is.null(r)) c(NA, NA) else r, c(0, 0))
  need <- which(is.na(out[1L, ]))
  if (!length(need)) return(out)
  k <- length(need)
  counts <- vapply(need, function(j) signed_octave_counts(x[, j]), integer(127))
  sd <- z * sqrt(k)
  hc <- matrix(release(counts, z, sqrt(k), sd = sd, part = "summary_ranges"),
               127L)
  rule <- utils::modifyList(octave_rule, list(tau = 0))
  for (i in seq_len(k)) {
    r <- signed_octave_range(hc[, i], sd, rule, n)
    # (a column that is all 0, or unseen: a unit range around 0)
    if (!(r[2L] > r[1L])) r <- c(-1, 1)
    out[, need[i]] <- r
  }
  out
}

# From the noisy signed octave counts of a column's distances from its
# mean: the quartiles' offsets from the mean and the bound on the
# distances (the edge of the outermost octave told from empty).  Counts
# outside the run of octaves told from the noise are taken as 0, the
# others floored at 0; a quantile is read log-linearly within its octave.
spread_reading <- function(counts, sd, n) {
  kept <- octave_kept(counts, sd, octave_rule$k, n)
  if (!anchored(kept[-64L], sd)) return(c(0, 0, 0, 1))
  mag <- c(0, kept[65:127] + kept[63:1])
  run <- octave_run(mag)
  oct <- abs(seq_len(127L) - 64L) + 1L
  used <- pmax(counts, 0)
  used[oct != 1L & (oct < run[1L] | oct > run[2L])] <- 0
  seen <- which(kept > 0 & (oct == 1L | (oct >= run[1L] & oct <= run[2L])))
  bound <- max(abs(signed_edges(seen)))
  tot <- sum(used)
  q <- vapply(c(0.25, 0.5, 0.75), function(tau) {
    if (!(tot > 0)) return(0)
    cum <- cumsum(used)
    s <- which(cum >= tau * tot)[1L]
    frac <- (tau * tot - (cum[s] - used[s])) / max(used[s], 1e-300)
    signed_within(s, clamp(frac, 0, 1), inner = oct[s] == run[1L])
  }, 0)
  c(q, bound)
}

# The outer edge of signed bins s (1 .. 127, signed_bin()): 0 for the
# zero bin, +-2^(k - 33) for octave k of either sign.
signed_edges <- function(s)
  ifelse(s == 64L, 0, ifelse(s > 64L, 2^(s - 96), -2^(32 - s)))

# The value a fraction `frac` of the way through signed bin s, in value
# order: log-linear within its octave, but linear from 0 in the innermost
# octave of the run (`inner`), which then stands for every value between
# 0 and its edge (the octaves below it hold too few records to be told
# from the noise, and a median near the mean falls there); the zero
# bin: 0.
signed_within <- function(s, frac, inner = FALSE) {
  if (s == 64L) return(0)
  edge <- signed_edges(s)
  if (inner) return(edge * if (s > 64L) frac else 1 - frac)
  if (s > 64L) return(2^(s - 97 + frac))
  -2^(32 - s - frac)
}

# The factor columns' rows: the shares of their levels from one release
# of the counts (with declared levels, the values outside them counted as
# "(other)"); the shares are the noisy counts floored at 0, over their
# sum.
summary_levels <- function(cols, plan, n) {
  q <- length(cols$fac)
  z <- plan$z[["levels"]]
  counts <- lapply(cols$fac, function(f)
    tabulate(f$code, length(f$levels) + f$other))
  noisy <- release(unlist(counts), z, sqrt(q), part = "summary_levels")
  ends <- cumsum(lengths(counts))
  rows <- lapply(seq_len(q), function(i) {
    f <- cols$fac[[i]]
    c_i <- pmax(noisy[(ends[i] - lengths(counts)[i] + 1L):ends[i]], 0)
    tot <- sum(c_i)
    sh <- if (tot > 0) c_i / tot else rep(0, length(c_i))
    data.frame(variable = names(cols$fac)[i],
               level = c(f$levels, if (f$other) "(other)"), mean = NA_real_,
               sd = NA_real_, q25 = NA_real_, median = NA_real_, q75 = NA_real_,
               lo = NA_real_, hi = NA_real_, sd_clamp = NA_real_,
               share = sh,
               noise_sd = z * sqrt(q) / n, stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

#' @rdname dp_summary
#' @param x,object a `dp_summary` table.
#' @param digits significant digits.
#' @param ... unused.
#' @export
print.dp_summary <- function(x, digits = 3, ...) {
  pr <- attr(x, "privacy")
  f <- function(v) vapply(v, function(a)
    format(signif(a, digits), big.mark = ",", trim = TRUE), "")
  num <- is.na(x$level)
  cat(sprintf("Private summary of %s records, (epsilon, delta) = (%s, %s)\n\n",
              format_count(pr$public_n), f(pr$epsilon), f(pr$delta)))
  shown <- data.frame(
    variable = ifelse(num, x$variable, paste0(x$variable, ": ", x$level)),
    `mean (sd)` = ifelse(num, paste0(f(x$mean), " (", f(x$sd), ")"), ""),
    `median [IQR]` = ifelse(num, paste0(f(x$median), " [", f(x$q25), ", ",
                                        f(x$q75), "]"), ""),
    share = ifelse(num, "", sprintf("%.1f%%", 100 * x$share)),
    check.names = FALSE, stringsAsFactors = FALSE)
  print(shown, row.names = FALSE, right = FALSE)
  cat("\nNoise sd of each mean or share in `noise_sd`; the ranges the means",
      "were clamped to in `lo`, `hi`; each sd is of the distances from the",
      "mean clamped at `sd_clamp`.\n", fill = TRUE)
  cat(privacy_status(pr)$lines, sep = "\n")
  invisible(x)
}

#' @rdname dp_summary
#' @export
summary.dp_summary <- function(object, ...) {
  pr <- attr(object, "privacy")
  sentence <- paste0(
    "The descriptive statistics (means, standard deviations, medians and ",
    "quartiles of the numeric variables, shares of the factors' levels) ",
    "were released with Gaussian noise and satisfy ", pr$guarantee)
  structure(list(sentence = sentence, privacy = pr),
            class = "summary.dp_summary")
}

#' @export
print.summary.dp_summary <- function(x, ...) {
  writeLines(strwrap(x$sentence))
  invisible(x)
}
