/* Algorithm 1: scale each record's gradient r * (1, x) to L2 norm at most C.
 * One record moves the sum by at most C, so the mean over the expected
 * batch size m has add/remove sensitivity C / m. */
#include <math.h>
#include "dpsco.h"

void clip_add(oracle_state *o, double r, const double *x, double norm)
{
    double gnorm = fabs(r) * norm;
    if (gnorm == 0.0)
        return;
    /* gnorm may be +Inf for extreme records; the factor is then 0. */
    double w = gnorm > o->clip ? r * (o->clip / gnorm) : r;
    if (!isfinite(w))
        return;
    double *acc = o->acc;
    if (o->has_int)
        *acc++ += w;
    for (int j = 0; j < o->dim - o->has_int; j++)
        acc[j] += w * x[j];
}
