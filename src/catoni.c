/* E psi(a + b Z), Z ~ N(0, 1), for the Catoni-Giulini influence function
 *   psi(x) = x - x^3 / 6 for |x| <= sqrt(2),  sign(x) 2 sqrt(2) / 3 beyond.
 *
 * Two evaluations, each used where it is accurate:
 *  - the closed form (truncated normal moments) for |a| <= 10 and b <= 10,
 *    where its terms stay below ~1e3 and cancellation costs < 1e-12;
 *  - otherwise the two tail probabilities times +-2 sqrt(2)/3 plus a 32-point
 *    Gauss-Legendre rule for the cubic part on [-sqrt(2), sqrt(2)].  There
 *    the normal density is either wide compared with the interval (smooth
 *    integrand) or centred more than 8.5 sd away (negligible middle part).
 * holland_h() clamps the result to the bound the sensitivity proof uses. */
#include <math.h>
#include <Rmath.h>
#include "oracle_internal.h"

#define SQRT2 1.41421356237309504880
#define PSI_MAX (2.0 * SQRT2 / 3.0)
#define GL_N 32

static double gl_node[GL_N], gl_weight[GL_N];

/* Gauss-Legendre nodes and weights on [-1, 1] by Newton's method on the
 * Legendre polynomial P_n, using its three-term recurrence. */
void catoni_init(void)
{
    static int ready = 0;
    if (ready)
        return;
    const int n = GL_N;
    for (int i = 0; i < (n + 1) / 2; i++) {
        double z = cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 1.0;
        for (int it = 0; it < 100; it++) {
            double p0 = 1.0, p1 = 0.0;
            for (int j = 1; j <= n; j++) {
                double p2 = p1;
                p1 = p0;
                p0 = ((2.0 * j - 1.0) * z * p1 - (j - 1.0) * p2) / j;
            }
            dp = n * (z * p0 - p1) / (z * z - 1.0);
            double step = p0 / dp;
            z -= step;
            if (fabs(step) < 1e-16)
                break;
        }
        gl_node[i] = -z;
        gl_node[n - 1 - i] = z;
        gl_weight[i] = gl_weight[n - 1 - i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
    ready = 1;
}

/* Upper normal tail and density via C99 erfc/exp: accurate to a few ulps
 * and several times faster than Rmath's general pnorm/dnorm. */
static double upper_tail(double u)
{
    return 0.5 * erfc(u * M_SQRT1_2);
}

static double density(double u)
{
    return M_1_SQRT_2PI * exp(-0.5 * u * u);
}

static double psi(double x)
{
    if (x > SQRT2)
        return PSI_MAX;
    if (x < -SQRT2)
        return -PSI_MAX;
    return x - x * x * x / 6.0;
}

static double closed_form(double a, double b)
{
    double u = (SQRT2 - a) / b, w = (SQRT2 + a) / b;
    double pu = upper_tail(u), pw = upper_tail(w);
    double du = density(u), dw = density(w);
    /* For tiny b, u and w are huge (u * u may overflow) while the densities
     * underflow to 0: the products are 0, not Inf * 0. */
    double udu = du > 0 ? u * du : 0.0, wdw = dw > 0 ? w * dw : 0.0;
    double u2du = du > 0 ? (u * u + 2.0) * du : 0.0;
    double w2dw = dw > 0 ? (w * w + 2.0) * dw : 0.0;
    double c = PSI_MAX * (pu - pw)
        - (a - a * a * a / 6.0) * (pu + pw)
        + b * (1.0 - a * a / 2.0) * (dw - du)
        + (a * b * b / 2.0) * (pu + pw + udu + wdw)
        + (b * b * b / 6.0) * (u2du - w2dw);
    return a * (1.0 - b * b / 2.0) - a * a * a / 6.0 + c;
}

static double tails_plus_quadrature(double a, double b)
{
    double u = (SQRT2 - a) / b, w = (SQRT2 + a) / b;
    double tails = PSI_MAX * (upper_tail(u) - upper_tail(w));
    double mid = 0.0;
    for (int i = 0; i < GL_N; i++) {
        double x = SQRT2 * gl_node[i];
        mid += gl_weight[i] * (x - x * x * x / 6.0) * density((x - a) / b);
    }
    return tails + SQRT2 * mid / b;
}

double catoni_mean(double a, double b)
{
    if (b <= 0.0)
        return psi(a);
    if (fabs(a) <= 10.0 && b <= 10.0)
        return closed_form(a, b);
    return tails_plus_quadrature(a, b);
}

/* The Holland contribution of a value a = l / s: b = |a| / sqrt(nu). */
double holland_h(double a, double sqrt_nu)
{
    if (a == 0.0 || isnan(a))
        return 0.0;
    if (fabs(a) > 1e300)  /* keeps b finite; h is flat out there */
        a = a > 0 ? 1e300 : -1e300;
    double v = catoni_mean(a, fabs(a) / sqrt_nu);
    /* |h(a)| <= min(|a|, PSI_MAX): the first keeps an l2-clipped record's
     * contributions within its clipped norm, whatever the rounding */
    double lim = fabs(a) < PSI_MAX ? fabs(a) : PSI_MAX;
    return v > lim ? lim : (v < -lim ? -lim : v);
}
