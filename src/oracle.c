/* Dispatch shared by the four mean estimators.  Each oracle accumulates
 * bounded per-record contributions and divides by the expected batch size m
 * (never the realised one, which is data-dependent). */
#include <math.h>
#include <string.h>
#include "dpsco.h"

void oracle_setup(oracle_state *o, int kind, int p, int has_int, double m,
                  double clip, double rho, int k, double s, double nu,
                  int exact)
{
    o->kind = kind;
    o->has_int = has_int;
    o->dim = p + has_int;
    o->m = m;
    o->clip = clip;
    o->half_rho = rho / 2.0;
    o->k = kind == ORACLE_KAMATH ? k : 1;
    o->s = s;
    o->nu = nu;
    o->acc = (double *) R_alloc((size_t) o->k * o->dim, sizeof(double));
    o->work = (double *) R_alloc((size_t) o->k, sizeof(double));
    o->tabulated = kind == ORACLE_HOLLAND && !exact &&
                   holland_table_build(&o->table, nu);
    oracle_reset(o);
}

void oracle_reset(oracle_state *o)
{
    memset(o->acc, 0, (size_t) o->k * o->dim * sizeof(double));
}

static void plain_add(oracle_state *o, double r, const double *x)
{
    double *restrict acc = o->acc;
    int p = o->dim - o->has_int;
    if (o->has_int)
        *acc++ += r;
    for (int j = 0; j < p; j++)
        acc[j] += r * x[j];
}

void oracle_add(oracle_state *o, double r, const double *x, double norm,
                int label)
{
    switch (o->kind) {
    case ORACLE_CLIP:
        clip_add(o, r, x, norm);
        break;
    case ORACLE_KAMATH:
        kamath_add(o, r, x, label);
        break;
    case ORACLE_HOLLAND:
        holland_add(o, r, x);
        break;
    default:
        plain_add(o, r, x);
    }
}

void oracle_finish(oracle_state *o, double *est)
{
    if (o->kind == ORACLE_KAMATH) {
        kamath_finish(o, est);
        return;
    }
    for (int j = 0; j < o->dim; j++)
        est[j] = o->acc[j] / o->m;
}

/* ||(1, x)|| (or ||x||) without overflow for entries up to DBL_MAX. */
double scaled_norm(const double *x, int p, int has_int)
{
    double big = has_int ? 1.0 : 0.0;
    for (int j = 0; j < p; j++)
        if (fabs(x[j]) > big)
            big = fabs(x[j]);
    if (big == 0.0)
        return 0.0;
    double ss = has_int ? (1.0 / big) * (1.0 / big) : 0.0;
    for (int j = 0; j < p; j++) {
        double v = x[j] / big;
        ss += v * v;
    }
    return big * sqrt(ss);
}
