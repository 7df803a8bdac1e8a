/* .Call entry points: unpack R arguments (already validated in R), call the
 * engine, pack the results.  No numerics live here. */
#include <string.h>
#include <Rmath.h>
#include "dpsco.h"

static SEXP field_or_null(SEXP list, const char *name)
{
    SEXP names = Rf_getAttrib(list, R_NamesSymbol);
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0)
            return VECTOR_ELT(list, i);
    return R_NilValue;
}

static SEXP field(SEXP list, const char *name)
{
    SEXP v = field_or_null(list, name);
    if (Rf_isNull(v))
        Rf_error("internal error: setting '%s' is missing", name);
    return v;
}

static double num(SEXP list, const char *name)
{
    return Rf_asReal(field(list, name));
}

static int integer(SEXP list, const char *name)
{
    return Rf_asInteger(field(list, name));
}

/* The secure release's grid (R's secure_gaussian()); absent or 0: R's
 * generator. */
static double noise_grid_from(SEXP settings)
{
    SEXP g = field_or_null(settings, "noise_grid");
    return Rf_isNull(g) ? 0.0 : Rf_asReal(g);
}

static void setup_from(oracle_state *o, SEXP s, int p, int has_int,
                       int nchunks)
{
    SEXP exact = field_or_null(s, "exact");
    oracle_setup(o, integer(s, "oracle"), p, has_int, num(s, "m"),
                 num(s, "clip"), num(s, "rho"), integer(s, "k"), num(s, "s"),
                 num(s, "nu"), Rf_isNull(exact) ? 0 : Rf_asInteger(exact),
                 nchunks);
}

/* The engine's records of x, which R passes as a double matrix, a
 * dgCMatrix, or a file-backed matrix (list(ptr = the mapping, bound =
 * NULL or the per-column bounds)); n and p are set from it. */
static void records_from(records *rec, SEXP x, int has_int, int threads,
                         int *n, int *p)
{
    if (Rf_isMatrix(x) && TYPEOF(x) == REALSXP) {
        *n = Rf_nrows(x);
        *p = Rf_ncols(x);
        /* options(dpsco.sparse_density =): the largest share of non-zeros
         * stored sparse (0: always row-major, as the tests' reference) */
        SEXP opt = Rf_GetOption1(Rf_install("dpsco.sparse_density"));
        double density = Rf_isNull(opt) ? 0.2 : Rf_asReal(opt);
        records_dense(rec, REAL(x), *n, *p, has_int,
                      R_FINITE(density) ? density : 0.2);
    } else if (Rf_isS4(x) && Rf_inherits(x, "dgCMatrix")) {
        SEXP dim = R_do_slot(x, Rf_install("Dim"));
        *n = INTEGER(dim)[0];
        *p = INTEGER(dim)[1];
        records_sparse(rec, *n, *p, has_int,
                       INTEGER(R_do_slot(x, Rf_install("p"))),
                       INTEGER(R_do_slot(x, Rf_install("i"))),
                       REAL(R_do_slot(x, Rf_install("x"))));
    } else if (TYPEOF(x) == VECSXP && Rf_inherits(x, "dpsco_mapped")) {
        SEXP bound = field_or_null(x, "bound");
        const double *cm = mapped_values(field(x, "ptr"), n, p);
        if (!Rf_isNull(bound) && Rf_length(bound) != *p)
            Rf_error("internal error: %d bounds for %d columns",
                     Rf_length(bound), *p);
        records_mapped(rec, cm, *n, *p, has_int,
                       Rf_isNull(bound) ? NULL : REAL(bound), threads);
    } else {
        Rf_error("internal error: x must be a double matrix, a dgCMatrix or "
                 "a mapped file");
    }
}

/* The problem shared by dpsco_fit and dpsco_release: the records of x and
 * the settings of the loop. */
