// The simulated column of the claims validation: the claims about which configuration is
// fastest, answered from the selection guide's sampled runs (selection_guide.h).
//
// Checked here (by claim id, tile-sizing-m4max.md):
// - 9/guide-<row>: the row's recommended configuration against the fastest one;
// - 9.1/select-tile-<tile>: select_tile's tile for an M range against the fastest tile at the
//   guide row of that range's upper end (M <= 16: the M=16 row, <= 64, <= 256, > 256: M=1024);
// - 8.2/net-win: the fused 64x64x32 kernel against the separate one on the small-batch row.
// Each gets the simulated value, and the verdict: holds when the claimed configuration is the
// fastest or within the sampling error bound of it, otherwise does not hold with the fastest as
// the corrected value. The report's counts are recomputed.
#pragma once

#include <vector>

#include "tools/cli/selection_guide.h"
#include "tools/validate/validate.h"

namespace marlin::cli {

void apply_simulated_claims(validate::ValidationReport& report,
                            const std::vector<GuideAnswer>& guide);

}  // namespace marlin::cli
