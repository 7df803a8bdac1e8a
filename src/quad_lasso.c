/* The elastic-net penalised minimiser of a released quadratic model:
 *
 *   min_b  g'(b - c) + (b - c)' A (b - c) / (2 eta)
 *          + lambda sum_j pf_j (alpha |b_j| + (1 - alpha) b_j^2 / 2),
 *
 * each b_j in its box (dpsco.h's path_penalty), with the intercept
 * (coordinate 0 when present) unpenalised.  g is a
 * released gradient at c and A a released, positive definite curvature
 * matrix, so this is post-processing: it is solved to high accuracy by
 * cyclic coordinate descent, whose sweeps keep the gradient of the smooth
 * part, s = g + A (b - c) / eta, up to date one column of A at a time.
 *
 * A multinomial's model couples its K class blocks through the K x K
 * class matrix S: its curvature is S (x) A / eta (quad_lasso_classes()),
 * the multinomial Hessian's form (diag(p) - p p') (x) E[w w'] at a point
 * where every record has the class probabilities p.  Grouped, feature j's
 * K coefficients move as one block: the block's curvature S A_jj / eta is
 * majorised by its Gershgorin bound, and the block steps to the group
 * prox of that majorant (a descent step, so the sweeps still converge). */
#include <math.h>
#include <string.h>
#include "spgd.h"

/* Sweeps stop when no coordinate moves by more than this in the metric of
 * A / eta, or after QUAD_MAX_SWEEPS sweeps. */
#define QUAD_TOL 1e-9
#define QUAD_MAX_SWEEPS 1000

/* The minimiser over coordinate j (of a block: j = 0 is the intercept
 * when there is one) of the model's curvature qjj along it and the
 * penalty, u = qjj b_j - s_j. */
static double coordinate_min(const quad_model *qm, int j, double qjj,
                             double u, double lambda)
{
    if (qm->has_int && j == 0)
        return u / qjj;
    const path_penalty *pen = qm->pen;
    int k = j - qm->has_int;
    double pf = pen->pf[k];
    double thr = lambda * pen->alpha * pf;
    double v = u > thr ? u - thr : (u < -thr ? u + thr : 0.0);
    return penalty_box(pen, k, v / (qjj + lambda * (1.0 - pen->alpha) * pf));
}

void quad_lasso(const quad_model *qm, const double *g, const double *c,
                double lambda, double *b, double *s)
{
    int dim = qm->dim;
    double inv_eta = 1.0 / qm->eta;
    /* start from c: the smooth part's gradient there is g */
    memcpy(b, c, (size_t) dim * sizeof(double));
    memcpy(s, g, (size_t) dim * sizeof(double));
    for (int sweep = 0; sweep < QUAD_MAX_SWEEPS; sweep++) {
        double moved = 0.0;
        for (int j = 0; j < dim; j++) {
            const double *col = qm->A + (size_t) j * dim;
            double qjj = col[j] * inv_eta;
            double nb = coordinate_min(qm, j, qjj, qjj * b[j] - s[j], lambda);
            double step = nb - b[j];
            if (step != 0.0) {
                for (int i = 0; i < dim; i++)
                    s[i] += col[i] * inv_eta * step;
                b[j] = nb;
                double dm = fabs(step) * sqrt(qjj);
                if (dm > moved)
                    moved = dm;
            }
        }
        if (moved <= QUAD_TOL)
            break;
    }
}

/* The Gershgorin bound on the largest eigenvalue of the K x K class
 * matrix S. */
static double class_bound(const double *S, int K)
{
    double out = 0.0;
    for (int k = 0; k < K; k++) {
        double r = 0.0;
        for (int l = 0; l < K; l++)
            r += fabs(S[(size_t) k * K + l]);
        if (r > out)
            out = r;
    }
    return out;
}

/* s += (S (x) A / eta) applied to a change `step` (K values) of feature
 * j's coefficients over the classes. */
static void classes_update(const quad_model *qm, double *s, int j,
                           const double *step)
{
    int w = qm->dim, K = qm->nclass;
    const double *col = qm->A + (size_t) j * w;
    for (int l = 0; l < K; l++) {
        double f = 0.0;
        for (int k = 0; k < K; k++)
            f += qm->S[(size_t) k * K + l] * step[k];
        f /= qm->eta;
        if (f == 0.0)
            continue;
        double *sl = s + (size_t) l * w;
        for (int i = 0; i < w; i++)
            sl[i] += f * col[i];
    }
}

