/* Algorithm 1: scale each record's gradient r * (1, x) to L2 norm at most C.
 * One record moves the sum by at most C, so the mean over the expected
 * batch size m has add/remove sensitivity C / m. */
#include <math.h>
#include "oracle_internal.h"

/* The record's weight: r, or sign(r) C / norm when |r| norm > C, compared
 * without forming |r| norm, which may overflow.  0 adds nothing: for r = 0,
 * a zero record, and (truncation, mirror.c's Algorithm 4) a record over the
 * bound, which is dropped, so each record still moves the sum by at most C. */
double clip_weight(const oracle_state *o, double r, double norm)
{
    if (r == 0.0 || norm == 0.0)
        return 0.0;
    double cap = o->clip / norm;
    if (o->truncate && fabs(r) > cap)
        return 0.0;
    return fabs(r) > cap ? copysign(cap, r) : r;
}

DPSCO_CLONES
void clip_add(const oracle_state *o, double *restrict acc, double r,
              const double *restrict x, double norm)
{
    double w = clip_weight(o, r, norm);
    if (w == 0.0)
        return;
    int p = o->width - o->has_int;
    if (o->has_int)
        *acc++ += w;
    DPSCO_SIMD
    for (int j = 0; j < p; j++)
        acc[j] += w * x[j];
}

void clip_add_sparse(const oracle_state *o, double *restrict acc, double r,
                     const double *restrict v, const int *restrict j, int nz,
                     double norm)
{
    double w = clip_weight(o, r, norm);
    if (w == 0.0)
        return;
    if (o->has_int)
        *acc++ += w;
    for (int k = 0; k < nz; k++)
        acc[j[k]] += w * v[k];
}
