/* .Call entry points: unpack R arguments (already validated in R), call the
 * engine, pack the results.  No numerics live here.
 *
 * Each entry point that takes a settings list states its whole contract in
 * one table (the *_fields arrays below): every name it accepts, and whether
 * it must be there.  A name outside the table is an error, so a misspelt
 * optional field cannot silently fall back to its default, and the entry
 * may read only the names its table declares. */
#include <string.h>
#include <Rmath.h>
#include "spgd.h"

/* How an entry point uses a field of its settings list.  OPTIONAL fields
 * have a default (or matter only with another field: said at the table);
 * IGNORED ones are accepted and never read, with the reason at the table. */
enum { REQUIRED, OPTIONAL, IGNORED };

typedef struct {
    const char *name;
    int use;
} field_spec;

/* A settings list checked against its entry point's table. */
typedef struct {
    SEXP list;
    const char *entry;
    const field_spec *spec;   /* ends with {NULL, 0} */
} settings_list;

static const field_spec *spec_find(const field_spec *spec, const char *name)
{
    for (; spec->name; spec++)
        if (strcmp(spec->name, name) == 0)
            return spec;
    return NULL;
}

/* The element of a named list, or NULL when absent. */
static SEXP list_elt(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    if (TYPEOF(names) != STRSXP)
        return R_NilValue;
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0)
            return VECTOR_ELT(list, i);
    return R_NilValue;
}

/* Checks `list` against `spec` before anything is read: every name known
 * and given once, every REQUIRED field present and not NULL. */
static settings_list settings_open(SEXP list, const char *entry,
                                   const field_spec *spec)
{
    if (TYPEOF(list) != VECSXP)
        Rf_error("%s: settings must be a list", entry);
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    R_xlen_t n = XLENGTH(list);
    if (n > 0 && TYPEOF(names) != STRSXP)
        Rf_error("%s: settings must be a named list", entry);
    for (R_xlen_t i = 0; i < n; i++) {
        const char *name = CHAR(STRING_ELT(names, i));
        if (!spec_find(spec, name))
            Rf_error("%s: unknown settings field '%s'", entry, name);
        for (R_xlen_t j = 0; j < i; j++)
            if (strcmp(CHAR(STRING_ELT(names, j)), name) == 0)
                Rf_error("%s: settings field '%s' given twice", entry, name);
    }
    for (const field_spec *f = spec; f->name; f++)
        if (f->use == REQUIRED && Rf_isNull(list_elt(list, f->name)))
            Rf_error("%s: settings field '%s' is missing", entry, f->name);
    settings_list s = {list, entry, spec};
    return s;
}

/* A declared field's value, NULL when absent.  Reading a name the table
 * does not declare (or declares IGNORED) is a bug of this file. */
static SEXP opt(const settings_list *s, const char *name)
{
    const field_spec *f = spec_find(s->spec, name);
    if (!f || f->use == IGNORED)
        Rf_error("internal error: %s reads settings field '%s' outside its "
                 "table", s->entry, name);
    return list_elt(s->list, name);
}

/* A field that must be there (REQUIRED, or OPTIONAL but needed here). */
static SEXP field(const settings_list *s, const char *name)
{
    SEXP v = opt(s, name);
    if (Rf_isNull(v))
        Rf_error("%s: settings field '%s' is missing", s->entry, name);
    return v;
}

static double num(const settings_list *s, const char *name)
{
    return Rf_asReal(field(s, name));
}

static int integer(const settings_list *s, const char *name)
{
    return Rf_asInteger(field(s, name));
}

static double num_or(const settings_list *s, const char *name, double dflt)
{
    SEXP v = opt(s, name);
    return Rf_isNull(v) ? dflt : Rf_asReal(v);
}

static int integer_or(const settings_list *s, const char *name, int dflt)
{
    SEXP v = opt(s, name);
    return Rf_isNull(v) ? dflt : Rf_asInteger(v);
}

/* ---- the contracts ---------------------------------------------------- *
 * One table per entry point.  Two groups of fields recur, named here once:
 * the problem's (problem_from() reads them) and the oracle's (setup_from()
 * reads them). */

/* the problem: tau, bandwidth and kernel are the quantile family's (default
 * 0.5, 1 and gaussian smoothing), nclass the multinomial's number of
 * classes (default 1), noise_grid the secure release's grid (default 0:
 * none), offset is added to every predictor (default 0), records the
 * copy of x that R built once (dpsco_layout(), shard.c), read instead of
 * a new copy when it is this x's */
#define PROBLEM_FIELDS \
    {"intercept", REQUIRED}, {"threads", REQUIRED}, {"family", REQUIRED}, \
    {"tau", OPTIONAL}, {"bandwidth", OPTIONAL}, {"kernel", OPTIONAL}, \
    {"nclass", OPTIONAL}, \
    {"rate", REQUIRED}, {"noise_sd", REQUIRED}, {"noise_grid", OPTIONAL}, \
    {"offset", OPTIONAL}, {"weights", OPTIONAL}, {"offsets", OPTIONAL}, \
    {"records", OPTIONAL}

/* the oracle: exact (holland) asks for exact values instead of the table,
 * default 0 */
#define ORACLE_FIELDS \
    {"oracle", REQUIRED}, {"m", REQUIRED}, {"clip", REQUIRED}, \
    {"rho", REQUIRED}, {"k", REQUIRED}, {"s", REQUIRED}, {"nu", REQUIRED}, \
    {"exact", OPTIONAL}

/* IGNORED sensitivity and bound: R passes oracle_setup()'s result whole,
 * and these two serve R's accounting and lambda grid, not the engine. */

static const field_spec fit_fields[] = {
    PROBLEM_FIELDS,
    ORACLE_FIELDS,
    {"sensitivity", IGNORED}, {"bound", IGNORED},
    /* the loop */
    {"steps", REQUIRED}, {"step_size", REQUIRED},
    {"sqrt_schedule", REQUIRED}, {"last_iterate", REQUIRED},
    {"tail_average", REQUIRED}, {"alpha", REQUIRED},
    {"penalty_factor", REQUIRED},
    /* p limits each (default none) and the multinomial grouping (0) */
    {"lower_limits", OPTIONAL}, {"upper_limits", OPTIONAL},
    {"grouped", OPTIONAL},
    {"disjoint", OPTIONAL},     /* one pass per lambda, default 0 */
    /* the Newton loop instead of SPGD when curvature is given */
    {"curvature", OPTIONAL},
    {"memory", OPTIONAL},       /* required with curvature */
    {"first_gradient", OPTIONAL},
    /* a multinomial's K x K class matrix S: the model is S (x) curvature
     * (required with curvature when nclass > 1) */
    {"class_matrix", OPTIONAL},
    /* an R function called after each lambda (the progress bar) */
    {"progress", OPTIONAL},
    /* the bounded domain (R/domain.R): a (p + intercept)^2 metric, the
     * centre (one block per class) and one radius per class; default none */
    {"domain_metric", OPTIONAL}, {"domain_centre", OPTIONAL},
    {"domain_radius", OPTIONAL},
    {NULL, 0}
};

