// PackedWeights: a quantized weight matrix W[K, N] in the layout the kernels read.
//
//   codes        uint32 [format.packed_rows(k), n]   (see code_packing.h, along K, LSB first)
//   scales       FP16   [format.group_count(k), n]   scale of w[r][j] = scales[(r / G) * n + j]
//   zero_points  uint32 [format.group_count(k), ceil(n / 8)] for kU4ZeroPoint, else empty;
//                zero of w[r][j] = nibble (j % 8) of word [(r / G) * ceil(n / 8) + j / 8]
// with G = format.effective_group(k). Dequantization per kind (q = unpacked code):
//   kFp4E2M1      w = decode_e2m1(q) * s
//   kU4B8         w = (q - 8) * s
//   kU4ZeroPoint  w = (q - z) * s
//   kInt8         w = int8(q) * s
// Every product is exact in float (at most 8 significant bits of code times 11 of scale).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/host/fp16.h"
#include "kernels/host/weight_format.h"

namespace marlin::kernels {

struct PackedWeights {
  WeightFormat format;
  std::int64_t k = 0;
  std::int64_t n = 0;
  std::vector<std::uint32_t> codes;
  std::vector<Half> scales;
  std::vector<std::uint32_t> zero_points;

  // Throws InputError unless the shape is positive, the format valid and not kFp16, and every
  // array has the size its layout implies.
  void validate() const;
  // Scale row (group index) of K index r.
  std::int64_t group_of(std::int64_t r) const { return r / format.effective_group(k); }
};

// Packs unpacked data into a PackedWeights. codes [k][n] (4-bit kinds: 0..15; kInt8: the
// two's-complement byte), scales [groups][n], zero_points [groups][n] in 0..15 (only for
// kU4ZeroPoint; must be empty otherwise). Throws InputError on any size or range mismatch.
PackedWeights make_packed_weights(const WeightFormat& format, std::int64_t k, std::int64_t n,
                                  std::span<const std::uint8_t> codes, std::span<const Half> scales,
                                  std::span<const std::uint8_t> zero_points = {});

// `narrow` as the first narrow.n columns of a narrow.k x n matrix. The added columns have code
// 0, scale 0 and zero point 0, so they dequantize to zero. Throws InputError if `narrow` is
// invalid or n < narrow.n.
PackedWeights widen_columns(const PackedWeights& narrow, std::int64_t n);

// Codes [k][n] and zero points [groups][n] back out of the packed arrays.
std::vector<std::uint8_t> unpack_codes(const PackedWeights& weights);
std::vector<std::uint8_t> unpack_zero_points(const PackedWeights& weights);

// Value of one code of the given kind, with its scale and zero point (zero used by
// kU4ZeroPoint only).
float dequantize_code(WeightFormatKind kind, std::uint8_t code, float scale, int zero_point);

// Dequantized W [k][n] in float, exactly as the formulas above.
std::vector<float> dequantize(const PackedWeights& weights);

}  // namespace marlin::kernels
