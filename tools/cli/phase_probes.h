// Phase probes (kernels/probes/phase_probes.metal): each repeats one phase of the 64x64x32
// Marlin kernels R1 and R2 times in one threadgroup alone on the device; the engine runs it,
// the timing model replays it, and the phase's cycles are (T(R2) - T(R1)) / (R2 - R1), the
// calibration's two-launch method (docs/calibration.md). docs/validation.md ("Phase probes")
// documents each probe and its measured figures.
//
// Contract: deterministic (same device, same figures); needs the objects of
// marlin_kernel_programs linked into the executable (they carry the probes' registrations).
// Throws InputError if the device refuses a probe's threadgroup.
#pragma once

#include <cstdint>
#include <string>

#include "model/device/device_spec.h"

namespace marlin::cli {

// Repetitions of the two launches whose difference gives each slope.
inline constexpr std::uint32_t kProbeRepsLow = 4;
inline constexpr std::uint32_t kProbeRepsHigh = 8;
// Threads of every probe's threadgroup: the 64x64x32 kernels' 2x2 simdgroups.
inline constexpr std::uint32_t kProbeThreads = 128;
// Barriers per repetition of the barrier probes (CALIB_REP64).
inline constexpr double kProbeBarriersPerRep = 64;

// The two launches of one probe: total core cycles at kProbeRepsLow and kProbeRepsHigh
// repetitions, and the phases per repetition (64 for the barrier probes, otherwise 1).
struct ProbeTiming {
  std::string kernel;
  std::uint32_t threads = kProbeThreads;
  std::int64_t low = 0;
  std::int64_t high = 0;
  double phases_per_rep = 1;
  // Cycles per phase: (high - low) / ((kProbeRepsHigh - kProbeRepsLow) * phases_per_rep).
  [[nodiscard]] double cycles() const {
    return static_cast<double>(high - low) / ((kProbeRepsHigh - kProbeRepsLow) * phases_per_rep);
  }
};

// Runs `kernel` (one threadgroup of `threads`) at both repetition counts.
ProbeTiming time_probe(const model::DeviceSpec& device, const std::string& kernel,
                       std::uint32_t threads = kProbeThreads, double phases_per_rep = 1);

// Every probe on one device.
struct PhaseProbeResults {
  ProbeTiming threadgroup_barrier;  // one threadgroup_barrier, 4 simdgroups
  ProbeTiming simdgroup_barrier;    // one simdgroup_barrier, 4 simdgroups
  ProbeTiming a_tile_load;          // fused: 64x32 A-tile load + its threadgroup barrier
  ProbeTiming separate_load;        // separate: next A tile + B tile dequantized to TG memory
  ProbeTiming separate_compute;     // separate: the 64 multiplies of each simdgroup, 1 K-block
  ProbeTiming fused_dequant;        // fused: lanes 0-7 load + dequantize one column, stage it
  ProbeTiming fused_inner;          // fused: the inner loop of one K-block (16 (kt, ni) steps)
  ProbeTiming dequant_word;         // one packed E2M1 word dequantized in registers (+1 xor)
};

PhaseProbeResults run_phase_probes(const model::DeviceSpec& device);

}  // namespace marlin::cli
