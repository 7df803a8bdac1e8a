/* Algorithm 4: each value l = r x_j contributes s h(l / s), where h is the
 * Catoni-Giulini soft truncation averaged over the multiplicative noise of
 * Holland's estimator (catoni.c).  |h| <= 2 sqrt(2) / 3, so one record moves
 * each coordinate's mean by at most 2 sqrt(2) s / (3 m): L2 sensitivity
 * 2 sqrt(2) s sqrt(dim) / (3 m). */
#include <math.h>
#include "dpsco.h"

void holland_add(oracle_state *o, double r, const double *x)
{
    double s = o->s, r_s = r / o->s, sqrt_nu = sqrt(o->nu);
    double *restrict acc = o->acc;
    int p = o->dim - o->has_int;
    if (r == 0.0)
        return;
    /* two copies of the loop keep the table test out of the inner loop */
    if (o->tabulated) {
        const holland_table *tb = &o->table;
        if (o->has_int)
            *acc++ += s * holland_table_eval(tb, r_s);
        for (int j = 0; j < p; j++)
            if (x[j] != 0.0)
                acc[j] += s * holland_table_eval(tb, r_s * x[j]);
    } else {
        if (o->has_int)
            *acc++ += s * holland_h(r_s, sqrt_nu);
        for (int j = 0; j < p; j++)
            if (x[j] != 0.0)
                acc[j] += s * holland_h(r_s * x[j], sqrt_nu);
    }
}
