/* Algorithm 4: each value l = r x_j contributes s h(l / s), where h is the
 * Catoni-Giulini soft truncation averaged over the multiplicative noise of
 * Holland's estimator (catoni.c).  |h(a)| <= min(|a|, 2 sqrt(2) / 3), so
 * one record moves each coordinate's mean by at most 2 sqrt(2) s / (3 m)
 * (L2 sensitivity 2 sqrt(2) s sqrt(dim) / (3 m)), and its contributions
 * have at most the norm of r (1, x).  oracle.c first scales r as the clip
 * oracle does (clip_weight(), a no-op at C = Inf), which bounds that norm
 * by C: L2 sensitivity min(C, 2 sqrt(2) s sqrt(dim) / 3) / m. */
#include <math.h>
#include "oracle_internal.h"

/* Values the second pass scans before evaluating the ones it found. */
#define FAR_BLOCK 64

/* With the table: values in its exact cubic region (zeros included) are
 * added by one branch-free loop, the few beyond it by a second pass; adding
 * 0 for them in the first loop leaves the sums exactly as a look-up per
 * value would.  Both loops test a^2 <= a_poly^2, the form GCC turns into a
 * vector select (a value beyond a_poly by rounding only is still inside the
 * region where the cubic is exact).  When |r / s| max_j |x_j| <= a_poly no
 * value can fail the test (rounding is monotone) and the second pass is
 * skipped.  The second pass lists the values beyond the region without a
 * branch (store the index, advance by the test's 0 or 1), then evaluates
 * the list: no call inside the scan. */
DPSCO_CLONES
static void tabulated_add(const holland_table *tb, double *restrict acc,
                          double r_s, double s, const double *restrict x,
                          double xmax, int p)
{
    double c = tb->cubic, a2 = tb->a_poly * tb->a_poly;
    DPSCO_SIMD
    for (int j = 0; j < p; j++) {
        double a = r_s * x[j];
        double b = a * a <= a2 ? a : 0.0;
        acc[j] += s * (b * (1.0 - b * b * c));
    }
    if (fabs(r_s) * xmax <= tb->a_poly)
        return;
    int far[FAR_BLOCK];
    for (int b = 0; b < p; b += FAR_BLOCK) {
        int e = b + FAR_BLOCK < p ? b + FAR_BLOCK : p, nfar = 0;
        for (int j = b; j < e; j++) {
            double a = r_s * x[j];
            far[nfar] = j;
            nfar += a * a > a2;
        }
        for (int k = 0; k < nfar; k++) {
            int j = far[k];
            acc[j] += s * holland_table_eval_far(tb, r_s * x[j]);
        }
    }
}

void holland_add(const oracle_state *o, double *restrict acc, double r,
                 const double *restrict x, double xmax)
{
    double s = o->s, r_s = r / o->s;
    int p = o->width - o->has_int;
    if (r == 0.0)
        return;
    if (o->tabulated) {
        if (o->has_int)
            *acc++ += s * holland_table_eval(o->table, r_s);
        tabulated_add(o->table, acc, r_s, s, x, xmax, p);
        return;
    }
    double sqrt_nu = sqrt(o->nu);
    if (o->has_int)
        *acc++ += s * holland_h(r_s, sqrt_nu);
    for (int j = 0; j < p; j++)
        if (x[j] != 0.0)
            acc[j] += s * holland_h(r_s * x[j], sqrt_nu);
}

/* The same over the record's non-zeros: the dense loops add exactly 0 for a
 * zero value, and for each other value the cubic inside the exact region
 * or the far look-up beyond it, the numbers added here. */
void holland_add_sparse(const oracle_state *o, double *restrict acc, double r,
                        const double *restrict v, const int *restrict j,
                        int nz)
{
    double s = o->s, r_s = r / o->s;
    if (r == 0.0)
        return;
    if (o->tabulated) {
        const holland_table *tb = o->table;
        double c = tb->cubic, a2 = tb->a_poly * tb->a_poly;
        if (o->has_int)
            *acc++ += s * holland_table_eval(tb, r_s);
        for (int k = 0; k < nz; k++) {
            double a = r_s * v[k];
            acc[j[k]] += a * a <= a2 ? s * (a * (1.0 - a * a * c))
                                     : s * holland_table_eval_far(tb, a);
        }
        return;
    }
    double sqrt_nu = sqrt(o->nu);
    if (o->has_int)
        *acc++ += s * holland_h(r_s, sqrt_nu);
    for (int k = 0; k < nz; k++)
        if (v[k] != 0.0)
            acc[j[k]] += s * holland_h(r_s * v[k], sqrt_nu);
}

/* A block read column by column: the same value per entry as above; a
 * record with r = 0 adds nothing. */
void holland_add_block(const oracle_state *o, double *acc, const double *r,
                       const double *vals, size_t ld, int m)
{
    double s = o->s, sqrt_nu = sqrt(o->nu);
    int p = o->width - o->has_int;
    /* no table (exact values, or nu too large for one): c and a2 unused */
    const holland_table *tb = o->table;
    double c = tb ? tb->cubic : 0.0, a2 = tb ? tb->a_poly * tb->a_poly : 0.0;
    if (o->has_int)
        for (int k = 0; k < m; k++)
            if (r[k] != 0.0)
                *acc += s * (o->tabulated ? holland_table_eval(tb, r[k] / s)
                                          : holland_h(r[k] / s, sqrt_nu));
    double *a = acc + o->has_int;
    for (int j = 0; j < p; j++) {
        const double *v = vals + (size_t) j * ld;
        double sum = a[j];
        for (int k = 0; k < m; k++) {
            if (r[k] == 0.0 || (!o->tabulated && v[k] == 0.0))
                continue;
            double x = r[k] / s * v[k];
            if (!o->tabulated)
                sum += s * holland_h(x, sqrt_nu);
            else
                sum += x * x <= a2 ? s * (x * (1.0 - x * x * c))
                                   : s * holland_table_eval_far(tb, x);
        }
        a[j] = sum;
    }
}
