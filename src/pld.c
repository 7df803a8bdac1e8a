/* The privacy loss distribution accountant's arithmetic (R/pld.R explains
 * the mathematics and the pessimistic discretisation): one call
 * discretises every component in both directions, composes them by FFT
 * and returns epsilon at a delta, or delta at an epsilon.
 *
 * It mirrors the R code it replaced operation for operation (Rmath's
 * pnorm, R_pow, long double accumulation where R's sum(), cumsum() and
 * prod() use it, R's integer complex powers); only the FFT is its own, so
 * results agree with the R code to rounding (about 1e-13 in epsilon).  Its
 * reason to exist is speed: a noise calibration evaluates the accountant
 * a dozen times. */
#include <math.h>
#include <Rmath.h>
#include "dpsco.h"

#define PLD_MAX_BINS 1e6
#define PLD_MAX_FFT 2097152.0   /* 2^21 */

typedef struct {
    double lo;      /* loss index of p[0] */
    int len;
    double *p;      /* masses at indices lo, lo + 1, ... */
    double inf;     /* mass at +Inf */
} pld_disc;

typedef struct {
    double A;       /* loss index of f[0]; f sorted by loss */
    int N;
    double *f;
    double inf, tail, h;
} pld_comp;

/* NaN-propagating min and max, as R's min() and max() */
static double rmin(double a, double b)
{
    if (ISNAN(a) || ISNAN(b)) return a + b;
    return a < b ? a : b;
}

static double rmax(double a, double b)
{
    if (ISNAN(a) || ISNAN(b)) return a + b;
    return a > b ? a : b;
}

/* P(L > l) and Q(L > l) of one pair at the loss l. */
static void pld_surv(double z, double q, int add, double l, double *P, double *Q)
{
    if (q >= 1) {
        double mu = 1 / z;
        *P = pnorm((l - mu * mu / 2) / mu, 0.0, 1.0, 0, 0);
        *Q = pnorm((l + mu * mu / 2) / mu, 0.0, 1.0, 0, 0);
        return;
    }
    double l1q = log1p(-q), x = R_NegInf;
    if (!add) {
        /* L > l  <=>  x > x(l); L > log(1 - q) always */
        if (l > l1q) x = z * z * (log(expm1(l - l1q)) + l1q - log(q)) + 0.5;
        *P = (1 - q) * pnorm(x / z, 0.0, 1.0, 0, 0) +
            q * pnorm((x - 1) / z, 0.0, 1.0, 0, 0);
        *Q = pnorm(x / z, 0.0, 1.0, 0, 0);
    } else {
        /* L > l  <=>  x < x(-l); L < -log(1 - q) */
        if (-l > l1q) x = z * z * (log(expm1(-l - l1q)) + l1q - log(q)) + 0.5;
        *P = pnorm(x / z, 0.0, 1.0, 1, 0);
        *Q = (1 - q) * pnorm(x / z, 0.0, 1.0, 1, 0) +
            q * pnorm((x - 1) / z, 0.0, 1.0, 1, 0);
    }
}

/* The grid range of one pair: where the P-mass beyond is below ~1e-25. */
static void pld_range(double z, double q, int add, double *a, double *b)
{
    if (q >= 1) {
        double mu = 1 / z;
        *a = mu * mu / 2 - 11 * mu;
        *b = mu * mu / 2 + 11 * mu;
        return;
    }
    double l1q = log1p(-q);
    if (!add) {
        *a = l1q;
        *b = log1p(q * expm1((2 * (1 + 11 * z) - 1) / (2 * (z * z))));
    } else {
        *a = -log1p(q * expm1((2 * (11 * z) - 1) / (2 * (z * z))));
        *b = -l1q;
    }
}

/* The pessimistic discretisation of one pair on the grid h; 0 where it
 * would need more than PLD_MAX_BINS points. */
