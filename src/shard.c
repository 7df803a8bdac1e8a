/* Fits over rows held by the workers of an R cluster (R/shards.R).
 *
 * Worker side: dpsco_layout() builds a shard's records once (the
 * row-major or CSR copy of its rows, or for a mapped file its norms and
 * maxima) into R vectors that the worker keeps; the .Call entry
 * dpsco_shard_pass() (entry.c, which checks its settings against its
 * table of fields) runs the engine's own pass (pass.c batch_pass()) over
 * the shard's sampled rows through shard_problem() and shard_sums() here,
 * and returns the oracle's accumulator sums (dim, or k * dim for kamath),
 * never anything per record.
 *
 * Coordinator side: remote_pass() is batch_pass() for a fit whose records
 * are remote.  The coordinator drew the batch and the labels from its own
 * generator as for any fit; R (shard_remote_pass()) splits them by shard,
 * calls the workers and returns one column of sums per shard, which are
 * added here in shard order.  The oracle's finish and the noise then run
 * as usual, once, at the coordinator, which keeps the shards' row counts
 * behind an external pointer (dpsco_shard_rows()). */
#include <string.h>
#include "dpsco.h"

static SEXP field_of(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(list) != VECSXP || TYPEOF(names) != STRSXP)
        return R_NilValue;
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0)
            return VECTOR_ELT(list, i);
    return R_NilValue;
}

static SEXP need(SEXP list, const char *name)
{
    SEXP v = field_of(list, name);
    if (Rf_isNull(v))
        Rf_error("internal error: shard field '%s' is missing", name);
    return v;
}

static SEXP copy_doubles(const double *v, R_xlen_t n)
{
    SEXP out = Rf_allocVector(REALSXP, n);
    if (n > 0)
        memcpy(REAL(out), v, (size_t) n * sizeof(double));
    return out;
}

static SEXP copy_ints(const int *v, R_xlen_t n)
{
    SEXP out = Rf_allocVector(INTSXP, n);
    if (n > 0)
        memcpy(INTEGER(out), v, (size_t) n * sizeof(int));
    return out;
}

/* A CSR layout's vectors (copies of rec's), at positions 4 to 8 of out. */
static void layout_csr(SEXP out, const char **names, const records *rec,
                       int n)
{
    R_xlen_t nnz = rec->rp[n];
    SET_VECTOR_ELT(out, 4, copy_doubles(rec->norm, n));
    SET_VECTOR_ELT(out, 5, copy_doubles(rec->xmax, n));
    SET_VECTOR_ELT(out, 6, copy_ints(rec->rp, (R_xlen_t) n + 1));
    SET_VECTOR_ELT(out, 7, copy_ints(rec->ci, nnz));
    SET_VECTOR_ELT(out, 8, copy_doubles(rec->xv, nnz));
    names[6] = "rp";
    names[7] = "ci";
    names[8] = "xv";
}

/* The records of x for a fit with or without intercept, built once and
 * kept in R vectors: a shard's (its workers keep them between steps) or a
 * local fit's (R/lambda-path.R: the first release and the path read the
 * same copy).  x is a double matrix, a dgCMatrix or a mapped file
 * (R/design.R), already on the fit's scale; a dense x is stored CSR when
 * at most a share `density` of its values are non-zero (negative: never,
 * a shard's row-major copy), as records_dense() does.  Returns
 * list(layout, n, p, has_int, norm, xmax) plus xt (row-major), rp, ci, xv
 * (CSR) or ptr, bound, index (mapped, read in place), and `source`, x's
 * address, by which the engine knows the layout is x's (layout_of_x()),
 * built on up to `threads` threads (the copy is the same for any number). */
