// The R scaler's plan and CPU implementation (io/rscale.hpp). The filter
// construction follows libswscale 6.7's initFilter and sws_init_context as
// they run for planar YUV -> the same planar YUV with SWS_BITEXACT |
// SWS_ACCURATE_RND on x86-64 (facts from FFmpeg 5.1.9's libswscale/utils.c;
// the code is ours). Everything is int64 fixed point except lanczos's
// coefficients (double, with the project's correctly rounded sin) and the
// filter-trimming threshold (0.002 * a power of two, compared as double);
// both are IEEE operations with one defined result (no contraction: the
// build uses -ffp-contract=off).
#include "io/rscale.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "io/rscale_math.hpp"
#include "numeric/cr_trig.hpp"
#include "numeric/fpenv.hpp"

namespace exactvmaf::io {
namespace {

constexpr double kPi = 3.14159265358979323846;  // M_PI
// libswscale rejects (asks for a cascade of two scalers) filters this large
// or larger under SWS_ACCURATE_RND on x86-64: MAX_FILTER_SIZE * 16 / APCK_SIZE.
constexpr int kCascadeFilterSize = 256 * 16 / 24;
// SWS_MAX_REDUCE_CUTOFF
constexpr double kReduceCutoff = 0.002;

int floor_log2(unsigned v) {  // av_log2: 0 for 0
  int n = 0;
  while (v > 1) {
    v >>= 1;
    ++n;
  }
  return n;
}

std::int64_t abs64(std::int64_t v) { return v < 0 ? -v : v; }

// libswscale's ROUNDED_DIV: halves away from zero.
std::int64_t rounded_div(std::int64_t a, std::int64_t b) { return (a >= 0 ? a + (b >> 1) : a - (b >> 1)) / b; }

// get_local_pos: a chroma position in 1/256 of a luma sample (-513 or -1:
// unset, the centred default), as the position of the plane's own samples.
int local_pos(int subsample, int pos) {
  if (pos == -1 || pos <= -513) pos = (128 << subsample) - 128;
  pos += 128;
  return pos >> subsample;
}

const char* algorithm_name(RScaleAlgorithm a) {
  switch (a) {
    case RScaleAlgorithm::bilinear: return "bilinear";
    case RScaleAlgorithm::lanczos: return "lanczos";
    case RScaleAlgorithm::bicubic: break;
  }
  return "bicubic";
}

// One unnormalised coefficient (scale fone) at distance d (1 << 30 = one
// source sample, already scaled by dst/src when downscaling).
std::int64_t coefficient(RScaleAlgorithm algorithm, std::int64_t d, std::int64_t fone) {
  switch (algorithm) {
    case RScaleAlgorithm::bicubic: {
      // B = 0, C = 0.6 (the defaults) in 8.24; C's conversion truncates.
      constexpr std::int64_t B = 0;
      constexpr std::int64_t C = static_cast<std::int64_t>(0.6 * (1 << 24));
      static_assert(C == 10066329);
      std::int64_t coeff = 0;
      if (d < (std::int64_t{1} << 31)) {
        const std::int64_t dd = (d * d) >> 30;
        const std::int64_t ddd = (dd * d) >> 30;
        if (d < (std::int64_t{1} << 30))
          coeff = (12 * (1 << 24) - 9 * B - 6 * C) * ddd + (-18 * (1 << 24) + 12 * B + 6 * C) * dd +
                  (6 * (1 << 24) - 2 * B) * (std::int64_t{1} << 30);
        else
          coeff = (-B - 6 * C) * ddd + (6 * B + 30 * C) * dd + (-12 * B - 48 * C) * d +
                  (8 * B + 24 * C) * (std::int64_t{1} << 30);
      }
      return coeff / ((std::int64_t{1} << 54) / fone);
    }
    case RScaleAlgorithm::bilinear: {
      std::int64_t coeff = (std::int64_t{1} << 30) - d;
      if (coeff < 0) coeff = 0;
      return coeff * (fone >> 30);
    }
    case RScaleAlgorithm::lanczos: {
      // p = 3 (the default); double arithmetic in libswscale's order, the
      // product with fone (a power of two) truncated to int64.
      const double p = 3.0;
      const double x = static_cast<double>(d) * (1.0 / (1 << 30));
      if (x > p) return 0;
      double c = 1.0;
      if (d != 0) {
        const double num = rmath::cr_sin(x * kPi) * rmath::cr_sin(x * kPi / p);
        const double den = x * x * kPi * kPi / p;
        c = num / den;
      }
      return static_cast<std::int64_t>(c * static_cast<double>(fone));
    }
  }
  return 0;
}

}  // namespace

RScaleFilter rscale_build_filter(RScaleAlgorithm algorithm, int src_w, int dst_w, std::int64_t inc, int align,
                                 int one, int src_pos, int dst_pos) {
  if (src_w < 1 || dst_w < 1) throw Error("rscale: empty plane");
  const std::int64_t fone = std::int64_t{1} << (54 - std::min(floor_log2(static_cast<unsigned>(src_w / dst_w)), 8));
  std::vector<std::int32_t> pos(static_cast<std::size_t>(dst_w));
  std::vector<std::int64_t> filter;
  int size = 0;
  const auto at = [](std::vector<std::int64_t>& f, int n, int i, int j) -> std::int64_t& {
    return f[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)];
  };

