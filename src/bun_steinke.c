/* Heavy-tailed DP-SCO with a known range of the gradient's mean (Wang,
 * Xiao, Devadas and Xu 2020, Algorithms 2 and 3): full-batch projected
 * gradient descent in which every coordinate of every gradient is released
 * by the mechanism of Bun and Steinke (2019):
 *
 *   clamp the n values to [a, b], trim the m smallest and m largest,
 *   average the rest and truncate the average to [a, b];
 *   S = max{ (x_(n) - x_(1)) / (n - 2m), e^{-m t} (b - a) }, Wang et al.'s
 *   bound on the t-smooth sensitivity (a t-smooth upper bound on the local
 *   sensitivity of the replace-one neighbours whenever every value lies in
 *   [a, b] and (m - 1) t <= log(n - 2m), which the R side checks);
 *   release  mean + (S / s) sinh(Y),  Y ~ N(0, 1).
 *
 * The trimmed sum needs only the m smallest and the m largest values: two
 * partial selections (R's rPsort, linear expected time) instead of a sort.
 * The coordinates of one step are independent: they run on threads, each
 * with its own buffer of n values, and the noise is drawn afterwards, in
 * coordinate order, from R's generator (set.seed() reproduces a fit). */
#include <math.h>
#include <string.h>
#include <Rmath.h>
#include <R_ext/Utils.h>
#include "dpsco.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Clamp v[0..n-1] to [a, b] (v is permuted), put the truncated trimmed
 * mean in *mean and return the smooth-sensitivity bound; `decay` is
 * e^{-m t}. */
double bs_trimmed(double *v, int n, int m, double a, double b, double decay,
                  double *mean)
{
    double lo = b, hi = a;
    for (int i = 0; i < n; i++) {
        double u = v[i];
        /* NaN goes to a: every value used lies in [a, b] */
        u = !(u >= a) ? a : (u > b ? b : u);
        v[i] = u;
        if (u < lo) lo = u;
        if (u > hi) hi = u;
    }
    int keep = n - 2 * m;
    const double *mid = v;
    if (m > 0) {
        rPsort(v, n, m - 1);                  /* v[0..m-1]: the m smallest */
        rPsort(v + m, n - m, keep);           /* then the m largest last */
        mid = v + m;
    }
    double sum = 0.0;
    for (int i = 0; i < keep; i++)
        sum += mid[i];
    double mu = sum / keep;
    *mean = mu < a ? a : (mu > b ? b : mu);
    double range = hi > lo ? (hi - lo) / keep : 0.0;
    double fl = decay * (b - a);
    return range > fl ? range : fl;
}

/* One step's gradient releases at beta: est[k] the truncated trimmed
 * means, sens[k] their bounds (lo, hi: the d ranges [a_k, b_k]); r is the
 * n residuals, work nthreads buffers of n values. */
static void bs_gradient(const bs_problem *bp, const double *r,
                        const double *lo, const double *hi, double *est,
                        double *sens, double *work)
{
    int n = bp->n, d = bp->p + bp->has_int, nt = bp->threads;
    (void) nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic) if (nt > 1)
#endif
    for (int k = 0; k < d; k++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        double *v = work + (size_t) tid * n;
        if (bp->has_int && k == 0) {
            memcpy(v, r, (size_t) n * sizeof(double));
        } else {
            const double *xj = bp->x + (size_t) (k - bp->has_int) * n;
            for (int i = 0; i < n; i++)
                v[i] = r[i] * xj[i];
        }
        sens[k] = bs_trimmed(v, n, bp->m, lo[k], hi[k], bp->decay, est + k);
    }
}

/* Linear predictors and residuals at beta, column by column of x. */
static void bs_residuals(const bs_problem *bp, const double *beta,
                         double *eta, double *r)
{
    int n = bp->n, p = bp->p, h = bp->has_int;
    double c = bp->offset + (h ? beta[0] : 0.0);
    for (int i = 0; i < n; i++)
        eta[i] = c;
    for (int j = 0; j < p; j++) {
        double b = beta[j + h];
        if (b == 0.0)
            continue;
        const double *xj = bp->x + (size_t) j * n;
        for (int i = 0; i < n; i++)
            eta[i] += xj[i] * b;
    }
    for (int i = 0; i < n; i++)
        r[i] = glm_residual(&bp->family, eta[i], bp->y[i]);
}

static void project_l2(double *w, int d, double radius)
{
    double ss = 0.0;
    for (int k = 0; k < d; k++)
        ss += w[k] * w[k];
    double nrm = sqrt(ss);
    if (nrm > radius) {
        double f = radius / nrm;
        for (int k = 0; k < d; k++)
            w[k] *= f;
    }
}

/* The path: for each radius (warm-started from the previous output),
 * `steps` projected steps w <- P(w - step * g), g the released gradient;
 * the output is the last iterate.  lo, hi: d x nr ranges; out: d x nr;
 * trace (or NULL): d x (steps * nr) iterates. */
void bs_path(const bs_problem *bp, const double *radius, int nr,
             const double *lo, const double *hi, double *beta, double *out,
             double *trace)
{
    int n = bp->n, d = bp->p + bp->has_int;
    double *eta = RECORD_ALLOC(n, double);
    double *r = RECORD_ALLOC(n, double);
    double *work = (double *) R_alloc((size_t) n * bp->threads,
                                      sizeof(double));
    double *est = (double *) R_alloc((size_t) d, sizeof(double));
    double *sens = (double *) R_alloc((size_t) d, sizeof(double));
    for (int l = 0; l < nr; l++) {
        const double *lo_l = lo + (size_t) l * d, *hi_l = hi + (size_t) l * d;
        for (int t = 0; t < bp->steps; t++) {
            bs_residuals(bp, beta, eta, r);
            bs_gradient(bp, r, lo_l, hi_l, est, sens, work);
            for (int k = 0; k < d; k++) {
                double g = est[k];
                if (bp->noise)
                    g += sens[k] / bp->s * sinh(norm_rand());
                beta[k] -= bp->step[l] * g;
            }
            project_l2(beta, d, radius[l]);
            if (trace)
                memcpy(trace + ((size_t) l * bp->steps + t) * d, beta,
                       (size_t) d * sizeof(double));
            R_CheckUserInterrupt();
        }
        memcpy(out + (size_t) l * d, beta, (size_t) d * sizeof(double));
    }
}
