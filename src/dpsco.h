/* Shared declarations of the dpsco engine.
 *
 * A private gradient step is a mean estimator ("oracle") with a known L2
 * sensitivity, plus Gaussian noise scaled to it, plus a proximal step.  The
 * files of src/ each do one of those jobs:
 *   records.c         the engine's copy of x (dense rows, or sparse rows
 *                     from a dgCMatrix) and per-record norms, maxima
 *   mapped.c          a file-backed x (bigmemory's layout) read in place:
 *                     the mapping, row gathers and the norms' pre-pass,
 *                     and views of some of its rows (an index of rows)
 *   sample.c          Poisson batch sampling by geometric gaps; the
 *                     per-record block labels of one-pass methods
 *   pass.c            one step's pass over its batch, in fixed chunks
 *   family.c          per-record loss derivative (gaussian, binomial,
 *                     poisson, convolution-smoothed quantile; the
 *                     multinomial's vector of derivatives)
 *   oracle.c          accumulate/finish dispatch shared by all oracles
 *   oracle_clip.c     Algorithm 1: per-record L2 clipping
 *   oracle_kamath.c   Algorithm 3: clipped group means, coordinate median
 *   oracle_holland.c  Algorithm 4: Catoni-Giulini soft truncation
 *   catoni.c          E psi(a + bZ), the Holland contribution
 *   holland_table.c   that contribution tabulated for one fit's nu
 *   oracle_internal.h what only the files above, from oracle.c on, share
 *   prox.c            elastic-net proximal step
 *   spgd.c            the optimizer loop over steps and lambdas
 *   newton.c          its preconditioned sibling (noisy proximal Newton)
 *   quad_lasso.c      penalised minimiser of a released quadratic model
 *   quad_entry.c      its .Call entry, for the converged non-private baseline
 *   spgd.h            what only those three (and entry.c) share
 *   frank_wolfe.c     private Frank-Wolfe over the l1 ball (exponential
 *                     mechanism per step), full-data or one pass in chunks
 *   mirror.c          noisy mirror descent in l_p, full-data or shuffled
 *   gg_noise.c        generalized Gaussian noise in an l_r norm
 *   one_pass.c        one-pass clipped methods over an l2 ball (AC-SA,
 *                     clipped SGD, localized subgradient phases)
 *   bun_steinke.c     gradient descent with Bun-Steinke trimmed-mean
 *                     releases per coordinate (smooth sensitivity)
 *   shard.c           records held by cluster workers (R/shards.R): the
 *                     workers' layout and pass, the engine's remote pass
 *   settings.c        the private settings' passes over x as R holds it
 *                     (log sums per column, row norms and histograms,
 *                     the clipped gram matrix)
 *   support.c         the support rule's backward elimination (R/support.R)
 *   entry.c           .Call entry points (argument unpacking only)
 *   init.c            routine registration
 */
#ifndef DPSCO_H
#define DPSCO_H

#include <stddef.h>
#include <stdint.h>
#include <R.h>
#include <Rinternals.h>

/* Transient memory for one number per record (or per record and column):
 * at least one element, so that a fit on no records (a part of the data
 * may be empty) still gets a valid pointer for memcpy and memset. */
#define RECORD_ALLOC(n, type) ((type *) R_alloc((n) > 0 ? (size_t) (n) : 1, sizeof(type)))

enum { FAMILY_GAUSSIAN = 0, FAMILY_BINOMIAL = 1, FAMILY_QUANTILE = 2,
       FAMILY_POISSON = 3, FAMILY_MULTINOMIAL = 4 };
/* The most classes a multinomial fit has: a record's residual vector then
 * fits on the stack of the pass. */
#define MAX_CLASSES 256
enum { KERNEL_GAUSSIAN = 0, KERNEL_LOGISTIC = 1, KERNEL_UNIFORM = 2,
       KERNEL_EPANECHNIKOV = 3,
       KERNEL_MOREAU = 4 };  /* not a kernel: the check loss's Moreau envelope */
enum { ORACLE_NONE = 0, ORACLE_CLIP = 1, ORACLE_KAMATH = 2, ORACLE_HOLLAND = 3 };

