// The simulated column of the claims about the 64x64x32 kernels' phases and traffic, from the
// phase probes and the stream runs of claim_measurements.h (docs/validation.md, "Phase
// probes" and "Traffic of the weights").
//
// Checked here (by claim id):
// - tile-sizing/7.4/{simdgroup,threadgroup}-barrier-cycles: probe_{simdgroup,threadgroup}_
//   barrier, cycles per barrier with 4 simdgroups;
// - tile-sizing/8.1/load-latency: probe_separate_load (next A tile + B dequantized into
//   threadgroup memory); 8.1/compute-latency: probe_separate_compute (64 multiplies per
//   simdgroup); 8.1/compute-bound: the separate kernel's stall breakdown (matrix busy against
//   the memory, threadgroup-memory and barrier waits);
// - tile-sizing/8.2/a-load-cycles: probe_a_tile_load; dequant-cycles: probe_fused_dequant;
//   inner-total-cycles: probe_fused_inner; inner-iteration-cycles: probe_fused_inner / 64
//   (4 kt x 4 mi x 4 ni steps per K-block);
// - architecture/fused/l2-hits: the level serving the fused kernel's packed-B loads;
// - stripe/2.2/b-streaming: the share of the striped kernel's DRAM line requests of packed B
//   that follow the previous one, against the fused kernel's row-major tile order;
// - stripe/6/dequant-cycles: probe_dequant_word.
// Numbers hold within the claim's tolerance from the claims file (a range: inside it; a "~"
// number without tolerance: within 25%). Claims whose measurement is missing are left as they
// are. Does not recount the report's totals.
#pragma once

#include "tools/cli/claim_measurements.h"
#include "tools/validate/validate.h"

namespace marlin::cli {

void apply_phase_claims(validate::ValidationReport& report, const ClaimMeasurements& measured);

}  // namespace marlin::cli
