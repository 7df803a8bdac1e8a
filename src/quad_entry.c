/* .Call entry to quad_lasso(): the elastic-net minimiser of a quadratic
 * model, for the converged non-private baseline (R/baseline.R), which
 * passes the exact gradient and Hessian of the full-data loss.  No data
 * and no noise here: argument unpacking only. */
#include "dpsco.h"
#include "spgd.h"

SEXP dpsco_quad_lasso(SEXP A, SEXP g, SEXP c, SEXP opts)
{
    int dim = Rf_length(g);
    if (!Rf_isReal(A) || !Rf_isReal(g) || !Rf_isReal(c) ||
        Rf_length(c) != dim || Rf_length(A) != (R_xlen_t) dim * dim ||
        TYPEOF(opts) != REALSXP || Rf_length(opts) < 3)
        Rf_error("dpsco_quad_lasso: bad arguments");
    const double *o = REAL(opts);
    int has_int = o[2] != 0.0;
    /* opts: lambda, alpha, intercept, the penalty factors and, optionally,
     * the lower and then the upper limits of the penalised coordinates */
    int np = dim - has_int;
    int limits = Rf_length(opts) == 3 + 3 * np;
    if (Rf_length(opts) != 3 + np && !limits)
        Rf_error("dpsco_quad_lasso: bad penalty factors");
    quad_model qm;
    qm.nclass = 1;
    qm.S = NULL;
    qm.dim = dim;
    qm.has_int = has_int;
    qm.A = REAL(A);
    qm.eta = 1.0;
    qm.memory = 0.0;
    path_penalty pen = {o[1], o + 3, limits ? o + 3 + np : NULL,
                        limits ? o + 3 + 2 * np : NULL, 0};
    qm.pen = &pen;
    SEXP b = PROTECT(Rf_allocVector(REALSXP, dim));
    double *s = (double *) R_alloc(dim > 0 ? (size_t) dim : 1, sizeof(double));
    quad_lasso(&qm, REAL(g), REAL(c), o[0], REAL(b), s);
    UNPROTECT(1);
    return b;
}