/* ---- csprng.c / discrete_gaussian.c ---------------------------------- */
/* Random bits from the operating system (main thread only; Rf_error where
 * there is no such generator) and the secure release. */
void secure_bytes(void *buf, size_t n);
uint64_t secure_u64(void);
double secure_unif(void);       /* uniform on (0, 1), 53 random bits */
int secure_int(int k);          /* uniform on 0 .. k - 1 */
void secure_noise(double *v, int d, double sd, double grid);

/* ---- sample.c ------------------------------------------------------- */
typedef struct {
    int n;
    int all;            /* rate >= 1: every record, no random draws */
    double neg_log1mq;  /* -log(1 - q), the geometric gap scale */
    int secure;         /* draws from the OS generator, not R's */
} poisson_sampler;

void sampler_init(poisson_sampler *s, int n, double q, int secure);
int sampler_next(const poisson_sampler *s, int cur);
int sample_batch(const poisson_sampler *s, int k, int *idx, int *label);
int sample_label(int k, int secure);
enum { LABELS_UNIFORM = 0, LABELS_RATE = 1, LABELS_HALVING = 2 };
void sample_groups(int n, int k, int rule, double rate, int *label,
                   int *start, int *idx);

/* ---- records.c / mapped.c ------------------------------------------- */
enum { LAYOUT_DENSE = 0, LAYOUT_SPARSE = 1, LAYOUT_MAPPED = 2,
       LAYOUT_REMOTE = 3 };  /* shard.c: rows held by cluster workers */

/* Rows a mapped pass gathers at a time, per chunk of the batch. */
#define GATHER_ROWS 4096

typedef struct {
    int layout;    /* LAYOUT_* */
    double *xt;    /* dense: p x n, record i at xt + i * p */
    int *rp, *ci;  /* sparse (CSR): record i's non-zeros are ci[rp[i]] .. */
    double *xv;    /* ... ci[rp[i + 1] - 1] (increasing), values in xv */
    const double *cm;     /* mapped: the file's column-major values */
    const double *bound;  /* mapped: divide column j by bound[j] and clamp
                           * to [-1, 1] as it is read (NULL: as stored) */
    size_t rows;          /* mapped: the file's column length */
    const int *index;     /* mapped: record i is the file's row index[i]
                           * (a view of some rows; NULL: row i) */
    double *buf;          /* mapped: GATHER_ROWS x p rows per chunk ... */
    int nbuf;             /* ... for up to nbuf chunks */
    double *norm;  /* ||(1, x_i)|| or ||x_i|| */
    double *xmax;  /* max_j |x_ij| over the features only */
    SEXP remote;          /* remote: R's sharded design (R/shards.R) ... */
    SEXP remote_settings; /* ... and the fit's settings list */
} records;

void records_fill(records *rec, const double *x, int n, int p, int has_int,
                  int from, int to);
void records_alloc(records *rec, int n, int p);
void records_sparse(records *rec, int n, int p, int has_int, const int *cp,
                    const int *ri, const double *v);
void records_dense(records *rec, const double *x, int n, int p, int has_int,
                   double density, int threads);
int records_dense_csr(records *rec, const double *x, int n, int p,
                      int has_int, double density, int threads);
/* shard.c: the records of a layout from dpsco_layout(), and whether
 * a layout was made from x itself with or without the intercept */
void records_of(records *rec, SEXP lay, int nchunks);
int layout_of_x(SEXP lay, SEXP x, int has_int);
double record_norm(const double *x, int p, int has_int, double big);
void record_stats(records *rec, size_t i, const double *xi, int len,
                  int has_int);
void mapped_gather(const records *rec, int p, int first, int count,
                   double *out);
/* doubles of work space one chunk's mapped pass needs (a view's also
 * holds its records' rows of the file) */
#define MAPPED_WORK(p) ((size_t) GATHER_ROWS * ((size_t) (p) + 6))
/* A mapped design as R holds it (R/design.R: list(ptr, bound, index)):
 * the design's rows are the file's rows, or for a view the rows listed
 * in index. */