  if (abs64(inc - 0x10000) < 10 && src_pos == dst_pos) {
    // Unscaled in this direction: one tap at the same position.
    size = 1;
    filter.assign(static_cast<std::size_t>(dst_w), fone);
    for (int i = 0; i < dst_w; ++i) pos[static_cast<std::size_t>(i)] = i;
  } else {
    const int size_factor = algorithm == RScaleAlgorithm::bicubic    ? 4
                            : algorithm == RScaleAlgorithm::bilinear ? 2
                                                                     : 6;
    if (inc <= (1 << 16)) size = 1 + size_factor;
    else size = 1 + static_cast<int>((static_cast<std::int64_t>(size_factor) * src_w + dst_w - 1) / dst_w);
    size = std::max(std::min(size, src_w - 2), 1);
    filter.assign(static_cast<std::size_t>(dst_w) * static_cast<std::size_t>(size), 0);
    std::int64_t x_dst_in_src = ((dst_pos * inc) >> 7) - ((src_pos * std::int64_t{0x10000}) >> 7);
    for (int i = 0; i < dst_w; ++i) {
      int xx = static_cast<int>((x_dst_in_src - (size - 2) * (std::int64_t{1} << 16)) / (1 << 17));
      pos[static_cast<std::size_t>(i)] = xx;
      for (int j = 0; j < size; ++j) {
        std::int64_t d = abs64(static_cast<std::int64_t>(xx) * (1 << 17) - x_dst_in_src) << 13;
        if (inc > (1 << 16)) d = d * dst_w / src_w;
        at(filter, size, i, j) = coefficient(algorithm, d, fone);
        ++xx;
      }
      x_dst_in_src += 2 * inc;
    }
  }

