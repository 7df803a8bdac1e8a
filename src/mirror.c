/* Noisy mirror descent in l_p, 1 < p <= 2, along a path of radii: a
 * sibling of spgd.c that shares its pass over the records (pass.c) and the
 * clip oracle, with generalized Gaussian noise (gg_noise.c).
 *
 * Geometry.  The dual of l_p is l_q, q = p / (p - 1).  Each record's
 * gradient r (1, x) is bounded in l_q by the clip oracle, whose per-record
 * norms are here the l_q norms ||(1, x_i)||_q (set after records_fill).
 * The noise lives in the smooth norm l_r of the dual, r = min(q, 2 log d
 * + 1) (chosen in R), and the mirror map is
 *     Phi(w) = ||w||_s^2 / (2 (s - 1)),   s = r / (r - 1),
 * 1-strongly convex w.r.t. ||.||_s (s = p when q <= 2 log d + 1).  The
 * method's text writes Phi = (kappa / 2) ||w||_{kappa+}^2 with
 * kappa+ = kappa / (kappa - 1); we read that exponent as the conjugate of
 * the smooth norm's exponent, i.e. s, and kappa / 2 as 1 / (2 (s - 1)).
 * Read literally, kappa = 1 / (p - 1) gives the exponent 1 / (2 - p),
 * which degenerates at p = 2, where this map is the Euclidean one.
 *
 * Two loops, per radius M (a ball of ||.||_s, M = Inf: unconstrained),
 * warm-started from the previous radius' output:
 *   full     (Algorithm 3) T steps on the full data: the mean clipped
 *            gradient plus one generalized Gaussian vector, then the step
 *            w <- argmin <g, w> + b D_Phi(w, w_t) + a Phi(w); the output
 *            is sum_t c^t w_{t+1} / sum_t c^t with c = (2b + a) / (2b).
 *   shuffled (Algorithm 4) a random permutation cut into T consecutive
 *            batches, one pass: each record's gradient is dropped when its
 *            l_q norm exceeds C (truncation) and gets its own generalized
 *            Gaussian vector; the step has a = 0 and b = gamma; the output
 *            is the plain average of the iterates.
 * Random draws come from R's generator in a fixed order (the permutation,
 * then per step the noise), so set.seed() reproduces a fit. */
#include <math.h>
#include <string.h>
#include <Rmath.h>
#include <R_ext/Utils.h>
#include "dpsco.h"

/* Records streamed between two interrupt checks. */
#define INTERRUPT_EVERY 1000000.0

/* out = c J_s(v), J_s(v)_j = ||v||_s^(2 - s) sign(v_j) |v_j|^(s - 1), the
 * gradient of ||v||_s^2 / 2.  J_s and J_{s / (s - 1)} are inverse maps
 * (each is the other's duality map).  J_s is 1-homogeneous, so it is
 * evaluated on v / max |v_j|.  out may not alias v. */
static void duality_map(const double *v, int d, double s, double c,
                        double *out)
{
    if (s == 2.0) {
        for (int j = 0; j < d; j++)
            out[j] = c * v[j];
        return;
    }
    double big = 0.0;
    for (int j = 0; j < d; j++) {
        double a = fabs(v[j]);
        big = a > big ? a : big;
    }
    if (big == 0.0) {
        memset(out, 0, (size_t) d * sizeof(double));
        return;
    }
    double sum = 0.0;
    for (int j = 0; j < d; j++)
        sum += pow(fabs(v[j]) / big, s);
    double lead = c * big * pow(sum, (2.0 - s) / s);
    for (int j = 0; j < d; j++)
        out[j] = copysign(lead * pow(fabs(v[j]) / big, s - 1.0), v[j]);
}

/* grad Phi(w) = J_s(w) / (s - 1). */
void mirror_grad(const double *w, int d, double s, double *out)
{
    duality_map(w, d, s, 1.0 / (s - 1.0), out);
}

/* grad Phi^*(theta) = (s - 1) J_{s*}(theta), s* = s / (s - 1): the
 * inverse of grad Phi, Phi^* = (s - 1) ||.||_{s*}^2 / 2 being Phi's
 * convex conjugate. */
