#' @include registry.R
NULL

# Which dpsco() arguments each path takes, and what else restricts them.
# One row per argument that not every method takes:
#   paths   the paths ("lambda", "radius") whose methods accept it
#   trait   a method trait that must also be TRUE (lp: the l_p geometry)
#   unset   the values that mean "not given" (NULL unless listed)
#   multi   FALSE when a family with one predictor per class refuses it
#   verb    the verb agreeing with the argument's name in the message
# Every other dpsco() argument applies to every method.
path_args <- list(
  radius           = list(paths = "radius"),
  lp               = list(paths = "radius", trait = "lp"),
  lambda           = list(paths = "lambda"),
  optimizer        = list(paths = "lambda"),
  batch_size       = list(paths = "lambda"),
  step_size        = list(paths = "lambda"),
  alpha            = list(paths = "lambda", unset = list(NULL, 1)),
  penalty.factor   = list(paths = "lambda"),
  lower.limits     = list(paths = "lambda", verb = "apply"),
  upper.limits     = list(paths = "lambda", verb = "apply"),
  penalty.scale    = list(paths = "lambda"),
  trace            = list(paths = "lambda", unset = list(NULL, FALSE),
                          multi = FALSE),
  lambda.min.ratio = list(paths = "lambda"),
  weights          = list(paths = "lambda", verb = "apply"),
  offset           = list(paths = "lambda", multi = FALSE),
  inference        = list(paths = "lambda", unset = list(NULL, 0),
                          multi = FALSE)
)

# The restrictions that are not one argument against one path: each takes
# the method, the arguments and the family object and returns the error
# as c(argument, message) or NULL.
path_arg_rules <- list(
  # the paper's noise scales exist for its three oracles only
  calibration = function(spec, a, fam) {
    if (identical(a$calibration, "paper") && is.null(spec$oracle$paper))
      c("calibration", "\"paper\" exists only for the paper's methods clip, ",
        "kamath and holland.")
  },
  secure = function(spec, a, fam) {
    if (!isTRUE(a$secure) || spec$secure) return(NULL)
    if (isFALSE(spec$oracle$private))
      return(c("secure", "applies to private fits; method \"", spec$name,
               "\" adds no noise."))
    c("secure", "= TRUE is available for the Gaussian releases of methods ",
      paste(Filter(function(m) method_spec(m)$secure, method_names()),
            collapse = ", "),
      "; method \"", spec$name, "\" privatises with a mechanism that has ",
      "no exact sampler here.")
  },
  # the radius methods' settings read x in memory, and so does the
  # multinomial engine (on shards too: the workers' passes); cv.dpsco()'s
  # parts of a file-backed x are views of the file (R/design.R)
  x = function(spec, a, fam) {
    if (is_sharded(a$x) && isTRUE(a$x$shards$mapped) && fam$multi)
      return(c("x", "holds file-backed shards; a ", fam$name, " fit needs ",
               "the shards in memory (matrices or dgCMatrix)."))
    if (!is_mapped(a$x)) return(NULL)
    who <- if (spec$path == "radius")
             paste0("the constraint-set method \"", spec$name, "\"")
           else if (fam$multi) paste0("a ", fam$name, " fit")
    if (!is.null(who))
      c("x", "is file-backed; ", who, " needs x in memory (a matrix or a ",
        "dgCMatrix).")
  },
  optimizer = function(spec, a, fam) {
    if (is.null(a$optimizer) || spec$path != "lambda") return(NULL)
    opt <- match_choice(a$optimizer, "optimizer", c("newton", "spgd"))
    d <- ncol(a$x) + isTRUE(a$intercept)
    if (!opt %in% spec$optimizers)
      c("optimizer", "\"", spec$name, "\" runs with optimizer = \"",
        spec$optimizers, "\" only; leave optimizer NULL.")
    else if (opt == "newton" && identical(a$tuning, "public"))
      c("optimizer", "\"newton\" needs the private curvature of ",
        "tuning = \"private\".")
    else if (opt == "newton" && d > curvature_max_d())
      c("optimizer", "\"newton\" releases a d x d curvature matrix; d = ", d,
        " is above its limit of ", curvature_max_d(),
        " (use \"spgd\", the default there).")
  },
  # the stage's score exists for some families; its releases read x in
  # memory; its design's scale comes from the private settings
  inference = function(spec, a, fam) {
    if (!isTRUE(a$inference > 0)) return(NULL)
    if (is.null(fam$inference))
      c("inference", "is not yet available for the ", fam$name, " family ",
        "(it is for gaussian, binomial and poisson).")
    else if (identical(a$tuning, "public"))
      c("inference", "needs tuning = \"private\": the stage's scale and ",
        "row bound are private settings.")
    else if (is_mapped(a$x) || is_sharded(a$x))
      c("inference", "needs x in memory (a matrix or a dgCMatrix).")
  },
  control = function(spec, a, fam) {
    ctl <- a$control
    if (!is.null(spec$output) && !is.null(ctl$output) &&
        ctl$output != spec$output)
      return(c("control", "$output: \"", spec$name, "\" returns the ",
               spec$output, " iterate."))
    # the shrinkage of the bounded-data methods' public bounds
    if (spec$path == "radius" && !is.null(ctl$shrink) &&
        !spec$shrink &&
        !(spec$bounded && identical(a$tuning, "public")))
      c("control", "$shrink (K) applies to ",
        paste0("\"", Filter(function(m) method_spec(m)$shrink,
                            method_names()), "\"", collapse = ", "),
        ", and to the bounded-data methods with tuning = \"public\".")
  }
)

# The one check of which arguments apply: `a` the arguments by dpsco()'s
# names (absent ones not given), `fam` the family object.  Stops at the
# first argument that does not apply.
check_path_args <- function(spec, a, fam) {
  quoted <- function(m) paste0("\"", m, "\"", collapse = ", ")
  for (arg in names(path_args)) {
    row <- path_args[[arg]]
    v <- a[[arg]]
    if (any(vapply(row$unset %||% list(NULL), identical, TRUE, v))) next
    if (!spec$path %in% row$paths || !is.null(row$trait) &&
        !spec[[row$trait]])
      arg_error(arg, if (!is.null(row$trait))
                  paste0("applies to the methods of an l_p geometry (",
                         quoted(lp_methods()), ") only.")
                else if (row$paths == "radius")
                  paste0("applies to the methods fitted along radii (",
                         quoted(path_methods("radius")), ").")
                else paste0(row$verb %||% "applies", " to the penalised ",
                            "methods (", quoted(path_methods("lambda")),
                            "), not to the constraint-set method \"",
                            spec$name, "\"."))
    if (isFALSE(row$multi) && fam$multi)
      arg_error(arg, "is not available for the ", fam$name, " family.")
  }
  for (rule in path_arg_rules) {
    err <- rule(spec, a, fam)
    if (!is.null(err)) arg_error(err[1L], paste0(err[-1L], collapse = ""))
  }
  invisible()
}
