/* Routine registration: .Call entry points only, no dynamic lookup. */
#include <R_ext/Rdynload.h>
#include "dpsco.h"

SEXP dpsco_fit(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_release(SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_project_domain(SEXP, SEXP);
SEXP dpsco_fw(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_oracle_mean(SEXP, SEXP, SEXP);
SEXP dpsco_catoni_mean(SEXP, SEXP);
SEXP dpsco_holland_h(SEXP, SEXP, SEXP);
SEXP dpsco_all_finite(SEXP);
SEXP dpsco_max_threads(void);
SEXP dpsco_mirror(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_one_pass(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_bun_steinke(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_map_file(SEXP, SEXP, SEXP);
SEXP dpsco_map_rows(SEXP, SEXP, SEXP);
SEXP dpsco_map_finite(SEXP, SEXP);
SEXP dpsco_secure_noise(SEXP, SEXP, SEXP);
SEXP dpsco_dg_sample(SEXP, SEXP, SEXP);
SEXP dpsco_secure_unif(SEXP);
SEXP dpsco_settings_pass(SEXP, SEXP);
SEXP dpsco_poisson_rows(SEXP, SEXP);
SEXP dpsco_pld(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_quad_lasso(SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_layout(SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_shard_pass(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP dpsco_shard_rows(SEXP);
SEXP dpsco_eliminate(SEXP, SEXP, SEXP, SEXP, SEXP);

/* The detour through void (*)(void), the generic function pointer type,
 * keeps -Wcast-function-type quiet. */
#define CALLDEF(name, n) {#name, (DL_FUNC) (void (*)(void)) &name, n}

static const R_CallMethodDef call_methods[] = {
    CALLDEF(dpsco_fit, 6),
    CALLDEF(dpsco_release, 4),
    CALLDEF(dpsco_project_domain, 2),
    CALLDEF(dpsco_fw, 5),
    CALLDEF(dpsco_oracle_mean, 3),
    CALLDEF(dpsco_catoni_mean, 2),
    CALLDEF(dpsco_holland_h, 3),
    CALLDEF(dpsco_all_finite, 1),
    CALLDEF(dpsco_max_threads, 0),
    CALLDEF(dpsco_mirror, 5),
    CALLDEF(dpsco_one_pass, 5),
    CALLDEF(dpsco_bun_steinke, 5),
    CALLDEF(dpsco_map_file, 3),
    CALLDEF(dpsco_map_rows, 3),
    CALLDEF(dpsco_map_finite, 2),
    CALLDEF(dpsco_secure_noise, 3),
    CALLDEF(dpsco_dg_sample, 3),
    CALLDEF(dpsco_secure_unif, 1),
    CALLDEF(dpsco_settings_pass, 2),
    CALLDEF(dpsco_poisson_rows, 2),
    CALLDEF(dpsco_pld, 7),
    CALLDEF(dpsco_quad_lasso, 4),
    CALLDEF(dpsco_layout, 4),
    CALLDEF(dpsco_shard_pass, 6),
    CALLDEF(dpsco_shard_rows, 1),
    CALLDEF(dpsco_eliminate, 5),
    {NULL, NULL, 0}
};

void R_init_dpsco(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
    catoni_init();
}