void mirror_grad_inverse(const double *theta, int d, double s, double *out)
{
    duality_map(theta, d, s / (s - 1.0), s - 1.0, out);
}

/* w <- argmin over ||u||_s <= radius of <g, u> + b D_Phi(u, w) + a Phi(u);
 * `work` holds d doubles.
 *
 * Up to a constant the objective is (b + a) (Phi(u) - <theta, u>) with
 * theta = (b grad Phi(w) - g) / (b + a); unconstrained its minimiser is
 * u* = grad Phi^*(theta).  On the ball the minimiser is u* scaled to
 * min(1, radius / ||u*||_s): Phi(u) depends on u only through
 * rho = ||u||_s, and on the sphere ||u||_s = rho, <theta, u> is at most
 * rho ||theta||_{s*} (Hoelder), with equality along the direction of
 * J_{s*}(theta), i.e. of u*.  So the problem is the one-dimensional
 * min over 0 <= rho <= radius of rho^2 / (2 (s - 1)) - rho ||theta||_{s*},
 * a convex parabola with vertex rho* = (s - 1) ||theta||_{s*} = ||u*||_s,
 * hence rho = min(rho*, radius).  This is also the Bregman projection
 * argmin over the ball of D_Phi(u, u*), since grad Phi(u*) = theta. */
void mirror_step(double *w, const double *g, int d, double s, double b,
                 double a, double radius, double *work)
{
    mirror_grad(w, d, s, work);
    for (int j = 0; j < d; j++)
        work[j] = (b * work[j] - g[j]) / (b + a);
    mirror_grad_inverse(work, d, s, w);
    if (R_FINITE(radius)) {
        double nrm = lp_norm(w, d, s);
        if (nrm > radius) {
            double f = radius / nrm;
            for (int j = 0; j < d; j++)
                w[j] *= f;
        }
    }
}

/* The records' l_q norms ||(1, x_i)||_q (or ||x_i||_q), replacing the L2
 * norms records_fill() computed; on x_i / max(1, max_j |x_ij|) as there.
 * Each record is independent, so threads do not change the result. */
void mirror_dual_norms(records *rec, int n, int p, int has_int, double q,
                       int threads)
{
    int threaded = threads > 1 && (double) n * p >= 100000.0;
    (void) threaded;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) if (threaded)
#endif
    for (int i = 0; i < n; i++) {
        /* a sparse record's zeros add pow(0, q) = 0: its non-zeros alone */
        int sparse = rec->layout == LAYOUT_SPARSE;
        const double *xi = sparse ? rec->xv + rec->rp[i]
                                  : rec->xt + (size_t) i * p;
        int len = sparse ? rec->rp[i + 1] - rec->rp[i] : p;
        double big = rec->xmax[i];
        if (has_int && big < 1.0)
            big = 1.0;
        double nrm = 0.0;
        if (big > 0.0) {
            double sum = has_int ? pow(1.0 / big, q) : 0.0;
            for (int j = 0; j < len; j++)
                sum += pow(fabs(xi[j]) / big, q);
            nrm = big * pow(sum, 1.0 / q);
        }
        rec->norm[i] = nrm;
    }
}

static void check_interrupt(double *since_check)
{
    if (*since_check >= INTERRUPT_EVERY) {
        R_CheckUserInterrupt();
        *since_check = 0.0;
    }
}

/* The output at radius l (the iterates' average) is the warm start of the
 * next radius. */
static void radius_output(double *beta, const double *avg, double *out, int l,
                          int dim)
{
    memcpy(beta, avg, (size_t) dim * sizeof(double));
    memcpy(out + (size_t) l * dim, beta, (size_t) dim * sizeof(double));
    R_CheckUserInterrupt();
}