typedef struct {
    const double *cm;     /* the file's column-major values */
    size_t stride;        /* the file's column length */
    const int *index;     /* a view's rows of the file, 0-based (NULL: all,
                           * in order) */
    int n, p;             /* the design's rows and columns */
    const double *bound;  /* NULL, or one bound per column */
} mapped_view;
void mapped_view_of(SEXP x, mapped_view *v, int check);
void records_mapped(records *rec, const mapped_view *v, int has_int,
                    int nbuf);

/* ---- settings.c ------------------------------------------------------ */
/* x as R holds it, read in place by the private settings' passes. */
typedef struct {
    int layout;            /* LAYOUT_DENSE (R's column-major matrix),
                            * LAYOUT_SPARSE (a dgCMatrix) or LAYOUT_MAPPED */
    int n, p;              /* the rows a pass reads (with `rows`: how many
                            * it lists), the columns */
    const double *x;       /* dense, mapped: the column-major values ... */
    size_t stride;         /* ... and their column length */
    const int *rows;       /* dense, mapped: the rows a pass reads, 0-based
                            * and increasing (a view's rows of its file,
                            * or a subsample's; NULL: 0 .. n - 1); a sparse
                            * x is cut to its rows before the pass instead */
    const double *bound;   /* mapped: clamp(x_j / bound[j], -1, 1) as read
                            * (NULL: as stored) */
    const int *cp, *ri;    /* sparse: column pointers, row indices ... */
    const double *v;       /* ... and values */
    int block;             /* rows of R's blocks (R/design.R block_rows()) */
    int threads;
} column_data;

/* cd restricted to the rows `rows` (0-based, increasing; checked, the
 * error naming `entry`): records.c. */
void column_data_rows(column_data *cd, SEXP rows, const char *entry);
void settings_octaves(const column_data *cd, int *counts);
void settings_moments(const column_data *cd, double *out);
void settings_rows(const column_data *cd, int has_int, int coordinate,
                   const double *resid, int row_hist, double *ss_out,
                   double *norm, int *counts);
void settings_gram(const column_data *cd, int has_int, const double *w,
                   double *h);
void settings_clamp(const column_data *cd, const double *bound, double *out);

/* ---- family.c ------------------------------------------------------- */
typedef struct {
    int kind;          /* FAMILY_* */
    int kernel;        /* quantile: KERNEL_* of the convolution smoothing */
    double tau;        /* quantile: level in (0, 1) */
    double h;          /* quantile: bandwidth > 0 */
    int nclass;        /* multinomial: the number of classes K (1 otherwise) */
} loss_family;

double glm_residual(const loss_family *f, double eta, double y);
struct fit_problem_s;
/* Record i's loss derivative at the predictor eta = x_i'beta: its weight
 * times the family's derivative at eta plus the offsets.  Every layout's
 * pass calls this one function, so a weight and an offset travel with
 * their record whatever the storage of x. */
double record_residual(const struct fit_problem_s *pr, int i, double eta);
/* The multinomial's: with eta[c] = x_i'beta_c for the K classes, r[c] is
 * record i's weight times softmax(eta)_c - [y_i = c]. */
void record_residuals(const struct fit_problem_s *pr, int i,
                      const double *eta, double *r);

/* ---- oracles -------------------------------------------------------- */
/* Every per-record gradient has the form g = r * (1, x) (intercept) or
 * g = r * x.  Oracles receive r, the record x, its precomputed norm
 * ||(1, x)|| and its largest |x_j|, so that nothing of size p is
 * materialised per record and a whole record can be found to need no
 * clamping before its loop starts. */
/* Holland's contribution tabulated for one fit's nu (holland_table.c);
 * its layout is private to the oracles (oracle_internal.h). */
typedef struct holland_table holland_table;

