/* Exact discrete Gaussian sampling (Canonne, Kamath and Steinke 2020,
 * "The discrete Gaussian for differential privacy", Algorithms 1-3) in
 * integer arithmetic, with random bits from the operating system
 * (csprng.c), and the secure release built on it: a value rounded to a
 * power-of-two grid plus discrete Gaussian noise on that grid.  No
 * floating-point number enters a sampling decision, so the output carries
 * no trace of floating-point rounding (Mironov 2012). */
#include <math.h>
#include <stdint.h>
#include "dpsco.h"

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;
#define U128_MAX (~(u128) 0)

/* Uniform on 0 .. d - 1 (d >= 1), by rejection from 128 random bits. */
static u128 uniform_below(u128 d)
{
    u128 limit = U128_MAX - U128_MAX % d, v;
    do {
        uint64_t w[2];
        secure_bytes(w, sizeof w);
        v = ((u128) w[0] << 64) | w[1];
    } while (v >= limit);
    return v % d;
}

/* Bernoulli(n / d), 0 <= n <= d. */
static int bern_frac(u128 n, u128 d)
{
    return uniform_below(d) < n;
}

/* Bernoulli(exp(-n / d)) for 0 <= n <= d: the first k whose
 * Bernoulli(n / (d k)) fails is odd with probability exp(-n / d). */
static int bern_exp_unit(u128 n, u128 d)
{
    u128 k = 1;
    for (;;) {
        if (d > U128_MAX / k)
            Rf_error("internal error: the exact Bernoulli sampler overflowed");
        if (!bern_frac(n, d * k))
            break;
        k++;
    }
    return (int) (k & 1);
}

/* Bernoulli(exp(-n / d)) for any n >= 0: exp(-1) per whole unit, then the
 * fraction. */
static int bern_exp(u128 n, u128 d)
{
    while (n > d) {
        if (!bern_exp_unit(1, 1))
            return 0;
        n -= d;
    }
    return bern_exp_unit(n, d);
}

/* Discrete Laplace with integer scale t >= 1: P(y) proportional to
 * exp(-|y| / t). */
static int64_t discrete_laplace(uint64_t t)
{
    for (;;) {
        uint64_t u = (uint64_t) uniform_below(t);
        if (!bern_exp(u, t))
            continue;
        uint64_t v = 0;
        while (bern_exp_unit(1, 1))
            v++;
        int neg = bern_frac(1, 2);
        if (neg && u == 0 && v == 0)
            continue;
        if (v > (uint64_t) (INT64_MAX / 2) / t)
            Rf_error("internal error: discrete Laplace draw out of range");
        int64_t y = (int64_t) (u + t * v);
        return neg ? -y : y;
    }
}

/* Discrete Gaussian with sigma^2 = num / den: a discrete Laplace candidate
 * of scale t = floor(sigma) + 1, accepted with probability
 * exp(-(|y| - sigma^2 / t)^2 / (2 sigma^2))
 *   = exp(-(|y| t den - num)^2 / (2 num t^2 den)). */
static int64_t discrete_gaussian(uint64_t num, uint64_t den)
{
    uint64_t t = (uint64_t) floor(sqrt((double) num / (double) den));
    /* exact floor(sqrt(num / den)): the largest t with t^2 den <= num */
    while (t > 0 && (u128) t * t * den > num)
        t--;
    while ((u128) (t + 1) * (t + 1) * den <= num)
        t++;
    t++;
    u128 d = (u128) 2 * num * den;
    /* sigma is the noise sd in grid units, set by the budget and the
     * sensitivity (public settings or released values), never by the data
     * themselves; the releases' sigma^2 (below 2^51) is far from this */
    if (d > U128_MAX / ((u128) t * t))
        Rf_error("secure = TRUE: the noise variance is too large for the "
                 "exact discrete Gaussian sampler; it is set by epsilon, "
                 "delta and the sensitivity (a larger epsilon lowers it)");
    d *= (u128) t * t;
    for (;;) {
        int64_t y = discrete_laplace(t);
        uint64_t c = (uint64_t) (y < 0 ? -y : y);
        /* |c t den - num| below 2^63 unless the candidate is absurdly far
         * out (a Laplace tail of probability below exp(-2^30)) */
        u128 ctd = (u128) c * t * den;
        u128 diff = ctd > num ? ctd - num : num - ctd;
        if (diff >> 63)
            Rf_error("internal error: discrete Gaussian candidate out of range");
        if (bern_exp(diff * diff, d))
            return y;
    }
}

