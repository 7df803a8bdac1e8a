/* One-pass noisy clipped methods over the l2 ball (Lowy and Razaviyayn,
 * private stochastic optimisation with a large worst-case Lipschitz
 * parameter), along a path of radii.  A sibling of spgd.c: each step is
 * block_gradient() on a block of records, i.e. the sum of the records'
 * gradients clipped to l2 norm C (oracle_clip.c, Algorithm 1) divided by
 * the block's public expected size, plus Gaussian noise.
 *
 * Blocks.  Per radius every record draws its own label from one
 * unif_rand(), in record order (sample_groups()), independently of the
 * data: acsa and sgd have T blocks, each record in each w.p. 1 / T, with
 * expected size N = n / T; localized puts a record in phase i = 1 .. k
 * w.p. 2^-i (expected size n_i = n 2^-i) and in none w.p. 2^-k.  n is the
 * public size, N and n_i are doubles computed from it in R, and a block's
 * sum is divided by them whatever its realised count.  Draws per radius:
 * the n uniforms, then per step the dim normals.
 *
 * Why a pass is one Gaussian release of multiplier z per record (add/remove
 * one record r at the public n).  Fix the outputs of the earlier radii,
 * hence the starting point.  The other records' labels have the same
 * distribution with or without r (each is its own draw), so couple them.
 * Given the labels, r is in one block b or in none; every other block holds
 * the same records, and its steps see the same iterates whenever the
 * earlier outputs are the same, so they are the same kernels of the
 * history on D and D' (adaptive composition).  Block b's clipped sum moves
 * by at most C in l2 and its divisor is the same public number on both
 * sides, so each of its steps is a Gaussian mechanism of sensitivity C / N
 * (localized: C / n_i, noise z sqrt(T_i) C / n_i at each of its T_i steps,
 * together again multiplier z).  Given the labels the pass is thus
 * alpha / (2 z^2)-RDP, from D to D' (r added) and from D' to D (r removed)
 * alike since the Gaussian's divergence is symmetric, and 0 when r sits
 * out; the labels are not released and the Renyi divergence is jointly
 * quasi-convex, so the mixture over labels keeps the bound.  Radii
 * compose: one release of multiplier z per record per radius, as
 * R/one-pass.R accounts.  (Fixed-size blocks of a permutation fail this:
 * an added record pushes another out of its block, a replacement of
 * sensitivity 2 C / N.)
 *
 *   acsa      Algorithm 2, AC-SA of Ghadimi and Lan (2012) with mu = 0:
 *             alpha_t = 2 / (t + 1), gamma_t = 4 eta / (t (t + 1));
 *             w_md = (1 - alpha_t) w_ag + alpha_t w,
 *             w    = P(w - (alpha_t / gamma_t) g(w_md)),
 *             w_ag = alpha_t w + (1 - alpha_t) w_ag; output w_ag.
 *   sgd       Algorithm 6: w <- P(w - eta_t (g(w) + mu w)), output the
 *             average of the iterates with weights omega_t (Stich's
 *             schedule, computed in R).
 *   localized Algorithm 4 (iterative localization of Feldman, Koren and
 *             Talwar 2020): phase i takes its own block (expected size
 *             n_i) and runs Algorithm 3, T_i noisy clipped subgradient
 *             steps on F_i(w) = mean f(w) + (lambda_i / 2) ||w - w_{i-1}||^2
 *             (only the loss part is clipped), step 2 / (lambda_i (t + 1)),
 *             over the ball of the radius intersected with the local ball
 *             ||w - w_{i-1}|| <= D_i; its output, the average weighted by
 *             t, is w_i; the fit's output is the last phase's.
 * Each radius is warm-started at the previous radius' output. */
#include <math.h>
#include <string.h>
#include <Rmath.h>
#include <R_ext/Utils.h>
#include "dpsco.h"

/* Records streamed between two interrupt checks. */
#define INTERRUPT_EVERY 1000000.0

static double norm2(const double *v, int d)
{
    double s = 0.0;
    for (int j = 0; j < d; j++)
        s += v[j] * v[j];
    return sqrt(s);
}

static void project_ball(double *w, int d, double radius)
{
    double nrm = norm2(w, d);
    if (nrm > radius)
        for (int j = 0; j < d; j++)
            w[j] *= radius / nrm;
}

/* Euclidean projection on {||u|| <= radius} intersected with
 * {||u - c|| <= local}, for c inside the first ball (so the intersection
 * is not empty).  When the projection on one ball lies in the other, it
 * is the answer.  Otherwise both constraints bind and the answer is the
 * point of the intersection of the two spheres nearest to w: the spheres
 * meet in a (d-2)-sphere centred at h c / |c|,
 * h = (radius^2 - local^2 + |c|^2) / (2 |c|), of radius
 * sqrt(radius^2 - h^2), and the nearest point adds that radius along the
 * part of w orthogonal to c. */