/* One grouped block step for feature j (coordinate j of every class
 * block); returns how far it moved in the majorant's metric. */
static double grouped_block(const quad_model *qm, int j, double bound,
                            double lambda, double *b, double *s,
                            double *step)
{
    int w = qm->dim, K = qm->nclass;
    const path_penalty *pen = qm->pen;
    double L = bound * qm->A[(size_t) j * w + j] / qm->eta;
    if (!(L > 0.0))
        return 0.0;
    int k0 = j - qm->has_int;
    double norm = 0.0;
    for (int k = 0; k < K; k++) {
        double v = b[(size_t) k * w + j] - s[(size_t) k * w + j] / L;
        step[k] = v;
        norm += v * v;
    }
    norm = sqrt(norm);
    double thr = lambda * pen->alpha * pen->pf[k0] / L;
    double f = norm > thr ? (1.0 - thr / norm) /
                            (1.0 + lambda * (1.0 - pen->alpha) * pen->pf[k0] / L)
                          : 0.0;
    double moved = 0.0;
    for (int k = 0; k < K; k++) {
        size_t at = (size_t) k * w + j;
        step[k] = f * step[k] - b[at];
        b[at] += step[k];
        moved += step[k] * step[k];
    }
    if (moved > 0.0)
        classes_update(qm, s, j, step);
    return sqrt(moved * L);
}

static void quad_lasso_grouped(const quad_model *qm, const double *g,
                               const double *c, double lambda, double *b,
                               double *s)
{
    int w = qm->dim, K = qm->nclass;
    size_t dim = (size_t) K * w;
    double bound = class_bound(qm->S, K);
    double *step = (double *) R_alloc((size_t) K, sizeof(double));
    memcpy(b, c, dim * sizeof(double));
    memcpy(s, g, dim * sizeof(double));
    for (int sweep = 0; sweep < QUAD_MAX_SWEEPS; sweep++) {
        double moved = 0.0;
        for (int j = 0; j < w; j++) {
            double dm;
            if (qm->has_int && j == 0) {
                /* the intercepts: exact coordinate steps, unpenalised */
                dm = 0.0;
                for (int k = 0; k < K; k++) {
                    size_t at = (size_t) k * w;
                    double qjj = qm->S[(size_t) k * K + k] * qm->A[0] / qm->eta;
                    memset(step, 0, (size_t) K * sizeof(double));
                    step[k] = -s[at] / qjj;
                    b[at] += step[k];
                    classes_update(qm, s, 0, step);
                    double d = fabs(step[k]) * sqrt(qjj);
                    if (d > dm)
                        dm = d;
                }
            } else {
                dm = grouped_block(qm, j, bound, lambda, b, s, step);
            }
            if (dm > moved)
                moved = dm;
        }
        if (moved <= QUAD_TOL)
            break;
    }
}

void quad_lasso_classes(const quad_model *qm, const double *g,
                        const double *c, double lambda, double *b, double *s)
{
    if (qm->pen->grouped) {
        quad_lasso_grouped(qm, g, c, lambda, b, s);
        return;
    }
    int w = qm->dim, K = qm->nclass;
    size_t dim = (size_t) K * w;
    double inv_eta = 1.0 / qm->eta;
    memcpy(b, c, dim * sizeof(double));
    memcpy(s, g, dim * sizeof(double));
    for (int sweep = 0; sweep < QUAD_MAX_SWEEPS; sweep++) {
        double moved = 0.0;
        for (int k = 0; k < K; k++) {
            const double *sk = qm->S + (size_t) k * K;
            for (int j = 0; j < w; j++) {
                const double *col = qm->A + (size_t) j * w;
                size_t at = (size_t) k * w + j;
                double qjj = sk[k] * col[j] * inv_eta;
                double nb = coordinate_min(qm, j, qjj, qjj * b[at] - s[at],
                                           lambda);
                double step = nb - b[at];
                if (step == 0.0)
                    continue;
                /* column (k, j) of S (x) A is S[, k] (x) A[, j] */
                for (int l = 0; l < K; l++) {
                    double f = sk[l] * inv_eta * step;
                    if (f == 0.0)
                        continue;
                    double *sl = s + (size_t) l * w;
                    for (int i = 0; i < w; i++)
                        sl[i] += f * col[i];
                }
                b[at] = nb;
                double dm = fabs(step) * sqrt(qjj);
                if (dm > moved)
                    moved = dm;
            }
        }
        if (moved <= QUAD_TOL)
            break;
    }
}
