// The 8-bit chroma conversions upstream's y4m reader applies (y4m_input.c):
// fixed-point filters with taps summing to 128, (sum + 64) >> 7, clamped to
// [0, 255], sample indices clamped to the plane's edges.
#pragma once
#include <cstddef>
#include <cstdint>

namespace exactvmaf::io {

// One chroma plane of w x h samples: moves the sample sites a quarter pel
// right with taps [4 -17 114 35 -9 1] at x-2..x+3 (C422; the first pass of
// C420paldv).
void chroma_shift_right_quarter(const std::uint8_t* src, std::ptrdiff_t src_stride,
                                std::uint8_t* dst, std::ptrdiff_t dst_stride, unsigned w, unsigned h);

// Vertical quarter-pel moves of C420paldv: Cb up with taps
// [1 -9 35 114 -17 4] at y-3..y+2; Cr down with [4 -17 114 35 -9 1] at y-2..y+3.
void chroma_shift_up_quarter(const std::uint8_t* src, std::ptrdiff_t src_stride,
                             std::uint8_t* dst, std::ptrdiff_t dst_stride, unsigned w, unsigned h);
void chroma_shift_down_quarter(const std::uint8_t* src, std::ptrdiff_t src_stride,
                               std::uint8_t* dst, std::ptrdiff_t dst_stride, unsigned w, unsigned h);

// C411 -> 4:2:2: source rows of src_w = (W+3)/4 samples become rows of
// dst_w = (W+1)/2: even outputs [1 110 18 -1], odd outputs [-3 50 86 -5],
// both at x-1..x+2 of the source.
void chroma_upsample_411_to_422(const std::uint8_t* src, std::ptrdiff_t src_stride, unsigned src_w,
                                std::uint8_t* dst, std::ptrdiff_t dst_stride, unsigned dst_w, unsigned h);

}  // namespace exactvmaf::io
