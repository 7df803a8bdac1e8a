/* Derivative of the per-record loss with respect to the linear predictor.
 * gaussian: (y - eta)^2 / 2        -> eta - y
 * binomial: log(1 + e^eta) - y eta -> 1 / (1 + e^-eta) - y
 * A non-finite value (a diverging iterate) is mapped to a finite one so the
 * oracles' clamping still bounds every contribution. */
#include <math.h>
#include <float.h>
#include "dpsco.h"

double glm_residual(int family, double eta, double y)
{
    double r;
    if (family == FAMILY_BINOMIAL) {
        r = eta >= 0 ? 1.0 / (1.0 + exp(-eta)) : exp(eta) / (1.0 + exp(eta));
        r -= y;
    } else {
        r = eta - y;
    }
    if (isnan(r))
        return 0.0;
    if (isinf(r))
        return r > 0 ? DBL_MAX : -DBL_MAX;
    return r;
}
