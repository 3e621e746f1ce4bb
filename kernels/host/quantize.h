// Quantization of FP32 weights W[K, N] (row-major, w[r][j] at r * N + j) into PackedWeights.
//
// Groups: G = group_size consecutive K values of one column share a scale (group_size may be
// kPerColumnGroup; K need not be a multiple of G, the last group is then partial). Per group:
//
//   FP4 E2M1     s = smallest FP16 >= absmax / 6          q = encode_e2m1(w / s)
//   U4B8         s = smallest FP16 >= absmax / 7.5        q = clamp(rne(w / s) + 8, 0, 15)
//   U4 + zero    lo = min(0, min w), hi = max(0, max w)
//                s = smallest FP16 >= (hi - lo) / 15
//                z = clamp(rne(-lo / s), 0, 15)           q = clamp(rne(w / s) + z, 0, 15)
//   INT8         s = smallest FP16 >= absmax / 127        q = clamp(rne(w / s), -127, 127)
//
// rne is round half to even; w / s is computed in double. Rounding the scale up (never down)
// keeps w / s within half a step of the code range, so every element satisfies
// |w - dequant(q)| <= step / 2 * s, where step is the code spacing around w / s (1 for the
// integer formats; 0.5, 1 or 2 for E2M1 magnitudes in [0, 2), [2, 4), [4, 6]). U4B8 uses all
// 16 levels as Marlin's reference does (s = 2 absmax / 15): +absmax maps to 7.5 and clamps to
// 7, exactly half a step. A group of all zeros gets s = 1 (and z = 0): exact zeros.
//
// Throws InputError for a non-positive shape, a size mismatch, an invalid group size, a
// non-finite weight, or a group whose scale would exceed the FP16 range.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "kernels/host/packed_weights.h"
#include "kernels/host/weight_format.h"

namespace marlin::kernels {

PackedWeights pack_fp4_weights(std::span<const float> w, std::int64_t k, std::int64_t n,
                               int group_size);
PackedWeights quantize_u4b8(std::span<const float> w, std::int64_t k, std::int64_t n,
                            int group_size);
PackedWeights quantize_u4_zero_point(std::span<const float> w, std::int64_t k, std::int64_t n,
                                     int group_size);
PackedWeights quantize_int8(std::span<const float> w, std::int64_t k, std::int64_t n,
                            int group_size);

// Dispatches on format.kind (kFp16 is not quantized: InputError).
PackedWeights quantize_weights(std::span<const float> w, std::int64_t k, std::int64_t n,
                               const WeightFormat& format);

// Fills its span with the next rows of W (span.size() / n whole rows), in row order.
using WeightRowSource = std::function<void(std::span<float> rows)>;
// Values of W that quantize_weight_rows() asks for at once, at most (unless a pair of
// groups of rows is larger).
inline constexpr std::int64_t kWeightRowValues = std::int64_t{1} << 22;
// Rows of W each call of a quantize_weight_rows() source gets, but the last call, which gets
// the rest of K: the most whole pairs of groups (effective_group(k)) within kWeightRowValues,
// at least one pair, at most k. An even number unless it is k.
// `format` must be valid and quantized.
std::int64_t weight_rows_per_call(std::int64_t k, std::int64_t n, const WeightFormat& format);
// quantize_weights() of the k x n weights that `next_rows` produces, row by row, without
// holding them all: it holds weight_rows_per_call() rows at a time. The same result and the
// same errors, but for their order: rows are checked as they arrive, so a scale out of range
// in earlier rows is reported before a non-finite weight in later ones.
PackedWeights quantize_weight_rows(std::int64_t k, std::int64_t n, const WeightFormat& format,
                                   const WeightRowSource& next_rows);

}  // namespace marlin::kernels
