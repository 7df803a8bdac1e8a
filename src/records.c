/* The engine's one copy of x: row-major (p x n), so that a sampled record is
 * one contiguous run of memory, or for a sparse x its non-zeros row by row
 * (CSR), plus two numbers per record computed once per fit: the norm
 * ||(1, x_i)|| (or ||x_i||) used by clipping, and the largest |x_ij|, which
 * lets an oracle see before its loop that no value of the record can reach
 * a clamp.  Zeros add nothing to either, so a sparse record's norm and
 * maximum over its non-zeros are the dense record's, bit for bit. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "dpsco.h"
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Rows are copied in blocks so that the block being written stays in cache
 * while every column is read in order. */
#define ROW_BLOCK 64

/* Asks Linux to back a large buffer with transparent huge pages before it
 * is first written: filling the copy of x then costs one page fault per
 * 2 MB instead of per 4 KB, which on some machines is most of the cost of a
 * short fit.  Only a hint: where it is not available nothing changes. */
static void advise_huge_pages(void *buf, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t) 1 << 21;
    uintptr_t from = ((uintptr_t) buf + huge - 1) & ~(huge - 1);
    uintptr_t to = ((uintptr_t) buf + bytes) & ~(huge - 1);
    if (to > from)
        (void) madvise((void *) from, to - from, MADV_HUGEPAGE);
#else
    (void) buf;
    (void) bytes;
#endif
}

void records_alloc(records *rec, int n, int p)
{
    rec->layout = LAYOUT_DENSE;
    rec->xt = RECORD_ALLOC((size_t) n * p, double);
    advise_huge_pages(rec->xt, (size_t) n * p * sizeof(double));
    rec->norm = RECORD_ALLOC(n, double);
    rec->xmax = RECORD_ALLOC(n, double);
}

/* ||(1, x)|| (or ||x||) without overflow or underflow for any finite x:
 * a plain sum of squares when the largest entry allows it, otherwise sums
 * of squares scaled by that entry. */
double record_norm(const double *x, int p, int has_int, double big)
{
    if (big == 0.0)
        return 0.0;
    double ss = has_int ? 1.0 : 0.0;
    if (big > 1e-140 && big < 1e140) {
        for (int j = 0; j < p; j++)
            ss += x[j] * x[j];
        return sqrt(ss);
    }
    ss = has_int ? (1.0 / big) * (1.0 / big) : 0.0;
    for (int j = 0; j < p; j++) {
        double v = x[j] / big;
        ss += v * v;
    }
    return big * sqrt(ss);
}

/* Record i's largest |x_ij| and norm from its values xi[0 .. len - 1]
 * (all p of them, or only the non-zeros). */
void record_stats(records *rec, size_t i, const double *xi, int len,
                  int has_int)
{
    double big = 0.0;
    for (int j = 0; j < len; j++) {
        double a = fabs(xi[j]);
        big = a > big ? a : big;
    }
    rec->xmax[i] = big;
    rec->norm[i] = record_norm(xi, len, has_int,
                               has_int && big < 1.0 ? 1.0 : big);
}

/* Records from .. to - 1 of the n x p column-major x, stored at positions
 * 0 .. to - from - 1 of rec. */
void records_fill(records *rec, const double *x, int n, int p, int has_int,
                  int from, int to)
{
    for (int b = from; b < to; b += ROW_BLOCK) {
        int e = b + ROW_BLOCK < to ? b + ROW_BLOCK : to;
        for (int j = 0; j < p; j++) {
            const double *col = x + (size_t) j * n;
            for (int i = b; i < e; i++)
                rec->xt[(size_t) (i - from) * p + j] = col[i];
        }
    }
    for (int i = 0; i < to - from; i++)
        record_stats(rec, i, rec->xt + (size_t) i * p, p, has_int);
}

/* The CSR arrays for nnz non-zeros; rp holds each row's count at i + 1.
 * Returns the next free position of each row, its start. */
