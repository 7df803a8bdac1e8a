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
 * SGD): per lambda one pass over a fresh uniform permutation, step t using
 * its t-th block of m records, so each record enters one step per lambda;
 * the draws are the permutation, then per step the dim normals. */
#include <math.h>
#include <string.h>
#include <Rmath.h>
#include <R_ext/Utils.h>
#include "dpsco.h"

/* Records streamed between two interrupt checks. */
#define INTERRUPT_EVERY 1000000.0

/* After step t at lambda l: the running (tail) average of the iterates and,
 * at the trace steps, a copy of the output iterate. */
void path_record(const spgd_problem *pr, const double *beta, double *avg,
                 int t, int tail_from, int l, int *next_trace, double *trace)
{
    int dim = pr->p + pr->has_int;
    if (t > tail_from)
        for (int j = 0; j < dim; j++)
            avg[j] += (beta[j] - avg[j]) / (t - tail_from);
    if (trace && *next_trace < pr->ntrace && pr->trace_at[*next_trace] == t) {
        double *slot = trace + ((size_t) l * pr->ntrace + *next_trace) * dim;
        memcpy(slot, pr->last_iterate ? beta : avg, (size_t) dim * sizeof(double));
        (*next_trace)++;
    }
}

/* The noisy mean over a fixed list of records: the pass, the oracle's
 * estimate (divided by o->m, the public block size) and N(0, sd^2) on
 * every coordinate.  The one-pass loops' step. */
void block_gradient(const spgd_problem *pr, oracle_state *o,
                    const double *beta, const int *idx, int count, double sd,
                    double *est)
{
    oracle_reset(o);
    batch_pass(pr, o, beta, idx, NULL, count);
    oracle_finish(o, est);
    if (o->kind != ORACLE_NONE && sd > 0)
        add_noise(est, o->dim, sd, pr->noise_grid);
}

void spgd_path(const spgd_problem *pr, oracle_state *o, const double *lambda,
               int nlambda, double *beta0, double *out, double *trace)
{
    int dim = pr->p + pr->has_int;
    double *beta = (double *) R_alloc((size_t) dim, sizeof(double));
    double *avg = (double *) R_alloc((size_t) dim, sizeof(double));
    double *est = (double *) R_alloc((size_t) dim, sizeof(double));
    int kamath = o->kind == ORACLE_KAMATH;
    int *idx = (int *) R_alloc((size_t) pr->n, sizeof(int));
    int *label = kamath ? (int *) R_alloc((size_t) pr->n, sizeof(int)) : NULL;
    poisson_sampler sampler;
    sampler_init(&sampler, pr->n, pr->q, pr->noise_grid > 0);
    double since_check = 0.0;
    /* iterates after step `tail_from` enter the average */
    int tail_from = pr->tail_average ? pr->steps / 2 : 0;

    /* disjoint blocks of the fixed size m = q n (steps * m <= n, checked
     * in R); the records past steps * m sit out that lambda's pass */
    int block = (int) floor(pr->q * pr->n + 0.5);
    if (pr->disjoint)
        for (int i = 0; i < pr->n; i++)
            idx[i] = i;

    memcpy(beta, beta0, (size_t) dim * sizeof(double));
    for (int l = 0; l < nlambda; l++) {
        memset(avg, 0, (size_t) dim * sizeof(double));
        int next_trace = 0;
        if (pr->disjoint)
            sample_permute(idx, pr->n);
        for (int t = 1; t <= pr->steps; t++) {
            if (pr->disjoint) {
                block_gradient(pr, o, beta, idx + (size_t) (t - 1) * block,
                               block, pr->noise_sd, est);
                since_check += block;
            } else {
                since_check += noisy_gradient(pr, o, &sampler, beta, idx,
                                              label, est);
            }
            double gamma = pr->sqrt_schedule ? pr->step0 / sqrt((double) t)
                                             : pr->step0;
            prox_step(beta, est, pr->p, pr->has_int, gamma, lambda[l],
                      pr->alpha, pr->pf);
            path_record(pr, beta, avg, t, tail_from, l, &next_trace, trace);
            if (since_check >= INTERRUPT_EVERY) {
                R_CheckUserInterrupt();
                since_check = 0.0;
            }
        }
        if (!pr->last_iterate)
            memcpy(beta, avg, (size_t) dim * sizeof(double));
        /* the output at this lambda is the warm start of the next one */
        memcpy(out + (size_t) l * dim, beta, (size_t) dim * sizeof(double));
        R_CheckUserInterrupt();
    }
}
