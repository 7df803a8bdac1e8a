/* Private Frank-Wolfe over the l1 ball {w : ||w||_1 <= r} along a path of
 * increasing radii: the sibling of spgd.c for the constraint-set methods
 * "fw" (Talwar, Thakurta and Zhang 2015), "htp_lasso" and "htdp_fw" (Hu,
 * Ni, Xiao and Wang 2022).
 *
 * Per step: the oracle's estimate g of the mean gradient at w from the pass
 * over the records (no Gaussian noise: pr->noise_sd is 0), then a vertex
 * v = -+r e_j drawn by the exponential mechanism with utility -<v, g>, then
 * w <- (1 - eta) w + eta v with eta = 2 / (t + 2).  Every w stays in the
 * ball, and the output at each radius (the last iterate) is the warm start
 * of the next, larger one.
 *
 * Full-data steps ("fw", "htp_lasso") see every record.  Chunked steps
 * ("htdp_fw") give each record a uniform chunk label in 0 .. T - 1, drawn
 * afresh for each radius, and step t sees chunk t only: one pass, so each
 * record enters one selection per radius (parallel composition). */
#include <math.h>
#include <string.h>
#include <Rmath.h>
#include <R_ext/Utils.h>
#include "dpsco.h"

/* A uniform on (0, 1) with the resolution of a double, not of one draw
 * of the generator (2^-32 for R's default): the Gumbel tails it yields
 * reach about 37 instead of 22, so the sampled mechanism departs from the
 * exact one only on events of probability near 1e-16. */
static double fine_uniform(void)
{
    double u = (floor(unif_rand() * 4294967296.0) + unif_rand()) / 4294967296.0;
    return u > 0.0 && u < 1.0 ? u : 0.5;
}

/* The exponential mechanism over the 2 dim vertices with utility
 * u(+-r e_j) = -+r g_j and add/remove sensitivity r * sens (sens bounds
 * how far one record moves any coordinate of g): the draw with
 * probabilities proportional to exp(eps0 u / (2 r sens)) is the argmax of
 * eps0 u / (2 r sens) plus independent standard Gumbel noise.  r cancels.
 * eps0 <= 0 selects the exact minimiser of <v, g> (not private).  Returns
 * the coordinate; *sign is the vertex's sign. */
static int fw_select(const double *g, int dim, double eps0, double sens,
                     double *sign)
{
    int best = 0;
    double best_score = -INFINITY;
    double scale = eps0 > 0 ? eps0 / (2.0 * sens) : 1.0;
    for (int j = 0; j < dim; j++) {
        for (int s = -1; s <= 1; s += 2) {
            double score = -s * g[j] * scale;
            if (eps0 > 0)
                score -= log(-log(fine_uniform()));
            if (score > best_score) {
                best_score = score;
                best = j;
                *sign = s;
            }
        }
    }
    return best;
}

void fw_path(const fit_problem *pr, oracle_state *o, const fw_setup *fs,
             const double *radius, int nradius, const double *beta0,
             double *out)
{
    int n = pr->n, dim = pr->p + pr->has_int;
    double *w = (double *) R_alloc((size_t) dim, sizeof(double));
    double *g = (double *) R_alloc((size_t) dim, sizeof(double));
    int *idx = RECORD_ALLOC(n, int);
    /* group labels for the Kamath oracle (one group), or chunk labels */
    int *label = RECORD_ALLOC(n, int);
    int *start = fs->chunked
        ? (int *) R_alloc((size_t) fs->steps + 2, sizeof(int)) : NULL;
    if (!fs->chunked) {
        for (int i = 0; i < n; i++)
            idx[i] = i;
        memset(label, 0, (size_t) n * sizeof(int));
    }
    memcpy(w, beta0, (size_t) dim * sizeof(double));
    double since_check = 0.0;
    for (int l = 0; l < nradius; l++) {
        double r = radius[l];
        /* chunk t - 1 is idx[start[t - 1] .. start[t] - 1] */
        if (fs->chunked)
            sample_groups(n, fs->steps, LABELS_UNIFORM, 0.0, label, start,
                          idx);
        for (int t = 1; t <= fs->steps; t++) {
            const int *batch = fs->chunked ? idx + start[t - 1] : idx;
            int count = fs->chunked ? start[t] - start[t - 1] : n;
            oracle_reset(o);
            /* chunk labels are not Kamath groups: htdp_fw uses Holland */
            batch_pass(pr, o, w, batch, fs->chunked ? NULL : label, count);
            oracle_finish(o, g);
            double sign = 1.0;
            int j = fw_select(g, dim, fs->eps0, fs->sensitivity, &sign);
            double eta = 2.0 / (t + 2.0);
            for (int k = 0; k < dim; k++)
                w[k] *= 1.0 - eta;
            w[j] += eta * sign * r;
            since_check += count;
            if (since_check >= 1e6) {
                R_CheckUserInterrupt();
                since_check = 0.0;
            }
        }
        memcpy(out + (size_t) l * dim, w, (size_t) dim * sizeof(double));
        R_CheckUserInterrupt();
    }
}
