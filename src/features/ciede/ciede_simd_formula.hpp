// The body of ciede's vector kernels (ciede_avx2.cpp, ciede_avx512.cpp),
// written once on lane helpers that each file defines (through
// ciede_simd_group.hpp) before including this (not a standalone header): D
// (doubles), F (floats), M (lane conditions), I (int32 lanes); dbl, flt, splat, lt/le/gt/ge/eq, all/any/but_not/differ,
// select, neg, abs_c, sqrt_d, i32_of, lane_bit, round_to_float, pow2_of,
// clamp_0_16, atan_table, sign_of, with_sign, load, store, lanes_of,
// load_samples, mantissa_1_2, unbiased_exponent; kLanes, kAllLanes; LANE
// (the ISA's target attribute, inline) and LANE_TARGET.
// ciede2000<HostMath>'s shortcut path (ciede_math.hpp) lane by lane: each
// step performs the IEEE operations of the scalar function it names, in the
// same order and association (no FMA), with the branches as per-lane
// selects. Where the scalar path would call R's function the lane is marked
// undecided, and delta_e recomputes the pair with the scalar formula.

// ---- dd.hpp: two_prod, two_sqr, mul(dd, dd); ciede_math.hpp: pow7_dd ---------

struct DD {
  D hi, lo;
};
LANE DD split(D a) {
  const D c = 134217729.0 * a;
  const D hi = c - (c - a);
  return {hi, a - hi};
}
LANE DD two_prod(D a, D b) {
  const D p = a * b;
  const DD as = split(a), bs = split(b);
  return {p, ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo};
}
LANE DD two_sqr(D a) {
  const D p = a * a;
  const DD as = split(a);
  return {p, ((as.hi * as.hi - p) + 2.0 * (as.hi * as.lo)) + as.lo * as.lo};
}
LANE DD mul(DD x, DD y) {
  const DD c = two_prod(x.hi, y.hi);
  const D cl3 = c.lo + (x.hi * y.lo + x.lo * y.hi);
  const D s = c.hi + cl3;  // fast_two_sum
  return {s, cl3 - (s - c.hi)};
}
LANE DD pow7_dd(D x) {
  const D x2 = x * x;
  return mul(two_prod(x2, x), two_sqr(x2));
}

// pow7_f64 (c_bar's power): value, and the lanes it decides.
LANE D pow7_f64(F x, M* decided) {
  const D xd = dbl(x);
  const M zero = eq(xd, 0.0);
  const DD p = pow7_dd(xd);
  const D e = 2.0 * (0x1p-102 * p.hi);  // round_to_double
  const D up = p.hi + (p.lo + e);
  const D dn = p.hi + (p.lo - e);
  *decided = any(zero, all(all(ge(xd, 0x1p-60), le(xd, 0x1p60)), eq(up, dn)));
  return select(zero, xd, up);
}

// powf7_f32 (c_bar_prime's float power).
LANE F powf7_f32(F x, M* decided) {
  const D xd = dbl(x);
  const M zero = eq(xd, 0.0);
  const DD p = pow7_dd(xd);
  F r;
  const M ok = round_to_float(p.hi, p.lo, 0x1p-102 * p.hi, &r, FloatRange::normal);
  *decided = any(zero, all(all(ge(xd, 0x1p-18), le(xd, 0x1p18)), ok));
  return select(zero, x, r);
}

// ---- ciede_math.hpp: reduce_pio2_approx, cos_poly / sin_poly, cos_approx,
// sin_approx, exp_approx, atan2_approx --------------------------------------

struct Reduced {
  D r, kd;  // k = i32_of(kd)
};
LANE Reduced reduce_pio2(D x) {
  constexpr double kTwoOverPi = 0.63661977236758138243;
  constexpr double P1 = 0x1.921fb544p0, P2 = 0x1.0b4611a6p-34, P3 = 0x1.3198a2e037073p-69;
  constexpr double kShift = 0x1.8p52;
  const D kd = (x * kTwoOverPi + kShift) - kShift;
  return {((x - kd * P1) - kd * P2) - kd * P3, kd};
}

