# The estimation methods of dpsco(), one registered object each.
#
# A method lives in one file that calls register_method() once.  The object
# carries everything the rest of the package asks about a method: its label
# and reference, the path it fits along (penalties or constraint radii), the
# families it supports, the neighbouring relation its proof is stated for,
# how it samples records, whether it takes secure noise and cv.dpsco(), the
# control fields it reads, what private settings it needs and the function
# that fits it.  dpsco(), cv.dpsco(), print() and the privacy record read
# these traits; no other file names a method.

method_registry <- new.env(parent = emptyenv())

# (here, as the method files use it when they register)
`%||%` <- function(a, b) if (is.null(a)) b else a

# Control fields every method reads: the budget shares and declared values
# of the private settings, private standardisation and the quantile
# family's smoothing.
common_control <- c("shares", "std_share", "x_bound", "center", "y_range",
                    "kappa",
                    "quantiles", "bandwidth", "kernel", "smoothing")

# Build and register one method.
#   name        the value of dpsco(method = ).
#   label       one line for print() and summary().
#   reference   the paper (and algorithm) it implements.
#   path        "lambda" (a penalised path, the engine's proximal steps) or
#               "radius" (a path of constraint radii).
#   families    the families it fits.
#   adjacency   "add/remove" when its release is analysed for one record
#               added or removed at the public n, "replace-one" when its
#               guarantee is a theorem for two data sets of n records that
#               differ in one record (it then runs on the records resized to
#               the public n; see resize_records()).  A function of lp for
#               methods whose relation depends on the geometry.
#   sampling    how it uses the records (printed in dpsco_methods()).
#   secure      takes secure = TRUE (the Gaussian releases of the oracles).
#   cv          cv.dpsco() can choose along its path.
#   control     the dpsco_control() fields it reads beyond common_control.
#   fit         the function that fits it, see the two path drivers
#               (lambda_path() in lambda-path.R, radius_path() in
#               constrained.R) for the arguments.
#   ...         traits one path driver reads (documented there).
register_method <- function(name, label, reference, path, families, adjacency,
                            sampling, secure = FALSE, cv = TRUE,
                            control = character(), fit, ...) {
  # (the conformance test checks families and control fields against
  # family_codes and dpsco_control(), which load after the method files)
  stopifnot(is.character(name), length(name) == 1L,
            path %in% c("lambda", "radius"),
            is.function(adjacency) || adjacency %in% c("add/remove", "replace-one"),
            is.function(fit))
  obj <- structure(list(name = name, label = label, reference = reference,
                        path = path, families = families,
                        adjacency = adjacency, sampling = sampling,
                        secure = secure, cv = cv, control = control,
                        fit = fit, ...),
                   class = "dpsco_method")
  assign(name, obj, envir = method_registry)
  invisible(obj)
}

# Registered methods in a fixed order: the paper's oracles first, then
# the penalised and the radius methods by name.
method_names <- function() {
  all <- ls(method_registry)
  path <- vapply(all, function(m) method_registry[[m]]$path, "")
  rank <- vapply(all, function(m) method_registry[[m]]$rank %||% 99, 0)
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
check_method <- function(method, family, default, cv = FALSE) {
  name <- if (is.null(method)) default
          else match_choice(method, "method", method_names())
  spec <- method_spec(name)
  if (!family %in% spec$families)
    arg_error("family", "= \"", family, "\" is not fitted by method \"", name,
              "\" (it fits ", paste0("\"", spec$families, "\"", collapse = ", "),
              ").")
  if (cv && !spec$cv)
    arg_error("method", "\"", name, "\" cannot be chosen along its path by ",
              "cv.dpsco().")
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
#' records, whether it takes `secure = TRUE` and [cv.dpsco()], and the
#' [dpsco_control()] fields it reads.
#'
#' @return A data frame with columns `method`, `label`, `path` (`"lambda"`
#'   for a penalised path, `"radius"` for a path of constraint radii),
#'   `families` (comma-separated), `adjacency` (`"add/remove"`: the release
#'   is analysed for a record added or removed at the public `n`;
#'   `"replace-one"`: the guarantee is its paper's theorem for data sets of
#'   `n` records that differ in one record, carried to add/remove by
#'   resizing the records to the public `n`), `sampling`, `secure`, `cv`,
#'   `control` (comma-separated field names) and `reference`.
#' @examples
#' m <- dpsco_methods()
#' m[, c("method", "path", "families", "adjacency")]
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
    cv = vapply(specs, function(s) s$cv, TRUE),
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
  Filter(function(m) isTRUE(method_spec(m)$lp), method_names())
}

# Does the method add noise?  (Only an oracle can be declared not private.)
method_private <- function(spec) !isFALSE(spec$oracle$private)