static const field_spec release_fields[] = {
    /* the problem */
    PROBLEM_FIELDS,
    /* the oracle */
    ORACLE_FIELDS,
    {"sensitivity", IGNORED}, {"bound", IGNORED},
    /* R/lambda-path.R's first release is given the fit's own settings list,
     * whose loop fields one release does not use */
    {"steps", IGNORED}, {"step_size", IGNORED}, {"sqrt_schedule", IGNORED},
    {"last_iterate", IGNORED}, {"tail_average", IGNORED},
    {"domain_metric", IGNORED}, {"domain_centre", IGNORED},
    {"domain_radius", IGNORED},
    {"alpha", IGNORED}, {"penalty_factor", IGNORED}, {"disjoint", IGNORED},
    {"lower_limits", IGNORED}, {"upper_limits", IGNORED},
    {"grouped", IGNORED},
    {NULL, 0}
};

static const field_spec fw_fields[] = {
    /* the problem (rate 1 and noise_sd 0: the selection is the release) */
    PROBLEM_FIELDS,
    /* the oracle */
    ORACLE_FIELDS,
    {"sensitivity", IGNORED}, {"bound", IGNORED},
    /* the loop */
    {"steps", REQUIRED}, {"eps0", REQUIRED},
    {"score_sensitivity", REQUIRED}, {"chunked", REQUIRED},
    {NULL, 0}
};

/* dpsco_mirror, one table per settings$task */
static const field_spec mirror_fit_fields[] = {
    {"task", REQUIRED},
    /* the problem (rate 1 and noise_sd 0: the noise is added per step) */
    PROBLEM_FIELDS,
    /* the clip oracle's public divisor and the plan (mirror_plan) */
    {"m", REQUIRED}, {"q", REQUIRED}, {"s", REQUIRED},
    {"shuffled", REQUIRED}, {"steps", REQUIRED}, {"clip", REQUIRED},
    {"sigma", REQUIRED}, {"b", REQUIRED}, {"a", REQUIRED},
    {NULL, 0}
};

static const field_spec mirror_map_fields[] = {
    {"task", REQUIRED}, {"s", REQUIRED}, {"inverse", REQUIRED},
    {NULL, 0}
};

static const field_spec mirror_noise_fields[] = {
    {"task", REQUIRED}, {"dim", REQUIRED}, {"draws", REQUIRED},
    {"r", REQUIRED}, {"sigma", REQUIRED},
    {NULL, 0}
};

static const field_spec one_pass_fields[] = {
    /* the problem (rate: the first block's probability; noise_sd: per
     * phase, its first element read as the problem's) */
    PROBLEM_FIELDS,
    /* the plan (one_pass_plan) and the clip oracle */
    {"method", REQUIRED}, {"steps", REQUIRED}, {"batch", REQUIRED},
    {"step", REQUIRED},
    {"weight", OPTIONAL},       /* required but for acsa */
    {"ridge", REQUIRED}, {"clip", REQUIRED},
    /* R/one-pass.R passes the first block's size as m too; the oracle's
     * divisor is each block's size from `batch` */
    {"m", IGNORED},
    {NULL, 0}
};

static const field_spec oracle_mean_fields[] = {
    ORACLE_FIELDS,
    {"noise_sd", REQUIRED}, {"noise_grid", OPTIONAL},
    {NULL, 0}
};

/* dpsco_shard_pass (shard.c), a cluster worker's part of one step: the
 * oracle's fields, the family (with the quantile family's tau, bandwidth
 * and kernel and the multinomial's nclass, each at family_from()'s
 * default when NULL) and the chunks (threads) the pass is cut into.  R
 * (R/shards.R shard_pass_settings()) sends exactly these names, a field
 * the fit's settings lack as NULL, so a required one renamed there is an
 * error here, never a default.  The worker adds its shard's own weights
 * and offsets (R/shards.R shard_task()), never sent by the coordinator. */
static const field_spec shard_pass_fields[] = {
    ORACLE_FIELDS,
    {"family", REQUIRED}, {"tau", OPTIONAL}, {"bandwidth", OPTIONAL},
    {"kernel", OPTIONAL}, {"nclass", OPTIONAL}, {"threads", REQUIRED},
    {"weights", OPTIONAL}, {"offsets", OPTIONAL},
    {NULL, 0}
};

/* dpsco_bun_steinke, one table per settings$task */
static const field_spec bs_path_fields[] = {
    {"task", REQUIRED},
    /* the releases */
    {"trim", REQUIRED}, {"decay", REQUIRED}, {"s", REQUIRED},
    {"noise", REQUIRED}, {"lo", REQUIRED}, {"hi", REQUIRED},
    /* the problem and the descent */
    {"intercept", REQUIRED}, {"family", REQUIRED},
    {"tau", OPTIONAL}, {"bandwidth", OPTIONAL}, {"kernel", OPTIONAL},
    {"nclass", OPTIONAL},       /* 1: no multinomial here */
    {"offset", REQUIRED}, {"steps", REQUIRED}, {"step", REQUIRED},
    {"threads", REQUIRED}, {"trace", REQUIRED},
    {NULL, 0}
};

static const field_spec bs_mean_fields[] = {
    {"task", REQUIRED},
    {"trim", REQUIRED}, {"decay", REQUIRED}, {"s", REQUIRED},
    {"noise", REQUIRED}, {"lo", REQUIRED}, {"hi", REQUIRED},
    {NULL, 0}
};

/* dpsco_settings_pass, one table per settings$task (R/design.R): every
 * task takes the threads and the rows of R's blocks */
#define PASS_FIELDS \
    {"task", REQUIRED}, {"threads", REQUIRED}, {"block_rows", REQUIRED}

/* Tasks 5, 2 and 3 take an optional `rows`: the pass reads those rows of
 * x only (0-based, increasing), as if x were x[rows + 1, ]; `residual`
 * and `weight` then hold one value per listed row. */