// cos_poly(z) where !odd, sin_poly(r, z) where odd: both are Horner chains
// of nine coefficients starting 1.0 +, sin's then times r; a cos lane's
// final factor is 1.0 (exact), so each lane gets its polynomial's bits.
LANE D coef(M odd, double cos_coef, double sin_coef) { return select(odd, splat(sin_coef), splat(cos_coef)); }
LANE D trig_poly(D r, D z, M odd) {
  const D p =
      1.0 + z * (coef(odd, -0.5, -1.0 / 6.0) + z * (coef(odd, 1.0 / 24.0, 1.0 / 120.0) + z * (coef(odd, -1.0 / 720.0, -1.0 / 5040.0) +
      z * (coef(odd, 1.0 / 40320.0, 1.0 / 362880.0) + z * (coef(odd, -1.0 / 3628800.0, -1.0 / 39916800.0) +
      z * (coef(odd, 1.0 / 479001600.0, 1.0 / 6227020800.0) + z * (coef(odd, -1.0 / 87178291200.0, -1.0 / 1307674368000.0) +
      z * coef(odd, 1.0 / 20922789888000.0, 1.0 / 355687428096000.0))))))));
  return select(odd, r, splat(1.0)) * p;
}

// cos_approx: k & 3 = 0: cos, 1: -sin, 2: -cos, 3: sin.
LANE D cos_approx(D x) {
  const Reduced t = reduce_pio2(x);
  const I k = i32_of(t.kd);
  const M bit0 = lane_bit(k, 1), bit1 = lane_bit(k, 2);
  const D v = trig_poly(t.r, t.r * t.r, bit0);
  return select(differ(bit0, bit1), neg(v), v);
}

// sin_approx: k == 0: sin; k > 0: cos; k < 0: -cos.
LANE D sin_approx(D x) {
  const Reduced t = reduce_pio2(x);
  const M k_zero = eq(t.kd, 0.0);
  const D v = trig_poly(t.r, t.r * t.r, k_zero);
  return select(lt(t.kd, 0.0), neg(v), v);
}

LANE D exp_approx(D x) {
  constexpr double kInvLn2 = 1.44269504088896338700;
  constexpr double L1 = 0x1.62e42feep-1, L2 = 0x1.a39ef35793c76p-33;
  constexpr double kShift = 0x1.8p52;
  const D kd = (x * kInvLn2 + kShift) - kShift;
  const D r = (x - kd * L1) - kd * L2;
  const D p =
      1.0 + r * (1.0 + r * (1.0 / 2.0 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 +
      r * (1.0 / 5040.0 + r * (1.0 / 40320.0 + r * (1.0 / 362880.0 + r * (1.0 / 3628800.0 + r * (1.0 / 39916800.0 +
      r * (1.0 / 479001600.0 + r * (1.0 / 6227020800.0 + r * (1.0 / 87178291200.0))))))))))))));
  return p * pow2_of(i32_of(kd));
}

LANE D atan2_approx(D y, D x) {
  constexpr double kPio2 = 0x1.921fb54442d18p+0, kPiD = 0x1.921fb54442d18p+1;
  const D ay = abs_c(y), ax = abs_c(x);
  const M swap = gt(ay, ax);
  const D q = select(swap, ax, ay) / select(swap, ay, ax);
  // j in [0, 16] on every lane the shortcut can decide; clamped so that no
  // lane reads outside the table.
  const I j = clamp_0_16(i32_of(q * 16.0 + 0.5));
  const D c = dbl(j) * 0.0625;
  const D t = (q - c) / (1.0 + q * c);
  const D t2 = t * t;
  const D at = t * (1.0 + t2 * (-1.0 / 3.0 + t2 * (1.0 / 5.0 + t2 * (-1.0 / 7.0 + t2 * (1.0 / 9.0 + t2 * (-1.0 / 11.0))))));
  D a = atan_table(j) + at;
  a = select(swap, kPio2 - a, a);
  a = select(lt(x, 0.0), kPiD - a, a);
  return select(lt(y, 0.0), neg(a), a);
}