SEXP dpsco_layout(SEXP x, SEXP intercept, SEXP density, SEXP threads)
{
    int has_int = Rf_asInteger(intercept), n, p, layout;
    int nt = Rf_asInteger(threads), limit = dpsco_thread_limit();
    nt = nt < 1 ? 1 : nt < limit ? nt : limit;
    double share = Rf_asReal(density);
    records rec;
    memset(&rec, 0, sizeof(rec));
    SEXP out = PROTECT(Rf_allocVector(VECSXP, 10));
    SEXP nms = PROTECT(Rf_allocVector(STRSXP, 10));
    const char *names[10] = {"layout", "n", "p", "has_int", "norm", "xmax",
                             "a", "b", "c", "source"};
    if (Rf_isMatrix(x) && TYPEOF(x) == REALSXP) {
        n = Rf_nrows(x);
        p = Rf_ncols(x);
        if (share >= 0.0 &&
            records_dense_csr(&rec, REAL(x), n, p, has_int, share, nt)) {
            layout = LAYOUT_SPARSE;
            layout_csr(out, names, &rec, n);
        } else {
            layout = LAYOUT_DENSE;
            SEXP xt = Rf_allocVector(REALSXP, (R_xlen_t) n * p > 0
                                                 ? (R_xlen_t) n * p : 1);
            SET_VECTOR_ELT(out, 6, xt);
            SET_VECTOR_ELT(out, 4, Rf_allocVector(REALSXP, n > 0 ? n : 1));
            SET_VECTOR_ELT(out, 5, Rf_allocVector(REALSXP, n > 0 ? n : 1));
            rec.xt = REAL(xt);
            rec.norm = REAL(VECTOR_ELT(out, 4));
            rec.xmax = REAL(VECTOR_ELT(out, 5));
            records_fill(&rec, REAL(x), n, p, has_int, 0, n);
            names[6] = "xt";
        }
    } else if (Rf_isS4(x) && Rf_inherits(x, "dgCMatrix")) {
        SEXP dim = R_do_slot(x, Rf_install("Dim"));
        n = INTEGER(dim)[0];
        p = INTEGER(dim)[1];
        layout = LAYOUT_SPARSE;
        records_sparse(&rec, n, p, has_int,
                       INTEGER(R_do_slot(x, Rf_install("p"))),
                       INTEGER(R_do_slot(x, Rf_install("i"))),
                       REAL(R_do_slot(x, Rf_install("x"))));
        layout_csr(out, names, &rec, n);
    } else if (TYPEOF(x) == VECSXP && Rf_inherits(x, "dpsco_mapped")) {
        mapped_view v;
        mapped_view_of(x, &v, 1);
        n = v.n;
        p = v.p;
        layout = LAYOUT_MAPPED;
        records_mapped(&rec, &v, has_int, nt);
        SET_VECTOR_ELT(out, 4, copy_doubles(rec.norm, n));
        SET_VECTOR_ELT(out, 5, copy_doubles(rec.xmax, n));
        SET_VECTOR_ELT(out, 6, need(x, "ptr"));
        SET_VECTOR_ELT(out, 7, field_of(x, "bound"));
        SET_VECTOR_ELT(out, 8, field_of(x, "index"));
        names[6] = "ptr";
        names[7] = "bound";
        names[8] = "index";
    } else {
        Rf_error("internal error: a layout's x must be a double matrix, a "
                 "dgCMatrix or a mapped file");
    }
    SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(layout));
    SET_VECTOR_ELT(out, 1, Rf_ScalarInteger(n));
    SET_VECTOR_ELT(out, 2, Rf_ScalarInteger(p));
    SET_VECTOR_ELT(out, 3, Rf_ScalarInteger(has_int));
    /* x's address only: the tag does not keep x alive */
    SET_VECTOR_ELT(out, 9, R_MakeExternalPtr((void *) x, R_NilValue,
                                             R_NilValue));
    for (int i = 0; i < 10; i++)
        SET_STRING_ELT(nms, i, Rf_mkChar(names[i]));
    Rf_setAttrib(out, R_NamesSymbol, nms);
    UNPROTECT(2);
    return out;
}

/* Was the layout lay made from this very x (the same R object, so the
 * same values: R copies an object before it changes one a fit holds),
 * with the same intercept? */
int layout_of_x(SEXP lay, SEXP x, int has_int)
{
    SEXP src = field_of(lay, "source");
    return TYPEOF(src) == EXTPTRSXP && R_ExternalPtrAddr(src) == (void *) x &&
           Rf_asInteger(need(lay, "has_int")) == has_int;
}

