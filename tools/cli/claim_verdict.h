// Setting a claim's simulated verdict (simulated_claims.cpp, simulated_phase_claims.cpp).
#pragma once

#include <string>
#include <utility>

#include "tools/validate/validate.h"

namespace marlin::cli {

// A claim judged by a simulated number: holds when `holds`, otherwise corrected to `corrected`.
inline void set_simulated_verdict(validate::ClaimResult& r, bool holds, std::string simulated,
                                  std::string corrected, std::string reason) {
  r.simulated = std::move(simulated);
  r.verdict = holds ? validate::Verdict::kHolds : validate::Verdict::kDoesNotHold;
  r.corrected = holds ? std::string() : std::move(corrected);
  r.reason = std::move(reason);
}

}  // namespace marlin::cli