// ---- ciede_math.hpp: ln_approx, pow_approx, lab_shortcut, lab_from_yuv_shortcut

LANE D ln_approx(D x) {  // normal x > 0
  constexpr double L1 = 0x1.62e42feep-1, L2 = 0x1.a39ef35793c76p-33;
  D m = mantissa_1_2(x);  // [1, 2)
  D ed = unbiased_exponent(x);
  const M big = gt(m, 1.4142135623730951);
  m = select(big, m * 0.5, m);
  ed = select(big, ed + 1.0, ed);  // T(e + 1): small integers, exact
  const D sv = (m - 1.0) / (m + 1.0);
  const D s2 = sv * sv;
  const D lnm =
      sv * (2.0 + s2 * (2.0 / 3.0 + s2 * (2.0 / 5.0 + s2 * (2.0 / 7.0 + s2 * (2.0 / 9.0 + s2 * (2.0 / 11.0 + s2 * (2.0 / 13.0 +
      s2 * (2.0 / 15.0 + s2 * (2.0 / 17.0 + s2 * (2.0 / 19.0 + s2 * (2.0 / 21.0)))))))))));
  return ed * L1 + (ed * L2 + lnm);
}
LANE D pow_approx(D x, double y) { return exp_approx(y * ln_approx(x)); }

// lab_shortcut::linear: the value and its bound (0 on the c D branch).
LANE D lab_linear(D c, D* err) {
  const M above = gt(c, 10. / 255.);
  const D v = pow_approx((c + 0.055) * (1.0 / 1.055), 2.4);
  *err = select(above, v * 0x1p-47, splat(0.0));
  return select(above, v, c * (1.0 / 12.92));
}

// lab_shortcut::lab_map: the float and the lanes it decides.
LANE F lab_map(D c, D err, M* decided) {
  constexpr double kKappa = 24389.0 / 27.0, kEpsilon = 216.0 / 24389.0;
  const D lo = c - err, hi = c + err;
  const M cube = gt(lo, kEpsilon), linear = le(hi, kEpsilon);
  const D v1 = pow_approx(c, 1.0 / 3.0);
  const D rel = (err / c) * (1.0 / 3.0) * 1.01 + 0x1p-49 + 0x1p-53;
  F f1;
  const M ok1 = round_to_float(v1, splat(0.0), 4.0 * v1 * rel, &f1, FloatRange::normal);
  const D v2 = (kKappa * c + 16.0) * (1.0 / 116.0);
  const D mag = (kKappa * abs_c(c) + 16.0) * (1.0 / 116.0);
  const D e2 = (kKappa / 116.0) * err * 1.01 + 6.0 * 0x1p-53 * mag * 1.01;
  F f2;
  const M ok2 = round_to_float(v2, splat(0.0), 4.0 * e2 + 0x1p-1000, &f2, FloatRange::normal);
  *decided = any(all(all(cube, le(c, 8.0)), ok1), all(linear, ok2));
  return select(cube, f1, f2);
}