void project_two_balls(double *w, int d, double radius, const double *c,
                       double local)
{
    double nw = norm2(w, d), dc = 0.0, cc = 0.0, wc = 0.0;
    for (int j = 0; j < d; j++) {
        double e = w[j] - c[j];
        dc += e * e;
        cc += c[j] * c[j];
        wc += w[j] * c[j];
    }
    dc = sqrt(dc);
    if (nw <= radius && dc <= local)
        return;
    /* the projection on the ball of the radius, tested against the local one */
    double f = nw > radius ? radius / nw : 1.0, e2 = 0.0;
    for (int j = 0; j < d; j++) {
        double e = f * w[j] - c[j];
        e2 += e * e;
    }
    if (sqrt(e2) <= local) {
        for (int j = 0; j < d; j++)
            w[j] *= f;
        return;
    }
    /* the projection on the local ball, tested against the radius */
    double g = dc > local ? local / dc : 1.0, n2 = 0.0;
    for (int j = 0; j < d; j++) {
        double u = c[j] + g * (w[j] - c[j]);
        n2 += u * u;
    }
    if (sqrt(n2) <= radius) {
        for (int j = 0; j < d; j++)
            w[j] = c[j] + g * (w[j] - c[j]);
        return;
    }
    double len = sqrt(cc);
    if (len == 0.0) {   /* concentric: the smaller ball, handled above */
        project_ball(w, d, radius < local ? radius : local);
        return;
    }
    double h = (radius * radius - local * local + cc) / (2.0 * len);
    double r2 = radius * radius - h * h;
    double rr = r2 > 0.0 ? sqrt(r2) : 0.0;
    /* the part of w orthogonal to c */
    double a = wc / cc, po = 0.0;
    for (int j = 0; j < d; j++) {
        double v = w[j] - a * c[j];
        po += v * v;
    }
    po = sqrt(po);
    if (po == 0.0) {
        /* w on the line through 0 and c: every point of the (d-2)-sphere
         * is nearest; take the direction of the coordinate axis least
         * aligned with c, made orthogonal to it */
        int k = 0;
        for (int j = 1; j < d; j++)
            if (fabs(c[j]) < fabs(c[k]))
                k = j;
        double ck = c[k] / cc;
        for (int j = 0; j < d; j++)
            w[j] = (j == k ? 1.0 : 0.0) - ck * c[j];
        a = 0.0;
        po = norm2(w, d);
        if (po == 0.0) {  /* d = 1: no orthogonal direction */
            for (int j = 0; j < d; j++)
                w[j] = h * c[j] / len;
            return;
        }
    }
    for (int j = 0; j < d; j++)
        w[j] = h * c[j] / len + rr * (w[j] - a * c[j]) / po;
}

static void check_interrupt(double *since_check)
{
    if (*since_check >= INTERRUPT_EVERY) {
        R_CheckUserInterrupt();
        *since_check = 0.0;
    }
}

/* A block's public expected size is the divisor of its clipped sum; its
 * probability (public too) only informs pass.c's threading rule. */
static void use_block(fit_problem *pr, oracle_state *o, double size,
                      double prob)
{
    o->m = size;
    pr->q = prob;
}

/* Algorithm 2 at radius l, from beta (overwritten by the output w_ag). */
static void acsa_radius(fit_problem *pr, oracle_state *o,
                        const one_pass_plan *pl, int l, const int *idx,
                        const int *start, double *beta, double *since_check)
{
    int dim = pr->p + pr->has_int, T = pl->steps[0];
    double eta = pl->step[l], radius = pl->radius[l];
    double *w = (double *) R_alloc((size_t) dim, sizeof(double));
    double *md = (double *) R_alloc((size_t) dim, sizeof(double));
    double *est = (double *) R_alloc((size_t) dim, sizeof(double));
    memcpy(w, beta, (size_t) dim * sizeof(double));
    use_block(pr, o, pl->size[0], 1.0 / T);
    for (int t = 1; t <= T; t++) {
        double a = 2.0 / (t + 1.0);
        int count = start[t] - start[t - 1];
        for (int j = 0; j < dim; j++)
            md[j] = (1.0 - a) * beta[j] + a * w[j];
        block_gradient(pr, o, md, idx + start[t - 1], count,
                       pl->noise_sd[0], est);
        double step = t / (2.0 * eta);  /* alpha_t / gamma_t */
        for (int j = 0; j < dim; j++)
            w[j] -= step * est[j];
        project_ball(w, dim, radius);
        for (int j = 0; j < dim; j++)
            beta[j] = a * w[j] + (1.0 - a) * beta[j];
        *since_check += count;
        check_interrupt(since_check);
    }
}

/* Algorithm 6 at radius l, from beta (overwritten by the weighted average
 * of the iterates, or the last iterate if every weight is 0). */
