#include "sim/runtime/kernel_registry.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "model/common/input_error.h"
#include "model/common/join.h"

namespace marlin::sim {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, KernelInfo, std::less<>> kernels;
  std::map<std::string, std::string, std::less<>> duplicates;  // name -> second source
};
Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

std::size_t KernelInfo::static_threadgroup_bytes() const {
  std::size_t end = 0;
  for (const ThreadgroupDecl& d : threadgroup_decls) {
    end = (end + d.align - 1) / d.align * d.align + d.bytes;
  }
  return end;
}

void register_kernel(KernelInfo info) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.kernels.count(info.name) != 0) {
    r.duplicates.emplace(info.name, info.source);
    return;
  }
  std::string name = info.name;
  r.kernels.emplace(std::move(name), std::move(info));
}

const KernelInfo& find_kernel(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (auto d = r.duplicates.find(name); d != r.duplicates.end()) {
    throw InputError(fmt::format("kernel '{}' is defined twice ({} and {})", name,
                                 r.kernels.find(name)->second.source, d->second));
  }
  auto it = r.kernels.find(name);
  if (it == r.kernels.end()) {
    std::string known;
    for (const auto& [k, v] : r.kernels) append_item(known, ", ", k);
    throw InputError(fmt::format("unknown kernel '{}' (compiled kernels: {})", name,
                                 known.empty() ? "none" : known));
  }
  return it->second;
}

std::vector<std::string> kernel_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [k, v] : r.kernels) names.push_back(k);
  return names;
}

}  // namespace marlin::sim