/* The records of a layout from dpsco_layout(). */
void records_of(records *rec, SEXP lay, int nchunks)
{
    memset(rec, 0, sizeof(*rec));
    rec->layout = Rf_asInteger(need(lay, "layout"));
    rec->norm = REAL(need(lay, "norm"));
    rec->xmax = REAL(need(lay, "xmax"));
    int p = Rf_asInteger(need(lay, "p"));
    switch (rec->layout) {
    case LAYOUT_DENSE:
        rec->xt = REAL(need(lay, "xt"));
        break;
    case LAYOUT_SPARSE:
        rec->rp = INTEGER(need(lay, "rp"));
        rec->ci = INTEGER(need(lay, "ci"));
        rec->xv = REAL(need(lay, "xv"));
        break;
    case LAYOUT_MAPPED: {
        /* (a view's index was checked when the layout was made) */
        mapped_view v;
        mapped_view_of(lay, &v, 0);
        rec->cm = v.cm;
        rec->rows = v.stride;
        rec->index = v.index;
        rec->bound = v.bound;
        rec->nbuf = nchunks;
        rec->buf = (double *) R_alloc((size_t) nchunks * MAPPED_WORK(p),
                                      sizeof(double));
        break;
    }
    default:
        Rf_error("internal error: unknown shard layout %d", rec->layout);
    }
}

/* A shard's problem for one pass: the records of a layout from
 * dpsco_layout(), y (the shard's responses) and the loss `family`
 * (with the quantile family's level, kernel and bandwidth and the
 * multinomial's classes), cut into nchunks chunks; without weights or
 * offsets (the .Call entry sets the shard's own).  The settings are read
 * by the .Call entry (entry.c dpsco_shard_pass(), against its table of
 * fields). */
void shard_problem(fit_problem *pr, SEXP lay, SEXP y,
                   const loss_family *family, int nchunks)
{
    memset(pr, 0, sizeof(*pr));
    records_of(&pr->rec, lay, nchunks);
    pr->n = Rf_asInteger(need(lay, "n"));
    pr->p = Rf_asInteger(need(lay, "p"));
    pr->has_int = Rf_asInteger(need(lay, "has_int"));
    if (TYPEOF(y) != REALSXP || Rf_length(y) != pr->n)
        Rf_error("internal error: a shard's y must hold %d doubles", pr->n);
    pr->y = REAL(y);
    pr->weight = NULL;
    pr->roff = NULL;
    pr->offset = 0.0;
    pr->remote_pass = NULL;  /* the shard's own rows are local */
    pr->family = *family;
    /* a multinomial pass streams dense or sparse rows (pass.c) */
    if (family->nclass > 1 && pr->rec.layout == LAYOUT_MAPPED)
        Rf_error("internal error: a multinomial pass on a mapped shard");
    pr->noise_sd = 0.0;
    pr->noise_grid = 0.0;
    int limit = dpsco_thread_limit();
    pr->max_threads = nchunks < limit ? nchunks : limit;
}

/* One shard's part of a step: the oracle's accumulator sums over the rows
 * idx (0-based, NULL: all rows in order) with kamath labels `label` (NULL
 * but for kamath), at beta; `o` is set up with the pass's chunks, whose
 * sums are added in chunk order, as oracle_finish() adds them. */
SEXP shard_sums(fit_problem *pr, oracle_state *o, SEXP beta, SEXP idx,
                SEXP label)
{
    if (Rf_length(beta) != problem_dim(pr))
        Rf_error("internal error: beta has %d values for dimension %d",
                 Rf_length(beta), problem_dim(pr));

    int count;
    const int *ix;
    if (Rf_isNull(idx)) {
        count = pr->n;
        int *all = RECORD_ALLOC(pr->n, int);
        for (int i = 0; i < pr->n; i++)
            all[i] = i;
        ix = all;
    } else {
        count = Rf_length(idx);
        ix = INTEGER(idx);
        for (int c = 0; c < count; c++)
            if (ix[c] < 0 || ix[c] >= pr->n)
                Rf_error("internal error: row %d outside a shard of %d rows",
                         ix[c], pr->n);
    }
    /* the expected work decides on threads (pass.c): this shard's count */
    pr->q = pr->n > 0 ? (double) count / pr->n : 0.0;

    const int *lab = NULL;
    if (o->kind == ORACLE_KAMATH) {
        if (TYPEOF(label) != INTSXP || Rf_length(label) != count)
            Rf_error("internal error: kamath needs %d labels", count);
        lab = INTEGER(label);
        for (int c = 0; c < count; c++)
            if (lab[c] < 0 || lab[c] >= o->k)
                Rf_error("internal error: label %d outside 0 .. %d", lab[c],
                         o->k - 1);
    }
    batch_pass(pr, o, REAL(beta), ix, lab, count);
    size_t set = (size_t) o->k * o->dim;
    SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t) set));
    double *v = REAL(out);
    memcpy(v, o->acc, set * sizeof(double));
    for (int c = 1; c < o->nchunks; c++) {
        const double *from = o->acc + (size_t) c * o->stride;
        for (size_t j = 0; j < set; j++)
            v[j] += from[j];
    }
    UNPROTECT(1);
    return out;
}

