/* One step's pass over its batch: for each sampled record, the forward
 * product x_i'beta, the loss derivative and the oracle's accumulation, all
 * while the record is in cache: a row-major record, the non-zeros of a
 * sparse one, or (mapped.c) blocks of a file-backed x read by column.
 * A multinomial record has one predictor and one residual per class.
 *
 * The batch is cut into nchunks contiguous chunks, each summed into its own
 * accumulators (oracle.c adds them in chunk order).  With OpenMP the chunks
 * run on up to nchunks threads; without it they run one after the other.
 * Either way the result depends only on the seed and nchunks. */
#include <Rmath.h>
#include "dpsco.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many values per step, starting threads costs more than it
 * saves; the chunking, and so the result, stays the same. */
#define PARALLEL_MIN_WORK 100000.0

static double linear_predictor(const double *restrict beta,
                               const double *restrict x, int p, int has_int)
{
    /* four partial sums break the add-latency chain of one long sum */
    const double *b = beta + has_int;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int j = 0;
    for (; j + 4 <= p; j += 4) {
        s0 += x[j] * b[j];
        s1 += x[j + 1] * b[j + 1];
        s2 += x[j + 2] * b[j + 2];
        s3 += x[j + 3] * b[j + 3];
    }
    for (; j < p; j++)
        s0 += x[j] * b[j];
    return (has_int ? beta[0] : 0.0) + ((s0 + s1) + (s2 + s3));
}

/* The same sum over a record's non-zeros: each product goes to the partial
 * sum its feature index would use in the dense loop, and a zero feature
 * adds +-0 there, which leaves a sum unchanged, so the result is the dense
 * one bit for bit. */
static double sparse_predictor(const double *restrict beta,
                               const double *restrict v,
                               const int *restrict col, int nz, int p,
                               int has_int)
{
    const double *b = beta + has_int;
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    int lim = p - p % 4;
    for (int k = 0; k < nz; k++) {
        int j = col[k];
        s[j < lim ? j % 4 : 0] += v[k] * b[j];
    }
    return (has_int ? beta[0] : 0.0) + ((s[0] + s[1]) + (s[2] + s[3]));
}

/* A multinomial chunk: per record, the K classes' predictors, the vector
 * of residuals and the oracle's contribution to each class's block. */
static void classes_chunk_pass(const fit_problem *pr, const oracle_state *o,
                               double *acc, const double *beta,
                               const int *idx, const int *label, int from,
                               int to)
{
    const records *rec = &pr->rec;
    int p = pr->p, K = pr->family.nclass, width = p + pr->has_int;
    double eta[MAX_CLASSES], r[MAX_CLASSES];
    for (int c = from; c < to; c++) {
        int i = idx[c], lab = label ? label[c] : 0;
        if (rec->layout == LAYOUT_SPARSE) {
            int at = rec->rp[i], nz = rec->rp[i + 1] - at;
            const double *v = rec->xv + at;
            const int *col = rec->ci + at;
            for (int k = 0; k < K; k++)
                eta[k] = sparse_predictor(beta + (size_t) k * width, v, col,
                                          nz, p, pr->has_int);
            record_residuals(pr, i, eta, r);
            oracle_add_classes_sparse(o, acc, r, v, col, nz, rec->norm[i],
                                      rec->xmax[i], lab);
        } else {
            const double *x = rec->xt + (size_t) i * p;
            for (int k = 0; k < K; k++)
                eta[k] = linear_predictor(beta + (size_t) k * width, x, p,
                                          pr->has_int);
            record_residuals(pr, i, eta, r);
            oracle_add_classes(o, acc, r, x, rec->norm[i], rec->xmax[i], lab);
        }
    }
}

static void chunk_pass(const fit_problem *pr, const oracle_state *o,
                       double *acc, const double *beta, const int *idx,
                       const int *label, int from, int to, int chunk)
{
    const records *rec = &pr->rec;
    int p = pr->p;
    if (pr->family.nclass > 1) {
        classes_chunk_pass(pr, o, acc, beta, idx, label, from, to);
        return;
    }
    switch (rec->layout) {
    case LAYOUT_SPARSE:
        for (int c = from; c < to; c++) {
            int i = idx[c], at = rec->rp[i], nz = rec->rp[i + 1] - at;
            const double *v = rec->xv + at;
            const int *col = rec->ci + at;
            double r = record_residual(pr, i,
                                       sparse_predictor(beta, v, col, nz, p,
                                                        pr->has_int));
            oracle_add_sparse(o, acc, r, v, col, nz, rec->norm[i],
                              rec->xmax[i], label ? label[c] : 0);
        }
        break;
    case LAYOUT_MAPPED:
        mapped_pass(pr, o, acc, beta, idx + from, label ? label + from : NULL,
                    to - from, rec->buf + (size_t) chunk * MAPPED_WORK(p));
        break;
    default:
        for (int c = from; c < to; c++) {
            int i = idx[c];
            const double *x = rec->xt + (size_t) i * p;
            double r = record_residual(pr, i,
                                       linear_predictor(beta, x, p,
                                                        pr->has_int));
            oracle_add(o, acc, r, x, rec->norm[i], rec->xmax[i],
                       label ? label[c] : 0);
        }
    }
}

