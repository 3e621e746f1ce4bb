#include "tools/validate/dequant_count.h"

#include "model/common/input_error.h"

namespace marlin::validate {

DequantCount count_dequant(const DequantQuery& query) {
  analytic::validate_tile(query.tile);
  if (query.ops_per_element < 0) throw InputError("dequant ops per element must not be negative");
  const analytic::Tile& t = query.tile;
  DequantCount result;
  result.distinct_elements = std::int64_t{t.tk} * t.tn;
  if (query.kernel == DequantKernel::kSeparate) {
    result.dequantized_elements = result.distinct_elements;
  } else {
    if (query.simdgroups < 1 || query.sg_m_tiles < 1 || query.sg_n_tiles < 1) {
      throw InputError("fused dequant count needs simdgroups, sg_m_tiles and sg_n_tiles >= 1");
    }
    const std::int64_t k_subtiles = t.tk / analytic::kMmaDim;
    const std::int64_t fragments_per_sg =
        k_subtiles * query.sg_m_tiles * std::int64_t{query.sg_n_tiles};
    result.dequantized_elements = query.simdgroups * fragments_per_sg * 64;
  }
  result.ops = static_cast<double>(result.dequantized_elements) * query.ops_per_element;
  result.useful_flops = std::int64_t{2} * t.tm * t.tn * t.tk;
  result.overhead_percent = 100.0 * result.ops / static_cast<double>(result.useful_flops);
  return result;
}

}  // namespace marlin::validate