/* 5: per column, the counts of records in the octave bins of |x_ij|
 * (R/settings.R octave_counts(); task 1, the log-moment sums of 0.11.0,
 * is gone) */
static const field_spec pass_octave_fields[] = {
    PASS_FIELDS, {"rows", OPTIONAL},
    {NULL, 0}
};

/* 2: per record, the sum of squares and the norm; the histograms of
 * |residual_i| c_i (when `residual` is given; c_i the norm, or with
 * `coordinate` max(intercept, |x_i|_inf)) and of the norms (`row_hist`) */
static const field_spec pass_rows_fields[] = {
    PASS_FIELDS, {"intercept", REQUIRED}, {"coordinate", REQUIRED},
    {"residual", OPTIONAL}, {"row_hist", REQUIRED}, {"rows", OPTIONAL},
    {NULL, 0}
};

/* 3: crossprod(cbind(1, x) * weight) (without the 1 for intercept 0) */
static const field_spec pass_gram_fields[] = {
    PASS_FIELDS, {"intercept", REQUIRED}, {"weight", REQUIRED},
    {"rows", OPTIONAL},
    {NULL, 0}
};

/* 4: a dense x's clamp(x_j / bound_j, -1, 1), with x's attributes */
static const field_spec pass_clamp_fields[] = {
    PASS_FIELDS, {"bound", REQUIRED},
    {NULL, 0}
};

/* 6: per column, the sums of clamp(x_ij / bound_j, -1, 1) and of its
 * square */
static const field_spec pass_moments_fields[] = {
    PASS_FIELDS, {"bound", REQUIRED}, {"rows", OPTIONAL},
    {NULL, 0}
};

/* settings$task of a list with one table per task, before the list is
 * checked against the task's table. */
static int task_of(SEXP list, const char *entry)
{
    SEXP t = TYPEOF(list) == VECSXP ? list_elt(list, "task") : R_NilValue;
    if (Rf_isNull(t))
        Rf_error("%s: settings field 'task' is missing", entry);
    return Rf_asInteger(t);
}

/* The secure release's grid (R's secure_gaussian()); absent or 0: R's
 * generator. */
static double noise_grid_from(const settings_list *s)
{
    return num_or(s, "noise_grid", 0.0);
}

static void setup_from(oracle_state *o, const settings_list *s, int p,
                       int has_int, int nchunks)
{
    oracle_setup(o, integer(s, "oracle"), p, has_int, num(s, "m"),
                 num(s, "clip"), num(s, "rho"), integer(s, "k"), num(s, "s"),
                 num(s, "nu"), integer_or(s, "exact", 0), nchunks);
}

/* The quantile fields (absent for the other families). */
static void family_from(loss_family *f, const settings_list *s)
{
    f->kind = integer(s, "family");
    f->tau = num_or(s, "tau", 0.5);
    f->h = num_or(s, "bandwidth", 1.0);
    f->kernel = integer_or(s, "kernel", KERNEL_GAUSSIAN);
    f->nclass = integer_or(s, "nclass", 1);
    if (f->nclass < 1 || f->nclass > MAX_CLASSES ||
        (f->nclass > 1) != (f->kind == FAMILY_MULTINOMIAL))
        Rf_error("internal error: %d classes for family %d", f->nclass,
                 f->kind);
}

/* The entry points whose loops know one predictor per record only. */
static void single_class(const fit_problem *pr, const char *entry)
{
    if (pr->family.nclass > 1)
        Rf_error("internal error: %s fits no multinomial model", entry);
}

/* The engine's records of x, which R passes as a double matrix, a
 * dgCMatrix, or a file-backed matrix (list(ptr = the mapping, bound =
 * NULL or the per-column bounds, index = NULL or a view's rows)); n and
 * p are set from it. */
static void records_from(records *rec, SEXP x, int has_int, int threads,
                         int *n, int *p)
{
    if (Rf_isMatrix(x) && TYPEOF(x) == REALSXP) {
        *n = Rf_nrows(x);
        *p = Rf_ncols(x);
        /* options(dpsco.sparse_density =): the largest share of non-zeros
         * stored sparse (0: always row-major, as the tests' reference) */
        SEXP option = Rf_GetOption1(Rf_install("dpsco.sparse_density"));
        double density = Rf_isNull(option) ? 0.2 : Rf_asReal(option);
        int limit = dpsco_thread_limit();
        records_dense(rec, REAL(x), *n, *p, has_int,
                      R_FINITE(density) ? density : 0.2,
                      threads < 1 ? 1 : threads < limit ? threads : limit);
    } else if (Rf_isS4(x) && Rf_inherits(x, "dgCMatrix")) {
        SEXP dim = R_do_slot(x, Rf_install("Dim"));
        *n = INTEGER(dim)[0];
        *p = INTEGER(dim)[1];
        records_sparse(rec, *n, *p, has_int,
                       INTEGER(R_do_slot(x, Rf_install("p"))),
                       INTEGER(R_do_slot(x, Rf_install("i"))),
                       REAL(R_do_slot(x, Rf_install("x"))));
    } else if (TYPEOF(x) == VECSXP && Rf_inherits(x, "dpsco_mapped")) {
        mapped_view v;
        mapped_view_of(x, &v, 1);
        *n = v.n;
        *p = v.p;
        records_mapped(rec, &v, has_int, threads);
    } else if (TYPEOF(x) == VECSXP && Rf_inherits(x, "dpsco_shard_x")) {
        /* rows on cluster workers (shard.c): the total count and p */
        *n = Rf_asInteger(list_elt(x, "rows"));
        *p = Rf_asInteger(list_elt(x, "p"));
        rec->layout = LAYOUT_REMOTE;
        rec->remote = x;
    } else {
        Rf_error("internal error: x must be a double matrix, a dgCMatrix or "
                 "a mapped file");
    }
}

/* A per-record vector of the settings (weights, offsets): NULL when
 * absent, else n doubles. */
static const double *per_record(const settings_list *s, const char *name,
                                int n)
{
    SEXP v = opt(s, name);
    if (Rf_isNull(v))
        return NULL;
    if (TYPEOF(v) != REALSXP || Rf_length(v) != n)
        Rf_error("internal error: settings field '%s' must hold %d doubles",
                 name, n);
    return REAL(v);
}

/* The problem shared by the entry points that stream records: the
 * records of x and the settings of the pass. */
