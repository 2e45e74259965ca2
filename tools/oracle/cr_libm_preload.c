/* cr_libm_preload.c — correctly rounded libm replacements for the R oracle.
 *
 * Build (outside the repository; needs libmpfr-dev):
 *   gcc -O2 -std=c11 -fPIC -shared -Wall -Wextra -o /work/upstream/cr_libm_preload.so tools/oracle/cr_libm_preload.c -lmpfr -lgmp -ldl
 *
 * Use:
 *   LD_PRELOAD=/work/upstream/cr_libm_preload.so vmaf ...
 *
 * Interposes the libm functions that upstream libvmaf (f85a853) imports:
 *   double: log10 log log2 exp pow sin cos atan2 tanh   (plus exp2 cbrt exp10,
 *           in case a build imports them)
 *   float:  powf log2f
 * (sqrt/sqrtf are IEEE-exact already; roundf is exact; both are left alone.)
 *
 * Every result is correctly rounded, round-to-nearest-even, in the result's
 * own format: MPFR evaluates the function directly at the target precision
 * (53 or 24 bits) with the exponent range of that format, then
 * mpfr_subnormalize fixes subnormal results, so there is exactly one rounding
 * (no double rounding through an intermediate precision). Float functions take
 * their float arguments exactly (mpfr_set_flt) and round once to float.
 * Special values (NaN, infinities, zeros, pow/atan2 corner cases) follow
 * MPFR, which implements C99 Annex F for these functions. errno is not set.
 *
 * Diagnostics (environment variables, read at load time):
 *   CR_LIBM_REPORT=1   at exit, print to stderr, per function: number of calls
 *                      and how many results differ from the host libm (the
 *                      host result is computed via dlsym(RTLD_NEXT) for this).
 *   CR_LIBM_TRACE=N    print the first N calls whose result differs from the
 *                      host libm (arguments and both results, %a).
 * A "cr_libm_preload: active" line is printed at load when either is set, so
 * a run can prove the library was interposed.
 *
 * Verify interposition: LD_DEBUG=bindings LD_PRELOAD=... vmaf ... 2>&1 |
 *   grep "to .*cr_libm_preload.so.*symbol .log10"
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpfr.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { F_LOG10, F_LOG, F_LOG2, F_EXP, F_POW, F_SIN, F_COS, F_ATAN2, F_TANH,
       F_EXP2, F_CBRT, F_EXP10, F_POWF, F_LOG2F, F_COUNT };
static const char *const fname[F_COUNT] = {
    "log10", "log", "log2", "exp", "pow", "sin", "cos", "atan2", "tanh",
    "exp2", "cbrt", "exp10", "powf", "log2f" };

static atomic_ulong ncalls[F_COUNT];
static atomic_ulong ndiff[F_COUNT];
static atomic_long trace_left;
static int report, compare;
static void *host[F_COUNT];

typedef int (*mpfr_fn1)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
typedef int (*mpfr_fn2)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

/* Run f at precision prec with the exponent range of the target format. */
static double eval1_d(mpfr_fn1 f, double x)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t mx, my;
    mpfr_init2(mx, 53);
    mpfr_init2(my, 53);
    mpfr_set_d(mx, x, MPFR_RNDN);               /* exact */
    mpfr_set_emin(-1073);                       /* binary64: subnormal min 2^-1074 */
    mpfr_set_emax(1024);
    int inex = f(my, mx, MPFR_RNDN);
    inex = mpfr_check_range(my, inex, MPFR_RNDN);
    mpfr_subnormalize(my, inex, MPFR_RNDN);
    double r = mpfr_get_d(my, MPFR_RNDN);       /* exact */
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(mx, my, (mpfr_ptr)0);
    return r;
}

