// Check methods on what a kernel's main loop does per iteration: dequantization work, the
// cooperative A-tile load map, and threadgroup-memory bank conflicts of simdgroup loads.
#include <algorithm>
#include <map>
#include <set>

#include "fmt/core.h"
#include "model/common/input_error.h"
#include "tools/validate/claims.h"
#include "tools/validate/dequant_count.h"
#include "tools/validate/method_params.h"

namespace marlin::validate::detail {

using nlohmann::json;

MethodValue dequant_ops(const json& check, const CheckContext& /*context*/) {
  DequantQuery query;
  query.tile = parse_tile(param_string(check, "tile"));
  const std::string kernel = param_string(check, "kernel");
  if (kernel == "separate") {
    query.kernel = DequantKernel::kSeparate;
  } else if (kernel == "fused") {
    query.kernel = DequantKernel::kFused;
    query.simdgroups = param_int_or(check, "simdgroups", 4);
    query.sg_m_tiles = param_int_or(check, "sg_m_tiles", 0);
    query.sg_n_tiles = param_int_or(check, "sg_n_tiles", 0);
  } else {
    throw InputError(fmt::format("dequant kernel '{}' is not separate or fused", kernel));
  }
  query.ops_per_element = param_number(check, "ops_per_element");
  const DequantCount c = count_dequant(query);
  const std::string how = query.kernel == DequantKernel::kSeparate
                              ? fmt::format("{} x {} B elements once", query.tile.tk, query.tile.tn)
                              : fmt::format("{} SG x {} kt x {} mi x {} ni x 64 = {} elements",
                                            query.simdgroups, query.tile.tk / 8, query.sg_m_tiles,
                                            query.sg_n_tiles, c.dequantized_elements);
  const std::string work = fmt::format("{} {}: {} x {} ops = {} ops / {} FLOPs = {:.2f}%",
                                       analytic::tile_name(query.tile), kernel, how,
                                       format_number(query.ops_per_element), format_number(c.ops),
                                       c.useful_flops, c.overhead_percent);
  const std::string quantity = param_string(check, "quantity");
  if (quantity == "elements")
    return number_value(static_cast<double>(c.dequantized_elements), work);
  if (quantity == "ops") return number_value(c.ops, work);
  if (quantity == "overhead_percent") return number_value(c.overhead_percent, work);
  throw InputError(fmt::format("unknown dequant_ops quantity '{}'", quantity));
}

MethodValue a_load(const json& check, const CheckContext& /*context*/) {
  const analytic::Tile tile = parse_tile(param_string(check, "tile"));
  const int threads = param_int(check, "threads");
  const std::int64_t elements = std::int64_t{tile.tm} * tile.tk;
  if (threads < 1 || elements % threads != 0) {
    throw InputError("a_load needs a thread count that divides the A tile");
  }
  const std::int64_t per_thread = elements / threads;
  const std::string base =
      fmt::format("A {}x{} = {} halves / {} threads = {} per thread ({} B)", tile.tm, tile.tk,
                  elements, threads, per_thread, per_thread * 2);
  const std::string quantity = param_string(check, "quantity");
  if (quantity == "elements") return number_value(static_cast<double>(elements), base);
  if (quantity == "bytes") return number_value(static_cast<double>(elements * 2), base);
  if (quantity == "elements_per_thread") return number_value(static_cast<double>(per_thread), base);
  if (quantity == "bytes_per_thread")
    return number_value(static_cast<double>(per_thread * 2), base);
  const int thread = param_int_or(check, "thread", -1);
  if (thread < 0 || thread >= threads) throw InputError("a_load thread index out of range");
  const std::int64_t first = thread * per_thread;
  const std::int64_t last = first + per_thread - 1;
  const std::string work =
      fmt::format("{}; thread {}: elements {}..{} -> row {}, cols {}..{}", base, thread, first,
                  last, first / tile.tk, first % tile.tk, last % tile.tk);
  if (quantity == "thread_elements") return text_value(fmt::format("{}..{}", first, last), work);
  if (quantity == "thread_row") return number_value(static_cast<double>(first / tile.tk), work);
  if (quantity == "thread_cols") {
    return text_value(fmt::format("{}..{}", first % tile.tk, last % tile.tk), work);
  }
  throw InputError(fmt::format("unknown a_load quantity '{}'", quantity));
}

MethodValue bank_conflicts(const json& check, const CheckContext& context) {
  const model::ThreadgroupMemorySpec& tgm = context.device->threadgroup_memory;
  const int stride = param_int(check, "stride_halves");
  const int rows = param_int_or(check, "rows", 8);
  const int row_halves = param_int_or(check, "row_halves", 8);
  if (stride < 1 || rows < 1 || row_halves < 1) throw InputError("bank_conflicts needs sizes >= 1");
  std::map<std::int64_t, std::set<std::int64_t>> words_per_bank;
  for (int r = 0; r < rows; ++r) {
    for (int h = 0; h < row_halves; ++h) {
      const std::int64_t byte = (std::int64_t{r} * stride + h) * 2;
      const std::int64_t word = byte / tgm.bank_width_bytes;
      words_per_bank[word % tgm.banks].insert(word);
    }
  }
  std::size_t ways = 0;
  for (const auto& [bank, words] : words_per_bank) ways = std::max(ways, words.size());
  return number_value(
      static_cast<double>(ways),
      fmt::format("{}: {} rows x {} halves at a stride of {} halves ({} B) over {} "
                  "classic banks of {} B: up to {} distinct words in one bank = {}-way",
                  context.device->name, rows, row_halves, stride, stride * 2, tgm.banks,
                  tgm.bank_width_bytes, ways, ways));
}

}  // namespace marlin::validate::detail