static int *csr_start(records *rec, int n, size_t nnz)
{
    rec->layout = LAYOUT_SPARSE;
    rec->xt = NULL;
    rec->ci = (int *) R_alloc(nnz ? nnz : 1, sizeof(int));
    rec->xv = (double *) R_alloc(nnz ? nnz : 1, sizeof(double));
    rec->norm = RECORD_ALLOC(n, double);
    rec->xmax = RECORD_ALLOC(n, double);
    for (int i = 0; i < n; i++)
        rec->rp[i + 1] += rec->rp[i];
    int *next = RECORD_ALLOC(n, int);
    memcpy(next, rec->rp, (size_t) n * sizeof(int));
    return next;
}

static void csr_stats(records *rec, int n, int has_int)
{
    for (int i = 0; i < n; i++)
        record_stats(rec, i, rec->xv + rec->rp[i], rec->rp[i + 1] - rec->rp[i],
                     has_int);
}

/* The CSR copy of a dgCMatrix (column pointers cp, row indices ri, values
 * v): a counting sort by row, which keeps each row's columns increasing. */
void records_sparse(records *rec, int n, int p, int has_int, const int *cp,
                    const int *ri, const double *v)
{
    size_t nnz = (size_t) cp[p];
    rec->rp = (int *) R_alloc((size_t) n + 1, sizeof(int));
    memset(rec->rp, 0, ((size_t) n + 1) * sizeof(int));
    for (size_t k = 0; k < nnz; k++)
        rec->rp[ri[k] + 1]++;
    int *next = csr_start(rec, n, nnz);
    for (int j = 0; j < p; j++)
        for (int k = cp[j]; k < cp[j + 1]; k++) {
            int at = next[ri[k]]++;
            rec->ci[at] = j;
            rec->xv[at] = v[k];
        }
    csr_stats(rec, n, has_int);
}

/* Rows per block of the CSR copy of a dense x: every column's part of a
 * block is read in turn while the block's rows of the copy stay in cache;
 * the blocks are the threads' work. */
#define CSR_BLOCK 256

/* Non-zeros of rows a .. b - 1 of x, counted into rp[i + 1]. */
static size_t csr_count(const double *x, int n, int p, int a, int b, int *rp)
{
    size_t nnz = 0;
    for (int j = 0; j < p; j++) {
        const double *col = x + (size_t) j * n;
        for (int i = a; i < b; i++)
            if (col[i] != 0.0) {
                rp[i + 1]++;
                nnz++;
            }
    }
    return nnz;
}

/* The CSR copy of a dense n x p x when its non-zeros are at most a share
 * `density` of its values (the pass then costs less, and the fit is the
 * same, see records_sparse); returns 0, having built nothing, when there
 * are more.  Each row's entries depend on that row alone, so the threads
 * (whole blocks of rows each) do not change the copy; the counts go a
 * round of blocks at a time, so that a dense x stops early. */
int records_dense_csr(records *rec, const double *x, int n, int p,
                      int has_int, double density, int threads)
{
    rec->rp = (int *) R_alloc((size_t) n + 1, sizeof(int));
    memset(rec->rp, 0, ((size_t) n + 1) * sizeof(int));
    double most = density * n * (double) p;
    int nblock = (n + CSR_BLOCK - 1) / CSR_BLOCK, round = 64 * threads;
#ifdef _OPENMP
    /* a small x is copied faster than threads start */
    int nt = (double) n * p >= 100000.0 ? threads : 1;
#endif
    size_t nnz = 0;
    for (int g = 0; g < nblock && (double) nnz <= most; g += round) {
        int e = g + round < nblock ? g + round : nblock;
        size_t add = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+:add)
#endif
        for (int blk = g; blk < e; blk++) {
            int a = blk * CSR_BLOCK;
            add += csr_count(x, n, p, a, n - a < CSR_BLOCK ? n : a + CSR_BLOCK,
                             rec->rp);
        }
        nnz += add;
    }
    if ((double) nnz > most)
        return 0;
    int *next = csr_start(rec, n, nnz);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
    for (int blk = 0; blk < nblock; blk++) {
        int a = blk * CSR_BLOCK, b = n - a < CSR_BLOCK ? n : a + CSR_BLOCK;
        for (int j = 0; j < p; j++) {
            const double *col = x + (size_t) j * n;
            for (int i = a; i < b; i++)
                if (col[i] != 0.0) {
                    int at = next[i]++;
                    rec->ci[at] = j;
                    rec->xv[at] = col[i];
                }
        }
        for (int i = a; i < b; i++)
            record_stats(rec, i, rec->xv + rec->rp[i],
                         rec->rp[i + 1] - rec->rp[i], has_int);
    }
    return 1;
}

