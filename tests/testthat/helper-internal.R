# The test facade: the one place where the tests reach dpsco's internals.
# testthat runs each test file in an environment below the one this file is
# sourced into, whose parent is the package namespace, so the names bound
# here shadow the namespace's and the tests call them unqualified.  A test
# file never writes dpsco:::; tools/strip-internal.R rewrites any that comes
# in (a merge) to these names and fails on a name missing here.
#
# Most names are bound as they are.  The internals called most often with
# long positional argument lists are thin wrappers that keep the order the
# tests call them in and pass each argument by name (the rest through ...,
# in the internal's own order), so that when an internal's signature
# changes, the wrapper here changes and the tests do not.  A wrapper's
# arguments before ... match abbreviations: a test naming an argument of
# the rest (m = for method's neighbour) must not abbreviate one of them
# (tools/strip-internal.R checks).

# ---- The engine's entry points (.Call symbols)
C_dpsco_fit <- dpsco:::C_dpsco_fit
C_dpsco_release <- dpsco:::C_dpsco_release
C_dpsco_fw <- dpsco:::C_dpsco_fw
C_dpsco_one_pass <- dpsco:::C_dpsco_one_pass
C_dpsco_bun_steinke <- dpsco:::C_dpsco_bun_steinke
C_dpsco_oracle_mean <- dpsco:::C_dpsco_oracle_mean
C_dpsco_secure_noise <- dpsco:::C_dpsco_secure_noise
C_dpsco_secure_unif <- dpsco:::C_dpsco_secure_unif
C_dpsco_layout <- dpsco:::C_dpsco_layout
C_dpsco_shard_pass <- dpsco:::C_dpsco_shard_pass

# ---- The fit's random stream (R/rng.R)
with_fit_stream <- dpsco:::with_fit_stream

# ---- Small utilities (R/utils.R)
`%||%` <- dpsco:::`%||%`
compact <- dpsco:::compact
generic_call <- dpsco:::generic_call
max_threads <- dpsco:::max_threads

# ---- The arguments each path takes (R/path-args.R)
path_args <- dpsco:::path_args
path_arg_rules <- dpsco:::path_arg_rules
check_path_args <- dpsco:::check_path_args

# ---- The prepare phase of both paths (R/prepare.R)
prepare_path <- dpsco:::prepare_path

# ---- The fit objects (R/fit-object.R)
new_dpsco <- dpsco:::new_dpsco
nonzero_tol <- dpsco:::nonzero_tol

# ---- Plots and the evaluation on the user's data (R/plot.R, R/deviance.R)
noise_band <- dpsco:::noise_band
dev_fraction <- dpsco:::dev_fraction
null_deviance <- dpsco:::null_deviance
record_deviance <- dpsco:::record_deviance
unstandardize_split <- dpsco:::unstandardize_split
private_standardization <- dpsco:::private_standardization
settings_pass <- dpsco:::settings_pass

# ---- The method registry and the front doors' methods
method_registry <- dpsco:::method_registry
method_spec <- dpsco:::method_spec
method_traits <- dpsco:::method_traits
register_method <- dpsco:::register_method
shard_check_method <- dpsco:::shard_check_method
method_private <- dpsco:::method_private
method_label <- dpsco:::method_label
common_control <- dpsco:::common_control
dpsco.default <- dpsco:::dpsco.default
cv.dpsco.default <- dpsco:::cv.dpsco.default

# ---- Families: the objects, their codes and the engine's settings
as_family <- dpsco:::as_family
family_object <- dpsco:::family_object
family_gaussian <- dpsco:::family_gaussian
family_binomial <- dpsco:::family_binomial
family_poisson <- dpsco:::family_poisson
family_multinomial <- dpsco:::family_multinomial
family_quantile <- dpsco:::family_quantile
family_codes <- dpsco:::family_codes
new_family <- dpsco:::new_family
family_fields <- dpsco:::family_fields
fit_family <- dpsco:::fit_family
kernel_codes <- dpsco:::kernel_codes
kernel_choices <- dpsco:::kernel_choices
family_settings <- function(family, tau = NULL, bandwidth = NULL,
                            kernel = NULL, ...)
  dpsco:::family_settings(family = family, tau = tau, bandwidth = bandwidth,
                          kernel = kernel, ...)

# ---- Argument checks
# (check_y() takes the family object; the tests name the family)
check_y <- function(y, n, fam)
  dpsco:::check_y(y, n, dpsco:::family_object(fam))
check_sizes <- dpsco:::check_sizes
check_design <- dpsco:::check_design