/* Algorithm 3 at every radius. */
static void full_path(fit_problem *pr, oracle_state *o,
                      const mirror_plan *mp, double *beta, double *out)
{
    int dim = pr->p + pr->has_int;
    double *est = (double *) R_alloc((size_t) dim, sizeof(double));
    double *noise = (double *) R_alloc((size_t) dim, sizeof(double));
    double *avg = (double *) R_alloc((size_t) dim, sizeof(double));
    double *work = (double *) R_alloc((size_t) dim, sizeof(double));
    int *idx = RECORD_ALLOC(pr->n, int);
    poisson_sampler all;
    sampler_init(&all, pr->n, 1.0, 0);
    double since_check = 0.0;

    for (int l = 0; l < mp->nr; l++) {
        o->clip = mp->clip[l];
        double b = mp->b[l], a = mp->a[l];
        double c = (2.0 * b + a) / (2.0 * b);
        /* ratio = sum_{u <= t} c^u / c^t: iterate t's weight in the
         * running average is 1 / ratio, with no power of c formed */
        double ratio = 0.0;
        memset(avg, 0, (size_t) dim * sizeof(double));
        for (int t = 1; t <= mp->steps[l]; t++) {
            since_check += noisy_gradient(pr, o, &all, beta, idx, NULL, est);
            if (mp->sigma[l] > 0) {
                gg_draw(noise, dim, mp->r, mp->sigma[l]);
                for (int j = 0; j < dim; j++)
                    est[j] += noise[j];
            }
            mirror_step(beta, est, dim, mp->s, b, a, mp->radius[l], work);
            ratio = ratio / c + 1.0;
            for (int j = 0; j < dim; j++)
                avg[j] += (beta[j] - avg[j]) / ratio;
            check_interrupt(&since_check);
        }
        radius_output(beta, avg, out, l, dim);
    }
}

/* Algorithm 4 at every radius, each a fresh permutation and pass. */
static void shuffled_path(fit_problem *pr, oracle_state *o,
                          const mirror_plan *mp, double *beta, double *out)
{
    int dim = pr->p + pr->has_int, n = pr->n;
    double *est = (double *) R_alloc((size_t) dim, sizeof(double));
    double *noise = (double *) R_alloc((size_t) dim, sizeof(double));
    double *avg = (double *) R_alloc((size_t) dim, sizeof(double));
    double *work = (double *) R_alloc((size_t) dim, sizeof(double));
    int *perm = RECORD_ALLOC(n, int);
    for (int i = 0; i < n; i++)
        perm[i] = i;
    double since_check = 0.0;

    for (int l = 0; l < mp->nr; l++) {
        int T = mp->steps[l];
        o->clip = mp->clip[l];
        pr->q = 1.0 / T;  /* the batch fraction: pass.c's threading rule */
        /* Fisher-Yates, from the position left by the previous radius */
        for (int i = n - 1; i > 0; i--) {
            int j = (int) R_unif_index((double) i + 1.0);
            int tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        memset(avg, 0, (size_t) dim * sizeof(double));
        for (int t = 1; t <= T; t++) {
            int from = (int) ((long long) n * (t - 1) / T);
            int to = (int) ((long long) n * t / T);
            int count = to - from;
            o->m = count;  /* the batch sizes are public: n and T */
            oracle_reset(o);
            batch_pass(pr, o, beta, perm + from, NULL, count);
            oracle_finish(o, est);
            memset(noise, 0, (size_t) dim * sizeof(double));
            gg_add_sum(noise, dim, mp->r, mp->sigma[l], count, work);
            for (int j = 0; j < dim; j++)
                est[j] += noise[j] / count;
            mirror_step(beta, est, dim, mp->s, mp->b[l], 0.0, mp->radius[l],
                        work);
            for (int j = 0; j < dim; j++)
                avg[j] += (beta[j] - avg[j]) / t;
            since_check += count;
            check_interrupt(&since_check);
        }
        radius_output(beta, avg, out, l, dim);
    }
}

/* The path of either algorithm from beta (overwritten), outputs in out. */
void mirror_path(fit_problem *pr, oracle_state *o, const mirror_plan *mp,
                 double *beta, double *out)
{
    if (mp->shuffled)
        shuffled_path(pr, o, mp, beta, out);
    else
        full_path(pr, o, mp, beta, out);
}
