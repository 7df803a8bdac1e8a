/* A file-backed x read in place: the values of an n x p double matrix
 * stored column by column in a file (bigmemory's file-backed big.matrix),
 * mapped read-only into memory.  The pages belong to the operating
 * system's file cache, not to the process's anonymous memory, so a fit
 * keeps only a few rows per thread and two numbers per record of its own.
 *
 * A pass reads the rows of its batch GATHER_ROWS at a time, column by
 * column into a small buffer, and adds the same numbers in the same order
 * as the row-major pass; with the fit's private bounds each value is
 * divided by its column's bound and clamped to [-1, 1] as it is read, the
 * operations R applies to a dense x, so the fit equals the dense one bit
 * for bit. */
#include <math.h>
#include <string.h>
#include <R_ext/Utils.h>
#include "dpsco.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define DPSCO_HAVE_MMAP 1
#endif

typedef struct {
    void *addr;
    size_t bytes;
    int n, p;
} mapping;

static void unmap(SEXP ptr)
{
    mapping *m = (mapping *) R_ExternalPtrAddr(ptr);
    if (m == NULL)
        return;
#ifdef DPSCO_HAVE_MMAP
    if (m->addr != NULL)
        munmap(m->addr, m->bytes);
#endif
    R_Free(m);
    R_ClearExternalPtr(ptr);
}

/* The mapping behind an external pointer made by dpsco_map_file(). */
static const mapping *mapping_of(SEXP ptr)
{
    if (TYPEOF(ptr) != EXTPTRSXP || R_ExternalPtrAddr(ptr) == NULL)
        Rf_error("the file-backed matrix is no longer mapped (it was saved "
                 "and reloaded, or closed); pass the big.matrix again");
    return (const mapping *) R_ExternalPtrAddr(ptr);
}

/* Maps the first nrow * ncol doubles of the file at `path`; the mapping
 * lives until the returned pointer is garbage collected. */
SEXP dpsco_map_file(SEXP path, SEXP nrow, SEXP ncol)
{
#ifdef DPSCO_HAVE_MMAP
    int n = Rf_asInteger(nrow), p = Rf_asInteger(ncol);
    size_t bytes = (size_t) n * (size_t) p * sizeof(double);
    const char *file = R_ExpandFileName(Rf_translateChar(STRING_ELT(path, 0)));
    int fd = open(file, O_RDONLY);
    if (fd < 0)
        Rf_error("cannot open the backing file '%s' of x", file);
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t) st.st_size < bytes) {
        close(fd);
        Rf_error("the backing file '%s' of x holds fewer than %d x %d doubles",
                 file, n, p);
    }
    void *addr = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);  /* the mapping keeps the file open */
    if (addr == MAP_FAILED)
        Rf_error("cannot map the backing file '%s' of x into memory", file);
    mapping *m = R_Calloc(1, mapping);
    m->addr = addr;
    m->bytes = bytes;
    m->n = n;
    m->p = p;
    SEXP ptr = PROTECT(R_MakeExternalPtr(m, R_NilValue, R_NilValue));
    R_RegisterCFinalizerEx(ptr, unmap, TRUE);
    UNPROTECT(1);
    return ptr;
#else
    (void) path;
    (void) nrow;
    (void) ncol;
    Rf_error("a file-backed x needs memory-mapped files, which dpsco does "
             "not support on this platform");
    return R_NilValue;
#endif
}

/* Rows from .. to - 1 (0-based) of the mapped design x (a view's rows
 * read through its index) as an R matrix, for R's block statistics. */
