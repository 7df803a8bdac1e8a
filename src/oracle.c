/* Dispatch shared by the four mean estimators.  Each oracle accumulates
 * bounded per-record contributions and divides by the expected batch size m
 * (never the realised one, which is data-dependent).
 *
 * A batch may be streamed in several chunks at once (pass.c): each chunk
 * sums into its own set of accumulators and the sets are added in chunk
 * order at the end, so the result depends on the number of chunks but not
 * on which thread ran which chunk or when. */
#include <math.h>
#include <string.h>
#include "oracle_internal.h"

/* Accumulator sets start on separate 64-byte cache lines: chunks run by
 * different threads then never write to the same line. */
#define LINE_DOUBLES 8

static void accumulators_alloc(oracle_state *o)
{
    size_t set = (size_t) o->k * o->dim;
    o->stride = (set + LINE_DOUBLES - 1) / LINE_DOUBLES * LINE_DOUBLES;
    o->acc = (double *) R_alloc(o->stride * o->nchunks, sizeof(double));
}

void oracle_setup(oracle_state *o, int kind, int p, int has_int, double m,
                  double clip, double rho, int k, double s, double nu,
                  int exact, int nchunks)
{
    o->kind = kind;
    o->has_int = has_int;
    o->width = p + has_int;
    o->nclass = 1;
    o->dim = o->width;
    o->m = m;
    o->clip = clip;
    o->half_rho = rho / 2.0;
    o->k = kind == ORACLE_KAMATH ? k : 1;
    o->s = s;
    o->nu = nu;
    o->truncate = 0;
    o->nchunks = nchunks < 1 ? 1 : nchunks;
    accumulators_alloc(o);
    o->work = (double *) R_alloc((size_t) o->k, sizeof(double));
    o->tabulated = 0;
    o->table = NULL;
    if (kind == ORACLE_HOLLAND && !exact) {
        holland_table *tb = (holland_table *) R_alloc(1, sizeof(holland_table));
        if (holland_table_build(tb, nu)) {
            o->table = tb;
            o->tabulated = 1;
        }
    }
    oracle_reset(o);
}

void oracle_classes(oracle_state *o, int nclass)
{
    if (nclass <= 1)
        return;
    o->nclass = nclass;
    o->dim = nclass * o->width;
    accumulators_alloc(o);
    oracle_reset(o);
}

void oracle_reset(oracle_state *o)
{
    memset(o->acc, 0, o->stride * o->nchunks * sizeof(double));
}

DPSCO_CLONES
static void plain_add(const oracle_state *o, double *restrict acc, double r,
                      const double *restrict x)
{
    int p = o->width - o->has_int;
    if (o->has_int)
        *acc++ += r;
    DPSCO_SIMD
    for (int j = 0; j < p; j++)
        acc[j] += r * x[j];
}

void oracle_add(const oracle_state *o, double *acc, double r, const double *x,
                double norm, double xmax, int label)
{
    switch (o->kind) {
    case ORACLE_CLIP:
        clip_add(o, acc, r, x, norm);
        break;
    case ORACLE_KAMATH:
        kamath_add(o, acc + (size_t) label * o->dim, clip_weight(o, r, norm),
                   x, xmax);
        break;
    case ORACLE_HOLLAND:
        holland_add(o, acc, clip_weight(o, r, norm), x, xmax);
        break;
    default:
        plain_add(o, acc, r, x);
    }
}

void oracle_add_sparse(const oracle_state *o, double *acc, double r,
                       const double *v, const int *j, int nz, double norm,
                       double xmax, int label)
{
    switch (o->kind) {
    case ORACLE_CLIP:
        clip_add_sparse(o, acc, r, v, j, nz, norm);
        break;
    case ORACLE_KAMATH:
        kamath_add_sparse(o, acc + (size_t) label * o->dim,
                          clip_weight(o, r, norm), v, j, nz, xmax);
        break;
    case ORACLE_HOLLAND:
        holland_add_sparse(o, acc, clip_weight(o, r, norm), v, j, nz);
        break;
    default:
        if (o->has_int)
            *acc++ += r;
        for (int k = 0; k < nz; k++)
            acc[j[k]] += r * v[k];
    }
}