static double eval2_d(mpfr_fn2 f, double x, double y)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t mx, my, mr;
    mpfr_inits2(53, mx, my, mr, (mpfr_ptr)0);
    mpfr_set_d(mx, x, MPFR_RNDN);
    mpfr_set_d(my, y, MPFR_RNDN);
    mpfr_set_emin(-1073);
    mpfr_set_emax(1024);
    int inex = f(mr, mx, my, MPFR_RNDN);
    inex = mpfr_check_range(mr, inex, MPFR_RNDN);
    mpfr_subnormalize(mr, inex, MPFR_RNDN);
    double r = mpfr_get_d(mr, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(mx, my, mr, (mpfr_ptr)0);
    return r;
}

static float eval1_f(mpfr_fn1 f, float x)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t mx, my;
    mpfr_init2(mx, 24);
    mpfr_init2(my, 24);
    mpfr_set_flt(mx, x, MPFR_RNDN);
    mpfr_set_emin(-148);                        /* binary32: subnormal min 2^-149 */
    mpfr_set_emax(128);
    int inex = f(my, mx, MPFR_RNDN);
    inex = mpfr_check_range(my, inex, MPFR_RNDN);
    mpfr_subnormalize(my, inex, MPFR_RNDN);
    float r = mpfr_get_flt(my, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(mx, my, (mpfr_ptr)0);
    return r;
}

static float eval2_f(mpfr_fn2 f, float x, float y)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t mx, my, mr;
    mpfr_inits2(24, mx, my, mr, (mpfr_ptr)0);
    mpfr_set_flt(mx, x, MPFR_RNDN);
    mpfr_set_flt(my, y, MPFR_RNDN);
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    int inex = f(mr, mx, my, MPFR_RNDN);
    inex = mpfr_check_range(mr, inex, MPFR_RNDN);
    mpfr_subnormalize(mr, inex, MPFR_RNDN);
    float r = mpfr_get_flt(mr, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(mx, my, mr, (mpfr_ptr)0);
    return r;
}

