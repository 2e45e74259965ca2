// Included last by every _math.hpp and numeric header (docs/design.md §2,
// "No libm, checked three ways"): from here on, naming a libm or CUDA math
// library elementary function (not one of the IEEE-exact ones: sqrt, fabs,
// floor, ceil, trunc, round, fmod, ldexp, frexp, copysign, fmin, fmax, ...) is
// a compile error, in host and in device code (gcc and nvcc honour the
// pragma). A device call to libdevice leaves no symbol for the nm check to
// see; this catches it. <cmath> comes first, so its declarations (and any
// later #include of it, then empty) are read before the names are poisoned;
// a library file includes its system and third-party headers before the
// project's. Tests define EXACTVMAF_LIBM_ALLOWED (their oracles may call libm,
// and they include gtest, <random> and nlohmann/json after the headers they
// test).
#pragma once
#include <cmath>

#if !defined(EXACTVMAF_LIBM_ALLOWED)

#pragma GCC poison acos acosf acosl acosh acoshf acoshl asin asinf asinl asinh asinhf asinhl
#pragma GCC poison atan atanf atanl atan2 atan2f atan2l atanh atanhf atanhl
#pragma GCC poison cbrt cbrtf cbrtl cos cosf cosl cosh coshf coshl cospi cospif
#pragma GCC poison erf erff erfl erfc erfcf erfcl exp expf expl exp2 exp2f exp2l exp10 exp10f
#pragma GCC poison expm1 expm1f expm1l hypot hypotf hypotl lgamma lgammaf lgammal tgamma tgammaf tgammal
#pragma GCC poison log logf logl log2 log2f log2l log10 log10f log10l log1p log1pf log1pl
#pragma GCC poison pow powf powl rcbrt rcbrtf rsqrt rsqrtf sin sinf sinl sincos sincosf sinh sinhf sinhl
#pragma GCC poison sinpi sinpif tan tanf tanl tanh tanhf tanhl
#pragma GCC poison __expf __exp10f __logf __log2f __log10f __powf __sinf __cosf __tanf __sincosf __fdividef
#endif
