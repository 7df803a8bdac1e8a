# The family object: what the rest of the package asks of a loss instead of
# branching on its name.  Internal; built by the constructors of
# R/family-glm.R, R/family-quantile.R and R/family-multinomial.R through
# new_family(), which checks every field against the table below (an
# unknown field, a missing one or one of the wrong kind is an error at
# construction, so a new family cannot leave a field out); as_family()
# builds one from the user's arguments (once per fit, which stores it and
# hands it to every phase), family_object() from a name and the options a
# fit stores.  tools/check-structure.R fails on a constructor field the
# table does not list.

# One field: its kind (family_kinds), whether every constructor must set
# it (`required`; an optional field a constructor leaves out is absent,
# and reads as NULL), whether NULL is a value it may take, its default
# when it is a flag the constructors set only where it holds, and what it
# means.
family_field <- function(kind, doc, required = TRUE, null = FALSE,
                         default = NULL)
  list(kind = kind, doc = doc, required = required, null = null,
       default = default)

# The kinds a field may be, as checks.
family_kinds <- list(
  string = function(v) is.character(v) && length(v) == 1L,
  strings = function(v) is.character(v) && length(v) >= 1L && !anyNA(v),
  flag = function(v) is.logical(v) && length(v) == 1L && !is.na(v),
  number = function(v) is.numeric(v) && length(v) == 1L,
  count = function(v) is.numeric(v) && length(v) == 1L && !is.na(v) &&
    v >= 1 && v == round(v),
  fun = is.function,
  list = is.list,
  funs = function(v) is.list(v) && all(vapply(v, is.function, NA)))

