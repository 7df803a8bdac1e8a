/* Tabulated Holland contribution h(a) = E psi(a + |a| Z / sqrt(nu)) for one
 * fit's fixed nu, so the oracle costs a table look-up instead of normal tail
 * functions.  h is odd, so only a >= 0 is stored:
 *   |a| <= a_poly : h(a) = a (1 - a^2 (1/6 + 1/(2 nu))) exactly: a + bZ stays
 *                   inside the cubic part of psi except with probability
 *                   Q(10) < 1e-23, whose effect on h is far below 1e-12;
 *   |a| <= A_MID  : cubic (4-point Lagrange) interpolation on a uniform grid
 *                   in a, fine enough to resolve the smoothing width b near
 *                   the kinks of psi;
 *   |a| >  A_MID  : the same on a uniform grid in t = A_MID / |a| in (0, 1],
 *                   where h is smooth up to its limit at t = 0.
 * The grids make the interpolation error below 1e-12 absolute (checked in
 * the tests); the result is clamped to +-2 sqrt(2)/3 like the exact value,
 * so the sensitivity bound never depends on the approximation.  When nu is
 * so large that the grid would need more than MAX_POINTS points, no table is
 * built and the exact evaluation is used. */
#include <math.h>
#include <Rmath.h>
#include "oracle_internal.h"

#define SQRT2 1.41421356237309504880
#define MID_POINTS_MIN 8192
#define TAIL_POINTS 4096
#define MAX_POINTS 2000000

int holland_table_build(holland_table *tb, double nu)
{
    double sqrt_nu = sqrt(nu);
    /* near the kinks the smoothing width is b = a / sqrt(nu) ~ sqrt(2 / nu):
     * keep at least 40 grid steps per width; for small nu, h bends on the
     * scale sqrt(nu) (h(a) ~ a - a^3 / (2 nu)): 1000 steps per sqrt(nu) */
    double step = fmin(HOLLAND_A_MID / MID_POINTS_MIN,
                       fmin(SQRT2 / sqrt_nu / 40.0, sqrt_nu / 1000.0));
    double npts = ceil(HOLLAND_A_MID / step);
    if (npts > MAX_POINTS)
        return 0;
    tb->sqrt_nu = sqrt_nu;
    tb->cubic = 1.0 / 6.0 + 1.0 / (2.0 * nu);
    tb->a_poly = SQRT2 / (1.0 + 10.0 / sqrt_nu);
    tb->n_mid = (int) npts;
    tb->step = HOLLAND_A_MID / tb->n_mid;
    tb->inv_step = 1.0 / tb->step;
    /* mid[k + 1] = h(k step), k = -1 .. n_mid + 2 (h(-a) = -h(a)) */
    tb->mid = (double *) R_alloc((size_t) tb->n_mid + 4, sizeof(double));
    for (int k = 0; k <= tb->n_mid + 2; k++)
        tb->mid[k + 1] = holland_h(k * tb->step, sqrt_nu);
    tb->mid[0] = -tb->mid[2];
    /* tail[k] = h(HOLLAND_A_MID / (k tstep)), k = 0 .. TAIL_POINTS + 2; k = 0 is the
     * limit a -> Inf: only the two tails of psi remain */
    tb->n_tail = TAIL_POINTS;
    tb->tstep = 1.0 / TAIL_POINTS;
    tb->inv_tstep = (double) TAIL_POINTS;
    tb->tail = (double *) R_alloc((size_t) TAIL_POINTS + 3, sizeof(double));
    tb->tail[0] = HOLLAND_PSI_MAX * (1.0 - erfc(sqrt_nu * M_SQRT1_2));
    for (int k = 1; k <= TAIL_POINTS + 2; k++)
        tb->tail[k] = holland_h(HOLLAND_A_MID / (k * tb->tstep), sqrt_nu);
    return 1;
}

void holland_h_values(const double *a, R_xlen_t n, double nu, int tabulated,
                      double *out)
{
    double sqrt_nu = sqrt(nu);
    holland_table tb;
    int use_table = tabulated && holland_table_build(&tb, nu);
    for (R_xlen_t i = 0; i < n; i++)
        out[i] = use_table ? holland_table_eval(&tb, a[i])
                           : holland_h(a[i], sqrt_nu);
}