SEXP dpsco_map_rows(SEXP x, SEXP from, SEXP to)
{
    mapped_view v;
    mapped_view_of(x, &v, 0);
    int a = Rf_asInteger(from), b = Rf_asInteger(to);
    if (a < 0 || b > v.n || a > b)
        Rf_error("internal error: rows %d to %d of %d", a, b, v.n);
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, b - a, v.p));
    for (int j = 0; j < v.p; j++) {
        const double *col = v.cm + (size_t) j * v.stride;
        double *o = REAL(out) + (size_t) j * (b - a);
        if (v.index == NULL)
            memcpy(o, col + a, (size_t) (b - a) * sizeof(double));
        else
            for (int i = a; i < b; i++)
                o[i - a] = col[v.index[i]];
    }
    UNPROTECT(1);
    return out;
}

/* Values per block of the finiteness check, and blocks per interrupt
 * check. */
#define FINITE_BLOCK ((size_t) 1 << 16)
#define FINITE_BLOCKS 256

/* TRUE when every value of the mapped matrix is finite: v * 0 is 0 for a
 * finite v and NaN otherwise, and a sum of them is NaN as soon as one is,
 * a test without a branch per value; the blocks run on the threads. */
SEXP dpsco_map_finite(SEXP ptr, SEXP threads)
{
    const mapping *m = mapping_of(ptr);
    const double *cm = (const double *) m->addr;
    size_t total = (size_t) m->n * m->p;
    long nblock = (long) ((total + FINITE_BLOCK - 1) / FINITE_BLOCK);
    int nthreads = Rf_asInteger(threads), bad = 0;
    (void) nthreads;
    for (long s = 0; s < nblock && !bad; s += FINITE_BLOCKS) {
        long e = s + FINITE_BLOCKS < nblock ? s + FINITE_BLOCKS : nblock;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(static) \
    reduction(|:bad)
#endif
        for (long b = s; b < e; b++) {
            size_t from = (size_t) b * FINITE_BLOCK;
            size_t to = total - from < FINITE_BLOCK ? total
                                                    : from + FINITE_BLOCK;
            double z = 0.0;
            for (size_t k = from; k < to; k++)
                z += cm[k] * 0.0;
            bad |= z != 0.0 || ISNAN(z);
        }
        R_CheckUserInterrupt();
    }
    return Rf_ScalarLogical(!bad);
}

/* The mapped design x (R/design.R: a list with the mapping `ptr`, the
 * bounds `bound` and, for a view of some of the file's rows, their
 * 0-based `index`); `check`: verify that every index is a row of the
 * file (once per design: the passes read through it unchecked). */
void mapped_view_of(SEXP x, mapped_view *v, int check)
{
    SEXP names = Rf_getAttrib(x, R_NamesSymbol);
    SEXP ptr = R_NilValue, bound = R_NilValue, index = R_NilValue;
    for (int k = 0; !Rf_isNull(names) && k < Rf_length(x); k++) {
        const char *nm = CHAR(STRING_ELT(names, k));
        if (strcmp(nm, "ptr") == 0)
            ptr = VECTOR_ELT(x, k);
        else if (strcmp(nm, "bound") == 0)
            bound = VECTOR_ELT(x, k);
        else if (strcmp(nm, "index") == 0)
            index = VECTOR_ELT(x, k);
    }
    if (Rf_isNull(ptr))
        Rf_error("internal error: a mapped x without its mapping");
    const mapping *m = mapping_of(ptr);
    v->cm = (const double *) m->addr;
    v->stride = (size_t) m->n;
    v->p = m->p;
    v->n = m->n;
    v->index = NULL;
    if (!Rf_isNull(index)) {
        if (TYPEOF(index) != INTSXP)
            Rf_error("internal error: a mapped view's index must be integer");
        v->index = INTEGER(index);
        v->n = Rf_length(index);
        for (int i = 0; check && i < v->n; i++)
            if (v->index[i] < 0 || v->index[i] >= m->n)
                Rf_error("internal error: a mapped view's row %d of %d",
                         v->index[i], m->n);
    }
    if (!Rf_isNull(bound) &&
        (TYPEOF(bound) != REALSXP || Rf_length(bound) != v->p))
        Rf_error("internal error: %d bounds for %d columns",
                 Rf_length(bound), v->p);
    v->bound = Rf_isNull(bound) ? NULL : REAL(bound);
}

