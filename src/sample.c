/* Poisson sampling: each record enters the batch independently with
 * probability q.  The gap to the next sampled record is Geometric(q), drawn
 * as floor(E / -log(1 - q)) with E ~ Exp(1), so one step costs O(q n)
 * random draws instead of n Bernoulli draws.  Also the uniform permutation
 * whose consecutive blocks are the disjoint batches of the one-pass
 * methods. */
#include <math.h>
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

/* Shuffle perm[0 .. n-1] in place (Fisher-Yates from the last position,
 * one R_unif_index(i + 1) per position i = n - 1, ..., 1): a uniform
 * permutation of whatever order perm held, so a caller may shuffle the
 * previous permutation again.  The one-pass methods cut it into disjoint
 * blocks; in R the same draws are sample.int(i + 1, 1) - 1. */
void sample_permute(int *perm, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int) R_unif_index((double) i + 1.0);
        int tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
}
