#' The methods of dpsco(): oracles, optimisers, constraint sets, numerics
#'
#' @description
#' How [dpsco()] fits: its private gradient oracles and optimisers, the
#' private choice of its settings, its privacy guarantee and defaults, the
#' constraint-set methods, the support rule, and how it handles extreme
#' data, sparse and file-backed `x`, secure noise and interrupts.  The
#' arguments and the object returned are documented in [dpsco()].
#'
#' @details
#' Each step draws a Poisson batch (each record independently with
#' probability `batch_size / n`), computes a private estimate of the gradient
#' from the sampled records with the chosen oracle, adds Gaussian noise
#' scaled to the oracle's add/remove L2 sensitivity and takes a proximal
#' step.  The oracles are
#' \describe{
#'   \item{`"clip"`}{DP-SPGD (Algorithm 1): per-record gradients clipped to L2
#'     norm `control$clip`; sensitivity `C / m`.}
#'   \item{`"kamath"`}{DP-SPGD(K) (Algorithms 2-3): coordinates clipped to
#'     `[-rho/2, rho/2]`, median of `k` group means; sensitivity
#'     `rho k sqrt(d) / (2m)` (halved for even `k`).  With private tuning
#'     each gradient is first clipped to L2 norm `C'` (below), which caps
#'     the sensitivity at `C' k / m` (halved for even `k`).}
#'   \item{`"holland"`}{DP-SPGD(H) (Algorithm 4): Catoni-Giulini soft
#'     truncation at scale `s`; sensitivity `2 sqrt(2) s sqrt(d) / (3m)`.
#'     With private tuning each gradient is first clipped to L2 norm `C`,
#'     which caps the sensitivity at `C / m`.}
#'   \item{`"none"`}{non-private stochastic proximal gradient descent.}
#' }
#' Here `m` is the expected batch size and `d` the gradient dimension
#' (`ncol(x)` plus one with an intercept).  Every estimator divides by `m`,
#' never by the realised batch size.  The intercept is an unpenalised
#' coordinate of the gradient and counts in the sensitivity.
#'
#' **Two ways to choose the settings.**  With `tuning = "private"` (the
#' default) every setting that depends on the data is estimated privately,
#' inside the budget, and listed in the privacy record (see
#' [privacy()]):
#' \describe{
#'   \item{bounds on `x`}{per column `B_j` from a noisy histogram of the
#'     octaves of `|x_ij|` (one Gaussian release for all columns): 2 to 8
#'     times the upper edge of the octave at the private 99th percentile
#'     of the non-zero `|x_ij|`, read from the bins whose noisy counts
#'     clear three noise sds and from a thin tail above them that clears
#'     the noise summed over a few octaves.  The factor is 2 up to
#'     `n / z1 = 1000` (`z1` the noise multiplier of one release of the
#'     whole budget) and grows with `log10(n / z1)` to 8 at 10,000 for a
#'     column whose released octaves are spread (four or more octaves from
#'     its median non-zero octave to the 99th percentile's), less for a
#'     narrower column, and 2 for one within an octave of its median (0/1
#'     indicators, one-hot factors): with little noise, a bound near the
#'     99th percentile would clamp away the tail records that carry much
#'     of a heavy-tailed response; with much, and for a column without a
#'     tail to keep, a feature scaled far below 1 drowns in it.  The fit sees
#'     `clamp(x_j / B_j, -1, 1)`, so raw heavy-tailed features need no
#'     public bounds.  [predict.dpsco()] clamps new data to the same
#'     `[-B_j, B_j]` (`fit$x_range`) and `coef()` gives the slopes that hold
#'     inside it;}
#'   \item{the starting intercept}{the private mean of `y` clamped to a
#'     private range `[lo, hi]` of `y` (gaussian; poisson: `[0, hi]`), from
#'     a noisy histogram of the signed octaves of `y` released with the
#'     bounds on `x`, or the private event rate;}
#'   \item{the oracle's truncation}{clipping's `C` is the private 0.995
#'     quantile of the gradient norms at the start (a noisy histogram of
#'     their `log2`, read from the bins whose counts clear the noise, the
#'     level placed inside its octave as if the octave's values were spread
#'     evenly on the log scale), times a factor from 1 to 2 that grows with
#'     `log10(n / z1)` as the bounds' factor does; Holland clips each gradient to `C`
#'     and truncates each coordinate at `C` as well (`s = 3 C / (2
#'     sqrt(2))`); Kamath clips each gradient to `C' = C / (k f)` and
#'     clamps each coordinate at `C'` (`rho = 2 C'`; `f` is 1/2 for even
#'     `k`, 1 for odd): all three then add the same noise;}
#'   \item{the curvature}{the second-moment matrix of the rows
#'     `(1, x_i / B)`, each clipped to a private 0.9 quantile of the row
#'     norms, released with Gaussian noise and made positive definite with
#'     a ridge of the size of that noise (for binomial, times the private
#'     `p (1 - p)`);}
#'   \item{the lambda grid}{from the largest coordinate of the first noisy
#'     gradient, which the path reuses as its first step.}
#' }
#' **Large `n`: subsampled settings.**  From `public_n = 2^20` (about 1.05
#' million records) up, the bounds on `x` (with the range of `y`), the
#' truncation levels and the curvature are each released from a Poisson
#' subsample of their own, each record in it independently with
#' probability `q = m / public_n` for `m = 2^18` expected records, the
#' curvature's at least `public_n / 8` (its noise sets the ridge of every
#' Newton step) (a public rule: the sizes and the threshold depend on
#' `public_n` alone; never with `secure = TRUE`).  Their passes over `x`
#' then read a fraction of the rows.  Each such release is a
#' Poisson-subsampled Gaussian mechanism, listed in the record with its
#' rate `q` and its multiplier, which is the smallest that costs no more
#' than the full-data release of its share; the accountant composes them
#' exactly with the other parts and the optimiser takes what is left.  The
#' estimators count the subsample's expected size `m` where they counted
#' `n`.  `options(dpsco.settings_subsample = FALSE)` keeps the full passes;
#' `TRUE` or a number `m` forces a subsample at any `n` (for tests and
#' audits).
#' The default optimiser is then `"newton"`: each step moves to the
#' minimiser of the penalised quadratic model made of the noisy gradient
#' and the released curvature (a noisy proximal Newton step, solved exactly
#' by coordinate descent as post-processing), which converges in a few
#' noisy steps on ill-conditioned designs where plain gradient steps
#' crawl.  For `family = "gaussian"`, whose loss the released curvature
#' models exactly (up to its noise, ridge and row clipping),
#' `dpsco_control(one_release = TRUE)` makes the whole path from one
#' gradient release, the first, carried to every penalty by the curvature
#' (the sufficient-statistics path, post-processing of two releases); the
#' default releases a fresh gradient at every step, which corrects the
#' model's ridge bias and kept more of glmnet's gain on every real data
#' set measured.  `optimizer = "spgd"` keeps the paper's loop, with the step size
#' `1 / lambda_max` of the released curvature.  Budget shares, quantile
#' levels and any value the user can declare public are set in
#' [dpsco_control()]; a declared value costs nothing.
#'
#' With `tuning = "public"` the fit is the paper's: every setting is
#' public (given, or the paper's data-independent default) and
#' `optimizer = "spgd"`.  `calibration = "paper"` implies it.
#'
#' **Do no harm.**  A private path never strays far from the trivial
#' model, and says so when the data cannot support more:
#' \describe{
#'   \item{the trivial model is on every private path}{the first penalty
#'     of the released grid, `lambda_max`, is the intercept-only model at
#'     the released centre of `y` (the mean, the event rate, the mean
#'     count), and [cv.dpsco()]'s private choice prefers it unless another
#'     penalty's fit does better on the validation part by more than the
#'     noise of the choice could produce, fully at small `n` and less as
#'     the noise leaves room (a `lambda` the user gives is fitted as
#'     given, without that prior);}
#'   \item{a bounded domain}{every iterate is projected onto the set where
#'     the root mean square change of the linear predictor away from the
#'     trivial model, measured in the released curvature (the second
#'     moments of the clamped rows), is at most half the width of the
#'     released range of `y` (gaussian, quantile), of the log rates
#'     (poisson) or `log(n + 1)` (log-odds): noise divided by a small
#'     curvature cannot carry the predictions away, and a real model, whose
#'     predictions spread less than `y`, is not held back.  The range is
#'     `fit$settings$y_range`; data too wide for a curvature release
#'     (`p + 1` above 4000) and public tuning have no domain;}
#'   \item{a signal check}{the first released gradient (at the
#'     intercept-only model, net of the part the intercept's noise puts in
#'     every coordinate through the released curvature) is graded:
#'     "strong" when a coordinate stands more than 5 noise sds beyond the
#'     largest of `p` noise-only coordinates, "borderline" when beyond it
#'     by less (with the number of records, or the epsilon, at which a
#'     predictor of that size would stand out) and "none" when not beyond
#'     it.  `print()` and `summary()` say which, in a sentence.  The check
#'     reads one release, so it is conservative: in `bench/signal.R`, on
#'     real data sets with their response permuted, it never said
#'     "strong" (0 of 39 fits), but on satellite and ames, whose private
#'     fits gain a quarter to two thirds of the trivial model's loss, it
#'     said "none" in 4 of 6; the sentences say so, and point to the
#'     held-out check of [cv.dpsco()].  It reads released values only and
#'     costs nothing.}
#' }
#'
#' **Privacy.** The budget `(epsilon, delta)` covers everything that touches
#' the data: every private setting, every step of every lambda and any
#' private standardisation.  By default (`calibration = "accountant"`) the
#' noise multiplier of the gradient steps is the smallest one whose
#' accounted epsilon (the privacy loss distribution of the
#' Poisson-subsampled Gaussian, or the exact Gaussian composition at
#' sampling rate 1; see [dp_epsilon()]),
#' composed with the private settings, meets the target.  With
#' `calibration = "paper"` the noise scales printed in the paper are used
#' for `(epsilon/K, delta/K)` per lambda, and the record reports the epsilon
#' they actually deliver.  See [privacy()] for the record attached to each
#' fit.
#'
#' **The guarantee.**  Two data sets are neighbours when one is the other
#' with one record added or removed, at a declared public number of records
#' `n = public_n` (by default the number of rows of `x`; the count itself
#' is then not protected).  Every divisor and every noise scale of a fit
#' derives from `public_n` (a batch or block size is its public expected
#' size), or from a released value, never from a count of the rows present,
#' so the guarantee holds whatever the number of rows, both for a record
#' added and for one removed.  The record ([privacy()]) and [summary()]
#' state it in one sentence, with the epsilon that holds for two data sets
#' of the same size that differ in one record (replace-one), computed by
#' the accountant.  The dimension, the budget shares and the
#' declared values are treated as public; under `tuning = "public"` so are
#' the lambda grid, all tuning parameters and any preprocessing the user
#' applied: choose them without looking at the data.
#' `standardize = TRUE` uses the data's own column means and standard
#' deviations and warns that the guarantee does not cover them.
#' The guarantee covers the returned object, not how it was computed: the
#' run time and memory grow with the number of rows (and of records in
#' each batch), and with `secure = FALSE` anyone who learns the state of
#' R's generator can reproduce the noise (see `secure` in [dpsco()]).  The state in
#' which a fit leaves R's generator does not depend on the data: the fit
#' takes one draw from R's stream, runs on a stream of its own seeded from
#' it (same [RNGkind()]) and then puts R's stream back just after that
#' draw, also on an error or an interrupt, so that `set.seed()` still
#' reproduces it ([cv.dpsco()] and [dp_mean()] do the same).
#'
#' **Defaults** with `tuning = "private"`: full batches, `nlambda = 10`,
#' `lambda.min.ratio = 1e-3`, `iterations = 2` per lambda for `"newton"`
#' (3 for multinomial; 100 for `"spgd"`), the tail average of the iterates as output, and a
#' model step `step_size = 1` (gaussian) or `0.7` (binomial: shorter
#' steps keep a noisy path of a few thousand records from overshooting).  To choose lambda privately
#' as well, use [cv.dpsco()].
#'
#' **Defaults** with `tuning = "public"`, all data-independent:
#' \describe{
#'   \item{`batch_size = n`}{full batches (sampling rate 1), the paper's
#'     choice for DP-SPGD(K) and DP-SPGD(H) on real data.}
#'   \item{`iterations = ceiling(5 * (n / batch_size)^2)`}{the paper's rule
#'     `T = 5 n^2 / m^2`, per lambda.}
#'   \item{`step_size = 1 / (d * c)`}{with `c = 1` (gaussian) or `1/4`
#'     (binomial): the reciprocal of the largest curvature possible when
#'     every entry of `x` lies in \[-1, 1\], so steps are stable for
#'     such data whatever its values.}
#'   \item{`nlambda = 20`}{every lambda spends budget, so the default path is
#'     shorter than glmnet's 100.}
#' }
#' In both modes `delta` defaults to `0.1 / n`, below `1 / n`: a mechanism
#' that publishes one random record in full is `(0, 1/n)`-DP, so `delta`
#' must be smaller.
#'
#' @section Constraint-set methods:
#' Further estimators ([dpsco_methods()] lists them with their traits) fit
#' along a path of constraint radii
#' (`radius`, increasing; `fit$radius` replaces `fit$lambda`, and `s` in
#' [coef.dpsco()] and [predict.dpsco()] is a radius).  The constraint is
#' on the whole coefficient vector the loss sees, `(b0, b)` with an
#' intercept.  With `tuning = "private"` (the default) the data are first
#' put on the unit scale by private bounds, exactly as for the penalised
#' path (`clamp(x_j / B_j, -1, 1)`, and a gaussian `y` by its private
#' bound), the private centre of `y` becomes an offset of the linear
#' predictor, for `"fw"` and `"htdp_fw"` a private quantile of the
#' per-record coordinates `|r_i| max(1, |x_i|_inf)` sets the truncation,
#' and for the mirror methods the private l2 clipping level and row bound
#' of the penalised path set the clipping and (squared) the smoothness;
#' radii are then on the unit scale, and the default path has `nlambda`
#' (10) radii from 0.1 to 100 (gaussian) or 1 to 1000 (binomial).  With
#' `tuning = "public"` nothing is released before the fit; the
#' bounded-data methods shrink `x` and `y` to `[-K, K]` (`control$shrink`,
#' default `(n epsilon)^(1/5)`).
#' \describe{
#'   \item{`"fw"`}{private Frank-Wolfe over the l1 ball (Talwar, Thakurta
#'     and Zhang 2015): each step takes the coordinate-clamped mean
#'     gradient of all records and picks a vertex `-+r e_j` by the
#'     exponential mechanism with utility `-<v, g>` (add/remove sensitivity
#'     `r` times the clamp over `n`), then moves by `2 / (t + 2)`.  Each
#'     selection at `epsilon0` is `epsilon0^2/8`-zCDP; all of them, and the
#'     private settings, are composed by Renyi DP.  `iterations` defaults
#'     to `(n epsilon)^(2/5)` per radius.}
#'   \item{`"htp_lasso"`}{HTP-LASSO (Hu, Ni, Xiao and Wang 2022): the same
#'     loop on data shrunk to `[-K, K]`, with the exact mean gradient, whose
#'     coordinates one record moves by at most
#'     `max(1, K) (K + |offset| + r max(1, K)) / n` (the paper's
#'     `2 K^2 (1 + r) / n` for a loss without the factor 1/2).}
#'   \item{`"htdp_fw"`}{HTDP-FW (Hu et al. 2022): one pass per radius over
#'     `T = (n epsilon)^(1/3)` disjoint chunks (uniform random labels);
#'     step `t` uses the coordinate-wise Holland (Catoni-Giulini) mean of
#'     chunk `t` without Gaussian noise and one exponential mechanism, so
#'     by parallel composition each pass is `epsilon0`-DP.  With
#'     `tuning = "public"` the fit is pure `epsilon`-DP (`delta = 0`,
#'     `epsilon0 = epsilon / nradius`), reported as such.}
#'   \item{`"objective"`}{approximate objective perturbation (Bassily et
#'     al. 2019; Su, Zhao and Wang, Algorithms 1-2) over the l1 ball: per
#'     radius, minimise the mean loss plus `<G, w> / n + lambda ||w||^2`,
#'     `G ~ N(0, sigma1^2 I)`, `sigma1^2 = 128 L^2 log(2.5/delta) /
#'     epsilon^2`, `lambda >= r_H beta / (epsilon n)` (the larger of that
#'     and the theorem's `L / (sqrt(n) ||C||_2)`), to a certified
#'     suboptimality `alpha` (the Frank-Wolfe gap), then add
#'     `N(0, 64 alpha log(2.5/delta) / (lambda epsilon^2))` and project on
#'     the ball.  `L` and the smoothness `beta` follow from the public (or
#'     released) bounds on `x` and `y`; `r_H = 2` (a GLM's Hessian has rank
#'     one).  The theorem covers `0 < epsilon < 1` per radius (the budget
#'     is split evenly over the radii, basic composition) for replace-one
#'     neighbours of `n` records; the records are resized to the public `n`
#'     first (see "Theorems stated for replace-one neighbours" below).
#'     `control$objective_tol` sets `alpha` and `control$strong_convexity`
#'     Algorithm 2.  The minimiser certifies `alpha` or, after
#'     `objective_maxit` steps, continues with projected gradient steps
#'     until it is provably as close to the exact minimiser as `alpha`
#'     implies; the fit never stops on the data.}
#'   \item{`"mirror"`}{noisy regularised mirror descent (Su, Zhao and
#'     Wang, Algorithm 3) in `l_p`, `1 < lp <= 2`: full-data gradients, each
#'     record's clipped to `L` in the dual norm `l_q`, plus Generalized
#'     Gaussian noise in the smooth norm of the dual, and the step
#'     `argmin <g, w> + beta D_Phi(w, w_t) + alpha Phi(w)` with the mirror
#'     map `Phi(w) = ||w||_s^2 / (2 (s - 1))` (`s = lp` unless `lp` is
#'     within about `1 / (2 log d)` of 1), on the `l_s` ball of the radius
#'     (radial scaling is its exact Bregman projection; `radius = Inf` is
#'     Su, Zhao and Wang's unconstrained algorithm); the output is the
#'     weighted average of the iterates.  At `lp = 2` the noise is Gaussian
#'     and is calibrated by the accountant with the private settings (any
#'     `epsilon`); for `lp < 2` the noise is Su, Zhao and Wang's Theorem 6,
#'     `sigma^2 = 64 L^2 kappa T log(1/delta) / (n epsilon)^2`, stated for
#'     `epsilon < 1` per radius (a larger share is spent as 1) for
#'     replace-one neighbours (the records are resized to the public `n`)
#'     and added to the rest by basic composition.  Defaults: 50 steps and `alpha = 0`
#'     with private tuning, Theorem 7's `T` and `alpha` with public
#'     tuning.}
#'   \item{`"mirror_shuffled"`}{shuffled truncated one-pass mirror descent
#'     (Algorithm 4): each record, once per radius, gives its gradient (set
#'     to 0 if its dual norm exceeds `beta M + lambda`) plus its own
#'     Generalized Gaussian noise, an `(epsilon0, delta0)`-DP local
#'     randomizer (Su, Zhao and Wang's Lemma 3, used for `epsilon0 <= 1`);
#'     shuffling amplifies each pass (Feldman, McMillan and Talwar 2021,
#'     Theorem 3.8).  The guarantee is for replace-one neighbours of `n`
#'     records (the records are resized to the public `n`), and it reaches
#'     only small epsilons, about
#'     `sqrt(log(1/delta) / n)` per radius, the limit Su, Zhao and Wang
#'     state: a larger target is spent as that reach and the record shows
#'     the smaller epsilon.}
#' }
#' **Theorems stated for replace-one neighbours.**  The guarantees of
#' `"objective"`, `"mirror"` with `lp < 2`, `"mirror_shuffled"`,
#' `"bun_steinke"` and `"sample_aggregate"` are their papers' theorems for
#' two data sets of `n` records that differ in one record.  These methods
#' run on the records resized to the public `n`: padded with the public
#' record `x = 0`, `y = 0` when there are fewer rows, or a uniformly random
#' `n` of them when there are more (with the default `public_n`, nothing
#' changes).  A record added to or removed from the data then changes the
#' resized set by one replaced record (or a mixture of such pairs), so the
#' theorem's `(epsilon, delta)` holds for the package's add/remove
#' neighbours at the public `n`, and the private settings, released as
#' for every other method, compose with it.
#'
#' `lambda`, `alpha`, `penalty.factor`, `optimizer`, `batch_size`,
#' `step_size`, `trace` and `calibration = "paper"` do not apply to them and
#' are errors; [cv.dpsco()] does not take them.
#'
#' @section Support:
#' A private path's coefficients carry the noise of its gradient steps: a
#' lasso fitted to noisy gradients has non-zero coefficients that only the
#' noise made non-zero, and a statistician reads a lasso's non-zeros as
#' selected variables.  With `dpsco_control(support = "noise")` (the
#' default) the penalised coefficients of the penalised methods (clip,
#' kamath, holland and `"prox_clipped_sgd"`) within `support_level` (`c`,
#' default 5) times their own noise sd are set to exactly 0, at every
#' lambda, by backward elimination.  A coefficient beyond `c` sds in the
#' full model stays.  Among the others, the one least beyond its noise
#' goes first, the others take over its part of the linear predictor (see
#' below), their noise is carried through that change, and the next is
#' tested in the model that is left, until every penalised coefficient
#' left is more than `c` sds from 0 (in the full model or in the one it
#' was last tested in).  The transfers add the dropped coefficients' noise
#' to the others, so a coefficient beyond the level in the full model can
#' fall within it later: keeping it makes the support never smaller than
#' the one-shot rule's.  Correlated columns whose signal is
#' in their combination are each within the noise of the full model (any
#' of them could stand in for the others); once the others are gone, the
#' one left carries the combination with its own smaller noise and stays.
#' `support = "marginal"` tests every coefficient once in the full model
#' (the rule of dpsco 0.23 and earlier); without a released curvature,
#' and for multinomial fits, that is what `"noise"` does too.  With the
#' noise covariance `C` of the coefficients of a model and the released
#' curvature `A` (below), dropping `j` maps the others to
#' `b_r + u b_j`, `u = A_rr^-1 A_rj`, and their covariance to
#' `C_rr + u C_jr + C_rj u' + C_jj u u'`; with the inverse `G` of `A` on
#' the model, `u = -G_rj / G_jj` and the next inverse is
#' `G_rr - G_rj G_jr / G_jj`, so a lambda with `k` non-zeros costs
#' `O(k^3)` (in C).  The sd comes from values the fit has
#' released or declared public only, so the rule is post-processing and
#' costs no privacy: the sd `s = z Delta` of the Gaussian noise added to
#' each gradient coordinate per step, the step size `eta`, the released
#' curvature `A` (private tuning), the memory `w` of `"newton"`, the
#' number of steps and the averaged iterates.  The noise is propagated
#' through the optimiser linearised about the solution, under the
#' quadratic model the optimiser uses itself, in the eigenbasis of `A`,
#' where the directions' noises are independent (so `C = V D V'` with
#' the eigenvectors `V` and the directions' variances `D`): a
#' `"newton"` step moves the iterate by `-eta A^-1` times the gradient's
#' error, which with memory is `e_t = w e_(t-1) + (1 - w) n_t` (fresh
#' noise `n_t`, sd `s`); an `"spgd"` step gives the deviation
#' `x_t = (I - eta A) x_(t-1) + eta n_t`.  The (tail) average of the
#' iterates and the warm start of each lambda from the previous output
#' follow the optimiser exactly.  Without a released curvature (public
#' tuning, or more than 4000 coefficients) the sd is the step size times
#' the gradient noise, averaged over the tail, as if each step forgot the
#' noise of the previous ones.  Both are milder than the truth in a
#' direction the loss does not curve (an all-zero column, held by the
#' curvature's ridge only), where the noise of successive steps adds up
#' and only the penalty pulls it back; taking the ridge out of `A` (a
#' random walk there) measured far too strict on BlogFeedback (1 or 2
#' variables selected).  The intercept and the columns of penalty factor
#' 0 are never set to 0.  The coefficients kept take over what the dropped
#' ones predicted, as far as the released curvature `A` (the rows' second
#' moments) tells: for the dropped set `D` and the rest `R` (the intercept
#' included), `b_R + A_RR^-1 A_RD b_D`.  `x` is not centred, so without
#' this a dropped coefficient would take its share of the mean prediction
#' with it (raw weekly wages on six 0/1 columns, `epsilon = 2`: a path that
#' kept no slope predicted worse than the mean).
#'
#' The level `c = 5` was chosen by measurement (`bench/support.R`): on
#' BlogFeedback at `epsilon = 1` (70% training splits), with an all-zero
#' column and ten row-permuted copies of real columns (pure noise)
#' appended, it is the smallest of 3, 4 and 5 (measured again with 2, 3
#' and 5 at 0.23.2) at which each of these
#' columns is 0 in at least 95% of the models [cv.dpsco()] selects and
#' the selected model never has more non-zeros than `cv.glmnet()`'s
#' `lambda.min` (the figures are in NEWS.md).  At `c = 3` the all-zero
#' column was in 3 of 8 selected models and a permuted one in 6 of 8:
#' at small penalties the linearised sd is smaller than the spread the
#' optimiser's noise gives (up to 2.3 times on BlogFeedback with every
#' setting held fixed, `bench/support_calibration.R`).  The stepwise
#' rule keeps that promise
#' (all-zero column 0 in 8 of 8 selected models, each permuted column in
#' 97.5%) and the gain over the null model of the rule's model rose from
#' 0.60 to 0.66 of glmnet's on the same 8 splits.
#' `support = "none"` returns the optimiser's output as it is; with the
#' rule, the fit keeps the coefficients before it in
#' `fit$support$beta_raw`.  [cv.dpsco()] chooses among the thresholded
#' models.  `trace` holds the iterates before the rule.  The rule draws no random numbers: a fit with the same seed
#' is the same path, thresholded.  The constraint-set methods (along
#' radii) and method `"none"` (no noise) are not thresholded.
#'
#' @section Numerical robustness:
#' With a private method every step is bounded (the oracle's bound plus the
#' noise), so any finite `x` and `y` give finite coefficients (checked up to
#' the largest double).  The accounting of the privacy record
#' ([privacy()]) depends on public quantities only: values of 1e12,
#' all-zero columns, separable classes or `p > n` get exactly the noise
#' multipliers and epsilon of a benign data set of the same shape and
#' settings (with `tuning = "public"` so do the lambda grid and every
#' setting; with private tuning those are released, with noise).  The
#' utility does change.  Measured with `tuning = "public"`, `n = 2000`,
#' `p = 5`, `epsilon = 1`, 10 lambdas of 50 steps of size 0.5, 5
#' repetitions (error: L2 distance to the true coefficients at the best
#' lambda):
#' \describe{
#'   \item{Values up to 1e12 in a few records}{Every oracle bounds each
#'     record's contribution, so 1% of records with `x` or `y` of 1e12 act as
#'     bounded outliers: error 0.068 benign, 0.074-0.12 with them (clip);
#'     0.20 and 0.17-0.20 (holland); Kamath's estimator is dominated by its
#'     noise at this budget (1.3-1.5 either way).  Method `"none"` has no
#'     bound: `x` of 1e12 makes its iterates overflow (non-finite
#'     coefficients, with a warning) unless the step size matches that
#'     scale, and `y` of 1e12 gives the lasso's own answer, coefficients up
#'     to 5e9 (error 2.9e7).}
#'   \item{A whole column on the 1e12 scale}{The default step size is made
#'     for entries in \[-1, 1\], 1e12 times too large for that column's
#'     coefficient, so no lambda beats the null fit (error 1.5) and the
#'     other coefficients are lost too.  Declaring the column's scale public
#'     (`standardize = list(scale = )`) restores the benign error (0.080,
#'     clip).  `standardize = "private"` cannot: its histogram stops at 2^31
#'     (about 2.1e9), so such a column's scale comes out near 2^31 and the
#'     standardised values reach `|x| / 2^31` (error 1.45-1.5); a column on
#'     the 1e8 scale is standardised well (error 0.078).}
#'   \item{All-zero columns}{Every oracle's estimate of their gradient is
#'     exactly 0, so their raw coefficient is the proximal map of pure
#'     noise, a random walk that only the l1 penalty pulls back, and the
#'     support rule (section Support) sets it to 0 unless it strays beyond
#'     `support_level` noise sds; the figures that follow are of the raw
#'     coefficients (`support = "none"`).  It is larger than the
#'     coefficient of an uninformative non-zero column, which the data pull
#'     back as well: mean |coefficient| along the path 0.045 against 0.011
#'     (clip) and 0.35 against 0.042 (holland), exactly 0 in 20-30% of the
#'     lambdas.  With method `"none"` it is exactly 0.  Private
#'     standardisation leaves such a column unscaled (see `standardize` in
#'     [dpsco()]).}
#'   \item{Perfectly separable classes}{The logistic loss has no finite
#'     minimiser, but the l1 penalty (at a solution
#'     `sum(abs(beta)) <= log(2) / lambda`) and the finite number of bounded
#'     steps keep the coefficients finite: largest |coefficient| along the
#'     path 6.3 (clip), 8.7 (holland), 6.9 (none), with training accuracy
#'     0.99, 0.94 and 0.99 (step size 2).}
#'   \item{`p > n`}{Nothing breaks.  The noise per coordinate of Holland's and
#'     Kamath's estimators grows as `sqrt(d)` (holland: sd 1.06 at `p = 10`,
#'     6.39 at `p = 400`, `n = 200`); clipping's stays the same but its noise
#'     vector grows in norm as `sqrt(d)` while each record's clipped gradient
#'     is spread over more coordinates.  With the default step size `1/d`,
#'     errors at `p = 400` were 1.49 (clip), 1.66 (holland) and 1.33 (none)
#'     against 0.66, 0.81 and 0.27 at `p = 10` (true norm 1.5).}
#' }
#'
#' @section Sparse and file-backed x:
#' `x` may also be a sparse `Matrix` or a `bigmemory` `big.matrix`; both
#' give the fit of the dense matrix with the same values, bit for bit on
#' x86-64 (elsewhere to rounding), for the same seed.
#' * A sparse `Matrix` (converted to a `dgCMatrix`) stays sparse: the engine
#'   keeps its non-zeros row by row (12 bytes each) and every step's pass
#'   skips the zeros, which every oracle maps to a zero contribution.  On
#'   the raw blog features (83% zeros) a path is several times faster than
#'   on the dense matrix (`bench/path.R`).  The private settings read `x` in
#'   blocks of rows of about 2^21 values.  `standardize` other than `FALSE`
#'   and `"auto"` (centring fills the zeros) and the constraint-set methods
#'   take `x` dense; `"auto"`, the default, leaves a sparse `x` as given.
#' * A dense `x` whose non-zeros are at most 20% of its values is stored
#'   the same way, with the same fit (`options(dpsco.sparse_density = )`
#'   sets the share; 0 keeps every value).  The raw blog features (17%
#'   non-zeros) are such a matrix.
#' * A file-backed `big.matrix` of type `"double"` is read in place from its
#'   backing file, which is mapped into memory: its pages belong to the
#'   operating system's file cache, and the fit's own memory is two numbers
#'   per record (their norms and largest values), the sampled indices and
#'   4096 rows per thread, besides `y`; the private settings hold about ten
#'   numbers per record while they are chosen.  A fit reads the file once to
#'   check its values, once for the norms and once per step, column by
#'   column in blocks of rows; the private settings read it five times more,
#'   in R.  For `n = 2e7`, `p = 50` (8 GB) a step took about twice as long
#'   as reading the file from the cache (`bench/scaling.R`).  It needs
#'   `standardize = FALSE` and a method of
#'   the penalised path (the constraint-set methods need `x` in memory); a
#'   `big.matrix` in shared memory is copied into an R matrix.  Memory
#'   mapping is not available on Windows.  [cv.dpsco()] splits a
#'   file-backed `x` into views of the file (the list of each part's rows,
#'   4 bytes a record), which the training fit reads in place as above;
#'   the validation part is read and predicted a block of rows at a time.
#'
#' @section Secure noise:
#' Noise computed in floating point can leak the value it hides through
#' the pattern of its low-order bits (Mironov 2012; Jin et al. 2022), and
#' R's generator is predictable from its state.  With `secure = TRUE` every
#' release of the fit (the private settings, private standardisation and
#' each gradient) is rounded to a power-of-two grid about `2^-24` times its
#' noise sd, and integer discrete Gaussian noise is added on that grid,
#' sampled exactly by rejection from the discrete Laplace (Canonne, Kamath
#' and Steinke 2020) with random bits from the operating system
#' (`/dev/urandom` or `getrandom()`, `BCryptGenRandom` on Windows).  Every
#' released number is then a multiple of the grid, whatever the data.  A
#' value beyond `2^52` grid steps (`1.3e8` to `2.7e8` noise sds) is released at
#' that limit plus the noise rather than stopping the fit, since whether a
#' value gets there depends on the data: the same clamp for every input
#' moves no two values further apart, so the sensitivity holds.
#'
#' Rounding moves each coordinate by at most half a grid step, so it adds
#' at most `grid * sqrt(d)` to a release's L2 sensitivity; that is added
#' to the sensitivity before the noise is scaled, and the record shows the
#' result.  A discrete Gaussian release of integer sensitivity `Delta` and
#' scale `sigma` (in grid units) is `Delta^2 / (2 sigma^2)`-zCDP (Canonne,
#' Kamath and Steinke 2020, Theorem 14): the Renyi curve of the continuous
#' Gaussian.  Secure fits are therefore calibrated and accounted through
#' Renyi DP, which costs a little more noise than the exact accountant of
#' the continuous Gaussian.  No proof carries the subsampled Gaussian's
#' bound to the discrete Gaussian, so secure fits need full batches.  The
#' random Kamath groups also come from the operating system.  Secure fits
#' are not reproducible with `set.seed()`.
#'
#' @section Interrupting a fit:
#' A long fit can be stopped with an interrupt (Ctrl-C, Esc) or a time limit
#' ([setTimeLimit()]): the engine checks for one after each lambda and
#' after every step that brings the records streamed since the last check
#' to a million.  Nothing is returned and the
#' session is unaffected: the engine's working memory is released, and
#' `.Random.seed` is where a completed fit would leave it, one draw after
#' the fit started (the fit's own stream is dropped; see "The guarantee"
#' in Details).
#'
#' @references Xie, H., Pietrosanu, M., Liu, Y., Tu, W., Jiang, B. and
#'   Kong, L. Differentially private regularized stochastic convex
#'   optimization with heavy-tailed data. *Statistica Sinica*.
#'   \doi{10.5705/ss.202022.0282}
#' @seealso [dpsco()] for the arguments; [dpsco_methods()], [dpsco_control()],
#'   [privacy()], [cv.dpsco()]
#' @name dpsco-methods
NULL
