/* Generalized Gaussian noise: draws from the density proportional to
 * exp(-||z||_r^2 / (2 sigma^2)) on R^d (Bassily, Guzman and Nandi 2021),
 * the noise of the mirror-descent optimisers (mirror.c).
 *
 * The density depends on z only through ||z||_r, so z = R V with V on the
 * unit sphere of ||.||_r distributed by the cone measure and R independent
 * of V with density proportional to rho^(d-1) exp(-rho^2 / (2 sigma^2)),
 * i.e. R = sigma * chi_d.  A cone-measure direction is u / ||u||_r with
 * u_i iid of density proportional to exp(-|u|^r) (Schechtman and Zinn
 * 1990): |u_i|^r ~ Gamma(1/r, 1) with a random sign.  At r = 2 the law is
 * N(0, sigma^2 I), drawn directly with d normals.
 *
 * All draws come from R's generator, in a fixed order (per draw: d pairs
 * (gamma, sign), then the chi), so set.seed() reproduces them. */
#include <math.h>
#include <string.h>
#include <Rmath.h>
#include "dpsco.h"

/* ||v||_s for s >= 1, on v / max |v_j| so that no power over- or
 * underflows for finite v: the noise's norm, which mirror.c's steps use
 * too (so the noise does not depend on the optimiser). */
double lp_norm(const double *v, int d, double s)
{
    double big = 0.0;
    for (int j = 0; j < d; j++) {
        double a = fabs(v[j]);
        big = a > big ? a : big;
    }
    if (big == 0.0 || !R_FINITE(big))
        return big;
    double sum = 0.0;
    if (s == 2.0) {
        for (int j = 0; j < d; j++) {
            double t = v[j] / big;
            sum += t * t;
        }
        return big * sqrt(sum);
    }
    for (int j = 0; j < d; j++)
        sum += pow(fabs(v[j]) / big, s);
    return big * pow(sum, 1.0 / s);
}

/* One draw into z (overwritten). */
void gg_draw(double *z, int d, double r, double sigma)
{
    if (sigma == 0.0) {
        memset(z, 0, (size_t) d * sizeof(double));
        return;
    }
    if (r == 2.0) {
        for (int j = 0; j < d; j++)
            z[j] = sigma * norm_rand();
        return;
    }
    double shape = 1.0 / r, nrm;
    do {
        for (int j = 0; j < d; j++) {
            double a = pow(rgamma(shape, 1.0), shape);
            z[j] = unif_rand() < 0.5 ? -a : a;
        }
        /* u = 0 has probability zero; redrawn rather than divided by */
        nrm = lp_norm(z, d, r);
    } while (nrm == 0.0);
    double scale = sigma * sqrt(rgamma(0.5 * d, 2.0)) / nrm;
    for (int j = 0; j < d; j++)
        z[j] *= scale;
}

/* acc += the sum of k independent draws; `work` holds d doubles.  At
 * r = 2 the sum is exactly N(0, k sigma^2 I), drawn as one vector. */
void gg_add_sum(double *acc, int d, double r, double sigma, int k,
                double *work)
{
    if (sigma == 0.0 || k <= 0)
        return;
    if (r == 2.0) {
        gg_draw(work, d, r, sigma * sqrt((double) k));
        for (int j = 0; j < d; j++)
            acc[j] += work[j];
        return;
    }
    for (int i = 0; i < k; i++) {
        gg_draw(work, d, r, sigma);
        for (int j = 0; j < d; j++)
            acc[j] += work[j];
    }
}
