// The simulated column of the claims validation, from what `--simulate` measured
// (claim_measurements.h).
//
// Checked here (by claim id, tile-sizing-m4max.md):
// - 4.2/two-to-four-tgs-sufficient: the fewest resident threadgroups per core whose time is
//   within the sampling bound of the best, against the claimed 2-4;
// - 4.2/eight-plus-diminishing: the speed-up from 8 to the most resident threadgroups, which
//   holds the claim when within the sampling bound;
// - 5.3/fp4-ops-per-element, int4-ops-per-element: the lane ALU instructions the engine counts
//   per element in the dequantization kernels, against the claimed count within 25% ("~");
// - 9/guide-<row>: the row's recommended configuration against the fastest one;
// - 9.1/select-tile-<tile>: select_tile's tile for an M range against the fastest tile at the
//   guide row of that range's upper end (M <= 16: the M=16 row, <= 64, <= 256, > 256: M=1024);
// - 6.x/best-for: each configuration's "best for" shapes likewise (6.1: M=64, 6.2: M=256,
//   6.3: the wide decode shape 16x11008x4096, 6.4: M=1024);
// - 8.2/net-win: the fused 64x64x32 kernel against the separate one on the small-batch row;
// - the phase, barrier, stall and weight-traffic claims: simulated_phase_claims.h.
// Each gets the simulated value and a verdict (for the configuration claims: holds when the
// claimed configuration is the fastest or within the sampling error bound of it, otherwise the
// fastest is the corrected value). The report's counts are recomputed.
#pragma once

#include <vector>

#include "tools/cli/claim_measurements.h"
#include "tools/validate/validate.h"

namespace marlin::cli {

void apply_simulated_claims(validate::ValidationReport& report, const ClaimMeasurements& measured);

}  // namespace marlin::cli