// lab_from_yuv_shortcut: L, a, b of the lanes it decides.
LANE void lab_from_yuv_shortcut(D ys, D us, D vs, const LabScale& s, F* l_out, F* a_out, F* b_out, M* decided) {
  const D y = (ys - s.y_offset) * s.y_mul;
  const D u = (us - s.c_offset) * s.c_mul;
  const D v = (vs - s.c_offset) * s.c_mul;
  const D rc = y + 1.28033 * v;
  const D gc = y - 0.21482 * u - 0.38059 * v;
  const D bc = y + 2.12798 * u;
  D er, eg, eb;
  const D r = lab_linear(rc, &er);
  const D g = lab_linear(gc, &eg);
  const D b = lab_linear(bc, &eb);
  const D ar = abs_c(r), ag = abs_c(g), ab = abs_c(b);
  const D x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
  const D yy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
  const D z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;
  const D ex = 0.4124564390896921 * er + 0.357576077643909 * eg + 0.18043748326639894 * eb +
               6.0 * 0x1p-53 * (0.4124564390896921 * ar + 0.357576077643909 * ag + 0.18043748326639894 * ab);
  const D ey = 0.21267285140562248 * er + 0.715152155287818 * eg + 0.07217499330655958 * eb +
               6.0 * 0x1p-53 * (0.21267285140562248 * ar + 0.715152155287818 * ag + 0.07217499330655958 * ab);
  const D ez = 0.019333895582329317 * er + 0.119192025881303 * eg + 0.9503040785363677 * eb +
               6.0 * 0x1p-53 * (0.019333895582329317 * ar + 0.119192025881303 * ag + 0.9503040785363677 * ab);
  const D xs = x * (1.0 / 0.95047), zs = z * (1.0 / 1.08883);
  const D axs = abs_c(xs), azs = abs_c(zs);
  M okx, oky, okz;
  const F fx = lab_map(xs, (ex * (1.0 / 0.95047) + 0x1p-52 * axs) * 1.01, &okx);
  const F fy = lab_map(yy, ey * 1.01, &oky);
  const F fz = lab_map(zs, (ez * (1.0 / 1.08883) + 0x1p-52 * azs) * 1.01, &okz);
  const D lx = dbl(fx), ly = dbl(fy), lz = dbl(fz);
  *l_out = flt((116.0 * ly) - 16.0);
  *a_out = flt(500.0 * (lx - ly));
  *b_out = flt(200.0 * (ly - lz));
  *decided = all(okx, all(oky, okz));
}

// ---- ciede_math.hpp: atan2_to_float, mul_sin_to_float, sixty_exp_to_float ---

// y = b, x = a' as floats (the doubles are their exact conversions).
LANE F atan2_to_float(F yf, F xf, M* decided) {
  const D y = dbl(yf), x = dbl(xf);
  const D ay = abs_c(y), ax = abs_c(x);
  const M approx_domain = all(all(all(gt(ay, 0.0), gt(ax, 0.0)), all(lt(ay, 0x1p500), lt(ax, 0x1p500))),
                              all(gt(ay, 0x1p-500), gt(ax, 0x1p-500)));
  F approx;
  const M approx_ok = all(approx_domain, round_to_float(atan2_approx(y, x), splat(0.0), splat(0x1p-46), &approx, FloatRange::normal));
  // Exactly one zero: C's exact values (the sign of y by its sign bit).
  const M y_zero = eq(ay, 0.0), x_zero = eq(ax, 0.0);
  const M one_zero = all(differ(y_zero, x_zero), all(lt(ay, 0x1p1000), lt(ax, 0x1p1000)));
  const F y_sign = sign_of(yf);
  const F signed_pio2 = with_sign(f(kPiOver2), y_sign);
  const F signed_pi = with_sign(f(kPi), y_sign);
  const F exact = select(x_zero, signed_pio2, select(gt(x, 0.0), yf, signed_pi));
  *decided = any(approx_ok, one_zero);
  return select(approx_ok, approx, exact);
}

LANE F mul_sin_to_float(D a, D x, FloatRange range, M* decided) {
  const M in_range = all(ge(x, -1.6), le(x, 1.6));
  const M zero = all(any(eq(a, 0.0), eq(x, 0.0)), all(lt(a, 0x1p1000), gt(a, -0x1p1000)));
  const D v = a * sin_approx(x);
  const D av = abs_c(v);
  F approx;
  const M approx_ok = all(all(gt(av, 0x1p-900), lt(av, 0x1p100)), round_to_float(v, splat(0.0), av * 0x1p-46, &approx, range));
  *decided = all(in_range, any(zero, approx_ok));
  return select(zero, flt(a * x), approx);
}