static void problem_from(fit_problem *pr, SEXP x, SEXP y,
                         const settings_list *s)
{
    int n, p;
    int has_int = integer(s, "intercept");
    /* the records R built once for this x (dpsco_layout()), or a copy of
     * x made here for this call */
    SEXP lay = opt(s, "records");
    if (!Rf_isNull(lay) && layout_of_x(lay, x, has_int)) {
        records_of(&pr->rec, lay, integer(s, "threads"));
        n = Rf_asInteger(list_elt(lay, "n"));
        p = Rf_asInteger(list_elt(lay, "p"));
    } else {
        records_from(&pr->rec, x, has_int, integer(s, "threads"), &n, &p);
    }
    int remote = pr->rec.layout == LAYOUT_REMOTE;  /* y on the workers */
    if (!remote && Rf_length(y) != n)
        Rf_error("internal error: y has %d values for %d records",
                 Rf_length(y), n);
    pr->y = remote ? NULL : REAL(y);
    pr->rec.remote_settings = remote ? s->list : R_NilValue;
    pr->remote_pass = remote ? remote_pass : NULL;
    pr->n = n;
    pr->p = p;
    pr->has_int = has_int;
    family_from(&pr->family, s);
    /* the sampling rate: a public number (the expected batch size over the
     * public n), never a count of these records */
    pr->q = num(s, "rate");
    pr->noise_sd = num(s, "noise_sd");
    pr->noise_grid = noise_grid_from(s);
    int threads = integer(s, "threads");
    int limit = dpsco_thread_limit();
    pr->max_threads = threads < limit ? threads : limit;
    pr->offset = num_or(s, "offset", 0.0);
    pr->weight = per_record(s, "weights", n);
    pr->roff = per_record(s, "offsets", n);
    /* a multinomial pass streams dense or sparse rows, without offsets */
    if (pr->family.nclass > 1 &&
        (pr->rec.layout == LAYOUT_MAPPED || pr->roff))
        Rf_error("internal error: a multinomial fit on a mapped x or with "
                 "offsets");
}

/* The penalty's fields (dpsco.h's path_penalty). */
static void penalty_from(path_penalty *pen, const settings_list *s, int p)
{
    pen->alpha = num(s, "alpha");
    pen->pf = per_record(s, "penalty_factor", p);
    pen->lower = per_record(s, "lower_limits", p);
    pen->upper = per_record(s, "upper_limits", p);
    pen->grouped = integer_or(s, "grouped", 0);
    if (pen->pf == NULL)
        Rf_error("internal error: the penalty needs its factors");
}

/* The bounded domain's fields (all three or none). */
static void domain_from(path_domain *dm, const settings_list *s, int width,
                        int nclass)
{
    dm->metric = per_record(s, "domain_metric", width * width);
    dm->centre = per_record(s, "domain_centre", width * nclass);
    dm->radius = per_record(s, "domain_radius", nclass);
    if ((dm->metric == NULL) != (dm->centre == NULL) ||
        (dm->metric == NULL) != (dm->radius == NULL))
        Rf_error("internal error: the domain needs its metric, centre and "
                 "radius together");
    dm->work = (double *) R_alloc((size_t) width, sizeof(double));
}

static const field_spec project_fields[] = {
    {"nclass", REQUIRED}, {"domain_metric", REQUIRED},
    {"domain_centre", REQUIRED}, {"domain_radius", REQUIRED},
    {NULL, 0}
};

SEXP dpsco_fit(SEXP x, SEXP y, SEXP settings, SEXP lambda, SEXP beta0,
               SEXP trace_at)
{
    settings_list s = settings_open(settings, "dpsco_fit", fit_fields);
    fit_problem pr;
    problem_from(&pr, x, y, &s);
    int dim = problem_dim(&pr), nlambda = Rf_length(lambda);
    spgd_schedule sc;
    sc.steps = integer(&s, "steps");
    sc.step0 = num(&s, "step_size");
    sc.sqrt_schedule = integer(&s, "sqrt_schedule");
    sc.last_iterate = integer(&s, "last_iterate");
    sc.tail_average = integer(&s, "tail_average");
    penalty_from(&sc.pen, &s, pr.p);
    sc.trace_at = INTEGER(trace_at);
    sc.ntrace = Rf_length(trace_at);
    sc.disjoint = integer_or(&s, "disjoint", 0);
    sc.progress = opt(&s, "progress");
    domain_from(&sc.domain, &s, pr.p + pr.has_int, pr.family.nclass);
    if (!Rf_isNull(sc.progress) && !Rf_isFunction(sc.progress))
        Rf_error("dpsco_fit: settings field 'progress' must be a function");

    oracle_state o;
    setup_from(&o, &s, pr.p, pr.has_int, integer(&s, "threads"));
    oracle_classes(&o, pr.family.nclass);

    /* the Newton path's settings, read before any draw */
    SEXP curv = opt(&s, "curvature");
    quad_model qm = {pr.p + pr.has_int, pr.has_int, NULL, sc.step0, 0.0,
                     &sc.pen, pr.family.nclass, NULL};
    const double *g1 = NULL;
    if (!Rf_isNull(curv)) {
        qm.A = REAL(curv);
        qm.memory = num(&s, "memory");
        SEXP g = opt(&s, "first_gradient");
        g1 = Rf_isNull(g) ? NULL : REAL(g);
        if (pr.family.nclass > 1) {
            SEXP cm = field(&s, "class_matrix");
            if (TYPEOF(cm) != REALSXP ||
                Rf_length(cm) != pr.family.nclass * pr.family.nclass)
                Rf_error("internal error: the class matrix must hold %d x "
                         "%d doubles", pr.family.nclass, pr.family.nclass);
            qm.S = REAL(cm);
        }
    }

    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, dim, nlambda));
    SEXP tr = R_NilValue;
    if (sc.ntrace > 0)
        tr = Rf_alloc3DArray(REALSXP, dim, sc.ntrace, nlambda);
    PROTECT(tr);
    GetRNGstate();
    if (Rf_isNull(curv)) {
        spgd_path(&pr, &sc, &o, REAL(lambda), nlambda, REAL(beta0), REAL(out),
                  sc.ntrace > 0 ? REAL(tr) : NULL);
    } else {
        newton_path(&pr, &sc, &o, &qm, REAL(lambda), nlambda, REAL(beta0), g1,
                    REAL(out), sc.ntrace > 0 ? REAL(tr) : NULL);
    }
    PutRNGstate();

    SEXP res = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP nms = PROTECT(Rf_allocVector(STRSXP, 2));
    SET_VECTOR_ELT(res, 0, out);
    SET_VECTOR_ELT(res, 1, tr);
    SET_STRING_ELT(nms, 0, Rf_mkChar("beta"));
    SET_STRING_ELT(nms, 1, Rf_mkChar("trace"));
    Rf_setAttrib(res, R_NamesSymbol, nms);
    UNPROTECT(4);
    return res;
}