# ---- Designs (dense, sparse, list) and clamping
design_apply <- dpsco:::design_apply
design_columns <- dpsco:::design_columns
design_crossprod <- dpsco:::design_crossprod
design_gram <- dpsco:::design_gram
design_octaves <- dpsco:::design_octaves
design_row_ss <- dpsco:::design_row_ss
design_row_stats <- dpsco:::design_row_stats
design_rows <- dpsco:::design_rows
is_mapped <- dpsco:::is_mapped
scale_clamp <- dpsco:::scale_clamp
clamp <- dpsco:::clamp
clamp_columns <- dpsco:::clamp_columns

# ---- Private settings: octave ranges, histograms, curvature, shares
log2_bin <- dpsco:::log2_bin
octave_bound <- dpsco:::octave_bound
x_counts_hidden <- dpsco:::x_counts_hidden
octave_release <- dpsco:::octave_release
octave_rule <- dpsco:::octave_rule
signed_octave_counts <- dpsco:::signed_octave_counts
signed_octave_range <- dpsco:::signed_octave_range
window_octave_range <- dpsco:::window_octave_range
x_octave_factor <- dpsco:::x_octave_factor
release_counts <- dpsco:::release_counts
hist_level <- dpsco:::hist_level
curvature_matrix <- dpsco:::curvature_matrix
curvature_max_d <- dpsco:::curvature_max_d
curvature_row_weights <- dpsco:::curvature_row_weights
settings_rows <- dpsco:::settings_rows
settings_subsample <- dpsco:::settings_subsample
subsample_multiplier <- dpsco:::subsample_multiplier
subsample_size <- dpsco:::subsample_size
subsample_threshold <- dpsco:::subsample_threshold
noise_room <- dpsco:::noise_room
default_shares <- dpsco:::default_shares
adaptive_shares <- dpsco:::adaptive_shares
part_multiplier <- dpsco:::part_multiplier
hist_quantile <- function(counts, tau, n, sd, ...)
  dpsco:::hist_quantile(counts = counts, tau = tau, n = n, sd = sd, ...)
release_curvature <- function(w, z, row_bound, n, ...)
  dpsco:::release_curvature(w = w, z = z, row_bound = row_bound, n = n, ...)
tune_private <- function(x, y, family, truncation, optimizer, intercept, z1,
                         step_size, control, ...)
  dpsco:::tune_private(x = x, y = y, family = family, truncation = truncation,
                       optimizer = optimizer, intercept = intercept, z1 = z1,
                       step_size = step_size, control = control, ...)

# ---- Quantile regression: losses and the range of y
check_loss <- dpsco:::check_loss
smoothed_check_loss <- dpsco:::smoothed_check_loss
quantile_curvature_weight <- dpsco:::quantile_curvature_weight
quantile_hist_settings <- dpsco:::quantile_hist_settings
release_y_histogram <- dpsco:::release_y_histogram
quantile_residual <- function(eta, y, tau, h, ...)
  dpsco:::quantile_residual(eta = eta, y = y, tau = tau, h = h, ...)

# ---- The path's domain
project_domain <- dpsco:::project_domain
released_y_range <- dpsco:::released_y_range
path_domain <- function(fam, y_range, n, curvature, beta0, intercept, ...)
  dpsco:::path_domain(fam = fam, y_range = y_range, n = n,
                      curvature = curvature, beta0 = beta0,
                      intercept = intercept, ...)

# ---- Gradient oracles
oracle_codes <- dpsco:::oracle_codes
catoni_mean <- dpsco:::catoni_mean
holland_h <- dpsco:::holland_h
kamath_median_factor <- dpsco:::kamath_median_factor
oracle_mean <- dpsco:::oracle_mean
oracle_setup <- function(method, control, m, d, eps, delta)
  dpsco:::oracle_setup(method = method, control = control, m = m, d = d,
                       eps = eps, delta = delta)

# ---- Noise
dg_sample <- dpsco:::dg_sample
secure_gaussian <- dpsco:::secure_gaussian
secure_available <- dpsco:::secure_available
# (the secure switch for the rest of the calling test)
local_secure <- function(secure, frame = parent.frame())
  dpsco:::local_secure(secure, frame)
release <- dpsco:::release
release_symmetric <- dpsco:::release_symmetric
release_choice <- dpsco:::release_choice
ledger_open <- dpsco:::ledger_open
ledger_entries <- dpsco:::ledger_entries
check_releases <- dpsco:::check_releases

