/* Poisson sampling: each record enters the batch independently with
 * probability q.  The gap to the next sampled record is Geometric(q), drawn
 * as floor(E / -log(1 - q)) with E ~ Exp(1), so one step costs O(q n)
 * random draws instead of n Bernoulli draws.  Also the per-record labels
 * that split one pass into blocks (the one-pass methods, htdp_fw's
 * chunks): sample_groups(). */
#include <math.h>
#include <string.h>
#include <Rmath.h>
#include "dpsco.h"

void sampler_init(poisson_sampler *s, int n, double q, int secure)
{
    s->n = n;
    s->secure = secure;
    s->all = q >= 1.0;
    s->neg_log1mq = s->all ? 0.0 : -log1p(-q);
}

/* Index of the next sampled record after 'cur' (start with cur = -1);
 * returns n when the batch is complete. */
int sampler_next(const poisson_sampler *s, int cur)
{
    if (s->all)
        return cur + 1;
    /* an Exp(1) draw; with the OS generator, by inversion of its uniform
     * (the batch is never released, so its floating point leaks nothing) */
    double e = s->secure ? -log(secure_unif()) : exp_rand();
    double gap = floor(e / s->neg_log1mq);
    double next = (double) cur + 1.0 + gap;
    return next >= (double) s->n ? s->n : (int) next;
}

/* A Kamath group, uniform on 0 .. k - 1 (unif_rand() < 1, but a rounding
 * to k is mapped to k - 1 all the same). */
int sample_label(int k, int secure)
{
    if (secure)
        return secure_int(k);
    int g = (int) (unif_rand() * k);
    return g < k ? g : k - 1;
}

/* Draw one step's batch: the sampled records in increasing order and, when
 * k > 0, each one's Kamath group, uniform on 0 .. k - 1.  The draws alternate
 * (gap, label, gap, label, ...), all from R's generator (the operating
 * system's with secure noise) and before any
 * record is visited, so the batch does not depend on how the pass over it
 * is split.  Returns the batch size. */
int sample_batch(const poisson_sampler *s, int k, int *idx, int *label)
{
    int count = 0;
    for (int i = sampler_next(s, -1); i < s->n; i = sampler_next(s, i)) {
        idx[count] = i;
        if (k > 0)
            label[count] = sample_label(k, s->secure);
        count++;
    }
    return count;
}

/* One pass's blocks: every record draws its own label from one
 * unif_rand() u, in record order 0 .. n - 1, independently of the data and
 * of every other record (so adding or removing a record leaves the others'
 * labels alone), and the rule maps u to a group 0 .. k - 1, or to k, "sits
 * the pass out":
 *   LABELS_UNIFORM  sample_label(k, 0) = floor(u k): each group w.p. 1 / k;
 *   LABELS_RATE     floor(u / rate) when below k, else k: each group w.p.
 *                   rate (k rate <= 1), out w.p. 1 - k rate;
 *   LABELS_HALVING  group g when 2^-(g + 1) <= u < 2^-g, i.e. w.p.
 *                   2^-(g + 1); out when u < 2^-k, w.p. 2^-k (the cuts are
 *                   powers of two, exact in floating point).
 * In R the same uniforms are runif(n).  The records are then bucketed by a
 * counting sort: group g is idx[start[g] .. start[g + 1] - 1] in increasing
 * record order, and the records sitting out are idx[start[k] .. n - 1].
 * label and idx hold n entries, start k + 2. */
void sample_groups(int n, int k, int rule, double rate, int *label,
                   int *start, int *idx)
{
    memset(start, 0, (size_t) (k + 2) * sizeof(int));
    for (int i = 0; i < n; i++) {
        int g;
        if (rule == LABELS_UNIFORM) {
            g = sample_label(k, 0);
        } else if (rule == LABELS_RATE) {
            double f = floor(unif_rand() / rate);
            g = f < k ? (int) f : k;
        } else {
            double u = unif_rand(), cut = 0.5;
            for (g = 0; g < k && u < cut; g++)
                cut *= 0.5;
        }
        label[i] = g;
        start[g + 1]++;
    }
    for (int g = 0; g <= k; g++)
        start[g + 1] += start[g];
    /* each start[g] runs to the end of group g, then moves back one slot */
    for (int i = 0; i < n; i++)
        idx[start[label[i]]++] = i;
    for (int g = k; g > 0; g--)
        start[g] = start[g - 1];
    start[0] = 0;
}

/* A Poisson subsample of n records at rate q (the private settings'
 * passes, R/settings.R settings_subsample()): each record kept
 * independently with probability q, the gaps between kept records drawn
 * as geometric skips from R's generator (sampler_next(), sample.c), so
 * the draws number about q n, never n.  Returns the kept records'
 * 0-based indices, increasing. */
SEXP dpsco_poisson_rows(SEXP n_, SEXP q_)
{
    int n = Rf_asInteger(n_);
    double q = Rf_asReal(q_);
    if (n == NA_INTEGER || n < 0 || !(q > 0.0 && q <= 1.0))
        Rf_error("internal error: dpsco_poisson_rows needs n >= 0 and q in "
                 "(0, 1]");
    poisson_sampler sp;
    sampler_init(&sp, n, q, 0);
    size_t cap = (size_t) (q * n + 6.0 * sqrt(q * n) + 16.0), m = 0;
    cap = cap < (size_t) n + 1 ? cap : (size_t) n + 1;
    int *buf = R_Calloc(cap, int);
    GetRNGstate();
    for (int i = sampler_next(&sp, -1); i < n; i = sampler_next(&sp, i)) {
        if (m == cap) {
            cap *= 2;
            buf = R_Realloc(buf, cap, int);
        }
        buf[m++] = i;
    }
    PutRNGstate();
    SEXP out = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t) m));
    if (m > 0)
        memcpy(INTEGER(out), buf, m * sizeof(int));
    R_Free(buf);
    UNPROTECT(1);
    return out;
}
