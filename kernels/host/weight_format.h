// WeightFormat: what a weight matrix W[K, N] is stored as, and how many bytes that takes.
//
// The kernels, the kernel-selection table and the memory-traffic model all read this one
// description. Layouts (docs/weight-formats.md):
//   codes   uint32 [ceil(K / codes_per_word), N]; code of w[k][n] at bits
//           bits * (k % codes_per_word) of word [k / codes_per_word][n] (LSB first, along K)
//   scales  FP16 [groups, N], groups = ceil(K / group), per column: 1 group of K
//   zeros   (kU4ZeroPoint only) uint32 [groups, ceil(N / 8)], 8 4-bit zero points along N
#pragma once

#include <cstdint>
#include <string>

namespace marlin::kernels {

enum class WeightFormatKind {
  kFp16,         // plain FP16 weights [K, N], no scales (the classic matmuls)
  kFp4E2M1,      // FP4 E2M1 codes, FP16 group scales: w = e2m1(code) * s
  kU4B8,         // unsigned 4-bit, fixed zero 8 (GPTQ symmetric): w = (q - 8) * s
  kU4ZeroPoint,  // unsigned 4-bit with a 4-bit zero point per group and column: w = (q - z) * s
  kInt8,         // signed 8-bit (two's complement), symmetric: w = q * s
};

// Group size meaning "one group spanning all of K" (per-column scales), as in Marlin's -1.
inline constexpr int kPerColumnGroup = -1;

struct WeightFormat {
  WeightFormatKind kind = WeightFormatKind::kFp4E2M1;
  // Consecutive K values sharing one scale: a positive multiple of 8, or kPerColumnGroup.
  // Ignored for kFp16.
  int group_size = 128;

  // Throws InputError unless group_size is valid for the kind.
  void validate() const;

  // Bits of one stored code (16 for kFp16, 4 for the 4-bit kinds, 8 for kInt8).
  int code_bits() const;
  // Codes per uint32 word (32 / code_bits); 0 for kFp16, which is not packed.
  int codes_per_word() const;
  bool has_scales() const { return kind != WeightFormatKind::kFp16; }
  bool has_zero_points() const { return kind == WeightFormatKind::kU4ZeroPoint; }

  // Group size in K values for a matrix with k rows (k itself for kPerColumnGroup).
  std::int64_t effective_group(std::int64_t k) const;
  // Scale rows: ceil(k / effective_group(k)); 0 for kFp16.
  std::int64_t group_count(std::int64_t k) const;
  // Rows of packed words: ceil(k / codes_per_word()).
  std::int64_t packed_rows(std::int64_t k) const;

  // Storage of a k x n matrix in bytes, padding included.
  std::int64_t weight_bytes(std::int64_t k, std::int64_t n) const;
  std::int64_t scale_bytes(std::int64_t k, std::int64_t n) const;
  std::int64_t zero_point_bytes(std::int64_t k, std::int64_t n) const;
  std::int64_t total_bytes(std::int64_t k, std::int64_t n) const;
  // Storage bits per weight, scales and zero points included: 8 * total_bytes / (k * n).
  double bits_per_weight(std::int64_t k, std::int64_t n) const;

  // Short name, e.g. "fp4_e2m1/g128", "u4b8/per_column", "fp16".
  std::string name() const;

  bool operator==(const WeightFormat&) const = default;
};

// Name of a kind as used in name(): "fp16", "fp4_e2m1", "u4b8", "u4_zp", "int8".
const char* weight_format_kind_name(WeightFormatKind kind);

}  // namespace marlin::kernels
