#' @include utils.R
NULL

# The estimation methods of dpsco(), one registered object each.
#
# A method lives in one file that calls register_method() once.  The object
# carries everything the rest of the package asks about a method: its
# traits, declared in method_traits below (its label and reference, the
# path it fits along, the families it supports, the neighbouring relation
# its proof is stated for, the control fields it reads, what the path
# drivers need to know and the function that fits it).  dpsco(),
# cv.dpsco(), print() and the privacy record read these traits; no other
# file names a method.
#
# Every method's fit has one signature, fit(prob, path, settings):
#   path "lambda"  prob = list(x, y, beta0, trace_at) (the design, the
#                  response, the start and the steps to trace), path the
#                  penalties, settings the engine's settings list (see
#                  lambda_path()); returns the engine's result.
#   path "radius"  prob the problem list of radius_path() (data, bounds,
#                  family, tuning), path the radii, settings =
#                  list(budget, control, steps) (the target and the private
#                  settings' parts, dpsco_control(), the user's iterations
#                  or NULL); returns list(beta, parts, settings, public, ...).

method_registry <- new.env(parent = emptyenv())

# Control fields every method reads: the budget shares and declared values
# of the private settings, private standardisation and the quantile
# family's smoothing.
common_control <- c("shares", "std_share", "x_bound", "center", "y_range",
                    "kappa",
                    "quantiles", "bandwidth", "kernel", "smoothing")

# Why the methods along radii cannot run on sharded data (their
# `shardable`).
radius_unshardable <-
  "the constraint-set methods run their own loops over the records"

# The checks of the trait table.
is_string <- function(v) {
  is.character(v) && length(v) == 1L && !is.na(v) && nzchar(v)
}
is_flag <- function(v) is.logical(v) && length(v) == 1L && !is.na(v)
is_names <- function(v) is.character(v) && !anyNA(v)
is_number <- function(v) is.numeric(v) && length(v) == 1L && !is.na(v)
one_of <- function(...) function(v) is_string(v) && v %in% c(...)
or_null <- function(check) function(v) is.null(v) || check(v)
is_fit <- function(v) {
  is.function(v) && identical(names(formals(v)), c("prob", "path", "settings"))
}

# The default of a trait every method must give.
required_trait <- structure(list(), class = "dpsco_required_trait")

trait <- function(default, check, doc) {
  list(default = default, check = check, doc = doc)
}

# The traits of a method, as entry.c states its settings lists: one row per
# trait with its default (required_trait: none, it must be given), the check
# its value must pass, and its meaning.  register_method() refuses a name
# outside the table, so a misspelt trait cannot read as its default, and
# fills in the defaults, so every trait is there (a NULL default: the
# method has none).  "lambda:" and "radius:" mark the traits one path
# driver reads (lambda_path() in lambda-path.R, radius_path() in
# constrained.R).
method_traits <- list(
  name = trait(required_trait, is_string, "the value of dpsco(method = )"),
  label = trait(required_trait, is_string,
                "one line for print() and summary()"),
  reference = trait(required_trait, is_string,
                    "the paper (and algorithm) it implements"),
  path = trait(required_trait, one_of("lambda", "radius"),
               "a penalised path or a path of constraint radii"),
  families = trait(required_trait, function(v) is_names(v) && length(v) > 0L,
                   "the families it fits (the tests check family_codes)"),
  adjacency = trait(required_trait,
                    function(v) is.function(v) ||
                      one_of("add/remove", "replace-one")(v),
                    "its proof's relation, or a function of lp"),
  sampling = trait(required_trait, is_string, "how it uses the records"),
  fit = trait(required_trait, is_fit,
              "function(prob, path, settings), see the header"),
  rank = trait(99, is_number, "its place among its path's methods"),
  control = trait(character(), is_names,
                  "the dpsco_control() fields it reads beyond common_control"),
  secure = trait(FALSE, is_flag, "takes secure = TRUE (Gaussian releases)"),
  shardable = trait("its steps are not the engine's Poisson-batch sums",
                    function(v) isTRUE(v) || is_string(v),
                    "TRUE: fits sharded data; else the reason it cannot"),
  truncation = trait("none", one_of("l2", "coordinate", "none"),
                     "the clipping level private tuning releases"),
  oracle = trait(NULL, or_null(is.list),
                 "lambda: its gradient oracle, new_oracle() in oracles.R"),
  gradient_oracle = trait(NULL, or_null(is_string),
                          "lambda: the oracle it borrows (NULL: its own)"),
  optimizers = trait(c("newton", "spgd"),
                     function(v) is_names(v) && length(v) > 0L &&
                       all(v %in% c("newton", "spgd")),
                     "lambda: its optimisers, the first its private default"),
  converges = trait(FALSE, is_flag,
                    "lambda: solved to convergence without iterations"),
  disjoint = trait(FALSE, is_flag,
                   "lambda: passes over per-record random blocks"),
  blocks = trait(NULL, or_null(is.function),
                 "lambda, disjoint: function(n, batch_size, iterations)"),
  step_scale = trait(1, function(v) is_number(v) && v > 0,
                     "lambda: the factor of the default step"),
  output = trait(NULL, or_null(one_of("average", "last", "tail")),
                 "lambda: the output it always returns (NULL: the control's)"),
  mechanism = trait(NULL, or_null(is.function),
                    "lambda, disjoint: function() giving the record's text"),
  released = trait(NULL, or_null(is.function),
                   "lambda, disjoint: function(nlam, steps, first_release)"),
  row = trait(FALSE, is_flag,
              "radius: its smoothness is the squared private row bound"),
  bounded = trait(FALSE, is_flag,
                  "radius: shrinks x and y to [-K, K] with public tuning"),
  shrink = trait(FALSE, is_flag,
                 "radius: takes control$shrink with private tuning too"),
  lp = trait(FALSE, is_flag, "radius: takes dpsco(lp = )"),
  radius_inf = trait(function(fam) FALSE, is.function,
                     "radius: function(fam): may a radius be Inf?"),
  one_pass = trait(NULL, or_null(is.list),
                   "radius: its one_pass_variant() (one-pass.R)"))