/* The records of a dense n x p x: the CSR copy of its non-zeros when they
 * are at most a share `density` of its values, else the row-major copy. */
void records_dense(records *rec, const double *x, int n, int p, int has_int,
                   double density, int threads)
{
    if (records_dense_csr(rec, x, n, p, has_int, density, threads))
        return;
    records_alloc(rec, n, p);
    records_fill(rec, x, n, p, has_int, 0, n);
}

/* The pass restricted to the rows `rows` (0-based, increasing, checked
 * here): a dense or mapped x is read at them in place; a sparse x is cut
 * to them, its listed rows' entries copied with their positions in the
 * list as row indices (a position map of x's rows, n ints, and the
 * entries kept). */
void column_data_rows(column_data *cd, SEXP rows, const char *entry)
{
    if (TYPEOF(rows) != INTSXP)
        Rf_error("%s: rows must be an integer vector", entry);
    int m = Rf_length(rows), n = cd->n;
    const int *r = INTEGER(rows);
    for (int k = 0; k < m; k++)
        if (r[k] < 0 || r[k] >= n || (k > 0 && r[k] <= r[k - 1]))
            Rf_error("%s: rows must be increasing row indices in 0 .. %d",
                     entry, n - 1);
    if (cd->layout != LAYOUT_SPARSE) {
        if (cd->rows != NULL) {
            /* a view's rows: the file rows of the listed view rows (both
             * increasing, so these are too) */
            int *f = (int *) R_alloc(m > 0 ? (size_t) m : 1, sizeof(int));
            for (int k = 0; k < m; k++)
                f[k] = cd->rows[r[k]];
            r = f;
        }
        cd->rows = r;
        cd->n = m;
        return;
    }
    int *pos = (int *) R_alloc(n > 0 ? (size_t) n : 1, sizeof(int));
    for (int i = 0; i < n; i++)
        pos[i] = -1;
    for (int k = 0; k < m; k++)
        pos[r[k]] = k;
    int *cp = (int *) R_alloc((size_t) cd->p + 1, sizeof(int));
    cp[0] = 0;
    for (int j = 0; j < cd->p; j++) {
        int kept = 0;
        for (int k = cd->cp[j]; k < cd->cp[j + 1]; k++)
            kept += pos[cd->ri[k]] >= 0;
        cp[j + 1] = cp[j] + kept;
    }
    size_t nnz = (size_t) cp[cd->p];
    int *ri = (int *) R_alloc(nnz > 0 ? nnz : 1, sizeof(int));
    double *v = (double *) R_alloc(nnz > 0 ? nnz : 1, sizeof(double));
    for (int j = 0, t = 0; j < cd->p; j++)
        for (int k = cd->cp[j]; k < cd->cp[j + 1]; k++)
            if (pos[cd->ri[k]] >= 0) {
                ri[t] = pos[cd->ri[k]];
                v[t++] = cd->v[k];
            }
    cd->cp = cp;
    cd->ri = ri;
    cd->v = v;
    cd->n = m;
}