  // Trim near-zero taps: from the left (moving the position) and count them
  // on the right; the filter size becomes the largest kept width, aligned.
  const double cutoff = kReduceCutoff * static_cast<double>(fone);
  const int size2 = size;
  int min_size = 0;
  for (int i = dst_w - 1; i >= 0; --i) {
    int kept = size2;
    std::int64_t cut = 0;
    for (int j = 0; j < size2; ++j) {
      cut += abs64(at(filter, size2, i, 0));
      if (static_cast<double>(cut) > cutoff) break;
      if (i < dst_w - 1 && pos[static_cast<std::size_t>(i)] >= pos[static_cast<std::size_t>(i) + 1]) break;
      for (int k = 1; k < size2; ++k) at(filter, size2, i, k - 1) = at(filter, size2, i, k);
      at(filter, size2, i, size2 - 1) = 0;
      ++pos[static_cast<std::size_t>(i)];
    }
    cut = 0;
    for (int j = size2 - 1; j > 0; --j) {
      cut += abs64(at(filter, size2, i, j));
      if (static_cast<double>(cut) > cutoff) break;
      --kept;
    }
    min_size = std::max(min_size, kept);
  }
  // x86 (MMX): a one-tap vertical filter is not padded to two.
  if (min_size == 1 && align == 2) align = 1;
  size = (min_size + (align - 1)) & ~(align - 1);
  if (size >= kCascadeFilterSize)
    throw Error(fmt::format("rscale: {} -> {} needs a filter of {} taps (libswscale would cascade two scalers)",
                            src_w, dst_w, size));
  std::vector<std::int64_t> f(static_cast<std::size_t>(dst_w) * static_cast<std::size_t>(size), 0);
  for (int i = 0; i < dst_w; ++i)
    for (int j = 0; j < size; ++j)
      if (j < size2 && j < min_size) at(f, size, i, j) = at(filter, size2, i, j);  // SWS_BITEXACT: zero past min_size

  // Borders: taps before the first sample go onto it; a filter reaching past
  // the last sample moves left, the taps past the end going onto the last.
  for (int i = 0; i < dst_w; ++i) {
    std::int32_t& p = pos[static_cast<std::size_t>(i)];
    if (p < 0) {
      for (int j = 1; j < size; ++j) {
        const int left = std::max(j + p, 0);
        at(f, size, i, left) += at(f, size, i, j);
        at(f, size, i, j) = 0;
      }
      p = 0;
    }
    if (p + size > src_w) {
      const int shift = p + std::min(size - src_w, 0);
      std::int64_t acc = 0;
      for (int j = size - 1; j >= 0; --j)
        if (p + j >= src_w) {
          acc += at(f, size, i, j);
          at(f, size, i, j) = 0;
        }
      for (int j = size - 1; j >= 0; --j) at(f, size, i, j) = j < shift ? 0 : at(f, size, i, j - shift);
      p -= shift;
      at(f, size, i, src_w - 1 - p) += acc;
    }
    if (p < 0 || p >= src_w) throw Error("rscale: internal error: filter position out of range");
  }

  // Normalise to `one`, carrying each rounding error to the next tap.
  RScaleFilter out;
  out.src_size = src_w;
  out.dst_size = dst_w;
  out.size = size;
  out.coef.assign(static_cast<std::size_t>(dst_w) * static_cast<std::size_t>(size), 0);
  out.count.resize(static_cast<std::size_t>(dst_w));
  for (int i = 0; i < dst_w; ++i) {
    std::int64_t sum = 0;
    for (int j = 0; j < size; ++j) sum += at(f, size, i, j);
    sum = (sum + one / 2) / one;
    if (sum == 0) sum = 1;
    std::int64_t error = 0;
    for (int j = 0; j < size; ++j) {
      const std::int64_t v = at(f, size, i, j) + error;
      const int q = static_cast<int>(rounded_div(v, sum));
      out.coef[static_cast<std::size_t>(i) * static_cast<std::size_t>(size) + static_cast<std::size_t>(j)] =
          static_cast<std::int16_t>(q);
      error = v - q * sum;
    }
    const int p = pos[static_cast<std::size_t>(i)];
    const int count = std::min(size, src_w - p);
    for (int j = count; j < size; ++j)
      if (out.coef[static_cast<std::size_t>(i) * static_cast<std::size_t>(size) + static_cast<std::size_t>(j)] != 0)
        throw Error("rscale: internal error: a coefficient past the source's end");
    out.count[static_cast<std::size_t>(i)] = count;
  }
  out.pos = std::move(pos);
  return out;
}