static void problem_from(spgd_problem *pr, SEXP x, SEXP y, SEXP settings)
{
    int n, p;
    int has_int = integer(settings, "intercept");
    records_from(&pr->rec, x, has_int, integer(settings, "threads"), &n, &p);
    if (Rf_length(y) != n)
        Rf_error("internal error: y has %d values for %d records",
                 Rf_length(y), n);
    pr->y = REAL(y);
    pr->n = n;
    pr->p = p;
    pr->has_int = has_int;
    pr->family.kind = integer(settings, "family");
    SEXP tau = field_or_null(settings, "tau");
    SEXP bw = field_or_null(settings, "bandwidth");
    SEXP kern = field_or_null(settings, "kernel");
    pr->family.tau = Rf_isNull(tau) ? 0.5 : Rf_asReal(tau);
    pr->family.h = Rf_isNull(bw) ? 1.0 : Rf_asReal(bw);
    pr->family.kernel = Rf_isNull(kern) ? KERNEL_GAUSSIAN : Rf_asInteger(kern);
    /* the sampling rate: a public number (the expected batch size over the
     * public n), never a count of these records */
    pr->q = num(settings, "rate");
    pr->noise_sd = num(settings, "noise_sd");
    pr->noise_grid = noise_grid_from(settings);
    int threads = integer(settings, "threads");
    int limit = dpsco_thread_limit();
    pr->max_threads = threads < limit ? threads : limit;
    SEXP offset = field_or_null(settings, "offset");
    pr->offset = Rf_isNull(offset) ? 0.0 : Rf_asReal(offset);
}

SEXP dpsco_fit(SEXP x, SEXP y, SEXP settings, SEXP lambda, SEXP beta0,
               SEXP trace_at)
{
    spgd_problem pr;
    problem_from(&pr, x, y, settings);
    int dim = pr.p + pr.has_int, nlambda = Rf_length(lambda);
    pr.steps = integer(settings, "steps");
    pr.step0 = num(settings, "step_size");
    pr.sqrt_schedule = integer(settings, "sqrt_schedule");
    pr.last_iterate = integer(settings, "last_iterate");
    pr.tail_average = integer(settings, "tail_average");
    pr.alpha = num(settings, "alpha");
    pr.pf = REAL(field(settings, "penalty_factor"));
    pr.trace_at = INTEGER(trace_at);
    pr.ntrace = Rf_length(trace_at);
    SEXP disjoint = field_or_null(settings, "disjoint");
    pr.disjoint = Rf_isNull(disjoint) ? 0 : Rf_asInteger(disjoint);

    oracle_state o;
    setup_from(&o, settings, pr.p, pr.has_int, integer(settings, "threads"));

    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, dim, nlambda));
    SEXP tr = R_NilValue;
    if (pr.ntrace > 0)
        tr = Rf_alloc3DArray(REALSXP, dim, pr.ntrace, nlambda);
    PROTECT(tr);
    SEXP curv = field_or_null(settings, "curvature");
    GetRNGstate();
    if (Rf_isNull(curv)) {
        spgd_path(&pr, &o, REAL(lambda), nlambda, REAL(beta0), REAL(out),
                  pr.ntrace > 0 ? REAL(tr) : NULL);
    } else {
        quad_model qm = {dim, pr.has_int, REAL(curv), pr.step0,
                         num(settings, "memory"), pr.alpha, pr.pf};
        SEXP g1 = field_or_null(settings, "first_gradient");
        newton_path(&pr, &o, &qm, REAL(lambda), nlambda, REAL(beta0),
                    Rf_isNull(g1) ? NULL : REAL(g1), REAL(out),
                    pr.ntrace > 0 ? REAL(tr) : NULL);
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
    spgd_problem pr;
    problem_from(&pr, x, y, settings);
    pr.steps = integer(settings, "steps");
    int dim = pr.p + pr.has_int, nradius = Rf_length(radius);
    oracle_state o;
    setup_from(&o, settings, pr.p, pr.has_int, integer(settings, "threads"));
    fw_setup fs = {num(settings, "eps0"), num(settings, "score_sensitivity"),
                   integer(settings, "chunked")};
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, dim, nradius));
    GetRNGstate();
    fw_path(&pr, &o, &fs, REAL(radius), nradius, REAL(beta0), REAL(out));
    PutRNGstate();
    UNPROTECT(1);
    return out;
}

