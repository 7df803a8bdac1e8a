/* Derivative of the per-record loss with respect to the linear predictor.
 * gaussian: (y - eta)^2 / 2        -> eta - y
 * binomial: log(1 + e^eta) - y eta -> 1 / (1 + e^-eta) - y
 * poisson:  e^eta - y eta          -> e^eta - y (unbounded: only the
 *           oracles' truncation bounds a record's contribution)
 * multinomial: -log softmax(eta)_y      -> softmax(eta) - e_y, a vector
 *           (record_residuals(), one eta per class)
 * quantile: the check loss c(u) = tau u+ + (1 - tau)(-u)+ at u = y - eta,
 *           made smooth at bandwidth h in one of two ways:
 *   convolution with K_h(.) = K(. / h) / h (kernels gaussian, logistic,
 *           uniform, epanechnikov): the derivative in eta is
 *           F((eta - y) / h) - tau, F the kernel's distribution function
 *           (all four kernels are symmetric);
 *   Moreau envelope with parameter 1 / h (KERNEL_MOREAU): the derivative
 *           is the clamp of (eta - y) / h to [-tau, 1 - tau].
 *           Either way |r| <= max(tau, 1 - tau), whatever eta and y: the
 *           bound every sensitivity of the quantile family rests on.
 * A non-finite value (a diverging iterate) is mapped to a finite one so the
 * oracles' clamping still bounds every contribution. */
#include <math.h>
#include <float.h>
#include <Rmath.h>
#include "dpsco.h"

/* Distribution function of the smoothing kernel. */
static double kernel_cdf(int kernel, double u)
{
    switch (kernel) {
    case KERNEL_LOGISTIC:
        return u >= 0 ? 1.0 / (1.0 + exp(-u)) : exp(u) / (1.0 + exp(u));
    case KERNEL_UNIFORM:
        return u <= -1.0 ? 0.0 : u >= 1.0 ? 1.0 : 0.5 * (u + 1.0);
    case KERNEL_EPANECHNIKOV:
        return u <= -1.0 ? 0.0 : u >= 1.0 ? 1.0
               : 0.5 + 0.75 * u - 0.25 * u * u * u;
    default:
        return pnorm(u, 0.0, 1.0, 1, 0);
    }
}

/* The derivative of the smoothed check loss in eta at u = (eta - y) / h. */
static double quantile_residual(const loss_family *f, double u)
{
    double r;
    if (f->kernel == KERNEL_MOREAU) {
        r = u < -f->tau ? -f->tau : u > 1.0 - f->tau ? 1.0 - f->tau : u;
    } else {
        r = kernel_cdf(f->kernel, u) - f->tau;
    }
    /* rounding in F can leave [0, 1] by an ulp: clamp to the proof's range */
    if (r < -f->tau) r = -f->tau;
    if (r > 1.0 - f->tau) r = 1.0 - f->tau;
    return r;
}

double glm_residual(const loss_family *f, double eta, double y)
{
    double r;
    if (f->kind == FAMILY_BINOMIAL) {
        r = eta >= 0 ? 1.0 / (1.0 + exp(-eta)) : exp(eta) / (1.0 + exp(eta));
        r -= y;
    } else if (f->kind == FAMILY_POISSON) {
        /* overflow gives +Inf, mapped to DBL_MAX below */
        r = exp(eta) - y;
    } else if (f->kind == FAMILY_QUANTILE) {
        double u = (eta - y) / f->h;
        /* NaN (a diverged iterate) gives 0; +-Inf reach the clamp */
        return isnan(u) ? 0.0 : quantile_residual(f, u);
    } else {
        r = eta - y;
    }
    if (isnan(r))
        return 0.0;
    if (isinf(r))
        return r > 0 ? DBL_MAX : -DBL_MAX;
    return r;
}

/* The weight w_i in [0, 1] scales the derivative, so |w_i r_i| <= |r_i|:
 * every oracle's truncation of a record's contribution, and so every
 * sensitivity, holds as it does without weights.  Without weights and
 * offsets the arithmetic is the unweighted pass's, bit for bit. */
double record_residual(const fit_problem *pr, int i, double eta)
{
    double e = pr->offset + eta;
    if (pr->roff)
        e += pr->roff[i];
    double r = glm_residual(&pr->family, e, pr->y[i]);
    return pr->weight ? pr->weight[i] * r : r;
}

/* softmax(eta) - e_y, by the largest eta so that no exp() overflows, each
 * probability in [0, 1] and their sum 1 up to rounding: ||r|| <= sqrt(2)
 * and |r_c| <= 1, the bounds the oracles' sensitivities rest on.  A
 * non-finite eta (a diverged iterate) is clamped to a finite one first, and
 * a NaN gives the record no contribution, as glm_residual() does. */
void record_residuals(const fit_problem *pr, int i, const double *eta,
                      double *r)
{
    int K = pr->family.nclass, y = (int) pr->y[i];
    double top = -DBL_MAX, sum = 0.0;
    for (int c = 0; c < K; c++) {
        if (isnan(eta[c])) {
            for (int k = 0; k < K; k++)
                r[k] = 0.0;
            return;
        }
        double e = eta[c] > DBL_MAX ? DBL_MAX
                   : eta[c] < -DBL_MAX ? -DBL_MAX : eta[c];
        r[c] = e;
        if (e > top)
            top = e;
    }
    for (int c = 0; c < K; c++) {
        r[c] = exp(r[c] - top);
        sum += r[c];
    }
    double w = pr->weight ? pr->weight[i] : 1.0;
    for (int c = 0; c < K; c++) {
        double prob = r[c] / sum;
        if (prob > 1.0)
            prob = 1.0;
        r[c] = w * (prob - (c == y ? 1.0 : 0.0));
    }
}
