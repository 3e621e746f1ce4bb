#include "kernels/launch/problem_operands.h"

#include <algorithm>

#include "kernels/host/quantize.h"
#include "kernels/host/test_inputs.h"
#include "kernels/host/widen_rows.h"

namespace marlin::kernels {
namespace {

// `part` clipped to `extent`; all of `extent` when `part` is 0 (or negative).
std::int64_t drawn_part(std::int64_t part, std::int64_t extent) {
  return part <= 0 ? extent : std::min(part, extent);
}

}  // namespace

ProblemOperands::ProblemOperands(const GemmProblem& p, const WeightFormat& format,
                                 std::uint64_t seed, std::int64_t rows, std::int64_t columns) {
  rows = drawn_part(rows, p.m);
  columns = drawn_part(columns, p.n);
  RandomInputs random(seed);
  a = random.uniform_half(rows * p.k);
  a.resize(static_cast<std::size_t>(p.m * p.k), Half{});
  operands.a = a;
  if (format.kind == WeightFormatKind::kFp16) {
    const std::vector<float> w = random.normal_float(p.k * columns, 0.5);
    b = widen_rows(to_half_vector(w), p.k, columns, p.n);
    dense = to_float_vector(b);
    operands.b = b;
    if (p.bias) bias = random.uniform_half(p.n);
    operands.bias = bias;
  } else {
    // Drawn and quantized a few rows at a time (the same values as one draw of all of W).
    packed = quantize_weight_rows(p.k, columns, format,
                                  [&random](std::span<float> w) { random.normal_float(w, 0.5); });
    if (columns < p.n) packed = widen_columns(packed, p.n);
    operands.weights = &packed;
  }
}

}  // namespace marlin::kernels