# The fields, in the order of the objects' own.  Functions of eta take an
# n x K matrix (multinomial: n x classes x K where noted).
family_fields <- function() list(
  label = family_field("string", "the family as print() names it (with tau for quantile)"),
  model = family_field("string", "the model as summary() names it (NA while a quantile bandwidth is to be chosen)"),
  nclass = family_field("count", "multinomial: the declared number of classes", required = FALSE, null = TRUE),
  settings = family_field("list", "the engine's family settings (family_settings(), src/family.c)"),
  tau = family_field("number", "quantile: the level", required = FALSE),
  smoother = family_field("string", "quantile: a kernel name or \"moreau\"", required = FALSE),
  kernel = family_field("string", "quantile: the kernel as given", required = FALSE),
  smoothing = family_field("string", "quantile: \"convolution\" or \"moreau\"", required = FALSE),
  bandwidth = family_field("number", "quantile: the bandwidth (NULL: not chosen yet)", required = FALSE, null = TRUE),
  options = family_field("list", "quantile: the options a fit stores as settings$quantile (with private tuning also the released centre and curvature weight, family_with())", required = FALSE),
  multi = family_field("flag", "TRUE when the model has one predictor per class (multinomial: eta n x K, a residual one row of K per record)", required = FALSE, default = FALSE),
  residual = family_field("fun", "(eta, y): the loss derivative in eta (the engine's, family.c)"),
  loss = family_field("fun", "(eta, y): the per-record loss the fit minimises"),
  eval_loss = family_field("fun", "(eta, y): the per-record loss of a held-out risk (the check loss unsmoothed for quantile)"),
  curvature = family_field("number", "bound on the loss's second derivative in eta: the per-record Hessian is at most curvature ||(1, x)||^2"),
  step_curvature = family_field("number", "the curvature a fixed gradient step assumes (1 for the check loss, whose K(0) / h grows as h shrinks)"),
  bounded = family_field("flag", "TRUE when the residual is bounded whatever y and eta"),
  slope_bound = family_field("number", "that bound (Inf for least squares)"),
  residual_bound = family_field("fun", "(error_bound): the largest |residual| when |y - eta| <= error_bound"),
  clip_bounds_error = family_field("flag", "TRUE when a clip on the residual also bounds the prediction error |y - response|"),
  quadratic = family_field("flag", "TRUE when the loss is quadratic (a quadratic model is exact, not a majoriser)"),
  null_risk_bound = family_field("fun", "(offset): a bound on the mean loss at w = 0 for every y, or NULL when there is none"),
  inverse_link = family_field("fun", "(eta): the response predict() gives"),
  classes = family_field("flag", "TRUE when the response is a class label (0/1, or 0 to K - 1)"),
  start = family_field("fun", "(centre, n): the starting intercept(s) from a released centre of y on the response scale, n the public size"),
  centre_release = family_field("fun", "(y, z, n): the family's own release of the centre (multinomial: the class shares)", required = FALSE),
  measures = family_field("strings", "the validation measures of cv.dpsco(), the default first"),
  assess_measures = family_field("strings", "the measures of assess.dpsco(), in glmnet's order"),
  radius_top = family_field("number", "the largest default radius of the constraint methods"),
  null_residual = family_field("fun", "(x, y, intercept, unpenalised, weights, offset): minus the gradient's residual at the fit of the unpenalised terms alone (non-private lambda_max), weighted and beside the offsets when given"),
  null_eta = family_field("fun", "(y, weights, offset): the linear predictor of the intercept-only model fitted beside the offsets (glmnet's null deviance): n x 1, multinomial n x K x 1"),
  link = family_field("fun", "(mean): the linear predictor of a declared mean of y"),
  centre_range = family_field("fun", "(y_range): the range the private centre of y is clamped to (NULL: the family's y_settings release the centre)", null = TRUE),
  centre_floor = family_field("flag", "TRUE: the released centre is kept within [its noise sd, the bound] (poisson: a mean count)", required = FALSE, default = FALSE),
  offset_curvature = family_field("flag", "TRUE: the curvature at b0 grows with each record's exposure e^offset, so the curvature release weights rows by their exposures (poisson)", required = FALSE, default = FALSE),
  start_curvature = family_field("fun", "(b0, intercept, fam): the loss's curvature per unit of second moment at the start b0 (the private curvature's weight)"),
  class_matrix = family_field("fun", "(b0, intercept): multinomial: the K x K class factor S of the curvature S (x) A at b0 (top eigenvalue 1)", required = FALSE),
  net_offset = family_field("fun", "(y, offset): y net of per-record offsets on the response scale, whose bound and centre the private settings release"),
  inference = family_field("list", "the inference stage's score (R/inference.R): list(terms(eta, y) -> list(psi = y - mu, d = dmu / deta), trust: the largest move of a linear predictor in one step, constant_bread: TRUE when d does not depend on eta, steps: the first Newton steps, inference_steps when absent); absent where there is none yet", required = FALSE),
  model_step = family_field("number", "the default step of the Newton path's quadratic model"),
  model_memory = family_field("number", "the Newton path's default memory when it is not the control's", required = FALSE),
  model_steps = family_field("count", "the Newton path's default steps per lambda (absent: 2)", required = FALSE),
  y_settings = family_field("fun", "the family's own private settings of y (quantile.R: centre and bandwidth from a histogram of y)", null = TRUE),
  y_check = family_field("fun", "(y): the family's own check of a finite numeric y (poisson: non-negative counts)", null = TRUE),
  trials_matrix = family_field("flag", "TRUE when glmnet takes y as a two-column (successes, failures) matrix, which check_y_columns() refuses with how to expand it"),
  hessian = family_field("fun", "(eta, y): the loss's second derivative in eta per record (the exact Newton solver's weights); NULL for multinomial", null = TRUE),
  measure_loss = family_field("funs", "the family's own per-record validation losses of cv.dpsco(), function(y, pred) by measure name"),
  deviance = family_field("fun", "(eta, y): the deviance of each penalty's fit from its linear predictors (multinomial: n x classes x K)"),
  record_deviance = family_field("fun", "(eta, y): each record's deviance, n x K (twice the eval loss; the unit deviance for poisson); multinomial: n x K from n x classes x K"),
  deviance_bound = family_field("fun", "(r_bound): cv.dpsco()'s default clamp of one record's deviance (NULL: no deviance measure)", null = TRUE),
  deviance_label = family_field("string", "the display name of the \"deviance\" measure (NULL: no deviance measure)", null = TRUE),
  y_error_scale = family_field("flag", "TRUE when y is on the scale of the prediction error, so cv.dpsco() clamps held-out y to the released range of y"),
  shardable = family_field("flag", "TRUE when every release of the fit is a sum the workers of sharded data form (shards.R)"))

# A family object from its name and fields, each checked against
# family_fields(); the flags a constructor leaves out get their defaults
# (after the fields given, so that the objects keep their field order).
new_family <- function(name, ...) {
  fields <- list(...)
  spec <- family_fields()
  bad <- function(...) stop("new_family(\"", name, "\"): ", ..., call. = FALSE)
  unknown <- setdiff(names(fields), names(spec))
  if (length(unknown)) bad("unknown field(s) ", paste(unknown, collapse = ", "))
  for (k in names(spec)) {
    s <- spec[[k]]
    if (!k %in% names(fields)) {
      if (s$required) bad("the field ", k, " is missing")
      next
    }
    v <- fields[[k]]
    if (is.null(v) && s$null) next
    if (is.null(v) || !family_kinds[[s$kind]](v))
      bad("the field ", k, " must be of kind ", s$kind)
  }
  defaults <- Filter(Negate(is.null), lapply(spec, `[[`, "default"))
  flags <- defaults[setdiff(names(defaults), names(fields))]
  structure(c(list(name = name, code = family_codes[[name]]), fields, flags),
            class = c(paste0("dpsco_family_", name), "dpsco_family"))
}