LANE F sixty_exp_to_float(D x, M* decided) {
  const D v = 60.0 * exp_approx(x);
  F out;
  const M ok = round_to_float(v, splat(0.0), v * 0x1p-46, &out, FloatRange::any);
  *decided = all(all(ge(x, -700.0), le(x, 0.0)), ok);
  return out;
}

// ---- ciede_math.hpp: h_prime, delta_h_prime, upcase_h_bar_prime, upcase_t,
// r_sub_t ---------------------------------------------------------------------

LANE F h_prime(F b, F a_prime, M* decided) {
  const M both_zero = all(eq(dbl(b), 0.0), eq(dbl(a_prime), 0.0));
  M atan_ok;
  const F hue = atan2_to_float(b, a_prime, &atan_ok);
  const D hue_d = dbl(hue);
  const F wrapped = select(lt(hue_d, 0.0), flt(hue_d + kTwoPi), hue);
  *decided = any(both_zero, atan_ok);
  return select(both_zero, splat(0.0f), wrapped);
}

LANE F delta_h_prime(F c1, F c2, F h1, F h2) {
  const M zero_c = any(eq(dbl(c1), 0.0), eq(dbl(c2), 0.0));
  const F diff = h2 - h1;
  const F abs_diff = abs_c(h1 - h2);
  const D diff_d = dbl(diff);
  const F wrapped = select(le(dbl(h2), dbl(h1)), flt(diff_d + kTwoPi), flt(diff_d - kTwoPi));
  const F v = select(le(dbl(abs_diff), kPi), diff, wrapped);
  return select(zero_c, splat(0.0f), v);
}

LANE F upcase_h_bar_prime(F h1, F h2) {
  const D abs_diff = abs_c(dbl(h1 - h2));
  const D sum = dbl(h1 + h2);
  return select(gt(abs_diff, kPi), flt((sum + kTwoPi) / 2.0), flt(sum / 2.0));
}

LANE F upcase_t(F h_bar, M* decided) {
  const D h = dbl(h_bar);
  const D v = 1.0 - 0.17 * cos_approx(h - kPiOver6) + 0.24 * cos_approx(2.0 * h) +
              0.32 * cos_approx(3.0 * h + kPiOver30) - 0.20 * cos_approx(4.0 * h - kSevenPiOver20);
  F t;
  const M ok = round_to_float(v, splat(0.0), splat(0x1p-44), &t, FloatRange::normal);
  *decided = all(all(ge(h, 0.0), lt(h, 12.0)), ok);
  return t;
}

LANE F r_sub_t(F c_bar_prime, F h_bar, M* decided) {
  const F rad_to_deg = flt(dbl(h_bar) * kRadToDeg);
  const F degrees = flt((dbl(rad_to_deg) - 275.0) * (1.0 / 25.0));
  M c7_ok, exp_ok, sin_ok;
  const F c7 = powf7_f32(c_bar_prime, &c7_ok);
  const F ratio = c7 / (c7 + splat(kPowf25_7));
  const F degrees_sq = degrees * degrees;
  const F angle_deg = sixty_exp_to_float(dbl(neg(degrees_sq)), &exp_ok);
  const F radians = flt(dbl(angle_deg) * kDegToRad);
  const F rt = mul_sin_to_float(-2.0 * sqrt_d(dbl(ratio)), dbl(radians), FloatRange::any, &sin_ok);
  *decided = all(c7_ok, all(exp_ok, sin_ok));
  return rt;
}

// ---- ciede_math.hpp: ciede2000 ---------------------------------------------------

