/* One proximal gradient step for the penalty of dpsco.h's path_penalty.
 * The intercept (coordinate 0 of a block when present) is unpenalized: a
 * plain gradient step.  Ungrouped, the prox is soft thresholding, a ridge
 * shrink and the clamp to the box (for one coordinate the clamp of the
 * unconstrained minimiser is the constrained one, the objective being
 * convex); a multinomial's blocks are then each stepped alone.  Grouped,
 * feature j's coefficients over the classes shrink together toward 0 by
 * their 2-norm (the prox of the group penalty). */
#include <math.h>
#include "dpsco.h"

double penalty_box(const path_penalty *pen, int j, double v)
{
    if (pen->lower && v < pen->lower[j])
        return pen->lower[j];
    if (pen->upper && v > pen->upper[j])
        return pen->upper[j];
    return v;
}

void prox_step(double *beta, const double *grad, int p, int has_int,
               double gamma, double lambda, const path_penalty *pen)
{
    if (has_int) {
        beta[0] -= gamma * grad[0];
        beta++;
        grad++;
    }
    double l1 = gamma * lambda * pen->alpha;
    double l2 = gamma * lambda * (1.0 - pen->alpha);
    for (int j = 0; j < p; j++) {
        double u = beta[j] - gamma * grad[j];
        double thr = l1 * pen->pf[j];
        double v = u > thr ? u - thr : (u < -thr ? u + thr : 0.0);
        beta[j] = penalty_box(pen, j, v / (1.0 + l2 * pen->pf[j]));
    }
}

static void prox_grouped(double *beta, const double *grad, int nclass, int p,
                         int has_int, double gamma, double lambda,
                         const path_penalty *pen)
{
    size_t width = (size_t) p + has_int;
    double l1 = gamma * lambda * pen->alpha;
    double l2 = gamma * lambda * (1.0 - pen->alpha);
    for (int c = 0; c < nclass && has_int; c++)
        beta[c * width] -= gamma * grad[c * width];
    for (int j = 0; j < p; j++) {
        size_t at = (size_t) has_int + j;
        double norm = 0.0;
        for (int c = 0; c < nclass; c++) {
            double u = beta[c * width + at] - gamma * grad[c * width + at];
            beta[c * width + at] = u;
            norm += u * u;
        }
        norm = sqrt(norm);
        double thr = l1 * pen->pf[j];
        double f = norm > thr ? (1.0 - thr / norm) / (1.0 + l2 * pen->pf[j])
                              : 0.0;
        for (int c = 0; c < nclass; c++)
            beta[c * width + at] *= f;
    }
}

void prox_classes(double *beta, const double *grad, int nclass, int p,
                  int has_int, double gamma, double lambda,
                  const path_penalty *pen)
{
    if (pen->grouped && nclass > 1) {
        prox_grouped(beta, grad, nclass, p, has_int, gamma, lambda, pen);
        return;
    }
    size_t width = (size_t) p + has_int;
    for (int c = 0; c < nclass; c++)
        prox_step(beta + c * width, grad + c * width, p, has_int, gamma,
                  lambda, pen);
}