void batch_pass(const fit_problem *pr, oracle_state *o, const double *beta,
                const int *idx, const int *label, int count)
{
    if (pr->rec.layout == LAYOUT_REMOTE) {  /* sharded records (shard.c) */
        pr->remote_pass(pr, o, beta, idx, label, count);
        return;
    }
    int nchunks = o->nchunks;
    /* the expected work, not the realised count, decides on threads */
    int nthreads = nchunks < pr->max_threads ? nchunks : pr->max_threads;
    int threaded = nthreads > 1 &&
                   pr->q * pr->n * (pr->p + 1.0) >= PARALLEL_MIN_WORK;
    (void) threaded;
    if (pr->rec.layout == LAYOUT_MAPPED && nchunks > pr->rec.nbuf)
        Rf_error("internal error: %d chunks for %d row buffers", nchunks,
                 pr->rec.nbuf);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(static) if (threaded)
#endif
    for (int c = 0; c < nchunks; c++) {
        int from = (int) ((long long) count * c / nchunks);
        int to = (int) ((long long) count * (c + 1) / nchunks);
        chunk_pass(pr, o, o->acc + (size_t) c * o->stride, beta, idx, label,
                   from, to, c);
    }
}

/* A multinomial gradient's K class blocks sum to 0 coordinate by
 * coordinate (each record's residuals do), so the component of a release
 * along that sum is the noise's (and the coordinate-wise oracles'
 * truncation's) alone.  Taking it out is post-processing that leaves the
 * estimate closer to the gradient and keeps the symmetric
 * parametrisation from drifting along a direction the loss does not see. */
static void centre_classes(double *est, int nclass, int width)
{
    for (int j = 0; j < width; j++) {
        double mean = 0.0;
        for (int c = 0; c < nclass; c++)
            mean += est[(size_t) c * width + j];
        mean /= nclass;
        for (int c = 0; c < nclass; c++)
            est[(size_t) c * width + j] -= mean;
    }
}

/* One step's release, shared by the optimisers: a Poisson batch, the pass
 * over it, the oracle's estimate and its Gaussian noise, drawn in that
 * order.  Returns the realised batch size. */
int noisy_gradient(const fit_problem *pr, oracle_state *o,
                   const poisson_sampler *s, const double *beta, int *idx,
                   int *label, double *est)
{
    int count = sample_batch(s, o->kind == ORACLE_KAMATH ? o->k : 0, idx, label);
    oracle_reset(o);
    batch_pass(pr, o, beta, idx, label, count);
    oracle_finish(o, est);
    /* noise_sd 0: an optimiser that privatises elsewhere (Frank-Wolfe's
     * selection, mirror descent's own noise) */
    if (o->kind != ORACLE_NONE && pr->noise_sd > 0)
        add_noise(est, o->dim, pr->noise_sd, pr->noise_grid);
    if (o->nclass > 1)
        centre_classes(est, o->nclass, o->width);
    return count;
}

/* The noisy mean over a list of records: the pass, the oracle's estimate
 * (divided by o->m, the block's public expected size, whatever count is)
 * and N(0, sd^2) on every coordinate.  The one-pass loops' step. */
void block_gradient(const fit_problem *pr, oracle_state *o,
                    const double *beta, const int *idx, int count, double sd,
                    double *est)
{
    oracle_reset(o);
    batch_pass(pr, o, beta, idx, NULL, count);
    oracle_finish(o, est);
    if (o->kind != ORACLE_NONE && sd > 0)
        add_noise(est, o->dim, sd, pr->noise_grid);
}

/* The noise of every release the engine makes: N(0, sd^2) per coordinate
 * from R's generator, or with grid > 0 the secure release (the estimate
 * rounded to the grid plus discrete Gaussian noise from the OS generator,
 * discrete_gaussian.c). */
void add_noise(double *est, int d, double sd, double grid)
{
    if (grid > 0) {
        secure_noise(est, d, sd, grid);
        return;
    }
    for (int j = 0; j < d; j++)
        est[j] += sd * norm_rand();
}

/* The most threads a fit may use: the smaller of OpenMP's thread limit
 * (OMP_THREAD_LIMIT, which check machines may set) and the number of
 * processors; 1 without OpenMP. */
int dpsco_thread_limit(void)
{
#ifdef _OPENMP
    int lim = omp_get_thread_limit(), procs = omp_get_num_procs();
    return lim < procs ? lim : procs;
#else
    return 1;
#endif
}
