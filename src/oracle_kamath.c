/* Algorithm 3 (DPRME): per coordinate, clip values to [-rho/2, rho/2], sum
 * them within k groups (each sampled record carries an independent uniform
 * label), scale each group sum by the expected group size m / k and release
 * the median of the k group means.  One record moves one group mean by at
 * most (rho / 2) k / m per coordinate and so the median by no more (by half
 * as much for even k, where the median averages two order statistics whose
 * moves add up to at most that), giving L2 sensitivity
 * rho k sqrt(dim) / (2 m), halved for even k (R/oracles.R). */
#include <math.h>
#include "oracle_internal.h"

static double clamp(double v, double h)
{
    /* NaN cannot occur (r and x are finite) but would map to -h here. */
    return v > h ? h : (v < -h ? -h : v);
}

/* acc is the record's group's row of sums.  When |r| max_j |x_j| <= rho/2
 * no value of the record reaches the clamp (rounding is monotone, so
 * fl(|r x_j|) <= fl(|r| max |x|)) and the clamp-free loop adds exactly the
 * same numbers. */
DPSCO_CLONES
void kamath_add(const oracle_state *o, double *restrict acc, double r,
                const double *restrict x, double xmax)
{
    double h = o->half_rho;
    int p = o->width - o->has_int;
    if (o->has_int)
        *acc++ += clamp(r, h);
    if (fabs(r) * xmax <= h) {
        DPSCO_SIMD
        for (int j = 0; j < p; j++)
            acc[j] += r * x[j];
    } else {
        DPSCO_SIMD
        for (int j = 0; j < p; j++)
            acc[j] += clamp(r * x[j], h);
    }
}

/* The same over the record's non-zeros (a zero value adds clamp(0) = 0). */
void kamath_add_sparse(const oracle_state *o, double *restrict acc, double r,
                       const double *restrict v, const int *restrict j,
                       int nz, double xmax)
{
    double h = o->half_rho;
    if (o->has_int)
        *acc++ += clamp(r, h);
    if (fabs(r) * xmax <= h) {
        for (int k = 0; k < nz; k++)
            acc[j[k]] += r * v[k];
    } else {
        for (int k = 0; k < nz; k++)
            acc[j[k]] += clamp(r * v[k], h);
    }
}

/* A block read column by column: clamp(r x_j) for every value (equal to
 * r x_j when no value of the record reaches the clamp, as above). */
void kamath_add_block(const oracle_state *o, double *acc, const double *r,
                      const double *vals, size_t ld, int m,
                      const int *label)
{
    double h = o->half_rho;
    int p = o->width - o->has_int, dim = o->dim;
    if (o->has_int)
        for (int k = 0; k < m; k++)
            acc[(size_t) (label ? label[k] : 0) * dim] += clamp(r[k], h);
    for (int j = 0; j < p; j++) {
        const double *v = vals + (size_t) j * ld;
        double *a = acc + o->has_int + j;
        for (int k = 0; k < m; k++)
            a[(size_t) (label ? label[k] : 0) * dim] += clamp(r[k] * v[k], h);
    }
}

/* k-th smallest of v[0..n-1] (0-based) by Hoare selection; v is permuted. */
static double select_kth(double *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* Median, with the mean of the two middle values for an even count. */
static double median(double *v, int n)
{
    int mid = n / 2;
    double hi = select_kth(v, n, mid);
    if (n % 2)
        return hi;
    double lo = v[0];
    for (int i = 1; i < mid; i++)  /* max of the lower part after selection */
        if (v[i] > lo)
            lo = v[i];
    return 0.5 * (lo + hi);
}

void kamath_finish(oracle_state *o, double *est)
{
    double scale = (double) o->k / o->m;
    for (int j = 0; j < o->dim; j++) {
        for (int g = 0; g < o->k; g++)
            o->work[g] = o->acc[(size_t) g * o->dim + j] * scale;
        est[j] = median(o->work, o->k);
    }
}