static int pld_discrete(double z, double q, int add, double h, pld_disc *d)
{
    double a, b;
    pld_range(z, q, add, &a, &b);
    double ka = floor(a / h), kb = ceil(b / h);
    if (!R_FINITE(kb - ka) || kb - ka > PLD_MAX_BINS) return 0;
    int K = (int) (kb - ka) + 1;
    double *sP = (double *) R_alloc((size_t) K, sizeof(double));
    double *sQ = (double *) R_alloc((size_t) K, sizeof(double));
    double *mass = (double *) R_alloc((size_t) K, sizeof(double));
    for (int j = 0; j < K; j++) pld_surv(z, q, add, (ka + j) * h, sP + j, sQ + j);
    /* each bin's P-mass split between its two ends, keeping its Q-mass;
     * mass[j] = low_j + (p - low)_{j-1}, summed in that order */
    double up = 0;
    for (int j = 0; j < K - 1; j++) {
        double p = sP[j] - sP[j + 1], r = sQ[j] - sQ[j + 1];
        double el = exp(-(ka + j) * h), eu = exp(-(ka + j + 1) * h);
        double low = rmin(rmax((r - eu * p) / (el - eu), 0), p);
        mass[j] = j > 0 ? low + up : low;
        up = p - low;
    }
    mass[K - 1] = up;
    /* below a: everything to a */
    mass[0] = mass[0] + (1 - sP[0]);
    /* above b: exp(b) Q(L > b) to b, the rest to +Inf */
    double top = rmin(sP[K - 1], exp(kb * h) * sQ[K - 1]);
    mass[K - 1] = mass[K - 1] + top;
    for (int j = 0; j < K; j++) mass[j] = rmax(mass[j], 0);
    d->lo = ka;
    d->len = K;
    d->p = mass;
    d->inf = rmax(sP[K - 1] - top, 0);
    return 1;
}

/* log E[exp(t L)] of a discrete PLD's finite part (log-sum-exp), from
 * lp = log(p) and the losses li of its points; v a scratch of d->len. */
static double pld_log_mgf(const pld_disc *d, const double *lp, const double *li,
                          double t, double *v)
{
    double m = R_NegInf;
    for (int j = 0; j < d->len; j++) {
        v[j] = lp[j] + t * li[j];
        m = rmax(m, v[j]);
    }
    if (!R_FINITE(m)) return m;
    long double s = 0;
    for (int j = 0; j < d->len; j++) s += exp(v[j] - m);
    return m + log((double) s);
}

/* x^k for a whole k, as R's complex power: repeated squaring up to 65536,
 * the polar form beyond. */
static Rcomplex cmul(Rcomplex a, Rcomplex b)
{
    Rcomplex c;
    c.r = a.r * b.r - a.i * b.i;
    c.i = a.r * b.i + a.i * b.r;
    return c;
}

static Rcomplex cpow_whole(Rcomplex x, double k)
{
    Rcomplex z = {1.0, 0.0};
    if (x.r == 0 && x.i == 0) {
        z.r = R_pow(0.0, k);
        z.i = 0;
        return z;
    }
    /* a power below 1e-300 is 0 to every later sum; computing it would
     * pass through subnormal numbers, which are slow */
    if (k * log(x.r * x.r + x.i * x.i) < -1400) {
        z.r = 0;
        return z;
    }
    if (k <= 65536) {
        int n = (int) k;
        if (n == 0) return z;
        if (n == 1) return x;
        while (n > 0) {
            if (n & 1) z = cmul(z, x);
            if (n == 1) break;
            n >>= 1;
            x = cmul(x, x);
        }
        return z;
    }
    double r = R_pow(hypot(x.r, x.i), k), th = k * atan2(x.i, x.r);
    z.r = r * cos(th);
    z.i = r * sin(th);
    return z;
}

/* In-place radix-2 FFT of n = 2^k complex numbers, unnormalised, with
 * exp(sign 2 pi i j k / n) (sign -1 forward, +1 backward, as stats::fft).
 * The twiddles w (fft_twiddles(), for sign +1) come from cos and sin
 * directly, not by recurrence, so the rounding error stays near that of
 * stats::fft. */
static void fft_twiddles(Rcomplex *w, int n)
{
    for (int k = 0; k < n / 2; k++) {
        double a = 2 * M_PI * k / n;
        w[k].r = cos(a);
        w[k].i = sin(a);
    }
}

static void fft_inplace(Rcomplex *x, int n, int sign, const Rcomplex *w)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            Rcomplex t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int half = len >> 1, step = n / len;
        for (int i = 0; i < n; i += len) {
            for (int k = 0; k < half; k++) {
                Rcomplex wk = w[k * step], u = x[i + k], v;
                wk.i *= sign;
                v = cmul(x[i + k + half], wk);
                x[i + k].r = u.r + v.r;
                x[i + k].i = u.i + v.i;
                x[i + k + half].r = u.r - v.r;
                x[i + k + half].i = u.i - v.i;
            }
        }
    }
}

/* x mod N in 0 .. N - 1 for a whole x (|x| < 2^53) and N a power of 2 */
static int mod_n(double x, int N)
{
    double r = fmod(x, (double) N);
    return (int) (r < 0 ? r + N : r);
}

