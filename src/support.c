/* The support rule's backward elimination for one lambda (R/support.R,
 * stepwise_support()): post-processing of released values, no data and no
 * noise here.  Among the coefficients that may go (`pen`) the one least
 * beyond its noise sd is dropped while its ratio is at most the level; the
 * coefficients left take over its part of the linear predictor through
 * the inverse curvature G on them (A_rr^-1 A_rj = -G_rj / G_jj), and
 * their noise covariance S and G are carried to the smaller set, O(k^2)
 * per step for k coefficients left. */
#include <math.h>
#include <string.h>
#include <R_ext/Utils.h>
#include "dpsco.h"

SEXP dpsco_eliminate(SEXP b_, SEXP pen_, SEXP level_, SEXP G_, SEXP S_)
{
    int k = Rf_length(b_);
    if (!Rf_isReal(b_) || !Rf_isLogical(pen_) || Rf_length(pen_) != k ||
        !Rf_isReal(level_) || Rf_length(level_) != 1 ||
        !Rf_isReal(G_) || Rf_length(G_) != (R_xlen_t) k * k ||
        !Rf_isReal(S_) || Rf_length(S_) != (R_xlen_t) k * k)
        Rf_error("dpsco_eliminate: bad arguments");
    double level = REAL(level_)[0];
    const int *pen = LOGICAL(pen_);
    SEXP out = PROTECT(Rf_duplicate(b_));
    double *b = REAL(out);
    size_t kk = (size_t) k * (size_t) k;
    double *G = (double *) R_alloc(kk > 0 ? kk : 1, sizeof(double));
    double *S = (double *) R_alloc(kk > 0 ? kk : 1, sizeof(double));
    if (kk) {
        memcpy(G, REAL(G_), kk * sizeof(double));
        memcpy(S, REAL(S_), kk * sizeof(double));
    }
    /* the coefficients still in the model, as indices */
    int *alive = (int *) R_alloc(k > 0 ? (size_t) k : 1, sizeof(int));
    double *u = (double *) R_alloc(k > 0 ? (size_t) k : 1, sizeof(double));
    double *sj = (double *) R_alloc(k > 0 ? (size_t) k : 1, sizeof(double));
    int m = k;
    for (int i = 0; i < k; i++)
        alive[i] = i;
    for (int step = 0; m > 0; step++) {
        if ((step & 63) == 63)
            R_CheckUserInterrupt();
        int pos = -1;
        double zmin = INFINITY;
        for (int a = 0; a < m; a++) {
            int i = alive[a];
            if (!pen[i])
                continue;
            double v = S[i + (size_t) i * k];
            /* a zero coefficient (0 / 0) is within any level */
            double z = b[i] == 0.0 ? 0.0 : fabs(b[i]) / sqrt(v > 0.0 ? v : 0.0);
            if (pos < 0 || z < zmin) {
                pos = a;
                zmin = z;
            }
        }
        if (pos < 0 || !(zmin <= level))
            break;
        int j = alive[pos];
        alive[pos] = alive[--m];
        double gjj = G[j + (size_t) j * k];
        double sjj = S[j + (size_t) j * k];
        double bj = b[j];
        b[j] = 0.0;
        for (int a = 0; a < m; a++) {
            int i = alive[a];
            /* a singular inverse (gjj 0) transfers nothing */
            u[a] = gjj > 0.0 ? -G[i + (size_t) j * k] / gjj : 0.0;
            sj[a] = S[i + (size_t) j * k];
            b[i] += u[a] * bj;
        }
        /* S <- S + u s' + s u' + S_jj u u' and G <- G + u G_j. (the
         * rank-one downdate G_rr - G_rj G_jr / G_jj) on the set left */
        for (int c = 0; c < m; c++) {
            int q = alive[c];
            double gjq = G[j + (size_t) q * k];
            double sq = sj[c] + sjj * u[c], uq = u[c];
            double *Gq = G + (size_t) q * k, *Sq = S + (size_t) q * k;
            for (int a = 0; a < m; a++) {
                int i = alive[a];
                Sq[i] += u[a] * sq + sj[a] * uq;
                Gq[i] += u[a] * gjq;
            }
        }
    }
    UNPROTECT(1);
    return out;
}