LANE F ciede2000(F l1, F a1, F b1, F l2, F a2, F b2, M* decided) {
  const F delta_l_prime = l2 - l1;
  const F l_bar = (l1 + l2) / 2.0f;
  const D a1d = dbl(a1), b1d = dbl(b1), a2d = dbl(a2), b2d = dbl(b2);
  const F c1 = flt(sqrt_d(a1d * a1d + b1d * b1d));
  const F c2 = flt(sqrt_d(a2d * a2d + b2d * b2d));
  const F c_bar = (c1 + c2) / 2.0f;
  M pow_ok, h1_ok, h2_ok, dh_ok, t_ok, rt_ok;
  const D c_bar7 = pow7_f64(c_bar, &pow_ok);
  const D g_factor = 1.0 - sqrt_d(c_bar7 / (c_bar7 + kPow25_7));
  const F a_prime_1 = flt(a1d + dbl(a1 / 2.0f) * g_factor);
  const F a_prime_2 = flt(a2d + dbl(a2 / 2.0f) * g_factor);
  const D ap1 = dbl(a_prime_1), ap2 = dbl(a_prime_2);
  const F c_prime_1 = flt(sqrt_d(ap1 * ap1 + b1d * b1d));
  const F c_prime_2 = flt(sqrt_d(ap2 * ap2 + b2d * b2d));
  const F c_bar_prime = (c_prime_1 + c_prime_2) / 2.0f;
  const F delta_c_prime = c_prime_2 - c_prime_1;
  const D l_off = dbl(l_bar - 50.0f);
  const D l_off_sq = l_off * l_off;
  const F s_sub_l = flt(1. + ((0.015 * l_off_sq) / sqrt_d(20.0 + l_off_sq)));
  const D cbp = dbl(c_bar_prime);
  const F s_sub_c = flt(1. + 0.045 * cbp);
  const F h_prime_1 = h_prime(b1, a_prime_1, &h1_ok);
  const F h_prime_2 = h_prime(b2, a_prime_2, &h2_ok);
  const F dh_prime = delta_h_prime(c1, c2, h_prime_1, h_prime_2);
  const F delta_upcase_h_prime =
      mul_sin_to_float(2.0 * sqrt_d(dbl(c_prime_1 * c_prime_2)), dbl(dh_prime) / 2.0, FloatRange::normal, &dh_ok);
  const F h_bar = upcase_h_bar_prime(h_prime_1, h_prime_2);
  const F t = upcase_t(h_bar, &t_ok);
  const F s_sub_upcase_h = flt(1.0 + 0.015 * cbp * dbl(t));
  const F rt = r_sub_t(c_bar_prime, h_bar, &rt_ok);
  const F lightness = delta_l_prime / (splat(kKL) * s_sub_l);
  const F chroma = delta_c_prime / (splat(kKC) * s_sub_c);
  const F hue = delta_upcase_h_prime / (splat(kKH) * s_sub_upcase_h);
  const D ld = dbl(lightness), cd = dbl(chroma), hd = dbl(hue);
  *decided = all(all(pow_ok, all(h1_ok, h2_ok)), all(dh_ok, all(t_ok, rt_ok)));
  return flt(sqrt_d(ld * ld + cd * cd + hd * hd + dbl(rt * chroma * hue)));
}

// The scalar formula for one pair (undecided lanes, the tail); kept out of
// line so that it is built as the scalar code is.
[[gnu::noinline]] float scalar_delta_e(const LabPairs& p, std::size_t k) {
  HostMath m;
  return ::exactvmaf::ciede::ciede2000(Lab{p.l1[k], p.a1[k], p.b1[k]}, Lab{p.l2[k], p.a2[k], p.b2[k]}, m);
}

// The scalar Lab for one colour (undecided lanes, the tail), out of line.
[[gnu::noinline]] Lab scalar_lab(const std::uint32_t* y, const std::uint32_t* u, const std::uint32_t* v, std::size_t k,
                                 const LabScale& s) {
  HostMath m;
  return ::exactvmaf::ciede::lab_from_yuv(y[k], u[k], v[k], s, m);
}

