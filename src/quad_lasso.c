/* The elastic-net penalised minimiser of a released quadratic model:
 *
 *   min_b  g'(b - c) + (b - c)' A (b - c) / (2 eta)
 *          + lambda sum_j pf_j (alpha |b_j| + (1 - alpha) b_j^2 / 2),
 *
 * with the intercept (coordinate 0 when present) unpenalised.  g is a
 * released gradient at c and A a released, positive definite curvature
 * matrix, so this is post-processing: it is solved to high accuracy by
 * cyclic coordinate descent, whose sweeps keep the gradient of the smooth
 * part, s = g + A (b - c) / eta, up to date one column of A at a time.
 *
 * A multinomial's model couples its K class blocks through the K x K
 * class matrix S: its curvature is S (x) A / eta (quad_lasso_classes()),
 * the multinomial Hessian's form (diag(p) - p p') (x) E[w w'] at a point
 * where every record has the class probabilities p. */
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
    double pf = qm->pf[j - qm->has_int];
    double thr = lambda * qm->alpha * pf;
    double v = u > thr ? u - thr : (u < -thr ? u + thr : 0.0);
    return v / (qjj + lambda * (1.0 - qm->alpha) * pf);
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

void quad_lasso_classes(const quad_model *qm, const double *g,
                        const double *c, double lambda, double *b, double *s)
{
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
