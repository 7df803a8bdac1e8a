/* Private stochastic proximal gradient descent along a lambda path.
 *
 * Per step: draw a Poisson batch, stream each sampled record once (the
 * forward product x_i'beta and the oracle's accumulation in the same pass),
 * finish the oracle, add N(0, noise_sd^2) to every coordinate, take the
 * proximal step, update the running iterate average.  Random draws come from
 * R's generator in a fixed order (batch gaps and, for kamath, one group label
 * per sampled record as the record is visited; then dim normals), so
 * set.seed() reproduces a fit exactly. */
#include <math.h>
#include <string.h>
#include <Rmath.h>
#include <R_ext/Utils.h>
#include "dpsco.h"

/* Records streamed between two interrupt checks. */
#define INTERRUPT_EVERY 1000000.0

static double linear_predictor(const double *beta, const double *x, int p,
                               int has_int)
{
    /* four partial sums break the add-latency chain of one long sum */
    const double *b = beta + has_int;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int j = 0;
    for (; j + 4 <= p; j += 4) {
        s0 += x[j] * b[j];
        s1 += x[j + 1] * b[j + 1];
        s2 += x[j + 2] * b[j + 2];
        s3 += x[j + 3] * b[j + 3];
    }
    for (; j < p; j++)
        s0 += x[j] * b[j];
    return (has_int ? beta[0] : 0.0) + ((s0 + s1) + (s2 + s3));
}

void spgd_path(const spgd_problem *pr, oracle_state *o, const double *lambda,
               int nlambda, double *beta0, double *out, double *trace)
{
    int dim = pr->p + pr->has_int;
    double *beta = (double *) R_alloc((size_t) dim, sizeof(double));
    double *avg = (double *) R_alloc((size_t) dim, sizeof(double));
    double *est = (double *) R_alloc((size_t) dim, sizeof(double));
    poisson_sampler sampler;
    sampler_init(&sampler, pr->n, pr->q);
    double since_check = 0.0;
    int noisy = o->kind != ORACLE_NONE;

    memcpy(beta, beta0, (size_t) dim * sizeof(double));
    for (int l = 0; l < nlambda; l++) {
        memset(avg, 0, (size_t) dim * sizeof(double));
        int next_trace = 0;
        for (int t = 1; t <= pr->steps; t++) {
            oracle_reset(o);
            for (int i = sampler_next(&sampler, -1); i < pr->n;
                 i = sampler_next(&sampler, i)) {
                const double *x = pr->xt + (size_t) i * pr->p;
                double r = glm_residual(pr->family,
                                        linear_predictor(beta, x, pr->p, pr->has_int),
                                        pr->y[i]);
                int label = 0;
                if (o->kind == ORACLE_KAMATH) {
                    label = (int) (unif_rand() * o->k);
                    if (label >= o->k)
                        label = o->k - 1;
                }
                oracle_add(o, r, x, pr->norm[i], label);
                since_check += 1.0;
            }
            oracle_finish(o, est);
            if (noisy)
                for (int j = 0; j < dim; j++)
                    est[j] += pr->noise_sd * norm_rand();
            double gamma = pr->sqrt_schedule ? pr->step0 / sqrt((double) t)
                                             : pr->step0;
            prox_step(beta, est, pr->p, pr->has_int, gamma, lambda[l],
                      pr->alpha, pr->pf);
            for (int j = 0; j < dim; j++)
                avg[j] += (beta[j] - avg[j]) / t;
            if (trace && next_trace < pr->ntrace && pr->trace_at[next_trace] == t) {
                double *slot = trace + ((size_t) l * pr->ntrace + next_trace) * dim;
                memcpy(slot, pr->last_iterate ? beta : avg,
                       (size_t) dim * sizeof(double));
                next_trace++;
            }
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
