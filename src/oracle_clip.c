/* Algorithm 1: scale each record's gradient r * (1, x) to L2 norm at most C.
 * One record moves the sum by at most C, so the mean over the expected
 * batch size m has add/remove sensitivity C / m. */
#include <math.h>
#include "dpsco.h"

DPSCO_CLONES
void clip_add(const oracle_state *o, double *restrict acc, double r,
              const double *restrict x, double norm)
{
    if (r == 0.0 || norm == 0.0)
        return;
    /* |r| norm > C, compared without forming |r| norm, which may overflow:
     * the clipped weight is then sign(r) C / norm. */
    double cap = o->clip / norm;
    /* truncation (mirror.c's Algorithm 4): a record over the bound is
     * dropped, so each record still moves the sum by at most C */
    if (o->truncate && fabs(r) > cap)
        return;
    double w = fabs(r) > cap ? copysign(cap, r) : r;
    int p = o->dim - o->has_int;
    if (o->has_int)
        *acc++ += w;
    DPSCO_SIMD
    for (int j = 0; j < p; j++)
        acc[j] += w * x[j];
}