# Build and register one method from its traits (method_traits); an
# unknown, unnamed, repeated, missing or ill-formed trait is an error
# naming it.
register_method <- function(name, ...) {
  given <- list(name = name, ...)
  who <- paste0("register_method(\"", if (is_string(name)) name else "?",
                "\"): ")
  nm <- names(given)
  if (any(!nzchar(nm)) || anyDuplicated(nm))
    stop(who, "every trait must be named once.", call. = FALSE)
  unknown <- setdiff(nm, names(method_traits))
  if (length(unknown))
    stop(who, "unknown trait ", paste0("`", unknown, "`", collapse = ", "),
         call. = FALSE)
  obj <- lapply(method_traits, `[[`, "default")
  obj[nm] <- given
  for (t in names(method_traits)) {
    if (inherits(obj[[t]], "dpsco_required_trait"))
      stop(who, "trait `", t, "` is required.", call. = FALSE)
    if (!isTRUE(method_traits[[t]]$check(obj[[t]])))
      stop(who, "trait `", t, "` fails its check (", method_traits[[t]]$doc,
           ").", call. = FALSE)
  }
  # the traits that matter only together
  if (obj$disjoint && !(is.function(obj$blocks) && is.function(obj$mechanism) &&
                        is.function(obj$released)))
    stop(who, "a disjoint method needs `blocks`, `mechanism` and `released`.",
         call. = FALSE)
  if (obj$path == "lambda" && is.null(obj$oracle) &&
      is.null(obj$gradient_oracle))
    stop(who, "a penalised method needs `oracle` or `gradient_oracle`.",
         call. = FALSE)
  obj <- structure(obj, class = "dpsco_method")
  assign(name, obj, envir = method_registry)
  invisible(obj)
}

# Registered methods in a fixed order: the penalised methods first (the
# paper's oracles leading), then the radius methods, each by rank.
method_names <- function() {
  all <- ls(method_registry)
  path <- vapply(all, function(m) method_registry[[m]]$path, "")
  rank <- vapply(all, function(m) method_registry[[m]]$rank, 0)
  all[order(path, rank, all)]
}

method_spec <- function(name) {
  spec <- method_registry[[name]]
  if (is.null(spec)) stop("no method \"", name, "\" is registered", call. = FALSE)
  spec
}

# The relation a method's guarantee is stated for, at geometry lp.
method_adjacency <- function(spec, lp = 2) {
  if (is.function(spec$adjacency)) spec$adjacency(lp) else spec$adjacency
}

