/* One proximal gradient step for the elastic-net penalty
 *   lambda * sum_j pf_j (alpha |b_j| + (1 - alpha) b_j^2 / 2),
 * whose prox is soft thresholding followed by a ridge shrink.  The intercept
 * (coordinate 0 when present) is unpenalized: a plain gradient step.  A
 * multinomial's coefficients are one such block per class (prox_classes()):
 * the penalty is glmnet's ungrouped one, the sum over classes. */
#include <math.h>
#include "dpsco.h"

void prox_step(double *beta, const double *grad, int p, int has_int,
               double gamma, double lambda, double alpha, const double *pf)
{
    if (has_int) {
        beta[0] -= gamma * grad[0];
        beta++;
        grad++;
    }
    double l1 = gamma * lambda * alpha, l2 = gamma * lambda * (1.0 - alpha);
    for (int j = 0; j < p; j++) {
        double u = beta[j] - gamma * grad[j];
        double thr = l1 * pf[j];
        double v = u > thr ? u - thr : (u < -thr ? u + thr : 0.0);
        beta[j] = v / (1.0 + l2 * pf[j]);
    }
}

void prox_classes(double *beta, const double *grad, int nclass, int p,
                  int has_int, double gamma, double lambda, double alpha,
                  const double *pf)
{
    size_t width = (size_t) p + has_int;
    for (int c = 0; c < nclass; c++)
        prox_step(beta + c * width, grad + c * width, p, has_int, gamma,
                  lambda, alpha, pf);
}