/* A private Frank-Wolfe path over the increasing radii. */
SEXP dpsco_fw(SEXP x, SEXP y, SEXP settings, SEXP radius, SEXP beta0)
{
    settings_list s = settings_open(settings, "dpsco_fw", fw_fields);
    fit_problem pr;
    problem_from(&pr, x, y, &s);
    single_class(&pr, "dpsco_fw");
    int dim = pr.p + pr.has_int, nradius = Rf_length(radius);
    oracle_state o;
    setup_from(&o, &s, pr.p, pr.has_int, integer(&s, "threads"));
    fw_setup fs = {integer(&s, "steps"), num(&s, "eps0"),
                   num(&s, "score_sensitivity"), integer(&s, "chunked")};
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, dim, nradius));
    GetRNGstate();
    fw_path(&pr, &o, &fs, REAL(radius), nradius, REAL(beta0), REAL(out));
    PutRNGstate();
    UNPROTECT(1);
    return out;
}

/* A per-radius setting: a double (or integer) vector of length nr. */
static const double *per_radius(const settings_list *s, const char *name,
                                int nr)
{
    SEXP v = field(s, name);
    if (TYPEOF(v) != REALSXP || XLENGTH(v) != nr)
        Rf_error("internal error: setting '%s' must be %d doubles", name, nr);
    return REAL(v);
}

static SEXP map_task(const settings_list *s, SEXP v)
{
    int d = Rf_length(v);
    double sp = num(s, "s");
    int inverse = integer(s, "inverse");
    SEXP out = PROTECT(Rf_allocVector(REALSXP, d));
    if (inverse)
        mirror_grad_inverse(REAL(v), d, sp, REAL(out));
    else
        mirror_grad(REAL(v), d, sp, REAL(out));
    UNPROTECT(1);
    return out;
}

static SEXP noise_task(const settings_list *s)
{
    int d = integer(s, "dim"), k = integer(s, "draws");
    double r = num(s, "r"), sigma = num(s, "sigma");
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, d, k));
    GetRNGstate();
    for (int i = 0; i < k; i++)
        gg_draw(REAL(out) + (size_t) i * d, d, r, sigma);
    PutRNGstate();
    UNPROTECT(1);
    return out;
}

/* What .Call asks of dpsco_mirror (settings$task). */
enum { TASK_FIT = 0, TASK_MAP = 1, TASK_NOISE = 2 };

/* settings$task: TASK_FIT (the path; x, y, radius, beta0), TASK_MAP
 * (grad Phi, or its inverse, of the vector beta0) or TASK_NOISE (a
 * dim x draws matrix of generalized Gaussian draws). */
SEXP dpsco_mirror(SEXP x, SEXP y, SEXP settings, SEXP radius, SEXP beta0)
{
    int task = task_of(settings, "dpsco_mirror");
    if (task == TASK_MAP) {
        settings_list s = settings_open(settings, "dpsco_mirror",
                                        mirror_map_fields);
        return map_task(&s, beta0);
    }
    if (task == TASK_NOISE) {
        settings_list s = settings_open(settings, "dpsco_mirror",
                                        mirror_noise_fields);
        return noise_task(&s);
    }
    if (task != TASK_FIT)
        Rf_error("dpsco_mirror: unknown task %d", task);

    settings_list s = settings_open(settings, "dpsco_mirror",
                                    mirror_fit_fields);
    fit_problem pr;
    problem_from(&pr, x, y, &s);  /* rate 1, noise_sd 0 (added below) */
    single_class(&pr, "dpsco_mirror");
    int n = pr.n, p = pr.p, has_int = pr.has_int;
    int dim = p + has_int, nr = Rf_length(radius);
    int threads = integer(&s, "threads");
    double q = num(&s, "q");
    if (q != 2.0)
        mirror_dual_norms(&pr.rec, n, p, has_int, q, pr.max_threads);

    mirror_plan mp;
    mp.shuffled = integer(&s, "shuffled");
    mp.nr = nr;
    mp.s = num(&s, "s");
    mp.r = mp.s / (mp.s - 1.0);
    mp.radius = REAL(radius);
    SEXP steps = field(&s, "steps");
    if (TYPEOF(steps) != INTSXP || XLENGTH(steps) != nr)
        Rf_error("internal error: setting 'steps' must be %d integers", nr);
    mp.steps = INTEGER(steps);
    mp.clip = per_radius(&s, "clip", nr);
    mp.sigma = per_radius(&s, "sigma", nr);
    mp.b = per_radius(&s, "b", nr);
    mp.a = per_radius(&s, "a", nr);

    oracle_state o;
    /* the public divisor m (the public n), not the number of records */
    oracle_setup(&o, ORACLE_CLIP, p, has_int, num(&s, "m"), mp.clip[0],
                 0.0, 1, 1.0, 1.0, 1, threads);
    o.truncate = mp.shuffled;

    double *beta = (double *) R_alloc((size_t) dim, sizeof(double));
    memcpy(beta, REAL(beta0), (size_t) dim * sizeof(double));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, dim, nr));
    GetRNGstate();
    mirror_path(&pr, &o, &mp, beta, REAL(out));
    PutRNGstate();
    UNPROTECT(1);
    return out;
}

/* A one-pass path (one_pass.c) over the increasing radii: per-phase
 * doubles batch (the public expected block sizes) and noise_sd, integer
 * steps, per-radius step and weight (see one_pass_plan), the ridge mu and
 * the clip level.  With x NULL (and no settings): the projection of beta0
 * on the ball of radius[0] and the ball of radius[1] around y
 * (project_two_balls), for the tests. */