typedef struct {
    int kind;
    int dim;           /* gradient dimension = nclass * width */
    int width;         /* one record's (one class's) part: p + has_int */
    int nclass;        /* multinomial: K blocks of width, one per class */
    int has_int;
    double m;          /* expected batch size: every estimator divides by it */
    double clip;       /* clip: per-record L2 bound C */
    int truncate;      /* clip: drop (not scale) a record above C */
    double half_rho;   /* kamath: values clipped to [-rho/2, rho/2] */
    int k;             /* kamath: number of groups */
    double s, nu;      /* holland: scale and variance parameter */
    int tabulated;     /* holland: use the table instead of exact values */
    holland_table *table;  /* holland: the table when tabulated, or NULL */
    int nchunks;       /* accumulator sets, one per chunk of a batch */
    size_t stride;     /* doubles between two chunks' sets */
    double *acc;       /* nchunks sets of dim (k * dim for kamath) sums */
    double *work;      /* kamath: k values for one coordinate's median */
} oracle_state;

void oracle_setup(oracle_state *o, int kind, int p, int has_int, double m,
                  double clip, double rho, int k, double s, double nu,
                  int exact, int nchunks);
/* Make o a multinomial's oracle of nclass blocks (after oracle_setup()). */
void oracle_classes(oracle_state *o, int nclass);
void oracle_reset(oracle_state *o);
void oracle_add(const oracle_state *o, double *acc, double r, const double *x,
                double norm, double xmax, int label);
/* The same contribution from a record's non-zeros only (values v at the
 * increasing feature indices j, nz of them).  Every oracle maps a zero
 * value to a zero contribution, so the sums equal the dense ones. */
void oracle_add_sparse(const oracle_state *o, double *acc, double r,
                       const double *v, const int *j, int nz, double norm,
                       double xmax, int label);
void oracle_finish(oracle_state *o, double *est);
/* A multinomial record's contribution, g = r (x) (1, x) for its K
 * residuals r: clipping scales the whole vector by one weight,
 * min(1, C / (||r|| ||(1, x)||)); the coordinate-wise oracles treat each
 * class's block as they treat a record's gradient. */
void oracle_add_classes(const oracle_state *o, double *acc, const double *r,
                        const double *x, double norm, double xmax, int label);
void oracle_add_classes_sparse(const oracle_state *o, double *acc,
                               const double *r, const double *v, const int *j,
                               int nz, double norm, double xmax, int label);
/* The contributions of a block of m records read column by column:
 * coef[k] is record k's loss derivative r_k (clip: replaced by its
 * weight), column j's values are vals[j * ld + k], norm[ix[k]] the
 * records' norms and label[k] (or NULL) their Kamath groups.  Each
 * accumulator receives the same numbers in the same record order as from
 * oracle_add() record by record, so the sums are the same. */
void oracle_add_block(const oracle_state *o, double *acc, double *coef,
                      const double *vals, size_t ld, int m,
                      const double *norm, const int *ix, const int *label);

/* ---- catoni.c / holland_table.c ------------------------------------- */
double catoni_mean(double a, double b);  /* E psi(a + bZ) */
void catoni_init(void);
/* h(a[i]) for the n values of a, exactly or (tabulated) from the table a
 * fit with this nu would use */
void holland_h_values(const double *a, R_xlen_t n, double nu, int tabulated,
                      double *out);

/* ---- prox.c --------------------------------------------------------- */
/* The penalty of a penalised path, lambda times
 *   sum_j pf_j (alpha |b_j| + (1 - alpha) b_j^2 / 2)
 * over the p penalised coefficients of each class block or, `grouped`
 * (a multinomial's glmnet type.multinomial = "grouped"), the same in the
 * 2-norm of feature j's coefficients over the classes.  Each penalised
 * coefficient is kept in [lower_j, upper_j] (NULL: unbounded; lower_j <= 0
 * <= upper_j, so the box holds the trivial model).  The box is not
 * combined with grouping. */
typedef struct {
    double alpha;
    const double *pf, *lower, *upper;
    int grouped;
} path_penalty;

/* One proximal gradient step of size gamma. */
void prox_step(double *beta, const double *grad, int p, int has_int,
               double gamma, double lambda, const path_penalty *pen);
