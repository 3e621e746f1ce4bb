#include "tools/cli/simulated_phase_claims.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "tools/cli/claim_verdict.h"
#include "tools/validate/claims.h"

namespace marlin::cli {
namespace {

// "~" numbers without a tolerance in the claims file hold within this fraction.
constexpr double kApproximateTolerance = 0.25;

// The interval a claimed number or range allows.
struct Allowed {
  double low = 0;
  double high = 0;
  std::string text;  // e.g. "4 +/- 1", "100-200", "1280 +/- 25%"
};

std::optional<Allowed> allowed_of(const validate::ClaimResult& claim) {
  if (const auto* range = std::get_if<validate::ClaimedRange>(&claim.claimed_value)) {
    const double slack = claim.tolerance.absolute;
    return Allowed{range->min - slack, range->max + slack, claim.claimed};
  }
  const auto* number = std::get_if<double>(&claim.claimed_value);
  if (number == nullptr) return std::nullopt;
  const validate::Tolerance& t = claim.tolerance;
  if (t.absolute > 0 || t.relative > 0) {
    const double tol = std::max(t.absolute, t.relative * std::fabs(*number));
    return Allowed{
        *number - tol, *number + tol,
        fmt::format("{} +/- {}", validate::format_number(*number), validate::format_number(tol))};
  }
  const double tol = kApproximateTolerance * std::fabs(*number);
  return Allowed{*number - tol, *number + tol,
                 fmt::format("~{} (+/- 25%)", validate::format_number(*number))};
}

std::string cycles_text(double cycles) { return fmt::format("{:.2f}", cycles); }

// The formula and figures of one probe, e.g. "probe_a_tile_load (1 threadgroup x 128
// threads): (T(8) - T(4)) / 4 = (5000 - 3000) / 4 = 500 cycles".
std::string probe_formula(const ProbeTiming& t, double divisor = 1) {
  const double per_rep = t.phases_per_rep * divisor;
  const std::string over = per_rep == 1 ? "" : fmt::format(" x {}", per_rep);
  return fmt::format(
      "{} (1 threadgroup x {} threads): (T({}) - T({})) / ({}{}) = ({} - {}) / {} "
      "= {} cycles",
      t.kernel, t.threads, kProbeRepsHigh, kProbeRepsLow, kProbeRepsHigh - kProbeRepsLow, over,
      t.high, t.low, validate::format_number((kProbeRepsHigh - kProbeRepsLow) * per_rep),
      cycles_text(t.cycles() / divisor));
}

// A cycle claim against one probe (its cycles divided by `divisor`), `what` says what the
// probe repeats.
void judge_cycles(validate::ClaimResult& r, const ProbeTiming& t, const std::string& what,
                  double divisor = 1) {
  const std::optional<Allowed> allowed = allowed_of(r);
  if (!allowed) return;
  const double cycles = t.cycles() / divisor;
  const bool holds = cycles >= allowed->low && cycles <= allowed->high;
  set_simulated_verdict(r, holds, cycles_text(cycles), cycles_text(cycles),
                        fmt::format("{}; {}: {} claimed {}", what, probe_formula(t, divisor),
                                    holds ? "within" : "outside", allowed->text));
}

std::string percent(std::int64_t part, std::int64_t whole) {
  return whole == 0 ? std::string("0%")
                    : fmt::format("{:.1f}%",
                                  100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

void judge_compute_bound(validate::ClaimResult& r, const ClaimMeasurements& m) {
  if (!m.separate_breakdown) return;
  using timing::StallClass;
  const timing::StallBreakdown& b = *m.separate_breakdown;
  const std::int64_t matrix = b[StallClass::kMatrixBusy];
  const std::int64_t memory = b[StallClass::kMemoryWait];
  const std::int64_t tgm = b[StallClass::kThreadgroupMemoryWait];
  const std::int64_t barrier = b[StallClass::kBarrierWait];
  const std::int64_t waits = memory + tgm + barrier;
  const std::int64_t busy = b.total() - b[StallClass::kIdle] - b[StallClass::kTail];
  const bool holds = matrix > waits;
  std::string largest = "memory-wait-bound";
  if (tgm >= memory && tgm >= barrier) largest = "threadgroup-memory-bound";
  if (barrier >= memory && barrier > tgm) largest = "barrier-bound";
  const std::string shares = fmt::format(
      "matrix busy {}, memory wait {}, threadgroup-memory wait {}, barrier wait {} of the "
      "occupied slot-cycles",
      percent(matrix, busy), percent(memory, busy), percent(tgm, busy), percent(barrier, busy));
  std::string probes;
  if (m.phases) {
    probes = fmt::format("; probes: compute phase {} cycles, load phase {} cycles",
                         cycles_text(m.phases->separate_compute.cycles()),
                         cycles_text(m.phases->separate_load.cycles()));
  }
  set_simulated_verdict(
      r, holds, holds ? "compute-bound" : largest, largest,
      fmt::format("full run of marlin_gemm_fp4 64x64x32 at {}: {}; compute-bound when "
                  "matrix busy exceeds the three waits together ({} vs {}){}",
                  m.stream_shape, shares, percent(matrix, busy), percent(waits, busy), probes));
}

void judge_l2_hits(validate::ClaimResult& r, const ClaimMeasurements& m) {
  if (!m.fused_b) return;
  const BufferLoads& b = *m.fused_b;
  // Loads beyond the first of each line; the first ones are the DRAM (cold) fetches.
  const std::int64_t repeats = b.total() - m.b_lines;
  // The level serving the most loads (ties: the nearer level).
  std::pair<std::int64_t, std::string> most{b.l1, "L1 hits"};
  for (const auto& level : {std::pair<std::int64_t, std::string>{b.l2, "L2 hits"},
                            {b.slc, "SLC hits"},
                            {b.dram, "DRAM (misses)"}}) {
    if (level.first > most.first) most = level;
  }
  const bool holds = most.second == "L2 hits";
  set_simulated_verdict(
      r, holds,
      fmt::format("L1 {}, L2 {}, SLC {}, DRAM {}", percent(b.l1, b.total()),
                  percent(b.l2, b.total()), percent(b.slc, b.total()), percent(b.dram, b.total())),
      fmt::format("{} ({} of the packed-B loads)", most.second, percent(most.first, b.total())),
      fmt::format("full run of marlin_gemm_fused_fp4 64x64x32 at {} (timing-model "
                  "counters memory.buffer1.*): {} line loads of packed B for {} distinct "
                  "lines ({} repeats); served by L1 {}, L2 {}, SLC {}, DRAM {}; L2 hits if L2 "
                  "serves the most",
                  m.stream_shape, b.total(), m.b_lines, repeats, b.l1, b.l2, b.slc, b.dram));
}

void judge_b_streaming(validate::ClaimResult& r, const ClaimMeasurements& m) {
  if (!m.striped_b || !m.fused_b) return;
  const BufferLoads& col = *m.striped_b;
  const BufferLoads& row = *m.fused_b;
  const auto fraction = [](const BufferLoads& b) {
    return b.dram == 0 ? 0.0 : static_cast<double>(b.dram_sequential) / static_cast<double>(b.dram);
  };
  const bool holds = fraction(col) >= 0.5;
  const std::string simulated = fmt::format("{:.1f}% sequential (row-major order: {:.1f}%)",
                                            100 * fraction(col), 100 * fraction(row));
  set_simulated_verdict(
      r, holds, simulated, simulated,
      fmt::format("full runs at {} (counter memory.buffer1.dram_sequential: DRAM line requests "
                  "of packed B whose line follows the previous one, in DRAM request order): "
                  "marlin_gemm_fp4_striped (column-major tiles) {} of {} DRAM lines, {} B loads "
                  "in all; marlin_gemm_fused_fp4 (row-major tiles) {} of {}, {} loads; "
                  "sequential when at least half are",
                  m.stream_shape, col.dram_sequential, col.dram, col.total(), row.dram_sequential,
                  row.dram, row.total()));
}

// The cycle claims: the probe each is judged against, what it repeats, and the divisor from
// the probe's cycles to the claimed unit.
struct CycleClaim {
  ProbeTiming PhaseProbeResults::*probe;
  const char* what;
  double divisor = 1;
};
const std::map<std::string, CycleClaim> kCycleClaims = {
    {"tile-sizing/7.4/simdgroup-barrier-cycles",
     {&PhaseProbeResults::simdgroup_barrier,
      "64 simdgroup_barrier per repetition, 4 simdgroups (the profile's "
      "threadgroup_memory.simdgroup_barrier is an unpublished estimate)"}},
    {"tile-sizing/7.4/threadgroup-barrier-cycles",
     {&PhaseProbeResults::threadgroup_barrier,
      "64 threadgroup_barrier per repetition, 4 simdgroups (the profile's "
      "threadgroup_memory.threadgroup_barrier is an unpublished estimate)"}},
    {"tile-sizing/8.1/load-latency",
     {&PhaseProbeResults::separate_load,
      "the separate kernel's load of the next 64x32 A tile and 32x64 B tile dequantized into "
      "threadgroup memory, operands in L1 (best case; each load's following arithmetic waits "
      "for it, so one thread's loads do not overlap)"}},
    {"tile-sizing/8.1/compute-latency",
     {&PhaseProbeResults::separate_compute,
      "the separate kernel's compute of one K-block: 4 x 16 = 64 multiplies per simdgroup from "
      "threadgroup memory"}},
    {"tile-sizing/8.2/a-load-cycles",
     {&PhaseProbeResults::a_tile_load,
      "the fused kernel's cooperative 64x32 A-tile load (4096 B) and its barrier, A in L1 (best "
      "case; each load's following arithmetic waits for it, so one thread's loads do not "
      "overlap)"}},
    {"tile-sizing/8.2/dequant-cycles",
     {&PhaseProbeResults::fused_dequant,
      "lanes 0-7 of each simdgroup load one packed word + scale, dequantize it and write the "
      "column to the staging block, words in L1 (best case; each load's following arithmetic "
      "waits for it)"}},
    {"tile-sizing/8.2/inner-total-cycles",
     {&PhaseProbeResults::fused_inner,
      "the fused kernel's inner loop of one K-block (4 kt x 4 ni dequant steps, 64 multiplies "
      "per simdgroup), words in L1 (best case)"}},
    {"tile-sizing/8.2/inner-iteration-cycles",
     {&PhaseProbeResults::fused_inner,
      "one (kt, mi, ni) step = the fused inner loop of one K-block / (4 x 4 x 4)", 64}},
    {"stripe/6/dequant-cycles",
     {&PhaseProbeResults::dequant_word,
      "dequant_fp4_word on one packed word in registers (plus the xor that chains the words), "
      "1 simdgroup"}},
};

}  // namespace

void apply_phase_claims(validate::ValidationReport& report, const ClaimMeasurements& measured) {
  for (validate::ClaimResult& r : report.results) {
    if (r.id == "architecture/fused/l2-hits") {
      judge_l2_hits(r, measured);
      continue;
    }
    if (r.id == "stripe/2.2/b-streaming") {
      judge_b_streaming(r, measured);
      continue;
    }
    if (r.id == "tile-sizing/8.1/compute-bound") {
      judge_compute_bound(r, measured);
      continue;
    }
    const auto probe = kCycleClaims.find(r.id);
    if (!measured.phases || probe == kCycleClaims.end()) continue;
    const CycleClaim& cc = probe->second;
    judge_cycles(r, (*measured.phases).*(cc.probe), cc.what, cc.divisor);
  }
}

}  // namespace marlin::cli