# ---- Accounting: RDP, PLD and the Gaussian mechanism
acc_cm <- dpsco:::acc_cm
acc_active <- dpsco:::acc_active
acc_key <- dpsco:::acc_key
acc_cm_key <- dpsco:::acc_cm_key
acc_memo <- dpsco:::acc_memo
acc_cache <- dpsco:::acc_cache
acc_cache_max <- dpsco:::acc_cache_max
acc_cache_clear <- dpsco:::acc_cache_clear
account_epsilon <- dpsco:::account_epsilon
account_delta <- dpsco:::account_delta
calibrate_components <- dpsco:::calibrate_components
calibrate_rdp <- dpsco:::calibrate_rdp
gaussian_epsilon <- dpsco:::gaussian_epsilon
rdp_subsampled_gaussian <- dpsco:::rdp_subsampled_gaussian
rdp_to_epsilon <- dpsco:::rdp_to_epsilon
rdp_to_delta <- dpsco:::rdp_to_delta
pld_epsilon <- dpsco:::pld_epsilon

# ---- The privacy record and its parts
account_parts <- dpsco:::account_parts
zcdp_part <- dpsco:::zcdp_part
new_privacy_record <- dpsco:::new_privacy_record
privacy_status <- dpsco:::privacy_status
remaining_budget <- dpsco:::remaining_budget
replace_one_epsilon <- dpsco:::replace_one_epsilon
resize_records <- dpsco:::resize_records
format_count <- dpsco:::format_count
privacy_part <- function(name, z, q, steps, sensitivity, share, ...)
  dpsco:::privacy_part(name = name, z = z, q = q, steps = steps,
                       sensitivity = sensitivity, share = share, ...)
dp_part <- function(name, epsilon, delta, steps, sensitivity, share,
                    mechanism, ...)
  dpsco:::dp_part(name = name, epsilon = epsilon, delta = delta,
                  steps = steps, sensitivity = sensitivity, share = share,
                  mechanism = mechanism, ...)

# ---- Private means of a column
dp_mean_release <- dpsco:::dp_mean_release
trimmed_sensitivity <- dpsco:::trimmed_sensitivity

# ---- The lambda path and the baseline
lambda_grid <- dpsco:::lambda_grid
released_grid <- dpsco:::released_grid
baseline_converges <- dpsco:::baseline_converges

# ---- Cross-validation: losses, the curve's release and the selection
curve_release <- dpsco:::curve_release
deviance_bound <- dpsco:::deviance_bound
noisy_argmin <- dpsco:::noisy_argmin
record_loss <- dpsco:::record_loss
trivial_prior <- dpsco:::trivial_prior
clamped_loss <- function(measure, y, pred, tau, family, bound, ...)
  dpsco:::clamped_loss(measure = measure, y = y, pred = pred, tau = tau,
                       family = family, bound = bound, ...)

# ---- Constraint-set methods: Frank-Wolfe, objective perturbation, mirror
fw_engine <- dpsco:::fw_engine
obj_J <- dpsco:::obj_J
obj_curvature <- dpsco:::obj_curvature
obj_grad_risk <- dpsco:::obj_grad_risk
obj_proj_l1 <- dpsco:::obj_proj_l1
obj_step_error <- dpsco:::obj_step_error
mirror_plan <- dpsco:::mirror_plan
mirror_run <- dpsco:::mirror_run
mirror_map <- dpsco:::mirror_map
gg_draws <- dpsco:::gg_draws
fit_mirror <- dpsco:::fit_mirror
shuffle_epsilon <- dpsco:::shuffle_epsilon
obj_solve <- function(prob, G, lambda, r, alpha, ...)
  dpsco:::obj_solve(prob = prob, G = G, lambda = lambda, r = r, alpha = alpha,
                    ...)
obj_theta2 <- function(prob, G, lambda, r, alpha, mu, ...)
  dpsco:::obj_theta2(prob = prob, G = G, lambda = lambda, r = r, alpha = alpha,
                     mu = mu, ...)
obj_calibrate <- function(prob, r, eps, delta, Delta, ...)
  dpsco:::obj_calibrate(prob = prob, r = r, eps = eps, delta = delta,
                        Delta = Delta, ...)
fit_objective <- function(prob, radius, budget, control)
  dpsco:::fit_objective(prob = prob, radius = radius, budget = budget,
                        control = control)

# ---- One-pass clipped methods
one_pass_blocks <- dpsco:::one_pass_blocks
one_pass_ridge <- dpsco:::one_pass_ridge
project_two_balls <- dpsco:::project_two_balls
stich_schedule <- dpsco:::stich_schedule
one_pass_radius_plan <- function(method, n, d, radius, z, C, beta, mu, steps)
  dpsco:::one_pass_radius_plan(method = method, n = n, d = d, radius = radius,
                               z = z, C = C, beta = beta, mu = mu,
                               steps = steps)