static int is_power_of_two(double g)
{
    int e;
    return g > 0 && R_FINITE(g) && frexp(g, &e) == 0.5;
}

/* The largest grid value of a release (before noise) and of its output:
 * integers up to 2^53 are exact doubles. */
#define GRID_MAX 4503599627370496.0   /* 2^52 */
#define OUT_MAX ((int64_t) 1 << 53)

/* The secure release: v[j] <- grid (clamp(round(v[j] / grid)) + Y_j), Y_j
 * discrete Gaussian with sigma^2 the integer ceil((sd / grid)^2) + 1 (never
 * below (sd / grid)^2: more noise is always safe).  Rounding is half away
 * from zero.  The grid is a power of two, so v / grid and the output are
 * exact.
 *
 * A value beyond +-2^52 grid steps (about 1.3e8 to 2.7e8 noise sds, +-Inf
 * included) saturates at that limit instead of stopping: whether a value
 * gets there depends on the data (e.g. the curvature's diagonal at very
 * large n and epsilon), and an error would tell.  The clamp is the same
 * map for every input and is 1-Lipschitz (|clamp(a) - clamp(b)| <=
 * |a - b|), so neighbours' clamped values are no farther apart than their
 * rounded ones and the release keeps its sensitivity. */
void secure_noise(double *v, int d, double sd, double grid)
{
    if (!is_power_of_two(grid))
        Rf_error("the secure release's grid must be a power of two");
    double s = sd / grid;
    if (!(s > 0) || !(s < 1e9))
        Rf_error("the secure release needs 0 < sd / grid < 1e9");
    uint64_t s2 = (uint64_t) ceil(s * s) + 1;
    for (int j = 0; j < d; j++) {
        if (ISNAN(v[j]))
            Rf_error("the secure release got a value that is not a number");
        double r = round(v[j] / grid);
        r = r > GRID_MAX ? GRID_MAX : r < -GRID_MAX ? -GRID_MAX : r;
        int64_t out = (int64_t) r + discrete_gaussian(s2, 1);
        /* post-processing: the output stays an exact multiple of the grid
         * (reached only by a noise draw of about 2^27 sds) */
        out = out > OUT_MAX ? OUT_MAX : out < -OUT_MAX ? -OUT_MAX : out;
        v[j] = (double) out * grid;
        if ((j & 1023) == 1023)
            R_CheckUserInterrupt();
    }
}

SEXP dpsco_dg_sample(SEXP n, SEXP num, SEXP den)
{
    double a = Rf_asReal(num), b = Rf_asReal(den);
    if (!(a >= 1 && b >= 1 && a < 4611686018427387904.0 &&
          b < 4611686018427387904.0 && a == floor(a) && b == floor(b)))
        Rf_error("sigma^2 must be num / den with whole num, den in [1, 2^62)");
    R_xlen_t len = (R_xlen_t) Rf_asReal(n);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, len));
    for (R_xlen_t i = 0; i < len; i++) {
        REAL(out)[i] = (double) discrete_gaussian((uint64_t) a, (uint64_t) b);
        if ((i & 4095) == 4095)
            R_CheckUserInterrupt();
    }
    UNPROTECT(1);
    return out;
}

#else  /* no 128-bit integers */

static void no_int128(void)
{
    Rf_error("secure = TRUE needs 128-bit integer arithmetic, which this "
             "compiler does not provide");
}

void secure_noise(double *v, int d, double sd, double grid)
{
    (void) v; (void) d; (void) sd; (void) grid;
    no_int128();
}

SEXP dpsco_dg_sample(SEXP n, SEXP num, SEXP den)
{
    (void) n; (void) num; (void) den;
    no_int128();
    return R_NilValue;
}
#endif

SEXP dpsco_secure_noise(SEXP values, SEXP sd, SEXP grid)
{
    SEXP v = PROTECT(Rf_coerceVector(values, REALSXP));
    SEXP out = PROTECT(Rf_duplicate(v));
    secure_noise(REAL(out), Rf_length(out), Rf_asReal(sd), Rf_asReal(grid));
    UNPROTECT(2);
    return out;
}
