/* The engine's one copy of x: row-major (p x n), so that a sampled record is
 * one contiguous run of memory, plus two numbers per record computed once
 * per fit: the norm ||(1, x_i)|| (or ||x_i||) used by clipping, and the
 * largest |x_ij|, which lets an oracle see before its loop that no value of
 * the record can reach a clamp. */
#include <math.h>
#include <stdint.h>
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
    rec->xt = (double *) R_alloc((size_t) n * p, sizeof(double));
    advise_huge_pages(rec->xt, (size_t) n * p * sizeof(double));
    rec->norm = (double *) R_alloc((size_t) n, sizeof(double));
    rec->xmax = (double *) R_alloc((size_t) n, sizeof(double));
}

/* ||(1, x)|| (or ||x||) without overflow or underflow for any finite x:
 * a plain sum of squares when the largest entry allows it, otherwise sums
 * of squares scaled by that entry. */
static double record_norm(const double *x, int p, int has_int, double big)
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
    for (int i = 0; i < to - from; i++) {
        const double *xi = rec->xt + (size_t) i * p;
        double big = 0.0;
        for (int j = 0; j < p; j++) {
            double a = fabs(xi[j]);
            big = a > big ? a : big;
        }
        rec->xmax[i] = big;
        rec->norm[i] = record_norm(xi, p, has_int, has_int && big < 1.0 ? 1.0 : big);
    }
}