static int same_d(double a, double b)
{
    if (a != a && b != b) return 1;             /* NaN as a class */
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_f(float a, float b)
{
    if (a != a && b != b) return 1;
    return memcmp(&a, &b, sizeof a) == 0;
}

static void note_d1(int id, double x, double r)
{
    atomic_fetch_add_explicit(&ncalls[id], 1, memory_order_relaxed);
    if (!compare || !host[id]) return;
    double h = ((double (*)(double))host[id])(x);
    if (!same_d(h, r)) {
        atomic_fetch_add_explicit(&ndiff[id], 1, memory_order_relaxed);
        if (atomic_fetch_sub(&trace_left, 1) > 0)
            fprintf(stderr, "cr_libm_preload: %s(%a) = %a (host %a)\n",
                    fname[id], x, r, h);
    }
}

static void note_d2(int id, double x, double y, double r)
{
    atomic_fetch_add_explicit(&ncalls[id], 1, memory_order_relaxed);
    if (!compare || !host[id]) return;
    double h = ((double (*)(double, double))host[id])(x, y);
    if (!same_d(h, r)) {
        atomic_fetch_add_explicit(&ndiff[id], 1, memory_order_relaxed);
        if (atomic_fetch_sub(&trace_left, 1) > 0)
            fprintf(stderr, "cr_libm_preload: %s(%a, %a) = %a (host %a)\n",
                    fname[id], x, y, r, h);
    }
}

static void note_f1(int id, float x, float r)
{
    atomic_fetch_add_explicit(&ncalls[id], 1, memory_order_relaxed);
    if (!compare || !host[id]) return;
    float h = ((float (*)(float))host[id])(x);
    if (!same_f(h, r)) {
        atomic_fetch_add_explicit(&ndiff[id], 1, memory_order_relaxed);
        if (atomic_fetch_sub(&trace_left, 1) > 0)
            fprintf(stderr, "cr_libm_preload: %s(%a) = %a (host %a)\n",
                    fname[id], (double)x, (double)r, (double)h);
    }
}

static void note_f2(int id, float x, float y, float r)
{
    atomic_fetch_add_explicit(&ncalls[id], 1, memory_order_relaxed);
    if (!compare || !host[id]) return;
    float h = ((float (*)(float, float))host[id])(x, y);
    if (!same_f(h, r)) {
        atomic_fetch_add_explicit(&ndiff[id], 1, memory_order_relaxed);
        if (atomic_fetch_sub(&trace_left, 1) > 0)
            fprintf(stderr, "cr_libm_preload: %s(%a, %a) = %a (host %a)\n",
                    fname[id], (double)x, (double)y, (double)r, (double)h);
    }
}

#define DEF_D1(name, id, mfn)                                                \
    double cr_##name(double x)                                               \
    {                                                                        \
        double r = eval1_d(mfn, x);                                          \
        note_d1(id, x, r);                                                   \
        return r;                                                            \
    }
#define DEF_D2(name, id, mfn)                                                \
    double cr_##name(double x, double y)                                     \
    {                                                                        \
        double r = eval2_d(mfn, x, y);                                       \
        note_d2(id, x, y, r);                                                \
        return r;                                                            \
    }

DEF_D1(log10, F_LOG10, mpfr_log10)
DEF_D1(log,   F_LOG,   mpfr_log)
DEF_D1(log2,  F_LOG2,  mpfr_log2)
DEF_D1(exp,   F_EXP,   mpfr_exp)
DEF_D1(sin,   F_SIN,   mpfr_sin)
DEF_D1(cos,   F_COS,   mpfr_cos)
DEF_D1(tanh,  F_TANH,  mpfr_tanh)
DEF_D1(exp2,  F_EXP2,  mpfr_exp2)
DEF_D1(cbrt,  F_CBRT,  mpfr_cbrt)
DEF_D1(exp10, F_EXP10, mpfr_exp10)
DEF_D2(pow,   F_POW,   mpfr_pow)
DEF_D2(atan2, F_ATAN2, mpfr_atan2)   /* atan2(y, x): mpfr_atan2(r, y, x) */

float cr_powf(float x, float y)
{
    float r = eval2_f(mpfr_pow, x, y);
    note_f2(F_POWF, x, y, r);
    return r;
}

float cr_log2f(float x)
{
    float r = eval1_f(mpfr_log2, x);
    note_f1(F_LOG2F, x, r);
    return r;
}

/* Exported names: each public symbol is an unversioned alias of cr_<name>.
 * An unversioned definition in a preloaded object also satisfies versioned
 * references (checked with LD_DEBUG=bindings on glibc 2.36: upstream's
 * exp@GLIBC_2.29, pow@GLIBC_2.29, log@GLIBC_2.29, log2@GLIBC_2.29,
 * powf@GLIBC_2.27, log2f@GLIBC_2.27, log10@GLIBC_2.2.5, ... all bind here). */
#define EXPORT(name)                                                         \
    __asm__(".globl " #name "\n.set " #name ", cr_" #name);
EXPORT(log10) EXPORT(log) EXPORT(log2) EXPORT(exp) EXPORT(pow) EXPORT(sin)
EXPORT(cos) EXPORT(atan2) EXPORT(tanh) EXPORT(exp2) EXPORT(cbrt) EXPORT(exp10)
EXPORT(powf) EXPORT(log2f)

static void cr_init(void) __attribute__((constructor));
static void cr_fini(void) __attribute__((destructor));

static void cr_init(void)
{
    const char *rep = getenv("CR_LIBM_REPORT");
    const char *tr = getenv("CR_LIBM_TRACE");
    report = rep && *rep && strcmp(rep, "0");
    long t = tr ? strtol(tr, NULL, 10) : 0;
    atomic_store(&trace_left, t);
    compare = report || t > 0;
    if (compare) {
        for (int i = 0; i < F_COUNT; i++)
            host[i] = dlsym(RTLD_NEXT, fname[i]);
        fprintf(stderr, "cr_libm_preload: active (pid %ld)\n", (long)getpid());
    }
}

static void cr_fini(void)
{
    if (!report) return;
    for (int i = 0; i < F_COUNT; i++) {
        unsigned long c = atomic_load(&ncalls[i]);
        if (c)
            fprintf(stderr, "cr_libm_preload: %-6s calls %lu, differ from host libm %lu\n",
                    fname[i], c, atomic_load(&ndiff[i]));
    }
}
