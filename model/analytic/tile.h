// Tile: the threadgroup tile of a GEMM main loop (tm rows of A/C, tn columns of B/C, tk of the
// reduction per iteration). Shared by the intensity and budget models.
#pragma once

#include <string>

namespace marlin::analytic {

// The simdgroup matrix unit is 8x8x8, so every tile dimension is a positive multiple of 8.
inline constexpr int kMmaDim = 8;

struct Tile {
  int tm = 0;
  int tn = 0;
  int tk = 0;
};

// Throws InputError naming the first dimension that is not a positive multiple of 8.
void validate_tile(const Tile& tile);

// "64x64x32".
std::string tile_name(const Tile& tile);

}  // namespace marlin::analytic