one_pass_run <- function(prob, radius, method, engine, clip, mu, w, ...)
  dpsco:::one_pass_run(prob = prob, radius = radius, method = method,
                       engine = engine, clip = clip, mu = mu, w = w, ...)
fit_one_pass <- function(prob, radius, method, budget, control, ...)
  dpsco:::fit_one_pass(prob = prob, radius = radius, method = method,
                       budget = budget, control = control, ...)

# ---- Bun-Steinke and sample-and-aggregate
bs_engine <- dpsco:::bs_engine
sa_aggregate <- dpsco:::sa_aggregate
bs_mean_release <- function(v, lo, hi, trim, eps, ...)
  dpsco:::bs_mean_release(v = v, lo = lo, hi = hi, trim = trim, eps = eps, ...)
sa_block_fit <- function(z, y, offset, family, lambda, r)
  dpsco:::sa_block_fit(z = z, y = y, offset = offset, family = family,
                       lambda = lambda, r = r)

# ---- The inference stage (R/inference.R, R/inference-parts.R,
# R/confint.R, R/cv-inference.R)
inference_terms <- dpsco:::inference_terms
inference_root <- dpsco:::inference_root
inference_plan <- dpsco:::inference_plan
inference_fractions <- dpsco:::inference_fractions
inference_result <- dpsco:::inference_result
inference_bootstrap <- dpsco:::inference_bootstrap
octave_quantiles <- dpsco:::octave_quantiles
check_inference <- dpsco:::check_inference
cv_selected_share <- dpsco:::cv_selected_share
row_norms <- dpsco:::row_norms
clip_psi <- dpsco:::clip_psi
clip_d <- dpsco:::clip_d
stage_score <- dpsco:::stage_score
stage_bread <- dpsco:::stage_bread
stage_meat <- dpsco:::stage_meat
stage_whiten <- dpsco:::stage_whiten
stage_whitenings <- dpsco:::stage_whitenings
stage_levels <- dpsco:::stage_levels
pool_releases <- dpsco:::pool_releases
floor_eigen <- dpsco:::floor_eigen
noise_norm <- dpsco:::noise_norm
bread_clip <- dpsco:::bread_clip
meat_clip <- dpsco:::meat_clip
final_clip <- dpsco:::final_clip
refusal_text <- dpsco:::refusal_text

# ---- Shards (data held by workers)
shard_pass_settings <- dpsco:::shard_pass_settings
shard_remote_pass <- dpsco:::shard_remote_pass
shard_rows <- dpsco:::shard_rows
shard_store <- dpsco:::shard_store
shard_handles <- dpsco:::shard_handles
shard_view <- dpsco:::shard_view
shard_drop_views <- dpsco:::shard_drop_views
shard_check_y <- dpsco:::shard_check_y
shard_net_offset <- dpsco:::shard_net_offset
shard_row_weights <- dpsco:::shard_row_weights
shard_weigh_rows <- dpsco:::shard_weigh_rows
row_scale <- dpsco:::row_scale
class_counts <- dpsco:::class_counts
y_bin_counts <- dpsco:::y_bin_counts
exposure_counts <- dpsco:::exposure_counts
start_residuals <- dpsco:::start_residuals

# ---- The signal check and read_crop()'s download
signal_check <- dpsco:::signal_check
signal_text <- dpsco:::signal_text
signal_offset <- dpsco:::signal_offset
crop_file_sha256 <- dpsco:::crop_file_sha256

# ---- The parsnip engine (R/parsnip.R)
register_parsnip <- dpsco:::register_parsnip
# R/sums.R and the shards' handles and worker side
data_sums <- dpsco:::data_sums
sum_table <- dpsco:::sum_table
record_rows <- dpsco:::record_rows
check_design <- dpsco:::check_design
net_offset <- dpsco:::net_offset
exposure_weights <- dpsco:::exposure_weights
weigh_rows <- dpsco:::weigh_rows
shard_resolve <- dpsco:::shard_resolve
shard_records <- dpsco:::shard_records
shard_task_sums <- dpsco:::shard_task_sums

# ---- The private Table 1 (dp_summary())
summary_columns <- dpsco:::summary_columns
summary_plan <- dpsco:::summary_plan
summary_numeric <- dpsco:::summary_numeric
summary_levels <- dpsco:::summary_levels
calibrate_noise <- dpsco:::calibrate_noise
