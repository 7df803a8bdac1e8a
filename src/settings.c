/* The data passes of the private settings (R/settings.R): the sums each
 * release needs, read from x as R holds it (a dense column-major matrix,
 * a dgCMatrix, or a file-backed matrix, mapped.c) without a copy.  R keeps
 * the noise, the accounting and the record.
 *
 *   octaves    per column, the counts of records in the octave bins of
 *              |x_ij| (log2_bin() of R/settings.R);
 *   rows       per record, the clamped row's sum of squares, its norm
 *              ||(1, x_i)||, and the log2 histograms of the clip values
 *              |r_i| c_i and of the norms;
 *   gram       the second-moment matrix of the weighted rows;
 *   moments    per column, the sums of clamp(x_ij / bound_j, -1, 1) and
 *              of its square (the private standardisation's means).
 *
 * Every result is a count or a sum, a sum formed in the order R's block
 * statistics (R/design.R) form it: a row's sum of squares in long double
 * in column order, as rowSums() does; the gram matrix per block as the
 * reference BLAS's dsyrk (crossprod()) forms it, each entry a running sum
 * over the rows, the blocks added in order.  Threads take whole columns,
 * rows or blocks, so the results do not depend on how many ran, and
 * zeros, which add nothing to any sum (and fall in the first octave bin),
 * are skipped in a sparse x: every layout gives the same counts and sums
 * bit for bit.
 *
 * A pass may read listed rows only: a view of some rows of a mapped file
 * (R/design.R) and a Poisson subsample of the records (R/settings.R
 * settings_subsample(); of a view: its listed rows of the view's list).
 * A dense or mapped x is read at those rows in place, a sparse x is first
 * cut to them (column_data_rows(), records.c), and every result is that of
 * the same pass over R's x[rows + 1, ], its blocks being blocks of the
 * listed rows. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <Rconfig.h>
#include <R_ext/Utils.h>
#include "dpsco.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Columns per interrupt check of the column passes, and rows per sub-block
 * of the row pass (a row's numbers do not depend on its block). */
#define COLUMN_GROUP 16
#define ROW_GROUP 4096
/* Values gathered at once from the listed rows of a column. */
#define GATHER_CHUNK 256

/* Below this many values a pass runs on one thread. */
#define SETTINGS_MIN_WORK 100000.0

static int use_threads(const column_data *cd)
{
    return cd->threads > 1 && (double) cd->n * cd->p >= SETTINGS_MIN_WORK;
}

/* clamp(v / bound_j, -1, 1) as R's scale_clamp() forms it; no bound: v. */
static inline double bounded(const column_data *cd, int j, double v)
{
    if (cd->bound == NULL)
        return v;
    v = v / cd->bound[j];
    return v > 1.0 ? 1.0 : (v < -1.0 ? -1.0 : v);
}

/* Value i of the pass in dense or mapped column j, bounded: row i, or
 * row rows[i] of a pass over listed rows. */
static inline double dense_at(const column_data *cd, int j, int i)
{
    const double *col = cd->x + (size_t) j * cd->stride;
    return bounded(cd, j, col[cd->rows != NULL ? cd->rows[i] : i]);
}