/* Compose the discrete PLDs ds (each used steps[k] times) on a window
 * chosen by Chernoff bounds with tail mass tau above it; 0 where the
 * window needs more than PLD_MAX_FFT points. */
static int pld_compose(const pld_disc *ds, const double *steps, int nc,
                       double h, double tau, pld_comp *cp)
{
    static const double lam[9] = {0.25, 0.5, 1, 2, 4, 8, 16, 32, 64};
    double kup[9], kdn[9];
    for (int k = 0; k < nc; k++) {
        int len = ds[k].len;
        double *lp = (double *) R_alloc((size_t) len, sizeof(double));
        double *li = (double *) R_alloc((size_t) len, sizeof(double));
        double *v = (double *) R_alloc((size_t) len, sizeof(double));
        for (int j = 0; j < len; j++) {
            lp[j] = log(ds[k].p[j]);
            li[j] = ((ds[k].lo + (j + 1)) - 1) * h;
        }
        for (int j = 0; j < 9; j++) {
            double u = steps[k] * pld_log_mgf(ds + k, lp, li, lam[j], v);
            double d = steps[k] * pld_log_mgf(ds + k, lp, li, -lam[j], v);
            kup[j] = k ? kup[j] + u : u;
            kdn[j] = k ? kdn[j] + d : d;
        }
    }
    double Bmin = R_PosInf, Amax = R_NegInf;
    int Bnan = 0, Anan = 0;
    for (int j = 0; j < 9; j++) {
        double bj = (kup[j] - log(tau)) / lam[j], aj = (log(tau) - kdn[j]) / lam[j];
        if (ISNAN(bj)) Bnan = 1; else if (bj < Bmin) Bmin = bj;
        if (ISNAN(aj)) Anan = 1; else if (aj > Amax) Amax = aj;
    }
    if (Bnan || Anan) return 0;
    double B = ceil(Bmin / h), A = floor(Amax / h);
    long double lo_sum = 0, hi_sum = 0;
    for (int k = 0; k < nc; k++) {
        lo_sum += steps[k] * ds[k].lo;
        hi_sum += steps[k] * (ds[k].lo + ds[k].len - 1);
    }
    double los = (double) lo_sum, his = (double) hi_sum;
    A = rmax(A, los);
    B = rmin(B, his);
    double Nd = R_pow(2.0, ceil(log2(B - A + 1)));
    if (!R_FINITE(Nd) || Nd > PLD_MAX_FFT || Nd < 1) return 0;
    int N = (int) Nd;
    Rcomplex *spec = (Rcomplex *) R_alloc((size_t) N, sizeof(Rcomplex));
    Rcomplex *buf = (Rcomplex *) R_alloc((size_t) N, sizeof(Rcomplex));
    Rcomplex *w = (Rcomplex *) R_alloc((size_t) N / 2 + 1, sizeof(Rcomplex));
    fft_twiddles(w, N);
    for (int i = 0; i < N; i++) {
        spec[i].r = 1;
        spec[i].i = 0;
    }
    for (int k = 0; k < nc; k++) {
        /* the masses added up by index modulo N (in long double, as
         * rowSums(), where the distribution is wider than the window) */
        int len = ds[k].len, base = mod_n(ds[k].lo, N);
        for (int i = 0; i < N; i++) {
            buf[i].r = 0;
            buf[i].i = 0;
        }
        if (len <= N) {
            for (int i = 0; i < len; i++) buf[(base + i) & (N - 1)].r = ds[k].p[i];
        } else {
            long double *acc = (long double *) R_alloc((size_t) N, sizeof(long double));
            for (int i = 0; i < N; i++) acc[i] = 0;
            for (int j = 0; j < len; j++) acc[j & (N - 1)] += ds[k].p[j];
            for (int i = 0; i < N; i++) buf[(base + i) & (N - 1)].r = (double) acc[i];
        }
        fft_inplace(buf, N, -1, w);
        for (int i = 0; i < N; i++)
            spec[i] = cmul(spec[i], cpow_whole(buf[i], steps[k]));
        R_CheckUserInterrupt();
    }
    fft_inplace(spec, N, 1, w);
    double *f = (double *) R_alloc((size_t) N, sizeof(double));
    int a0 = mod_n(A, N);
    for (int t = 0; t < N; t++) {
        double v = spec[(a0 + t) & (N - 1)].r / N;
        f[t] = rmax(v, 0);
    }
    long double pr = 1;
    for (int k = 0; k < nc; k++) pr *= R_pow(1 - ds[k].inf, steps[k]);
    cp->A = A;
    cp->N = N;
    cp->f = f;
    cp->inf = 1 - (double) pr;
    cp->tail = B < his ? tau : 0;
    cp->h = h;
    return 1;
}

