# The bounded domain of a penalised path (src/domain.c): every iterate b
# is projected onto (b - b0)' M (b - b0) <= r^2 per class block, b0 the
# start (the trivial model: the released centre, no slopes), M the
# released second-moment matrix of the rows (1, x_i) (the curvature
# release without the loss's weight), so that the root mean square change
# of the linear predictor away from the trivial model, over the records as
# the release sees them, is at most r.  A domain bounding the prediction
# at every corner of the clamp box instead (|b_0 - c| + sum |b_j| <= r)
# would bind real models many times over: on the BlogFeedback data the
# lasso's own solution on the clamped features has an l1 norm 12,000 times
# the half-width of y's range, while its predictions spread less than y.
# The radius comes from released or declared values and public numbers:
#   gaussian, quantile  half the width of the released (or declared) range
#                       of y net of the offsets: the predictions move from
#                       the mean by no more, in root mean square, than y
#                       can;
#   poisson             half the width of the log rates from log(1 / n) (a
#                       rate below one event in n records is not told
#                       apart from 0) to the log of the released bound;
#   binomial, multinomial  log(n + 1), the start's own limit on log-odds
#                       (a fitted probability 1 / (n + 2) from 0 or 1).
# (family_domain_radius() in family.R).  `fam` the family object; `weight`
# the curvature weight of the release (curvature_weight() when NULL).
# Returns the engine's settings fields, or NULL when there is nothing to
# bound with (no released curvature: public tuning, or data too wide for
# one; a gaussian fit without a range of y).
path_domain <- function(fam, y_range, n, curvature, beta0, intercept,
                        weight = NULL) {
  if (is.null(curvature)) return(NULL)
  r <- family_domain_radius(fam, y_range, n)
  if (is.null(r)) return(NULL)
  d <- nrow(curvature)
  # (the weight the curvature release applied: curvature_weight())
  weight <- weight %||% curvature_weight(fam, beta0, d, intercept)
  list(domain_metric = curvature / weight, domain_centre = as.double(beta0),
       domain_radius = rep(as.double(r), family_nclass(fam)))
}

# The range of y (net of offsets) a private settings release gave: its
# y_range, else [-B, B] from the bound B on |y| ([0, B] for counts); NULL
# when none was released.  `family` an object or a name.
released_y_range <- function(released, family) {
  if (!is.null(released$y_range)) return(released$y_range)
  b <- released$y_bound
  if (is.null(b)) return(NULL)
  family_y_range(family_object(family), b)
}

# The columns of beta (a path) projected onto the fit's domain.
project_domain <- function(beta, domain, nclass = 1L) {
  if (is.null(domain)) return(beta)
  .Call(C_dpsco_project_domain, beta,
        c(list(nclass = as.integer(nclass)), domain))
}