/* The file's row of record i. */
static inline size_t file_row(const records *rec, int i)
{
    return rec->index != NULL ? (size_t) rec->index[i] : (size_t) i;
}

/* Records first .. first + count - 1 into out, row-major, with the
 * bound's scaling. */
void mapped_gather(const records *rec, int p, int first, int count,
                   double *out)
{
    for (int j = 0; j < p; j++) {
        const double *col = rec->cm + (size_t) j * rec->rows;
        for (int k = 0; k < count; k++) {
            double v = col[file_row(rec, first + k)];
            if (rec->bound != NULL) {
                v = v / rec->bound[j];
                v = v > 1.0 ? 1.0 : (v < -1.0 ? -1.0 : v);
            }
            out[(size_t) k * p + j] = v;
        }
    }
}

/* Column j of the file's rows ix[0 .. m - 1] into v, with the bound's
 * scaling. */
static void mapped_column(const records *rec, int j, const int *ix, int m,
                          double *v)
{
    const double *col = rec->cm + (size_t) j * rec->rows;
    if (rec->bound == NULL) {
        for (int k = 0; k < m; k++)
            v[k] = col[ix[k]];
        return;
    }
    double b = rec->bound[j];
    for (int k = 0; k < m; k++) {
        double u = col[ix[k]] / b;
        v[k] = u > 1.0 ? 1.0 : (u < -1.0 ? -1.0 : u);
    }
}

/* The pass over records idx[0 .. count - 1], GATHER_ROWS at a time, read
 * column by column as the file stores them.  Each record's four partial
 * sums of x'beta receive the products of the row-major loop (pass.c) in
 * its order, and oracle_add_block() adds the records' contributions in
 * record order, so the sums are those of the dense pass bit for bit. */
void mapped_pass(const fit_problem *pr, const oracle_state *o, double *acc,
                 const double *beta, const int *idx, const int *label,
                 int count, double *work)
{
    const records *rec = &pr->rec;
    int p = pr->p, hi = pr->has_int, lim = p - p % 4;
    double *vals = work;                               /* G x p */
    double *part = vals + (size_t) GATHER_ROWS * p;    /* 4 x G */
    double *coef = part + 4 * GATHER_ROWS;             /* G */
    int *rows = (int *) (coef + GATHER_ROWS);          /* G, a view's */
    for (int c = 0; c < count; c += GATHER_ROWS) {
        int m = count - c < GATHER_ROWS ? count - c : GATHER_ROWS;
        const int *ix = idx + c;
        /* the records' rows of the file, once for all columns */
        const int *fx = ix;
        if (rec->index != NULL) {
            for (int k = 0; k < m; k++)
                rows[k] = rec->index[ix[k]];
            fx = rows;
        }
        /* consecutive records stored as they are (a full batch of the
         * whole file without private bounds) are read in place, without
         * a copy */
        int direct = rec->bound == NULL && rec->index == NULL &&
                     ix[m - 1] - ix[0] == m - 1;
        const double *block = direct ? rec->cm + ix[0] : vals;
        size_t ld = direct ? rec->rows : GATHER_ROWS;
        memset(part, 0, 4 * GATHER_ROWS * sizeof(double));
        for (int j = 0; j < p; j++) {
            const double *v = block + j * ld;
            double b = beta[hi + j];
            double *sum = part + (j < lim ? j % 4 : 0) * GATHER_ROWS;
            if (!direct)
                mapped_column(rec, j, fx, m, vals + j * ld);
            for (int k = 0; k < m; k++)
                sum[k] += v[k] * b;
        }
        for (int k = 0; k < m; k++) {
            const double *sk = part + k;
            double eta = (hi ? beta[0] : 0.0) +
                         ((sk[0] + sk[GATHER_ROWS]) +
                          (sk[2 * GATHER_ROWS] + sk[3 * GATHER_ROWS]));
            coef[k] = record_residual(pr, ix[k], eta);
        }
        oracle_add_block(o, acc, coef, block, ld, m, rec->norm, ix,
                         label ? label + c : NULL);
    }
}