/* The same step on each of nclass blocks of p + has_int coefficients. */
void prox_classes(double *beta, const double *grad, int nclass, int p,
                  int has_int, double gamma, double lambda,
                  const path_penalty *pen);
/* v clamped to coefficient j's box. */
double penalty_box(const path_penalty *pen, int j, double v);

/* ---- pass.c --------------------------------------------------------- */
/* The problem every optimiser streams through pass.c: the records, the
 * loss and what one noisy release needs.  Each loop's own settings travel
 * separately (spgd.h's schedule, fw_setup, mirror_plan, one_pass_plan). */
typedef struct fit_problem_s {
    records rec;
    const double *y;
    const double *weight;  /* per record, in [0, 1], or NULL: all 1 */
    const double *roff;    /* per-record offset, or NULL: all 0 */
    int n, p, has_int;
    loss_family family;
    double q;           /* Poisson sampling rate: the expected batch size
                         * over the public n (disjoint mode: each block's
                         * probability) */
    double noise_sd;    /* z * sensitivity; ignored by ORACLE_NONE */
    double noise_grid;  /* > 0: secure noise, the release rounded to this
                         * power-of-two grid plus discrete Gaussian noise
                         * from the OS generator; 0: R's norm_rand() */
    int max_threads;    /* threads the chunks may run on */
    double offset;      /* added to every linear predictor (0 but for the
                         * constraint-set optimisers' released centre) */
    /* LAYOUT_REMOTE only: the pass over records held by cluster workers
     * (shard.c remote_pass(), set where the problem is made, entry.c), so
     * that pass.c calls it without depending on shard.c */
    void (*remote_pass)(const struct fit_problem_s *pr, oracle_state *o,
                        const double *beta, const int *idx, const int *label,
                        int count);
} fit_problem;

/* Coefficients of a problem: one block of p + has_int per class. */
static inline int problem_dim(const fit_problem *pr)
{
    return pr->family.nclass * (pr->p + pr->has_int);
}

void batch_pass(const fit_problem *pr, oracle_state *o, const double *beta,
                const int *idx, const int *label, int count);
void mapped_pass(const fit_problem *pr, const oracle_state *o, double *acc,
                 const double *beta, const int *idx, const int *label,
                 int count, double *work);
int noisy_gradient(const fit_problem *pr, oracle_state *o,
                   const poisson_sampler *s, const double *beta, int *idx,
                   int *label, double *est);
void block_gradient(const fit_problem *pr, oracle_state *o,
                    const double *beta, const int *idx, int count, double sd,
                    double *est);
void add_noise(double *est, int d, double sd, double grid);
int dpsco_thread_limit(void);

/* ---- shard.c -------------------------------------------------------- */
/* A batch whose records live on cluster workers: the sampled indices and
 * labels go to R (R/shards.R), which returns each shard's oracle sums;
 * they are added into the first chunk's accumulators. */
void remote_pass(const fit_problem *pr, oracle_state *o, const double *beta,
                 const int *idx, const int *label, int count);
/* A worker's part of a step (the .Call entry dpsco_shard_pass() in
 * entry.c reads its settings): the shard's problem from its layout, then
 * the oracle's sums over its sampled rows. */
void shard_problem(fit_problem *pr, SEXP lay, SEXP y,
                   const loss_family *family, int nchunks);
SEXP shard_sums(fit_problem *pr, oracle_state *o, SEXP beta, SEXP idx,
                SEXP label);

/* ---- frank_wolfe.c -------------------------------------------------- */
typedef struct {
    int steps;          /* T: selections per radius (chunked: chunks) */
    double eps0;        /* exponential mechanism's epsilon per selection;
                         * <= 0 selects exactly (not private) */
    double sensitivity; /* add/remove bound on any coordinate of the
                         * oracle's estimate */
    int chunked;        /* 1: step t sees only the records of chunk t */
} fw_setup;

void fw_path(const fit_problem *pr, oracle_state *o, const fw_setup *fs,
             const double *radius, int nradius, const double *beta0,
             double *out);

