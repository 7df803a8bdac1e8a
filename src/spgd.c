/* Private stochastic proximal gradient descent along a lambda path.
 *
 * Per step: draw a Poisson batch (and, for kamath, each sampled record's
 * group), stream the batch once (pass.c: forward product and oracle
 * accumulation in the same pass over each record), finish the oracle, add
 * N(0, noise_sd^2) to every coordinate, take the proximal step, update the
 * running iterate average.  Random draws come from R's generator in a fixed
 * order (batch gaps and labels, then dim normals), so set.seed() reproduces
 * a fit exactly.  Every buffer is allocated once per fit.
 *
 * Disjoint mode (Algorithm 8 of Lowy and Razaviyayn, noisy clipped proximal
 * SGD): one pass per lambda in `steps` = T blocks.  Per lambda every record
 * draws one unif_rand() u (records in order, sample_groups()) and joins
 * block floor(u / rate) when that is below T, else sits the pass out; step
 * t takes block t - 1, whose sum of clipped gradients is divided by the
 * public expected block size m = o->m (never by the realised count), plus
 * N(0, (z C / m)^2) per coordinate.  rate = m / n for the public n, and
 * T rate <= 1.  Draws per lambda: the n uniforms, then per step the dim
 * normals.
 *
 * Why a pass is one Gaussian release of multiplier z per record (add/remove
 * one record r at the public n).  Fix the outputs of earlier passes, hence
 * the starting iterate.  The labels of the other records have the same
 * distribution whether r is there or not (each record draws its own, from
 * nothing but the generator), so couple them.  Given the labels, r is in
 * one block b or in none; every other block holds the same records, and
 * its step sees the same iterate whenever the earlier steps' outputs are
 * the same, so it is the same kernel of the history on D and D' (adaptive
 * composition).  Block b's sum moves by r's clipped gradient, at most C in
 * l2, and its divisor m is the same public number on both sides, so its
 * release is a Gaussian mechanism of sensitivity C / m and sd z C / m: the
 * pass is alpha / (2 z^2)-RDP given the labels, from D to D' (r added) and
 * from D' to D (r removed) alike, the Gaussian's divergence being
 * symmetric, and 0 when r sits out.  The labels are not released, and the
 * Renyi divergence is jointly quasi-convex, so the mixture over labels
 * keeps the bound.  Passes compose: one release of multiplier z per record
 * per lambda, as R/lambda-path.R accounts.  (Fixed-size blocks of a permutation
 * fail this: an added record pushes another one out of its block, a
 * replacement of sensitivity 2 C / m.) */
#include <math.h>
#include <string.h>
#include <Rmath.h>
#include <R_ext/Utils.h>
#include "spgd.h"

/* Records streamed between two interrupt checks. */
#define INTERRUPT_EVERY 1000000.0

/* After step t at lambda l: the running (tail) average of the iterates and,
 * at the trace steps, a copy of the output iterate. */
void path_record(const spgd_schedule *sc, int dim, const double *beta,
                 double *avg, int t, int tail_from, int l, int *next_trace,
                 double *trace)
{
    if (t > tail_from)
        for (int j = 0; j < dim; j++)
            avg[j] += (beta[j] - avg[j]) / (t - tail_from);
    if (trace && *next_trace < sc->ntrace && sc->trace_at[*next_trace] == t) {
        double *slot = trace + ((size_t) l * sc->ntrace + *next_trace) * dim;
        memcpy(slot, sc->last_iterate ? beta : avg, (size_t) dim * sizeof(double));
        (*next_trace)++;
    }
}

/* Tell the R side's progress bar that `done` lambdas are done.  It runs
 * between lambdas, outside the threaded passes, and draws no random
 * numbers, so the fit is the same with or without it. */
void path_progress(const spgd_schedule *sc, int done)
{
    if (Rf_isNull(sc->progress))
        return;
    SEXP call = PROTECT(Rf_lang2(sc->progress, Rf_ScalarInteger(done)));
    Rf_eval(call, R_GlobalEnv);
    UNPROTECT(1);
}

void spgd_path(const fit_problem *pr, const spgd_schedule *sc,
               oracle_state *o, const double *lambda, int nlambda,
               double *beta0, double *out, double *trace)
{
    int dim = problem_dim(pr);
    double *beta = (double *) R_alloc((size_t) dim, sizeof(double));
    double *avg = (double *) R_alloc((size_t) dim, sizeof(double));
    double *est = (double *) R_alloc((size_t) dim, sizeof(double));
    int kamath = o->kind == ORACLE_KAMATH;
    int *idx = RECORD_ALLOC(pr->n, int);
    int *label = kamath ? RECORD_ALLOC(pr->n, int) : NULL;
    poisson_sampler sampler;
    sampler_init(&sampler, pr->n, pr->q, pr->noise_grid > 0);
    double since_check = 0.0;
    /* iterates after step `tail_from` enter the average */
    int tail_from = sc->tail_average ? sc->steps / 2 : 0;

    /* disjoint mode: block t - 1 is idx[start[t - 1] .. start[t] - 1] */
    int *start = NULL;
    if (sc->disjoint) {
        if (sc->steps * pr->q > 1.0 + 1e-12)
            Rf_error("internal error: %d blocks of probability %g each",
                     sc->steps, pr->q);
        start = (int *) R_alloc((size_t) sc->steps + 2, sizeof(int));
        label = RECORD_ALLOC(pr->n, int);
    }

    memcpy(beta, beta0, (size_t) dim * sizeof(double));
    for (int l = 0; l < nlambda; l++) {
        memset(avg, 0, (size_t) dim * sizeof(double));
        int next_trace = 0;
        if (sc->disjoint)
            sample_groups(pr->n, sc->steps, LABELS_RATE, pr->q, label, start,
                          idx);
        for (int t = 1; t <= sc->steps; t++) {
            if (sc->disjoint) {
                int count = start[t] - start[t - 1];
                block_gradient(pr, o, beta, idx + start[t - 1], count,
                               pr->noise_sd, est);
                since_check += count;
            } else {
                since_check += noisy_gradient(pr, o, &sampler, beta, idx,
                                              label, est);
            }
            double gamma = sc->sqrt_schedule ? sc->step0 / sqrt((double) t)
                                             : sc->step0;
            prox_classes(beta, est, pr->family.nclass, pr->p, pr->has_int,
                         gamma, lambda[l], &sc->pen);
            domain_project(&sc->domain, beta, pr->p + pr->has_int,
                           pr->family.nclass);
            path_record(sc, dim, beta, avg, t, tail_from, l, &next_trace,
                        trace);
            if (since_check >= INTERRUPT_EVERY) {
                R_CheckUserInterrupt();
                since_check = 0.0;
            }
        }
        if (!sc->last_iterate)
            memcpy(beta, avg, (size_t) dim * sizeof(double));
        /* the output at this lambda is the warm start of the next one */
        memcpy(out + (size_t) l * dim, beta, (size_t) dim * sizeof(double));
        R_CheckUserInterrupt();
        path_progress(sc, l + 1);
    }
}
