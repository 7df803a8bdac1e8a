/* Declarations private to the oracles: oracle.c dispatches to the
 * per-oracle files (oracle_clip.c, oracle_kamath.c, oracle_holland.c),
 * which share the Holland table (holland_table.c) and the Catoni-Giulini
 * contribution (catoni.c).  Everything else reaches an oracle through
 * oracle_setup(), oracle_add*() and oracle_finish() in dpsco.h. */
#ifndef DPSCO_ORACLE_INTERNAL_H
#define DPSCO_ORACLE_INTERNAL_H

#include "dpsco.h"

/* Inner loops over the features of one record are marked for SIMD when the
 * compiler has OpenMP: "omp simd" lifts the cost model that keeps -O2 from
 * vectorising loops of unknown length.  Each element is still computed by
 * the same operations, so the results do not change. */
#ifdef _OPENMP
#define DPSCO_SIMD _Pragma("omp simd")
#else
#define DPSCO_SIMD
#endif

/* With GCC on x86-64 Linux the oracle loops are also compiled for AVX2 and
 * the copy to run is picked once, when the library loads.  FMA is not
 * enabled, so both copies perform the same IEEE operations per element and
 * a fit has the same bits on every x86-64 processor. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define DPSCO_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef DPSCO_CLONES
#define DPSCO_CLONES
#endif

/* ---- per-oracle contributions (oracle.c dispatches) ----------------- */
void clip_add(const oracle_state *o, double *acc, double r, const double *x,
              double norm);
void kamath_add(const oracle_state *o, double *acc, double r, const double *x,
                double xmax);
void kamath_finish(oracle_state *o, double *est);
void holland_add(const oracle_state *o, double *acc, double r,
                 const double *x, double xmax);
void clip_add_sparse(const oracle_state *o, double *acc, double r,
                     const double *v, const int *j, int nz, double norm);
void kamath_add_sparse(const oracle_state *o, double *acc, double r,
                       const double *v, const int *j, int nz, double xmax);
void holland_add_sparse(const oracle_state *o, double *acc, double r,
                        const double *v, const int *j, int nz);
double clip_weight(const oracle_state *o, double r, double norm);
void kamath_add_block(const oracle_state *o, double *acc, const double *r,
                      const double *vals, size_t ld, int m,
                      const int *label);
void holland_add_block(const oracle_state *o, double *acc, const double *r,
                       const double *vals, size_t ld, int m);

/* ---- catoni.c ------------------------------------------------------- */
double holland_h(double a, double sqrt_nu);

/* ---- holland_table.c ------------------------------------------------ */
struct holland_table {
    double sqrt_nu, cubic, a_poly;
    int n_mid, n_tail;
    double step, inv_step, tstep, inv_tstep;
    double *mid, *tail;
};

int holland_table_build(holland_table *tb, double nu);

#define HOLLAND_A_MID 8.0
#define HOLLAND_PSI_MAX (2.0 * 1.41421356237309504880 / 3.0)

/* Cubic through (-1, v0), (0, v1), (1, v2), (2, v3), evaluated at f. */
static inline double lagrange4(const double *v, double f)
{
    double fm1 = f - 1.0, fm2 = f - 2.0, fp1 = f + 1.0, ffm1 = f * fm1;
    return (v[3] * fp1 * ffm1 - v[0] * ffm1 * fm2) * (1.0 / 6.0)
           + (v[1] * fm1 - v[2] * f) * fp1 * fm2 * 0.5;
}

/* |a| above the exact cubic region: interpolation, then the clamp. */
static inline double holland_table_eval_far(const holland_table *tb,
                                             double a)
{
    double x = fabs(a), u, f;
    const double *v;
    if (x <= HOLLAND_A_MID) {
        u = x * tb->inv_step;
        int i = (int) u;
        v = tb->mid + i;            /* grid points i-1 .. i+2 */
        f = u - i;
    } else {
        u = HOLLAND_A_MID / x * tb->inv_tstep;
        int i = (int) u;
        /* next to t = 0 the stencil is points 0..3 (f - 1 in [-1, 0)) */
        v = i == 0 ? tb->tail : tb->tail + i - 1;
        f = i == 0 ? u - 1.0 : u - i;
    }
    double h = lagrange4(v, f);
    if (h > HOLLAND_PSI_MAX)
        h = HOLLAND_PSI_MAX;
    if (h > x)  /* |h(a)| <= |a| (holland_h()) */
        h = x;
    return a < 0 ? -h : h;
}

/* The table look-up (holland_table.c explains the regions).  The common
 * case, a small |a| where h is an exact cubic, is inline because it runs
 * once per gradient coordinate of every sampled record. */
static inline double holland_table_eval(const holland_table *tb, double a)
{
    double x = a < 0 ? -a : a;
    if (x > tb->a_poly)
        return holland_table_eval_far(tb, a);
    return a * (1.0 - x * x * tb->cubic);
}

#endif
