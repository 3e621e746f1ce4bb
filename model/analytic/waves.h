// Waves: how many rounds of resident threadgroups a launch takes on the whole GPU, and how full
// the last round (the tail) is. Also the grid of a tiled GEMM.
//
// Contract: plain structs in and out. Zero or negative counts are InputErrors (a launch with
// nothing resident cannot make progress; a refused pipeline has no waves).
#pragma once

#include <cstdint>

namespace marlin::analytic {

struct WaveResult {
  std::int64_t total_threadgroups = 0;
  std::int64_t resident_per_core = 0;
  std::int64_t cores = 0;
  std::int64_t slots = 0;              // resident_per_core * cores: threadgroups in one wave
  std::int64_t waves = 0;              // ceil(total / slots)
  std::int64_t full_waves = 0;         // floor(total / slots)
  std::int64_t tail_threadgroups = 0;  // total - full_waves * slots (0 when the last wave is full)
  double tail_fraction = 0;            // tail / slots: how full the partial last wave is
  double efficiency = 0;               // total / (waves * slots): used share of all wave slots
};

// Throws InputError unless all three counts are at least 1.
WaveResult compute_waves(std::int64_t total_threadgroups, std::int64_t resident_per_core,
                         std::int64_t cores);

// The threadgroup grid of a GEMM with an M x N output cut into tm x tn tiles.
struct GemmGrid {
  std::int64_t tiles_m = 0;       // ceil(M / tm)
  std::int64_t tiles_n = 0;       // ceil(N / tn)
  std::int64_t threadgroups = 0;  // tiles_m * tiles_n
};

// Throws InputError unless all sizes are at least 1.
GemmGrid gemm_grid(std::int64_t m, std::int64_t n, std::int64_t tm, std::int64_t tn);

}  // namespace marlin::analytic