static void sgd_radius(fit_problem *pr, oracle_state *o,
                       const one_pass_plan *pl, int l, const int *idx,
                       const int *start, double *beta, double *since_check)
{
    int dim = pr->p + pr->has_int, T = pl->steps[0];
    double radius = pl->radius[l], mu = pl->ridge;
    const double *eta = pl->step + (size_t) l * T;
    const double *omega = pl->weight + (size_t) l * T;
    double *avg = (double *) R_alloc((size_t) dim, sizeof(double));
    double *est = (double *) R_alloc((size_t) dim, sizeof(double));
    memset(avg, 0, (size_t) dim * sizeof(double));
    double wsum = 0.0;
    use_block(pr, o, pl->size[0], 1.0 / T);
    for (int t = 0; t < T; t++) {
        int count = start[t + 1] - start[t];
        block_gradient(pr, o, beta, idx + start[t], count, pl->noise_sd[0],
                       est);
        for (int j = 0; j < dim; j++)
            beta[j] -= eta[t] * (est[j] + mu * beta[j]);
        project_ball(beta, dim, radius);
        if (omega[t] > 0.0) {
            wsum += omega[t];
            double f = omega[t] / wsum;
            for (int j = 0; j < dim; j++)
                avg[j] += f * (beta[j] - avg[j]);
        }
        *since_check += count;
        check_interrupt(since_check);
    }
    if (wsum > 0.0)
        memcpy(beta, avg, (size_t) dim * sizeof(double));
}

/* Algorithm 4 at radius l, from beta (overwritten by the last phase's
 * output). */
static void localized_radius(fit_problem *pr, oracle_state *o,
                             const one_pass_plan *pl, int l, const int *idx,
                             const int *start, double *beta,
                             double *since_check)
{
    int dim = pr->p + pr->has_int, k = pl->nphase;
    double radius = pl->radius[l];
    double *w = (double *) R_alloc((size_t) dim, sizeof(double));
    double *avg = (double *) R_alloc((size_t) dim, sizeof(double));
    double *est = (double *) R_alloc((size_t) dim, sizeof(double));
    project_ball(beta, dim, radius);  /* the centre must lie in the ball */
    for (int i = 0; i < k; i++) {
        int T = pl->steps[i], count = start[i + 1] - start[i];
        double lam = pl->step[(size_t) l * k + i];
        double local = pl->weight[(size_t) l * k + i];
        /* phase i + 1: probability 2^-(i + 1) */
        use_block(pr, o, pl->size[i], ldexp(1.0, -(i + 1)));
        memcpy(w, beta, (size_t) dim * sizeof(double));
        memset(avg, 0, (size_t) dim * sizeof(double));
        for (int t = 1; t <= T; t++) {
            block_gradient(pr, o, w, idx + start[i], count, pl->noise_sd[i],
                           est);
            double step = 2.0 / (lam * (t + 1.0));
            for (int j = 0; j < dim; j++)
                w[j] -= step * (est[j] + lam * (w[j] - beta[j]));
            project_two_balls(w, dim, radius, beta, local);
            /* weights t: the running mean over weights summing to
             * t (t + 1) / 2 */
            double f = 2.0 / (t + 1.0);
            for (int j = 0; j < dim; j++)
                avg[j] += f * (w[j] - avg[j]);
            *since_check += count;
            check_interrupt(since_check);
        }
        memcpy(beta, avg, (size_t) dim * sizeof(double));
    }
}

/* The path over the radii from beta (overwritten), outputs in out
 * (dim x nr). */
void one_pass_path(fit_problem *pr, oracle_state *o, const one_pass_plan *pl,
                   double *beta, double *out)
{
    int dim = pr->p + pr->has_int, n = pr->n;
    int localized = pl->method == ONE_PASS_LOCALIZED;
    int k = localized ? pl->nphase : pl->steps[0];
    int *label = RECORD_ALLOC(n, int);
    int *idx = RECORD_ALLOC(n, int);
    int *start = (int *) R_alloc((size_t) k + 2, sizeof(int));
    double since_check = 0.0;
    for (int l = 0; l < pl->nr; l++) {
        /* fresh labels per radius: block (or phase) g is
         * idx[start[g] .. start[g + 1] - 1] */
        sample_groups(n, k, localized ? LABELS_HALVING : LABELS_UNIFORM, 0.0,
                      label, start, idx);
        switch (pl->method) {
        case ONE_PASS_ACSA:
            acsa_radius(pr, o, pl, l, idx, start, beta, &since_check);
            break;
        case ONE_PASS_SGD:
            sgd_radius(pr, o, pl, l, idx, start, beta, &since_check);
            break;
        default:
            localized_radius(pr, o, pl, l, idx, start, beta, &since_check);
        }
        memcpy(out + (size_t) l * dim, beta, (size_t) dim * sizeof(double));
        R_CheckUserInterrupt();
    }
}