# The method a user named (exactly), for `family`; `default` when NULL.
check_method <- function(method, family, default) {
  name <- if (is.null(method)) default
          else match_choice(method, "method", method_names())
  spec <- method_spec(name)
  if (!family %in% spec$families)
    arg_error("family", "= \"", family, "\" is not fitted by method \"", name,
              "\" (it fits ", paste0("\"", spec$families, "\"", collapse = ", "),
              ").")
  spec
}

# The control of one fit: a field the user set that the method does not
# read is an error naming the method; the names that changed meaning are
# moved to their new fields with a deprecation warning.
method_control <- function(spec, control) {
  given <- attr(control, "given") %||% character()
  if ("strong_convexity" %in% given && "sgd_ridge" %in% spec$control) {
    warning("dpsco_control(strong_convexity = ) as the ridge of \"",
            spec$name, "\" is deprecated: use sgd_ridge.",
            call. = FALSE)
    control$sgd_ridge <- control$strong_convexity
    given <- c(setdiff(given, "strong_convexity"), "sgd_ridge")
  }
  unused <- setdiff(given, c(common_control, spec$control))
  if (length(unused))
    arg_error("control", "sets ", paste0("`", unused, "`", collapse = ", "),
              ", which method \"", spec$name, "\" does not use (it reads ",
              paste0("`", sort(spec$control), "`", collapse = ", "),
              " besides the budget shares and declared bounds).")
  control
}

#' The estimation methods of dpsco()
#'
#' One row per method that [dpsco()] fits, with the traits that decide how
#' it is used: the path it fits along, the families it supports, the
#' neighbouring relation its guarantee is proved for, how it samples the
#' records, whether it takes `secure = TRUE`, whether it fits data held in
#' shards ([dpsco_shards()]), and the [dpsco_control()] fields it reads.
#' Every method can be tuned by [cv.dpsco()] along its path.
#'
#' @return A data frame with columns `method`, `label`, `path` (`"lambda"`
#'   for a penalised path, `"radius"` for a path of constraint radii),
#'   `families` (comma-separated), `adjacency` (`"add/remove"`: the release
#'   is analysed for a record added or removed at the public `n`;
#'   `"replace-one"`: the guarantee is its paper's theorem for data sets of
#'   `n` records that differ in one record, carried to add/remove by
#'   resizing the records to the public `n`), `sampling`, `secure`,
#'   `shardable` (`TRUE` when [dpsco()] and [cv.dpsco()] fit it on
#'   [dpsco_shards()] data), `shard_note` (why a method that is not
#'   shardable cannot be fitted on shards, the reason its refusal there
#'   gives; `NA` for the shardable ones), `control` (comma-separated field
#'   names) and `reference`.
#' @examples
#' m <- dpsco_methods()
#' m[, c("method", "path", "families", "adjacency")]
#' # why some methods cannot be fitted on a cluster
#' m[!m$shardable, c("method", "shard_note")]
#' @export
dpsco_methods <- function() {
  specs <- lapply(method_names(), method_spec)
  col <- function(f) vapply(specs, f, "")
  data.frame(
    method = col(function(s) s$name),
    label = col(function(s) s$label),
    path = col(function(s) s$path),
    families = col(function(s) paste(s$families, collapse = ", ")),
    adjacency = col(function(s) {
      a <- unique(c(method_adjacency(s, 2), method_adjacency(s, 1.5)))
      if (length(a) == 1L) a else "add/remove at lp = 2, replace-one below"
    }),
    sampling = col(function(s) s$sampling),
    secure = vapply(specs, function(s) s$secure, TRUE),
    shardable = vapply(specs, function(s) isTRUE(s$shardable), TRUE),
    shard_note = vapply(specs, function(s)
      if (isTRUE(s$shardable)) NA_character_ else s$shardable, ""),
    control = col(function(s) paste(sort(s$control), collapse = ", ")),
    reference = col(function(s) s$reference),
    stringsAsFactors = FALSE)
}

# The registered methods fitted along `path` ("lambda" or "radius").
path_methods <- function(path) {
  Filter(function(m) method_spec(m)$path == path, method_names())
}

# The methods of an l_p geometry (they take dpsco(lp = )).
lp_methods <- function() {
  Filter(function(m) method_spec(m)$lp, method_names())
}

# Does the method add noise?  (Only an oracle can be declared not private.)
method_private <- function(spec) is.null(spec$oracle) || spec$oracle$private