SEXP dpsco_one_pass(SEXP x, SEXP y, SEXP settings, SEXP radius, SEXP beta0)
{
    if (Rf_isNull(x)) {
        if (!Rf_isNull(settings))
            Rf_error("dpsco_one_pass: the projection takes no settings");
        int d = Rf_length(beta0);
        SEXP w = PROTECT(Rf_duplicate(beta0));
        project_two_balls(REAL(w), d, REAL(radius)[0], REAL(y),
                          REAL(radius)[1]);
        UNPROTECT(1);
        return w;
    }
    settings_list s = settings_open(settings, "dpsco_one_pass",
                                    one_pass_fields);
    fit_problem pr;
    problem_from(&pr, x, y, &s);  /* noise_sd unused: per phase below */
    single_class(&pr, "dpsco_one_pass");
    int dim = pr.p + pr.has_int, nr = Rf_length(radius);
    one_pass_plan pl;
    pl.method = integer(&s, "method");
    pl.nr = nr;
    pl.radius = REAL(radius);
    SEXP steps = field(&s, "steps");
    pl.nphase = Rf_length(steps);
    if (TYPEOF(steps) != INTSXP || pl.nphase < 1)
        Rf_error("internal error: 'steps' must be integers per phase");
    pl.steps = INTEGER(steps);
    pl.size = per_radius(&s, "batch", pl.nphase);
    for (int i = 0; i < pl.nphase; i++)
        if (!(pl.size[i] > 0.0) || pl.steps[i] < 1)
            Rf_error("internal error: phase %d has expected size %g and %d "
                     "steps", i + 1, pl.size[i], pl.steps[i]);
    pl.noise_sd = per_radius(&s, "noise_sd", pl.nphase);
    int per = pl.method == ONE_PASS_ACSA ? 1
              : pl.method == ONE_PASS_SGD ? pl.steps[0] : pl.nphase;
    pl.step = per_radius(&s, "step", per * nr);
    pl.weight = pl.method == ONE_PASS_ACSA ? NULL
                : per_radius(&s, "weight", per * nr);
    pl.ridge = num(&s, "ridge");
    oracle_state o;
    oracle_setup(&o, ORACLE_CLIP, pr.p, pr.has_int, pl.size[0],
                 num(&s, "clip"), 0.0, 1, 1.0, 1.0, 1,
                 integer(&s, "threads"));
    double *beta = (double *) R_alloc((size_t) dim, sizeof(double));
    memcpy(beta, REAL(beta0), (size_t) dim * sizeof(double));
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, dim, nr));
    GetRNGstate();
    one_pass_path(&pr, &o, &pl, beta, REAL(out));
    PutRNGstate();
    UNPROTECT(1);
    return out;
}

/* One noisy release of the oracle's gradient estimate at beta, on a
 * Poisson batch at the fit's rate: the first step of a path, released
 * before the path so that its largest coordinate can set the grid. */
SEXP dpsco_release(SEXP x, SEXP y, SEXP settings, SEXP beta)
{
    settings_list s = settings_open(settings, "dpsco_release",
                                    release_fields);
    fit_problem pr;
    problem_from(&pr, x, y, &s);
    int dim = problem_dim(&pr);
    oracle_state o;
    setup_from(&o, &s, pr.p, pr.has_int, integer(&s, "threads"));
    oracle_classes(&o, pr.family.nclass);
    int kamath = o.kind == ORACLE_KAMATH;
    int *idx = RECORD_ALLOC(pr.n, int);
    int *label = kamath ? RECORD_ALLOC(pr.n, int) : NULL;
    poisson_sampler sampler;
    sampler_init(&sampler, pr.n, pr.q, pr.noise_grid > 0);
    SEXP est = PROTECT(Rf_allocVector(REALSXP, dim));
    GetRNGstate();
    noisy_gradient(&pr, &o, &sampler, REAL(beta), idx, label, REAL(est));
    PutRNGstate();
    UNPROTECT(1);
    return est;
}

/* A worker's part of one step of a sharded fit: the oracle's accumulator
 * sums over the rows idx (0-based; NULL: all, in order) of the shard
 * whose records `lay` holds (dpsco_layout()), with kamath labels
 * `label`, at beta (shard.c). */
SEXP dpsco_shard_pass(SEXP lay, SEXP y, SEXP settings, SEXP beta, SEXP idx,
                      SEXP label)
{
    static const char *entry = "dpsco_shard_pass";
    settings_list s = settings_open(settings, entry, shard_pass_fields);
    int nchunks = integer(&s, "threads");
    if (nchunks < 1)
        Rf_error("%s: threads must be positive", entry);
    loss_family family;
    family_from(&family, &s);
    if (family.kind < FAMILY_GAUSSIAN || family.kind > FAMILY_MULTINOMIAL)
        Rf_error("internal error: %s takes no family %d", entry, family.kind);
    fit_problem pr;
    shard_problem(&pr, lay, y, &family, nchunks);
    pr.weight = per_record(&s, "weights", pr.n);
    pr.roff = per_record(&s, "offsets", pr.n);
    if (family.nclass > 1 && pr.roff)
        Rf_error("internal error: a multinomial pass with offsets");
    oracle_state o;
    setup_from(&o, &s, pr.p, pr.has_int, nchunks);
    oracle_classes(&o, family.nclass);
    return shard_sums(&pr, &o, beta, idx, label);
}

/* Rows of g copied (and normed) per block: small enough to stay in cache,
 * so a release makes no copy of g. */
#define RELEASE_BLOCK_VALUES 4096

/* One release of an oracle on the rows of g (every row in the batch), with
 * optional Gaussian noise.  'labels' gives kamath's group of each row
 * (0-based); NULL draws them from R's generator. */
SEXP dpsco_oracle_mean(SEXP g, SEXP settings, SEXP labels)
{
    settings_list s = settings_open(settings, "dpsco_oracle_mean",
                                    oracle_mean_fields);
    int n = Rf_nrows(g), dim = Rf_ncols(g);
    int block = dim < RELEASE_BLOCK_VALUES ? RELEASE_BLOCK_VALUES / dim : 1;
    records rec;
    records_alloc(&rec, block, dim);
    oracle_state o;
    setup_from(&o, &s, dim, 0, 1);
    double sd = num(&s, "noise_sd"), grid = noise_grid_from(&s);
    int draw = Rf_isNull(labels) && o.kind == ORACLE_KAMATH;
    int noisy = o.kind != ORACLE_NONE && sd > 0;

    SEXP est = PROTECT(Rf_allocVector(REALSXP, dim));
    if (draw || noisy)
        GetRNGstate();
    for (int b = 0; b < n; b += block) {
        int e = n - b < block ? n : b + block;
        records_fill(&rec, REAL(g), n, dim, 0, b, e);
        for (int i = b; i < e; i++) {
            int label = 0;
            if (o.kind == ORACLE_KAMATH)
                label = draw ? sample_label(o.k, grid > 0) : INTEGER(labels)[i];
            oracle_add(&o, o.acc, 1.0, rec.xt + (size_t) (i - b) * dim,
                       rec.norm[i - b], rec.xmax[i - b], label);
        }
    }
    oracle_finish(&o, REAL(est));
    if (noisy)
        add_noise(REAL(est), dim, sd, grid);
    if (draw || noisy)
        PutRNGstate();
    UNPROTECT(1);
    return est;
}

