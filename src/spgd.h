/* Declarations private to the penalised-path optimisers: spgd.c (noisy
 * proximal SGD), newton.c (its preconditioned sibling) and quad_lasso.c,
 * plus entry.c, which fills the schedule.  The other optimisers share only
 * dpsco.h's fit_problem with them. */
#ifndef DPSCO_SPGD_H
#define DPSCO_SPGD_H

#include "dpsco.h"

/* The bounded domain every iterate is projected onto (domain.c): per
 * class block of `width` coefficients, (b - centre)' metric (b - centre)
 * <= radius^2, metric a width x width matrix (NULL: no bound), centre
 * nclass blocks and radius nclass values; `work` holds one block. */
typedef struct {
    const double *metric, *centre, *radius;
    double *work;
} path_domain;

void domain_project(const path_domain *dm, double *beta, int width,
                    int nclass);

/* A penalised path's steps, step sizes, penalty and output rule. */
typedef struct {
    int steps;
    double step0;
    int sqrt_schedule;  /* gamma_t = step0 / sqrt(t) instead of step0 */
    int last_iterate;   /* output beta_T instead of the iterate average */
    int tail_average;   /* average only the iterates after step T / 2 */
    path_penalty pen;
    const int *trace_at; /* sorted steps (1-based) to record */
    int ntrace;
    int disjoint;       /* one pass per lambda: each record joins block
                         * floor(u / q) (u uniform, its own draw) when
                         * below steps, and step t takes block t - 1 */
    SEXP progress;      /* an R function called with the number of lambdas
                         * done after each one, or R_NilValue */
    path_domain domain; /* the bound on every iterate */
} spgd_schedule;

void spgd_path(const fit_problem *pr, const spgd_schedule *sc,
               oracle_state *o, const double *lambda, int nlambda,
               double *beta0, double *out, double *trace);
void path_progress(const spgd_schedule *sc, int done);
void path_record(const spgd_schedule *sc, int dim, const double *beta,
                 double *avg, int t, int tail_from, int l, int *next_trace,
                 double *trace);

/* ---- quad_lasso.c / newton.c ------------------------------------------ */
typedef struct {
    int dim, has_int;
    const double *A;    /* dim x dim released curvature, positive definite */
    double eta;         /* step: the model's curvature is A / eta */
    double memory;      /* weight of the carried gradient estimate */
    const path_penalty *pen;
    int nclass;         /* multinomial: K blocks of dim coefficients ... */
    const double *S;    /* ... whose model curvature is S (x) A / eta, S
                         * the K x K class matrix (NULL: one block) */
} quad_model;

void quad_lasso(const quad_model *qm, const double *g, const double *c,
                double lambda, double *b, double *s);
void quad_lasso_classes(const quad_model *qm, const double *g,
                        const double *c, double lambda, double *b, double *s);
void newton_path(const fit_problem *pr, const spgd_schedule *sc,
                 oracle_state *o, const quad_model *qm, const double *lambda,
                 int nlambda, double *beta0, const double *g_first,
                 double *out, double *trace);

#endif