/* Row blocks per interrupt check in the norms' pre-pass. */
#define PREPASS_BLOCKS 64

/* Records from .. from + m - 1: their largest |x_ij| and norms, read by
 * column.  The maximum does not depend on the order; the sum of squares is
 * formed in feature order, as record_norm() forms it, and a record whose
 * largest value needs record_norm()'s scaled sum is done row-wise there. */
static void mapped_stats(records *rec, int p, int has_int, int from, int m,
                         double *work)
{
    double *big = work, *ss = work + GATHER_ROWS;
    double *row = ss + GATHER_ROWS;                    /* p values */
    double *gather = row + p;                          /* G, a view's */
    for (int k = 0; k < m; k++) {
        big[k] = 0.0;
        ss[k] = has_int ? 1.0 : 0.0;
    }
    for (int j = 0; j < p; j++) {
        const double *col = rec->cm + (size_t) j * rec->rows + from;
        if (rec->index != NULL) {
            /* a view: its records' values gathered from the file */
            const double *base = rec->cm + (size_t) j * rec->rows;
            for (int k = 0; k < m; k++)
                gather[k] = base[rec->index[from + k]];
            col = gather;
        }
        double b = rec->bound ? rec->bound[j] : 1.0;
        for (int k = 0; k < m; k++) {
            double v = col[k];
            if (rec->bound) {
                v = v / b;
                v = v > 1.0 ? 1.0 : (v < -1.0 ? -1.0 : v);
            }
            double a = fabs(v);
            big[k] = a > big[k] ? a : big[k];
            ss[k] += v * v;
        }
    }
    for (int k = 0; k < m; k++) {
        size_t i = (size_t) from + k;
        double scale = has_int && big[k] < 1.0 ? 1.0 : big[k];
        rec->xmax[i] = big[k];
        if (scale == 0.0)
            rec->norm[i] = 0.0;
        else if (scale > 1e-140 && scale < 1e140)
            rec->norm[i] = sqrt(ss[k]);
        else {
            mapped_gather(rec, p, from + k, 1, row);
            rec->norm[i] = record_norm(row, p, has_int, scale);
        }
    }
}

void records_mapped(records *rec, const mapped_view *v, int has_int,
                    int nbuf)
{
    int n = v->n, p = v->p;
    rec->layout = LAYOUT_MAPPED;
    rec->cm = v->cm;
    rec->rows = v->stride;
    rec->index = v->index;
    rec->bound = v->bound;
    rec->nbuf = nbuf < 1 ? 1 : nbuf;
    rec->buf = (double *) R_alloc((size_t) rec->nbuf * MAPPED_WORK(p),
                                  sizeof(double));
    rec->norm = RECORD_ALLOC(n, double);
    rec->xmax = RECORD_ALLOC(n, double);
    /* each record's numbers depend on that record alone: threads do not
     * change them */
    int nblock = (n + GATHER_ROWS - 1) / GATHER_ROWS;
    for (int s = 0; s < nblock; s += PREPASS_BLOCKS) {
        int e = s + PREPASS_BLOCKS < nblock ? s + PREPASS_BLOCKS : nblock;
#ifdef _OPENMP
#pragma omp parallel for num_threads(rec->nbuf) schedule(static) \
    if ((double) n * p >= 100000.0)
#endif
        for (int blk = s; blk < e; blk++) {
            int t = 0;
#ifdef _OPENMP
            t = omp_get_thread_num();
#endif
            int from = blk * GATHER_ROWS;
            mapped_stats(rec, p, has_int, from,
                         n - from < GATHER_ROWS ? n - from : GATHER_ROWS,
                         rec->buf + (size_t) t * MAPPED_WORK(p));
        }
        R_CheckUserInterrupt();
    }
}
