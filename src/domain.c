/* The bounded domain of the penalised paths (spgd.c, newton.c).  Every
 * iterate is projected onto the ellipsoid
 *     { b : (b - c)' M (b - c) <= r^2 }
 * per class block, c the path's start (the trivial model), M the released
 * second-moment matrix of the rows (1, x_i) and r the block's radius
 * (R/domain.R).  (b - c)' M (b - c) is the mean over the records of the
 * squared change of the linear predictor away from the trivial model, as
 * far as the release tells, so the domain bounds how far the predictions
 * can move, in root mean square, from the mean (or base rate): noise
 * divided by a small curvature cannot carry them beyond what the released
 * range of y supports, while a real model's predictions, whose spread is
 * at most the spread of y, stay inside.  In M's metric the projection is
 * the radial scaling toward c.  It reads no data: post-processing of
 * released values. */
#include <math.h>
#include "spgd.h"

void domain_project(const path_domain *dm, double *beta, int width,
                    int nclass)
{
    if (dm->metric == NULL)
        return;
    double *v = dm->work;
    for (int k = 0; k < nclass; k++) {
        double *b = beta + (size_t) k * width;
        const double *c = dm->centre + (size_t) k * width;
        for (int j = 0; j < width; j++)
            v[j] = b[j] - c[j];
        double q = 0.0;
        for (int j = 0; j < width; j++) {
            const double *col = dm->metric + (size_t) j * width;
            double acc = 0.0;
            for (int i = 0; i < width; i++)
                acc += col[i] * v[i];
            q += v[j] * acc;
        }
        double r = dm->radius[k];
        /* (q is NaN only for a non-finite iterate: back to the centre) */
        if (!(q <= r * r)) {
            double f = q > 0.0 && isfinite(q) ? r / sqrt(q) : 0.0;
            for (int j = 0; j < width; j++)
                b[j] = f > 0.0 ? c[j] + f * v[j] : c[j];
        }
    }
}