/* A per-radius setting: a double (or integer) vector of length nr. */
static const double *per_radius(SEXP s, const char *name, int nr)
{
    SEXP v = field(s, name);
    if (TYPEOF(v) != REALSXP || XLENGTH(v) != nr)
        Rf_error("internal error: setting '%s' must be %d doubles", name, nr);
    return REAL(v);
}

static SEXP map_task(SEXP settings, SEXP v)
{
    int d = Rf_length(v);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, d));
    double s = num(settings, "s");
    if (integer(settings, "inverse"))
        mirror_grad_inverse(REAL(v), d, s, REAL(out));
    else
        mirror_grad(REAL(v), d, s, REAL(out));
    UNPROTECT(1);
    return out;
}

static SEXP noise_task(SEXP settings)
{
    int d = integer(settings, "dim"), k = integer(settings, "draws");
    double r = num(settings, "r"), sigma = num(settings, "sigma");
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
    int task = integer(settings, "task");
    if (task == TASK_MAP)
        return map_task(settings, beta0);
    if (task == TASK_NOISE)
        return noise_task(settings);

    spgd_problem pr;
    problem_from(&pr, x, y, settings);  /* rate 1, noise_sd 0 (added below) */
    int n = pr.n, p = pr.p, has_int = pr.has_int;
    int dim = p + has_int, nr = Rf_length(radius);
    int threads = integer(settings, "threads");
    double q = num(settings, "q");
    if (q != 2.0)
        mirror_dual_norms(&pr.rec, n, p, has_int, q, pr.max_threads);

    mirror_plan mp;
    mp.shuffled = integer(settings, "shuffled");
    mp.nr = nr;
    mp.s = num(settings, "s");
    mp.r = mp.s / (mp.s - 1.0);
    mp.radius = REAL(radius);
    SEXP steps = field(settings, "steps");
    if (TYPEOF(steps) != INTSXP || XLENGTH(steps) != nr)
        Rf_error("internal error: setting 'steps' must be %d integers", nr);
    mp.steps = INTEGER(steps);
    mp.clip = per_radius(settings, "clip", nr);
    mp.sigma = per_radius(settings, "sigma", nr);
    mp.b = per_radius(settings, "b", nr);
    mp.a = per_radius(settings, "a", nr);

    oracle_state o;
    /* the public divisor m (the public n), not the number of records */
    oracle_setup(&o, ORACLE_CLIP, p, has_int, num(settings, "m"), mp.clip[0],
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
 * the clip level.  With x NULL: the projection of beta0 on the ball of
 * radius[0] and the ball of radius[1] around y (project_two_balls), for
 * the tests. */
SEXP dpsco_one_pass(SEXP x, SEXP y, SEXP settings, SEXP radius, SEXP beta0)
{
    if (Rf_isNull(x)) {
        int d = Rf_length(beta0);
        SEXP w = PROTECT(Rf_duplicate(beta0));
        project_two_balls(REAL(w), d, REAL(radius)[0], REAL(y),
                          REAL(radius)[1]);
        UNPROTECT(1);
        return w;
    }
    spgd_problem pr;
    problem_from(&pr, x, y, settings);  /* noise_sd unused: per phase below */
    int dim = pr.p + pr.has_int, nr = Rf_length(radius);
    one_pass_plan pl;
    pl.method = integer(settings, "method");
    pl.nr = nr;
    pl.radius = REAL(radius);
    SEXP steps = field(settings, "steps");
    pl.nphase = Rf_length(steps);
    if (TYPEOF(steps) != INTSXP || pl.nphase < 1)
        Rf_error("internal error: 'steps' must be integers per phase");
    pl.steps = INTEGER(steps);
    pl.size = per_radius(settings, "batch", pl.nphase);
    for (int i = 0; i < pl.nphase; i++)
        if (!(pl.size[i] > 0.0) || pl.steps[i] < 1)
            Rf_error("internal error: phase %d has expected size %g and %d "
                     "steps", i + 1, pl.size[i], pl.steps[i]);
    pl.noise_sd = per_radius(settings, "noise_sd", pl.nphase);
    int per = pl.method == ONE_PASS_ACSA ? 1
              : pl.method == ONE_PASS_SGD ? pl.steps[0] : pl.nphase;
    pl.step = per_radius(settings, "step", per * nr);
    pl.weight = pl.method == ONE_PASS_ACSA ? NULL
                : per_radius(settings, "weight", per * nr);
    pl.ridge = num(settings, "ridge");
    oracle_state o;
    oracle_setup(&o, ORACLE_CLIP, pr.p, pr.has_int, pl.size[0],
                 num(settings, "clip"), 0.0, 1, 1.0, 1.0, 1,
                 integer(settings, "threads"));
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
    spgd_problem pr;
    problem_from(&pr, x, y, settings);
    int dim = pr.p + pr.has_int;
    oracle_state o;
    setup_from(&o, settings, pr.p, pr.has_int, integer(settings, "threads"));
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

/* Rows of g copied (and normed) per block: small enough to stay in cache,
 * so a release makes no copy of g. */
#define RELEASE_BLOCK_VALUES 4096

/* One release of an oracle on the rows of g (every row in the batch), with
 * optional Gaussian noise.  'labels' gives kamath's group of each row
 * (0-based); NULL draws them from R's generator. */
SEXP dpsco_oracle_mean(SEXP g, SEXP settings, SEXP labels)
{
    int n = Rf_nrows(g), dim = Rf_ncols(g);
    int block = dim < RELEASE_BLOCK_VALUES ? RELEASE_BLOCK_VALUES / dim : 1;
    records rec;
    records_alloc(&rec, block, dim);
    oracle_state o;
    setup_from(&o, settings, dim, 0, 1);
    double sd = num(settings, "noise_sd"), grid = noise_grid_from(settings);
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
    double sqrt_nu = sqrt(Rf_asReal(nu));
    holland_table tb;
    int use_table = Rf_asLogical(tabulated) == TRUE &&
                    holland_table_build(&tb, Rf_asReal(nu));
    SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
    for (R_xlen_t i = 0; i < n; i++)
        REAL(out)[i] = use_table ? holland_table_eval(&tb, REAL(a)[i])
                                 : holland_h(REAL(a)[i], sqrt_nu);
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
    int n = Rf_nrows(x), p = Rf_ncols(x);
    int m = integer(settings, "trim");
    double decay = num(settings, "decay"), s = num(settings, "s");
    int noise = integer(settings, "noise");
    const double *lo = REAL(field(settings, "lo"));
    const double *hi = REAL(field(settings, "hi"));
    if (integer(settings, "task") == 1) {
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
    bp.has_int = integer(settings, "intercept");
    bp.family.kind = integer(settings, "family");
    SEXP tau = field_or_null(settings, "tau");
    SEXP bw = field_or_null(settings, "bandwidth");
    SEXP kern = field_or_null(settings, "kernel");
    bp.family.tau = Rf_isNull(tau) ? 0.5 : Rf_asReal(tau);
    bp.family.h = Rf_isNull(bw) ? 1.0 : Rf_asReal(bw);
    bp.family.kernel = Rf_isNull(kern) ? KERNEL_GAUSSIAN : Rf_asInteger(kern);
    bp.offset = num(settings, "offset");
    bp.steps = integer(settings, "steps");
    bp.step = REAL(field(settings, "step"));
    bp.m = m;
    bp.decay = decay;
    bp.s = s;
    bp.noise = noise;
    int threads = integer(settings, "threads"), limit = dpsco_thread_limit();
    bp.threads = threads < limit ? threads : limit;
    if (bp.threads < 1)
        bp.threads = 1;
    int dim = p + bp.has_int, nr = Rf_length(radius);
    double *beta = (double *) R_alloc((size_t) dim, sizeof(double));
    memcpy(beta, REAL(beta0), (size_t) dim * sizeof(double));
    int want_trace = integer(settings, "trace");
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
