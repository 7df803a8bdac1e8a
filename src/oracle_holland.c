/* Algorithm 4: each value l = r x_j contributes s h(l / s), where h is the
 * Catoni-Giulini soft truncation averaged over the multiplicative noise of
 * Holland's estimator (catoni.c).  |h| <= 2 sqrt(2) / 3, so one record moves
 * each coordinate's mean by at most 2 sqrt(2) s / (3 m): L2 sensitivity
 * 2 sqrt(2) s sqrt(dim) / (3 m). */
#include <math.h>
#include "dpsco.h"

void holland_add(oracle_state *o, double r, const double *x)
{
    double s = o->s, inv_s = 1.0 / o->s, sqrt_nu = sqrt(o->nu);
    double *acc = o->acc;
    if (r == 0.0)
        return;
    if (o->has_int)
        *acc++ += s * holland_h(r * inv_s, sqrt_nu);
    for (int j = 0; j < o->dim - o->has_int; j++)
        if (x[j] != 0.0)
            acc[j] += s * holland_h(r * x[j] * inv_s, sqrt_nu);
}