RScalePlan::RScalePlan(const VideoFormat& src, unsigned dst_width, unsigned dst_height, RScaleAlgorithm algorithm)
    : src_(src), dst_(src), algorithm_(algorithm) {
  dst_.width = dst_width;
  dst_.height = dst_height;
  const auto refuse = [&](const std::string& why) {
    return Error(fmt::format("rscale: cannot scale {} to {}x{} {}: {}", src.describe(), dst_width, dst_height,
                             algorithm_name(algorithm), why));
  };
  if (src.pix_fmt == PixelFormat::yuv400) throw refuse("4:0:0 (gray) is not supported");
  if (src.bitdepth != 8 && src.bitdepth != 10 && src.bitdepth != 12)
    throw refuse("only 8, 10 and 12 bits are supported");
  if (src.width < 1 || src.height < 1 || dst_width < 1 || dst_height < 1 || src.width > 65535 ||
      src.height > 65535 || dst_width > 65535 || dst_height > 65535)
    throw refuse("sizes must be 1 to 65535");
  FpEnvGuard fp_env;  // lanczos's double arithmetic runs in the reference environment
  const int hsub = src.pix_fmt == PixelFormat::yuv444 ? 0 : 1;
  const int vsub = src.pix_fmt == PixelFormat::yuv420 ? 1 : 0;
  // av::make_sws: horizontal chroma position unset (-513), vertical 128 for
  // 8-bit 4:2:0 and unset otherwise (both give 128 below).
  const int v_chr_pos = src.pix_fmt == PixelFormat::yuv420 && src.bitdepth == 8 ? 128 : -513;
  for (unsigned p = 0; p < 3; ++p) {
    const std::int64_t sw = src.plane_width(p), sh = src.plane_height(p);
    const std::int64_t dw = dst_.plane_width(p), dh = dst_.plane_height(p);
    const std::int64_t x_inc = ((sw << 16) + (dw >> 1)) / dw;
    const std::int64_t y_inc = ((sh << 16) + (dh >> 1)) / dh;
    if (x_inc < 10 || y_inc < 10 || x_inc > 0x7fffffff || y_inc > 0x7fffffff) throw refuse("ratio out of range");
    const int h_pos = p == 0 ? local_pos(0, 0) : local_pos(hsub, -513);
    const int v_pos = p == 0 ? local_pos(0, 0) : local_pos(vsub, v_chr_pos);
    planes_[p].h = rscale_build_filter(algorithm, static_cast<int>(sw), static_cast<int>(dw), x_inc, 4, 1 << 14,
                                       h_pos, h_pos);
    planes_[p].v = rscale_build_filter(algorithm, static_cast<int>(sh), static_cast<int>(dh), y_inc, 2, 1 << 12,
                                       v_pos, v_pos);
  }
}