void oracle_add_block(const oracle_state *o, double *acc, double *coef,
                      const double *vals, size_t ld, int m,
                      const double *norm, const int *ix, const int *label)
{
    int p = o->width - o->has_int;
    switch (o->kind) {
    case ORACLE_KAMATH:
    case ORACLE_HOLLAND:
        /* the l2 clip first (no-op at C = Inf), then the truncation */
        for (int k = 0; k < m; k++)
            coef[k] = clip_weight(o, coef[k], norm[ix[k]]);
        if (o->kind == ORACLE_KAMATH)
            kamath_add_block(o, acc, coef, vals, ld, m, label);
        else
            holland_add_block(o, acc, coef, vals, ld, m);
        return;
    case ORACLE_CLIP:
        for (int k = 0; k < m; k++)
            coef[k] = clip_weight(o, coef[k], norm[ix[k]]);
        break;
    default:
        break;
    }
    /* clip and no oracle: coef[k] (1, x_k); a weight of 0 adds +-0 */
    if (o->has_int)
        for (int k = 0; k < m; k++)
            *acc += coef[k];
    double *a = acc + o->has_int;
    for (int j = 0; j < p; j++) {
        const double *v = vals + (size_t) j * ld;
        double sum = a[j];
        for (int k = 0; k < m; k++)
            sum += coef[k] * v[k];
        a[j] = sum;
    }
}

/* The scale the oracles put on every residual of a multinomial record: its
 * weight for the norm ||r|| (clip_weight() of ||r||) over ||r||, so that
 * ||w r|| ||(1, x)|| <= C (Kamath and Holland: their l2 clip, no-op at
 * C = Inf); 1 without an oracle. */
static double classes_scale(const oracle_state *o, const double *r,
                            double norm)
{
    if (o->kind == ORACLE_NONE)
        return 1.0;
    double ss = 0.0;
    for (int c = 0; c < o->nclass; c++)
        ss += r[c] * r[c];
    double rn = sqrt(ss);
    return rn > 0.0 ? clip_weight(o, rn, norm) / rn : 0.0;
}

/* Class c's block of sums (in the record's Kamath group). */
static double *class_sums(const oracle_state *o, double *acc, int label,
                          int c)
{
    if (o->kind == ORACLE_KAMATH)
        acc += (size_t) label * o->dim;
    return acc + (size_t) c * o->width;
}

void oracle_add_classes(const oracle_state *o, double *acc, const double *r,
                        const double *x, double norm, double xmax, int label)
{
    double scale = classes_scale(o, r, norm);
    if (scale == 0.0)
        return;
    for (int c = 0; c < o->nclass; c++) {
        double *a = class_sums(o, acc, label, c);
        switch (o->kind) {
        case ORACLE_KAMATH:
            kamath_add(o, a, scale * r[c], x, xmax);
            break;
        case ORACLE_HOLLAND:
            holland_add(o, a, scale * r[c], x, xmax);
            break;
        default:  /* clip (scaled) and no oracle */
            plain_add(o, a, scale * r[c], x);
        }
    }
}

void oracle_add_classes_sparse(const oracle_state *o, double *acc,
                               const double *r, const double *v, const int *j,
                               int nz, double norm, double xmax, int label)
{
    double scale = classes_scale(o, r, norm);
    if (scale == 0.0)
        return;
    for (int c = 0; c < o->nclass; c++) {
        double *a = class_sums(o, acc, label, c);
        switch (o->kind) {
        case ORACLE_KAMATH:
            kamath_add_sparse(o, a, scale * r[c], v, j, nz, xmax);
            break;
        case ORACLE_HOLLAND:
            holland_add_sparse(o, a, scale * r[c], v, j, nz);
            break;
        default: {
            double w = scale * r[c];
            if (o->has_int)
                *a++ += w;
            for (int k = 0; k < nz; k++)
                a[j[k]] += w * v[k];
        }
        }
    }
}

void oracle_finish(oracle_state *o, double *est)
{
    size_t set = (size_t) o->k * o->dim;
    for (int c = 1; c < o->nchunks; c++) {
        const double *from = o->acc + (size_t) c * o->stride;
        for (size_t j = 0; j < set; j++)
            o->acc[j] += from[j];
    }
    if (o->kind == ORACLE_KAMATH) {
        kamath_finish(o, est);
        return;
    }
    for (int j = 0; j < o->dim; j++)
        est[j] = o->acc[j] / o->m;
}