/* ---- mirror.c / gg_noise.c ------------------------------------------ */
/* Noisy mirror descent in l_p, 1 < p <= 2 (mirror.c: the loops over steps
 * and radii of Algorithms 3 and 4 of the mirror-descent method and the
 * mirror map), with generalized Gaussian noise of density proportional to
 * exp(-||z||_r^2 / (2 sigma^2)) (gg_noise.c).  Records are clipped (or
 * truncated) in the dual norm l_q through the clip oracle: the records'
 * norms are their l_q norms (mirror_dual_norms).  lp_norm() is
 * gg_noise.c's. */
double lp_norm(const double *v, int d, double s);
void mirror_grad(const double *w, int d, double s, double *out);
void mirror_grad_inverse(const double *theta, int d, double s, double *out);
void mirror_step(double *w, const double *g, int d, double s, double b,
                 double a, double radius, double *work);
void gg_draw(double *z, int d, double r, double sigma);
void gg_add_sum(double *acc, int d, double r, double sigma, int k,
                double *work);

/* One fit's plan: the exponents and, per radius, the steps, the clip (or
 * truncation) level, the noise scale and the step weights b and a. */
typedef struct {
    int shuffled;
    int nr;
    double s;              /* the mirror map's exponent */
    double r;              /* the noise's norm exponent, s / (s - 1) */
    const double *radius;
    const int *steps;
    const double *clip, *sigma, *b, *a;
} mirror_plan;

void mirror_dual_norms(records *rec, int n, int p, int has_int, double q,
                       int threads);
void mirror_path(fit_problem *pr, oracle_state *o, const mirror_plan *mp,
                 double *beta, double *out);

/* ---- one_pass.c ------------------------------------------------------ */
enum { ONE_PASS_ACSA = 0, ONE_PASS_SGD = 1, ONE_PASS_LOCALIZED = 2 };

/* A one-pass fit's plan.  Each radius draws fresh per-record labels
 * (sample_groups()): acsa and sgd have one phase of `steps[0]` blocks, each
 * record in each block w.p. 1 / steps[0]; localized has `nphase` phases, a
 * record in phase i (0-based) w.p. 2^-(i + 1) and in none w.p. 2^-nphase,
 * phase i's block used for steps[i] steps.  size[i] is the public expected
 * size of phase i's blocks (n / steps[0], or n 2^-(i + 1), for the public
 * n): every block's clipped sum is divided by it.  noise_sd[i] is the sd
 * added to each coordinate of a block's clipped mean.  Per radius l:
 * acsa's eta (step[l]); sgd's step sizes and weights (step and weight,
 * steps[0] x nr); localized's regularisation lambda (step) and local
 * radius (weight), nphase x nr. */
typedef struct {
    int method;
    int nr, nphase;
    const double *radius;
    const double *size;
    const int *steps;
    const double *noise_sd;
    const double *step, *weight;
    double ridge;          /* sgd: mu, the ridge term mu ||w||^2 / 2 */
} one_pass_plan;

void one_pass_path(fit_problem *pr, oracle_state *o, const one_pass_plan *pl,
                   double *beta, double *out);
void project_two_balls(double *w, int d, double radius, const double *c,
                       double local);

/* ---- bun_steinke.c -------------------------------------------------- */
/* Full-batch gradient descent whose gradient coordinates are each
 * released by Bun and Steinke's trimmed mean with smooth sensitivity and
 * arsinh-normal noise (Wang, Xiao, Devadas and Xu 2020, Algorithm 3). */
typedef struct {
    const double *x;   /* n x p, column-major (R's layout) */
    const double *y;
    int n, p, has_int;
    loss_family family;
    double offset;
    int steps;
    const double *step; /* one step size per radius */
    int m;             /* records trimmed at each end */
    double decay;      /* e^{-m t} */
    double s;          /* noise scale divisor */
    int noise;         /* 0: the estimates alone (not private) */
    int threads;
} bs_problem;

double bs_trimmed(double *v, int n, int m, double a, double b, double decay,
                  double *mean);
void bs_path(const bs_problem *bp, const double *radius, int nr,
             const double *lo, const double *hi, double *beta, double *out,
             double *trace);

#endif