// A batch's last lanes (n not a multiple of kLanes) run in a full vector
// too, padded with copies of the batch's first colour or pair (valid input;
// the padding's values are dropped): the scalar function costs more than a
// whole vector.
LANE_TARGET std::size_t lab(const std::uint32_t* y, const std::uint32_t* u, const std::uint32_t* v, std::size_t n,
                            const LabScale& s, float* l, float* a, float* b) {
  std::size_t scalar = 0;
  for (std::size_t i = 0; i < n; i += kLanes) {
    const std::size_t used = n - i < kLanes ? n - i : kLanes;
    alignas(64) std::uint32_t pad_y[kLanes], pad_u[kLanes], pad_v[kLanes];
    alignas(64) float pad_l[kLanes], pad_a[kLanes], pad_b[kLanes];
    const std::uint32_t *yi = y + i, *ui = u + i, *vi = v + i;
    float *li = l + i, *ai = a + i, *bi = b + i;
    if (used < kLanes) {
      for (std::size_t k = 0; k < kLanes; ++k) {
        const std::size_t from = i + (k < used ? k : 0);
        pad_y[k] = y[from], pad_u[k] = u[from], pad_v[k] = v[from];
      }
      yi = pad_y, ui = pad_u, vi = pad_v;
      li = pad_l, ai = pad_a, bi = pad_b;
    }
    F lf, af, bf;
    M decided;
    lab_from_yuv_shortcut(load_samples(yi), load_samples(ui), load_samples(vi), s, &lf, &af, &bf, &decided);
    store(li, lf);
    store(ai, af);
    store(bi, bf);
    for (std::size_t k = 0; li == pad_l && k < used; ++k) l[i + k] = pad_l[k], a[i + k] = pad_a[k], b[i + k] = pad_b[k];
    const unsigned used_lanes = used < kLanes ? (1u << used) - 1u : kAllLanes;
    for (unsigned undecided = ~lanes_of(decided) & used_lanes; undecided != 0; undecided &= undecided - 1) {
      const std::size_t k = i + static_cast<std::size_t>(__builtin_ctz(undecided));
      const Lab c = scalar_lab(y, u, v, k, s);
      l[k] = c.l, a[k] = c.a, b[k] = c.b;
      ++scalar;
    }
  }
  return scalar;
}

LANE_TARGET std::size_t delta_e(const LabPairs& p, std::size_t n, float* out) {
  std::size_t scalar = 0;
  for (std::size_t i = 0; i < n; i += kLanes) {
    const std::size_t used = n - i < kLanes ? n - i : kLanes;
    alignas(64) float pad[7][kLanes];
    const float *l1 = p.l1 + i, *a1 = p.a1 + i, *b1 = p.b1 + i, *l2 = p.l2 + i, *a2 = p.a2 + i, *b2 = p.b2 + i;
    float* o = out + i;
    if (used < kLanes) {
      for (std::size_t k = 0; k < kLanes; ++k) {
        const std::size_t from = i + (k < used ? k : 0);
        pad[0][k] = p.l1[from], pad[1][k] = p.a1[from], pad[2][k] = p.b1[from];
        pad[3][k] = p.l2[from], pad[4][k] = p.a2[from], pad[5][k] = p.b2[from];
      }
      l1 = pad[0], a1 = pad[1], b1 = pad[2], l2 = pad[3], a2 = pad[4], b2 = pad[5];
      o = pad[6];
    }
    M decided;
    const F v = ciede2000(load(l1), load(a1), load(b1), load(l2), load(a2), load(b2), &decided);
    store(o, v);
    for (std::size_t k = 0; o == pad[6] && k < used; ++k) out[i + k] = pad[6][k];
    const unsigned used_lanes = used < kLanes ? (1u << used) - 1u : kAllLanes;
    for (unsigned undecided = ~lanes_of(decided) & used_lanes; undecided != 0; undecided &= undecided - 1) {
      const std::size_t k = i + static_cast<std::size_t>(__builtin_ctz(undecided));
      out[k] = scalar_delta_e(p, k);
      ++scalar;
    }
  }
  return scalar;
}