SEXP dpsco_max_threads(void)
{
    return Rf_ScalarInteger(dpsco_thread_limit());
}

/* TRUE when every entry of the double vector x is finite: the check of
 * is.finite(x) without its n x p logical temporary. */
SEXP dpsco_all_finite(SEXP x)
{
    const double *px = REAL(x);
    R_xlen_t n = XLENGTH(x);
    for (R_xlen_t i = 0; i < n; i++)
        if (!R_FINITE(px[i]))
            return Rf_ScalarLogical(FALSE);
    return Rf_ScalarLogical(TRUE);
}

SEXP dpsco_catoni_mean(SEXP a, SEXP b)
{
    R_xlen_t n = XLENGTH(a);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
    for (R_xlen_t i = 0; i < n; i++)
        REAL(out)[i] = catoni_mean(REAL(a)[i], REAL(b)[i]);
    UNPROTECT(1);
    return out;
}

/* h(a) exactly, or from the table a fit with this nu would use. */
SEXP dpsco_holland_h(SEXP a, SEXP nu, SEXP tabulated)
{
    R_xlen_t n = XLENGTH(a);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
    holland_h_values(REAL(a), n, Rf_asReal(nu),
                     Rf_asLogical(tabulated) == TRUE, REAL(out));
    UNPROTECT(1);
    return out;
}

/* Bun-Steinke gradient descent (bun_steinke.c).  task 0: the path over
 * `radius` from beta0, returning list(beta = d x nr, trace = d x (steps nr)
 * or NULL); task 1: one release per column of x between lo[j] and hi[j],
 * returning the 3 x ncol matrix (truncated trimmed mean, smooth bound,
 * release). */
SEXP dpsco_bun_steinke(SEXP x, SEXP y, SEXP settings, SEXP radius,
                       SEXP beta0)
{
    int task = task_of(settings, "dpsco_bun_steinke");
    if (task != 0 && task != 1)
        Rf_error("dpsco_bun_steinke: unknown task %d", task);
    settings_list st = settings_open(settings, "dpsco_bun_steinke",
                                     task == 1 ? bs_mean_fields
                                               : bs_path_fields);
    int n = Rf_nrows(x), p = Rf_ncols(x);
    int m = integer(&st, "trim");
    double decay = num(&st, "decay"), s = num(&st, "s");
    int noise = integer(&st, "noise");
    const double *lo = REAL(field(&st, "lo"));
    const double *hi = REAL(field(&st, "hi"));
    if (task == 1) {
        double *v = RECORD_ALLOC(n, double);
        SEXP out = PROTECT(Rf_allocMatrix(REALSXP, 3, p));
        double *o = REAL(out);
        GetRNGstate();
        for (int j = 0; j < p; j++) {
            memcpy(v, REAL(x) + (size_t) j * n, (size_t) n * sizeof(double));
            o[3 * j + 1] = bs_trimmed(v, n, m, lo[j], hi[j], decay,
                                      o + 3 * j);
            o[3 * j + 2] = o[3 * j] + (noise ? o[3 * j + 1] / s *
                                       sinh(norm_rand()) : 0.0);
        }
        PutRNGstate();
        UNPROTECT(1);
        return out;
    }
    bs_problem bp;
    bp.x = REAL(x);
    bp.y = REAL(y);
    bp.n = n;
    bp.p = p;
    bp.has_int = integer(&st, "intercept");
    family_from(&bp.family, &st);
    if (bp.family.nclass > 1)
        Rf_error("internal error: dpsco_bun_steinke fits no multinomial model");
    bp.offset = num(&st, "offset");
    bp.steps = integer(&st, "steps");
    bp.step = REAL(field(&st, "step"));
    bp.m = m;
    bp.decay = decay;
    bp.s = s;
    bp.noise = noise;
    int threads = integer(&st, "threads"), limit = dpsco_thread_limit();
    bp.threads = threads < limit ? threads : limit;
    if (bp.threads < 1)
        bp.threads = 1;
    int dim = p + bp.has_int, nr = Rf_length(radius);
    double *beta = (double *) R_alloc((size_t) dim, sizeof(double));
    memcpy(beta, REAL(beta0), (size_t) dim * sizeof(double));
    int want_trace = integer(&st, "trace");
    SEXP res = PROTECT(Rf_allocVector(VECSXP, 2));
    SEXP nms = PROTECT(Rf_allocVector(STRSXP, 2));
    SET_STRING_ELT(nms, 0, Rf_mkChar("beta"));
    SET_STRING_ELT(nms, 1, Rf_mkChar("trace"));
    Rf_setAttrib(res, R_NamesSymbol, nms);
    SET_VECTOR_ELT(res, 0, Rf_allocMatrix(REALSXP, dim, nr));
    if (want_trace)
        SET_VECTOR_ELT(res, 1, Rf_allocMatrix(REALSXP, dim, bp.steps * nr));
    GetRNGstate();
    bs_path(&bp, REAL(radius), nr, lo, hi, beta, REAL(VECTOR_ELT(res, 0)),
            want_trace ? REAL(VECTOR_ELT(res, 1)) : NULL);
    PutRNGstate();
    UNPROTECT(2);
    return res;
}

/* x for the settings' passes, read in place: a double matrix, a dgCMatrix
 * or a mapped design (list(ptr, bound, index), a view read through its
 * index). */