/* delta at eps >= 0 of a composed PLD (an upper bound). */
static double pld_delta_at(const pld_comp *cp, double eps)
{
    long double s = 0;
    for (int t = 0; t < cp->N; t++) {
        double l = (cp->A + t) * cp->h;
        if (l > eps) s += cp->f[t] * -expm1(eps - l);
    }
    return rmin(1, cp->inf + cp->tail + (double) s);
}

/* smallest eps >= 0 whose delta is at most `delta` (an upper bound). */
static double pld_eps_at(const pld_comp *cp, double delta)
{
    double target = delta - cp->inf - cp->tail;
    if (!(target > 0)) return R_PosInf;
    int t0 = 0;
    while (t0 < cp->N && !((cp->A + t0) * cp->h > 0)) t0++;
    int n = cp->N - t0;
    if (n == 0) return 0;
    double *l = (double *) R_alloc((size_t) n, sizeof(double));
    double *S0 = (double *) R_alloc((size_t) n, sizeof(double));
    double *S1 = (double *) R_alloc((size_t) n, sizeof(double));
    for (int i = 0; i < n; i++) l[i] = (cp->A + t0 + i) * cp->h;
    /* suffix sums: R's cumsum of the reversed vector (long double) */
    long double s0 = 0, s1 = 0;
    for (int i = n - 1; i >= 0; i--) {
        double f = cp->f[t0 + i];
        s0 += f;
        s1 += f * exp(-l[i]);
        S0[i] = (double) s0;
        S1[i] = (double) s1;
    }
    if (S0[0] - S1[0] <= target) return 0;   /* eps = 0 already meets it */
    int j = -1;
    for (int i = 0; i < n; i++) {
        double above0 = i + 1 < n ? S0[i + 1] : 0;
        double above1 = i + 1 < n ? S1[i + 1] : 0;
        if (above0 - exp(l[i]) * above1 <= target) {   /* delta at eps = l_i */
            j = i;
            break;
        }
    }
    if (j < 0) return R_PosInf;
    /* between l_{j-1} and l_j the sums are those above l_{j-1} */
    double lo_l = j > 0 ? l[j - 1] : 0;
    double e = log((S0[j] - target) / S1[j]);
    return rmax(lo_l, rmin(l[j], e));
}

/* .Call entry: components (z, q, steps), already reduced to the active
 * ones with the unsampled Gaussian ones merged into one (q = 1, steps 1);
 * grid h (tried 4, 16 and 64 times coarser where too wide); tail mass tau;
 * what = 0: epsilon at delta = target, 1: delta at epsilon = target.
 * Returns the larger of the two directions' answers, NA where no grid
 * fits. */
SEXP dpsco_pld(SEXP z, SEXP q, SEXP steps, SEXP h, SEXP tau, SEXP what,
               SEXP target)
{
    int nc = LENGTH(z);
    if (TYPEOF(z) != REALSXP || TYPEOF(q) != REALSXP ||
        TYPEOF(steps) != REALSXP || LENGTH(q) != nc || LENGTH(steps) != nc ||
        nc < 1)
        Rf_error("pld: z, q and steps must be doubles of one positive length");
    const double *zz = REAL(z), *qq = REAL(q), *st = REAL(steps);
    double h0 = Rf_asReal(h), tau0 = Rf_asReal(tau), tg = Rf_asReal(target);
    int wh = Rf_asInteger(what);
    double out = NA_REAL;
    /* ds[k] the remove direction of component k, ds[nc + k] the add one */
    pld_disc *ds = (pld_disc *) R_alloc(2 * (size_t) nc, sizeof(pld_disc));
    for (int c = 0; c < 4 && ISNA(out); c++) {
        double hk = h0 * R_pow(4.0, c);
        double res = R_NegInf;
        int ok = 1;
        /* every component must fit in both directions before any composing */
        for (int add = 0; add <= 1 && ok; add++)
            for (int k = 0; k < nc && ok; k++)
                ok = pld_discrete(zz[k], qq[k], add, hk, ds + add * nc + k);
        for (int add = 0; add <= 1 && ok; add++) {
            pld_comp cp;
            ok = pld_compose(ds + add * nc, st, nc, hk, tau0, &cp);
            if (ok) res = rmax(res, wh ? pld_delta_at(&cp, tg) : pld_eps_at(&cp, tg));
        }
        if (ok) out = res;
    }
    return Rf_ScalarReal(out);
}
