/* Random bits from the operating system's cryptographic generator, for
 * the secure releases (secure = TRUE): getrandom() or /dev/urandom on
 * Unix-alikes, BCryptGenRandom on Windows.  R's generator is never used
 * here.  A static buffer amortises the system calls; the engine calls
 * these from the main thread only. */
#include <stdint.h>
#include <string.h>
#include "dpsco.h"

#ifdef _WIN32
#include <windows.h>
#include <bcrypt.h>
static int os_bytes(unsigned char *buf, size_t n)
{
    return BCryptGenRandom(NULL, buf, (ULONG) n,
                           BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0;
}
#else
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
static int os_bytes(unsigned char *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0)
        return 0;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            close(fd);
            return 0;
        }
        got += (size_t) r;
    }
    close(fd);
    return 1;
}
#endif

#define POOL_BYTES 4096
static unsigned char pool[POOL_BYTES];
static size_t pool_left = 0;

void secure_bytes(void *buf, size_t n)
{
    unsigned char *out = (unsigned char *) buf;
    while (n > 0) {
        if (pool_left == 0) {
            if (!os_bytes(pool, POOL_BYTES))
                Rf_error("secure = TRUE needs the operating system's random "
                         "number generator (/dev/urandom or BCryptGenRandom), "
                         "which is not available here");
            pool_left = POOL_BYTES;
        }
        size_t take = n < pool_left ? n : pool_left;
        unsigned char *src = pool + (POOL_BYTES - pool_left);
        memcpy(out, src, take);
        memset(src, 0, take);   /* used bits are not kept around */
        out += take;
        n -= take;
        pool_left -= take;
    }
}

uint64_t secure_u64(void)
{
    uint64_t v;
    secure_bytes(&v, sizeof v);
    return v;
}

/* (k + 1/2) 2^-53 for a uniform 53-bit k: never 0 or 1 */
double secure_unif(void)
{
    return ((double) (secure_u64() >> 11) + 0.5) / 9007199254740992.0;
}

/* Uniform on 0 .. k - 1 by rejection (no modulo bias). */
int secure_int(int k)
{
    if (k <= 1)
        return 0;
    uint64_t m = (uint64_t) k, limit = UINT64_MAX - UINT64_MAX % m;
    uint64_t v;
    do
        v = secure_u64();
    while (v >= limit);
    return (int) (v % m);
}

SEXP dpsco_secure_unif(SEXP n)
{
    R_xlen_t len = (R_xlen_t) Rf_asReal(n);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, len));
    for (R_xlen_t i = 0; i < len; i++)
        REAL(out)[i] = secure_unif();
    UNPROTECT(1);
    return out;
}