static void column_data_from(column_data *cd, SEXP x)
{
    memset(cd, 0, sizeof(*cd));
    if (Rf_isMatrix(x) && TYPEOF(x) == REALSXP) {
        cd->layout = LAYOUT_DENSE;
        cd->n = Rf_nrows(x);
        cd->p = Rf_ncols(x);
        cd->x = REAL(x);
        cd->stride = (size_t) cd->n;
    } else if (Rf_isS4(x) && Rf_inherits(x, "dgCMatrix")) {
        SEXP dim = R_do_slot(x, Rf_install("Dim"));
        cd->layout = LAYOUT_SPARSE;
        cd->n = INTEGER(dim)[0];
        cd->p = INTEGER(dim)[1];
        cd->cp = INTEGER(R_do_slot(x, Rf_install("p")));
        cd->ri = INTEGER(R_do_slot(x, Rf_install("i")));
        cd->v = REAL(R_do_slot(x, Rf_install("x")));
    } else if (TYPEOF(x) == VECSXP && Rf_inherits(x, "dpsco_mapped")) {
        mapped_view v;
        mapped_view_of(x, &v, 1);
        cd->layout = LAYOUT_MAPPED;
        cd->x = v.cm;
        cd->stride = v.stride;
        cd->rows = v.index;
        cd->n = v.n;
        cd->p = v.p;
        cd->bound = v.bound;
    } else {
        Rf_error("internal error: x must be a double matrix, a dgCMatrix or "
                 "a mapped file");
    }
}

/* A named list of the n values. */
static SEXP named_list(int n, const char **names, SEXP *vals)
{
    SEXP res = PROTECT(Rf_allocVector(VECSXP, n));
    SEXP nms = PROTECT(Rf_allocVector(STRSXP, n));
    for (int i = 0; i < n; i++) {
        SET_VECTOR_ELT(res, i, vals[i]);
        SET_STRING_ELT(nms, i, Rf_mkChar(names[i]));
    }
    Rf_setAttrib(res, R_NamesSymbol, nms);
    UNPROTECT(2);
    return res;
}

/* The private settings' passes over x (settings.c). */
SEXP dpsco_settings_pass(SEXP x, SEXP settings)
{
    static const char *entry = "dpsco_settings_pass";
    int task = task_of(settings, entry);
    const field_spec *spec = task == 5 ? pass_octave_fields
                             : task == 2 ? pass_rows_fields
                             : task == 3 ? pass_gram_fields
                             : task == 4 ? pass_clamp_fields
                             : task == 6 ? pass_moments_fields : NULL;
    if (spec == NULL)
        Rf_error("%s: unknown task %d", entry, task);
    settings_list s = settings_open(settings, entry, spec);
    column_data cd;
    column_data_from(&cd, x);
    cd.block = integer(&s, "block_rows");
    if (cd.block < 1)
        Rf_error("%s: block_rows must be positive", entry);
    int threads = integer(&s, "threads"), limit = dpsco_thread_limit();
    cd.threads = threads < limit ? threads : limit;
    if (cd.threads < 1)
        cd.threads = 1;
    if (task != 4 && !Rf_isNull(opt(&s, "rows")))
        column_data_rows(&cd, opt(&s, "rows"), entry);
    if (task == 5) {
        SEXP counts = PROTECT(Rf_allocMatrix(INTSXP, 64, cd.p));
        settings_octaves(&cd, INTEGER(counts));
        UNPROTECT(1);
        return counts;
    }
    if (task == 6) {
        /* the clamped moments, each column at its own bound */
        SEXP bound = field(&s, "bound");
        if (cd.layout != LAYOUT_DENSE || cd.bound != NULL ||
            Rf_length(bound) != cd.p)
            Rf_error("internal error: the moments take a dense x and one "
                     "bound per column");
        cd.bound = REAL(bound);
        SEXP out = PROTECT(Rf_allocMatrix(REALSXP, 2, cd.p));
        settings_moments(&cd, REAL(out));
        UNPROTECT(1);
        return out;
    }
    if (task == 4) {
        SEXP bound = field(&s, "bound");
        if (cd.layout != LAYOUT_DENSE || Rf_length(bound) != cd.p)
            Rf_error("internal error: the clamp takes a dense x and one "
                     "bound per column");
        SEXP out = PROTECT(Rf_allocMatrix(REALSXP, cd.n, cd.p));
        Rf_setAttrib(out, R_DimNamesSymbol,
                     Rf_getAttrib(x, R_DimNamesSymbol));
        settings_clamp(&cd, REAL(bound), REAL(out));
        UNPROTECT(1);
        return out;
    }
    int has_int = integer(&s, "intercept");
    if (task == 2) {
        SEXP resid = opt(&s, "residual");
        if (!Rf_isNull(resid) && Rf_length(resid) != cd.n)
            Rf_error("internal error: %d residuals for %d records",
                     Rf_length(resid), cd.n);
        int row_hist = integer(&s, "row_hist") != 0;
        int nhist = !Rf_isNull(resid) + row_hist;
        SEXP vals[3];
        vals[0] = PROTECT(Rf_allocVector(REALSXP, cd.n));
        vals[1] = PROTECT(Rf_allocVector(REALSXP, cd.n));
        vals[2] = PROTECT(Rf_allocMatrix(INTSXP, 64, nhist));
        settings_rows(&cd, has_int, integer(&s, "coordinate"),
                      Rf_isNull(resid) ? NULL : REAL(resid), row_hist,
                      REAL(vals[0]), REAL(vals[1]), INTEGER(vals[2]));
        const char *names[] = {"ss", "norm", "counts"};
        SEXP res = named_list(3, names, vals);
        UNPROTECT(3);
        return res;
    }
    SEXP w = field(&s, "weight");
    if (Rf_length(w) != cd.n)
        Rf_error("internal error: %d weights for %d records", Rf_length(w),
                 cd.n);
    int d = cd.p + has_int;
    SEXP h = PROTECT(Rf_allocMatrix(REALSXP, d, d));
    settings_gram(&cd, has_int, REAL(w), REAL(h));
    UNPROTECT(1);
    return h;
}

/* Each column of beta (nclass blocks of coefficients) projected onto the
 * bounded domain (domain.c): R's post-processing of a path whose
 * coefficients moved after the engine. */
SEXP dpsco_project_domain(SEXP beta, SEXP settings)
{
    settings_list s = settings_open(settings, "dpsco_project_domain",
                                    project_fields);
    int nclass = integer(&s, "nclass");
    if (!Rf_isMatrix(beta) || TYPEOF(beta) != REALSXP || nclass < 1 ||
        Rf_nrows(beta) % nclass != 0)
        Rf_error("internal error: dpsco_project_domain needs a double matrix "
                 "of class blocks");
    int dim = Rf_nrows(beta), ncol = Rf_ncols(beta), width = dim / nclass;
    path_domain dm;
    domain_from(&dm, &s, width, nclass);
    SEXP out = PROTECT(Rf_duplicate(beta));
    for (int l = 0; l < ncol; l++)
        domain_project(&dm, REAL(out) + (size_t) l * dim, width, nclass);
    UNPROTECT(1);
    return out;
}