namespace {

// One source row's horizontal pass: rscale::hscale_sample for every output
// column, with `Taps` (when not 0) the filter size as a constant where a
// column has all of its taps (integer sums: the order does not matter).
template <int Taps, class Sample>
void hscale_row(const RScaleFilter& h, const Sample* row, std::int16_t* out, int shift) {
  const std::size_t w = static_cast<std::size_t>(h.dst_size);
  for (std::size_t x = 0; x < w; ++x) {
    const std::int16_t* coef = h.coef.data() + x * static_cast<std::size_t>(h.size);
    if constexpr (Taps > 0) {
      if (h.count[x] == Taps) {
        out[x] = rscale::hscale_sample(row + h.pos[x], coef, Taps, shift);
        continue;
      }
    }
    out[x] = rscale::hscale_sample(row + h.pos[x], coef, h.count[x], shift);
  }
}

template <class Sample>
void scale_plane(const RScalePlane& pl, const std::uint8_t* src, std::ptrdiff_t src_stride, std::uint8_t* dst,
                 std::ptrdiff_t dst_stride, unsigned bits) {
  const RScaleFilter& h = pl.h;
  const RScaleFilter& v = pl.v;
  const std::size_t w = static_cast<std::size_t>(h.dst_size);
  const int hshift = bits == 8 ? 7 : static_cast<int>(bits) - 1;
  // Scratch kept per thread: a 4K frame's intermediates are 16 MB, not to
  // be allocated (and faulted in) again for every plane of every frame.
  thread_local std::vector<std::int16_t> mid;
  thread_local std::vector<std::uint32_t> acc;
  mid.resize(static_cast<std::size_t>(v.src_size) * w);
  acc.resize(w);
  for (int y = 0; y < v.src_size; ++y) {
    const Sample* row = reinterpret_cast<const Sample*>(src + static_cast<std::ptrdiff_t>(y) * src_stride);
    std::int16_t* out = mid.data() + static_cast<std::size_t>(y) * w;
    switch (h.size) {  // the common sizes with a constant tap count, which the compiler unrolls
      case 4: hscale_row<4>(h, row, out, hshift); break;
      case 8: hscale_row<8>(h, row, out, hshift); break;
      default: hscale_row<0>(h, row, out, hshift); break;
    }
  }
  // The vertical pass a row at a time: each output row accumulates its
  // source rows in order (the sums of rscale::vscale_sample_8 / _hi, in
  // uint32 so that wrapping is defined), so the loops run along rows and
  // vectorise. The GPU runs the per-sample functions: the same sums.
  const int b = static_cast<int>(bits);
  const int vshift = sizeof(Sample) == 1 ? 19 : 27 - b;
  const std::uint32_t start = sizeof(Sample) == 1 ? 64u << 12 : std::uint32_t{1} << (vshift - 1);
  const std::int32_t max = (std::int32_t{1} << b) - 1;
  for (int y = 0; y < v.dst_size; ++y) {
    const std::size_t yy = static_cast<std::size_t>(y);
    const std::int16_t* first = mid.data() + static_cast<std::size_t>(v.pos[yy]) * w;
    const std::int16_t* coef = v.coef.data() + yy * static_cast<std::size_t>(v.size);
    Sample* out = reinterpret_cast<Sample*>(dst + static_cast<std::ptrdiff_t>(y) * dst_stride);
    if (v.size == 1) {
      for (std::size_t x = 0; x < w; ++x) {
        if constexpr (sizeof(Sample) == 1) out[x] = rscale::vscale_one_8(first[x]);
        else out[x] = rscale::vscale_one_hi(first[x], b);
      }
      continue;
    }
    std::fill(acc.begin(), acc.end(), start);
    for (int j = 0; j < v.count[yy]; ++j) {
      const std::int16_t* row = first + static_cast<std::size_t>(j) * w;
      const std::int32_t c = coef[j];
      for (std::size_t x = 0; x < w; ++x) acc[x] += static_cast<std::uint32_t>(static_cast<std::int32_t>(row[x]) * c);
    }
    for (std::size_t x = 0; x < w; ++x)
      out[x] = static_cast<Sample>(rscale::clip_int(static_cast<std::int32_t>(acc[x]) >> vshift, max));
  }
}

}  // namespace

void RScalePlan::scale(const PictureView& in, FrameBuffer& out) const {
  if (in.device) throw Error("rscale: the CPU scaler reads host frames, this one is in device memory");
  if (!(in.format == src_)) throw Error("rscale: the input frame is " + in.format.describe() + ", not " + src_.describe());
  if (!(out.format() == dst_))
    throw Error("rscale: the output frame is " + out.format().describe() + ", not " + dst_.describe());
  for (unsigned p = 0; p < 3; ++p) {
    if (src_.bitdepth == 8)
      scale_plane<std::uint8_t>(planes_[p], in.data[p], in.stride[p], out.plane(p), out.stride(p), 8);
    else
      scale_plane<std::uint16_t>(planes_[p], in.data[p], in.stride[p], out.plane(p), out.stride(p), src_.bitdepth);
  }
}

}  // namespace exactvmaf::io