void remote_pass(const fit_problem *pr, oracle_state *o, const double *beta,
                 const int *idx, const int *label, int count)
{
    int dim = problem_dim(pr);    /* every class's block */
    size_t set = (size_t) o->k * o->dim;
    SEXP fn = need(pr->rec.remote, "pass");
    SEXP b = PROTECT(copy_doubles(beta, dim));
    /* a batch of every record is every record in order (sample.c): sent
     * as NULL, not as n indices */
    SEXP ix = PROTECT(count == pr->n ? R_NilValue : copy_ints(idx, count));
    SEXP lab = PROTECT(label ? copy_ints(label, count) : R_NilValue);
    SEXP call = PROTECT(Rf_lang6(fn, pr->rec.remote, pr->rec.remote_settings,
                                 b, ix, lab));
    /* an error here (a worker failed) leaves through R's error handling:
     * the engine's memory is R_alloc'd, and the fit returns nothing */
    SEXP sums = PROTECT(Rf_eval(call, R_GlobalEnv));
    if (TYPEOF(sums) != REALSXP || !Rf_isMatrix(sums) ||
        (size_t) Rf_nrows(sums) != set)
        Rf_error("internal error: the shards returned no %d x shards sums",
                 (int) set);
    int nshard = Rf_ncols(sums);
    const double *s = REAL(sums);
    /* shard order, into the first chunk (the others stay 0) */
    for (int w = 0; w < nshard; w++)
        for (size_t j = 0; j < set; j++)
            o->acc[j] += s[(size_t) w * set + j];
    UNPROTECT(5);
}

/* The shards' row counts at the coordinator (R/shards.R shard_rows()):
 * data, kept in C memory behind an external pointer rather than in the
 * R handle.  serialize() writes an external pointer without its memory,
 * so a saved handle holds no counts, and a restored one has a NULL
 * address.  The memory holds the number of shards, then the counts. */
static SEXP rows_tag(void)
{
    return Rf_install("dpsco_shard_rows");
}

static void rows_free(SEXP ptr)
{
    double *v = (double *) R_ExternalPtrAddr(ptr);
    if (v) {
        R_Free(v);
        R_ClearExternalPtr(ptr);
    }
}

/* rows a double vector: a new pointer to a copy of it.  rows a pointer
 * made here: a copy of its counts, or NULL when it came back from
 * serialize(). */
SEXP dpsco_shard_rows(SEXP rows)
{
    if (TYPEOF(rows) == REALSXP) {
        R_xlen_t n = XLENGTH(rows);
        double *v = R_Calloc((size_t) n + 1, double);
        v[0] = (double) n;
        if (n > 0)
            memcpy(v + 1, REAL(rows), (size_t) n * sizeof(double));
        SEXP ptr = PROTECT(R_MakeExternalPtr(v, rows_tag(), R_NilValue));
        R_RegisterCFinalizerEx(ptr, rows_free, TRUE);
        UNPROTECT(1);
        return ptr;
    }
    if (TYPEOF(rows) != EXTPTRSXP || R_ExternalPtrTag(rows) != rows_tag())
        Rf_error("internal error: not the row counts of shards");
    const double *v = (const double *) R_ExternalPtrAddr(rows);
    if (!v)
        return R_NilValue;
    return copy_doubles(v + 1, (R_xlen_t) v[0]);
}