/* The first position in sparse column j at or after row `row`. */
static int sparse_from(const column_data *cd, int j, int row)
{
    int lo = cd->cp[j], hi = cd->cp[j + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (cd->ri[mid] < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* log2_bin() of R/design.R: bin 1 for v <= 2^-32, else
 * ceiling(log2 v) + 33 within 1 .. 64 (0-based here).  ceiling(log2 v) is
 * read exactly off the bits of v (normal here: v > 2^-32): its exponent,
 * plus one unless v is a power of two.  A log2() per value was most of a
 * settings pass over a large x, and rounds to an integer just above a
 * power of two. */
static inline int log2_bin0(double v)
{
    if (!(v > 0x1p-32))
        return 0;
    uint64_t u;
    memcpy(&u, &v, sizeof(u));
    int c = (int) ((u >> 52) & 0x7ff) - 1023 +
            ((u & 0xfffffffffffffULL) != 0);
    int b = c + 33;
    return (b < 64 ? (b > 1 ? b : 1) : 64) - 1;
}

/* Column j's octave histogram (R's octave_counts()): the number of
 * records in each log2_bin() of |x_ij|, into counts[64 j ..].  A sparse
 * column's entries that are not stored are zeros, in bin 1. */
static void column_octaves(const column_data *cd, int j, void *out)
{
    int *h = (int *) out + (size_t) 64 * j;
    memset(h, 0, 64 * sizeof(int));
    if (cd->layout == LAYOUT_SPARSE) {
        int stored = cd->cp[j + 1] - cd->cp[j];
        for (int k = cd->cp[j]; k < cd->cp[j + 1]; k++)
            h[log2_bin0(fabs(cd->v[k]))]++;
        h[0] += cd->n - stored;
        return;
    }
    const double *col = cd->x + (size_t) j * cd->stride;
    if (cd->rows != NULL) {
        /* listed rows lie far apart: a tight loop gathers a chunk first,
         * so that many of its cache misses are under way at once */
        double buf[GATHER_CHUNK];
        for (int i = 0; i < cd->n; i += GATHER_CHUNK) {
            int len = cd->n - i < GATHER_CHUNK ? cd->n - i : GATHER_CHUNK;
            const int *r = cd->rows + i;
            for (int k = 0; k < len; k++)
                buf[k] = col[r[k]];
            for (int k = 0; k < len; k++)
                h[log2_bin0(fabs(bounded(cd, j, buf[k])))]++;
        }
        return;
    }
    for (int i = 0; i < cd->n; i++)
        h[log2_bin0(fabs(bounded(cd, j, col[i])))]++;
}

/* One column pass: `column` for every column j of x into `out`, whole
 * columns on the threads, an interrupt check per group of columns. */
static void column_pass(const column_data *cd,
                        void (*column)(const column_data *, int, void *),
                        void *out)
{
    int threaded = use_threads(cd);
    (void) threaded;
    for (int g = 0; g < cd->p; g += COLUMN_GROUP * cd->threads) {
        int e = g + COLUMN_GROUP * cd->threads;
        e = e < cd->p ? e : cd->p;
#ifdef _OPENMP
#pragma omp parallel for num_threads(cd->threads) schedule(static) \
    if (threaded)
#endif
        for (int j = g; j < e; j++)
            column(cd, j, out);
        R_CheckUserInterrupt();
    }
}

void settings_octaves(const column_data *cd, int *counts)
{
    column_pass(cd, column_octaves, counts);
}

/* Dense column j's clamped moments (R's private_standardization()): the
 * sums of u and of u^2 over its records, u = clamp(x_ij / bound_j, -1,
 * 1), in long double in row order as R's sum() forms them, into out[2 j]
 * and out[2 j + 1]. */
static void column_moments(const column_data *cd, int j, void *out)
{
    long double s1 = 0.0L, s2 = 0.0L;
    for (int i = 0; i < cd->n; i++) {
        double u = dense_at(cd, j, i);
        s1 += u;
        s2 += u * u;
    }
    double *m = (double *) out + 2 * (size_t) j;
    m[0] = (double) s1;
    m[1] = (double) s2;
}

void settings_moments(const column_data *cd, double *out)
{
    column_pass(cd, column_moments, out);
}

/* Rows a .. b - 1: sums of squares (long double, column order, as
 * rowSums()) and largest |x_ij|, accumulated column by column. */
static void rows_block(const column_data *cd, int a, int b, long double *ss,
                       double *big)
{
    int m = b - a;
    for (int k = 0; k < m; k++) {
        ss[k] = 0.0;
        big[k] = 0.0;
    }
    for (int j = 0; j < cd->p; j++) {
        if (cd->layout == LAYOUT_SPARSE) {
            for (int k = sparse_from(cd, j, a); k < cd->cp[j + 1] &&
                     cd->ri[k] < b; k++) {
                double v = cd->v[k];
                int r = cd->ri[k] - a;
                ss[r] += v * v;
                big[r] = fabs(v) > big[r] ? fabs(v) : big[r];
            }
        } else if (cd->rows != NULL) {
            const double *col = cd->x + (size_t) j * cd->stride;
            const int *r = cd->rows + a;
            for (int k = 0; k < m; k++) {
                double v = bounded(cd, j, col[r[k]]);
                ss[k] += v * v;
                big[k] = fabs(v) > big[k] ? fabs(v) : big[k];
            }
        } else {
            const double *col = cd->x + (size_t) j * cd->stride + a;
            for (int k = 0; k < m; k++) {
                double v = bounded(cd, j, col[k]);
                ss[k] += v * v;
                big[k] = fabs(v) > big[k] ? fabs(v) : big[k];
            }
        }
    }
}

void settings_rows(const column_data *cd, int has_int, int coordinate,
                   const double *resid, int row_hist, double *ss_out,
                   double *norm, int *counts)
{
    int nhist = (resid != NULL) + (row_hist != 0);
    int nblock = (cd->n + ROW_GROUP - 1) / ROW_GROUP;
    int nt = cd->threads, threaded = use_threads(cd);
    (void) threaded;
    /* per thread: a block's sums and maxima, and its own histograms */
    long double *ss = (long double *) R_alloc((size_t) nt * ROW_GROUP,
                                              sizeof(long double));
    double *big = (double *) R_alloc((size_t) nt * ROW_GROUP, sizeof(double));
    int *hist = (int *) R_alloc((size_t) nt * 64 * 2, sizeof(int));
    memset(hist, 0, (size_t) nt * 64 * 2 * sizeof(int));
    for (int g = 0; g < nblock; g += 16 * nt) {
        int e = g + 16 * nt < nblock ? g + 16 * nt : nblock;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (threaded)
#endif
        for (int blk = g; blk < e; blk++) {
            int t = 0;
#ifdef _OPENMP
            t = omp_get_thread_num();
#endif
            int a = blk * ROW_GROUP;
            int b = cd->n - a < ROW_GROUP ? cd->n : a + ROW_GROUP;
            long double *s = ss + (size_t) t * ROW_GROUP;
            double *mx = big + (size_t) t * ROW_GROUP;
            int *h = hist + (size_t) t * 128;
            rows_block(cd, a, b, s, mx);
            for (int k = 0; k < b - a; k++) {
                int i = a + k;
                double sq = (double) s[k];
                double nrm = sqrt(sq + has_int);
                if (ss_out)
                    ss_out[i] = sq;
                norm[i] = nrm;
                if (resid != NULL) {
                    double c = coordinate ? (mx[k] > has_int ? mx[k] : has_int)
                                          : nrm;
                    h[log2_bin0(fabs(resid[i]) * c)]++;
                }
                if (row_hist)
                    h[64 * (resid != NULL) + log2_bin0(nrm)]++;
            }
        }
        R_CheckUserInterrupt();
    }
    /* counts are integers: any order of addition gives the same */
    memset(counts, 0, (size_t) 64 * nhist * sizeof(int));
    for (int t = 0; t < nt; t++)
        for (int c = 0; c < 64 * nhist; c++)
            counts[c] += hist[(size_t) t * 128 + c];
}

/* Rows a .. b - 1 of cbind(1, x) (without the 1 for has_int = 0) times
 * their weights w: the non-zeros row by row (CSR: row k's at rp[k] ..
 * rp[k + 1] - 1, columns increasing).  Returns their number. */
static size_t gram_sparse_rows(const column_data *cd, int has_int,
                               const double *w, int a, int b, int *rp,
                               int *ci, double *cv)
{
    int m = b - a;
    memset(rp, 0, ((size_t) m + 1) * sizeof(int));
    if (has_int)
        for (int k = 0; k < m; k++)
            rp[k + 1] += w[a + k] != 0.0;
    for (int j = 0; j < cd->p; j++) {
        if (cd->layout == LAYOUT_SPARSE) {
            for (int k = sparse_from(cd, j, a); k < cd->cp[j + 1] &&
                     cd->ri[k] < b; k++)
                rp[cd->ri[k] - a + 1] += cd->v[k] * w[cd->ri[k]] != 0.0;
        } else {
            for (int k = 0; k < m; k++)
                rp[k + 1] += dense_at(cd, j, a + k) * w[a + k] != 0.0;
        }
    }
    for (int k = 0; k < m; k++)
        rp[k + 1] += rp[k];
    /* rp[k] is row k's next free position while filling, its end after */
    if (has_int)
        for (int k = 0; k < m; k++)
            if (w[a + k] != 0.0) {
                ci[rp[k]] = 0;
                cv[rp[k]++] = w[a + k];
            }
    for (int j = 0; j < cd->p; j++) {
        if (cd->layout == LAYOUT_SPARSE) {
            for (int k = sparse_from(cd, j, a); k < cd->cp[j + 1] &&
                     cd->ri[k] < b; k++) {
                int r = cd->ri[k] - a;
                double v = cd->v[k] * w[cd->ri[k]];
                if (v != 0.0) {
                    ci[rp[r]] = j + has_int;
                    cv[rp[r]++] = v;
                }
            }
        } else {
            for (int k = 0; k < m; k++) {
                double v = dense_at(cd, j, a + k) * w[a + k];
                if (v != 0.0) {
                    ci[rp[k]] = j + has_int;
                    cv[rp[k]++] = v;
                }
            }
        }
    }
    for (int k = m; k > 0; k--)
        rp[k] = rp[k - 1];
    rp[0] = 0;
    return (size_t) rp[m];
}

/* Rows a .. b - 1 of cbind(1, x) (without the 1 for has_int = 0) times
 * their weights w, column-major with leading dimension b - a. */
static void gram_dense_rows(const column_data *cd, int has_int,
                            const double *w, int a, int b, double *out)
{
    int m = b - a;
    if (has_int)
        memcpy(out, w + a, (size_t) m * sizeof(double));
    for (int j = 0; j < cd->p; j++) {
        double *o = out + (size_t) (j + has_int) * m;
        if (cd->layout == LAYOUT_SPARSE) {
            memset(o, 0, (size_t) m * sizeof(double));
            for (int k = sparse_from(cd, j, a); k < cd->cp[j + 1] &&
                     cd->ri[k] < b; k++)
                o[cd->ri[k] - a] = cd->v[k] * w[cd->ri[k]];
        } else if (cd->rows != NULL) {
            const double *col = cd->x + (size_t) j * cd->stride;
            const int *r = cd->rows + a;
            for (int k = 0; k < m; k++)
                o[k] = bounded(cd, j, col[r[k]]) * w[a + k];
        } else {
            const double *col = cd->x + (size_t) j * cd->stride + a;
            for (int k = 0; k < m; k++)
                o[k] = bounded(cd, j, col[k]) * w[a + k];
        }
    }
}

/* Rows per chunk of the dense route: a chunk of every column stays in
 * the cache while each tile of the product reads it. */
#define GRAM_CHUNK 256

/* c[i, j] += sum over rows l0 .. l1 - 1 of a[l, i] a[l, j] for the tile
 * i0 .. i0 + ni - 1 by j0 .. j0 + nj - 1 (a column-major, leading
 * dimension m).  Each entry is one running sum over the rows in row order,
 * carried in c between chunks: the sum the reference BLAS's dsyrk forms,
 * with four times fewer loads per product than its one dot product at a
 * time. */
static void gram_tile(const double *a, int m, int l0, int l1, int i0, int ni,
                      int j0, int nj, double *c, int d)
{
    if (ni == 4 && nj == 4) {
        const double *ai = a + (size_t) i0 * m, *aj = a + (size_t) j0 * m;
        double s[4][4];
        for (int u = 0; u < 4; u++)
            for (int v = 0; v < 4; v++)
                s[u][v] = c[(i0 + u) + (size_t) (j0 + v) * d];
        for (int l = l0; l < l1; l++) {
            double x0 = ai[l], x1 = ai[l + m], x2 = ai[l + 2 * (size_t) m],
                   x3 = ai[l + 3 * (size_t) m];
            for (int v = 0; v < 4; v++) {
                double y = aj[l + (size_t) v * m];
                s[0][v] += x0 * y;
                s[1][v] += x1 * y;
                s[2][v] += x2 * y;
                s[3][v] += x3 * y;
            }
        }
        for (int u = 0; u < 4; u++)
            for (int v = 0; v < 4; v++)
                c[(i0 + u) + (size_t) (j0 + v) * d] = s[u][v];
        return;
    }
    for (int u = 0; u < ni; u++)
        for (int v = 0; v < nj; v++) {
            const double *ai = a + (size_t) (i0 + u) * m,
                         *aj = a + (size_t) (j0 + v) * m;
            double s = c[(i0 + u) + (size_t) (j0 + v) * d];
            for (int l = l0; l < l1; l++)
                s += ai[l] * aj[l];
            c[(i0 + u) + (size_t) (j0 + v) * d] = s;
        }
}

/* The upper triangle of crossprod(a) (a m x d, column-major) into c, by
 * 4 x 4 tiles over chunks of rows; the entries below the diagonal that
 * the diagonal tiles also form are not read. */
static void gram_dense(const double *a, int m, int d, double *c)
{
    memset(c, 0, (size_t) d * d * sizeof(double));
    for (int l0 = 0; l0 < m; l0 += GRAM_CHUNK) {
        int l1 = m - l0 < GRAM_CHUNK ? m : l0 + GRAM_CHUNK;
        for (int j0 = 0; j0 < d; j0 += 4) {
            int nj = d - j0 < 4 ? d - j0 : 4;
            for (int i0 = 0; i0 <= j0; i0 += 4) {
                int ni = d - i0 < 4 ? d - i0 : 4;
                gram_tile(a, m, l0, l1, i0, ni, j0, nj, c, d);
            }
        }
    }
}

/* A block's crossprod, upper triangle of c (d x d).  Every entry is the
 * running sum over the block's rows, in row order, of the products of two
 * columns, as the reference BLAS's dsyrk (crossprod()) forms it; a zero
 * product adds nothing to such a sum, so a mostly-zero block sums the
 * non-zero products of its rows only (CSR) and a mostly non-zero one goes
 * through the dense tiles: both routes, and every layout, give the same
 * sums bit for bit. */
static void gram_block(const column_data *cd, int has_int, const double *w,
                       int a, int b, double *c, double *vals, int *rp,
                       int *ci)
{
    int d = cd->p + has_int, m = b - a;
    if (cd->layout != LAYOUT_SPARSE) {
        /* one read of the rows: decide on the dense copy */
        gram_dense_rows(cd, has_int, w, a, b, vals);
        size_t nnz = 0, total = (size_t) m * d;
        for (size_t k = 0; k < total; k++)
            nnz += vals[k] != 0.0;
        if ((double) nnz > 0.5 * (double) total) {
            gram_dense(vals, m, d, c);
            return;
        }
    }
    size_t nnz = gram_sparse_rows(cd, has_int, w, a, b, rp, ci, vals);
    if ((double) nnz > 0.5 * (double) m * d) {
        gram_dense_rows(cd, has_int, w, a, b, vals);
        gram_dense(vals, m, d, c);
        return;
    }
    for (int j = 0; j < d; j++)
        memset(c + (size_t) j * d, 0, ((size_t) j + 1) * sizeof(double));
    for (int k = 0; k < m; k++) {
        const int *col = ci + rp[k];
        const double *v = vals + rp[k];
        int len = rp[k + 1] - rp[k];
        for (int t = 0; t < len; t++) {
            double *ct = c + (size_t) col[t] * d;
            double vt = v[t];
            for (int s = 0; s <= t; s++)
                ct[col[s]] += v[s] * vt;
        }
    }
}

/* h (d x d, d = p + has_int): the sum over R's blocks of rows of
 * crossprod(block), added in block order; both triangles filled. */
void settings_gram(const column_data *cd, int has_int, const double *w,
                   double *h)
{
    int d = cd->p + has_int, nt = cd->threads, threaded = use_threads(cd);
    int nblock = (cd->n + cd->block - 1) / cd->block;
    (void) threaded;
    /* buffers for the rows a block can hold, and for no more blocks at
     * once than there are: a small x must not allocate R's whole block */
    int rows = cd->n < cd->block ? (cd->n > 0 ? cd->n : 1) : cd->block;
    if (nt > nblock)
        nt = nblock > 0 ? nblock : 1;
    size_t dd = (size_t) d * d, cap = (size_t) rows * d;
    double *vals = (double *) R_alloc((size_t) nt * cap, sizeof(double));
    int *ci = (int *) R_alloc((size_t) nt * cap, sizeof(int));
    int *rp = (int *) R_alloc((size_t) nt * (rows + 1), sizeof(int));
    double *part = (double *) R_alloc((size_t) nt * dd, sizeof(double));
    memset(h, 0, dd * sizeof(double));
    for (int g = 0; g < nblock; g += nt) {
        int e = g + nt < nblock ? g + nt : nblock;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (threaded)
#endif
        for (int blk = g; blk < e; blk++) {
            int a = blk * cd->block, u = blk - g;
            int b = cd->n - a < cd->block ? cd->n : a + cd->block;
            gram_block(cd, has_int, w, a, b, part + (size_t) u * dd,
                       vals + (size_t) u * cap, rp + (size_t) u * (rows + 1),
                       ci + (size_t) u * cap);
        }
        /* in block order, whatever thread formed each */
        for (int blk = g; blk < e; blk++) {
            const double *c = part + (size_t) (blk - g) * dd;
            for (int j = 0; j < d; j++)
                for (int i = 0; i <= j; i++)
                    h[i + (size_t) j * d] += c[i + (size_t) j * d];
        }
        R_CheckUserInterrupt();
    }
    for (int j = 0; j < d; j++)
        for (int i = j + 1; i < d; i++)
            h[i + (size_t) j * d] = h[j + (size_t) i * d];
}

/* clamp(x_ij / bound_j, -1, 1) of a dense x into out (R's scale_clamp()),
 * by columns on the threads. */
void settings_clamp(const column_data *cd, const double *bound, double *out)
{
    int threaded = use_threads(cd);
    (void) threaded;
    for (int g = 0; g < cd->p; g += COLUMN_GROUP * cd->threads) {
        int e = g + COLUMN_GROUP * cd->threads;
        e = e < cd->p ? e : cd->p;
#ifdef _OPENMP
#pragma omp parallel for num_threads(cd->threads) schedule(static) \
    if (threaded)
#endif
        for (int j = g; j < e; j++) {
            const double *col = cd->x + (size_t) j * cd->stride;
            double *o = out + (size_t) j * cd->n, bj = bound[j];
            for (int i = 0; i < cd->n; i++) {
                double v = col[i] / bj;
                o[i] = v > 1.0 ? 1.0 : (v < -1.0 ? -1.0 : v);
            }
        }
        R_CheckUserInterrupt();
    }
}
