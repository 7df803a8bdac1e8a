/* Private preconditioned proximal gradient ("noisy proximal Newton") along
 * a lambda path: a sibling of spgd.c that shares its sampling, its pass
 * over the batch and its oracles.
 *
 * Per step: draw a Poisson batch, stream it once (pass.c), finish the
 * oracle, add N(0, noise_sd^2) to every coordinate, then move to the
 * minimiser of the penalised quadratic model built from that noisy
 * gradient and a released curvature matrix A (quad_lasso.c).  The model
 * step is post-processing of the two releases.  With A the exact Hessian
 * of a least-squares loss one step reaches the penalised optimum; with a
 * noisy, ridged A the steps contract quickly in every direction whose
 * curvature stands above the ridge, which is what makes few noisy steps
 * enough on ill-conditioned designs.
 *
 * With memory w > 0 the gradient used at each step is (1 - w) times the
 * fresh release plus w times the previous step's gradient carried to the
 * new point by the model (g + A (b_new - b) / eta): for a quadratic loss
 * and A its Hessian both are unbiased, and mixing them averages the noise
 * of successive releases (post-processing of the releases).  With w = 1
 * the path makes one release only (the first gradient): every later step
 * takes the gradient the model carries from it, draws nothing and reads
 * no record, so the whole path is post-processing of that release and the
 * curvature.  For a least-squares loss, whose Hessian the released
 * curvature estimates, that is the sufficient-statistics path.
 *
 * The first step may reuse a gradient already released at beta0 (the one
 * that set the lambda grid), so it is not paid for twice.  Random draws
 * come from R's generator in the order of spgd.c. */
#include <string.h>
#include <Rmath.h>
#include <R_ext/Utils.h>
#include "spgd.h"

/* g += A (to - from) / eta: a gradient carried from `from` to `to` by the
 * quadratic model. */
static void model_shift(const quad_model *qm, double *g, const double *to,
                        const double *from, double *diff)
{
    int dim = qm->dim;
    for (int j = 0; j < dim; j++)
        diff[j] = to[j] - from[j];
    for (int j = 0; j < dim; j++) {
        const double *col = qm->A + (size_t) j * dim;
        double acc = 0.0;
        for (int i = 0; i < dim; i++)
            acc += col[i] * diff[i];
        g[j] += acc / qm->eta;
    }
}

/* A multinomial's carried gradient: g += (S (x) A) (to - from) / eta,
 * i.e. vec(A D S) / eta for the w x K matrix D of the differences. */
static void classes_shift(const quad_model *qm, double *g, const double *to,
                          const double *from, double *diff)
{
    int w = qm->dim, K = qm->nclass;
    size_t dim = (size_t) K * w;
    for (size_t j = 0; j < dim; j++)
        diff[j] = to[j] - from[j];
    for (int k = 0; k < K; k++) {
        const double *sk = qm->S + (size_t) k * K;
        for (int j = 0; j < w; j++) {
            const double *col = qm->A + (size_t) j * w;
            double acc = 0.0;
            for (int l = 0; l < K; l++) {
                if (sk[l] == 0.0)
                    continue;
                const double *dl = diff + (size_t) l * w;
                double ad = 0.0;
                for (int i = 0; i < w; i++)
                    ad += col[i] * dl[i];
                acc += sk[l] * ad;
            }
            g[(size_t) k * w + j] += acc / qm->eta;
        }
    }
}

static void model_step(const quad_model *qm, const double *est,
                       const double *beta, double lambda, double *next,
                       double *work)
{
    if (qm->S)
        quad_lasso_classes(qm, est, beta, lambda, next, work);
    else
        quad_lasso(qm, est, beta, lambda, next, work);
}

static void model_carry(const quad_model *qm, double *g, const double *to,
                        const double *from, double *diff)
{
    if (qm->S)
        classes_shift(qm, g, to, from, diff);
    else
        model_shift(qm, g, to, from, diff);
}

void newton_path(const fit_problem *pr, const spgd_schedule *sc,
                 oracle_state *o, const quad_model *qm, const double *lambda,
                 int nlambda, double *beta0, const double *g_first,
                 double *out, double *trace)
{
    int dim = problem_dim(pr);
    double *beta = (double *) R_alloc((size_t) dim, sizeof(double));
    double *next = (double *) R_alloc((size_t) dim, sizeof(double));
    double *avg = (double *) R_alloc((size_t) dim, sizeof(double));
    double *est = (double *) R_alloc((size_t) dim, sizeof(double));
    double *work = (double *) R_alloc((size_t) dim, sizeof(double));
    /* the running gradient estimate, carried to each new point by the
     * quadratic model and mixed with the fresh release there */
    double *ghat = (double *) R_alloc((size_t) dim, sizeof(double));
    double w = qm->memory;
    int have_ghat = 0;
    int kamath = o->kind == ORACLE_KAMATH;
    int *idx = RECORD_ALLOC(pr->n, int);
    int *label = kamath ? RECORD_ALLOC(pr->n, int) : NULL;
    poisson_sampler sampler;
    sampler_init(&sampler, pr->n, pr->q, pr->noise_grid > 0);
    /* iterates after step `tail_from` enter the tail average */
    int tail_from = sc->steps / 2;

    memcpy(beta, beta0, (size_t) dim * sizeof(double));
    for (int l = 0; l < nlambda; l++) {
        memset(avg, 0, (size_t) dim * sizeof(double));
        int next_trace = 0;
        for (int t = 1; t <= sc->steps; t++) {
            if (g_first && l == 0 && t == 1) {
                memcpy(est, g_first, (size_t) dim * sizeof(double));
            } else if (have_ghat && w >= 1.0) {
                /* memory 1: the model alone carries the one release to
                 * every point; nothing is drawn or read */
                memcpy(est, ghat, (size_t) dim * sizeof(double));
            } else {
                noisy_gradient(pr, o, &sampler, beta, idx, label, est);
            }
            if (have_ghat && w > 0.0 && w < 1.0)
                for (int j = 0; j < dim; j++)
                    est[j] = (1.0 - w) * est[j] + w * ghat[j];
            model_step(qm, est, beta, lambda[l], next, work);
            domain_project(&sc->domain, next, pr->p + pr->has_int,
                           pr->family.nclass);
            /* the model's gradient at the new point: est + A (next - beta) / eta */
            if (w > 0.0) {
                memcpy(ghat, est, (size_t) dim * sizeof(double));
                model_carry(qm, ghat, next, beta, work);
                have_ghat = 1;
            }
            memcpy(beta, next, (size_t) dim * sizeof(double));
            path_record(sc, dim, beta, avg, t, tail_from, l, &next_trace,
                        trace);
            R_CheckUserInterrupt();
        }
        if (!sc->last_iterate) {
            /* the carried estimate follows the output to the average */
            if (have_ghat)
                model_carry(qm, ghat, avg, beta, work);
            memcpy(beta, avg, (size_t) dim * sizeof(double));
        }
        memcpy(out + (size_t) l * dim, beta, (size_t) dim * sizeof(double));
        path_progress(sc, l + 1);
    }
}
